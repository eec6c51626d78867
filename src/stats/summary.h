// Across-iteration statistics: what pgrig reports when a configuration was
// measured several times (one sample per iteration, e.g. its tps), and how two
// configurations or machines compare.
//
// Which interval is used where:
//  * The typical value of one configuration is the MEDIAN of its iterations
//    with a distribution-free interval from order statistics (Summary::
//    median_ci).  It assumes nothing about the shape of the distribution and
//    is not dragged by one disturbed iteration, which is why reports show it.
//    With few iterations it cannot reach the requested confidence (for 95%,
//    n <= 5); it is then [min, max] and `coverage` says how much it covers.
//  * The t-interval of the MEAN (Summary::mean_ci) is provided alongside for
//    readers who want the classical figure and for n too small for a useful
//    median interval; it assumes roughly normal iteration results.
//  * A RATIO between two configurations (A / B) is the ratio of geometric
//    means with a Welch t-interval computed on the log scale (CompareRatio):
//    throughput ratios are multiplicative, logs make them additive and
//    symmetric, Welch does not assume equal variances, and the interval maps
//    back to a ratio interval by exp().  An interval that contains 1.0 is
//    kNoSignificantDifference, never a win.
//  * The interval of ONE configuration's typical throughput on the same scale
//    as the ratio is the geometric mean with a Student t interval on the logs
//    (GeometricMeanInterval; Summary::geometric_mean_ci when every sample is
//    positive).  Prices and per-dollar figures scale it by a constant.
//
// This is the only place pgrig computes these intervals: cost (per dollar)
// and report (cells, comparisons, claims) call it, renderers only print.
//
// All functions are pure and thread-safe.
#ifndef PGRIG_STATS_SUMMARY_H_
#define PGRIG_STATS_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <span>

#include "common/status.h"

namespace pgrig::stats {

struct Interval {
  double low = 0.0;
  double high = 0.0;

  bool Contains(double v) const { return low <= v && v <= high; }
};

// Distribution-free interval for the median: [x_(lower_rank), x_(upper_rank)]
// of the sorted samples (ranks 1-based, symmetric: upper = n + 1 - lower).
// coverage = P(lower_rank <= B < upper_rank) for B ~ Binomial(n, 1/2): the
// exact probability that the interval holds the population median for any
// continuous distribution.
struct MedianInterval {
  double low = 0.0;
  double high = 0.0;
  int64_t lower_rank = 0;
  int64_t upper_rank = 0;
  double coverage = 0.0;
  bool meets_confidence = false;  // coverage >= the requested confidence
};

struct Summary {
  int64_t n = 0;
  double min = 0.0;
  double max = 0.0;
  double median = 0.0;  // middle value, or the mean of the two middle values
  double mean = 0.0;
  double stddev = 0.0;              // sample standard deviation (divides by n - 1); 0 if n < 2
  std::optional<Interval> mean_ci;  // t-interval; needs n >= 2
  std::optional<MedianInterval> median_ci;  // needs n >= 1
  // exp(mean(ln x)) and its Student t interval on the log scale; set when
  // n >= 2 and every sample is positive and finite.
  std::optional<double> geometric_mean;
  std::optional<Interval> geometric_mean_ci;
};

// Summarizes one configuration's iteration results.  All-zero Summary for an
// empty span.  REQUIRES: 0 < confidence < 1 and finite samples (Summarize does
// not reject NaN; a NaN sample makes every figure NaN-tainted).
Summary Summarize(std::span<const double> samples, double confidence = 0.95);

// Distribution-free interval for the median alone; nullopt for n == 0.
// `sorted` must be ascending.
std::optional<MedianInterval> MedianConfidenceInterval(std::span<const double> sorted,
                                                       double confidence = 0.95);

// A geometric mean with its t interval computed on the logs:
//   m = mean(ln x), se = sd(ln x) / sqrt(n), interval = exp(m -+ t_{n-1} se).
struct LogScaleEstimate {
  int64_t n = 0;
  double geometric_mean = 0.0;
  Interval interval;
  double dof = 0.0;     // n - 1
  double log_se = 0.0;  // standard error of mean(ln x)
};

// Fails with InvalidArgument for fewer than 2 samples, a sample that is not a
// positive finite number (naming its position), or a confidence outside (0, 1).
Result<LogScaleEstimate> GeometricMeanInterval(std::span<const double> samples,
                                               double confidence = 0.95);

enum class Verdict {
  kHigher,                   // A / B is significantly above 1
  kLower,                    // A / B is significantly below 1
  kNoSignificantDifference,  // the interval contains 1.0
  kInsufficientData,         // fewer than 2 samples on either side
};

const char* VerdictName(Verdict v);  // "higher", "lower", "no significant difference", ...

// What a ratio's interval says: kHigher when it lies entirely above 1,
// kLower when entirely below, else kNoSignificantDifference.
Verdict VerdictOf(const Interval& ratio_interval);

struct RatioEstimate {
  int64_t n_a = 0;
  int64_t n_b = 0;
  // geomean(A) / geomean(B); set whenever both sides have a sample.
  std::optional<double> ratio;
  // exp(mean(ln A) - mean(ln B) +- t * se); set when both sides have >= 2.
  std::optional<Interval> interval;
  double dof = 0.0;     // Welch-Satterthwaite degrees of freedom (0 if no interval)
  double log_se = 0.0;  // standard error of mean(ln A) - mean(ln B)
  Verdict verdict = Verdict::kInsufficientData;
};

// Compares A against B (e.g. tps per iteration on two machines).  Fails with
// InvalidArgument when a sample is not a positive finite number (the log
// scale needs it), naming the side and the position, or when the confidence
// is outside (0, 1).  With no spread on either side the interval is the point
// and dof is n_a + n_b - 2.
Result<RatioEstimate> CompareRatio(std::span<const double> a, std::span<const double> b,
                                   double confidence = 0.95);

}  // namespace pgrig::stats

#endif  // PGRIG_STATS_SUMMARY_H_
