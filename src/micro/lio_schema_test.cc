#include "micro/lio_schema.h"

#include <gtest/gtest.h>

#include "micro/lio_run.h"

namespace pgrig::micro {
namespace {

TEST(ParseLioScale, BlocksAndSizes) {
  EXPECT_EQ(*ParseLioScale("131072"), 131072);
  EXPECT_EQ(*ParseLioScale("1GB"), 131072);
  EXPECT_EQ(*ParseLioScale("1gb"), 131072);
  EXPECT_EQ(*ParseLioScale("512MB"), 65536);
  EXPECT_EQ(*ParseLioScale("1.5GB"), 196608);
  EXPECT_EQ(*ParseLioScale("8kB"), 1);
  EXPECT_EQ(*ParseLioScale("100 blocks"), 100);
}

TEST(ParseLioScale, RefusesZeroHugeAndJunk) {
  for (const char* bad : {"0", "0MB", "4kB", "", "abc", "12XB", "-5", "1e3", "20TB"}) {
    auto r = ParseLioScale(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("--scale"), std::string::npos) << bad;
  }
  EXPECT_TRUE(ParseLioScale("16383GB").ok());
}

TEST(FitBlocksPerTable, FitsTablesAndIndexesInTheBudget) {
  // 1 GB of shared_buffers, 4 tables, 75%.
  const int64_t sb = 131072;
  auto b = FitBlocksPerTable(sb, 4);
  ASSERT_TRUE(b.ok());
  EXPECT_LE(4 * (*b + EstimatedIndexBlocks(*b)), sb * 3 / 4);
  EXPECT_GT(4 * (*b + EstimatedIndexBlocks(*b)), sb * 3 / 4 - 4 * 10);
  EXPECT_FALSE(FitBlocksPerTable(16384, 256).ok());  // 128 MB over 256 tables: < 64 blocks each
  EXPECT_FALSE(FitBlocksPerTable(sb, 0).ok());
}

TEST(EstimatedIndexBlocks, AboutOneLeafPer365Keys) {
  EXPECT_EQ(EstimatedIndexBlocks(1), 3);
  const int64_t n = 131072;
  EXPECT_NEAR(static_cast<double>(EstimatedIndexBlocks(n)), n / 365.0, 5);
}

TEST(Sql, KeyPermutationAndRanges) {
  EXPECT_EQ(LioQualifiedName(3), "pgrig_lio.t3");
  EXPECT_NE(LioLoadSql(1, 1000).find("% 1000"), std::string::npos);
  EXPECT_NE(LioSelectRangeSql(2, 255).find("BETWEEN $1 AND $1 + 254"), std::string::npos);
  EXPECT_NE(LioUpdateRangeSql(2, 8).find("BETWEEN $1 AND $1 + 7"), std::string::npos);
  EXPECT_NE(LioCreateSql(1).find("fillfactor = 10"), std::string::npos);
}

TEST(Subtract, DeltasAndWindow) {
  DbCounters a{.blks_hit = 1000,
               .blks_read = 10,
               .xact_commit = 5,
               .tup_fetched = 7,
               .tup_updated = 1,
               .at_s = 100.0};
  DbCounters b{.blks_hit = 3600,
               .blks_read = 12,
               .xact_commit = 15,
               .tup_fetched = 2607,
               .tup_updated = 9,
               .at_s = 102.5};
  auto d = Subtract(a, b);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->blks_hit, 2600);
  EXPECT_EQ(d->blks_read, 2);
  EXPECT_EQ(d->logical_reads(), 2602);
  EXPECT_EQ(d->xact_commit, 10);
  EXPECT_EQ(d->tup_fetched, 2600);
  EXPECT_EQ(d->tup_updated, 8);
  EXPECT_DOUBLE_EQ(d->window_s, 2.5);
  EXPECT_DOUBLE_EQ(PerSecond(d->logical_reads(), d->window_s), 1040.8);
  EXPECT_DOUBLE_EQ(PerSecond(5, 0), 0);
}

TEST(Subtract, ResetCountersAreAnError) {
  DbCounters a{.blks_hit = 1000, .at_s = 1};
  DbCounters b{.blks_hit = 10, .at_s = 2};
  auto d = Subtract(a, b);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("backwards"), std::string::npos);
}

TEST(ScalingSteps, AllCountsUpToEightThenPowersOfTwo) {
  EXPECT_EQ(ScalingSteps(4), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(ScalingSteps(1), (std::vector<int>{1}));
  EXPECT_EQ(ScalingSteps(24), (std::vector<int>{1, 2, 4, 8, 16, 24}));
  EXPECT_EQ(ScalingSteps(16), (std::vector<int>{1, 2, 4, 8, 16}));
}

TEST(ExpectedIndexBlocksPerRange, DescentPlusLeavesSpanned) {
  // 131072 rows, ~360 leaves: root + one or two leaves for 255 keys.
  const double e = ExpectedIndexBlocksPerRange(131072, 362, 255);
  EXPECT_GT(e, 2.0);
  EXPECT_LT(e, 3.5);
  // A one-page index: the root is the leaf.
  EXPECT_DOUBLE_EQ(ExpectedIndexBlocksPerRange(100, 2, 10), 1.0);
}

TEST(ValidateLioRun, RefusesBadInputs) {
  LioRunOptions ok;
  EXPECT_TRUE(ValidateLioRun(ok).ok());
  auto bad = [](auto mutate) {
    LioRunOptions o;
    mutate(o);
    Status s = ValidateLioRun(o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    return s.message();
  };
  EXPECT_NE(bad([](LioRunOptions& o) { o.work_unit = 0; }).find("--work-unit"), std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.duration_s = 0; }).find("--duration"), std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.duration_s = -1; }).find("--duration"), std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.sessions_per_table = 0; }).find("--sessions"),
            std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.update_pct = 101; }).find("--update-pct"),
            std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.update_work_unit = 0; }).find("--update-work-unit"),
            std::string::npos);
  EXPECT_NE(bad([](LioRunOptions& o) { o.warmup_s = -1; }).find("--warmup"), std::string::npos);
}

}  // namespace
}  // namespace pgrig::micro
