// `pgrig report` and `pgrig compare` on the files `pgrig lio run --json` and
// `pgrig fsync --json` write, end to end through the executable on the
// embedded cluster; and `--to-db` with the `metric` column and the fsync
// tables, including the upgrade of a results schema an older pgrig created.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "pg/connection.h"
#include "report/test_suites.h"
#include "support/test_cluster.h"

namespace pgrig::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The results schema as pgrig created it before cells and runs had `metric`
// (src/report/to_db.cc at commit 4f08934), to test the upgrade.
constexpr const char* kOldDdl = R"sql(
CREATE SCHEMA pgrig_results;
CREATE TABLE pgrig_results.suites (
  suite_id text PRIMARY KEY, label text NOT NULL, source text NOT NULL,
  document_schema text NOT NULL, started_at text, complete boolean NOT NULL, plan_name text,
  scale integer, postgresql text, usd_per_hour double precision, instance_type text,
  facts jsonb, loaded_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE pgrig_results.cells (
  suite_id text NOT NULL REFERENCES pgrig_results.suites ON DELETE CASCADE,
  cell_id text NOT NULL, workload text NOT NULL, protocol text NOT NULL, variant text NOT NULL,
  clients integer NOT NULL, threads integer NOT NULL, runs_ok integer NOT NULL,
  runs_failed integer NOT NULL, tps_median double precision, tps_min double precision,
  tps_max double precision, tps_ci95_low double precision, tps_ci95_high double precision,
  latency_ms_p50 double precision, latency_ms_p99 double precision,
  client_cpu_us_per_transaction double precision, server_cpu_us_per_transaction double precision,
  bottleneck text, transactions_per_usd double precision, PRIMARY KEY (suite_id, cell_id));
CREATE TABLE pgrig_results.runs (
  suite_id text NOT NULL, cell_id text NOT NULL, ordinal integer NOT NULL,
  iteration integer NOT NULL, ok boolean NOT NULL, error text, tps double precision,
  duration_s double precision, PRIMARY KEY (suite_id, cell_id, ordinal),
  FOREIGN KEY (suite_id, cell_id) REFERENCES pgrig_results.cells ON DELETE CASCADE);
INSERT INTO pgrig_results.suites (suite_id, label, source, document_schema, complete)
  VALUES ('old', 'old', 'old/suite.json', 'pgrig.suite/1', true);
INSERT INTO pgrig_results.cells VALUES ('old', 'select-only/simple/default/c1/j1', 'select-only',
  'simple', 'default', 1, 1, 1, 0, 1000, 1000, 1000, NULL, NULL, 0.5, 1.0, NULL, NULL, NULL, NULL);
INSERT INTO pgrig_results.runs VALUES ('old', 'select-only/simple/default/c1/j1', 0, 0, true,
  NULL, 1000, 10);
)sql";

class ReportMicroTest : public ::testing::Test {
 protected:
  // A synthetic suite of tps cells (no lio, no fsync) in directory `dir`.
  static void WriteTpsSuite(const std::string& dir) {
    ASSERT_TRUE(MakeDirs(dir).ok());
    ASSERT_TRUE(
        WriteFileAtomically(
            dir + "/suite.json",
            testing::MakeSuiteJson(
                {.label = "tps", .seed = 5, .cells = testing::StandardCells(20000, 4000, 6000)})
                .dump(1))
            .ok());
  }

  void SetUp() override {
    dir_ = pgrig::testing::MakeTempHome("pgrig-report-micro");
    ASSERT_TRUE(MakeDirs(dir_).ok());
    // A database per test process: lio tables and the results schema.
    db_ = "report_micro_itest_" + std::to_string(::getpid());
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)").ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db_).ok());
    const pg::ConnectionParams p = pgrig::testing::SharedParams(db_);
    conninfo_ = "host=" + p.host + " port=" + p.port + " user=" + p.user + " dbname=" + p.dbname;
    conn_args_ = {"-h", p.host, "-p", p.port, "-U", p.user, "-d", db_};
    conn_ = pgrig::testing::ConnectShared(db_);
    lio1_ = dir_ + "/lio-a.json";
    lio2_ = dir_ + "/lio-b.json";
    fsync1_ = dir_ + "/fsync-a.json";
    fsync2_ = dir_ + "/fsync-b.json";
  }
  void TearDown() override {
    conn_ = pg::Connection();
    pg::Connection admin = pgrig::testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
    std::filesystem::remove_all(std::filesystem::path(dir_).parent_path());
  }
  ProcessResult Pgrig(std::vector<std::string> args, bool with_conn) {
    if (with_conn) args.insert(args.end(), conn_args_.begin(), conn_args_.end());
    return pgrig::testing::RunPgrig(args, {{"PGRIG_HOME", pgrig::testing::SharedHome()}});
  }
  std::string Query(const std::string& sql) {
    auto v = conn_.QueryValue(sql);
    EXPECT_TRUE(v.ok()) << sql << ": " << v.status().message();
    return v.ok() ? *v : "";
  }
  // Two lio runs and two fsync tests by the real commands.
  void Measure() {
    ProcessResult init = Pgrig({"lio", "init", "--tables", "2", "--scale", "128"}, true);
    ASSERT_EQ(init.exit_code, 0) << init.err;
    for (const std::string& f : {lio1_, lio2_}) {
      ProcessResult r = Pgrig({"lio", "run", "--sessions", "1", "--duration", "1", "--warmup",
                               "0.2", "--work-unit", "16", "--json", f},
                              true);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const std::string dev = dir_ + "/device";
    ASSERT_TRUE(MakeDirs(dev).ok());
    for (const std::string& f : {fsync1_, fsync2_}) {
      ProcessResult r = Pgrig({"fsync", dev, "--seconds", "0.05", "--sizes", "8k", "--writers", "1",
                               "--allow-tmpfs", "--json", f},
                              true);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }

  std::string db_, dir_, conninfo_;
  std::vector<std::string> conn_args_;
  pg::Connection conn_;
  std::string lio1_, lio2_, fsync1_, fsync2_;
};

TEST_F(ReportMicroTest, LioAndFsyncFilesGoThroughReportCompareAndToDb) {
  Measure();
  if (HasFatalFailure()) return;
  auto lio_doc = nlohmann::json::parse(*ReadWholeFile(lio1_));
  const int sessions = lio_doc["summary"]["sessions"].get<int>();
  const std::string cell =
      "lio/prepared/default/c" + std::to_string(sessions) + "/j" + std::to_string(sessions);

  // report: text, csv, json, html.
  ProcessResult text = Pgrig({"report", lio1_}, false);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr(cell));
  EXPECT_THAT(text.out, HasSubstr("lio/s median [95% interval]"));
  EXPECT_THAT(text.out, Not(HasSubstr("tps median")));
  ProcessResult csv = Pgrig({"report", lio1_, "--format", "csv"}, false);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_THAT(csv.out, HasSubstr(cell));
  EXPECT_THAT(csv.out, HasSubstr(",lio_per_s,,"));
  ProcessResult json = Pgrig({"report", lio1_, "--format", "json"}, false);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto rj = nlohmann::json::parse(json.out);
  EXPECT_EQ(rj["suite"]["schema"], "pgrig.lio/1");
  EXPECT_EQ(rj["suite"]["cells"][0]["metric"], "lio_per_s");
  EXPECT_DOUBLE_EQ(rj["suite"]["cells"][0]["tps_median"].get<double>(),
                   lio_doc["summary"]["lio_per_s"].get<double>());
  const std::string html = dir_ + "/lio.html";
  ProcessResult h = Pgrig({"report", lio1_, "--format", "html", "--out", html}, false);
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_THAT(*ReadWholeFile(html), HasSubstr("lio/s median"));

  ProcessResult ftext = Pgrig({"report", fsync1_}, false);
  ASSERT_EQ(ftext.exit_code, 0) << ftext.err;
  EXPECT_THAT(ftext.out, HasSubstr("WAL flushes of " + dir_ + "/device"));
  // A best method only when significantly best; else the leader.
  const auto fsync_doc = nlohmann::json::parse(*ReadWholeFile(fsync1_));
  EXPECT_THAT(ftext.out, HasSubstr(fsync_doc["summary"]["best_method"].is_string()
                                       ? "best method: "
                                       : "no method is significantly best (leading: "));
  EXPECT_THAT(ftext.out, Not(HasSubstr("Cells of")));
  ProcessResult fjson = Pgrig({"report", fsync1_, "--format", "json"}, false);
  ASSERT_EQ(fjson.exit_code, 0) << fjson.err;
  const auto fdoc = nlohmann::json::parse(*ReadWholeFile(fsync1_));
  EXPECT_EQ(nlohmann::json::parse(fjson.out)["suite"]["fsync"]["tests"].size(),
            fdoc["tests"].size());

  // compare: two lio runs; two fsync tests; lio against tps kept apart.
  ProcessResult cl = Pgrig({"compare", lio1_, lio2_}, false);
  ASSERT_EQ(cl.exit_code, 0) << cl.err;
  EXPECT_THAT(cl.out, HasSubstr("lio-b against lio-a"));
  EXPECT_THAT(cl.out, HasSubstr("lio/s ratio [95% interval]"));
  ProcessResult cf = Pgrig({"compare", fsync1_, fsync2_, "--format", "json"}, false);
  ASSERT_EQ(cf.exit_code, 0) << cf.err;
  const auto cfj = nlohmann::json::parse(cf.out);
  EXPECT_TRUE(cfj["suites"][0]["fsync"].contains("best_ops_per_s"));
  EXPECT_TRUE(cfj["suites"][1]["fsync"].contains("best_ops_per_s"));
  ProcessResult cft = Pgrig({"compare", fsync1_, fsync2_}, false);
  ASSERT_EQ(cft.exit_code, 0) << cft.err;
  EXPECT_THAT(cft.out, HasSubstr("WAL flushes side by side"));
  const std::string tps = dir_ + "/tps-20261201T100000Z";
  ASSERT_NO_FATAL_FAILURE(WriteTpsSuite(tps));
  // tps cells against a lio cell: nothing is compared, which exit 3 says.
  ProcessResult mixed = Pgrig({"compare", tps, lio1_, "--format", "json"}, false);
  ASSERT_EQ(mixed.exit_code, 3) << mixed.err;
  EXPECT_THAT(mixed.err, HasSubstr("nothing was compared"));
  const auto mj = nlohmann::json::parse(mixed.out);
  EXPECT_TRUE(mj["comparisons"][0]["cells"].empty());
  bool metric = false;
  for (const auto& m : mj["mismatches"]) {
    if (m["kind"] == "metric") {
      metric = true;
      EXPECT_THAT(m["message"].get<std::string>(), HasSubstr("never divided"));
      EXPECT_THAT(m["message"].get<std::string>(), HasSubstr("tps (transactions per second)"));
    }
  }
  EXPECT_TRUE(metric) << mixed.out;

  // --to-db: metric on cells and runs, the fsync test in fsync and fsync_tests.
  ProcessResult l = Pgrig({"report", lio1_, "--format", "csv", "--to-db", conninfo_}, false);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  ProcessResult f = Pgrig({"report", fsync1_, "--format", "csv", "--to-db", conninfo_}, false);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_THAT(f.err, Not(HasSubstr("NOTICE")));
  EXPECT_THAT(f.err, HasSubstr("0 cells, 0 runs, " + std::to_string(fdoc["tests"].size()) +
                               " fsync tests"));
  EXPECT_EQ(Query("SELECT metric FROM pgrig_results.cells"), "lio_per_s");
  EXPECT_EQ(Query("SELECT string_agg(DISTINCT metric, ',') FROM pgrig_results.runs"), "lio_per_s");
  EXPECT_EQ(Query("SELECT tps = " + lio_doc["summary"]["lio_per_s"].dump() +
                  "::float8 FROM pgrig_results.runs"),
            "t");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.fsync_tests"),
            std::to_string(fdoc["tests"].size()));
  EXPECT_EQ(Query("SELECT dir FROM pgrig_results.fsync"), dir_ + "/device");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.fsync_tests WHERE o_direct"), "1");
  EXPECT_EQ(Query("SELECT coalesce(best_method, '') FROM pgrig_results.fsync"),
            fdoc["summary"]["best_method"].is_string()
                ? fdoc["summary"]["best_method"].get<std::string>()
                : std::string());
  // Loading again replaces, and the fsync rows follow their suite.
  ProcessResult again = Pgrig({"report", fsync1_, "--format", "csv", "--to-db", conninfo_}, false);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("replaced suite"));
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.fsync_tests"),
            std::to_string(fdoc["tests"].size()));
}

TEST_F(ReportMicroTest, ToDbUpgradesASchemaWithoutTheMetricColumn) {
  ASSERT_TRUE(conn_.Exec(kOldDdl).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM information_schema.columns WHERE table_schema = "
                  "'pgrig_results' AND column_name = 'metric'"),
            "0");
  const std::string tps = dir_ + "/tps-20261201T100000Z";
  ASSERT_NO_FATAL_FAILURE(WriteTpsSuite(tps));
  ProcessResult r = Pgrig({"report", tps, "--format", "csv", "--to-db", conninfo_}, false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* table : {"cells", "runs"}) {
    const std::string where =
        std::string("table_schema = 'pgrig_results' AND table_name = '") + table + "'";
    EXPECT_EQ(Query("SELECT is_nullable || ':' || coalesce(column_default, 'none') FROM "
                    "information_schema.columns WHERE column_name = 'metric' AND " +
                    where),
              "NO:none")
        << table;
    // The old rows read 'tps'; the new ones carry theirs.
    EXPECT_EQ(
        Query(std::string("SELECT metric FROM pgrig_results.") + table + " WHERE suite_id = 'old'"),
        "tps")
        << table;
    EXPECT_EQ(Query(std::string("SELECT count(*) FROM pgrig_results.") + table +
                    " WHERE suite_id <> 'old' AND metric = 'tps'"),
              Query(std::string("SELECT count(*) FROM pgrig_results.") + table +
                    " WHERE suite_id <> 'old'"))
        << table;
  }
  EXPECT_NE(Query("SELECT count(*) FROM pgrig_results.cells WHERE suite_id <> 'old'"), "0");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.suites"), "2");
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.fsync_tests"), "0");
  // suites gained tpcc_warehouses; no suite here ran tpcc cells.
  EXPECT_EQ(Query("SELECT count(*) FROM pgrig_results.suites WHERE tpcc_warehouses IS NULL"), "2");
}

// A `tpcc run` document's warehouses land in suites.tpcc_warehouses, beside
// its NOPM cell; loading it again replaces the row.
TEST_F(ReportMicroTest, ToDbStoresTheTpccWarehouses) {
  nlohmann::json doc = nlohmann::json::parse(
      ReadWholeFile(std::string(PGRIG_SOURCE_DIR) + "/tests/data/results/golden/bench.json")
          .value());
  doc["tpcc"] = {{"metric", "nopm"},
                 {"warehouses", 4},
                 {"nopm", 12345.5},
                 {"refused", nlohmann::json::array()}};
  const std::string file = dir_ + "/tpcc.json";
  ASSERT_TRUE(WriteFileAtomically(file, doc.dump()).ok());
  for (int i = 0; i < 2; ++i) {
    ProcessResult r = Pgrig({"report", file, "--to-db", conninfo_}, false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(Query("SELECT string_agg(tpcc_warehouses || ':' || scale, ',') FROM "
                  "pgrig_results.suites"),
            "4:" + std::to_string(doc["options"]["scale"].get<int>()));
  EXPECT_EQ(Query("SELECT metric || ':' || tps_median FROM pgrig_results.cells"), "nopm:12345.5");
}

}  // namespace
}  // namespace pgrig::report
