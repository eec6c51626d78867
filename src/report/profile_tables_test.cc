// Profiles in report and compare (report/profile_tables.h).
#include "report/profile_tables.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "report/render.h"
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
  EXPECT_EQ(d.functions[0].name, "s_lock");
  EXPECT_EQ(d.functions[0].object, "postgres");
  EXPECT_NEAR(*d.functions[0].Us(), 8.0 - 16.5, 1e-9);
  EXPECT_EQ(d.functions[1].name, "ExecScan");
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

// The rows of a CSV document, quoted fields unquoted.
std::vector<std::vector<std::string>> ParseCsvForTest(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (ch == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
    } else {
      field += ch;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

size_t ColumnOf(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The same two suites through report's and compare's JSON and CSV: every
// profiled cell's profile, and the gap per category, add up as the tables'
// figures do.
TEST(ProfileTables, JsonAndCsvCarryTheProfilesAndTheirGaps) {
  const std::string data = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";
  auto a = results::LoadSuite(data + "profiled-r1");
  auto b = results::LoadSuite(data + "profiled-r2");
  ASSERT_TRUE(a.ok() && b.ok());
  const SuiteStats sa = *Analyze(*a), sb = *Analyze(*b);

  const auto rj = nlohmann::json::parse(RenderReport({&sa, {}, {}}, Format::kJson));
  ASSERT_EQ(rj["suite"]["cells"].size(), sa.cells.size());
  for (size_t i = 0; i < sa.cells.size(); ++i) {
    const nlohmann::json& p = rj["suite"]["cells"][i]["profile"];
    ASSERT_TRUE(p.is_object()) << sa.cells[i].id;
    EXPECT_EQ(p["iteration"], 3);
    EXPECT_EQ(p["samples"], sa.cells[i].profiled->profile.samples);
    double pct = 0;
    for (const auto& c : p["categories"]) pct += c["pct"].get<double>();
    EXPECT_NEAR(pct, 100.0, 0.02);
    ASSERT_FALSE(p["top_functions"].empty());
    EXPECT_LE(p["top_functions"].size(), 10u);
    EXPECT_EQ(p["top_functions"][0]["function"],
              sa.cells[i].profiled->profile.top_functions[0].function);
    EXPECT_TRUE(std::filesystem::exists(p["folded_stacks"].get<std::string>()));
  }

  const Comparison c = *Compare({&sb, &sa});
  const std::vector<ProfileDiff> diffs = ProfileDiffs(c, 1);
  ASSERT_EQ(diffs.size(), 2u);
  const auto cj = nlohmann::json::parse(RenderComparison({&c, {}}, Format::kJson));
  const nlohmann::json& pd = cj["comparisons"][0]["profile_diffs"];
  ASSERT_EQ(pd.size(), 2u);
  for (size_t i = 0; i < pd.size(); ++i) {
    EXPECT_EQ(pd[i]["cell"], diffs[i].cell);
    EXPECT_EQ(pd[i]["headline"], diffs[i].headline);
    // The cell's throughput verdict goes with the gap, and a gap where
    // throughput does not differ says that it explains no win.
    const CellComparison* cell = nullptr;
    for (const CellComparison& m : c.cells[0]) {
      if (m.key == diffs[i].cell) cell = &m;
    }
    ASSERT_NE(cell, nullptr);
    EXPECT_EQ(pd[i]["tps_verdict"], SpeedName(cell->speed));
    EXPECT_EQ(diffs[i].headline.find("does not explain a win") != std::string::npos,
              cell->speed == Speed::kNoSignificantDifference || cell->speed == Speed::kNotDecidable)
        << diffs[i].headline;
    ASSERT_TRUE(pd[i]["other_us_per_transaction"].is_number());
    const double gap = pd[i]["other_us_per_transaction"].get<double>() -
                       pd[i]["base_us_per_transaction"].get<double>();
    double points = 0, us = 0;
    for (const auto& g : pd[i]["categories"]) {
      points += g["diff_points"].get<double>();
      us += g["diff_us_per_transaction"].get<double>();
    }
    EXPECT_NEAR(points, 0.0, 0.05);  // both sides' shares sum to 100
    EXPECT_NEAR(us, gap, 0.05);      // the categories explain the whole gap
    ASSERT_FALSE(pd[i]["functions"].empty());
    EXPECT_TRUE(pd[i]["functions"][0]["object"].is_string());
  }

  const auto rc = ParseCsvForTest(RenderReport({&sa, {}, {}}, Format::kCsv));
  ASSERT_EQ(rc.size(), 1 + sa.cells.size());
  for (size_t r = 1; r < rc.size(); ++r) {
    ASSERT_EQ(rc[r].size(), rc[0].size());
    EXPECT_EQ(rc[r][ColumnOf(rc[0], "profile_iteration")], "3");
    double pct = 0;
    for (profile::Category k : profile::kAllCategories) {
      pct += std::stod(rc[r][ColumnOf(rc[0], "profile_pct_" + std::string(CategoryKey(k)))]);
    }
    EXPECT_NEAR(pct, 100.0, 0.02);
  }
  const auto cc = ParseCsvForTest(RenderComparison({&c, {}}, Format::kCsv));
  ASSERT_EQ(cc.size(), 1 + c.cells[0].size());
  for (size_t r = 1; r < cc.size(); ++r) {
    ASSERT_EQ(cc[r].size(), cc[0].size());
    const double gap = std::stod(cc[r][ColumnOf(cc[0], "profile_other_us_per_transaction")]) -
                       std::stod(cc[r][ColumnOf(cc[0], "profile_base_us_per_transaction")]);
    double us = 0;
    for (profile::Category k : profile::kAllCategories) {
      us += std::stod(cc[r][ColumnOf(cc[0], "profile_gap_us_" + std::string(CategoryKey(k)))]);
    }
    EXPECT_NEAR(us, gap, 0.05);
  }
}

}  // namespace
}  // namespace pgrig::report
