#include "cost/per_dollar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::cost {
namespace {

using ::testing::HasSubstr;

Catalog TestCatalog() {
  Catalog c;
  auto st = c.Merge(R"(
[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r8g.4xlarge"
arch = "arm64"
vcpus = 16
vcpu_is = "core"
memory_gib = 128
usd_per_hour = 0.9
date = 2026-11-29
source = "t"

[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "r7i.4xlarge"
arch = "x86_64"
vcpus = 16
vcpu_is = "hyperthread"
memory_gib = 128
usd_per_hour = 1.8
date = 2026-11-29
source = "t"
)",
                    "cat.toml");
  EXPECT_TRUE(st.ok()) << st.status().message();
  return c;
}

TEST(PerDollarTest, HandComputed) {
  // 1,000 tps at 3.60 USD/h: 1,000 x 3,600 / 3.60 = 1,000,000 transactions per USD;
  // USD per 1M transactions = 3.60 x 1,000,000 / 3,600,000 = 1.00.
  MeasuredRun run;
  run.file = "a.json";
  run.tps = 1000;
  auto d = ComputePerDollar(run, 3.6);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->transactions_per_usd, 1'000'000, 1e-6);
  EXPECT_NEAR(d->usd_per_million_transactions, 1.0, 1e-12);
  EXPECT_FALSE(d->transactions_per_usd_ci95.has_value());
  EXPECT_TRUE(d->interval_from.empty());

  // 2,500 tps at 0.90 USD/h: 2,500 x 3,600 / 0.9 = 10,000,000 per USD; 0.10 USD per 1M.
  run.tps = 2500;
  d = ComputePerDollar(run, 0.9);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->transactions_per_usd, 10'000'000, 1e-6);
  EXPECT_NEAR(d->usd_per_million_transactions, 0.1, 1e-12);

  EXPECT_FALSE(ComputePerDollar(run, 0).ok());
  run.tps = 0;
  EXPECT_FALSE(ComputePerDollar(run, 1).ok());
}

TEST(PerDollarTest, IntervalFromCiAndFromSamples) {
  // tps interval [900, 1,100] at 3.60 USD/h -> [900,000, 1,100,000] transactions per USD,
  // and USD per 1M from 3.6e6 / (1,100 x 3,600) = 0.909091 to 3.6e6 / (900 x 3,600) = 1.111111.
  MeasuredRun run;
  run.file = "a.json";
  run.tps = 1000;
  run.tps_ci95 = Interval{900, 1100};
  run.tps_samples = {1, 2, 3};  // ignored: the file's own interval comes first
  auto d = ComputePerDollar(run, 3.6);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->transactions_per_usd_ci95.has_value());
  EXPECT_NEAR(d->transactions_per_usd_ci95->low, 900'000, 1e-6);
  EXPECT_NEAR(d->transactions_per_usd_ci95->high, 1'100'000, 1e-6);
  EXPECT_NEAR(d->usd_per_million_transactions_ci95->low, 0.909091, 1e-6);
  EXPECT_NEAR(d->usd_per_million_transactions_ci95->high, 1.111111, 1e-6);
  EXPECT_EQ(d->interval_from, "summary.tps_ci95");

  // Samples 100, 400, 200, 200 (see welch_test): tps interval 81.2687 .. 492.1944;
  // at 3.60 USD/h that is x 1,000: 81,268.7 .. 492,194.4 transactions per USD.
  run.tps_ci95.reset();
  run.tps = 200;
  run.tps_samples = {100, 400, 200, 200};
  d = ComputePerDollar(run, 3.6);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->transactions_per_usd_ci95->low, 81268.7, 0.5);
  EXPECT_NEAR(d->transactions_per_usd_ci95->high, 492194.4, 0.5);
  EXPECT_THAT(d->interval_from, HasSubstr("tps_samples"));
}

TEST(PriceRunTest, Precedence) {
  Catalog cat = TestCatalog();
  MeasuredRun run;
  run.file = "a.json";
  run.tps = 100;
  run.instance_type = "r8g.4xlarge";
  run.instance_type_key = "run.instance_type";

  // From the file's instance type via the catalog.
  auto p = PriceRun(run, {}, cat, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 0.9);
  EXPECT_THAT(p->price_from, HasSubstr("run.instance_type"));

  // run.usd_per_hour beats the file's instance type.
  run.usd_per_hour = 0.5;
  p = PriceRun(run, {}, cat, {});
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 0.5);
  EXPECT_TRUE(p->instance.has_value());  // still described

  // --instance beats the file.
  p = PriceRun(run, {.instance = "r7i.4xlarge"}, cat, {});
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 1.8);
  EXPECT_EQ(p->instance->instance_type, "r7i.4xlarge");

  // --usd-per-hour beats everything.
  p = PriceRun(run, {.instance = "r7i.4xlarge", .usd_per_hour = 2.5}, cat, {});
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->usd_per_hour, 2.5);
  EXPECT_EQ(p->price_from, "--usd-per-hour");

  // Unknown type names the file and suggests.
  run.usd_per_hour.reset();
  run.instance_type = "r8g.4xlarg";
  auto bad = PriceRun(run, {}, cat, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("a.json"));
  EXPECT_THAT(bad.status().message(), HasSubstr("did you mean r8g.4xlarge"));

  // Nothing at all to price with.
  run.instance_type.clear();
  auto none = PriceRun(run, {}, cat, {});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("--usd-per-hour"));
}

PricedRun Priced(const std::string& file, double tps, double price, std::vector<double> samples) {
  PricedRun p;
  p.run.file = file;
  p.run.tps = tps;
  p.run.tps_samples = std::move(samples);
  p.usd_per_hour = price;
  return p;
}

TEST(ComparePerDollarTest, SamplesGiveWelchIntervalScaledByPrices) {
  // Throughput ratio of geometric means 2 with interval 1.611366 .. 2.482365
  // (welch_test).  The base costs 2.00 USD/h, the other 1.00: per dollar the
  // other buys 2 x (2.00 / 1.00) = 4 times as many transactions,
  // interval 3.222732 .. 4.964730: significantly higher.
  auto r = ComparePerDollar(Priced("a", 100, 2.0, {100 / 1.1, 100, 110}),
                            Priced("b", 200, 1.0, {200 / 1.1, 200, 220}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->from_samples);
  EXPECT_NEAR(r->ratio, 4, 1e-9);
  EXPECT_NEAR(r->ci95->low, 3.222732, 1e-5);
  EXPECT_NEAR(r->ci95->high, 4.964730, 1e-5);
  EXPECT_NEAR(*r->welch_df, 4, 1e-9);
  EXPECT_EQ(r->verdict, stats::Verdict::kHigher);

  // Same throughput, but the other costs 4x as much: 2 / 4 = 0.5, interval below 1.
  r = ComparePerDollar(Priced("a", 100, 1.0, {100 / 1.1, 100, 110}),
                       Priced("b", 200, 4.0, {200 / 1.1, 200, 220}));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->ratio, 0.5, 1e-9);
  EXPECT_EQ(r->verdict, stats::Verdict::kLower);
}

TEST(ComparePerDollarTest, OverlappingSamplesAreNoSignificantDifference) {
  auto r = ComparePerDollar(Priced("a", 100, 1.0, {90, 100, 110}),
                            Priced("b", 102, 1.0, {92, 101, 112}));
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->ci95->low, 1);
  EXPECT_GT(r->ci95->high, 1);
  EXPECT_EQ(r->verdict, stats::Verdict::kNoSignificantDifference);
  EXPECT_STREQ(VerdictKey(r->verdict), "no_significant_difference");
}

TEST(ComparePerDollarTest, WithoutSamplesPointRatioAndUnknownInterval) {
  // 1,500 tps at 1.50 USD/h vs 1,000 tps at 1.00 USD/h: the same 3.6M
  // transactions per USD, ratio 1.0, but no interval to judge it by.
  auto r =
      ComparePerDollar(Priced("a.json", 1000, 1.0, {}), Priced("b.json", 1500, 1.5, {1400, 1600}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->from_samples);
  EXPECT_NEAR(r->ratio, 1.0, 1e-12);
  EXPECT_FALSE(r->ci95.has_value());
  EXPECT_EQ(r->verdict, stats::Verdict::kInsufficientData);
  EXPECT_THAT(r->method, HasSubstr("a.json"));
  EXPECT_THAT(r->method, HasSubstr("no interval"));
}

}  // namespace
}  // namespace pgrig::cost
