#include "results/tpcc_section.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace pgrig::results {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A section with every field set away from its default.
TpccSection Full() {
  TpccSection s;
  s.warehouses = 4;
  s.procedures = true;
  s.spec_timing = true;
  s.warmup_s = 10;
  s.warmup_ended_early = true;
  s.run_constants = TpccRunConstants{.c_last = 150, .c_id = 7, .ol_i_id = 8000};
  s.window_s = 30.5;
  s.nopm = 1200;
  s.tpmc_like = 1212;
  s.tpm = 2700;
  s.fleet_client = true;
  s.fleet_clients = 3;
  s.new_orders = {.committed = 610, .rolled_back = 6, .database = 612, .agree = true};
  for (auto [name, ns, n] : {std::tuple{"new-order", int64_t{3'000'000}, int64_t{610}},
                             std::tuple{"payment", int64_t{1'000'000}, int64_t{590}}}) {
    TpccType t{.name = name, .transactions = n, .failures = 2, .retries = 5};
    t.histogram.emplace();
    t.histogram->RecordN(ns, n);
    t.latency_ms = TpccLatencyFromHistogram(*t.histogram);
    s.types.push_back(std::move(t));
  }
  s.types.push_back(TpccType{.name = "stock-level", .transactions = 0});  // no histogram
  s.delivery =
      TpccDelivery{.districts = 600, .delivered = 597, .skipped = 3, .skipped_share = 0.005};
  s.client_cpu_us_per_transaction = 41.5;
  s.server_cpu_us_per_transaction = 380.25;
  s.checked_warehouses = {1, 4, 2};
  s.conditions = json::array({{{"condition", 1}, {"what", "W_YTD"}, {"violations", 0}}});
  s.consistent = true;
  s.refused = {"one", "two"};
  return s;
}

TEST(TpccSection, WhatIsWrittenReadsBackTheSame) {
  const json written = TpccSectionJson(Full());
  auto back = ReadTpccSection(written, "a.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(TpccSectionJson(*back), written);
  EXPECT_EQ(back->types.size(), 3u);
  EXPECT_EQ(back->types[0].name, "new-order");  // the document's order
  ASSERT_TRUE(back->types[0].histogram.has_value());
  EXPECT_EQ(back->types[0].histogram->count(), 610);
  EXPECT_FALSE(back->types[2].histogram.has_value());
  EXPECT_EQ(back->new_orders.database, 612);
  EXPECT_EQ(back->fleet_clients, 3);
  EXPECT_EQ(back->checked_warehouses, (std::vector<int64_t>{1, 4, 2}));
}

TEST(TpccSection, TheKeysAsTheFormatNamesThem) {
  const json j = TpccSectionJson(Full());
  EXPECT_EQ(j["metric"], "nopm");
  EXPECT_DOUBLE_EQ(j["nopm"].get<double>(), 1200);
  EXPECT_DOUBLE_EQ(j["tpmc_like"].get<double>(), 1212);
  EXPECT_EQ(j["run_constants"], (json{{"c_last", 150}, {"c_id", 7}, {"ol_i_id", 8000}}));
  EXPECT_EQ(j["new_orders"],
            (json{{"committed", 610}, {"rolled_back", 6}, {"database", 612}, {"agree", true}}));
  EXPECT_DOUBLE_EQ(j["types"]["new-order"]["latency_ms"]["p99"].get<double>(), 3.0);
  EXPECT_TRUE(j["types"]["stock-level"]["histogram"].is_null());
  EXPECT_EQ(j["delivery"]["skipped_share"], 0.005);
  EXPECT_EQ(j["checks"]["warehouses"], json::array({1, 4, 2}));
  EXPECT_EQ(j["refused"], json::array({"one", "two"}));
}

TEST(TpccSection, NoFiguresAreNullAndAMergeCountIsOnlyInAMerge) {
  TpccSection s = Full();
  s.nopm.reset();
  s.tpmc_like.reset();
  s.tpm.reset();
  s.fleet_clients.reset();
  s.run_constants.reset();
  s.new_orders.database.reset();
  s.new_orders.agree.reset();
  s.delivery.reset();
  s.server_cpu_us_per_transaction.reset();
  const json j = TpccSectionJson(s);
  for (const char* key :
       {"nopm", "tpmc_like", "tpm", "run_constants", "delivery", "server_cpu_us_per_transaction"}) {
    EXPECT_TRUE(j.contains(key) && j[key].is_null()) << key;
  }
  EXPECT_TRUE(j["new_orders"]["database"].is_null());
  EXPECT_TRUE(j["new_orders"]["agree"].is_null());
  EXPECT_FALSE(j.contains("fleet_clients"));
  auto back = ReadTpccSection(j, "a.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->nopm.has_value());
  EXPECT_FALSE(back->new_orders.agree.has_value());
  EXPECT_EQ(TpccSectionJson(*back), j);
}

TEST(TpccSection, MissingKeysKeepTheirDefaultsButTypesAreRequired) {
  auto few = ReadTpccSection(json{{"warehouses", 2}, {"types", json::object()}}, "a.json");
  ASSERT_TRUE(few.ok()) << few.status().ToString();
  EXPECT_EQ(few->warehouses, 2);
  EXPECT_TRUE(few->types.empty());
  EXPECT_FALSE(few->nopm.has_value());

  auto none = ReadTpccSection(json{{"warehouses", 2}}, "a.json");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("a.json: tpcc: \"types\""));
  auto not_object = ReadTpccSection(json::array(), "a.json");
  ASSERT_FALSE(not_object.ok());
  EXPECT_THAT(not_object.status().message(), HasSubstr("a.json: \"tpcc\" must be an object"));
}

TEST(TpccSection, AWrongValueIsRefusedNamingTheKey) {
  struct Case {
    const char* what;
    json::json_pointer at;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"nopm a string", json::json_pointer("/nopm"), "many", "a.json: tpcc: \"nopm\""},
      {"warehouses fractional", json::json_pointer("/warehouses"), 2.5,
       "a.json: tpcc: \"warehouses\""},
      {"negative failures", json::json_pointer("/types/payment/failures"), -1,
       "a.json: tpcc.types.payment: \"failures\" must be a whole number in [0, 10^15]"},
      {"a count beyond 10^15", json::json_pointer("/types/payment/transactions"),
       int64_t{4'611'686'018'427'387'904}, "a.json: tpcc.types.payment: \"transactions\""},
      {"a type not an object", json::json_pointer("/types/payment"), 3,
       "a.json: tpcc.types.payment: not an object"},
      {"a bad histogram", json::json_pointer("/types/payment/histogram"), json{{"count", "x"}},
       "a.json: tpcc.types.payment.histogram"},
      {"a latency not a number", json::json_pointer("/types/payment/latency_ms/p99"), "slow",
       "a.json: tpcc.types.payment.latency_ms: \"p99\""},
      {"committed negative", json::json_pointer("/new_orders/committed"), -4,
       "a.json: tpcc.new_orders: \"committed\""},
      {"agree a number", json::json_pointer("/new_orders/agree"), 1,
       "a.json: tpcc.new_orders: \"agree\""},
      {"refused not strings", json::json_pointer("/refused"), json::array({1}),
       "a.json: tpcc: \"refused\""},
      {"checked warehouses not numbers", json::json_pointer("/checks/warehouses"),
       json::array({"one"}), "a.json: tpcc.checks: \"warehouses\""},
      {"conditions not an array", json::json_pointer("/checks/conditions"), "all",
       "a.json: tpcc.checks: \"conditions\""},
      {"delivery not an object", json::json_pointer("/delivery"), 5, "a.json: tpcc: \"delivery\""},
      {"negative window", json::json_pointer("/window_s"), -1.0, "a.json: tpcc: \"window_s\""},
      {"run constant a string", json::json_pointer("/run_constants/c_id"), "7",
       "a.json: tpcc.run_constants: \"c_id\""},
  };
  for (const Case& c : cases) {
    json j = TpccSectionJson(Full());
    j[c.at] = c.value;
    auto r = ReadTpccSection(j, "a.json");
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_THAT(r.status().message(), HasSubstr(c.message)) << c.what;
  }
}

TEST(TpccSection, LatencyFromAHistogram) {
  stats::Histogram h;
  EXPECT_EQ(TpccLatencyFromHistogram(h).max, 0);  // empty: all 0
  h.RecordN(2'000'000, 90);
  h.RecordN(50'000'000, 10);
  const TpccLatencyMs l = TpccLatencyFromHistogram(h);
  EXPECT_NEAR(l.p50, 2.0, 0.02);
  EXPECT_NEAR(l.p95, 50.0, 0.5);
  EXPECT_NEAR(l.max, 50.0, 0.5);
  EXPECT_LE(l.p90, l.p95);
}

}  // namespace
}  // namespace pgrig::results
