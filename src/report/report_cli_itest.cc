// `pgrig report` and `pgrig compare` end to end through the executable, and
// `--to-db` against the real embedded cluster: loading is idempotent by
// suite id, refused invocations write nothing and load nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common/fs.h"
#include "pg/connection.h"
#include "report/test_suites.h"
#include "support/test_cluster.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = pgrig::testing::MakeTempHome("pgrig-report-cli");
    a_ = Write("graviton", {.label = "graviton",
                            .host = "graviton3",
                            .usd_per_hour = 0.68,
                            .seed = 71,
                            .cells = testing::StandardCells(27600, 4000, 6000)});
    b_ = Write("xeon", {.label = "xeon",
                        .host = "intel-sapphire-rapids",
                        .usd_per_hour = 0.85,
                        .seed = 72,
                        .cells = testing::StandardCells(20000, 4000, 6000)});
    // A database per test: CTest runs the tests as separate processes at
    // once, and a shared results schema was dropped under a running test.
    db_ = "report_cli_itest_" + std::to_string(::getpid());
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db_).ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db_).ok());
    const pg::ConnectionParams p = pgrig::testing::SharedParams(db_);
    conninfo_ = "host=" + p.host + " port=" + p.port + " user=" + p.user + " dbname=" + p.dbname;
    conn_ = pgrig::testing::ConnectShared(db_);
  }
  void TearDown() override {
    conn_ = pg::Connection();
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
    // MakeTempHome names <mkdtemp dir>/home: remove the mkdtemp directory.
    std::filesystem::remove_all(std::filesystem::path(dir_).parent_path());
  }
  std::string Write(const std::string& name, const testing::FixtureSuite& f) {
    const std::string d = dir_ + "/" + name + "-20261201T100000Z";
    EXPECT_TRUE(MakeDirs(d).ok());
    EXPECT_TRUE(WriteFileAtomically(d + "/suite.json", testing::MakeSuiteJson(f).dump(1)).ok());
    return d;
  }
  std::string Query(const std::string& sql) {
    auto v = conn_.QueryValue(sql);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : "";
  }

  std::string db_, dir_, a_, b_, conninfo_;
  pg::Connection conn_;
};

TEST_F(ReportCliTest, ReportPrintsTheCellTable) {
  ProcessResult r =
      pgrig::testing::RunPgrig({"report", a_, "--claim", "24,000 TPS per dollar on read-write"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("select-only/simple/default/c4/j2"));
  EXPECT_THAT(r.out, HasSubstr("txn per USD"));
  EXPECT_THAT(r.out, HasSubstr("contradicted"));
}

TEST_F(ReportCliTest, ToDbIsIdempotentBySuiteId) {
  ProcessResult first =
      pgrig::testing::RunPgrig({"report", a_, "--format", "csv", "--to-db", conninfo_});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.err, HasSubstr("loaded suite graviton-20261201T100000Z"));
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.suites"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.cells"), "6");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.runs"), "18");
  const std::string median = Query(
      "SELECT tps_median FROM pgrig_results.cells WHERE cell_id = "
      "'select-only/simple/default/c4/j2'");

  ProcessResult again = pgrig::testing::RunPgrig({"report", a_, "--to-db", conninfo_});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("replaced suite graviton-20261201T100000Z"));
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.suites"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.runs"), "18");
  EXPECT_EQ(Query("SELECT tps_median FROM pgrig_results.cells WHERE cell_id = "
                  "'select-only/simple/default/c4/j2'"),
            median);

  ASSERT_EQ(pgrig::testing::RunPgrig({"report", b_, "--to-db", conninfo_}).exit_code, 0);
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.suites"), "2");
  // History is queryable with SQL: the read-only ratio between the machines.
  const std::string ratio = Query(
      "SELECT round((a.tps_median / b.tps_median)::numeric, 1) FROM pgrig_results.cells a "
      "JOIN pgrig_results.cells b USING (cell_id) WHERE a.suite_id LIKE 'graviton%' AND "
      "b.suite_id LIKE 'xeon%' AND cell_id = 'select-only/simple/default/c2/j2'");
  EXPECT_THAT(ratio, ::testing::AnyOf("1.3", "1.4", "1.5"));
}

TEST_F(ReportCliTest, RefusedInvocationsWriteAndLoadNothing) {
  const std::string out = dir_ + "/missing-dir/report.html";
  ProcessResult r = pgrig::testing::RunPgrig({"report", a_, "--out", out, "--to-db", conninfo_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("does not exist"));
  EXPECT_EQ(Query("SELECT count(*) FROM pg_namespace WHERE nspname = 'pgrig_results'"), "0");
  ProcessResult bad = pgrig::testing::RunPgrig({"report", dir_ + "/nothing-here"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("no such file or directory"));
  ProcessResult one = pgrig::testing::RunPgrig({"compare", a_});
  EXPECT_EQ(one.exit_code, 1);
  ProcessResult prices = pgrig::testing::RunPgrig({"compare", a_, b_, "--usd-per-hour", "1"});
  EXPECT_EQ(prices.exit_code, 1);
  EXPECT_THAT(prices.err, HasSubstr("once per suite"));
}

TEST_F(ReportCliTest, CompareWritesEveryFormat) {
  for (const char* format : {"markdown", "csv", "json", "html"}) {
    const std::string out = dir_ + "/compare." + format;
    ProcessResult r = pgrig::testing::RunPgrig({"compare", b_, a_, "--format", format, "--out", out,
                                                "--claim", "B is 1.38x A on read-only"});
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    auto text = ReadWholeFile(out);
    ASSERT_TRUE(text.ok());
    EXPECT_THAT(*text, HasSubstr("select-only/simple/default/c2/j2")) << format;
    if (std::string(format) == "json") {
      const auto j = nlohmann::json::parse(*text);
      EXPECT_EQ(j["claims"][0]["verdict"], "supported");
      EXPECT_EQ(j["comparisons"][0]["other"], "graviton");
    }
  }
  ProcessResult text = pgrig::testing::RunPgrig({"compare", b_, a_});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_LT(text.out.find("No mismatches found"), text.out.find("Decision table"));
  EXPECT_THAT(text.out, HasSubstr("graviton against xeon"));
}

// Suites with no cell in common: the output says which cells are unmatched
// on each side, and the exit code (3) says nothing was compared.
TEST_F(ReportCliTest, CompareOfSuitesWithNoCellInCommonExitsThree) {
  const std::string c8 = Write(
      "c8",
      {.label = "c8", .host = "graviton3", .seed = 73, .cells = {{"select-only", 8, 2, 30000}}});
  for (const auto& [x, y] : {std::pair{a_, c8}, std::pair{c8, a_}}) {
    ProcessResult r = pgrig::testing::RunPgrig({"compare", x, y});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("nothing was compared"));
    EXPECT_THAT(r.out, HasSubstr("1 cell(s) of c8 have no match in graviton"));
    EXPECT_THAT(r.out, HasSubstr("cell(s) of graviton have no match in c8"));
  }
}

// Input issue 28 found crashing or accepted: refused with the file and the
// place, exit 1.
TEST_F(ReportCliTest, OutOfRangeAndDuplicateInputIsRefusedNamingThePlace) {
  const std::string base = *ReadWholeFile(a_ + "/suite.json");
  struct Case {
    std::string from, to, message;
  };
  // The last "tps" of the document (keys are sorted) is the last run's
  // summary.tps, the rate the reader checks.
  const size_t tps_at = base.rfind("\"tps\":");
  ASSERT_NE(tps_at, std::string::npos);
  const size_t tps_end = base.find_first_of(",}", tps_at);
  const std::string tps = base.substr(tps_at, tps_end - tps_at);
  const std::vector<Case> cases = {
      {tps, "\"tps\": 1e400", "not valid JSON: number overflow parsing '1e400'"},
      {tps, "\"tps\": -3", "summary.tps is -3: a rate must be 0"},
      {tps, "\"tps\": 1e300", "a rate must be 0 (nothing measured) or lie in [1e-06, 1e+12]"},
  };
  for (const Case& c : cases) {
    std::string text = base;
    text.replace(text.rfind(c.from), c.from.size(), c.to);
    const std::string d = dir_ + "/bad";
    std::filesystem::remove_all(d);
    ASSERT_TRUE(MakeDirs(d).ok());
    ASSERT_TRUE(WriteFileAtomically(d + "/suite.json", text).ok());
    ProcessResult r = pgrig::testing::RunPgrig({"report", d});
    EXPECT_EQ(r.exit_code, 1) << c.to << r.err;
    EXPECT_THAT(r.err, HasSubstr(d + "/suite.json")) << c.to;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.to;
  }
}

}  // namespace
}  // namespace pgrig::report
