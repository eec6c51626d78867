#include "results/result_doc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

ResultDoc FullResultDoc() {
  ResultDoc d;
  d.tool_version = "1.2.3";
  d.command = "bench";
  d.complete = false;
  d.stop_reason = "aborted";
  d.abort_message = "client 2 aborted";
  d.aborted_clients = 1;
  d.command_line = {"pgrig", "bench", "-c", "4"};
  d.started_at = "2026-12-03T10:00:00Z";
  d.ended_at = "2026-12-03T10:00:10Z";
  d.start_unix_s = 1000.25;
  d.end_unix_s = 1010.5;
  d.server =
      ResultServer{.version = "15.18", .version_num = 150018, .target = "x", .embedded = true};
  d.options.clients = 4;
  d.options.threads = 2;
  d.options.duration_s = 10;
  d.options.mode = script::QueryMode::kPrepared;
  d.options.scale = 10;
  d.options.rate_tps = 500;
  d.options.latency_limit_us = 2500;
  d.options.random_seed = "42";
  d.options.defines = {{"aid", "1"}};
  d.summary.tps = 499.5;
  d.summary.server_cpu_us_per_transaction = 80.5;
  d.transactions.processed = 4995;
  d.transactions.above_latency_limit = 3;
  d.latency.RecordN(1'000'000, 4995);
  stats::Histogram lag;
  lag.RecordN(10'000, 4995);
  d.lag = ResultLag{.histogram = lag};
  d.client.io = "io_uring";
  d.client.busy_fraction = 0.95;
  d.client.bottleneck = true;
  d.server_cpu = ResultServerCpu{
      .cpu_user_s = 1, .cpu_system_s = 2, .cpu_s = 3, .cpu_us_per_transaction = 80.5};
  ResultScriptDoc s;
  s.desc = "<builtin: select only>";
  s.spec = "select-only";
  s.commands = {
      ResultCommand{.line = "\\set aid random(1, 100000 * :scale)"},
      ResultCommand{.line = "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;",
                    .stats = ResultCommandStats{.executions = 4995, .latency_ms_avg = 0.9}}};
  s.totals = ResultScriptTotals{.transactions = 4995, .tps = 499.5};
  d.scripts = {s};
  ResultInterval iv;
  iv.end_s = 1;
  iv.tps = 500;
  iv.transactions = 500;
  iv.latency_ms_stddev = 0.1;
  d.series.intervals = {iv};
  d.facts = json{{"schema", "pgrig.facts/1"}};
  return d;
}

TEST(ResultDocTest, ReadBackAndWrittenAgainIsTheSameDocument) {
  const json written = ResultDocToJson(FullResultDoc());
  EXPECT_EQ(written["options"]["latency_limit_ms"], 2.5);
  EXPECT_EQ(written["options"]["query_mode"], "prepared");
  EXPECT_FALSE(written.contains("fleet"));
  auto back = ResultDocFromJson(written, "a.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->latency.count(), 4995);
  EXPECT_EQ(back->options.latency_limit_us, 2500);
  EXPECT_EQ(back->options.random_seed, "42");
  ASSERT_TRUE(back->lag.has_value());
  EXPECT_DOUBLE_EQ(back->lag->avg_ms, 0.01);
  // The lag histogram is not in the document: written again, the lag keeps
  // its mean and maximum only; everything else is as it was.
  json again = ResultDocToJson(*back);
  EXPECT_EQ(again["lag_ms"], (json{{"avg", 0.01}, {"max", 0.01}}));
  again["lag_ms"] = written["lag_ms"];
  EXPECT_EQ(again, written);
}

TEST(ResultDocTest, AMergedDocumentWritesItsFleetParts) {
  ResultDoc d = FullResultDoc();
  d.fleet = ResultFleet{.partial = true,
                        .hosts = {ResultFleetHost{.label = "a", .file = "a.json", .status = "ok"}}};
  d.series.merged = "added by index";
  d.client.hosts = std::vector<ResultClientHost>{{.label = "a", .tps = 1}};
  const json j = ResultDocToJson(d);
  EXPECT_EQ(j["fleet"]["hosts"][0]["status"], "ok");
  EXPECT_TRUE(j.contains("observation"));
  EXPECT_TRUE(j["bottleneck"].is_null());
  EXPECT_EQ(j["client"]["hosts"][0]["label"], "a");
  EXPECT_EQ(j["series"]["merged"], "added by index");
}

TEST(ResultDocTest, MalformedDocumentsAreErrorsNamingTheKey) {
  const json good = ResultDocToJson(FullResultDoc());
  struct Case {
    const char* pointer;
    json value;
    const char* expect;
  } cases[] = {
      {"/schema", "pgrig.suite/1", "pgrig.result/1"},
      {"/options/query_mode", "fast", "options: \"query_mode\" must be simple, extended"},
      {"/options/clients", "4", "options: \"clients\" must be a whole number"},
      {"/options/clients", 0, "options: \"clients\" must be a whole number of at least 1"},
      {"/options/threads", -2, "options: \"threads\" must be a whole number of at least 1"},
      {"/summary/tps", true, "summary: \"tps\" must be a number"},
      {"/scripts/0/commands/1/executions", 1.5, "scripts[0]: commands[1]: \"executions\""},
      {"/series/intervals/0/transactions", "x", "intervals[0]: \"transactions\""},
      {"/histogram/count", 1, "a.json"},
      {"/client", 3, "\"client\" must be an object"},
      // Counts are never negative and stay far inside int64, so that a
      // fleet's merge can add thousands of them.
      {"/transactions/processed", -1,
       "transactions: \"processed\" must be a whole number in [0, 10^15]"},
      {"/transactions/retries", int64_t{1'000'000'000'000'001},
       "\"retries\" must be a whole number in [0, 10^15]"},
      {"/aborted_clients", int64_t{9'000'000'000'000'000'000}, "\"aborted_clients\""},
      {"/series/intervals/0/failed", -3, "intervals[0]: \"failed\""},
      {"/scripts/0/commands/1/retries", -2, "commands[1]: \"retries\""},
      {"/client/max_rss_bytes", -1, "\"max_rss_bytes\""},
  };
  for (const Case& c : cases) {
    json bad = good;
    bad[json::json_pointer(c.pointer)] = c.value;
    auto r = ResultDocFromJson(bad, "a.json");
    ASSERT_FALSE(r.ok()) << c.pointer;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.pointer;
  }
  json no_hist = good;
  no_hist.erase("histogram");
  EXPECT_THAT(ResultDocFromJson(no_hist, "a.json").status().message(),
              HasSubstr("a.json has no histogram"));
}

TEST(ResultDocTest, FirstRunDifferenceNamesTheOption) {
  ResultOptions a, b;
  a.duration_s = 10;
  b.duration_s = 10;
  EXPECT_FALSE(FirstRunDifference(a, b).has_value());
  b.scale = 5;
  auto d = FirstRunDifference(a, b);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->key, "options.scale");
  EXPECT_EQ(d->a, "1");
  EXPECT_EQ(d->b, "5");
  b.duration_s.reset();
  EXPECT_EQ(FirstRunDifference(a, b)->b, "null");
}

}  // namespace
}  // namespace pgrig::results
