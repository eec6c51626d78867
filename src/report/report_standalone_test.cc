// Standalone `pgrig lio run --json` (pgrig.lio/1) and `pgrig fsync --json`
// (pgrig.fsync/1) files in `pgrig report` and `pgrig compare`, on files the
// real commands wrote (tests/data/micro, see the README there): a lio file
// reads as a suite of one lio cell, a fsync file as a suite holding only the
// fsync test, and lio_per_s is never divided by tps.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "report/claims.h"
#include "report/compare.h"
#include "report/render.h"
#include "results/reader.h"
#include "results/schemas.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kMicro = std::string(PGRIG_SOURCE_DIR) + "/tests/data/micro/";
const std::string kSuites = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";

results::Suite LoadStandalone(const std::string& path) {
  auto s = results::LoadSuite(path);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : results::Suite{};
}

nlohmann::json Doc(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(StandaloneLioTest, ReadsAsOneLioCellWithOneRun) {
  const results::Suite s = LoadStandalone(kMicro + "lio-s1-1.json");
  const nlohmann::json doc = Doc(kMicro + "lio-s1-1.json");
  EXPECT_EQ(s.schema, results::kLioResultSchema);
  EXPECT_EQ(s.label, "lio-s1-1");
  EXPECT_EQ(s.suite_id, doc["started_at"].get<std::string>() + "/lio-s1-1");
  EXPECT_EQ(s.pg_version, "15.18");
  EXPECT_EQ(s.pg_major, 15);
  EXPECT_FALSE(s.scale.has_value());
  EXPECT_THAT(s.plan_name, HasSubstr("2 tables of 256 blocks, work unit 16"));
  EXPECT_TRUE(s.facts.contains("host"));
  ASSERT_EQ(s.cells.size(), 1u);
  const results::Cell& c = s.cells[0];
  const int sessions = doc["summary"]["sessions"].get<int>();
  EXPECT_EQ(c.id,
            "lio/prepared/default/c" + std::to_string(sessions) + "/j" + std::to_string(sessions));
  EXPECT_EQ(c.metric, "lio_per_s");
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_TRUE(c.runs[0].ok);
  EXPECT_DOUBLE_EQ(c.runs[0].tps, doc["summary"]["lio_per_s"].get<double>());
  ASSERT_TRUE(c.runs[0].histogram.has_value());
  EXPECT_EQ(c.runs[0].histogram->count, doc["histogram"]["count"].get<int64_t>());
  EXPECT_FALSE(c.runs[0].transactions.has_value());
}

TEST(StandaloneLioTest, ALioFileWithoutSessionsOrHeadlineIsRefused) {
  nlohmann::json doc = Doc(kMicro + "lio-s1-1.json");
  doc["summary"].erase("sessions");
  doc["options"].erase("sessions");
  auto s = results::ParseSuiteJson(doc.dump(), "cut.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("cut.json: pgrig.lio/1 document without"));
  doc = Doc(kMicro + "lio-s1-1.json");
  doc["summary"].erase("lio_per_s");
  s = results::ParseSuiteJson(doc.dump(), "cut.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("summary.lio_per_s is missing"));
  auto unknown = results::ParseSuiteJson(R"({"schema": "pgrig.other/1"})", "o.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("\"pgrig.lio/1\", \"pgrig.fsync/1\""));
}

TEST(StandaloneFsyncTest, ReadsAsASuiteHoldingOnlyTheFsyncTest) {
  const results::Suite s = LoadStandalone(kMicro + "fsync-1.json");
  const nlohmann::json doc = Doc(kMicro + "fsync-1.json");
  EXPECT_EQ(s.schema, results::kFsyncSchema);
  EXPECT_EQ(s.label, "fsync-1");
  EXPECT_TRUE(s.cells.empty());
  EXPECT_EQ(s.pg_major, 15);
  ASSERT_TRUE(s.fsync.has_value());
  const results::FsyncRecord& f = *s.fsync;
  EXPECT_EQ(f.dir, doc["options"]["dir"]);
  EXPECT_EQ(f.best_method, doc["summary"]["best_method"]);
  EXPECT_DOUBLE_EQ(*f.best_ops_per_s, doc["summary"]["best_ops_per_s"].get<double>());
  EXPECT_EQ(f.server_method, doc["summary"]["server_wal_sync_method"]);
  ASSERT_EQ(f.tests.size(), doc["tests"].size());
  int direct = 0;
  for (size_t i = 0; i < f.tests.size(); ++i) {
    EXPECT_EQ(f.tests[i].method, doc["tests"][i]["method"]);
    EXPECT_EQ(f.tests[i].o_direct, doc["tests"][i]["o_direct"].get<bool>());
    EXPECT_EQ(f.tests[i].writers, doc["tests"][i]["writers"].get<int>());
    direct += f.tests[i].o_direct ? 1 : 0;
  }
  EXPECT_EQ(direct, 2);  // open_datasync with O_DIRECT, 1 and 2 writers
}

TEST(StandaloneReportTest, LioFigureIsLabelledLioPerSecondInEveryFormat) {
  const results::Suite s = LoadStandalone(kMicro + "lio-s1-1.json");
  auto st = Analyze(s);
  ASSERT_TRUE(st.ok());
  const std::string text = RenderReport({&*st, SuiteWarnings(*st), {}}, Format::kText);
  EXPECT_THAT(text, HasSubstr("lio/s median [95% interval]"));
  EXPECT_THAT(text, Not(HasSubstr("tps median")));
  EXPECT_THAT(text, HasSubstr(" lio/s "));
  const std::string csv = RenderReport({&*st, {}, {}}, Format::kCsv);
  EXPECT_THAT(csv, HasSubstr(",lio_per_s,,"));
  const auto j = nlohmann::json::parse(RenderReport({&*st, {}, {}}, Format::kJson));
  EXPECT_EQ(j["suite"]["schema"], results::kLioResultSchema);
  EXPECT_EQ(j["suite"]["cells"][0]["metric"], "lio_per_s");
  EXPECT_TRUE(j["suite"]["fsync"].is_null());
  const std::string html = RenderReport({&*st, {}, {}}, Format::kHtml);
  EXPECT_THAT(html, HasSubstr("lio/s median"));
  // Charts, but no transactions per USD for logical reads.
  EXPECT_THAT(html, HasSubstr("<h2>Charts</h2>"));
  EXPECT_THAT(html, Not(HasSubstr("data-chart=\"price-performance\"")));
}

TEST(StandaloneReportTest, FsyncFileShowsTheFsyncTableAndNoCellTable) {
  const results::Suite s = LoadStandalone(kMicro + "fsync-1.json");
  auto st = Analyze(s);
  ASSERT_TRUE(st.ok());
  const std::string text = RenderReport({&*st, SuiteWarnings(*st), {}}, Format::kText);
  EXPECT_THAT(text, HasSubstr("WAL flushes of " + s.fsync->dir));
  EXPECT_THAT(text, HasSubstr("best method: " + s.fsync->best_method));
  EXPECT_THAT(text, HasSubstr("open_datasync+O_DIRECT"));
  EXPECT_THAT(text, Not(HasSubstr("Cells of")));
  const auto j = nlohmann::json::parse(RenderReport({&*st, {}, {}}, Format::kJson));
  EXPECT_EQ(j["suite"]["fsync"]["tests"].size(), s.fsync->tests.size());
  EXPECT_TRUE(j["suite"]["cells"].empty());
  // No cells: no charts at all, rather than empty frames asking for a
  // price or saying "no data".
  const std::string html = RenderReport({&*st, {}, {}}, Format::kHtml);
  EXPECT_THAT(html, HasSubstr("WAL flushes of"));
  EXPECT_THAT(html, Not(HasSubstr("<h2>Charts</h2>")));
  EXPECT_THAT(html, Not(HasSubstr("Price/performance")));
  EXPECT_THAT(html, Not(HasSubstr("Bottleneck evidence")));
  // nor does the footer speak of charts
  EXPECT_THAT(html, HasSubstr("before rendering.</p>"));
  EXPECT_THAT(html, Not(HasSubstr("each chart's data")));
}

TEST(StandaloneCompareTest, TwoFsyncFilesCompareTheirFlushes) {
  const results::Suite a = LoadStandalone(kMicro + "fsync-1.json"),
                       b = LoadStandalone(kMicro + "fsync-2.json");
  auto sa = Analyze(a), sb = Analyze(b);
  ASSERT_TRUE(sa.ok() && sb.ok());
  auto c = Compare({&*sa, &*sb});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->mismatches.empty());
  ASSERT_EQ(c->cells.size(), 1u);
  EXPECT_TRUE(c->cells[0].empty());
  const std::string text = RenderComparison({&*c, {}}, Format::kText);
  EXPECT_THAT(text, HasSubstr("WAL flushes side by side"));
  const double ratio = *b.fsync->best_ops_per_s / *a.fsync->best_ops_per_s;
  EXPECT_THAT(text, HasSubstr(fmt::format("{:.3f}x", ratio)));
  EXPECT_THAT(text, Not(HasSubstr("fsync-2 against fsync-1")));  // no empty cell table
  const auto j = nlohmann::json::parse(RenderComparison({&*c, {}}, Format::kJson));
  EXPECT_EQ(j["suites"][1]["fsync"]["best_method"], b.fsync->best_method);
}

TEST(StandaloneCompareTest, TwoLioFilesCompareLioPerSecond) {
  const results::Suite a = LoadStandalone(kMicro + "lio-s1-1.json"),
                       b = LoadStandalone(kMicro + "lio-s1-2.json");
  auto sa = Analyze(a), sb = Analyze(b);
  ASSERT_TRUE(sa.ok() && sb.ok());
  auto c = Compare({&*sa, &*sb});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->mismatches.empty());  // same shape: same plan name
  ASSERT_EQ(c->cells[0].size(), 1u);
  const CellComparison& cc = c->cells[0][0];
  ASSERT_TRUE(cc.tps.ratio.has_value());
  EXPECT_NEAR(*cc.tps.ratio, b.cells[0].runs[0].tps / a.cells[0].runs[0].tps, 1e-9);
  EXPECT_EQ(cc.speed, Speed::kNotDecidable);  // one run each: no interval
  EXPECT_FALSE(cc.per_dollar_ratio.has_value());
  const std::string text = RenderComparison({&*c, {}}, Format::kText);
  EXPECT_THAT(text, HasSubstr("lio/s ratio [95% interval]"));
  // The decision table ranks the lio cells and has no rows of tps.
  ASSERT_EQ(c->decision.size(), 2u);
  ASSERT_NE(c->decision[1].best_lio, nullptr);
  EXPECT_EQ(c->decision[1].best_lio->id, b.cells[0].id);
  const size_t table = text.find("Decision table");
  ASSERT_NE(table, std::string::npos);
  const std::string decision = text.substr(table, text.find("against", table) - table);
  EXPECT_THAT(decision, HasSubstr("  lio/s "));
  EXPECT_THAT(decision, HasSubstr("(" + b.cells[0].id + ")"));
  EXPECT_THAT(decision, Not(HasSubstr("tps")));
  EXPECT_THAT(decision, Not(HasSubstr("txn per USD")));
  // The cell table has the lio ratio, its verdict and the work units'
  // latency, and no per-dollar columns, which a lio cell cannot fill.
  const std::string cells = text.substr(text.find("lio-s1-2 against"));
  EXPECT_THAT(cells, HasSubstr("verdict"));
  EXPECT_THAT(cells, HasSubstr("p99 ratio"));
  EXPECT_THAT(cells, Not(HasSubstr("per dollar")));
  EXPECT_THAT(cells, Not(HasSubstr("per USD")));
  EXPECT_THAT(cells, Not(HasSubstr("no price")));
  // The page draws what a lio file has (lio/s, latency) and leaves out the
  // frames it has nothing for: no per-second series, no host observation.
  const std::string html = RenderComparison({&*c, {}}, Format::kHtml);
  EXPECT_THAT(html, HasSubstr("data-chart=\"throughput-vs-clients\""));
  EXPECT_THAT(html, HasSubstr("data-chart=\"latency-percentiles\""));
  EXPECT_THAT(html, Not(HasSubstr("data-chart=\"throughput-over-time\"")));
  EXPECT_THAT(html, Not(HasSubstr("data-chart=\"bottleneck\"")));
  EXPECT_THAT(html, Not(HasSubstr("no data")));
  EXPECT_THAT(RenderComparison({&*c, {}}, Format::kCsv), HasSubstr(",lio_per_s,"));
  const auto j = nlohmann::json::parse(RenderComparison({&*c, {}}, Format::kJson));
  EXPECT_EQ(j["comparisons"][0]["cells"][0]["metric"], "lio_per_s");
  EXPECT_EQ(j["decision"][1]["lio_cell"], b.cells[0].id);
  EXPECT_DOUBLE_EQ(j["decision"][1]["lio_per_s"].get<double>(), b.cells[0].runs[0].tps);
  EXPECT_TRUE(j["decision"][1]["read_only_tps"].is_null());
  // A lio run of another shape is flagged as a different plan.
  results::Suite other = b;
  other.plan_name = "pgrig lio run: 4 tables of 256 blocks, work unit 255, 0% updates, client";
  auto so = Analyze(other);
  auto d = Compare({&*sa, &*so});
  ASSERT_TRUE(d.ok());
  ASSERT_FALSE(d->mismatches.empty());
  EXPECT_EQ(d->mismatches[0].kind, MismatchKind::kPlan);
}

TEST(StandaloneCompareTest, LioPerSecondIsNeverDividedByTps) {
  const results::Suite tps = LoadStandalone(kSuites + "tiny-r1"),
                       lio = LoadStandalone(kMicro + "lio-s1-1.json");
  auto st = Analyze(tps), sl = Analyze(lio);
  ASSERT_TRUE(st.ok() && sl.ok());
  for (const auto& pair :
       {std::vector<const SuiteStats*>{&*st, &*sl}, std::vector<const SuiteStats*>{&*sl, &*st}}) {
    auto c = Compare(pair);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c->cells[0].empty());
    bool metric = false;
    for (const Mismatch& m : c->mismatches) {
      EXPECT_NE(m.kind, MismatchKind::kUnmatchedCells) << m.message;
      if (m.kind == MismatchKind::kMetric) {
        metric = true;
        EXPECT_THAT(m.message, HasSubstr("never divided"));
        EXPECT_THAT(m.message, HasSubstr("lio_per_s (logical reads per second"));
        EXPECT_THAT(m.message, HasSubstr("tps (transactions per second)"));
      }
    }
    EXPECT_TRUE(metric);
    EXPECT_THAT(RenderComparison({&*c, {}}, Format::kCsv),
                Not(HasSubstr("lio/prepared")));  // no compared row
    EXPECT_THAT(RenderComparison({&*c, {}}, Format::kText),
                HasSubstr("measuring the same quantity: nothing is compared"));
  }
  // Same cell id, different metric (a tps cell named like the lio one).
  results::Suite fake = lio;
  fake.label = "fake-tps";
  fake.cells[0].metric = "tps";
  auto sf = Analyze(fake);
  auto c = Compare({&*sl, &*sf});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->cells[0].empty());
  ASSERT_EQ(c->mismatches.size(), 1u);
  EXPECT_EQ(c->mismatches[0].kind, MismatchKind::kMetric);
  EXPECT_THAT(c->mismatches[0].message, HasSubstr("1 cell(s) of fake-tps measure tps"));
  // A claim without a workload is about transactions: lio cells do not answer it.
  auto claim = CheckClaim("A is 1.0x B", {&*sl, &*sf});
  ASSERT_TRUE(claim.ok()) << claim.status().message();
  EXPECT_EQ(claim->verdict, ClaimVerdict::kUndecided);
  EXPECT_FALSE(claim->measured.has_value());
}

}  // namespace
}  // namespace pgrig::report

namespace pgrig::report {
namespace {

// A `pgrig.result/1` with a `tpcc` section (tpcc run, or a fleet's merge of
// them) reads as a NOPM run; a NOPM outside what a rate can be is refused
// with the file and the key, and a null one is a failed run with its reason.
TEST(StandaloneTpccTest, NopmIsTheHeadlineAndIsRangeChecked) {
  const std::string golden =
      std::string(PGRIG_SOURCE_DIR) + "/tests/data/results/golden/bench.json";
  nlohmann::json doc = Doc(golden);
  doc["tpcc"] = {{"metric", "nopm"}, {"nopm", 12345.5}, {"refused", nlohmann::json::array()}};
  auto s = results::ParseSuiteJson(doc.dump(), "t.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->cells.size(), 1u);
  EXPECT_EQ(s->cells[0].metric, "nopm");
  ASSERT_EQ(s->cells[0].runs.size(), 1u);
  EXPECT_DOUBLE_EQ(s->cells[0].runs[0].tps, 12345.5);
  EXPECT_TRUE(s->cells[0].runs[0].ok);

  for (double bad : {-1.0, 1e20}) {
    doc["tpcc"]["nopm"] = bad;
    auto r = results::ParseSuiteJson(doc.dump(), "t.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("t.json"));
    EXPECT_THAT(r.status().message(), HasSubstr("tpcc.nopm"));
  }
  doc["tpcc"]["nopm"] = nullptr;
  doc["tpcc"]["refused"] = {"the run was interrupted"};
  auto none = results::ParseSuiteJson(doc.dump(), "t.json");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->cells[0].runs[0].ok);
  EXPECT_EQ(none->cells[0].runs[0].error, "no NOPM: the run was interrupted");
}

// The warehouses a tpcc run measured are read with it; two runs on
// different warehouses are compared with a mismatch saying so, and a
// malformed count is refused with the file and the key.
TEST(StandaloneTpccTest, WarehousesAreReadAndDifferentOnesAreAMismatch) {
  const std::string golden =
      std::string(PGRIG_SOURCE_DIR) + "/tests/data/results/golden/bench.json";
  nlohmann::json doc = Doc(golden);
  doc["tpcc"] = {{"metric", "nopm"},
                 {"warehouses", 4},
                 {"nopm", 12345.5},
                 {"refused", nlohmann::json::array()}};
  auto four = results::ParseSuiteJson(doc.dump(), "four.json");
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->tpcc_warehouses, 4);
  doc["tpcc"]["warehouses"] = 8;
  auto eight = results::ParseSuiteJson(doc.dump(), "eight.json");
  ASSERT_TRUE(eight.ok()) << eight.status().message();

  auto s4 = Analyze(*four), s8 = Analyze(*eight), s4b = Analyze(*four);
  ASSERT_TRUE(s4.ok() && s8.ok() && s4b.ok());
  // The report says what it measured, in every format that has a header.
  EXPECT_THAT(RenderReport({&*s4, {}, {}}, Format::kText), HasSubstr(", 4 TPC-C-like warehouses"));
  EXPECT_THAT(RenderReport({&*s4, {}, {}}, Format::kHtml), HasSubstr(", 4 TPC-C-like warehouses"));
  EXPECT_EQ(nlohmann::json::parse(
                RenderReport({&*s4, {}, {}}, Format::kJson))["suite"]["tpcc_warehouses"],
            4);
  auto c = Compare({&*s4, &*s8});
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<std::string> found;
  for (const Mismatch& m : c->mismatches) {
    if (m.kind == MismatchKind::kTpccWarehouses) found.push_back(m.message);
  }
  ASSERT_EQ(found.size(), 1u);
  EXPECT_THAT(found[0], HasSubstr("eight ran on 8, four on 4"));
  EXPECT_STREQ(MismatchKindName(MismatchKind::kTpccWarehouses), "tpcc_warehouses");
  auto same = Compare({&*s4, &*s4b});
  ASSERT_TRUE(same.ok());
  for (const Mismatch& m : same->mismatches) EXPECT_NE(m.kind, MismatchKind::kTpccWarehouses);

  for (const nlohmann::json& bad :
       {nlohmann::json(0), nlohmann::json(-3), nlohmann::json(1.5), nlohmann::json("4")}) {
    doc["tpcc"]["warehouses"] = bad;
    auto r = results::ParseSuiteJson(doc.dump(), "t.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("t.json"));
    EXPECT_THAT(r.status().message(), HasSubstr("tpcc.warehouses"));
  }
  // A pgbench run has none.
  auto plain = results::ParseSuiteJson(Doc(golden).dump(), "p.json");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->tpcc_warehouses.has_value());
}

}  // namespace
}  // namespace pgrig::report
