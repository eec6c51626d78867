// The statistics tested as a measuring instrument (issue 12, point 6): on
// synthetic suites whose truth is known, how often do the intervals pgrig
// reports cover it, and how often does an A/A comparison (two samples of the
// same machine) wrongly claim a difference?
//
// Iteration results are drawn log-normal with a coefficient of variation of
// 8% (a realistic spread for tps across iterations on a cloud VM), from a
// seeded PRNG, so every figure below is deterministic; docs/report.md quotes
// the figures this test prints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "stats/summary.h"

namespace pgrig::stats {
namespace {

constexpr int kTrials = 1000;
constexpr double kCv = 0.08;
constexpr uint64_t kSeed = 20261201;

// Log-normal with median `median` and coefficient of variation kCv:
// sigma^2 = ln(1 + cv^2).  Box-Muller on the 64-bit Mersenne Twister, so the
// draws do not depend on the standard library's normal_distribution.
class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  double Normal() {
    const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  std::vector<double> Sample(int n, double median) {
    const double sigma = std::sqrt(std::log(1.0 + kCv * kCv));
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(median * std::exp(sigma * Normal()));
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

struct Coverage {
  int covered = 0;
  int no_difference = 0;
};

// Compares kTrials synthetic cells A (median base x true_ratio) against B
// (median base) with n iterations each.
Coverage RatioCoverage(int n, double true_ratio, uint64_t seed) {
  Draw d(seed);
  Coverage c;
  for (int t = 0; t < kTrials; ++t) {
    const auto a = d.Sample(n, 20000.0 * true_ratio);
    const auto b = d.Sample(n, 20000.0);
    auto r = CompareRatio(a, b);
    EXPECT_TRUE(r.ok());
    if (!r.ok() || !r->interval) continue;
    if (r->interval->Contains(true_ratio)) ++c.covered;
    if (r->verdict == Verdict::kNoSignificantDifference) ++c.no_difference;
  }
  return c;
}

TEST(InstrumentTest, AaComparisonsFindNoDifferenceInAtLeast95PercentOfCells) {
  for (int n : {3, 5}) {
    const Coverage c = RatioCoverage(n, 1.0, kSeed + static_cast<uint64_t>(n));
    std::printf("A/A, CV 8%%, n=%d: no significant difference in %d of %d cells\n", n,
                c.no_difference, kTrials);
    EXPECT_GE(c.no_difference, 950) << "n=" << n;
  }
  // At n = 10 Welch's interval is close to exact, so A/A lands on 95% give
  // or take the binomial noise of 1,000 trials (sd 0.7%): 93% is the floor.
  const Coverage ten = RatioCoverage(10, 1.0, kSeed + 10);
  std::printf("A/A, CV 8%%, n=10: no significant difference in %d of %d cells\n", ten.no_difference,
              kTrials);
  EXPECT_GE(ten.no_difference, 930);
}

TEST(InstrumentTest, RatioIntervalsCoverTheTrueRatio) {
  for (double ratio : {1.0, 1.05, 1.38, 0.7}) {
    for (int n : {3, 5}) {
      const Coverage c =
          RatioCoverage(n, ratio, kSeed * 7 + static_cast<uint64_t>(n * 100 + ratio * 1000));
      std::printf("ratio %.2f, CV 8%%, n=%d: 95%% interval covers the true ratio in %d of %d\n",
                  ratio, n, c.covered, kTrials);
      EXPECT_GE(c.covered, 930) << "ratio " << ratio << " n=" << n;
    }
  }
}

TEST(InstrumentTest, ARealDifferenceIsFoundWhenLargeEnough) {
  // Not a coverage requirement but a check on power: a 38% difference at CV
  // 8% is called in most trials at n = 3 (Welch's few degrees of freedom
  // make the interval wide) and in nearly all at n = 5, while a 5% difference
  // at n = 3 mostly is not (the instrument cannot resolve it).
  const Coverage big = RatioCoverage(3, 1.38, kSeed + 99);
  std::printf("ratio 1.38, n=3: called a difference in %d of %d\n", kTrials - big.no_difference,
              kTrials);
  EXPECT_GE(kTrials - big.no_difference, 800);
  const Coverage big5 = RatioCoverage(5, 1.38, kSeed + 97);
  std::printf("ratio 1.38, n=5: called a difference in %d of %d\n", kTrials - big5.no_difference,
              kTrials);
  EXPECT_GE(kTrials - big5.no_difference, 990);
  const Coverage small = RatioCoverage(3, 1.05, kSeed + 98);
  std::printf("ratio 1.05, n=3: called a difference in %d of %d\n", kTrials - small.no_difference,
              kTrials);
  EXPECT_LT(kTrials - small.no_difference, 500);
}

TEST(InstrumentTest, PerCellGeometricMeanIntervalCoversTheTrueValue) {
  for (int n : {3, 5}) {
    Draw d(kSeed + 1000 + static_cast<uint64_t>(n));
    int covered = 0;
    for (int t = 0; t < kTrials; ++t) {
      auto g = GeometricMeanInterval(d.Sample(n, 15000.0));
      ASSERT_TRUE(g.ok());
      if (g->interval.Contains(15000.0)) ++covered;
    }
    std::printf("one cell, CV 8%%, n=%d: interval covers the true median in %d of %d\n", n, covered,
                kTrials);
    EXPECT_GE(covered, 930) << "n=" << n;
  }
}

}  // namespace
}  // namespace pgrig::stats
