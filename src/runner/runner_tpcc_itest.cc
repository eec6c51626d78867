// Integration test of `kind = "tpcc"` workloads in `pgrig run` plans,
// against the shared embedded cluster in a database of its own: a tiny plan
// (one warehouse, client-side SQL and stored procedures, 2 s windows) loads
// the data once, records a NOPM cell per workload with each run's tpcc
// section, and the report reads the cells as NOPM; a later suite reuses the
// load, a load that never finished is made again, and data that breaks a
// consistency condition gives a failed run with no NOPM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "report/analysis.h"
#include "results/reader.h"
#include "runner/runner_itest_util.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kTpccDb = "run_tpcc_itest";

std::string TpccPlan(bool with_procedures, int iterations) {
  std::string text =
      "[plan]\nname = \"tiny-tpcc\"\nwarmup_s = " + std::string(with_procedures ? "1" : "0") +
      "\nduration_s = 2\niterations = " + std::to_string(iterations) +
      "\n\n[[workload]]\nname = \"sql\"\nkind = \"tpcc\"\nwarehouses = 1\n"
      "clients = [3]\nthreads = [2]\n";
  if (with_procedures) {
    text +=
        "\n[[workload]]\nname = \"procs\"\nkind = \"tpcc\"\nwarehouses = 1\nprocedures = true\n"
        "clients = [2]\ncheck_warehouses = 1\n";
  }
  return text;
}

// `pgrig run` with the test database's connection options.
std::vector<std::string> TpccRunArgs(std::vector<std::string> conn,
                                     const std::vector<std::string>& more) {
  conn.insert(conn.begin(), "run");
  conn.insert(conn.end(), more.begin(), more.end());
  return conn;
}

TEST(RunTpccSuiteTest, TpccCellsGiveNopmThatAgreesWithTheDatabaseAndReuseTheLoad) {
  const std::string dir = testing::MakeTempHome("pgrig-run-tpcc-itest");
  fs::create_directories(dir);
  const std::string plan = dir + "/tiny-tpcc.toml";
  std::ofstream(plan) << TpccPlan(true, 2);
  const std::vector<std::string> conn = testing::FreshDatabase(kTpccDb);

  // --dry-run names the cells (prepared: the tpcc default) and loads nothing.
  ProcessResult dry = testing::RunPgrig(TpccRunArgs(conn, {plan, "--dry-run"}));
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("sql/prepared/default/c3/j2"));
  EXPECT_THAT(dry.out, HasSubstr("procs/prepared/default/c2/j2"));
  pg::Connection c = testing::ConnectShared(kTpccDb);
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM pg_class WHERE relname = 'tpcc_load'"), "0");

  const std::string out = dir + "/out";
  ProcessResult r = testing::RunPgrig(TpccRunArgs(conn, {plan, "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("tpcc data: loading 1 warehouses into database " + std::string(kTpccDb)));
  EXPECT_THAT(r.err, HasSubstr("pgbench's tables are not needed"));
  EXPECT_THAT(r.err, HasSubstr(" NOPM"));

  const json s = run_itest::ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], true);
  EXPECT_TRUE(s["scale"].is_null());
  // The data the cells ran on: loaded by this suite, with the functions.
  EXPECT_EQ(s["tpcc"], (json{{"warehouses", 1}, {"procedures", true}, {"loaded", true}}));
  ASSERT_EQ(s["cells"].size(), 2u);
  ASSERT_EQ(s["runs"].size(), 4u);
  for (const json& run : s["runs"]) {
    ASSERT_EQ(run["status"], "ok") << run.dump().substr(0, 3000);
    const json& res = run["result"];
    EXPECT_EQ(res["schema"], "pgrig.result/1");
    const json& t = res["tpcc"];
    ASSERT_TRUE(t.is_object());
    EXPECT_EQ(t["metric"], "nopm");
    EXPECT_EQ(t["warehouses"], 1);
    EXPECT_EQ(t["procedures"], run["cell"] == "procs/prepared/default/c2/j2");
    EXPECT_EQ(t["consistent"], true);
    EXPECT_EQ(t["new_orders"]["agree"], true);
    EXPECT_TRUE(t["refused"].empty());
    EXPECT_EQ(t["checks"]["conditions"].size(), 4u);
    // The figure is the client's count over the window, and the database
    // counted the same commits (at most one per client more).
    const double committed = t["new_orders"]["committed"].get<double>();
    ASSERT_GT(committed, 0);
    EXPECT_NEAR(t["nopm"].get<double>(), committed * 60.0 / t["window_s"].get<double>(), 1e-6);
    const int64_t db = t["new_orders"]["database"].get<int64_t>();
    EXPECT_GE(db, static_cast<int64_t>(committed));
    EXPECT_LE(db, static_cast<int64_t>(committed) + res["options"]["clients"].get<int64_t>());
    EXPECT_EQ(t["types"].size(), 6u);
    // Delivery's districts: ten per Delivery, the skipped ones counted.
    ASSERT_TRUE(t["delivery"].is_object()) << t.dump();
    EXPECT_EQ(t["delivery"]["districts"],
              10 * t["types"]["delivery"]["transactions"].get<int64_t>());
    EXPECT_GE(t["delivery"]["skipped"].get<int64_t>(), 0);
    EXPECT_LE(t["delivery"]["skipped"].get<int64_t>(), t["delivery"]["districts"].get<int64_t>());
    EXPECT_EQ(res["options"]["max_tries"], 10);
    EXPECT_EQ(res["options"]["query_mode"], "prepared");
    EXPECT_TRUE(run["observation"].is_object());
    EXPECT_THAT(run["before_run"].dump(), HasSubstr("VACUUM order_line"));
    EXPECT_THAT(run["before_run"].dump(), HasSubstr("CHECKPOINT"));
  }
  for (const json& cell : s["cells"]) {
    EXPECT_EQ(cell["kind"], "tpcc");
    EXPECT_EQ(cell["metric"], "nopm");
    const json& sum = cell["summary"];
    EXPECT_EQ(sum["runs"], 2);
    EXPECT_TRUE(sum["tps"].is_null());
    EXPECT_GT(sum["nopm"]["median"].get<double>(), 0);
    EXPECT_EQ(sum["nopm"]["samples"].size(), 2u);
    EXPECT_TRUE(sum["per_dollar"].is_null());
  }
  EXPECT_EQ(s["plan"]["parsed"]["workloads"][1]["tpcc"]["procedures"], true);
  // The procedures workload made the load with the functions.
  EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM pg_proc WHERE proname = 'tpcc_new_order'"), "1");

  auto csv = ReadWholeFile(out + "/runs.csv");
  ASSERT_TRUE(csv.ok());
  EXPECT_THAT(*csv, HasSubstr(",disturbed_other_cpu_pct,nopm\n"));
  auto md = ReadWholeFile(out + "/summary.md");
  ASSERT_TRUE(md.ok());
  EXPECT_THAT(*md, HasSubstr("| NOPM median [95% interval] |"));

  // The report module reads the cells as NOPM cells.
  auto suite = results::LoadSuite(out);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  EXPECT_EQ(suite->tpcc_warehouses, 1);
  ASSERT_EQ(suite->cells.size(), 2u);
  for (const results::Cell& cell : suite->cells) {
    EXPECT_EQ(cell.metric, "nopm");
    ASSERT_EQ(cell.runs.size(), 2u);
    for (const results::Run& run : cell.runs) EXPECT_TRUE(run.ok) << run.error;
  }
  auto stats = report::Analyze(*suite);
  ASSERT_TRUE(stats.ok());
  for (const report::CellStats& cs : stats->cells) {
    EXPECT_EQ(cs.runs_ok, 2) << cs.id;
    EXPECT_GT(cs.tps_summary.median, 0) << cs.id;
  }
  ProcessResult rep = testing::RunPgrig({"report", out});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("NOPM median"));
  EXPECT_THAT(rep.out, HasSubstr(", 1 TPC-C-like warehouses"));

  // A load that never finished (its tpcc_load row is written last) is made
  // again, not measured.
  std::ofstream(plan) << TpccPlan(false, 1);
  ASSERT_TRUE(c.Exec("DELETE FROM tpcc_load").ok());
  ProcessResult reload = testing::RunPgrig(TpccRunArgs(conn, {plan, "--out", dir + "/out2"}));
  ASSERT_EQ(reload.exit_code, 0) << reload.out << reload.err;
  EXPECT_THAT(reload.err, HasSubstr("tpcc data: loading 1 warehouses"));
  EXPECT_EQ(run_itest::ReadJson(dir + "/out2/suite.json")["tpcc"],
            (json{{"warehouses", 1}, {"procedures", false}, {"loaded", true}}));

  // Data that breaks condition 1 (W_YTD = sum(D_YTD)) gives no NOPM: the
  // run fails and says why, and the suite stops there.
  ASSERT_TRUE(c.Exec("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 1").ok());
  // The suite reuses the load, then refuses its figure.
  ProcessResult broken = testing::RunPgrig(TpccRunArgs(conn, {plan, "--out", dir + "/out3"}));
  EXPECT_EQ(broken.exit_code, 2) << broken.out << broken.err;
  EXPECT_THAT(broken.err, HasSubstr("1 warehouses already in database " + std::string(kTpccDb) +
                                    "; reusing them"));
  const json s4 = run_itest::ReadJson(dir + "/out3/suite.json");
  ASSERT_TRUE(s4.is_object());
  EXPECT_EQ(s4["complete"], false);
  // Reused, not loaded: a database that earlier runs have grown.
  EXPECT_EQ(s4["tpcc"], (json{{"warehouses", 1}, {"procedures", false}, {"loaded", false}}));
  ASSERT_EQ(s4["runs"].size(), 1u);
  const json& failed = s4["runs"][0];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_THAT(failed["error"].get<std::string>(), HasSubstr("no NOPM: after the run, condition 1"));
  EXPECT_TRUE(failed["result"]["tpcc"]["nopm"].is_null());
  EXPECT_EQ(failed["result"]["tpcc"]["consistent"], false);
  EXPECT_EQ(s4["cells"][0]["summary"]["failed_runs"], 1);
  EXPECT_TRUE(s4["cells"][0]["summary"]["nopm"].is_null());
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

}  // namespace
}  // namespace pgrig
