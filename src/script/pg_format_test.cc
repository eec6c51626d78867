#include "script/pg_format.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

namespace pgrig::script {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

TEST(PgFormatTest, NonFiniteDoublesUsePostgresSpelling) {
  EXPECT_EQ(PgFormat("%.3f", kNaN), "NaN");
  EXPECT_EQ(PgFormat("%.3f", -kNaN), "NaN");  // NaN is never signed
  EXPECT_EQ(PgFormat("%f", kInf), "Infinity");
  EXPECT_EQ(PgFormat("%.15g", -kInf), "-Infinity");
  EXPECT_EQ(PgFormat("%e", kInf), "Infinity");
  EXPECT_EQ(PgFormat("(%.3f%%)", 0.0 / std::numeric_limits<double>::quiet_NaN()), "(NaN%)");
}

TEST(PgFormatTest, NonFiniteKeepsWidthButNotZeroPadding) {
  EXPECT_EQ(PgFormat("[%8.3f]", kNaN), "[     NaN]");
  EXPECT_EQ(PgFormat("[%-6f]", kNaN), "[NaN   ]");
  EXPECT_EQ(PgFormat("[%012f]", -kInf), "[   -Infinity]");
  EXPECT_EQ(PgFormat("[%+f]", kInf), "[+Infinity]");
  EXPECT_EQ(PgFormat("[%*f]", 5, kNaN), "[  NaN]");
  EXPECT_EQ(PgFormat("[%*f]", -5, kNaN), "[NaN  ]");
}

TEST(PgFormatTest, EverythingElseIsTheCLibrarys) {
  char expected[256];
  std::snprintf(expected, sizeof expected,
                "%d|%5s|%-4d|%.2f|%11.3f|%" PRId64 "|%zu|%x|%c|%.*g|%%|%.15g|%lu|%hhd", -42, "ab",
                7, 3.14159, -0.5, int64_t{-9223372036854775807}, size_t{12}, 255u, 'z', 4, 1.23456,
                1e300, 123456789UL, 65);
  EXPECT_EQ(PgFormat("%d|%5s|%-4d|%.2f|%11.3f|%" PRId64 "|%zu|%x|%c|%.*g|%%|%.15g|%lu|%hhd", -42,
                     "ab", 7, 3.14159, -0.5, int64_t{-9223372036854775807}, size_t{12}, 255u, 'z',
                     4, 1.23456, 1e300, 123456789UL, 65),
            expected);
}

TEST(PgFormatTest, ArgumentsAfterANonFiniteStayAligned) {
  EXPECT_EQ(PgFormat("%f %d %s %f", kNaN, 7, "x", 1.5), "NaN 7 x 1.500000");
}

TEST(PgFormatTest, LongOutputIsNotTruncated) {
  const std::string big(1000, 'q');
  EXPECT_EQ(PgFormat("<%s>", big.c_str()), "<" + big + ">");
}

TEST(PgFormatTest, AppendsToExistingText) {
  std::string s = "a=";
  PgAppendf(&s, "%g", -kInf);
  EXPECT_EQ(s, "a=-Infinity");
}

TEST(PgFormatTest, NonFiniteText) {
  EXPECT_STREQ(PgNonFiniteText(kNaN), "NaN");
  EXPECT_STREQ(PgNonFiniteText(kInf), "Infinity");
  EXPECT_STREQ(PgNonFiniteText(-kInf), "-Infinity");
  EXPECT_EQ(PgNonFiniteText(0.0), nullptr);
  EXPECT_EQ(PgNonFiniteText(-1e308), nullptr);
}

}  // namespace
}  // namespace pgrig::script
