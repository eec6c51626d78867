// Unit tests of SummarizeCell: which runs count, the CPU figures and their
// source, the bottleneck vote and the warnings.
#include "results/cell_summary.h"

#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

Run OkRun(double tps, const std::string& bottleneck = "") {
  results::Run r;
  r.tps = tps;
  r.observation.bottleneck = bottleneck;
  r.observation.bottleneck_evidence = bottleneck.empty() ? "" : "because " + bottleneck;
  return r;
}

// A run on the observed host: 2 CPUs busy 50% for 10 s (10 CPU-s), the
// client 4 CPU-s of it, 1000 transactions: 6000 us of server CPU each.
Run EstimableRun() {
  results::Run r = OkRun(100);
  r.observation.server_is_local = true;
  r.observation.host_cpus = 2;
  r.observation.host_duration_s = 10;
  r.observation.cpu_user = 0.4;
  r.observation.cpu_system = 0.1;
  r.client_cpu_s = 4;
  r.transactions = 1000;
  return r;
}

TEST(CellSummaryTest, ARunThatMeasuredNothingIsAFailedRun) {
  Cell c;
  results::Run failed = OkRun(0);
  failed.ok = false;
  failed.error = "server closed the connection";
  c.runs = {OkRun(100), OkRun(0), failed, OkRun(300)};
  const CellSummary s = SummarizeCell(c);
  EXPECT_EQ(s.tps, (std::vector<double>{100, 300}));
  EXPECT_EQ(s.runs_failed, 2);
  EXPECT_EQ(s.failures,
            (std::vector<std::string>{"measured no transactions", "server closed the connection"}));
  c.metric = "lio_per_s";
  EXPECT_EQ(SummarizeCell(c).failures[0], "measured no logical reads");
}

TEST(CellSummaryTest, ServerCpuIsMeasuredWhereARunHasItElseEstimated) {
  EXPECT_NEAR(*EstimatedServerCpuUsPerTransaction(EstimableRun()), 6000, 1e-9);
  results::Run remote = EstimableRun();
  remote.observation.server_is_local = false;
  EXPECT_FALSE(EstimatedServerCpuUsPerTransaction(remote));

  Cell c;
  c.runs = {EstimableRun(), EstimableRun()};
  CellSummary s = SummarizeCell(c);
  EXPECT_EQ(s.server_cpu_source, "estimated");
  EXPECT_NEAR(*s.server_cpu_us_per_transaction, 6000, 1e-9);

  c.runs[0].server_cpu_us_per_transaction = 50;
  c.runs[1].server_cpu_us_per_transaction = 70;
  s = SummarizeCell(c);
  EXPECT_EQ(s.server_cpu_source, "measured");
  EXPECT_DOUBLE_EQ(*s.server_cpu_us_per_transaction, 60);

  c.runs[1].server_cpu_us_per_transaction.reset();
  EXPECT_EQ(SummarizeCell(c).server_cpu_source, "mixed");

  c.runs = {OkRun(100)};
  s = SummarizeCell(c);
  EXPECT_FALSE(s.server_cpu_us_per_transaction);
  EXPECT_EQ(s.server_cpu_source, "");
}

TEST(CellSummaryTest, TheBottleneckIsTheVoteOfTheCountedRunsWithItsOwnEvidence) {
  Cell c;
  results::Run failed = OkRun(0, "wal");
  c.runs = {OkRun(1, "wal"), OkRun(1, "server_cpu"), OkRun(1, "server_cpu"), failed};
  CellSummary s = SummarizeCell(c);
  EXPECT_EQ(s.bottleneck, "server_cpu");
  EXPECT_EQ(s.bottleneck_runs, 2);
  EXPECT_EQ(s.bottleneck_evidence, "because server_cpu");
  // A tie goes to the name first in alphabetical order.
  c.runs = {OkRun(1, "wal"), OkRun(1, "io_wait")};
  EXPECT_EQ(SummarizeCell(c).bottleneck, "io_wait");
}

TEST(CellSummaryTest, ASaturatedClientNamesTheBottleneckOnlyWhenNoRunHasOne) {
  Cell c;
  results::Run saturated = OkRun(1);
  saturated.client_saturated = true;
  results::Run warned = OkRun(1);
  warned.observation.warnings = {"client saturated its CPUs (95%)"};
  c.runs = {saturated, warned, OkRun(1)};
  CellSummary s = SummarizeCell(c);
  EXPECT_TRUE(s.client_saturated);
  EXPECT_EQ(s.bottleneck, "client_cpu");
  EXPECT_EQ(s.bottleneck_runs, 2);
  c.runs.push_back(OkRun(1, "server_cpu"));
  EXPECT_EQ(SummarizeCell(c).bottleneck, "server_cpu");
}

TEST(CellSummaryTest, WarningsAreCountedByKindInTheOrderFirstSeen) {
  Cell c;
  c.runs = {OkRun(1), OkRun(1), OkRun(1)};
  c.runs[0].observation.warnings = {"steal (12%)", "shared CPUs (client and server)"};
  c.runs[2].observation.warnings = {"steal (30%)"};
  EXPECT_EQ(SummarizeCell(c).warnings,
            (std::vector<std::string>{"steal (12%) [2 of 3 runs]",
                                      "shared CPUs (client and server) [1 of 3 runs]"}));
}

TEST(CellSummaryTest, LatencyIsTheCountedRunsHistogramsMerged) {
  Cell c;
  stats::Histogram a, b, ignored;
  a.Record(1'000'000);
  b.Record(3'000'000);
  b.Record(3'000'000);
  ignored.Record(9'000'000);
  c.runs = {OkRun(1), OkRun(1), OkRun(0)};
  c.runs[0].histogram = stats::Pack(a);
  c.runs[1].histogram = stats::Pack(b);
  c.runs[2].histogram = stats::Pack(ignored);
  const CellSummary s = SummarizeCell(c);
  EXPECT_EQ(s.latency.count(), 3);
  EXPECT_EQ(s.latency.max(), 3'000'000);
  EXPECT_TRUE(s.notes.empty());
}

}  // namespace
}  // namespace pgrig::results
