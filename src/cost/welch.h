// Confidence intervals for throughput measured over several iterations, on
// the log scale: the interval of one geometric mean (one-sample t), and the
// interval of a ratio of two geometric means (Welch's t, unequal variances).
// Throughput is positive and its spread is roughly proportional to its size,
// so logs make ratios symmetric and intervals stay positive.
//
// This is written here because the stats module was being written at the
// same time; it belongs in stats/ and should move there (issue 7 report).
// Pure functions; thread-safe.
#ifndef PGRIG_COST_WELCH_H_
#define PGRIG_COST_WELCH_H_

#include <vector>

#include "common/status.h"

namespace pgrig::cost {

// Student's t distribution with `df` degrees of freedom (df > 0, may be
// fractional as Welch's approximation gives).
double StudentTCdf(double t, double df);
// The t with StudentTCdf(t, df) == p.  REQUIRES: 0 < p < 1, df > 0.
double StudentTQuantile(double p, double df);

struct LogInterval {
  double estimate = 0;  // geometric mean, or ratio of geometric means
  double low = 0;
  double high = 0;
  double df = 0;      // degrees of freedom used; +inf when the spread is zero
  double se_log = 0;  // standard error on the natural-log scale
};

// Geometric mean of `samples` with a t interval computed on their logs.
// REQUIRES (checked): at least 2 samples, all finite and > 0.
Result<LogInterval> GeometricMeanInterval(const std::vector<double>& samples,
                                          double confidence = 0.95);

// geomean(other) / geomean(base) with a Welch t interval on the log scale:
//   d  = mean(log other) - mean(log base)
//   se = sqrt(s_o^2/n_o + s_b^2/n_b)
//   df = se^4 / ((s_o^2/n_o)^2/(n_o-1) + (s_b^2/n_b)^2/(n_b-1))
//   interval = exp(d -+ t_{(1+confidence)/2, df} x se)
// REQUIRES (checked): at least 2 samples in each, all finite and > 0.
Result<LogInterval> WelchRatioOfGeometricMeans(const std::vector<double>& base,
                                               const std::vector<double>& other,
                                               double confidence = 0.95);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_WELCH_H_
