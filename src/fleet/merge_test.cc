// The clients-mode merge: histograms add, counts and tps sum, per-host CPU is
// kept, percentiles come from the merged histogram, a failed host makes the
// result partial instead of being silently left out.
#include "fleet/merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

#include "results/histogram_json.h"
#include "results/result_json.h"
#include "stats/histogram.h"

namespace pgrig::fleet {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A minimal pgrig.result/1 document of one client: `n` transactions of
// `latency_ns` each over 10 s.
json Doc(int64_t n, int64_t latency_ns, double cpu_s, bool complete = true) {
  stats::Histogram h;
  h.RecordN(latency_ns, n);
  return json{
      {"schema", "pgrig.result/1"},
      {"complete", complete},
      {"stop_reason", complete ? "completed" : "aborted"},
      {"abort_message", complete ? json(nullptr) : json("server closed the connection")},
      {"aborted_clients", complete ? 0 : 1},
      {"started_at", "2026-12-01T10:00:00Z"},
      {"ended_at", "2026-12-01T10:00:10Z"},
      {"start_unix_s", 1000.0},
      {"end_unix_s", 1010.0},
      {"server", {{"version", "17.2"}, {"target", "host=db"}}},
      {"options",
       {{"clients", 4},
        {"threads", 2},
        {"duration_s", 10},
        {"transactions_per_client", nullptr},
        {"query_mode", "simple"},
        {"scale", 1}}},
      {"summary", {{"tps", static_cast<double>(n) / 10}, {"duration_s", 10.0}}},
      {"transactions", {{"processed", n}, {"failed", 2}, {"retries", 3}, {"skipped", 0}}},
      {"histogram", results::HistogramJson(h)},
      {"client",
       {{"cpu_user_s", cpu_s},
        {"cpu_system_s", cpu_s / 2},
        {"busy_fraction", 0.25},
        {"max_rss_bytes", 1000}}},
      {"scripts",
       json::array(
           {{{"desc", "select only"},
             {"transactions", n},
             {"tps", static_cast<double>(n) / 10},
             {"commands", json::array({{{"line", "SELECT 1"},
                                        {"executions", n},
                                        {"latency_ms_avg", static_cast<double>(latency_ns) / 1e6},
                                        {"failures", 0},
                                        {"retries", 0}}})}}})},
      {"series",
       {{"interval_s", 1.0},
        {"intervals", json::array({{{"end_s", 1.0},
                                    {"tps", 5.0},
                                    {"transactions", 5},
                                    {"latency_ms_avg", static_cast<double>(latency_ns) / 1e6},
                                    {"latency_ms_min", 1.0},
                                    {"latency_ms_max", 2.0}}})}}},
  };
}

ClientHostResult Host(const std::string& label, json doc) {
  return ClientHostResult{
      .label = label, .file = label + ".json", .doc = std::move(doc), .error = ""};
}

TEST(FleetMerge, HistogramsAddCountsAndTpsSumCpuKeptPerHost) {
  std::vector<ClientHostResult> hosts = {Host("a", Doc(3000, 1'000'000, 2.0)),
                                         Host("b", Doc(1000, 100'000'000, 4.0))};
  auto m = MergeClientResults(hosts, MergeOptions{.tool_version = "t"});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const json& d = *m;
  EXPECT_EQ(d["schema"], "pgrig.result/1");
  EXPECT_EQ(d["complete"], true);
  EXPECT_EQ(d["fleet"]["partial"], false);
  EXPECT_EQ(d["transactions"]["processed"], 4000);
  EXPECT_EQ(d["transactions"]["failed"], 4);
  EXPECT_EQ(d["transactions"]["retries"], 6);
  EXPECT_DOUBLE_EQ(d["summary"]["tps"].get<double>(), 400.0);
  EXPECT_EQ(d["options"]["clients"], 8);
  EXPECT_EQ(d["options"]["threads"], 4);
  EXPECT_EQ(d["histogram"]["count"], 4000);
  EXPECT_EQ(d["scripts"][0]["transactions"], 4000);
  EXPECT_EQ(d["scripts"][0]["commands"][0]["executions"], 4000);
  EXPECT_NEAR(d["scripts"][0]["commands"][0]["latency_ms_avg"].get<double>(), 25.75, 1e-9);
  EXPECT_EQ(d["series"]["intervals"][0]["transactions"], 10);
  // Percentiles from the merged histogram: p50 is host a's 1 ms (75% of the
  // values), p90 and p99 host b's 100 ms; averaging the hosts' own p50s would
  // give 50.5 ms.
  auto merged = results::HistogramFromJson(d["histogram"], "test");
  ASSERT_TRUE(merged.ok());
  EXPECT_NEAR(d["latency_ms"]["p50"].get<double>(), 1.0, 0.001);
  EXPECT_NEAR(d["latency_ms"]["p90"].get<double>(), 100.0, 0.1);
  EXPECT_NEAR(d["latency_ms"]["p99"].get<double>(), 100.0, 0.1);
  EXPECT_DOUBLE_EQ(d["latency_ms"]["p99"].get<double>(),
                   static_cast<double>(merged->ValueAtPercentile(99)) / 1e6);
  EXPECT_NEAR(d["latency_ms"]["avg"].get<double>(), (3000 * 1.0 + 1000 * 100.0) / 4000, 1e-9);
  // Client CPU sums, and stays per host.
  EXPECT_DOUBLE_EQ(d["client"]["cpu_user_s"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(d["client"]["cpu_system_s"].get<double>(), 3.0);
  EXPECT_NEAR(d["client"]["cpu_us_per_transaction"].get<double>(), 9.0 * 1e6 / 4004, 1e-6);
  ASSERT_EQ(d["client"]["hosts"].size(), 2u);
  EXPECT_EQ(d["client"]["hosts"][1]["label"], "b");
  EXPECT_DOUBLE_EQ(d["client"]["hosts"][1]["cpu_user_s"].get<double>(), 4.0);
  EXPECT_EQ(d["fleet"]["hosts"][0]["transactions"], 3000);
  // No server CPU figure for the sum of several clients' windows.
  EXPECT_TRUE(d["summary"]["server_cpu_us_per_transaction"].is_null());
  EXPECT_TRUE(d["server_cpu"].is_null());
  EXPECT_TRUE(d["server_cpu_unavailable"].is_string());
  // Not observed: no observation and no bottleneck, rather than empty ones.
  EXPECT_TRUE(d["observation"].is_null());
  EXPECT_TRUE(d["bottleneck"].is_null());
}

TEST(FleetMerge, TheControllersObservationAndBottleneckAreKept) {
  std::vector<ClientHostResult> hosts = {Host("a", Doc(3000, 1'000'000, 2.0))};
  const json observation = {{"host_cpus", 2}, {"server_is_local", true}};
  const json bottleneck = {{"kind", "server_cpu"}, {"evidence", "host CPU 96% busy"}};
  auto m =
      MergeClientResults(hosts, MergeOptions{.observation = observation, .bottleneck = bottleneck});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)["observation"], observation);
  EXPECT_EQ((*m)["bottleneck"], bottleneck);
}

TEST(FleetMerge, AFailedHostMakesThePartialResultExplicit) {
  std::vector<ClientHostResult> hosts = {
      Host("a", Doc(3000, 1'000'000, 2.0)),
      ClientHostResult{.label = "b", .file = "", .doc = std::nullopt, .error = "h1 unreachable"}};
  auto m = MergeClientResults(hosts, MergeOptions{});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)["complete"], false);
  EXPECT_EQ((*m)["stop_reason"], "partial");
  EXPECT_EQ((*m)["fleet"]["partial"], true);
  EXPECT_EQ((*m)["fleet"]["hosts"][1]["status"], "failed");
  EXPECT_THAT((*m)["abort_message"].get<std::string>(), HasSubstr("b: h1 unreachable"));
  EXPECT_EQ((*m)["transactions"]["processed"], 3000);  // only what was measured
  EXPECT_EQ((*m)["options"]["clients"], 4);
}

TEST(FleetMerge, AnIncompleteHostMakesItPartialToo) {
  std::vector<ClientHostResult> hosts = {Host("a", Doc(3000, 1'000'000, 2.0)),
                                         Host("b", Doc(10, 1'000'000, 0.1, false))};
  auto m = MergeClientResults(hosts, MergeOptions{});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)["complete"], false);
  EXPECT_EQ((*m)["stop_reason"], "aborted");
  EXPECT_EQ((*m)["fleet"]["hosts"][1]["status"], "incomplete");
  EXPECT_THAT((*m)["abort_message"].get<std::string>(), HasSubstr("b: server closed"));
}

TEST(FleetMerge, RefusesWhatCannotBeMerged) {
  auto none = MergeClientResults(
      {ClientHostResult{.label = "a", .file = "", .doc = std::nullopt, .error = "x"}}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("nothing to merge"));

  json other = Doc(10, 1000, 0.1);
  other["options"]["duration_s"] = 20;
  auto mismatch = MergeClientResults({Host("a", Doc(10, 1000, 0.1)), Host("b", other)}, {});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(), HasSubstr("host b ran with options.duration_s = 20"));

  json bad = Doc(10, 1000, 0.1);
  bad["histogram"]["count"] = 11;
  auto bad_hist = MergeClientResults({Host("a", Doc(10, 1000, 0.1)), Host("b", bad)}, {});
  ASSERT_FALSE(bad_hist.ok());
  EXPECT_THAT(bad_hist.status().message(), HasSubstr("host b"));

  json wrong = Doc(10, 1000, 0.1);
  wrong["schema"] = "pgrig.suite/1";
  EXPECT_FALSE(MergeClientResults({Host("a", wrong)}, {}).ok());

  // The merged -c is an int like each host's: a sum beyond it is refused,
  // not wrapped into a negative client count.
  json many = Doc(10, 1000, 0.1);
  many["options"]["clients"] = 2'000'000'000;
  auto too_many = MergeClientResults({Host("a", many), Host("b", many)}, {});
  ASSERT_FALSE(too_many.ok());
  EXPECT_THAT(too_many.status().message(),
              HasSubstr("host b: the hosts' clients (4000000000) or threads"));
}

TEST(FleetMerge, OneHostMergesToItself) {
  auto m = MergeClientResults({Host("a", Doc(500, 2'000'000, 1.0))}, {});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)["transactions"]["processed"], 500);
  EXPECT_EQ((*m)["histogram"]["count"], 500);
  EXPECT_EQ((*m)["complete"], true);
}

}  // namespace
}  // namespace pgrig::fleet

namespace pgrig::fleet {
namespace {

// Doc() with a fleet client's tpcc section: `new_orders` New-Orders and
// `payments` Payments of 2 and 4 ms, over 10 s.
json TpccDoc(int64_t new_orders, int64_t payments, int warehouses = 2) {
  json d = Doc(new_orders + payments, 3'000'000, 1.0);
  json types = json::object();
  for (auto [name, n, ns] : {std::tuple{"new-order", new_orders, int64_t{2'000'000}},
                             std::tuple{"payment", payments, int64_t{4'000'000}}}) {
    stats::Histogram h;
    h.RecordN(ns, n);
    types[name] = {{"histogram", results::HistogramJson(h, results::BucketForm::kPacked)},
                   {"transactions", n},
                   {"failures", 1},
                   {"retries", 2}};
  }
  d["tpcc"] = {{"metric", "nopm"},
               {"warehouses", warehouses},
               {"procedures", false},
               {"spec_timing", false},
               {"window_s", 10.0},
               {"nopm", static_cast<double>(new_orders) * 6},
               {"tpm", static_cast<double>(new_orders + payments) * 6},
               {"fleet_client", true},
               {"new_orders", {{"committed", new_orders}, {"rolled_back", 0}}},
               {"types", types},
               {"client_cpu_us_per_transaction", 100.0},
               {"refused", json::array()}};
  return d;
}

TpccServerCounts Server(int64_t new_orders) {
  return TpccServerCounts{.new_orders = new_orders,
                          .undelivered_before = 100,
                          .undelivered_after = 100 + new_orders,
                          .conditions = json::array({{{"condition", 1}, {"violations", 0}}}),
                          .consistent = true,
                          .problems = {}};
}

TEST(FleetMergeTpcc, CountsSumHistogramsAddAndTheDatabaseDecides) {
  const std::vector<ClientHostResult> hosts = {{"a", "a.json", TpccDoc(100, 90), ""},
                                               {"b", "b.json", TpccDoc(300, 10), ""}};
  // The database counted the 400 and one more (in flight as a client ended).
  auto m = MergeClientResults(hosts, {.tpcc = Server(401)});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const json& t = (*m)["tpcc"];
  EXPECT_EQ(t["new_orders"]["committed"], 400);
  EXPECT_EQ(t["new_orders"]["database"], 401);
  EXPECT_EQ(t["new_orders"]["agree"], true);
  EXPECT_TRUE(t["refused"].empty()) << t["refused"].dump();
  EXPECT_DOUBLE_EQ(t["nopm"].get<double>(), 2400);
  EXPECT_EQ(t["types"]["payment"]["transactions"], 100);
  EXPECT_EQ(t["types"]["payment"]["failures"], 2);
  EXPECT_EQ(t["types"]["new-order"]["retries"], 4);
  EXPECT_EQ(t["fleet_clients"], 2);
  EXPECT_EQ(t["consistent"], true);
  EXPECT_DOUBLE_EQ(t["types"]["new-order"]["latency_ms"]["p99"].get<double>(), 2.0);
  auto h = results::HistogramFromJson(t["types"]["new-order"]["histogram"], "test");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->count(), 400);

  // Behind the clients, or ahead by more than one per client (8): no NOPM.
  for (int64_t database : {399, 409}) {
    auto off = MergeClientResults(hosts, {.tpcc = Server(database)});
    ASSERT_TRUE(off.ok());
    EXPECT_TRUE((*off)["tpcc"]["nopm"].is_null()) << database;
    EXPECT_THAT((*off)["tpcc"]["refused"][0].get<std::string>(),
                HasSubstr("the database " + std::to_string(database)));
  }
  // A broken condition, a host's own refusal, a failed host: no NOPM, each said.
  TpccServerCounts broken = Server(401);
  broken.consistent = false;
  broken.problems = {"after the run, condition 2 (...): 1 districts break it"};
  json refusing = TpccDoc(300, 10);
  refusing["tpcc"]["refused"] = json::array({"the run aborted: server closed the connection"});
  auto bad = MergeClientResults({{"a", "a.json", TpccDoc(100, 90), ""},
                                 {"b", "b.json", refusing, ""},
                                 {"c", "c.json", std::nullopt, "ssh: connection refused"}},
                                {.tpcc = broken});
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  const json& r = (*bad)["tpcc"]["refused"];
  EXPECT_TRUE((*bad)["tpcc"]["nopm"].is_null());
  EXPECT_THAT(r.dump(), HasSubstr("a client host failed"));
  EXPECT_THAT(r.dump(), HasSubstr("b: the run aborted"));
  EXPECT_THAT(r.dump(), HasSubstr("condition 2"));

  // Clients on different loads did not run one benchmark; a bench document
  // has no tpcc section.
  auto other = MergeClientResults(
      {{"a", "a.json", TpccDoc(100, 90), ""}, {"b", "b.json", TpccDoc(100, 90, 3), ""}},
      {.tpcc = Server(200)});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("warehouses"));
  auto bench =
      MergeClientResults({{"a", "a.json", Doc(10, 1'000'000, 1.0), ""}}, {.tpcc = Server(0)});
  ASSERT_FALSE(bench.ok());
  EXPECT_THAT(bench.status().message(), HasSubstr("no \"tpcc\" section"));
}

TEST(FleetMergeTpcc, AMalformedSectionIsRefusedNamingTheHostAndTheKey) {
  // Each was once read as 0 and summed; now the merge says which host's
  // document holds what.
  json text_count = TpccDoc(300, 10);
  text_count["tpcc"]["types"]["payment"]["transactions"] = "10";
  json bad_nopm = TpccDoc(300, 10);
  bad_nopm["tpcc"]["nopm"] = json::array();
  json no_types = TpccDoc(300, 10);
  no_types["tpcc"].erase("types");
  json other_types = TpccDoc(300, 10);
  other_types["tpcc"]["types"].erase("payment");
  for (const auto& [doc, message] :
       {std::pair{text_count, "host b: b.json: tpcc.types.payment: \"transactions\""},
        std::pair{bad_nopm, "host b: b.json: tpcc: \"nopm\""},
        std::pair{no_types, "host b: b.json: tpcc: \"types\""},
        std::pair{other_types, "host b: b.json: tpcc.types differ from host a's"}}) {
    auto m = MergeClientResults({{"a", "a.json", TpccDoc(100, 90), ""}, {"b", "b.json", doc, ""}},
                                {.tpcc = Server(401)});
    ASSERT_FALSE(m.ok()) << message;
    EXPECT_THAT(m.status().message(), HasSubstr(message));
  }
}

}  // namespace
}  // namespace pgrig::fleet
