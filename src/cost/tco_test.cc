#include "cost/tco.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "cost/claim.h"
#include "cost/format.h"

namespace pgrig::cost {
namespace {

using ::testing::HasSubstr;

StoragePrice Gp3() {
  StoragePrice s;
  s.provider = "aws";
  s.region = "us-east-1";
  s.name = "gp3";
  s.usd_per_gb_month = 0.08;
  s.included_iops = 3000;
  s.usd_per_iops_month = 0.005;
  s.included_mbps = 125;
  s.usd_per_mbps_month = 0.04;
  return s;
}

TEST(TcoTest, ComputeOnlyHandComputed) {
  // r8g.16xlarge at 3.77 USD/h, 1 instance, 3 years:
  //   hours = 8,760 x 3 = 26,280; compute = 3.77 x 26,280 = 99,075.60 USD.
  auto t = ComputeTco({.usd_per_hour = 3.77, .count = 1, .years = 3});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->hours, 26280);
  EXPECT_DOUBLE_EQ(t->months, 36);
  EXPECT_NEAR(t->compute_usd, 99075.60, 1e-6);
  EXPECT_NEAR(t->total_usd, 99075.60, 1e-6);
  EXPECT_NEAR(t->usd_per_year, 33025.20, 1e-6);  // 99,075.60 / 3
  EXPECT_NEAR(t->usd_per_hour, 3.77, 1e-12);     // one instance: its own price
  ASSERT_EQ(t->lines.size(), 1u);
  EXPECT_EQ(t->lines[0].component, "compute");
  EXPECT_DOUBLE_EQ(t->lines[0].quantity, 26280);
}

// 2 instances at 1.00 USD/h for 3 years, 500 GB gp3 each, 6,000 IOPS and
// 250 MB/s provisioned per volume, 20% discount, 10% support.
TcoInput EveryComponentInput() {
  return TcoInput{.usd_per_hour = 1.0,
                  .count = 2,
                  .years = 3,
                  .storage_gb = 500,
                  .iops = 6000,
                  .throughput_mbps = 250,
                  .support_pct = 10,
                  .discount_pct = 20,
                  .storage = Gp3()};
}

TEST(TcoTest, EveryComponentHandComputed) {
  // EveryComponentInput():
  //   compute    = 2 x 1.00 x 26,280                = 52,560.00
  //   discount   = 52,560 x 20%                     = 10,512.00
  //   storage    = 2 x 500 GB x 36 months x 0.08    = 36,000 GB-months x 0.08  = 2,880.00
  //   iops       = 2 x (6,000-3,000) x 36 x 0.005   = 216,000 IOPS-months x 0.005 = 1,080.00
  //   throughput = 2 x (250-125) x 36 x 0.04        = 9,000 MB/s-months x 0.04 = 360.00
  //   subtotal   = 52,560 - 10,512 + 2,880 + 1,080 + 360 = 46,368.00
  //   support    = 46,368 x 10%                     = 4,636.80
  //   total      = 51,004.80; per year 17,001.60; per month 1,416.80;
  //   per cluster-hour 51,004.80 / 26,280 = 1.9408219...
  const TcoInput in = EveryComponentInput();
  auto t = ComputeTco(in);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NEAR(t->compute_usd, 52560.00, 1e-6);
  EXPECT_NEAR(t->discount_usd, 10512.00, 1e-6);
  EXPECT_NEAR(t->storage_usd, 2880.00, 1e-6);
  EXPECT_NEAR(t->iops_usd, 1080.00, 1e-6);
  EXPECT_NEAR(t->throughput_usd, 360.00, 1e-6);
  EXPECT_NEAR(t->subtotal_usd, 46368.00, 1e-6);
  EXPECT_NEAR(t->support_usd, 4636.80, 1e-6);
  EXPECT_NEAR(t->total_usd, 51004.80, 1e-6);
  EXPECT_NEAR(t->usd_per_year, 17001.60, 1e-6);
  EXPECT_NEAR(t->usd_per_month, 1416.80, 1e-6);
  EXPECT_NEAR(t->usd_per_hour, 1.9408219, 1e-7);
  ASSERT_EQ(t->lines.size(), 6u);
  EXPECT_EQ(t->lines[1].component, "discount");
  EXPECT_NEAR(t->lines[1].usd, -10512.00, 1e-6);
  EXPECT_DOUBLE_EQ(t->lines[2].quantity, 36000);   // GB-months
  EXPECT_DOUBLE_EQ(t->lines[3].quantity, 216000);  // IOPS-months
  EXPECT_DOUBLE_EQ(t->lines[4].quantity, 9000);    // MB/s-months
  double sum = 0;
  for (const auto& l : t->lines) sum += l.usd;
  EXPECT_NEAR(sum, t->total_usd, 1e-6);
}

TEST(TcoTest, IncludedIopsAndThroughputCostNothingExtra) {
  // 100 GB for 1 year: 100 x 12 x 0.08 = 96.00; 2,000 IOPS and 100 MB/s are
  // within the included 3,000 / 125, so those lines are 0.
  auto t = ComputeTco({.usd_per_hour = 0.5,
                       .count = 1,
                       .years = 1,
                       .storage_gb = 100,
                       .iops = 2000,
                       .throughput_mbps = 100,
                       .storage = Gp3()});
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NEAR(t->storage_usd, 96.00, 1e-9);
  EXPECT_DOUBLE_EQ(t->iops_usd, 0);
  EXPECT_DOUBLE_EQ(t->throughput_usd, 0);
  EXPECT_THAT(t->lines[2].how, HasSubstr("included"));
  // compute 0.5 x 8,760 = 4,380.00; total 4,476.00.
  EXPECT_NEAR(t->total_usd, 4476.00, 1e-9);
}

TEST(TcoTest, FractionalYears) {
  // Half a year: 4,380 h; 4 x 0.25 x 4,380 = 4,380.00 USD.
  auto t = ComputeTco({.usd_per_hour = 0.25, .count = 4, .years = 0.5});
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->hours, 4380);
  EXPECT_NEAR(t->total_usd, 4380.00, 1e-9);
}

TEST(TcoTest, RejectsBadInput) {
  struct Case {
    TcoInput in;
    const char* expect;
  } cases[] = {
      {{.usd_per_hour = 1, .count = 0}, "--count must be at least 1"},
      {{.usd_per_hour = 1, .count = -3}, "--count must be at least 1"},
      {{.usd_per_hour = 1, .years = 0}, "--years must be greater than 0"},
      {{.usd_per_hour = 1, .years = -1}, "--years must be greater than 0"},
      {{.usd_per_hour = 0}, "price per hour must be greater than 0"},
      {{.usd_per_hour = 1, .storage_gb = -5}, "--storage-gb must be 0 or more"},
      {{.usd_per_hour = 1, .support_pct = 101}, "--support"},
      {{.usd_per_hour = 1, .discount_pct = 100}, "--discount"},
      {{.usd_per_hour = 1, .discount_pct = -1}, "--discount"},
      {{.usd_per_hour = 1, .iops = 5000}, "give its size with --storage-gb"},
      {{.usd_per_hour = 1, .storage_gb = 10}, "needs a storage price"},
  };
  for (const auto& c : cases) {
    auto t = ComputeTco(c.in);
    ASSERT_FALSE(t.ok()) << c.expect;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(t.status().message(), HasSubstr(c.expect));
  }
}

TEST(ClaimTest, PublishedR8gPriceAgainstCatalog) {
  // prices.md: an article quotes r8g.16xlarge at 6.00 USD/h; the catalog says 3.77.
  //   difference = 6.00 - 3.77 = 2.23 USD/h = 2.23 / 3.77 = 59.1512% more
  //   3 years, 1 instance: 6.00 x 26,280 = 157,680.00 vs 99,075.60 USD.
  auto ref = ComputeTco({.usd_per_hour = 3.77, .count = 1, .years = 3});
  ASSERT_TRUE(ref.ok());
  auto c = CheckClaim(*ref, {.usd_per_hour = 6.00});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_NEAR(c->hourly_difference_usd, 2.23, 1e-12);
  EXPECT_NEAR(c->hourly_difference_pct, 59.1512, 1e-4);
  ASSERT_TRUE(c->tco_at_claimed_price.has_value());
  EXPECT_NEAR(c->tco_at_claimed_price->total_usd, 157680.00, 1e-6);
  // The claimed x86/Arm price ratio 7.68 / 6.00 = 1.28; the catalog's
  // 4.2336 / 3.77 = 1.12297 (checked by hand: 3.77 x 1.12297 = 4.23360).
  EXPECT_NEAR(4.2336 / 3.77, 1.12297, 1e-5);
}

TEST(ClaimTest, ClaimedTotalImpliesHourlyPrice) {
  // Same inputs as EveryComponentHandComputed (total 51,004.80 at 1.00 USD/h).
  // A claimed total of 51,004.80 must imply exactly 1.00 USD/h:
  //   51,004.80 / 1.10 = 46,368; - (2,880 + 1,080 + 360) = 42,048;
  //   / (2 x 26,280 x 0.80 = 42,048) = 1.00.
  // A claimed 60,000: (60,000/1.1 - 4,320) / 42,048 = (54,545.4545 - 4,320) / 42,048
  //   = 50,225.4545 / 42,048 = 1.194479...
  const TcoInput in = EveryComponentInput();
  auto ref = ComputeTco(in);
  ASSERT_TRUE(ref.ok());
  auto same = CheckClaim(*ref, {.total_usd = 51004.80});
  ASSERT_TRUE(same.ok());
  ASSERT_TRUE(same->implied_usd_per_hour.has_value());
  EXPECT_NEAR(*same->implied_usd_per_hour, 1.0, 1e-9);
  EXPECT_NEAR(same->total_difference_usd, 0, 1e-6);
  auto more = CheckClaim(*ref, {.total_usd = 60000});
  ASSERT_TRUE(more.ok());
  EXPECT_NEAR(*more->implied_usd_per_hour, 1.194479, 1e-6);
  EXPECT_NEAR(more->total_difference_usd, 8995.20, 1e-6);  // 60,000 - 51,004.80
  // Less than storage alone: no hourly price can produce it.
  auto tiny = CheckClaim(*ref, {.total_usd = 1000});
  ASSERT_TRUE(tiny.ok());
  EXPECT_FALSE(tiny->implied_usd_per_hour.has_value());

  EXPECT_FALSE(CheckClaim(*ref, {}).ok());
  EXPECT_FALSE(CheckClaim(*ref, {.usd_per_hour = -1}).ok());
}

TEST(FormatTest, Numbers) {
  EXPECT_EQ(FormatNumber(1234567.891, 2), "1,234,567.89");
  EXPECT_EQ(FormatNumber(999.999, 2), "1,000.00");
  EXPECT_EQ(FormatNumber(-10512, 2), "-10,512.00");
  EXPECT_EQ(FormatNumber(-0.001, 2), "0.00");
  EXPECT_EQ(FormatNumber(26280, 0), "26,280");
  EXPECT_EQ(FormatPlain(0.1178), "0.1178");
  EXPECT_EQ(FormatPlain(3.770), "3.77");
  EXPECT_EQ(FormatPlain(2.0), "2");
  EXPECT_EQ(FormatPlain(0.08925), "0.08925");
}

// Issue 14, item 17: huge inputs are errors, never "inf".
TEST(TcoTest, HugeInputsAreRefusedNotInfinite) {
  struct Case {
    TcoInput in;
    const char* expect;
  } cases[] = {
      {{.usd_per_hour = 1, .years = 1e308}, "--years must be at most 100"},
      {{.usd_per_hour = 1, .count = 1000001}, "--count must be at most 1000000"},
      {{.usd_per_hour = 1, .count = INT64_MAX}, "--count must be at most"},
      {{.usd_per_hour = 1e308}, "price per hour must be at most"},
      {{.usd_per_hour = 1, .storage_gb = 1e308}, "--storage-gb must be at most"},
      {{.usd_per_hour = 1, .storage_gb = 10, .iops = 1e300}, "--iops must be at most"},
      {{.usd_per_hour = 1, .storage_gb = 10, .throughput_mbps = 1e300},
       "--throughput must be at most"},
  };
  for (const auto& c : cases) {
    auto t = ComputeTco(c.in);
    ASSERT_FALSE(t.ok()) << c.expect;
    EXPECT_THAT(t.status().message(), HasSubstr(c.expect));
  }
  // The largest accepted inputs still give a finite total.
  TcoInput max{.usd_per_hour = kMaxUsdPerHour, .count = kMaxCount, .years = kMaxYears};
  auto t = ComputeTco(max);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(std::isfinite(t->total_usd));
}

// Issue 14, item 17: numbers on the command line are decimal only.
TEST(FormatTest, ParseDecimalAcceptsOnlyDecimalNumbers) {
  EXPECT_EQ(ParseDecimal("12"), 12.0);
  EXPECT_EQ(ParseDecimal("0.5"), 0.5);
  EXPECT_EQ(ParseDecimal(".5"), 0.5);
  EXPECT_EQ(ParseDecimal("-3"), -3.0);
  EXPECT_EQ(ParseDecimal("1e3"), 1000.0);
  EXPECT_EQ(ParseDecimal(" 7 "), 7.0);
  for (const char* bad : {"0x10", "0X1p4", "inf", "nan", "infinity", "1e999", "", "1.2.3", "1e",
                          "12abc", "- 1", "."}) {
    EXPECT_FALSE(ParseDecimal(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace pgrig::cost
