#include "cost/render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::cost {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Catalog Shipped() {
  Catalog c;
  auto st = c.MergeFile(PGRIG_SOURCE_DIR "/data/prices.toml");
  EXPECT_TRUE(st.ok()) << st.status().message();
  return c;
}

TEST(RenderTableTest, AlignsColumns) {
  std::string t =
      RenderTable({"a", "number"}, {{"long name", "1"}, {"x", "1,000"}}, {false, true}, "");
  EXPECT_EQ(t,
            "a          number\n"
            "long name       1\n"
            "x           1,000\n");
}

TEST(RenderListTest, FiltersByGlobOrSubstringAndShowsDateAndSource) {
  Catalog c = Shipped();
  std::string all = RenderCatalogList(c, "");
  EXPECT_THAT(all, HasSubstr("m6gd.16xlarge"));
  EXPECT_THAT(all, HasSubstr("VM.Standard.E4.Flex"));
  EXPECT_THAT(all, HasSubstr("gp3"));

  std::string r8g = RenderCatalogList(c, "r8g.*");
  EXPECT_THAT(r8g, HasSubstr("r8g.16xlarge"));
  EXPECT_THAT(r8g, HasSubstr("2026-11-29"));
  EXPECT_THAT(r8g, HasSubstr("AWS Price List API"));
  EXPECT_THAT(r8g, Not(HasSubstr("r7g.")));
  EXPECT_THAT(r8g, Not(HasSubstr("Flexible shapes")));

  std::string oci = RenderCatalogList(c, "oci");  // provider substring
  EXPECT_THAT(oci, HasSubstr("VM.Standard.A1.Flex"));
  EXPECT_THAT(oci, Not(HasSubstr("r8g.")));

  EXPECT_THAT(RenderCatalogList(c, "zzz"), HasSubstr("No catalog entries match"));

  nlohmann::json j = CatalogListToJson(c, "*.16xlarge");
  EXPECT_EQ(j["instances"].size(), 13u);  // one per family
  EXPECT_EQ(j["flex_shapes"].size(), 0u);
  EXPECT_EQ(j["instances"][0]["provenance"]["date"], "2026-11-29");
}

TEST(RenderTcoTest, TableAndJsonCarryEveryComponent) {
  Catalog c = Shipped();
  MachineCost m;
  m.instance = *c.FindInstance("r8g.16xlarge");
  m.label = "r8g.16xlarge";
  m.price_from = "catalog";
  m.storage = *c.FindStorage("gp3", "aws", "us-east-1");
  auto t = ComputeTco({.usd_per_hour = 3.77,
                       .count = 1,
                       .years = 3,
                       .storage_gb = 1000,
                       .support_pct = 10,
                       .storage = m.storage});
  ASSERT_TRUE(t.ok());
  m.tco = *t;
  auto claim = CheckClaim(m.tco, {.usd_per_hour = 6.0});
  ASSERT_TRUE(claim.ok());
  m.claim = *claim;

  std::string text = RenderMachineCost(m);
  // compute 99,075.60; storage 1,000 x 36 x 0.08 = 2,880.00;
  // support 10% of 101,955.60 = 10,195.56; total 112,151.16.
  EXPECT_THAT(text, HasSubstr("99,075.60"));
  EXPECT_THAT(text, HasSubstr("2,880.00"));
  EXPECT_THAT(text, HasSubstr("10,195.56"));
  EXPECT_THAT(text, HasSubstr("112,151.16"));
  EXPECT_THAT(text, HasSubstr("USD per instance-hour"));
  EXPECT_THAT(text, HasSubstr("each a physical core"));
  EXPECT_THAT(text, HasSubstr("claimed price 6 USD per hour"));
  EXPECT_THAT(text, HasSubstr("+59.2%"));

  nlohmann::json j = MachineCostToJson(m);
  EXPECT_NEAR(j["total_usd"].get<double>(), 112151.16, 1e-6);
  EXPECT_EQ(j["components"].size(), 3u);
  EXPECT_EQ(j["components"][0]["unit"], "instance-hours");
  EXPECT_EQ(j["instance"]["vcpu_is"], "core");
  EXPECT_NEAR(j["claim"]["hourly_difference_usd"].get<double>(), 2.23, 1e-12);
}

TEST(RenderPerDollarTest, SaysNoSignificantDifferenceAndUnknown) {
  PerDollarReport rep;
  for (auto [file, tps, samples] :
       {std::tuple<const char*, double, std::vector<double>>{"a.json", 100, {90, 100, 110}},
        {"b.json", 102, {92, 101, 112}},
        {"c.json", 150, {}}}) {
    PricedRun p;
    p.run.file = file;
    p.run.tps = tps;
    p.run.tps_samples = samples;
    p.usd_per_hour = 1.0;
    p.price_from = "--usd-per-hour";
    auto f = ComputePerDollar(p.run, p.usd_per_hour);
    ASSERT_TRUE(f.ok());
    rep.rows.push_back({p, *f});
  }
  for (size_t i = 1; i < rep.rows.size(); ++i) {
    rep.ratios.push_back(*ComparePerDollar(rep.rows[0].priced, rep.rows[i].priced));
  }
  std::string text = RenderPerDollar(rep);
  EXPECT_THAT(text, HasSubstr("transactions per USD"));
  EXPECT_THAT(text, HasSubstr("USD per 1M transactions"));
  EXPECT_THAT(text, HasSubstr("no significant difference"));
  EXPECT_THAT(text, HasSubstr("interval unknown"));
  EXPECT_THAT(text, Not(HasSubstr("TPS per dollar")));
  // 100 tps at 1 USD/h = 360,000 transactions per USD.
  EXPECT_THAT(text, HasSubstr("360,000"));

  nlohmann::json j = PerDollarToJson(rep);
  EXPECT_EQ(j["ratios"][0]["verdict"], "no_significant_difference");
  EXPECT_EQ(j["ratios"][1]["verdict"], "unknown");
  EXPECT_TRUE(j["ratios"][1]["ci95"].is_null());
  EXPECT_NEAR(j["runs"][2]["transactions_per_usd"].get<double>(), 540000, 1e-6);
}

}  // namespace
}  // namespace pgrig::cost
