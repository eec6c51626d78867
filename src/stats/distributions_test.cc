#include "stats/distributions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace pgrig::stats {
namespace {

// Published two-sided critical values (e.g. NIST/SEMATECH e-Handbook table
// 1.3.6.7.2, or any statistics text), to 7 decimals.
TEST(StudentTQuantileTest, MatchesPublishedValues) {
  struct Case {
    double p, dof, t;
  };
  const Case cases[] = {
      {0.975, 1, 12.7062047}, {0.975, 2, 4.3026527},   {0.975, 3, 3.1824463},
      {0.975, 4, 2.7764451},  {0.975, 5, 2.5705818},   {0.975, 10, 2.2281389},
      {0.975, 30, 2.0422725}, {0.975, 100, 1.9839715}, {0.95, 20, 1.7247182},
      {0.995, 5, 4.0321430},  {0.99, 15, 2.6024803},   {0.9, 1, 3.0776835},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(StudentTQuantile(c.p, c.dof), c.t, 1e-6) << "p=" << c.p << " dof=" << c.dof;
    EXPECT_NEAR(StudentTQuantile(1 - c.p, c.dof), -c.t, 1e-6) << "lower tail, dof=" << c.dof;
  }
  // Far tail with one degree of freedom (Cauchy): tan(pi * (p - 1/2)).
  EXPECT_NEAR(StudentTQuantile(0.9995, 1), std::tan(std::numbers::pi * 0.4995), 1e-6);
}

TEST(StudentTQuantileTest, LargeDofApproachesNormal) {
  EXPECT_NEAR(StudentTQuantile(0.975, 1e9), 1.959964, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, INFINITY), 1.959964, 1e-6);
  EXPECT_NEAR(StudentTQuantile(0.975, 1e6), 1.959964 + 2.37e-6, 1e-6);
  // The switch from bisection to the expansion at 1e5 is seamless: the true
  // difference between dof 99,999 and 100,001 is about 5e-10.
  const double below = StudentTQuantile(0.975, 99999);
  const double above = StudentTQuantile(0.975, 100001);
  EXPECT_GT(below, above);
  EXPECT_LT(below - above, 1e-8);
}

TEST(StudentTQuantileTest, FractionalDofLiesBetweenNeighbours) {
  const double t2 = StudentTQuantile(0.975, 2);
  const double t25 = StudentTQuantile(0.975, 2.5);
  const double t3 = StudentTQuantile(0.975, 3);
  EXPECT_GT(t2, t25);
  EXPECT_GT(t25, t3);
  for (double dof : {0.5, 1.7, 3.23, 12.9, 250.5}) {
    for (double p : {0.6, 0.9, 0.975, 0.999}) {
      EXPECT_NEAR(StudentTCdf(StudentTQuantile(p, dof), dof), p, 1e-10)
          << "p=" << p << " dof=" << dof;
    }
  }
}

TEST(StudentTQuantileTest, RejectsBadArguments) {
  EXPECT_TRUE(std::isnan(StudentTQuantile(0, 5)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(1, 5)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(0.5, 0)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(0.9, -1)));
  EXPECT_EQ(StudentTQuantile(0.5, 7), 0.0);
}

TEST(StudentTCdfTest, MatchesClosedForms) {
  for (double t : {-30.0, -2.5, -0.3, 0.0, 0.01, 1.0, 4.0, 100.0}) {
    // dof 1 is Cauchy; dof 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
    EXPECT_NEAR(StudentTCdf(t, 1), 0.5 + std::atan(t) / std::numbers::pi, 1e-13) << t;
    EXPECT_NEAR(StudentTCdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-13) << t;
  }
}

TEST(NormalTest, QuantileAndCdf) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963985, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.001), -3.090232306, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.8413447461), 1.0, 1e-8);
  EXPECT_EQ(NormalQuantile(0.5), 0.0);
  EXPECT_TRUE(std::isnan(NormalQuantile(1.0)));
  EXPECT_NEAR(NormalCdf(1.959963985), 0.975, 1e-10);
}

TEST(IncompleteBetaTest, SpecialCases) {
  for (double x : {0.0, 0.1, 0.37, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 1), x, 1e-14);
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 3.5, 1), std::pow(x, 3.5), 1e-14);
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 2.5), 1 - std::pow(1 - x, 2.5), 1e-14);
  }
  for (double a : {0.5, 2.0, 17.0, 400.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(0.5, a, a), 0.5, 1e-12) << a;
  }
  EXPECT_TRUE(std::isnan(RegularizedIncompleteBeta(1.5, 1, 1)));
  EXPECT_TRUE(std::isnan(RegularizedIncompleteBeta(0.5, 0, 1)));
}

TEST(BinomialTest, CdfMatchesExactSums) {
  // Bin(10, 1/2): P(X <= k) = sum_{j<=k} C(10, j) / 1024.
  const int choose10[] = {1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1};
  int cumulative = 0;
  for (int k = 0; k <= 10; ++k) {
    cumulative += choose10[k];
    EXPECT_NEAR(BinomialCdf(k, 10, 0.5), cumulative / 1024.0, 1e-14) << k;
  }
  EXPECT_EQ(BinomialCdf(-1, 10, 0.5), 0.0);
  EXPECT_EQ(BinomialCdf(12, 10, 0.5), 1.0);
  // Bin(5, 0.3): P(X <= 1) = 0.7^5 + 5 * 0.3 * 0.7^4.
  EXPECT_NEAR(BinomialCdf(1, 5, 0.3), std::pow(0.7, 5) + 5 * 0.3 * std::pow(0.7, 4), 1e-14);
}

}  // namespace
}  // namespace pgrig::stats
