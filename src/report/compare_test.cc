// Reader, per-cell analysis, comparisons, mismatches and claims on synthetic
// suites whose truth is known (test_suites.h).
#include "report/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/claims.h"
#include "report/tables.h"
#include "report/test_suites.h"
#include "results/reader.h"
#include "results/schemas.h"

namespace pgrig::report {
namespace {

using testing::FixtureSuite;
using ::testing::HasSubstr;
using testing::MakeSuiteJson;
using testing::StandardCells;

results::Suite Read(const FixtureSuite& f) {
  auto s = results::ParseSuiteJson(MakeSuiteJson(f).dump(), f.label + "/suite.json");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : results::Suite{};
}

TEST(ReaderTest, RefusesDocumentsThatAreNotPgrigResults) {
  auto none = results::ParseSuiteJson(R"({"cells": []})", "x.json");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("x.json: no \"schema\""));
  auto future = results::ParseSuiteJson(R"({"schema": "pgrig.suite/3", "cells": []})", "y.json");
  ASSERT_FALSE(future.ok());
  EXPECT_THAT(future.status().message(),
              HasSubstr("\"pgrig.suite/3\" is not one this pgrig reads"));
  auto syntax = results::ParseSuiteJson("{\"schema\": ", "z.json");
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().message(), HasSubstr("z.json:1:12: not valid JSON"));
  auto bad_bucket = results::ParseSuiteJson(
      R"({"schema": "pgrig.result/1", "summary": {"tps": 5}, "histogram": {"count": 1, "buckets": [[1, 2]]}})",
      "h.json");
  ASSERT_FALSE(bad_bucket.ok());
  EXPECT_THAT(bad_bucket.status().message(), HasSubstr("h.json: histogram bucket [1,2]"));
}

TEST(ReaderTest, ReadsASuite) {
  FixtureSuite f{
      .label = "graviton", .usd_per_hour = 0.68, .cells = StandardCells(20000, 4000, 6000)};
  const results::Suite s = Read(f);
  EXPECT_EQ(s.schema, results::kSuiteSchema);
  EXPECT_EQ(s.label, "graviton");
  EXPECT_EQ(s.scale, 10);
  EXPECT_EQ(s.pg_major, 15);
  EXPECT_EQ(s.pg_version, "15.18");
  EXPECT_EQ(s.server_settings.at("fsync"), "on");
  ASSERT_EQ(s.cells.size(), 6u);
  EXPECT_EQ(s.cells[0].id, "select-only/simple/default/c2/j2");
  ASSERT_EQ(s.cells[0].runs.size(), 3u);
  EXPECT_TRUE(s.cells[0].runs[0].histogram.has_value());
  EXPECT_EQ(s.cells[0].runs[0].tps_series.size(), 10u);
  EXPECT_EQ(s.cells[0].runs[0].observation.bottleneck, "server_cpu");
  EXPECT_DOUBLE_EQ(*s.cells[0].runs[0].observation.cpu_user, 0.55);
  EXPECT_EQ(s.usd_per_hour, 0.68);
}

TEST(ReaderTest, ReadsASingleBenchResultAsOneCell) {
  const std::string doc = R"({"schema": "pgrig.result/1", "complete": true, "started_at": "t",
    "options": {"clients": 4, "threads": 2, "query_mode": "prepared", "scale": 10},
    "scripts": [{"spec": "select-only"}],
    "summary": {"tps": 4776.07, "duration_s": 3.0, "server_cpu_us_per_transaction": 61.5},
    "client": {"cpu_us_per_transaction": 27.35, "bottleneck": false},
    "series": {"interval_s": 1.0, "intervals": [{"end_s": 1.0, "tps": 3031.0}]},
    "facts": {"schema": "pgrig.facts/1", "host": {}, "server": {"version_num": 150018}}})";
  auto s = results::ParseSuiteJson(doc, "/tmp/r.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->cells.size(), 1u);
  EXPECT_EQ(s->cells[0].id, "select-only/prepared/default/c4/j2");
  EXPECT_EQ(s->cells[0].runs[0].tps, 4776.07);
  EXPECT_EQ(s->cells[0].runs[0].server_cpu_us_per_transaction, 61.5);
  EXPECT_EQ(s->label, "r");
  EXPECT_EQ(s->pg_major, 15);
  // A plain bench result has no observation: nothing is made up.
  EXPECT_EQ(s->cells[0].runs[0].observation.bottleneck, "");
  EXPECT_FALSE(s->cells[0].runs[0].observation.cpu_user.has_value());
}

// `pgrig fleet run`'s merged result carries the controller's observation of
// the window and the bottleneck it names, at the top of the document.
TEST(ReaderTest, ReadsTheObservationOfAFleetsMergedResult) {
  const std::string doc = R"({"schema": "pgrig.result/1", "complete": true, "started_at": "t",
    "options": {"clients": 4, "threads": 2, "query_mode": "simple", "scale": 10},
    "scripts": [{"spec": "select-only"}],
    "summary": {"tps": 9000.5, "duration_s": 3.0},
    "observation": {"host_cpus": 2, "server_is_local": true,
                    "host_mean": {"duration_s": 3.0, "cpu_user_pct": 70, "cpu_system_pct": 25}},
    "bottleneck": {"kind": "server_cpu", "evidence": "host CPU 95% busy",
                   "warnings": ["steal 12%"]},
    "fleet": {"mode": "clients", "partial": false}})";
  auto s = results::ParseSuiteJson(doc, "/tmp/merged.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->cells.size(), 1u);
  const results::Run& run = s->cells[0].runs[0];
  EXPECT_EQ(run.observation.bottleneck, "server_cpu");
  EXPECT_EQ(run.observation.bottleneck_evidence, "host CPU 95% busy");
  ASSERT_EQ(run.observation.warnings.size(), 1u);
  EXPECT_EQ(run.observation.warnings[0], "steal 12%");
  EXPECT_DOUBLE_EQ(*run.observation.cpu_user, 0.70);
  EXPECT_EQ(run.observation.host_cpus, 2);
  auto st = Analyze(*s);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->cells[0].bottleneck, "server_cpu");
  EXPECT_EQ(st->cells[0].bottleneck_evidence, "host CPU 95% busy");
}

TEST(ReaderTest, ASliverOfALastIntervalIsNotDrawnButAShortOneIs) {
  // 3 whole seconds, then 4 ms in which the clients finished: 1 transaction
  // there would draw as a collapse to 250 tps.
  auto doc = [](double last_end) {
    return R"({"schema": "pgrig.result/1", "complete": true, "started_at": "t",
      "options": {"clients": 2, "threads": 1, "query_mode": "simple", "scale": 1},
      "scripts": [{"spec": "select-only"}], "summary": {"tps": 9000, "duration_s": 3.0},
      "series": {"interval_s": 1.0, "intervals": [
        {"end_s": 1, "tps": 9000}, {"end_s": 2, "tps": 9100}, {"end_s": 3, "tps": 8900},
        {"end_s": )" +
           std::to_string(last_end) + R"(, "tps": 250}]}})";
  };
  auto sliver = results::ParseSuiteJson(doc(3.004), "/tmp/sliver.json");
  ASSERT_TRUE(sliver.ok()) << sliver.status().message();
  EXPECT_EQ(sliver->cells[0].runs[0].tps_series, (std::vector<double>{9000, 9100, 8900}));
  // Half an interval or more is a rate worth drawing.
  auto half = results::ParseSuiteJson(doc(3.6), "/tmp/half.json");
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->cells[0].runs[0].tps_series.size(), 4u);
}

TEST(ReaderTest, ReadsSuitesWrittenByTheRunnerAndTheyAreAnAaPair) {
  const std::string dir = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";
  auto r1 = results::LoadSuite(dir + "tiny-r1");
  auto r2 = results::LoadSuite(dir + "tiny-r2");
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r1->schema, results::kSuiteSchemaV1);
  EXPECT_EQ(r1->plan_name, "tiny");
  EXPECT_EQ(r1->scale, 1);
  EXPECT_EQ(r1->pg_major, 15);
  ASSERT_EQ(r1->cells.size(), 2u);
  EXPECT_EQ(r1->cells[0].id, "select-only/simple/default/c2/j2");
  ASSERT_EQ(r1->cells[0].runs.size(), 2u);
  const results::Run& run = r1->cells[0].runs[0];
  EXPECT_TRUE(run.ok);
  EXPECT_GT(run.tps, 0);
  EXPECT_TRUE(run.histogram.has_value());
  EXPECT_FALSE(run.tps_series.empty());
  EXPECT_TRUE(run.observation.cpu_user.has_value());
  EXPECT_TRUE(run.observation.server_is_local);
  EXPECT_FALSE(run.observation.bottleneck.empty());
  auto s1 = Analyze(*r1), s2 = Analyze(*r2);
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_TRUE(s1->cells[0].server_cpu_us_per_transaction.has_value());
  EXPECT_EQ(s1->cells[0].latency_ms.size(), kPercentileCount);
  // The same plan twice on the same machine: no cell may be called different.
  auto c = Compare({&*s1, &*s2});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->cells[0].size(), 2u);
  for (const CellComparison& cc : c->cells[0]) {
    EXPECT_EQ(cc.speed, Speed::kNoSignificantDifference) << cc.key;
  }
  EXPECT_TRUE(c->mismatches.empty()) << c->mismatches[0].message;
}

TEST(AnalysisTest, CellFiguresComeFromStatsAndMergedHistograms) {
  FixtureSuite f{.label = "a", .usd_per_hour = 2.0, .cells = StandardCells(20000, 4000, 6000)};
  const results::Suite s = Read(f);
  auto a = Analyze(s);
  ASSERT_TRUE(a.ok());
  const CellStats& c = a->cells[0];
  EXPECT_EQ(c.runs_ok, 3);
  EXPECT_EQ(c.kind, WorkloadKind::kReadOnly);
  const stats::Summary expect = stats::Summarize(c.tps);
  EXPECT_DOUBLE_EQ(c.tps_summary.median, expect.median);
  ASSERT_TRUE(c.tps_ci.has_value());
  EXPECT_LT(c.tps_ci->low, c.tps_summary.median);
  EXPECT_GT(c.tps_ci->high, c.tps_summary.median);
  // Latency from the merged histogram, not the average of per-run percentiles.
  stats::Histogram merged;
  for (const results::Run& r : s.cells[0].runs) merged.Add(*stats::ImportPacked(*r.histogram));
  ASSERT_EQ(c.latency_ms.size(), kPercentileCount);
  EXPECT_DOUBLE_EQ(c.latency_ms[3], merged.ValueAtPercentile(99) / 1e6);
  // Per dollar: tps x 3,600 / 2.00.
  EXPECT_DOUBLE_EQ(*c.transactions_per_usd, c.tps_summary.median * 1800);
  EXPECT_DOUBLE_EQ(c.transactions_per_usd_ci->low, c.tps_ci->low * 1800);
  EXPECT_EQ(c.bottleneck, "server_cpu");
  // Server CPU: 80% of 4 CPUs for 10 s = 32 CPU-s less the client's 30 us per
  // transaction, per transaction.
  ASSERT_TRUE(c.server_cpu_us_per_transaction.has_value());
  const double txn = static_cast<double>(*s.cells[0].runs[0].transactions);
  EXPECT_GT(*c.server_cpu_us_per_transaction, 32e6 / (txn * 1.3) - 30);
  EXPECT_EQ(c.server_cpu_source, "estimated");
  EXPECT_EQ(BestCell(*a, WorkloadKind::kReadOnly), &a->cells[1]);
}

TEST(AnalysisTest, MeasuredServerCpuWinsOverTheHostEstimate) {
  FixtureSuite f{.label = "a", .usd_per_hour = 2.0, .cells = StandardCells(20000, 4000, 6000)};
  results::Suite s = Read(f);
  ASSERT_EQ(s.cells[0].runs.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    s.cells[0].runs[i].server_cpu_us_per_transaction = 40.0 + static_cast<double>(i);
  // Cell 1: one run measured, the others estimated.
  s.cells[1].runs[0].server_cpu_us_per_transaction = 1.0;
  auto a = Analyze(s);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->cells[0].server_cpu_us_per_transaction.has_value());
  EXPECT_DOUBLE_EQ(*a->cells[0].server_cpu_us_per_transaction, 41.0);  // median of 40, 41, 42
  EXPECT_EQ(a->cells[0].server_cpu_source, "measured");
  EXPECT_EQ(a->cells[1].server_cpu_source, "mixed");
  // The cell table marks what is not measured, and says what the mark means.
  const Table t = CellTable(*a);
  const size_t server_col = 7;
  ASSERT_EQ(t.headers[server_col], "server CPU us/txn");
  EXPECT_EQ(t.rows[0][server_col], "41.0");
  EXPECT_EQ(t.rows[1][server_col].rfind("~", 0), 0u) << t.rows[1][server_col];
  EXPECT_THAT(t.note, ::testing::HasSubstr("~: server CPU estimated"));
}

TEST(CompareTest, AKnownRatioIsCalledFasterWithAnIntervalAroundIt) {
  FixtureSuite base{.label = "xeon",
                    .host = "intel-sapphire-rapids",
                    .usd_per_hour = 0.85,
                    .iterations = 5,
                    .seed = 11,
                    .cells = StandardCells(20000, 4000, 6000)};
  FixtureSuite arm{.label = "graviton",
                   .host = "graviton3",
                   .usd_per_hour = 0.68,
                   .iterations = 5,
                   .seed = 12,
                   .cells = StandardCells(27600, 4000, 6000)};
  const results::Suite sb = Read(base), sa = Read(arm);
  auto stb = Analyze(sb), sta = Analyze(sa);
  ASSERT_TRUE(stb.ok() && sta.ok());
  auto c = Compare({&*stb, &*sta});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->cells.size(), 1u);
  ASSERT_EQ(c->cells[0].size(), 6u);
  const CellComparison& ro = c->cells[0][0];
  EXPECT_EQ(ro.key, "select-only/simple/default/c2/j2");
  EXPECT_EQ(ro.speed, Speed::kFaster);
  ASSERT_TRUE(ro.tps.interval.has_value());
  EXPECT_TRUE(ro.tps.interval->Contains(1.38))
      << ro.tps.interval->low << " " << ro.tps.interval->high;
  EXPECT_EQ(ro.latency.size(), kPercentileCount);
  // Per dollar the cheaper machine gains the price ratio 0.85 / 0.68 = 1.25.
  EXPECT_NEAR(*ro.per_dollar_ratio, *ro.tps.ratio * 1.25, 1e-12);
  EXPECT_EQ(ro.per_dollar_speed, Speed::kFaster);
  // Equal medians on read-write: the word is never "faster" unless the interval excludes 1.
  for (const CellComparison& cc : c->cells[0]) {
    if (cc.speed == Speed::kFaster) {
      EXPECT_GT(cc.tps.interval->low, 1.0) << cc.key;
    }
    if (cc.speed == Speed::kNoSignificantDifference) {
      EXPECT_TRUE(cc.tps.interval->Contains(1.0));
    }
  }
  // Same plan, same scale, same server: no mismatches.
  EXPECT_TRUE(c->mismatches.empty()) << c->mismatches[0].message;
  // The decision table describes both machines from their facts.
  ASSERT_EQ(c->decision.size(), 2u);
  EXPECT_THAT(c->decision[1].architecture, HasSubstr("aarch64"));
  EXPECT_THAT(c->decision[0].architecture, HasSubstr("x86_64"));
  EXPECT_EQ(c->decision[1].read_only, &sta->cells[1]);
  EXPECT_THAT(c->decision[1].postgres, HasSubstr("LSE"));
  ASSERT_FALSE(c->facts_diff[0].empty());
  EXPECT_THAT(c->facts_diff[0][0].key, HasSubstr("cpu"));
}

TEST(CompareTest, AaSuitesShowNoSignificantDifference) {
  FixtureSuite a{.label = "run1", .seed = 21, .cells = StandardCells(20000, 4000, 6000)};
  FixtureSuite b{.label = "run2", .seed = 22, .cells = StandardCells(20000, 4000, 6000)};
  const results::Suite sa = Read(a), sb = Read(b);
  auto ta = Analyze(sa), tb = Analyze(sb);
  auto c = Compare({&*ta, &*tb});
  ASSERT_TRUE(c.ok());
  int no_diff = 0;
  for (const CellComparison& cc : c->cells[0])
    no_diff += cc.speed == Speed::kNoSignificantDifference;
  EXPECT_EQ(no_diff, 6);
}

TEST(CompareTest, MismatchesAreFound) {
  FixtureSuite a{.label = "a", .scale = 10, .cells = StandardCells(20000, 4000, 6000)};
  FixtureSuite b{
      .label = "b",
      .pg_version_num = 160004,
      .scale = 100,
      .plan_name = "quick",
      .settings = {{"fsync", "off"}, {"synchronous_commit", "on"}, {"wal_level", "replica"}},
      .client_saturated = true,
      .steal = 0.12,
      .compiler = "clang version 16.0.6",
      .configure = " '--prefix=/usr' 'CFLAGS=-O3 -march=native' '--with-llvm'",
      .cells = StandardCells(20000, 4000, 6000)};
  b.cells.push_back({"select-only", 8, 2, 30000});
  const results::Suite sa = Read(a), sb = Read(b);
  auto ta = Analyze(sa), tb = Analyze(sb);
  auto c = Compare({&*ta, &*tb});
  ASSERT_TRUE(c.ok());
  std::map<MismatchKind, std::string> seen;
  std::vector<std::string> builds;
  for (const Mismatch& m : c->mismatches) {
    seen[m.kind] = m.message;
    if (m.kind == MismatchKind::kBuild) builds.push_back(m.message);
  }
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_THAT(builds[0], HasSubstr("compiler \"clang version 16.0.6\" on b, \"gcc (Debian "
                                   "12.2.0-14) 12.2.0\" on a"));
  EXPECT_THAT(builds[1], HasSubstr("configure options only on b: CFLAGS=-O3 -march=native "
                                   "--with-llvm; only on a: --with-openssl CFLAGS=-O2"));
  EXPECT_STREQ(MismatchKindName(MismatchKind::kBuild), "postgresql_build");
  EXPECT_THAT(seen[MismatchKind::kScale], HasSubstr("b has scale 100, a has scale 10"));
  EXPECT_THAT(seen[MismatchKind::kPostgresMajor], HasSubstr("b ran 16.4, a ran 15.18"));
  EXPECT_THAT(seen[MismatchKind::kDurability], HasSubstr("fsync differs: off on b, on on a"));
  EXPECT_THAT(seen[MismatchKind::kPlan], HasSubstr("\"quick\""));
  EXPECT_THAT(seen[MismatchKind::kSaturatedClient], HasSubstr("saturated"));
  EXPECT_THAT(seen[MismatchKind::kSteal], HasSubstr("12.0% of CPU time was stolen"));
  EXPECT_THAT(seen[MismatchKind::kUnmatchedCells], HasSubstr("select-only/simple/default/c8/j2"));
}

// Cells on one side only are listed whichever order the suites come in,
// and suites with no cell in common compare nothing.
TEST(CompareTest, UnmatchedCellsAreListedInBothOrders) {
  FixtureSuite a{.label = "a", .scale = 10, .cells = StandardCells(20000, 4000, 6000)};
  FixtureSuite b{.label = "b", .scale = 10, .cells = StandardCells(20000, 4000, 6000)};
  b.cells.push_back({"select-only", 8, 2, 30000});
  const results::Suite sa = Read(a), sb = Read(b);
  auto ta = Analyze(sa), tb = Analyze(sb);
  for (const bool b_first : {false, true}) {
    auto c = b_first ? Compare({&*tb, &*ta}) : Compare({&*ta, &*tb});
    ASSERT_TRUE(c.ok());
    std::vector<std::string> unmatched;
    for (const Mismatch& m : c->mismatches) {
      if (m.kind == MismatchKind::kUnmatchedCells) unmatched.push_back(m.message);
    }
    ASSERT_EQ(unmatched.size(), 1u) << b_first;
    EXPECT_THAT(unmatched[0], HasSubstr("1 cell(s) of b have no match in a: "
                                        "select-only/simple/default/c8/j2"));
    EXPECT_TRUE(c->AnyMatched());
  }
  FixtureSuite only8{.label = "c", .scale = 10, .cells = {{"select-only", 8, 2, 30000}}};
  const results::Suite sc = Read(only8);
  auto tc = Analyze(sc);
  auto none = Compare({&*ta, &*tc});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->AnyMatched());
}

TEST(CompareTest, DisturbedRunsComeFirstAmongTheMismatches) {
  FixtureSuite a{.label = "a", .scale = 100, .cells = StandardCells(20000, 4000, 6000)};
  FixtureSuite b{.label = "b",
                 .scale = 10,
                 .disturbed_other = 0.35,
                 .cells = StandardCells(20000, 4000, 6000)};
  const results::Suite sa = Read(a), sb = Read(b);
  auto ta = Analyze(sa), tb = Analyze(sb);
  ASSERT_EQ(tb->cells.front().runs_disturbed, 3);
  auto c = Compare({&*ta, &*tb});
  ASSERT_TRUE(c.ok());
  ASSERT_GE(c->mismatches.size(), 4u);  // a disturbed line per cell, then the scale
  EXPECT_EQ(c->mismatches.front().kind, MismatchKind::kDisturbed);
  EXPECT_THAT(c->mismatches.front().message,
              HasSubstr("3 of 3 runs were disturbed: other processes took up to 35.0%"));
  EXPECT_EQ(c->mismatches.back().kind, MismatchKind::kScale);
  // Nothing is disturbed in a: no such line for it.
  for (const Mismatch& m : c->mismatches) EXPECT_EQ(m.message.rfind("a: ", 0), std::string::npos);
}

TEST(ClaimTest, RatioClaimsAreSupportedContradictedOrNotDecidable) {
  FixtureSuite a{
      .label = "graviton", .iterations = 5, .seed = 31, .cells = StandardCells(27600, 4000, 6000)};
  FixtureSuite b{
      .label = "xeon", .iterations = 5, .seed = 32, .cells = StandardCells(20000, 4000, 6000)};
  const results::Suite sa = Read(a), sb = Read(b);
  auto ta = Analyze(sa), tb = Analyze(sb);
  const std::vector<const SuiteStats*> both = {&*ta, &*tb};
  auto ok = CheckClaim("A is 1.38x B on read-only", both);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->verdict, ClaimVerdict::kSupported) << ok->basis;
  // Judged on every read-only cell (1.38x in each), not on the best alone.
  EXPECT_THAT(ok->basis, HasSubstr("each of the 2 matching cells"));
  ASSERT_EQ(ok->cells.size(), 2u);
  for (const CellClaim& cc : ok->cells) EXPECT_EQ(cc.verdict, ClaimVerdict::kSupported);
  auto peak = CheckClaim("A is 1.38x B on read-only at peak", both);
  ASSERT_TRUE(peak.ok()) << peak.status().message();
  EXPECT_THAT(peak->basis, HasSubstr("select-only/simple/default/c4/j2"));
  EXPECT_THAT(peak->basis, HasSubstr("among 2 cells"));
  ASSERT_EQ(peak->cells.size(), 1u);
  EXPECT_NEAR(peak->cells[0].confidence, 0.975, 1e-12);
  auto named = CheckClaim("A is 1.38x B in cell select-only/simple/default/c4/j2", both);
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->verdict, ClaimVerdict::kSupported) << named->basis;
  EXPECT_FALSE(CheckClaim("A is 1.38x B in cell no/such/cell", both).ok());
  auto by_label = CheckClaim("graviton is 2.5x xeon on read-only", both);
  ASSERT_TRUE(by_label.ok());
  EXPECT_EQ(by_label->verdict, ClaimVerdict::kContradicted);
  EXPECT_FALSE(CheckClaim("C is 2x A", both).ok());
  EXPECT_FALSE(CheckClaim("the moon is made of cheese", both).ok());

  FixtureSuite one_a = a, one_b = b;
  one_a.iterations = one_b.iterations = 1;
  const results::Suite s1a = Read(one_a), s1b = Read(one_b);
  auto t1a = Analyze(s1a), t1b = Analyze(s1b);
  auto undecided = CheckClaim("A is 1.38x B on read-only", {&*t1a, &*t1b});
  ASSERT_TRUE(undecided.ok());
  EXPECT_EQ(undecided->verdict, ClaimVerdict::kUndecided);
  ASSERT_FALSE(undecided->cells.empty());
  EXPECT_THAT(undecided->cells[0].reason, HasSubstr("at least 2 iterations"));
}

TEST(ClaimTest, PerDollarClaims) {
  FixtureSuite a{.label = "graviton",
                 .usd_per_hour = 1.0,
                 .iterations = 5,
                 .seed = 41,
                 .cells = StandardCells(19000, 4000, 6000)};
  const results::Suite sa = Read(a);
  auto ta = Analyze(sa);
  // Best read-only cell: c4 at 19,000 x 1.3 = 24,700 tps; at 1 USD/h the
  // published "TPS per dollar" is 24,700.  Judged on all six cells, the
  // cells disagree (only c4 is near it): undecided, with the counts.
  auto all = CheckClaim("24,700 TPS per dollar", {&*ta});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->verdict, ClaimVerdict::kUndecided) << all->basis;
  EXPECT_THAT(all->basis, HasSubstr("contradicted in 5, undecided in 1"));
  // At peak: the cell's interval (at 99.17%, for the choice among six)
  // reaches beyond +-5% of the claim: undecided, with the iterations that
  // would likely settle it.  Named, its 95% interval lies within a 20%
  // tolerance: supported.
  auto near = CheckClaim("24,700 TPS per dollar at peak", {&*ta});
  ASSERT_TRUE(near.ok()) << near.status().message();
  ASSERT_EQ(near->cells.size(), 1u);
  EXPECT_EQ(near->verdict, ClaimVerdict::kUndecided) << near->basis;
  EXPECT_THAT(near->cells[0].reason, HasSubstr("reaches beyond 24,700 +-5%"));
  EXPECT_TRUE(near->cells[0].iterations_to_decide.has_value());
  const std::string c4 = " in cell select-only/simple/default/c4/j2";
  auto ok = CheckClaim("24,700 TPS per dollar" + c4, {&*ta}, {.tolerance = 0.2});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->verdict, ClaimVerdict::kSupported)
      << ok->basis << " " << ok->interval->low << " " << ok->interval->high;
  auto rw = CheckClaim("graviton: 19,000 TPS per dollar on read-write", {&*ta});
  ASSERT_TRUE(rw.ok());
  EXPECT_EQ(rw->verdict, ClaimVerdict::kContradicted);  // read-write peaks at 4,800
  auto tx = CheckClaim("88.9M transactions per dollar" + c4, {&*ta}, {.tolerance = 0.2});
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(tx->verdict, ClaimVerdict::kSupported) << tx->basis;  // 24,700 x 3,600

  FixtureSuite unpriced = a;
  unpriced.usd_per_hour.reset();
  const results::Suite su = Read(unpriced);
  auto tu = Analyze(su);
  auto nd = CheckClaim("19,000 TPS per dollar", {&*tu});
  ASSERT_TRUE(nd.ok());
  EXPECT_EQ(nd->verdict, ClaimVerdict::kUndecided);
  EXPECT_THAT(nd->basis, HasSubstr("no price"));
}

}  // namespace
}  // namespace pgrig::report
