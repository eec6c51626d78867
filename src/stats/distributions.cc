#include "stats/distributions.h"

#include <cmath>
#include <limits>

namespace pgrig::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction for I_x(a, b) (the expansion whose terms alternate
// between d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
// d_{2m} = m(b-m)x / ((a+2m-1)(a+2m))), evaluated with the modified Lentz
// method.  Converges quickly for x < (a+1)/(a+b+2); callers use the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) otherwise.
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-16;
  constexpr int kMaxTerms = 200000;
  // f = 1 / (1 + d1 / (1 + d2 / (1 + ...))): numerators 1, d1, d2, ...; all
  // denominators 1.
  double f = kTiny;
  double c = f;
  double d = 0.0;
  for (int j = 1; j <= kMaxTerms; ++j) {
    double numerator;
    if (j == 1) {
      numerator = 1.0;
    } else {
      const int k = j - 1;  // index of d_k
      const double m = static_cast<double>(k / 2);
      if (k % 2 == 1) {
        numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      } else {
        numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      }
    }
    d = 1.0 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return f;
}

// P(T > t) for t >= 0: (1/2) I_{dof/(dof+t^2)}(dof/2, 1/2), computed without
// forming 1 - (something close to 1).
double StudentTUpperTail(double t, double dof) {
  if (std::isinf(t)) return 0.0;
  const double t2 = t * t;
  const double x = dof / (dof + t2);
  if (x > 0.5) {
    // Near t = 0: use the complement with 1 - x = t^2 / (dof + t^2) exactly.
    return 0.5 * (1.0 - RegularizedIncompleteBeta(t2 / (dof + t2), 0.5, dof / 2));
  }
  return 0.5 * RegularizedIncompleteBeta(x, dof / 2, 0.5);
}

// Cornish-Fisher expansion of the t quantile about the normal quantile z, to
// order 1/dof^4 (Abramowitz & Stegun 26.7.5).
double StudentTQuantileLargeDof(double z, double dof) {
  const double z2 = z * z;
  const double z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + (g1 + (g2 + (g3 + g4 / dof) / dof) / dof) / dof;
}

constexpr double kLargeDof = 1e5;

}  // namespace

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) return kNaN;
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  const double log_front =
      a * std::log(x) + b * std::log1p(-x) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(x, a, b) / a;
  return 1.0 - front * BetaContinuedFraction(1.0 - x, b, a) / b;
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  if (!(p > 0) || !(p < 1)) return kNaN;
  if (p == 0.5) return 0.0;
  // Bisect on the smaller tail, where erfc keeps full relative precision.
  const bool upper = p > 0.5;
  const double tail = upper ? 1.0 - p : p;
  double lo = 0.0, hi = 40.0;  // z in [lo, hi] with Q(z) = tail, Q the upper tail
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const double z = 0.5 * (lo + hi);
  return upper ? z : -z;
}

double StudentTCdf(double t, double dof) {
  if (std::isnan(t) || !(dof > 0)) return kNaN;
  if (std::isinf(dof)) return NormalCdf(t);
  const double tail = StudentTUpperTail(std::fabs(t), dof);
  return t >= 0 ? 1.0 - tail : tail;
}

double StudentTQuantile(double p, double dof) {
  if (!(p > 0) || !(p < 1) || !(dof > 0)) return kNaN;
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -StudentTQuantile(1.0 - p, dof);
  if (dof > kLargeDof) return StudentTQuantileLargeDof(NormalQuantile(p), dof);
  const double tail = 1.0 - p;
  double lo = 0.0, hi = 1.0;
  while (StudentTUpperTail(hi, dof) > tail) {
    lo = hi;
    hi *= 2;
    if (std::isinf(hi)) return hi;
  }
  for (int i = 0; i < 300 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (StudentTUpperTail(mid, dof) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

double BinomialCdf(int64_t k, int64_t n, double q) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (q <= 0.0) return 1.0;
  if (q >= 1.0) return 0.0;
  // P(X <= k) = I_{1-q}(n-k, k+1).
  return RegularizedIncompleteBeta(1.0 - q, static_cast<double>(n - k), static_cast<double>(k + 1));
}

}  // namespace pgrig::stats
