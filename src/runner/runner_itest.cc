// Integration tests of `pgrig run` (runner/runner.h) against the shared
// embedded cluster, each test in a database of its own: a short real suite
// and its results directory, resume after SIGINT, server settings restored
// after a failed run, and invocations refused before anything happens.  On
// a private cluster (SettingsRecordTest): server settings left by a suite
// that SIGKILL or SIGTERM ended, restored by the next command.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/fs.h"
#include "common/strings.h"
#include "runner/runner_itest_util.h"
#include "runner/server_settings.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

using run_itest::ReadJson;
using run_itest::SmallTmpfs;
using run_itest::TempDir;
using run_itest::Text;
using run_itest::TinyPlan;
using run_itest::WaitForFirstRun;
using run_itest::WriteText;

std::vector<std::string> Args(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.begin(), "run");
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

using testing::SpawnPgrig;
using testing::WaitExit;

std::string Show(const std::string& db, const std::string& name) {
  auto c = pg::Connect(testing::SharedParams(db));
  if (!c.ok()) return "";
  auto r = c->Exec("SHOW " + name);
  return r.ok() ? std::string(r->Get(0, 0)) : "";
}

TEST(RunSuiteTest, ShortSuiteWritesEveryRunAndCellSummaries) {
  const std::string dir = TempDir();
  const std::string plan = dir + "/tiny.toml";
  const std::string text = TinyPlan(1, 2, "warmup_s = 1\n");
  WriteText(plan, text);
  const std::string out = dir + "/out";
  ProcessResult r =
      testing::RunPgrig(Args(testing::FreshDatabase("run_itest_suite"), {plan, "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("scale 1 from plan 'tiny'"));
  EXPECT_THAT(r.err, HasSubstr("loading scale 1"));
  EXPECT_THAT(r.out, HasSubstr("read/simple/default/c2/j1"));
  EXPECT_THAT(r.out, HasSubstr("results in " + out));

  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["schema"], "pgrig.suite/2");
  for (const char* k : {"tool",       "command_line", "label",       "started_at", "ended_at",
                        "resumed_at", "complete",     "stop_reason", "wall_s",     "cpus",
                        "plan",       "target",       "scale",       "facts",      "settings",
                        "price",      "iterations",   "cells",       "runs",       "notes"}) {
    EXPECT_TRUE(s.contains(k)) << k;
  }
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["stop_reason"], "completed");
  EXPECT_EQ(s["plan"]["source_text"], text);
  EXPECT_EQ(s["plan"]["parsed"]["iterations"], 2);
  EXPECT_EQ(s["scale"]["value"], 1);
  EXPECT_EQ(s["scale"]["loaded"], true);
  EXPECT_EQ(s["facts"]["schema"], "pgrig.facts/1");
  // Taken after the load: scale 1's tables (about 22 MB), not an empty
  // database (about 7.5 MB).
  EXPECT_GT(s["facts"]["server"]["database_size_bytes"].get<int64_t>(), 15'000'000)
      << s["facts"]["server"].dump();
  ASSERT_EQ(s["cells"].size(), 2u);
  ASSERT_EQ(s["runs"].size(), 4u);

  std::map<std::string, int64_t> histogram_counts;
  std::set<std::pair<std::string, int>> pairs;
  for (const json& run : s["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const json& res = run["result"];
    EXPECT_EQ(res["schema"], "pgrig.result/1");
    EXPECT_EQ(res["tool"]["command"], "run");
    EXPECT_EQ(res["options"]["duration_s"], 1);
    EXPECT_EQ(res["options"]["clients"], 2);
    EXPECT_GT(res["summary"]["tps"].get<double>(), 0);
    EXPECT_EQ(res["histogram"]["count"], res["summary"]["transactions"]);
    EXPECT_FALSE(res["series"]["intervals"].empty());
    // The embedded cluster is local: its CPU over the window is measured.
    EXPECT_TRUE(res["server_cpu_unavailable"].is_null()) << res["server_cpu_unavailable"];
    EXPECT_GT(res["summary"]["server_cpu_us_per_transaction"].get<double>(), 0);
    EXPECT_TRUE(run["observation"]["host"].is_array());
    EXPECT_TRUE(run["bottleneck"]["kind"].is_string());
    EXPECT_EQ(run["warmup_s"], 1);
    EXPECT_THAT(run["before_run"].dump(), HasSubstr("CHECKPOINT"));
    const bool writes = run["cell"].get<std::string>().rfind("write/", 0) == 0;
    EXPECT_EQ(run["before_run"].dump().find("VACUUM") != std::string::npos, writes) << run["cell"];
    histogram_counts[run["cell"].get<std::string>()] += res["histogram"]["count"].get<int64_t>();
    pairs.insert({run["cell"].get<std::string>(), run["iteration"].get<int>()});
  }
  EXPECT_EQ(pairs.size(), 4u);
  // Interleaved, rotated: the second iteration starts with the other cell.
  EXPECT_NE(s["runs"][0]["cell"], s["runs"][2]["cell"]);
  EXPECT_EQ(s["runs"][0]["cell"], s["runs"][3]["cell"]);

  for (const json& c : s["cells"]) {
    const json& sum = c["summary"];
    EXPECT_EQ(sum["runs"], 2);
    const json& tps = sum["tps"];
    EXPECT_LE(tps["min"].get<double>(), tps["median"].get<double>());
    EXPECT_LE(tps["median"].get<double>(), tps["max"].get<double>());
    EXPECT_EQ(tps["samples"].size(), 2u);
    EXPECT_LT(tps["ci95_low"].get<double>(), tps["ci95_high"].get<double>());
    // Percentiles come from the merged histograms of the cell's runs.
    EXPECT_EQ(sum["latency_ms"]["transactions"], histogram_counts[c["id"].get<std::string>()]);
    EXPECT_LE(sum["latency_ms"]["p50"].get<double>(), sum["latency_ms"]["p99"].get<double>());
    EXPECT_TRUE(sum["bottleneck"]["kind"].is_string());
    EXPECT_TRUE(sum["client_cpu_us_per_transaction"].is_number());
    // The median of the runs' measured server CPU, which every run has here.
    ASSERT_TRUE(sum["server_cpu_us_per_transaction"].is_number()) << sum.dump();
    EXPECT_GT(sum["server_cpu_us_per_transaction"].get<double>(), 0);
  }

  auto csv = ReadWholeFile(out + "/runs.csv");
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(std::count(csv->begin(), csv->end(), '\n'), 5);
  EXPECT_EQ(csv->rfind("run,cell,workload,", 0), 0u);
  // The run's measured server CPU: a number on every line; the disturbed
  // figure empty or a number; the last column, a tpcc run's NOPM, empty.
  const std::vector<std::string> lines = Split(*csv, '\n');
  const std::vector<std::string> header = Split(lines[0], ',');
  ASSERT_GE(header.size(), 3u);
  ASSERT_EQ(header[header.size() - 3], "server_cpu_us_per_transaction");
  ASSERT_EQ(header[header.size() - 2], "disturbed_other_cpu_pct");
  ASSERT_EQ(header.back(), "nopm");
  for (size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) {
    const std::vector<std::string> f = Split(lines[i], ',');
    ASSERT_EQ(f.size(), header.size()) << lines[i];
    EXPECT_GT(std::atof(f[f.size() - 3].c_str()), 0) << lines[i];
    const std::string& disturbed = f[f.size() - 2];
    EXPECT_TRUE(disturbed.empty() || std::atof(disturbed.c_str()) > 0) << lines[i];
    EXPECT_TRUE(f.back().empty()) << lines[i];
  }
  auto md = ReadWholeFile(out + "/summary.md");
  ASSERT_TRUE(md.ok());
  EXPECT_THAT(*md, HasSubstr("| write/simple/default/c2/j1 | 2 |"));
  EXPECT_THAT(*md, HasSubstr("| client CPU us/txn | server CPU us/txn |"));
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

// profile = true: the last iteration of each cell is profiled with perf
// (docs/profiles.md), its folded stacks under profiles/; the others not.
TEST(RunSuiteTest, ProfiledPlanProfilesTheLastIterationOfEachCell) {
  const std::string dir = TempDir();
  const std::string plan = dir + "/tiny.toml";
  WriteText(plan, TinyPlan(2, 2, "profile = true\n"));
  const std::string out = dir + "/out";
  ProcessResult r =
      testing::RunPgrig(Args(testing::FreshDatabase("run_itest_profile"), {plan, "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["plan"]["parsed"]["profile"], true);
  ASSERT_EQ(s["runs"].size(), 4u);
  int profiled = 0;
  for (const json& run : s["runs"]) {
    const json& result = run["result"];
    if (run["iteration"] == 0) {
      EXPECT_FALSE(result.contains("server_profile")) << run["cell"];
      continue;
    }
    ++profiled;
    ASSERT_TRUE(result.contains("server_profile")) << run["cell"];
    const json& p = result["server_profile"];
    ASSERT_FALSE(p.contains("unavailable")) << p.dump();
    EXPECT_GT(p["samples"].get<int64_t>(), 50) << p.dump();
    EXPECT_TRUE(p["server_binary"]["frame_pointers"].is_string()) << p.dump();
    int64_t sum = 0;
    for (const json& c : p["categories"]) sum += c["samples"].get<int64_t>();
    EXPECT_EQ(sum, p["samples"].get<int64_t>());
    const std::string folded = p["folded_stacks_file"].get<std::string>();
    EXPECT_EQ(folded, "profiles/run-" + std::to_string(run["run"].get<int>()) + ".folded");
    EXPECT_THAT(Text(out + "/" + folded), HasSubstr(";PostgresMain;"));
    EXPECT_THAT(run["notes"].dump(), HasSubstr("profiled with perf"));
    // simple-update writes: its profile sees WAL.
    if (run["cell"].get<std::string>().starts_with("write/")) {
      EXPECT_THAT(Text(out + "/" + folded), HasSubstr("XLogInsert"));
    }
  }
  EXPECT_EQ(profiled, 2);
  // report and compare read the profiles back.
  ProcessResult rep = testing::RunPgrig({"report", out});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("Server profiles (perf, one profiled run per cell"));
  EXPECT_THAT(rep.out, HasSubstr("read/simple/default/c2/j1"));
  ProcessResult cmp = testing::RunPgrig({"compare", out, out});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("Where the server's CPU differs: read/simple/default/c2/j1"));
  EXPECT_THAT(cmp.out, HasSubstr("Where the server's CPU differs: write/simple/default/c2/j1"));
  EXPECT_THAT(cmp.out, HasSubstr("need the same server CPU per transaction"));
}

TEST(RunSuiteTest, ResumeAfterSigintRunsOnlyTheMissingRuns) {
  const std::string dir = TempDir();
  const std::string plan = dir + "/tiny.toml";
  WriteText(plan, TinyPlan(2, 2));
  const std::string out = dir + "/out";
  const std::vector<std::string> conn = testing::FreshDatabase("run_itest_resume");
  pid_t pid = SpawnPgrig(Args(conn, {plan, "--out", out}), dir + "/1.out", dir + "/1.err");
  ASSERT_GT(pid, 0);
  // SIGINT once the first run is in suite.json (the second is then running).
  ASSERT_TRUE(WaitForFirstRun(out + "/suite.json"));
  kill(pid, SIGINT);
  EXPECT_EQ(WaitExit(pid, 60), 2) << Text(dir + "/1.err");
  json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], false);
  EXPECT_EQ(s["stop_reason"], "interrupted");
  const size_t kept = s["runs"].size();
  EXPECT_GE(kept, 1u);
  EXPECT_LT(kept, 4u);
  for (const json& run : s["runs"]) EXPECT_EQ(run["status"], "ok");
  EXPECT_THAT(Text(dir + "/1.out"), HasSubstr("pgrig run --resume " + out));

  ProcessResult r = testing::RunPgrig(Args(conn, {"--resume", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("reusing them"));
  s = ReadJson(out + "/suite.json");
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["resumed_at"].size(), 1u);
  std::map<std::pair<std::string, int>, int> seen;
  for (const json& run : s["runs"]) {
    EXPECT_EQ(run["status"], "ok");
    ++seen[{run["cell"].get<std::string>(), run["iteration"].get<int>()}];
  }
  EXPECT_EQ(s["runs"].size(), 4u);
  EXPECT_EQ(seen.size(), 4u);
  for (const auto& [k, n] : seen) EXPECT_EQ(n, 1) << k.first << " " << k.second;
  for (const json& c : s["cells"]) EXPECT_EQ(c["summary"]["runs"], 2);
  // A finished suite cannot be resumed again.
  ProcessResult again = testing::RunPgrig(Args(conn, {"--resume", out}));
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("complete"));
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

TEST(RunSuiteTest, ServerSettingsRestoredAfterAFailedRun) {
  const std::string db = "run_itest_settings";
  const std::vector<std::string> conn = testing::FreshDatabase(db);
  const std::string original = Show(db, "checkpoint_completion_target");
  ASSERT_FALSE(original.empty());
  const std::string wanted = original == "0.7" ? "0.8" : "0.7";
  const std::string dir = TempDir();
  WriteText(dir + "/divzero.sql", "SELECT 1/0;\n");
  const std::string plan = dir + "/failing.toml";
  WriteText(
      plan,
      TinyPlan(1, 2,
               "settings = { checkpoint_completion_target = \"" + wanted + "\", jit = \"off\" }\n",
               "\n[[workload]]\nname = \"broken\"\nfile = \"divzero.sql\"\nwrites = false\n"));
  const std::string out = dir + "/out";
  ProcessResult r = testing::RunPgrig(Args(conn, {plan, "--out", out, "--on-error", "stop"}));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(Show(db, "checkpoint_completion_target"), original);
  EXPECT_FALSE(fs::exists(out + "/settings-restore-pending.json"));
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], false);
  EXPECT_EQ(s["stop_reason"], "run_failed");
  EXPECT_EQ(s["settings"]["restored"], true);
  ASSERT_EQ(s["runs"].size(), 3u);  // read, write, then broken fails and the suite stops
  EXPECT_EQ(s["runs"][0]["server_settings"]["checkpoint_completion_target"], wanted);
  EXPECT_EQ(s["cells"][0]["settings"]["per_connection"]["jit"], "off");
  EXPECT_EQ(s["runs"][2]["status"], "failed");
  EXPECT_THAT(s["runs"][2]["error"].get<std::string>(), HasSubstr("division by zero"));
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

TEST(RunSuiteTest, ServerDeathFailsTheRunAndOnErrorContinueGoesOn) {
  const std::string home = testing::MakeTempHome("pgrig-run-fault");
  auto opened = cluster::Cluster::Open({.home = home});
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  cluster::Cluster c = std::move(opened).value();
  ASSERT_TRUE(c.Start().ok());
  const pg::ConnectionParams p = c.Params("pgrig");
  const std::string dir = fs::path(home).parent_path().string() + "/files";
  fs::create_directories(dir);
  const std::string plan = dir + "/tiny.toml";
  WriteText(plan, TinyPlan(3, 2));
  const std::string out = dir + "/out";
  std::vector<std::string> args = {"run", plan,   "--out", out,    "--on-error", "continue",
                                   "-h",  p.host, "-p",    p.port, "-d",         "pgrig"};
  if (!p.user.empty()) args.insert(args.end(), {"-U", p.user});
  pid_t pid = SpawnPgrig(args, dir + "/1.out", dir + "/1.err");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitForFirstRun(out + "/suite.json"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into the second run
  auto pm = c.RunningPid();
  ASSERT_TRUE(pm.has_value());
  kill(*pm, SIGQUIT);  // what pg_ctl stop -m immediate sends
  EXPECT_EQ(WaitExit(pid, 90), 2) << Text(dir + "/1.err");
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], false);
  EXPECT_EQ(s["stop_reason"], "run_failed");
  // --on-error continue: every remaining run was tried and recorded as failed.
  ASSERT_EQ(s["runs"].size(), 4u) << s["runs"].dump();
  EXPECT_EQ(s["runs"][0]["status"], "ok");
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(s["runs"][i]["status"], "failed");
    EXPECT_FALSE(s["runs"][i]["error"].get<std::string>().empty());
  }
  EXPECT_THAT(Text(dir + "/1.out"), HasSubstr("3 failed"));
  (void)c.Destroy();
  std::error_code ec;
  fs::remove_all(fs::path(home).parent_path(), ec);
}

TEST(RunSuiteTest, AFullDiskDuringTheSuiteExitsTwoAndResumeCompletesIt) {
  const std::string dir = TempDir();
  SmallTmpfs disk(dir + "/disk");
  if (!disk.mounted) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  const std::string plan = dir + "/tiny.toml";
  WriteText(plan, TinyPlan(2, 2));
  const std::string out = disk.dir + "/out";
  const std::vector<std::string> conn = testing::FreshDatabase("run_itest_full_disk");
  const pid_t pid = SpawnPgrig(Args(conn, {plan, "--out", out}), dir + "/1.out", dir + "/1.err");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitForFirstRun(out + "/suite.json")) << Text(dir + "/1.err");
  disk.Fill();  // the next write of the results fails
  EXPECT_EQ(WaitExit(pid, 120), 2) << Text(dir + "/1.out") << Text(dir + "/1.err");
  EXPECT_THAT(Text(dir + "/1.out"), HasSubstr("could not write the results"));
  // What was written before stays whole (atomic rewrites).
  json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], false);
  EXPECT_GE(s["runs"].size(), 1u);

  disk.Unfill();
  ProcessResult r = testing::RunPgrig(Args(conn, {"--resume", out}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  s = ReadJson(out + "/suite.json");
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["runs"].size(), 4u);
}

TEST(RunSuiteTest, ClientsBeyondMaxConnectionsAreRefusedBeforeTheDataLoad) {
  const std::string dir = TempDir();
  const std::string plan = dir + "/many.toml";
  WriteText(plan,
            "[plan]\nname = \"many\"\nscale = 1\nclients = [2, 1500]\nthreads = [1]\n"
            "duration_s = 1\niterations = 1\n\n[[workload]]\nname = \"read\"\n"
            "builtin = \"select-only\"\n");
  const std::string db = "run_itest_many_clients";
  const std::vector<std::string> conn = testing::FreshDatabase(db);
  ProcessResult r = testing::RunPgrig(Args(conn, {plan, "--out", dir + "/out"}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("cell read/simple/default/c1500/j1 needs 1500 client connections"));
  EXPECT_THAT(r.err, HasSubstr("max_connections"));
  EXPECT_FALSE(fs::exists(dir + "/out"));
  auto c = pg::Connect(testing::SharedParams(db));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(
      c->QueryValue("SELECT count(*) FROM pg_class WHERE relname = 'pgbench_accounts'").value(),
      "0");  // nothing was loaded
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

TEST(RunSuiteTest, BadInvocationsAreRefusedBeforeAnythingHappens) {
  const std::string dir = TempDir();
  const std::string home = dir + "/home";  // an embedded cluster would appear here
  const std::map<std::string, std::string> env = {{"PGRIG_HOME", home}};
  const std::string good = dir + "/good.toml";
  WriteText(good, TinyPlan(1, 1));
  const std::string bad = dir + "/bad.toml";
  WriteText(bad, "[plan]\niteration = 3\n[[workload]]\nbuiltin = \"select-only\"\n");
  const std::string out = dir + "/out";
  fs::create_directories(dir + "/full");
  WriteText(dir + "/full/x", "x");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"run", bad, "--out", out}, "did you mean 'iterations'"},
      {{"run", "no-such-plan", "--out", out}, "no plan named 'no-such-plan'"},
      {{"run", good, "--out", dir + "/full"}, "is not empty"},
      {{"run", good, "--out", out, "--instance", "no.such-instance"},
       "--instance no.such-instance"},
      {{"run", good, "--out", out, "--on-error", "maybe"}, "--on-error"},
      {{"run", good, "--quick", "--out", out}, "either a PLAN or --quick"},
      {{"run", "--resume", dir + "/nowhere"}, "no suite.json"},
      {{"run", good, "--out", out, "--label", "a b"}, "--label"},
      {{"run", good, "--out", "/proc/pgrig-out"}, "no directory can be made in /proc"},
  };
  for (const Case& c : cases) {
    ProcessResult r = testing::RunPgrig(c.args, env);
    EXPECT_EQ(r.exit_code, 1) << c.args[1] << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args[1];
  }
  ProcessResult dry = testing::RunPgrig({"run", good, "--out", out, "--dry-run"}, env);
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out,
              HasSubstr("iteration 1: read/simple/default/c2/j1 write/simple/default/c2/j1"));
  EXPECT_THAT(dry.out, HasSubstr("nothing started, nothing written"));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(home));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/full"), fs::directory_iterator()), 1);
  EXPECT_TRUE(RemoveTree(fs::path(dir).parent_path()).ok());
}

// Server-level settings of a suite that is killed, on a private cluster used
// both as the embedded cluster (PGRIG_HOME) and as a named server (-h).
class SettingsRecordTest : public run_itest::SettingsClusterTest<SettingsRecordTest> {
 protected:
  static void SetUpTestSuite() { StartCluster("pgrig-settings-record"); }

  // A plan whose cells run 2 s with max_wal_size (and, unless `reload_only`,
  // shared_buffers: a restart) set to values other than the originals.
  std::string SettingsPlan(bool reload_only) {
    const std::string plan = dir_ + "/settings.toml";
    WriteText(plan, TinyPlan(2, 2, SettingsKey(reload_only)));
    return plan;
  }

  // -h -p -U -d naming the private cluster as a server.
  std::vector<std::string> Named() {
    const pg::ConnectionParams p = cluster_->Params();
    std::vector<std::string> a = {"-h", p.host, "-p", p.port, "-d", p.dbname};
    if (!p.user.empty()) a.insert(a.end(), {"-U", p.user});
    return a;
  }

  // Starts `pgrig run PLAN --out OUT ARGS...`, waits until a run is in its
  // suite.json (the settings are live then) and sends `sig` to its process
  // group; returns its exit (WaitExit).
  int RunAndSignal(const std::string& plan, const std::string& out,
                   const std::vector<std::string>& args, int sig) {
    std::vector<std::string> argv = {"run", plan, "--out", out};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = SpawnPgrig(argv, dir_ + "/run.out", dir_ + "/run.err");
    if (pid <= 0) return -1;
    if (!WaitForFirstRun(out + "/suite.json")) ADD_FAILURE() << Text(dir_ + "/run.err");
    EXPECT_NE(Settings(), originals_) << "the plan's settings are not live";
    ::kill(sig == SIGKILL ? -pid : pid, sig);
    return WaitExit(pid, 120);
  }
};

TEST_F(SettingsRecordTest, KilledSuiteOnTheEmbeddedClusterIsRestoredByTheNextCommand) {
  const std::string out = dir_ + "/out";
  EXPECT_EQ(RunAndSignal(SettingsPlan(/*reload_only=*/false), out, {}, SIGKILL), -2);
  EXPECT_EQ(PgrigBackends(), 0);
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], false);
  // The record is the server's, not the results directory's.
  EXPECT_FALSE(fs::exists(out + "/settings-restore-pending.json"));
  auto left = runner::FindEmbeddedLeftSettings(*cluster_);
  ASSERT_TRUE(left.ok() && left->has_value());
  EXPECT_EQ((*left)->names, (std::vector<std::string>{"max_wal_size", "shared_buffers"}));
  EXPECT_FALSE((*left)->writer_alive);

  // `cluster status` finds it and restores (a restart for shared_buffers).
  ProcessResult st = testing::RunPgrig({"cluster", "status"});
  EXPECT_EQ(st.exit_code, 0) << st.err;
  EXPECT_THAT(st.err, HasSubstr("restored max_wal_size, shared_buffers, which an interrupted"));
  EXPECT_EQ(Settings(), originals_);
  left = runner::FindEmbeddedLeftSettings(*cluster_);
  ASSERT_TRUE(left.ok());
  EXPECT_FALSE(left->has_value());
  EXPECT_FALSE(fs::exists(cluster_->home() + ".state"));

  // Killed again; this time `pgrig init` restores (the restart closes the
  // session it checked over; it loads over a new one), and --resume
  // completes the first suite.
  const std::string out2 = dir_ + "/out2";
  EXPECT_EQ(RunAndSignal(SettingsPlan(false), out2, {}, SIGKILL), -2);
  ProcessResult init = testing::RunPgrig({"init", "-q", "-s", "1"});
  EXPECT_EQ(init.exit_code, 0) << init.out << init.err;
  EXPECT_THAT(init.err, HasSubstr("restored max_wal_size, shared_buffers"));
  EXPECT_THAT(init.err, HasSubstr("done in"));
  EXPECT_EQ(Settings(), originals_);
  ProcessResult resumed = testing::RunPgrig({"run", "--resume", out2});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.err, Not(HasSubstr("restored max_wal_size")));
  EXPECT_EQ(ReadJson(out2 + "/suite.json")["complete"], true);
  EXPECT_EQ(Settings(), originals_);
  EXPECT_EQ(PgrigBackends(), 0);
}

TEST_F(SettingsRecordTest, SigtermEndsTheSuiteLikeCtrlCAndRestores) {
  const std::string out = dir_ + "/out";
  EXPECT_EQ(RunAndSignal(SettingsPlan(false), out, {}, SIGTERM), 2) << Text(dir_ + "/run.err");
  EXPECT_EQ(Settings(), originals_);
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["stop_reason"], "interrupted");
  EXPECT_EQ(s["settings"]["restored"], true);
  EXPECT_THAT(Text(dir_ + "/run.out"), HasSubstr("pgrig run --resume " + out));
  EXPECT_FALSE(fs::exists(cluster_->home() + ".state"));
  EXPECT_EQ(PgrigBackends(), 0);
}

TEST_F(SettingsRecordTest, KilledSuiteOnANamedServerIsRefusedUntilRestored) {
  const std::string out = dir_ + "/out";
  EXPECT_EQ(RunAndSignal(SettingsPlan(/*reload_only=*/true), out, Named(), SIGKILL), -2);
  const std::string changed = Settings();
  ASSERT_NE(changed, originals_);

  const std::vector<std::string> named = Named();
  std::vector<std::string> bench = {"bench", "-S", "-T", "1"};
  bench.insert(bench.end(), named.begin(), named.end());
  ProcessResult refused = testing::RunPgrig(bench);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("left max_wal_size changed on this server"));
  EXPECT_THAT(refused.err, HasSubstr("pgrig run --restore-settings -h " + cluster_->socket_dir()));
  EXPECT_EQ(Settings(), changed);  // refused before anything
  // pgbench's -d is --debug for init: the database comes last.
  const pg::ConnectionParams p = cluster_->Params();
  std::vector<std::string> init_named = {"-h", p.host, "-p", p.port};
  if (!p.user.empty()) init_named.insert(init_named.end(), {"-U", p.user});
  init_named.push_back(p.dbname);
  std::vector<std::string> init = {"init", "-q", "-s", "1", "-I", "d"};
  init.insert(init.end(), init_named.begin(), init_named.end());
  refused = testing::RunPgrig(init);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("left max_wal_size changed on this server"));
  EXPECT_THAT(refused.err, Not(HasSubstr("dropping")));

  std::vector<std::string> restore = {"run", "--restore-settings"};
  restore.insert(restore.end(), named.begin(), named.end());
  ProcessResult r = testing::RunPgrig(restore);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("restored max_wal_size"));
  EXPECT_EQ(Settings(), originals_);
  r = testing::RunPgrig(restore);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("no settings left to restore"));
  ProcessResult ok = testing::RunPgrig(bench);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  // init loads over the session it checked the server with.
  init = {"init", "-s", "1"};
  init.insert(init.end(), init_named.begin(), init_named.end());
  ok = testing::RunPgrig(init);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.err, HasSubstr("done in"));
  EXPECT_THAT(ok.err, Not(HasSubstr("pgrig: warning")));
}

TEST_F(SettingsRecordTest, ASecondSuiteOnTheSameServerIsRefusedNamingTheFirst) {
  const std::string plan = dir_ + "/tiny.toml";
  WriteText(plan, TinyPlan(2, 2));
  const std::string out = dir_ + "/out";
  const pid_t pid = SpawnPgrig({"run", plan, "--out", out}, dir_ + "/run.out", dir_ + "/run.err");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitForFirstRun(out + "/suite.json")) << Text(dir_ + "/run.err");
  const std::string holder = "pid " + std::to_string(pid);

  // The embedded cluster: refused by the file lock, before anything.
  ProcessResult second = testing::RunPgrig({"run", plan, "--out", dir_ + "/out2"});
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_THAT(second.err, HasSubstr("another pgrig run is measuring the embedded cluster"));
  EXPECT_THAT(second.err, HasSubstr(holder));
  EXPECT_THAT(second.err, HasSubstr("--out " + out));  // its command line
  EXPECT_FALSE(fs::exists(dir_ + "/out2"));
  // The same server named: refused by the advisory lock.
  std::vector<std::string> named = {"run", plan, "--out", dir_ + "/out3"};
  for (const std::string& a : Named()) named.push_back(a);
  second = testing::RunPgrig(named);
  EXPECT_EQ(second.exit_code, 1) << second.out << second.err;
  EXPECT_THAT(second.err, HasSubstr("another pgrig run is measuring this server"));
  EXPECT_THAT(second.err, HasSubstr(holder));
  EXPECT_FALSE(fs::exists(dir_ + "/out3"));
  // bench goes on, with a warning.
  ProcessResult bench = testing::RunPgrig({"bench", "-S", "-T", "1"});
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_THAT(bench.err,
              HasSubstr("warning: a pgrig run suite is measuring this server (" + holder));

  EXPECT_EQ(WaitExit(pid, 120), 0) << Text(dir_ + "/run.err");
  EXPECT_FALSE(fs::exists(cluster_->home() + ".suite.lock"));
  bench = testing::RunPgrig({"bench", "-S", "-T", "1"});
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_THAT(bench.err, Not(HasSubstr("warning")));
}

}  // namespace
}  // namespace pgrig
