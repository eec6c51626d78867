#include "script/prng.h"

#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string>

namespace pgrig::script {
namespace {

inline uint64_t Rotl(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

uint64_t SplitMix64(uint64_t* state) {
  uint64_t v = (*state += 0x9E3779B97F4A7C15ULL);
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ULL;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBULL;
  return v ^ (v >> 31);
}

}  // namespace

void Prng::Seed(uint64_t seed) {
  s0_ = SplitMix64(&seed);
  s1_ = SplitMix64(&seed);
  if (s0_ == 0 && s1_ == 0) {  // all-zero is a fixed point; pg_prng_seed_check
    s0_ = 0x5851F42D4C957F2DULL;
    s1_ = 0x14057B7EF767814FULL;
  }
}

uint64_t Prng::Next64() {
  const uint64_t s0 = s0_;
  const uint64_t sx = s1_ ^ s0;
  const uint64_t val = Rotl(s0 * 5, 7) * 9;
  s0_ = Rotl(s0, 24) ^ sx ^ (sx << 16);
  s1_ = Rotl(sx, 37);
  return val;
}

uint64_t Prng::Uint64Range(uint64_t rmin, uint64_t rmax) {
  if (rmax <= rmin) return rmin;
  const uint64_t range = rmax - rmin;
  // Bitmask rejection: keep as many top bits as range needs.
  const int rshift = __builtin_clzll(range);
  uint64_t val;
  do {
    val = Next64() >> rshift;
  } while (val > range);
  return rmin + val;
}

int64_t Prng::Int64Range(int64_t rmin, int64_t rmax) {
  if (rmax <= rmin) return rmin;
  uint64_t off = Uint64Range(0, static_cast<uint64_t>(rmax) - static_cast<uint64_t>(rmin));
  return static_cast<int64_t>(static_cast<uint64_t>(rmin) + off);
}

double Prng::NextDouble() { return std::ldexp(static_cast<double>(Next64() >> 12), -52); }

int64_t RandomUniform(Prng& rng, int64_t min, int64_t max) {
  uint64_t span = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  return static_cast<int64_t>(static_cast<uint64_t>(min) + rng.Uint64Range(0, span));
}

namespace {

// pgbench computes `min + (int64) (width * r)` in C, where r is NaN or the
// product out of range for some parameters it accepts (a NaN or infinite
// gaussian or exponential parameter).  That conversion is undefined in C and
// C++; the hardware gives a definite value, which is what pgbench prints.
// Reproduce it without the undefined behaviour: x86's cvttsd2si returns
// INT64_MIN ("integer indefinite") for NaN and out-of-range values; Arm's
// fcvtzs saturates and maps NaN to 0.  The sum wraps as it does there.
int64_t OffsetLikePgbench(int64_t min, double product) {
  int64_t offset;
  constexpr double kTwo63 = 9223372036854775808.0;
  if (product >= -kTwo63 && product < kTwo63) {
    offset = static_cast<int64_t>(product);
  } else {
#if defined(__aarch64__)
    offset = std::isnan(product) ? 0
             : product > 0       ? std::numeric_limits<int64_t>::max()
                                 : std::numeric_limits<int64_t>::min();
#else
    offset = std::numeric_limits<int64_t>::min();
#endif
  }
  return static_cast<int64_t>(static_cast<uint64_t>(min) + static_cast<uint64_t>(offset));
}

}  // namespace

int64_t RandomExponential(Prng& rng, int64_t min, int64_t max, double parameter) {
  const double cut = std::exp(-parameter);
  const double uniform = 1.0 - rng.NextDouble();  // (0, 1]
  const double r = -std::log(cut + (1.0 - cut) * uniform) / parameter;
  return OffsetLikePgbench(min, static_cast<double>(max - min + 1) * r);
}

int64_t RandomGaussian(Prng& rng, int64_t min, int64_t max, double parameter) {
  double stdev;
  do {
    // Box-Muller, as pg_prng_double_normal(): both uniforms in (0, 1].
    const double u1 = 1.0 - rng.NextDouble();
    const double u2 = 1.0 - rng.NextDouble();
    stdev = std::sqrt(-2.0 * std::log(u1)) * std::sin(2.0 * std::numbers::pi * u2);
  } while (stdev < -parameter || stdev >= parameter);
  const double r = (stdev + parameter) / (parameter * 2.0);
  return OffsetLikePgbench(min, static_cast<double>(max - min + 1) * r);
}

int64_t RandomZipfian(Prng& rng, int64_t min, int64_t max, double s) {
  const int64_t n = max - min + 1;
  int64_t k = 1;
  if (n > 1) {
    // Rejection method (Devroye, p. 550-551), as pgbench's
    // computeIterativeZipfian().
    const double b = std::pow(2.0, s - 1.0);
    double x;
    while (true) {
      const double u = rng.NextDouble();
      const double v = rng.NextDouble();
      x = std::floor(std::pow(u, -1.0 / (s - 1.0)));
      const double t = std::pow(1.0 + 1.0 / x, s - 1.0);
      if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= static_cast<double>(n)) break;
    }
    k = static_cast<int64_t>(x);
  }
  return min - 1 + k;
}

int64_t PoissonDelayUs(Prng& throttle_rng, double center_us) {
  const double uniform = 1.0 - throttle_rng.NextDouble();
  const double delay = -std::log(uniform) * center_us + 0.5;
  return static_cast<int64_t>(std::min(delay, kMaxPoissonDelayUs));
}

Result<uint64_t> ParseRandomSeed(std::string_view text) {
  if (text == "time") {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  if (text == "rand") {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof(seed), 0) != static_cast<ssize_t>(sizeof(seed))) {
      return Internal("could not generate random seed");
    }
    return seed;
  }
  std::string s(text);
  uint64_t seed = 0;
  char garbage = 0;
  if (std::sscanf(s.c_str(), "%" SCNu64 "%c", &seed, &garbage) != 1) {
    return InvalidArgument("unrecognized random seed option \"" + s +
                           "\"\nExpecting an unsigned integer, \"time\" or \"rand\".");
  }
  return seed;
}

}  // namespace pgrig::script
