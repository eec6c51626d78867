// lio cells and the suite's fsync test in `pgrig report` and `pgrig compare`,
// on two suites written by `pgrig run` with a lio plan (tests/data/suites/
// lio-r1 and lio-r2, see the README there): the reader takes lio_per_s as the
// cells' headline and suite.fsync as the flush test, compare gives lio cells
// the same statistics as tps cells, and the fsync figures are set side by
// side without a verdict.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/compare.h"
#include "report/render.h"
#include "results/reader.h"
#include "results/schemas.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;

const std::string kDir = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";

results::Suite Load(const std::string& name) {
  auto s = results::LoadSuite(kDir + name);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : results::Suite{};
}

TEST(LioSuiteTest, ReaderTakesLioPerSecondAndTheFsyncRecord) {
  const results::Suite s = Load("lio-r1");
  EXPECT_EQ(s.schema, results::kSuiteSchemaV1);
  EXPECT_EQ(s.plan_name, "tiny-lio");
  EXPECT_FALSE(s.scale.has_value());  // no pgbench workload: no pgbench scale
  ASSERT_EQ(s.cells.size(), 2u);
  for (const results::Cell& c : s.cells) {
    EXPECT_EQ(c.metric, "lio_per_s") << c.id;
    EXPECT_EQ(c.protocol, "prepared");
    EXPECT_EQ(c.clients, c.threads);
    ASSERT_EQ(c.runs.size(), 2u) << c.id;
    for (const results::Run& r : c.runs) {
      EXPECT_TRUE(r.ok);
      EXPECT_GT(r.tps, 1000) << c.id;  // logical reads per second
      ASSERT_TRUE(r.histogram.has_value());
      EXPECT_GT(r.histogram->count, 0);
      EXPECT_FALSE(r.transactions.has_value());
      EXPECT_FALSE(r.observation.bottleneck.empty());
    }
  }
  EXPECT_EQ(s.cells[0].id, "lio/prepared/default/c1/j1");
  // The run's value is the document's summary.lio_per_s, as written.
  const nlohmann::json doc = nlohmann::json::parse(std::ifstream(kDir + "lio-r1/suite.json"),
                                                   nullptr, /*allow_exceptions=*/true);
  for (const auto& run : doc["runs"]) {
    if (run["cell"] != s.cells[0].id || run["iteration"] != 0) continue;
    EXPECT_EQ(run["result"]["schema"], results::kLioResultSchema);
    EXPECT_DOUBLE_EQ(s.cells[0].runs[0].tps, run["result"]["summary"]["lio_per_s"].get<double>());
  }
  ASSERT_TRUE(s.fsync.has_value());
  const results::FsyncRecord& f = *s.fsync;
  EXPECT_FALSE(f.dir.empty());
  EXPECT_FALSE(f.best_method.empty());
  ASSERT_TRUE(f.best_ops_per_s.has_value());
  EXPECT_GT(*f.best_ops_per_s, 0);
  EXPECT_EQ(f.server_method, doc["fsync"]["summary"]["server_wal_sync_method"]);
  EXPECT_FALSE(f.memory_file_system);
  // 4 methods + open_datasync with O_DIRECT, x 1 size x 2 writer counts.
  EXPECT_EQ(f.tests.size(), 10u);
  for (const results::FsyncTest& t : f.tests) {
    EXPECT_EQ(t.write_bytes, 8192);
    EXPECT_TRUE(t.ops_per_s.has_value() || !t.unavailable.empty()) << t.label;
  }
}

TEST(LioSuiteTest, AnalysisKeepsLioCellsOutOfTransactionsAndTheDecisionTable) {
  results::Suite s = Load("lio-r1");
  s.usd_per_hour = 1.0;  // a priced suite: still no "transactions per USD" for lio cells
  auto a = Analyze(s);
  ASSERT_TRUE(a.ok());
  for (const CellStats& c : a->cells) {
    EXPECT_EQ(c.metric, "lio_per_s");
    EXPECT_EQ(c.kind, WorkloadKind::kOther);
    EXPECT_EQ(c.runs_ok, 2);
    EXPECT_GT(c.tps_summary.median, 0);
    EXPECT_TRUE(c.tps_ci.has_value());  // two runs: an interval
    EXPECT_EQ(c.latency_ms.size(), kPercentileCount);
    EXPECT_FALSE(c.transactions_per_usd.has_value());
  }
  EXPECT_EQ(BestCell(*a, WorkloadKind::kReadOnly), nullptr);
}

TEST(LioSuiteTest, CompareGivesLioCellsTheTpsStatistics) {
  const results::Suite r1 = Load("lio-r1"), r2 = Load("lio-r2");
  auto s1 = Analyze(r1), s2 = Analyze(r2);
  ASSERT_TRUE(s1.ok() && s2.ok());
  // The same plan twice on the same (busy) machine: an A/A pair.
  auto aa = Compare({&*s1, &*s2});
  ASSERT_TRUE(aa.ok()) << aa.status().message();
  ASSERT_EQ(aa->cells[0].size(), 2u);
  for (const CellComparison& cc : aa->cells[0]) {
    EXPECT_EQ(cc.speed, Speed::kNoSignificantDifference) << cc.key;
    ASSERT_TRUE(cc.tps.interval.has_value());
    EXPECT_LT(cc.tps.interval->low, 1.0);
    EXPECT_GT(cc.tps.interval->high, 1.0);
  }
  // A machine 20 times as fast: the ratio is exactly 20 and the verdict
  // follows the interval (only the variance of the runs limits it).
  results::Suite fast = r1;
  fast.label = "fast";
  for (results::Cell& c : fast.cells) {
    for (results::Run& r : c.runs) r.tps *= 20;
  }
  auto sf = Analyze(fast);
  ASSERT_TRUE(sf.ok());
  auto c = Compare({&*s1, &*sf});
  ASSERT_TRUE(c.ok());
  for (const CellComparison& cc : c->cells[0]) {
    ASSERT_TRUE(cc.tps.ratio.has_value());
    EXPECT_NEAR(*cc.tps.ratio, 20.0, 1e-9) << cc.key;
    ASSERT_TRUE(cc.tps.interval.has_value());
    EXPECT_EQ(cc.speed == Speed::kFaster, cc.tps.interval->low > 1.0) << cc.key;
    EXPECT_NE(cc.speed, Speed::kSlower) << cc.key;
  }
}

TEST(LioSuiteTest, ReportAndCompareShowLioCellsAndFsyncSideBySide) {
  const results::Suite r1 = Load("lio-r1"), r2 = Load("lio-r2");
  auto s1 = Analyze(r1), s2 = Analyze(r2);
  ASSERT_TRUE(s1.ok() && s2.ok());
  const std::string text = RenderReport({&*s1, SuiteWarnings(*s1), {}}, Format::kText);
  EXPECT_THAT(text, HasSubstr("lio/prepared/default/c2/j2"));
  EXPECT_THAT(text, HasSubstr(" lio/s"));
  EXPECT_THAT(text, HasSubstr("WAL flushes of " + r1.fsync->dir));
  EXPECT_THAT(text, HasSubstr("best method: " + r1.fsync->best_method));
  EXPECT_THAT(text, HasSubstr("open_datasync+O_DIRECT"));
  const auto rj = nlohmann::json::parse(RenderReport({&*s1, {}, {}}, Format::kJson));
  EXPECT_EQ(rj["suite"]["cells"][0]["metric"], "lio_per_s");
  EXPECT_EQ(rj["suite"]["fsync"]["best_method"], r1.fsync->best_method);
  EXPECT_THAT(RenderReport({&*s1, {}, {}}, Format::kCsv), HasSubstr(",lio_per_s,,"));

  auto c = Compare({&*s1, &*s2});
  ASSERT_TRUE(c.ok());
  const std::string ct = RenderComparison({&*c, {}}, Format::kText);
  EXPECT_THAT(ct, HasSubstr("WAL flushes side by side (one test per suite: no verdict)"));
  EXPECT_THAT(ct, HasSubstr(r2.fsync->best_method));
  EXPECT_THAT(ct, HasSubstr("no significant difference"));
  const std::string md = RenderComparison({&*c, {}}, Format::kMarkdown);
  EXPECT_THAT(md, HasSubstr("best flushes/s (1 writer)"));
  const auto cj = nlohmann::json::parse(RenderComparison({&*c, {}}, Format::kJson));
  EXPECT_TRUE(cj["suites"][1]["fsync"]["best_ops_per_s"].is_number());
}

TEST(LioSuiteTest, AFsyncEntryThatIsNotAFsyncDocumentIsRefused) {
  auto s = results::ParseSuiteJson(
      R"({"schema": "pgrig.suite/1", "cells": [], "fsync": {"schema": "pgrig.result/1"}})",
      "f/suite.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("f/suite.json: \"fsync\" is not a pgrig.fsync/1"));
}

}  // namespace
}  // namespace pgrig::report
