#include "cost/pricing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::cost {
namespace {

using ::testing::HasSubstr;

// Two instances and one storage kind in one region; prices chosen so the
// hand-computed figures below are round.
Catalog PricingCatalog() {
  Catalog c;
  auto st = c.Merge(R"(
[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "m8g.xlarge"
arch = "arm64"
vcpus = 4
vcpu_is = "core"
memory_gib = 16
usd_per_hour = 0.5
date = 2026-11-29
source = "t"

[[instance]]
provider = "aws"
region = "us-east-1"
instance_type = "m7i.xlarge"
arch = "x86_64"
vcpus = 4
vcpu_is = "hyperthread"
memory_gib = 16
usd_per_hour = 1.0
date = 2026-11-29
source = "t"

[[storage]]
provider = "aws"
region = "us-east-1"
name = "gp3"
usd_per_gb_month = 0.1
included_iops = 3000
usd_per_iops_month = 0.005
included_mbps = 125
usd_per_mbps_month = 0.04
date = 2026-11-29
source = "t"
)",
                    "pricing.toml");
  EXPECT_TRUE(st.ok()) << st.status().message();
  return c;
}

TEST(PerMachineValuesTest, DashSkipsAndJunkOrZeroIsRefusedNamingTheOption) {
  auto v = ParsePerMachineValues({"1.5", "-", "2"}, "--usd-per-hour");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_DOUBLE_EQ(*(*v)[0], 1.5);
  EXPECT_FALSE((*v)[1].has_value());
  EXPECT_THAT(ParsePerMachineValues({"fast"}, "--claim-total").status().message(),
              HasSubstr("--claim-total expects a decimal number"));
  EXPECT_THAT(ParsePerMachineValues({"0"}, "--usd-per-hour").status().message(),
              HasSubstr("must be greater than 0"));
}

TEST(TcoRequestTest, NothingToPriceAndUnpairedListsAreRefused) {
  TcoRequest r;
  EXPECT_THAT(CheckTcoRequest(r).message(), HasSubstr("nothing to price"));
  r.instances = {"m8g.xlarge", "m7i.xlarge"};
  r.usd_per_hour = {0.4};
  EXPECT_THAT(CheckTcoRequest(r).message(),
              HasSubstr("--usd-per-hour was given 1 time for 2 instances"));
  r.usd_per_hour = {0.4, std::nullopt};
  EXPECT_TRUE(CheckTcoRequest(r).ok());
  r.claim_total = {1, 2, 3};
  EXPECT_THAT(CheckTcoRequest(r).message(), HasSubstr("--claim-total was given 3 times"));
}

TEST(PriceMachinesTest, CatalogPriceGivenPriceStorageAndClaim) {
  const Catalog catalog = PricingCatalog();
  TcoRequest r;
  r.instances = {"m8g.xlarge", "m7i.xlarge"};
  r.usd_per_hour = {std::nullopt, 0.8};  // the second machine's price is given
  r.claim_usd_per_hour = {0.6, std::nullopt};
  r.base.years = 1;
  r.base.storage_gb = 100;
  auto m = PriceMachines(r, catalog);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_EQ((*m)[0].label, "m8g.xlarge");
  EXPECT_EQ((*m)[0].price_from, "catalog");
  ASSERT_TRUE((*m)[0].storage.has_value());
  EXPECT_EQ((*m)[0].storage->name, "gp3");
  ASSERT_TRUE((*m)[0].claim.has_value());
  EXPECT_DOUBLE_EQ((*m)[0].claim->reference_usd_per_hour, 0.5);
  EXPECT_THAT((*m)[1].price_from, HasSubstr("given with --usd-per-hour; the catalog says 1"));
  // 8,760 hours at 0.8 and 100 GB x 0.1 x 12 months, against 0.5 for the first.
  EXPECT_NEAR((*m)[1].tco.total_usd - (*m)[0].tco.total_usd, 8760 * 0.3, 1e-6);
}

TEST(PriceMachinesTest, AMachineWithoutPriceOrUnknownInstanceFailsNamingIt) {
  const Catalog catalog = PricingCatalog();
  TcoRequest r;
  r.instances = {"m8g.xlarge", "-"};
  EXPECT_THAT(PriceMachines(r, catalog).status().message(),
              HasSubstr("machine 2 has neither an --instance nor an --usd-per-hour"));
  r.instances = {"m9z.huge"};
  EXPECT_FALSE(PriceMachines(r, catalog).ok());
}

MeasuredRun Measured(const std::string& file, std::vector<double> samples) {
  MeasuredRun run;
  run.file = file;
  double sum = 0;
  for (double s : samples) sum += s;
  run.tps = sum / static_cast<double>(samples.size());
  run.tps_samples = std::move(samples);
  return run;
}

TEST(ComparePerDollarRunsTest, PricesEachRunAndComparesWithTheFirst) {
  const Catalog catalog = PricingCatalog();
  PerDollarRequest r;
  r.runs = {Measured("arm.json", {1000, 1010, 990}), Measured("x86.json", {1500, 1490, 1510})};
  r.instances = {"m8g.xlarge", "m7i.xlarge"};
  auto report = ComparePerDollarRuns(r, catalog);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->rows.size(), 2u);
  EXPECT_DOUBLE_EQ(report->rows[0].priced.usd_per_hour, 0.5);
  EXPECT_NEAR(report->rows[0].figures.transactions_per_usd, 1000 * 3600 / 0.5, 1);
  ASSERT_EQ(report->ratios.size(), 1u);
  // x86 buys 1.5x the transactions at 2x the price: 0.75 of arm's per dollar.
  EXPECT_NEAR(report->ratios[0].ratio, 0.75, 0.001);
  EXPECT_EQ(report->ratios[0].verdict, stats::Verdict::kLower);
}

TEST(ComparePerDollarRunsTest, UnpairedOverridesAreRefusedBeforePricing) {
  PerDollarRequest r;
  r.runs = {Measured("a.json", {10}), Measured("b.json", {20})};
  r.usd_per_hour = {1};
  EXPECT_THAT(ComparePerDollarRuns(r, PricingCatalog()).status().message(),
              HasSubstr("--usd-per-hour was given 1 time for 2 results files"));
}

}  // namespace
}  // namespace pgrig::cost
