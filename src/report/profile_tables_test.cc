// Profiles in report and compare (report/profile_tables.h).
#include "report/profile_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "results/reader.h"

namespace pgrig::report {
namespace {

using profile::Category;
using ::testing::HasSubstr;

// A profile of `n` samples per category, and top functions (self samples).
CellStats::Profiled MakeProfiled(std::map<Category, int64_t> n, std::optional<double> us,
                                 std::vector<std::pair<std::string, int64_t>> top = {}) {
  CellStats::Profiled p;
  for (const auto& [c, k] : n) {
    p.profile.category_samples[static_cast<size_t>(c)] = k;
    p.profile.samples += k;
  }
  for (const auto& [f, k] : top) {
    p.profile.top_functions.push_back({.function = f,
                                       .object = "postgres",
                                       .category = Category::kOther,
                                       .self_samples = k,
                                       .total_samples = k});
  }
  p.server_cpu_us_per_transaction = us;
  p.iteration = 2;
  return p;
}

TEST(ProfileDiff, TheGapInMicrosecondsOrdersTheCategoriesAndNamesTheLargest) {
  // A: 20 µs/txn, half locks, half executor.  B: 30 µs/txn, 60% locks
  // (18 µs), 40% executor (12 µs).  Locks explain 8 of B's extra 10 µs.
  const auto a = MakeProfiled({{Category::kLocks, 50}, {Category::kExecutor, 50}}, 20.0,
                              {{"s_lock", 40}, {"ExecScan", 30}});
  const auto b = MakeProfiled({{Category::kLocks, 60}, {Category::kExecutor, 40}}, 30.0,
                              {{"s_lock", 55}, {"hash_search", 10}});
  const ProfileDiff d = DiffProfiles("read/prepared/default/c8/j2", a, b, "arm", "x86");
  ASSERT_EQ(d.categories.size(), 2u);
  EXPECT_EQ(d.categories[0].name, "locks");
  EXPECT_NEAR(*d.categories[0].Us(), 10.0 - 18.0, 1e-9);
  EXPECT_NEAR(d.categories[0].Pp(), -10.0, 1e-9);
  EXPECT_EQ(d.categories[1].name, "executor");
  EXPECT_NEAR(*d.categories[1].Us(), 10.0 - 12.0, 1e-9);
  EXPECT_EQ(d.headline,
            "arm needs 10.0 µs less server CPU per transaction than x86 (20.0 against 30.0), 8.0 "
            "of them in locks");
  // Functions: s_lock on both sides (8.0 vs 16.5 µs), the others on one.
  ASSERT_EQ(d.functions.size(), 3u);
  EXPECT_EQ(d.functions[0].name, "s_lock (postgres)");
  EXPECT_NEAR(*d.functions[0].Us(), 8.0 - 16.5, 1e-9);
  EXPECT_EQ(d.functions[1].name, "ExecScan (postgres)");
  EXPECT_FALSE(d.functions[1].b_pct.has_value());
}

TEST(ProfileDiff, WithoutTheCpuFigureItComparesSharesAndSaysSo) {
  const auto a = MakeProfiled({{Category::kWal, 30}, {Category::kOther, 70}}, std::nullopt);
  const auto b =
      MakeProfiled({{Category::kWal, 10}, {Category::kOther, 85}, {Category::kJit, 5}}, 12.0);
  const ProfileDiff d = DiffProfiles("c", a, b, "A", "B");
  ASSERT_EQ(d.categories.size(), 3u);
  EXPECT_EQ(d.categories[0].name, "wal");  // +20 points
  EXPECT_FALSE(d.categories[0].Us().has_value());
  EXPECT_EQ(d.categories[2].name, "jit");  // -5 points, absent on A
  EXPECT_THAT(d.headline, HasSubstr("was not measured on both sides: shares only"));
}

// Two real profiled suites (tests/data/suites/profiled-r1, -r2) read back:
// the last iteration of each cell carries its profile and its stacks' path.
TEST(ProfileTables, RealSuitesReadBackWithTheirProfiles) {
  const std::string data = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";
  auto a = results::LoadSuite(data + "profiled-r1");
  auto b = results::LoadSuite(data + "profiled-r2");
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  const SuiteStats sa = *Analyze(*a), sb = *Analyze(*b);
  int profiled = 0;
  for (const CellStats& c : sa.cells) {
    ASSERT_TRUE(c.profiled.has_value()) << c.id;
    ++profiled;
    EXPECT_EQ(c.profiled->iteration, 2);
    EXPECT_GT(c.profiled->profile.samples, 1000);
    ASSERT_TRUE(c.profiled->tps_vs_unprofiled.has_value());
    EXPECT_GT(*c.profiled->tps_vs_unprofiled, 0.5);
    EXPECT_LT(*c.profiled->tps_vs_unprofiled, 2.0);
    EXPECT_TRUE(std::filesystem::exists(c.profiled->folded_path)) << c.profiled->folded_path;
  }
  EXPECT_EQ(profiled, 2);
  auto t = ProfileTable(sa);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->rows.size(), 2u);
  const Comparison c = *Compare({&sb, &sa});
  const std::vector<Table> diffs = ProfileDiffTables(c, 1);
  ASSERT_EQ(diffs.size(), 4u);  // categories and functions, two cells
  EXPECT_THAT(diffs[0].note, HasSubstr("server CPU per transaction than o2"));
  EXPECT_THAT(diffs[0].title, HasSubstr("(o1 and o2)"));
  EXPECT_GE(diffs[0].rows.size(), 5u);
}

}  // namespace
}  // namespace pgrig::report
