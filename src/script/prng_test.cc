#include "script/prng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace pgrig::script {
namespace {

// splitmix64 from 0 gives the well-known 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4;
// pg_prng_seed() takes the state words from there.
TEST(PrngTest, SeedMatchesSplitMix64) {
  Prng p(0);
  EXPECT_EQ(p.s0(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(p.s1(), 0x6e789e6aa1b965f4ULL);
}

// xoroshiro128** first output from that state: rotl(s0 * 5, 7) * 9.
TEST(PrngTest, FirstOutputIsStarStar) {
  Prng p(0);
  const uint64_t s0 = 0xe220a8397b1dcdafULL;
  const uint64_t x = s0 * 5;
  const uint64_t expected = ((x << 7) | (x >> 57)) * 9;
  EXPECT_EQ(p.Next64(), expected);
}

TEST(PrngTest, SameSeedSameStream) {
  Prng a(5432), b(5432), c(5433);
  for (int i = 0; i < 100; i++) {
    uint64_t va = a.Next64();
    EXPECT_EQ(va, b.Next64());
    EXPECT_NE(va, c.Next64());
  }
}

TEST(PrngTest, RangesStayInBounds) {
  Prng p(1);
  for (int i = 0; i < 10000; i++) {
    int64_t v = RandomUniform(p, -5, 5);
    ASSERT_GE(v, -5);
    ASSERT_LE(v, 5);
    double d = p.NextDouble();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    int64_t g = RandomGaussian(p, 1, 100, 2.5);
    ASSERT_GE(g, 1);
    ASSERT_LE(g, 100);
    int64_t e = RandomExponential(p, 1, 100, 3.0);
    ASSERT_GE(e, 1);
    ASSERT_LE(e, 100);
    int64_t z = RandomZipfian(p, 1, 100, 1.5);
    ASSERT_GE(z, 1);
    ASSERT_LE(z, 100);
  }
  EXPECT_EQ(p.Uint64Range(7, 7), 7u);
  EXPECT_EQ(RandomUniform(p, INT64_MIN, INT64_MIN), INT64_MIN);
}

TEST(PrngTest, UniformCoversRange) {
  Prng p(99);
  std::map<int64_t, int> counts;
  for (int i = 0; i < 6000; i++) counts[RandomUniform(p, 1, 6)]++;
  ASSERT_EQ(counts.size(), 6u);
  for (auto& [k, n] : counts) EXPECT_GT(n, 800) << k;
}

TEST(PrngTest, ZipfianFavoursSmallValues) {
  Prng p(3);
  int ones = 0;
  for (int i = 0; i < 1000; i++) ones += RandomZipfian(p, 1, 1000, 2.0) == 1;
  EXPECT_GT(ones, 400);  // P(1) = 1/zeta(2) ~ 0.61
}

TEST(PrngTest, ParseRandomSeed) {
  EXPECT_EQ(*ParseRandomSeed("5432"), 5432u);
  EXPECT_TRUE(ParseRandomSeed("time").ok());
  EXPECT_TRUE(ParseRandomSeed("rand").ok());
  Result<uint64_t> bad = ParseRandomSeed("abc");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unrecognized random seed option \"abc\"\nExpecting an unsigned integer, \"time\" or "
            "\"rand\".");
}

// -R's delays: pgbench's formula where it is defined; a mean delay so long
// that its conversion would not be (a rate like -R 1e-300, which pgbench and
// tpcc run accept) is capped instead of overflowing.
TEST(PrngTest, PoissonDelayIsPgbenchsFormulaAndCapped) {
  Prng a(7), b(7);
  for (int i = 0; i < 100; ++i) {
    const double u = 1.0 - b.NextDouble();
    EXPECT_EQ(PoissonDelayUs(a, 1000.0), static_cast<int64_t>(-std::log(u) * 1000.0 + 0.5));
  }
  Prng c(7);
  for (int i = 0; i < 100; ++i) {
    const int64_t d = PoissonDelayUs(c, 1e300);
    EXPECT_GE(d, 0);
    EXPECT_LE(d, static_cast<int64_t>(kMaxPoissonDelayUs));
  }
}

TEST(PrngTest, NewStreamDrawsFromParent) {
  Prng base(5432);
  Prng copy(5432);
  Prng child = base.NewStream();
  Prng expected(copy.Next64());
  EXPECT_EQ(child.Next64(), expected.Next64());
}

}  // namespace
}  // namespace pgrig::script
