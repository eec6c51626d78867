// Prng: PostgreSQL's pg_prng (xoroshiro128**) and pgbench's random draws.
//
// pgrig must draw the same numbers as pgbench for the same --random-seed, so
// this reproduces src/common/pg_prng.c (state seeded through splitmix64,
// xoroshiro128** steps, pg_prng_uint64_range's bitmask rejection, and
// pg_prng_double's 52-bit mantissa) and pgbench's getrand,
// getExponentialRand, getGaussianRand and getZipfianRand algorithms.
//
// A Prng is a small value type (16 bytes); each owner (a client, a thread)
// keeps its own, so there is no sharing and no locking.  Not thread-safe.
//
// Seeding order — what the engine must do to reproduce pgbench's streams
// (pgbench.c main() and set_random_seed()):
//   1. seed = ParseRandomSeed(--random-seed text, or $PGBENCH_RANDOM_SEED, or
//      "time" by default); Prng base = MakeBaseSequence(seed).
//   2. For each client i = 0..nclients-1 in order:
//        client_rng[i] = base.NewStream();   // pgbench's cs_func_rs
//   3. If "default_seed" was not given with -D:
//        default_seed = (int64) base.Next64(), the same for every client.
//      If "random_seed" was not given with -D: random_seed = (int64) seed.
//      (scale and client_id are set just before, and draw nothing.)
//   4. nthreads = min(nthreads, nclients); for each thread t in order:
//        choose[t] = base.NewStream();  throttle[t] = base.NewStream();
//        sample[t] = base.NewStream();
// The script choice per transaction is ChooseScript() in script.h with the
// thread's choose stream; -R's delay is PoissonDelayUs() with the throttle
// stream (pgbench multiplies the per-client delay by nthreads first);
// --sampling-rate skips a log line when sample.NextDouble() > rate.
#ifndef PGRIG_SCRIPT_PRNG_H_
#define PGRIG_SCRIPT_PRNG_H_

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace pgrig::script {

class Prng {
 public:
  // pg_prng_seed(): the two state words are the first two outputs of
  // splitmix64 started at `seed`.
  explicit Prng(uint64_t seed = 0) { Seed(seed); }
  void Seed(uint64_t seed);

  // pg_prng_uint64(): the next raw xoroshiro128** output.
  uint64_t Next64();
  // pg_prng_uint64_range(): uniform in [rmin, rmax]; rmin when rmax <= rmin.
  uint64_t Uint64Range(uint64_t rmin, uint64_t rmax);
  // pg_prng_int64_range().
  int64_t Int64Range(int64_t rmin, int64_t rmax);
  // pg_prng_double(): uniform in [0, 1) with 52 random bits.
  double NextDouble();

  // pg_prng_seed() of a new stream from this one's next output (pgbench's
  // initRandomState()).
  Prng NewStream() { return Prng(Next64()); }

  uint64_t s0() const { return s0_; }
  uint64_t s1() const { return s1_; }

 private:
  uint64_t s0_ = 0;
  uint64_t s1_ = 0;
};

// pgbench's getrand(): uniform in [min, max].  REQUIRES: min <= max and
// max - min + 1 does not overflow (the evaluator checks, as pgbench does).
int64_t RandomUniform(Prng& rng, int64_t min, int64_t max);
// getExponentialRand().  REQUIRES: parameter > 0.
int64_t RandomExponential(Prng& rng, int64_t min, int64_t max, double parameter);
// getGaussianRand().  REQUIRES: parameter >= 2.0 (kMinGaussianParam).
int64_t RandomGaussian(Prng& rng, int64_t min, int64_t max, double parameter);
// getZipfianRand().  REQUIRES: kMinZipfianParam <= s <= kMaxZipfianParam.
int64_t RandomZipfian(Prng& rng, int64_t min, int64_t max, double s);

inline constexpr double kMinGaussianParam = 2.0;
inline constexpr double kMinZipfianParam = 1.001;
inline constexpr double kMaxZipfianParam = 1000.0;

// -R throttling, pgbench's getPoissonRand(): (int64)(-log(u) * center + 0.5)
// with u = 1 - NextDouble() in (0, 1]; center is the mean delay in us.  A
// delay beyond kMaxPoissonDelayUs (a rate so low that one transaction would
// wait decades) is that maximum: pgbench's conversion of such a delay, and
// of the nanoseconds the engine makes of it, is undefined.
inline constexpr double kMaxPoissonDelayUs = 1e15;  // ~31.7 years
int64_t PoissonDelayUs(Prng& throttle_rng, double center_us);

// --random-seed: "time" (default; seed from the current time in us), "rand"
// (from a strong random source), or an unsigned decimal integer.  Error
// text as pgbench: 'unrecognized random seed option "x"' plus
// 'Expecting an unsigned integer, "time" or "rand".' on a second line.
Result<uint64_t> ParseRandomSeed(std::string_view text);

// The base sequence every other stream is drawn from (step 1 above).
inline Prng MakeBaseSequence(uint64_t seed) { return Prng(seed); }

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_PRNG_H_
