#include "stats/summary.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "stats/distributions.h"

namespace pgrig::stats {
namespace {

struct Moments {
  double mean = 0.0;
  double variance = 0.0;  // sample variance (n - 1); 0 when n < 2
};

// Two passes: the mean first, then squared deviations, so that large values
// with a small spread (tps around 50,000 +- 10) lose no precision.
Moments MomentsOf(std::span<const double> xs) {
  Moments m;
  if (xs.empty()) return m;
  double sum = 0.0;
  for (double x : xs) sum += x;
  m.mean = sum / static_cast<double>(xs.size());
  if (xs.size() < 2) return m;
  double ss = 0.0;
  for (double x : xs) ss += (x - m.mean) * (x - m.mean);
  m.variance = ss / static_cast<double>(xs.size() - 1);
  return m;
}

double TwoSidedT(double confidence, double dof) {
  return StudentTQuantile(1.0 - (1.0 - confidence) / 2.0, dof);
}

Status CheckPositive(std::span<const double> xs, const char* side) {
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!(xs[i] > 0.0) || std::isinf(xs[i])) {
      return InvalidArgument(std::string("cannot work on the log scale: sample ") +
                             std::to_string(i + 1) + " of " + side + " is " +
                             std::to_string(xs[i]) +
                             "; geometric means and their ratios need positive, finite values "
                             "(drop failed iterations that measured nothing)");
    }
  }
  return Status::Ok();
}

Status CheckConfidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    return InvalidArgument("confidence must be between 0 and 1 (exclusive), got " +
                           std::to_string(confidence));
  }
  return Status::Ok();
}

std::vector<double> Logs(std::span<const double> xs) {
  std::vector<double> out(xs.size());
  std::transform(xs.begin(), xs.end(), out.begin(), [](double x) { return std::log(x); });
  return out;
}

}  // namespace

Result<LogScaleEstimate> GeometricMeanInterval(std::span<const double> samples, double confidence) {
  PGRIG_RETURN_IF_ERROR(CheckConfidence(confidence));
  if (samples.size() < 2) {
    return InvalidArgument("an interval of the geometric mean needs at least 2 samples, got " +
                           std::to_string(samples.size()) + " (run more iterations)");
  }
  PGRIG_RETURN_IF_ERROR(CheckPositive(samples, "the samples"));
  const Moments m = MomentsOf(Logs(samples));
  LogScaleEstimate e;
  e.n = static_cast<int64_t>(samples.size());
  e.geometric_mean = std::exp(m.mean);
  e.dof = static_cast<double>(e.n - 1);
  e.log_se = std::sqrt(m.variance / static_cast<double>(e.n));
  const double half = TwoSidedT(confidence, e.dof) * e.log_se;
  e.interval = Interval{std::exp(m.mean - half), std::exp(m.mean + half)};
  return e;
}

std::optional<MedianInterval> MedianConfidenceInterval(std::span<const double> sorted,
                                                       double confidence) {
  const auto n = static_cast<int64_t>(sorted.size());
  if (n == 0) return std::nullopt;
  // Widen from the middle outwards is the same as taking the largest lower
  // rank k whose symmetric interval [x_(k), x_(n+1-k)] still covers; coverage
  // is 1 - 2 P(B <= k - 1), decreasing in k.
  int64_t best_k = 1;
  bool meets = false;
  for (int64_t k = (n + 1) / 2; k >= 1; --k) {
    const double coverage = 1.0 - 2.0 * BinomialCdf(k - 1, n, 0.5);
    if (coverage >= confidence) {
      best_k = k;
      meets = true;
      break;
    }
  }
  MedianInterval mi;
  mi.lower_rank = best_k;
  mi.upper_rank = n + 1 - best_k;
  mi.low = sorted[static_cast<size_t>(mi.lower_rank - 1)];
  mi.high = sorted[static_cast<size_t>(mi.upper_rank - 1)];
  mi.coverage = std::max(0.0, 1.0 - 2.0 * BinomialCdf(best_k - 1, n, 0.5));
  mi.meets_confidence = meets;
  return mi;
}

Summary Summarize(std::span<const double> samples, double confidence) {
  Summary s;
  s.n = static_cast<int64_t>(samples.size());
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  const Moments m = MomentsOf(samples);
  s.mean = m.mean;
  s.stddev = std::sqrt(m.variance);
  if (s.n >= 2) {
    const double half = TwoSidedT(confidence, static_cast<double>(s.n - 1)) * s.stddev /
                        std::sqrt(static_cast<double>(s.n));
    s.mean_ci = Interval{s.mean - half, s.mean + half};
  }
  s.median_ci = MedianConfidenceInterval(sorted, confidence);
  if (auto g = GeometricMeanInterval(samples, confidence); g.ok()) {
    s.geometric_mean = g->geometric_mean;
    s.geometric_mean_ci = g->interval;
  }
  return s;
}

Verdict VerdictOf(const Interval& ratio_interval) {
  if (ratio_interval.Contains(1.0)) return Verdict::kNoSignificantDifference;
  return ratio_interval.low > 1.0 ? Verdict::kHigher : Verdict::kLower;
}

const char* VerdictName(Verdict v) {
  static constexpr const char* kNames[] = {"higher", "lower", "no significant difference",
                                           "insufficient data"};
  return NameAt<Verdict::kInsufficientData>(v, kNames, "unknown");
}

Result<RatioEstimate> CompareRatio(std::span<const double> a, std::span<const double> b,
                                   double confidence) {
  PGRIG_RETURN_IF_ERROR(CheckConfidence(confidence));
  PGRIG_RETURN_IF_ERROR(CheckPositive(a, "A"));
  PGRIG_RETURN_IF_ERROR(CheckPositive(b, "B"));
  RatioEstimate r;
  r.n_a = static_cast<int64_t>(a.size());
  r.n_b = static_cast<int64_t>(b.size());
  if (a.empty() || b.empty()) return r;

  const Moments ma = MomentsOf(Logs(a));
  const Moments mb = MomentsOf(Logs(b));
  const double diff = ma.mean - mb.mean;
  r.ratio = std::exp(diff);
  if (r.n_a < 2 || r.n_b < 2) return r;

  const double wa = ma.variance / static_cast<double>(r.n_a);
  const double wb = mb.variance / static_cast<double>(r.n_b);
  const double se2 = wa + wb;
  r.log_se = std::sqrt(se2);
  if (se2 == 0.0) {
    // Every iteration identical on both sides: the interval is the point.
    r.dof = static_cast<double>(r.n_a + r.n_b - 2);
    r.interval = Interval{*r.ratio, *r.ratio};
  } else {
    r.dof = se2 * se2 /
            (wa * wa / static_cast<double>(r.n_a - 1) + wb * wb / static_cast<double>(r.n_b - 1));
    const double half = TwoSidedT(confidence, r.dof) * r.log_se;
    r.interval = Interval{std::exp(diff - half), std::exp(diff + half)};
  }
  r.verdict = VerdictOf(*r.interval);
  return r;
}

}  // namespace pgrig::stats
