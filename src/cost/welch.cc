#include "cost/welch.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace pgrig::cost {

namespace {

// Continued fraction for the regularized incomplete beta function, evaluated
// with the modified Lentz method; converges quickly for x < (a+1)/(a+b+2).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    // Even step.
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    // Odd step.
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double RegularizedBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // Use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1.0 - front * BetaContinuedFraction(b, a, 1.0 - x) / b;
}

Status CheckSamples(const std::vector<double>& s, const char* what) {
  if (s.size() < 2) {
    return InvalidArgument(
        fmt::format("{}: an interval needs at least 2 samples, got {}", what, s.size()));
  }
  for (double v : s) {
    if (!std::isfinite(v) || v <= 0) {
      return InvalidArgument(
          fmt::format("{}: every sample must be a number greater than 0, got {}", what, v));
    }
  }
  return Status::Ok();
}

struct LogStats {
  double n = 0;
  double mean = 0;
  double var = 0;  // sample variance (n - 1 denominator)
};

LogStats StatsOfLogs(const std::vector<double>& s) {
  LogStats st;
  st.n = static_cast<double>(s.size());
  for (double v : s) st.mean += std::log(v);
  st.mean /= st.n;
  for (double v : s) {
    const double d = std::log(v) - st.mean;
    st.var += d * d;
  }
  st.var /= st.n - 1;
  return st;
}

Status CheckConfidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    return InvalidArgument(
        fmt::format("confidence must be between 0 and 1 (exclusive), got {}", confidence));
  }
  return Status::Ok();
}

}  // namespace

double StudentTCdf(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double x = df / (df + t * t);
  const double tail = 0.5 * RegularizedBeta(df / 2.0, 0.5, x);  // P(T > |t|)
  return t > 0 ? 1.0 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (p == 0.5) return 0;
  if (p < 0.5) return -StudentTQuantile(1.0 - p, df);
  // Bracket, then bisect: the CDF is monotone and this runs a handful of
  // times per command, so robustness beats speed.
  double lo = 0, hi = 1;
  while (StudentTCdf(hi, df) < p && hi < 1e300) {
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (StudentTCdf(mid, df) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

Result<LogInterval> GeometricMeanInterval(const std::vector<double>& samples, double confidence) {
  PGRIG_RETURN_IF_ERROR(CheckConfidence(confidence));
  PGRIG_RETURN_IF_ERROR(CheckSamples(samples, "geometric mean interval"));
  const LogStats st = StatsOfLogs(samples);
  LogInterval r;
  r.estimate = std::exp(st.mean);
  r.df = st.n - 1;
  r.se_log = std::sqrt(st.var / st.n);
  const double t = StudentTQuantile(0.5 + confidence / 2, r.df);
  r.low = std::exp(st.mean - t * r.se_log);
  r.high = std::exp(st.mean + t * r.se_log);
  return r;
}

Result<LogInterval> WelchRatioOfGeometricMeans(const std::vector<double>& base,
                                               const std::vector<double>& other,
                                               double confidence) {
  PGRIG_RETURN_IF_ERROR(CheckConfidence(confidence));
  PGRIG_RETURN_IF_ERROR(CheckSamples(base, "ratio interval (first result)"));
  PGRIG_RETURN_IF_ERROR(CheckSamples(other, "ratio interval (second result)"));
  const LogStats b = StatsOfLogs(base);
  const LogStats o = StatsOfLogs(other);
  const double vb = b.var / b.n;
  const double vo = o.var / o.n;
  LogInterval r;
  const double d = o.mean - b.mean;
  r.estimate = std::exp(d);
  r.se_log = std::sqrt(vb + vo);
  if (r.se_log == 0) {
    // Identical samples within each set: no spread, so no width to give.
    r.df = std::numeric_limits<double>::infinity();
    r.low = r.high = r.estimate;
    return r;
  }
  r.df = (vb + vo) * (vb + vo) / (vb * vb / (b.n - 1) + vo * vo / (o.n - 1));
  const double t = StudentTQuantile(0.5 + confidence / 2, r.df);
  r.low = std::exp(d - t * r.se_log);
  r.high = std::exp(d + t * r.se_log);
  return r;
}

}  // namespace pgrig::cost
