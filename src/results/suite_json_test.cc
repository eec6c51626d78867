// Unit tests of the suite document: per-cell figures (tps interval on the log
// scale, latency from merged histograms, bottleneck, per-dollar), runs.csv,
// and finding shipped plans by name.
#include "results/suite_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "plan/plan_search.h"
#include "results/result_json.h"
#include "results/schemas.h"

namespace pgrig::results {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A run document whose transactions all took `latency_ns`, at `tps`.
json RunDoc(const std::string& cell, int iteration, int64_t latency_ns, int64_t transactions,
            const std::string& bottleneck) {
  engine::RunResult r;
  r.bench_duration_ns = 1'000'000'000;
  for (int64_t i = 0; i < transactions; ++i) {
    r.totals.RecordSuccess(latency_ns, 0, 1);
    r.latency.Record(latency_ns);
  }
  r.client_user_cpu_s = 0.001 * static_cast<double>(transactions) / 100;
  ResultInputs in;
  in.command = "run";
  json run{{"run", iteration + 1},
           {"cell", cell},
           {"iteration", iteration},
           {"status", "ok"},
           {"error", nullptr},
           {"result", RunResultToJson(in, r, nullptr)},
           {"bottleneck",
            {{"kind", bottleneck},
             {"evidence", "because " + bottleneck},
             {"warnings", json::array({"shared CPUs"})}}}};
  return run;
}

json SuiteWith(std::vector<json> runs, json price = nullptr) {
  return json{{"schema", results::kSuiteSchema},
              {"label", "t"},
              {"price", price},
              {"plan", {{"name", "t"}, {"source_path", ""}}},
              {"target", {{"description", "x"}}},
              {"scale", nullptr},
              {"ended_at", nullptr},
              {"stop_reason", nullptr},
              {"cells", json::array({json{{"id", "a"}, {"workload", "w"}, {"clients", 2}},
                                     json{{"id", "b"}, {"workload", "w"}, {"clients", 4}}})},
              {"runs", runs}};
}

TEST(SuiteJsonTest, TpsIntervalIsTheTIntervalOfTheGeometricMean) {
  const json t = TpsSummaryJson({100, 200, 400});
  EXPECT_DOUBLE_EQ(t["median"].get<double>(), 200);
  EXPECT_DOUBLE_EQ(t["min"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(t["max"].get<double>(), 400);
  EXPECT_NEAR(t["geomean"].get<double>(), 200, 1e-9);
  // ln values: mean ln 200, sd ln 2; t(0.975, 2) = 4.302653.
  const double half = 4.302653 * std::log(2.0) / std::sqrt(3.0);
  EXPECT_NEAR(t["ci95_low"].get<double>(), 200 * std::exp(-half), 1e-3);
  EXPECT_NEAR(t["ci95_high"].get<double>(), 200 * std::exp(half), 1e-3);
  EXPECT_TRUE(TpsSummaryJson({5})["ci95_low"].is_null());
  EXPECT_TRUE(TpsSummaryJson({}).is_null());
}

TEST(SuiteJsonTest, LatencyPercentilesComeFromMergedHistogramsNotAverages) {
  // Cell a: one run of 300 x 1 ms and one of 100 x 9 ms.  Merged, the median
  // is 1 ms and p90 is 9 ms; averaging the runs' percentiles would give 5 ms.
  json suite = SuiteWith({RunDoc("a", 0, 1'000'000, 300, "server_cpu"),
                          RunDoc("a", 1, 9'000'000, 100, "server_cpu"),
                          RunDoc("b", 0, 2'000'000, 50, "wal")});
  UpdateCellSummaries(suite);
  const json& a = suite["cells"][0]["summary"];
  EXPECT_EQ(a["runs"], 2);
  EXPECT_EQ(a["latency_ms"]["transactions"], 400);
  EXPECT_NEAR(a["latency_ms"]["p50"].get<double>(), 1.0, 0.001);
  EXPECT_NEAR(a["latency_ms"]["p90"].get<double>(), 9.0, 0.01);
  EXPECT_NEAR(a["latency_ms"]["avg"].get<double>(), 3.0, 0.001);
  EXPECT_EQ(a["bottleneck"]["kind"], "server_cpu");
  EXPECT_EQ(a["bottleneck"]["runs"], 2);
  ASSERT_EQ(a["bottleneck"]["warnings"].size(), 1u);
  EXPECT_EQ(a["bottleneck"]["warnings"][0], "shared CPUs [2 of 2 runs]");
  EXPECT_EQ(CellWarnings(suite),
            (std::vector<std::pair<std::string, std::string>>{{"a", "shared CPUs [2 of 2 runs]"},
                                                              {"b", "shared CPUs [1 of 1 runs]"}}));
  EXPECT_EQ(suite["cells"][1]["summary"]["bottleneck"]["kind"], "wal");
  EXPECT_TRUE(a["per_dollar"].is_null());
}

TEST(SuiteJsonTest, FailedRunsAreCountedButNotSummarized) {
  json failed = RunDoc("a", 1, 5'000'000, 10, "unknown");
  failed["status"] = "failed";
  failed["error"] = "server closed the connection, unexpectedly";
  json suite = SuiteWith({RunDoc("a", 0, 1'000'000, 100, "server_cpu"), failed});
  UpdateCellSummaries(suite);
  const json& a = suite["cells"][0]["summary"];
  EXPECT_EQ(a["runs"], 1);
  EXPECT_EQ(a["failed_runs"], 1);
  EXPECT_EQ(a["latency_ms"]["transactions"], 100);
  const std::string csv = RunsCsv(suite);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_THAT(csv, HasSubstr(",failed,"));
  EXPECT_THAT(csv, HasSubstr("\"server closed the connection, unexpectedly\""));
  EXPECT_THAT(SummaryMarkdown(suite), HasSubstr("## Failed runs"));
  EXPECT_TRUE(suite["cells"][1]["summary"]["tps"].is_null());
}

TEST(SuiteJsonTest, PricedCellsGetTransactionsPerDollarWithInterval) {
  json suite = SuiteWith(
      {RunDoc("a", 0, 1'000'000, 100, "server_cpu"), RunDoc("a", 1, 1'000'000, 120, "server_cpu"),
       RunDoc("a", 2, 1'000'000, 110, "server_cpu")},
      json{{"usd_per_hour", 0.36}, {"instance_type", "x"}, {"from", "test"}});
  UpdateCellSummaries(suite);
  const json& pd = suite["cells"][0]["summary"]["per_dollar"];
  ASSERT_TRUE(pd.is_object());
  const double median = suite["cells"][0]["summary"]["tps"]["median"].get<double>();
  EXPECT_NEAR(pd["transactions_per_usd"].get<double>(), median * 3600 / 0.36, 1e-6);
  ASSERT_TRUE(pd["transactions_per_usd_ci95"].is_array());
  EXPECT_LT(pd["transactions_per_usd_ci95"][0].get<double>(),
            pd["transactions_per_usd"].get<double>());
  EXPECT_GT(pd["transactions_per_usd_ci95"][1].get<double>(),
            pd["transactions_per_usd"].get<double>());
  EXPECT_THAT(CellTable(suite), HasSubstr("txn per USD"));
  // Transactions only: the heading says tps and nothing of lio.
  EXPECT_THAT(CellTable(suite), HasSubstr("| runs | tps median [95% interval] |"));
  EXPECT_THAT(CellTable(suite), Not(HasSubstr("lio")));
}

TEST(PlanSearchTest, FindsShippedPlansByNameAndFilesByPath) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("pgrig-plan-search-" + std::to_string(getpid()));
  fs::create_directories(root / "plans");
  std::ofstream(root / "plans" / "quick.toml") << "[plan]\n";
  std::ofstream(root / "plans" / "standard.toml") << "[plan]\n";
  plan::PlanSearch s;
  s.data_dir = root.string();
  auto q = plan::LocatePlan("quick", s);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->path, (root / "plans" / "quick.toml").string());
  auto missing = plan::LocatePlan("scaling", s);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("shipped plans: quick, standard"));
  EXPECT_TRUE(plan::LooksLikePlanFile("my.toml"));
  EXPECT_TRUE(plan::LooksLikePlanFile("./x"));
  EXPECT_FALSE(plan::LooksLikePlanFile("scaling"));
  EXPECT_FALSE(plan::LocatePlan("/nonexistent/p.toml", s).ok());
  plan::PlanSearch exe;
  exe.exe_dir = "/opt/pgrig/bin";
  EXPECT_EQ(plan::PlanDirectories(exe).front(), "/opt/pgrig/bin/../plans");
  fs::remove_all(root);
}

}  // namespace
}  // namespace pgrig::results
