#include "cost/welch.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pgrig::cost {
namespace {

TEST(StudentTTest, QuantilesMatchPublishedTables) {
  // Two-sided 95% critical values from standard t tables.
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.7062047, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 2), 4.3026527, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 3), 3.1824463, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.7764451, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 10), 2.2281389, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 30), 2.0422725, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 1e6), 1.959966, 1e-5);  // -> normal 1.959964
  EXPECT_NEAR(StudentTQuantile(0.95, 5), 2.0150484, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.025, 4), -2.7764451, 1e-6);
  EXPECT_DOUBLE_EQ(StudentTQuantile(0.5, 7), 0);
}

TEST(StudentTTest, CdfProperties) {
  EXPECT_NEAR(StudentTCdf(0, 3), 0.5, 1e-12);
  // df = 1 is the Cauchy distribution: CDF(1) = 1/2 + atan(1)/pi = 0.75.
  EXPECT_NEAR(StudentTCdf(1, 1), 0.75, 1e-10);
  EXPECT_NEAR(StudentTCdf(-1, 1), 0.25, 1e-10);
  // df = 2 has a closed form: CDF(t) = 1/2 + t / (2 sqrt(2 + t^2));
  // t = 2: 0.5 + 2 / (2 sqrt 6) = 0.5 + 0.4082483 = 0.9082483.
  EXPECT_NEAR(StudentTCdf(2, 2), 0.9082483, 1e-7);
  // Fractional df (as Welch gives) lies between its integer neighbours.
  const double q = StudentTQuantile(0.975, 4.5);
  EXPECT_LT(q, StudentTQuantile(0.975, 4));
  EXPECT_GT(q, StudentTQuantile(0.975, 5));
}

TEST(GeometricMeanIntervalTest, HandComputed) {
  // Samples 100, 400, 200, 200: logs are ln 200 + {-ln 2, +ln 2, 0, 0}.
  //   geometric mean = 200
  //   sample variance of logs = 2 (ln 2)^2 / 3
  //   se = sqrt(var / 4) = ln 2 / sqrt 6 = 0.6931472 / 2.4494897 = 0.2829762
  //   t(0.975, 3) = 3.1824463; half-width = 3.1824463 x 0.2829762 = 0.9005564 on the log scale
  //   interval = 200 x e^(-+0.9005564) = 200 / 2.4609720 .. 200 x 2.4609720 = 81.2687 .. 492.1944
  auto r = GeometricMeanInterval({100, 400, 200, 200});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->estimate, 200, 1e-9);
  EXPECT_DOUBLE_EQ(r->df, 3);
  EXPECT_NEAR(r->se_log, 0.2829762, 1e-6);
  EXPECT_NEAR(r->low, 81.2687, 1e-3);
  EXPECT_NEAR(r->high, 492.1944, 1e-3);
}

TEST(GeometricMeanIntervalTest, RejectsTooFewOrNonPositive) {
  EXPECT_FALSE(GeometricMeanInterval({100}).ok());
  EXPECT_FALSE(GeometricMeanInterval({100, 0}).ok());
  EXPECT_FALSE(GeometricMeanInterval({100, -5}).ok());
  EXPECT_FALSE(GeometricMeanInterval({100, 200}, 1.5).ok());
}

TEST(WelchTest, HandComputedRatio) {
  // base = 100 x {1/1.1, 1, 1.1}, other = 200 x {1/1.1, 1, 1.1}: ratio of geometric means = 2.
  //   each log-variance = (ln 1.1)^2 = 0.0953102^2 = 0.00908403; / n = 0.00302801
  //   se = sqrt(2 x 0.00302801) = 0.0778204
  //   df = (2v)^2 / (2 v^2 / 2) = 4 (equal spreads, n = 3 each)
  //   half-width = t(0.975, 4) x se = 2.7764451 x 0.0778204 = 0.2160643
  //   interval = 2 x e^(-+0.2160643) = 2 / 1.2411827 .. 2 x 1.2411827 = 1.611366 .. 2.482365
  auto r = WelchRatioOfGeometricMeans({100 / 1.1, 100, 110}, {200 / 1.1, 200, 220});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->estimate, 2, 1e-12);
  EXPECT_NEAR(r->df, 4, 1e-9);
  EXPECT_NEAR(r->se_log, 0.0778204, 1e-7);
  EXPECT_NEAR(r->low, 1.611366, 1e-5);
  EXPECT_NEAR(r->high, 2.482365, 1e-5);
}

TEST(WelchTest, UnequalSpreadsGiveFractionalDf) {
  // base has no spread on the log scale only in one sample set: df falls to
  // n_other - 1 = 2 when the base variance is zero.
  auto r = WelchRatioOfGeometricMeans({100, 100, 100}, {90, 100, 110});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->df, 2, 1e-9);
  EXPECT_LT(r->low, 1);
  EXPECT_GT(r->high, 1);
}

TEST(WelchTest, ZeroSpreadIsAPointInterval) {
  auto r = WelchRatioOfGeometricMeans({100, 100}, {150, 150});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->estimate, 1.5, 1e-12);
  EXPECT_DOUBLE_EQ(r->low, r->estimate);
  EXPECT_DOUBLE_EQ(r->high, r->estimate);
  EXPECT_TRUE(std::isinf(r->df));
}

TEST(WelchTest, NeedsTwoSamplesEach) {
  EXPECT_FALSE(WelchRatioOfGeometricMeans({100}, {100, 110}).ok());
  EXPECT_FALSE(WelchRatioOfGeometricMeans({100, 110}, {}).ok());
}

}  // namespace
}  // namespace pgrig::cost
