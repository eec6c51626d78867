#include "stats/summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pgrig::stats {
namespace {

// t quantiles used in the hand computations below (published tables).
constexpr double kT975Dof2 = 4.3026527;
constexpr double kT975Dof4 = 2.7764451;

std::vector<double> Exps(const std::vector<double>& logs) {
  std::vector<double> out;
  for (double l : logs) out.push_back(std::exp(l));
  return out;
}

TEST(SummarizeTest, OddSampleByHand) {
  const std::vector<double> xs = {5, 1, 4, 2, 3};
  const Summary s = Summarize(xs);
  EXPECT_EQ(s.n, 5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);  // sample stddev: 10 / 4
  // 3 +- t(0.975, 4) * sqrt(2.5) / sqrt(5) = 3 +- 2.7764451 * 0.70710678.
  ASSERT_TRUE(s.mean_ci.has_value());
  EXPECT_NEAR(s.mean_ci->low, 3 - kT975Dof4 * std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(s.mean_ci->high, 3 + kT975Dof4 * std::sqrt(0.5), 1e-6);
  // Five samples cannot give a 95% distribution-free median interval: the
  // widest, [min, max], covers 1 - 2/32 = 93.75%.
  ASSERT_TRUE(s.median_ci.has_value());
  EXPECT_EQ(s.median_ci->low, 1);
  EXPECT_EQ(s.median_ci->high, 5);
  EXPECT_DOUBLE_EQ(s.median_ci->coverage, 0.9375);
  EXPECT_FALSE(s.median_ci->meets_confidence);
}

TEST(SummarizeTest, EvenSampleMedianIsMeanOfMiddlePair) {
  const Summary s = Summarize(std::vector<double>{10, 40, 20, 30});
  EXPECT_EQ(s.median, 25);
}

TEST(SummarizeTest, EmptyAndSingle) {
  const Summary empty = Summarize(std::vector<double>{});
  EXPECT_EQ(empty.n, 0);
  EXPECT_FALSE(empty.mean_ci.has_value());
  EXPECT_FALSE(empty.median_ci.has_value());
  const Summary one = Summarize(std::vector<double>{7.5});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.median, 7.5);
  EXPECT_EQ(one.stddev, 0);
  EXPECT_FALSE(one.mean_ci.has_value());
  ASSERT_TRUE(one.median_ci.has_value());
  EXPECT_EQ(one.median_ci->coverage, 0.0);
}

TEST(MedianIntervalTest, OrderStatisticRanksByHand) {
  // n = 6: [x(1), x(6)] covers 1 - 2/64 = 96.875% >= 95%.
  std::vector<double> six = {1, 2, 3, 4, 5, 6};
  auto mi = MedianConfidenceInterval(six);
  ASSERT_TRUE(mi.has_value());
  EXPECT_EQ(mi->lower_rank, 1);
  EXPECT_EQ(mi->upper_rank, 6);
  EXPECT_DOUBLE_EQ(mi->coverage, 1 - 2.0 / 64);
  EXPECT_TRUE(mi->meets_confidence);

  // n = 10: P(B <= 1) = 11/1024, so [x(2), x(9)] covers 1 - 22/1024; the next
  // narrower, [x(3), x(8)], only 1 - 112/1024 = 89%.
  std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  mi = MedianConfidenceInterval(ten);
  ASSERT_TRUE(mi.has_value());
  EXPECT_EQ(mi->lower_rank, 2);
  EXPECT_EQ(mi->upper_rank, 9);
  EXPECT_EQ(mi->low, 2);
  EXPECT_EQ(mi->high, 9);
  EXPECT_NEAR(mi->coverage, 1 - 22.0 / 1024, 1e-12);

  // n = 100: the textbook 95% interval is [x(40), x(61)] (coverage 96.48%).
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  mi = MedianConfidenceInterval(hundred);
  ASSERT_TRUE(mi.has_value());
  EXPECT_EQ(mi->lower_rank, 40);
  EXPECT_EQ(mi->upper_rank, 61);
  EXPECT_NEAR(mi->coverage, 0.9648, 1e-4);

  // A lower confidence narrows it: 50% for n = 10 is [x(4), x(7)]
  // (1 - 2 * 176/1024 = 65.6%; [x(5), x(6)] would be 1 - 2*386/1024 = 24.6%).
  mi = MedianConfidenceInterval(ten, 0.5);
  ASSERT_TRUE(mi.has_value());
  EXPECT_EQ(mi->lower_rank, 4);
  EXPECT_EQ(mi->upper_rank, 7);
}

TEST(CompareRatioTest, WelchEqualSizesByHand) {
  // ln A = {1, 2, 3}, ln B = {0, 1, 2}: both variances 1, se^2 = 1/3 + 1/3,
  // Welch dof = (2/3)^2 / ((1/9)/2 + (1/9)/2) = 4, difference 1.
  auto r = CompareRatio(Exps({1, 2, 3}), Exps({0, 1, 2}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->ratio.has_value());
  EXPECT_NEAR(*r->ratio, std::exp(1.0), 1e-12);
  EXPECT_NEAR(r->dof, 4.0, 1e-12);
  EXPECT_NEAR(r->log_se, std::sqrt(2.0 / 3.0), 1e-12);
  ASSERT_TRUE(r->interval.has_value());
  const double half = kT975Dof4 * std::sqrt(2.0 / 3.0);
  EXPECT_NEAR(std::log(r->interval->low), 1 - half, 1e-6);
  EXPECT_NEAR(std::log(r->interval->high), 1 + half, 1e-6);
  EXPECT_EQ(r->verdict, Verdict::kNoSignificantDifference);  // [0.28, 26.2] spans 1
}

TEST(CompareRatioTest, WelchUnequalVariancesByHand) {
  // ln A = {1, 2, 3} (variance 1), ln B = {0, 0, 0, 0} (variance 0): all the
  // uncertainty is A's, so dof = n_A - 1 = 2 (a pooled test would say 5).
  auto r = CompareRatio(Exps({1, 2, 3}), Exps({0, 0, 0, 0}));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->dof, 2.0, 1e-12);
  EXPECT_NEAR(*r->ratio, std::exp(2.0), 1e-12);
  const double half = kT975Dof2 * std::sqrt(1.0 / 3.0);
  EXPECT_NEAR(std::log(r->interval->low), 2 - half, 1e-6);
  EXPECT_NEAR(std::log(r->interval->high), 2 + half, 1e-6);

  // ln A = {1, 2, 3}, ln B = {0, 0.5, 1, 1.5}: wA = 1/3, wB = (5/12)/4, dof =
  // (wA + wB)^2 / (wA^2/2 + wB^2/3) = 0.19140625 / 0.0591724537 = 3.2347...
  auto f = CompareRatio(Exps({1, 2, 3}), Exps({0, 0.5, 1, 1.5}));
  ASSERT_TRUE(f.ok());
  EXPECT_NEAR(f->dof, 0.19140625 / (1.0 / 18 + (5.0 / 48) * (5.0 / 48) / 3), 1e-9);
  EXPECT_NEAR(f->log_se, std::sqrt(1.0 / 3 + 5.0 / 48), 1e-12);
}

TEST(CompareRatioTest, ClearDifferencesGetAVerdictAndAreSymmetric) {
  const std::vector<double> fast = {1100, 1120, 1080, 1110, 1095};
  const std::vector<double> slow = {1000, 1010, 990, 1000, 1005};
  auto up = CompareRatio(fast, slow);
  auto down = CompareRatio(slow, fast);
  ASSERT_TRUE(up.ok() && down.ok());
  EXPECT_EQ(up->verdict, Verdict::kHigher);
  EXPECT_EQ(down->verdict, Verdict::kLower);
  EXPECT_GT(up->interval->low, 1.0);
  EXPECT_NEAR(*up->ratio * *down->ratio, 1.0, 1e-12);
  EXPECT_NEAR(up->interval->low * down->interval->high, 1.0, 1e-12);
  EXPECT_NEAR(up->interval->high * down->interval->low, 1.0, 1e-12);
  EXPECT_TRUE(up->interval->Contains(*up->ratio));
}

TEST(CompareRatioTest, InsufficientData) {
  auto r = CompareRatio(std::vector<double>{100}, std::vector<double>{90, 95, 92});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kInsufficientData);
  ASSERT_TRUE(r->ratio.has_value());
  EXPECT_FALSE(r->interval.has_value());
  auto empty = CompareRatio(std::vector<double>{}, std::vector<double>{1, 2});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->verdict, Verdict::kInsufficientData);
  EXPECT_FALSE(empty->ratio.has_value());
  EXPECT_EQ(empty->n_a, 0);
  EXPECT_EQ(empty->n_b, 2);
}

TEST(CompareRatioTest, IdenticalIterations) {
  auto same = CompareRatio(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->verdict, Verdict::kNoSignificantDifference);
  auto differ = CompareRatio(std::vector<double>{6, 6}, std::vector<double>{5, 5});
  ASSERT_TRUE(differ.ok());
  EXPECT_EQ(differ->verdict, Verdict::kHigher);
  EXPECT_NEAR(differ->interval->low, 1.2, 1e-12);
}

TEST(CompareRatioTest, RejectsNonPositiveSamples) {
  auto r = CompareRatio(std::vector<double>{100, 0, 90}, std::vector<double>{80, 85});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("sample 2 of A"), std::string::npos) << r.status().message();
  EXPECT_FALSE(CompareRatio(std::vector<double>{1, 2}, std::vector<double>{-1, 2}).ok());
  EXPECT_FALSE(CompareRatio(std::vector<double>{1, NAN}, std::vector<double>{1, 2}).ok());
}

TEST(GeometricMeanIntervalTest, HandComputed) {
  // Samples 100, 400, 200, 200: logs are ln 200 + {-ln 2, +ln 2, 0, 0}.
  //   geometric mean = 200
  //   sample variance of logs = 2 (ln 2)^2 / 3
  //   se = sqrt(var / 4) = ln 2 / sqrt 6 = 0.2829762
  //   t(0.975, 3) = 3.1824463; half-width = 0.9005564 on the log scale
  //   interval = 200 x e^(-+0.9005564) = 81.2687 .. 492.1944
  auto r = GeometricMeanInterval(std::vector<double>{100, 400, 200, 200});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->geometric_mean, 200, 1e-9);
  EXPECT_DOUBLE_EQ(r->dof, 3);
  EXPECT_NEAR(r->log_se, 0.2829762, 1e-6);
  EXPECT_NEAR(r->interval.low, 81.2687, 1e-3);
  EXPECT_NEAR(r->interval.high, 492.1944, 1e-3);

  const Summary s = Summarize(std::vector<double>{100, 400, 200, 200});
  ASSERT_TRUE(s.geometric_mean_ci.has_value());
  EXPECT_NEAR(*s.geometric_mean, 200, 1e-9);
  EXPECT_NEAR(s.geometric_mean_ci->low, 81.2687, 1e-3);
  EXPECT_FALSE(Summarize(std::vector<double>{100, 0}).geometric_mean_ci.has_value());
}

TEST(GeometricMeanIntervalTest, RejectsTooFewNonPositiveOrBadConfidence) {
  EXPECT_FALSE(GeometricMeanInterval(std::vector<double>{100}).ok());
  auto zero = GeometricMeanInterval(std::vector<double>{100, 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("sample 2"), std::string::npos);
  EXPECT_FALSE(GeometricMeanInterval(std::vector<double>{100, -5}).ok());
  EXPECT_FALSE(GeometricMeanInterval(std::vector<double>{100, 200}, 1.5).ok());
}

TEST(CompareRatioTest, HandComputedRatioOfTwo) {
  // A = 200 x {1/1.1, 1, 1.1}, B = 100 x {1/1.1, 1, 1.1}: ratio 2; each
  // log-variance (ln 1.1)^2, se = sqrt(2 x 0.00302801) = 0.0778204, dof 4,
  // half-width 2.7764451 x 0.0778204 = 0.2160643: 1.611366 .. 2.482365.
  auto r = CompareRatio(std::vector<double>{200 / 1.1, 200, 220},
                        std::vector<double>{100 / 1.1, 100, 110});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(*r->ratio, 2, 1e-12);
  EXPECT_NEAR(r->dof, 4, 1e-9);
  EXPECT_NEAR(r->log_se, 0.0778204, 1e-7);
  EXPECT_NEAR(r->interval->low, 1.611366, 1e-5);
  EXPECT_NEAR(r->interval->high, 2.482365, 1e-5);
  EXPECT_EQ(r->verdict, Verdict::kHigher);
  EXPECT_FALSE(CompareRatio(std::vector<double>{1, 2}, std::vector<double>{1, 2}, 0).ok());
}

TEST(VerdictTest, Names) {
  EXPECT_STREQ(VerdictName(Verdict::kNoSignificantDifference), "no significant difference");
  EXPECT_STREQ(VerdictName(Verdict::kHigher), "higher");
}

}  // namespace
}  // namespace pgrig::stats
