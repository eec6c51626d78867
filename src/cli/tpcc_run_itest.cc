// pgrig tpcc run as a user runs it, on a fresh database of the embedded
// cluster: bad options refused before anything loads or connects, a run
// without a load refused, a short run with several clients whose NOPM
// agrees with the database and whose data passes every condition, its JSON
// document, and a run over broken data that gives no NOPM.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "results/reader.h"
#include "support/test_cluster.h"

namespace pgrig::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> Plus(std::vector<std::string> args, const std::vector<std::string>& db) {
  args.insert(args.end(), db.begin(), db.end());
  return args;
}

TEST(TpccRunCli, RefusesBadOptionsThenRunsConsistentlyAndRefusesBrokenData) {
  const std::vector<std::string> db = testing::FreshDatabase("tpcc_run_itest");
  pg::Connection c = testing::ConnectShared("tpcc_run_itest");
  const std::string home = testing::MakeTempHome("tpcc-run");
  ASSERT_TRUE(MakeDirs(home).ok());
  const std::string json = home + "/run.json";
  const std::string tables =
      "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace";
  const std::string sessions =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = 'tpcc_run_itest' AND pid <> "
      "pg_backend_pid()";
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"tpcc", "run", "-c", "0"},
           {"tpcc", "run", "-c", "2", "-j", "3"},
           {"tpcc", "run", "-T", "0"},
           {"tpcc", "run", "--max-tries", "0"},
           {"tpcc", "run", "-M", "fast"},
           {"tpcc", "run", "--random-seed", "soon"},
           {"tpcc", "run", "--json", home + "/no/such/dir/x.json"},
           {"tpcc", "run", "--warmup", "-1"},
           {"tpcc", "run", "--spec-timing", "-R", "10"},
       }) {
    auto r = testing::RunPgrig(Plus(bad, db));
    EXPECT_EQ(r.exit_code, 1) << bad[2] << r.err;
    EXPECT_THAT(r.err, HasSubstr("pgrig tpcc")) << bad[2];
    EXPECT_EQ(*c.QueryValue(tables), "0") << bad[2];
    EXPECT_EQ(*c.QueryValue(sessions), "0") << bad[2];
  }
  auto unloaded = testing::RunPgrig(Plus({"tpcc", "run", "-T", "1"}, db));
  EXPECT_EQ(unloaded.exit_code, 1) << unloaded.err;
  EXPECT_THAT(unloaded.err, HasSubstr("pgrig tpcc init"));

  auto init = testing::RunPgrig(Plus({"tpcc", "init", "-w", "2", "-j", "2"}, db));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  auto no_functions = testing::RunPgrig(Plus({"tpcc", "run", "--procedures", "-T", "1"}, db));
  EXPECT_EQ(no_functions.exit_code, 1) << no_functions.err;
  EXPECT_THAT(no_functions.err, HasSubstr("pgrig tpcc init --procedures"));

  // Several clients on two warehouses: remote lines and payments happen.
  auto run = testing::RunPgrig(Plus({"tpcc", "run", "-c", "4", "-j", "2", "-T", "5", "--warmup",
                                     "1", "--random-seed", "5", "--json", json},
                                    db));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("\nNOPM: "));
  EXPECT_THAT(run.out, HasSubstr("conditions 1-4 after the run (every warehouse): hold"));
  auto text = ReadWholeFile(json);
  ASSERT_TRUE(text.ok());
  const nlohmann::json doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["schema"], "pgrig.result/1");
  EXPECT_EQ(doc["tool"]["command"], "tpcc run");
  const nlohmann::json& t = doc["tpcc"];
  EXPECT_EQ(t["metric"], "nopm");
  EXPECT_EQ(t["warehouses"], 2);
  EXPECT_GT(t["nopm"].get<double>(), 0);
  EXPECT_GT(t["tpm"].get<double>(), t["tpmc_like"].get<double>());
  EXPECT_TRUE(t["new_orders"]["agree"].get<bool>());
  const int64_t committed = t["new_orders"]["committed"];
  const int64_t database = t["new_orders"]["database"];
  EXPECT_GE(database, committed);
  EXPECT_LE(database, committed + 4);
  EXPECT_TRUE(t["consistent"].get<bool>());
  for (const char* type : {"new-order", "payment", "order-status", "delivery", "stock-level"}) {
    EXPECT_GT(t["types"][type]["transactions"].get<int64_t>(), 0) << type;
    EXPECT_GT(t["types"][type]["latency_ms"]["p99"].get<double>(), 0) << type;
    EXPECT_GE(t["types"][type]["latency_ms"]["max"].get<double>(),
              t["types"][type]["latency_ms"]["p50"].get<double>())
        << type;
  }
  EXPECT_GT(t["client_cpu_us_per_transaction"].get<double>(), 0);
  EXPECT_EQ(doc["scripts"].size(), 6u);
  EXPECT_EQ(*c.QueryValue(sessions), "0");
  // report and compare read it as a cell of its own metric, never a tps.
  auto suite = results::ParseSuiteJson(*text, json);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  ASSERT_EQ(suite->cells.size(), 1u);
  EXPECT_EQ(suite->cells[0].workload, "tpcc");
  EXPECT_EQ(suite->cells[0].metric, "nopm");
  EXPECT_DOUBLE_EQ(suite->cells[0].runs[0].tps, t["nopm"].get<double>());
  EXPECT_TRUE(suite->cells[0].runs[0].ok);
  auto report = testing::RunPgrig({"report", json});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, HasSubstr("NOPM median"));
  // Every condition holds afterwards, as `tpcc check` sees it.
  auto check = testing::RunPgrig(Plus({"tpcc", "check"}, db));
  EXPECT_EQ(check.exit_code, 0) << check.out;

  // Broken data: the run says why and gives no NOPM; its JSON has none.
  ASSERT_TRUE(c.Exec("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 2 AND d_id = 3").ok());
  auto broken = testing::RunPgrig(
      Plus({"tpcc", "run", "-c", "2", "-T", "1", "-M", "simple", "--json", json}, db));
  EXPECT_EQ(broken.exit_code, 2) << broken.out << broken.err;
  EXPECT_THAT(broken.out, HasSubstr("no NOPM: after the run, condition 1"));
  EXPECT_THAT(broken.out, Not(HasSubstr("\nNOPM: ")));
  const nlohmann::json bad = nlohmann::json::parse(*ReadWholeFile(json));
  EXPECT_TRUE(bad["tpcc"]["nopm"].is_null());
  EXPECT_FALSE(bad["tpcc"]["consistent"].get<bool>());
  auto refused = results::ParseSuiteJson(bad.dump(), json);
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  EXPECT_FALSE(refused->cells[0].runs[0].ok);
  EXPECT_THAT(refused->cells[0].runs[0].error, HasSubstr("no NOPM: after the run, condition 1"));
  (void)RemoveTree(home);
}

// Ctrl-C and SIGTERM in the middle of the window: the run stops at once,
// says it was interrupted, gives no NOPM, exits 2, leaves no connection
// behind and the data consistent.
TEST(TpccRunCli, AnInterruptedRunGivesNoFigureAndLeavesNothing) {
  const std::vector<std::string> db = testing::FreshDatabase("tpcc_run_signal_itest");
  pg::Connection c = testing::ConnectShared("tpcc_run_signal_itest");
  const std::string home = testing::MakeTempHome("tpcc-signal");
  ASSERT_TRUE(MakeDirs(home).ok());
  auto init = testing::RunPgrig(Plus({"tpcc", "init", "-w", "1"}, db));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  for (int sig : {SIGINT, SIGTERM}) {
    const std::string out = home + "/" + std::to_string(sig) + ".out";
    const pid_t pid = testing::SpawnPgrig(
        Plus({"tpcc", "run", "-c", "3", "-T", "60", "--json", out + ".json"}, db), out);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(testing::WaitForText(out, "client-side SQL", 30)) << *ReadWholeFile(out);
    ::usleep(1500 * 1000);  // into the window
    ASSERT_EQ(::kill(-pid, sig), 0);
    EXPECT_EQ(testing::WaitExit(pid, 30), 2) << sig;
    auto read = ReadWholeFile(out);
    const std::string text = read.ok() ? *read : "";
    EXPECT_THAT(text, HasSubstr("no NOPM: the run interrupted")) << text;
    EXPECT_THAT(text, HasSubstr("conditions 1-4 after the run (every warehouse): hold")) << text;
    auto json = ReadWholeFile(out + ".json");
    ASSERT_TRUE(json.ok()) << sig;
    const nlohmann::json doc = nlohmann::json::parse(*json);
    EXPECT_TRUE(doc["tpcc"]["nopm"].is_null()) << sig;
    EXPECT_EQ(doc["stop_reason"], "interrupted") << sig;
    EXPECT_EQ(*c.QueryValue("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                            "'tpcc_run_signal_itest' AND pid <> pg_backend_pid()"),
              "0");
  }
  (void)RemoveTree(home);
}

}  // namespace
}  // namespace pgrig::cli
