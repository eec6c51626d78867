// Integration tests of `pgrig bench` against real PostgreSQL servers: the
// shared embedded cluster for workloads and options, private clusters for
// the fault tests that stop the server.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/fs.h"
#include "common/strings.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

using testing::ConnArgs;

ProcessResult Bench(std::vector<std::string> args, const pg::ConnectionParams& p,
                    const std::map<std::string, std::string>& env = {}) {
  args.insert(args.begin(), "bench");
  for (auto& a : ConnArgs(p)) args.push_back(a);
  return testing::RunPgrig(args, env);
}

void InitPgbench(const pg::ConnectionParams& p, int scale) {
  std::vector<std::string> args = {"-i", "-q", "-s", std::to_string(scale)};
  for (auto& a : ConnArgs(p)) args.push_back(a);
  ProcessResult r = testing::RunServerTool("pgbench", args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = "/tmp/pgrig-bench-itest-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

nlohmann::json ReadJson(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return nullptr;
  return nlohmann::json::parse(*text, nullptr, false);
}

// Each test gets its own database in the shared cluster: CTest runs every
// test as its own process, several at once, and re-initializing one shared
// database would pull the tables from under a test that is running.
class BenchSharedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "bench_itest_" + std::to_string(::getpid());
    pg::Connection admin = testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db_).ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db_).ok());
    params_ = testing::SharedParams(db_);
    InitPgbench(params_, 1);
  }
  void TearDown() override {
    pg::Connection admin = testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }
  std::string db_;
  pg::ConnectionParams params_;
};

TEST_F(BenchSharedTest, EveryBuiltinInEveryModeRunsExactCounts) {
  for (const char* b : {"tpcb-like", "simple-update", "select-only"}) {
    for (const char* m : {"simple", "extended", "prepared"}) {
      ProcessResult r = Bench({"-b", b, "-M", m, "-c", "3", "-j", "2", "-t", "7", "-n"}, params_);
      EXPECT_EQ(r.exit_code, 0) << b << " " << m << "\n" << r.err;
      EXPECT_THAT(r.out, HasSubstr("number of transactions actually processed: 21/21\n"))
          << b << " " << m << "\n"
          << r.out;
      EXPECT_THAT(r.out, HasSubstr(std::string("query mode: ") + m + "\n"));
      EXPECT_THAT(r.out, HasSubstr("number of failed transactions: 0 (0.000%)\n"));
      EXPECT_THAT(r.out, HasSubstr("tps = "));
    }
  }
}

TEST_F(BenchSharedTest, DurationRunWithProgressAndJson) {
  const std::string json = "/tmp/pgrig-bench-itest-" + std::to_string(getpid()) + ".json";
  const int64_t t0 = MonotonicNanos();
  ProcessResult r =
      Bench({"-S", "-c", "4", "-j", "2", "-T", "3", "-P", "1", "--json", json}, params_);
  const double elapsed = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("duration: 3 s\n"));
  EXPECT_THAT(r.out, HasSubstr("latency stddev = "));  // measured, because of -P
  EXPECT_THAT(r.err, HasSubstr("progress: 1.0 s, "));
  EXPECT_THAT(r.err, HasSubstr("starting vacuum...end."));
  EXPECT_LT(elapsed, 15.0);
  nlohmann::json j = ReadJson(json);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["schema"], "pgrig.result/1");
  EXPECT_EQ(j["complete"], true);
  EXPECT_GT(j["summary"]["tps"].get<double>(), 0);
  EXPECT_GT(j["summary"]["transactions"].get<int64_t>(), 0);
  EXPECT_EQ(j["histogram"]["count"], j["summary"]["transactions"]);
  EXPECT_GE(j["series"]["intervals"].size(), 3u);
  EXPECT_LE(j["latency_ms"]["p50"].get<double>(), j["latency_ms"]["p99"].get<double>());
  // The run carries the facts of what produced it: this host and the server
  // as it was configured when measured.
  const nlohmann::json& facts = j["facts"];
  ASSERT_TRUE(facts["host"].is_object()) << facts.dump();
  EXPECT_FALSE(facts["host"]["cpu"]["architecture"].is_null());
  ASSERT_TRUE(facts["server"].is_object()) << facts.dump();
  EXPECT_EQ(facts["server"]["version_num"], j["server"]["version_num"]);
  EXPECT_EQ(facts["server"]["database"], db_);
  EXPECT_TRUE(facts["server"]["settings"].contains("shared_buffers")) << facts["server"].dump();
  EXPECT_TRUE(facts["server"]["settings"].contains("synchronous_commit"));
  EXPECT_GT(facts["server"]["database_size_bytes"].get<int64_t>(), 0);
  EXPECT_FALSE(facts["server"]["fits_in_ram"].is_null());
  std::remove(json.c_str());
}

TEST_F(BenchSharedTest, RateLimitReportsLagAndHoldsTheRate) {
  ProcessResult r = Bench({"-S", "-c", "2", "-T", "3", "-R", "100", "-n"}, params_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rate limit schedule lag: avg "));
  const auto pos = r.out.find("tps = ");
  ASSERT_NE(pos, std::string::npos);
  const double tps = std::stod(r.out.substr(pos + 6));
  EXPECT_GT(tps, 50);
  EXPECT_LT(tps, 160);
}

TEST_F(BenchSharedTest, SerializationFailuresAreRetriedAndCounted) {
  const std::string script =
      WriteTemp("serial.sql",
                "BEGIN ISOLATION LEVEL REPEATABLE READ;\n"
                "SELECT bbalance FROM pgbench_branches WHERE bid = 1;\n"
                "\\sleep 1 ms\n"
                "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\n"
                "END;\n");
  ProcessResult r = Bench({"-f", script, "-c", "4", "-j", "2", "-t", "20", "--max-tries", "100",
                           "--failures-detailed", "-n"},
                          params_);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("maximum number of tries: 100\n"));
  EXPECT_THAT(r.out, HasSubstr("number of transactions actually processed: 80/80\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("number of transactions retried: [1-9][0-9]* "));
  std::remove(script.c_str());
}

// pgbench reads a pipeline's results at \endpipeline; a serialization
// failure there discards the rest of the pipeline, rolls back and retries.
TEST_F(BenchSharedTest, SerializationFailuresInsidePipelineAreRetried) {
  const std::string script =
      WriteTemp("serial-pipe.sql",
                "\\startpipeline\n"
                "BEGIN ISOLATION LEVEL REPEATABLE READ;\n"
                "SELECT pg_sleep(0.002);\n"
                "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\n"
                "END;\n"
                "\\endpipeline\n");
  ProcessResult r = Bench({"-f", script, "-M", "extended", "-c", "4", "-j", "2", "-t", "20",
                           "--max-tries", "100", "--verbose-errors", "-r", "-n"},
                          params_);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("number of transactions actually processed: 80/80\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("number of transactions retried: [1-9][0-9]* "));
  EXPECT_THAT(r.err, ::testing::ContainsRegex(
                         "client [0-3] got an error in command 5 \\(SQL\\) of script 0; ERROR:  "
                         "could not serialize access due to concurrent update"));
  EXPECT_THAT(r.err, HasSubstr("repeats the transaction after the error (try 1/100)"));
  // -r charges the wait for the pipeline's results, and its retries, to
  // \endpipeline, as pgbench does.
  EXPECT_THAT(r.out, ::testing::ContainsRegex("[0-9.]+ +0 +[1-9][0-9]* +\\\\endpipeline"));
  for (const auto& line : Split(r.out, '\n')) {
    if (line.find("\\endpipeline") != std::string::npos) {
      EXPECT_GT(std::atof(line.c_str()), 1.0) << line;
    }
  }
  std::remove(script.c_str());
}

// The results say how the client talked to the server: the built-in
// scripts take the lean protocol path (io_uring where the kernel allows);
// a script that needs libpq (\gset) keeps every connection on libpq.
TEST_F(BenchSharedTest, JsonSaysWhichClientPathRan) {
  const std::string json = "/tmp/pgrig-bench-itest-io-" + std::to_string(getpid()) + ".json";
  for (const char* mode : {"simple", "extended", "prepared"}) {
    ProcessResult r =
        Bench({"-S", "-M", mode, "-c", "3", "-j", "2", "-t", "20", "-n", "--json", json}, params_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = ReadJson(json);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["client"]["lean_protocol_connections"], 3) << mode;
    EXPECT_THAT(j["client"]["io"].get<std::string>(), ::testing::AnyOf("io_uring", "epoll"));
    EXPECT_EQ(j["summary"]["transactions"], 60);
  }
  const std::string script = WriteTemp("gset.sql", "SELECT 1 AS one \\gset\n");
  ProcessResult r = Bench({"-f", script, "-c", "2", "-t", "5", "-n", "--json", json}, params_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = ReadJson(json);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["client"]["lean_protocol_connections"], 0);
  EXPECT_EQ(j["client"]["io"], "epoll");
  std::remove(script.c_str());
  std::remove(json.c_str());
}

// At a fixed rate (-R) the engine sleeps through epoll, whose timed wait
// has the kernel's timer slack (EngineConfig::io_uring_paced): the same
// run takes io_uring unpaced where the kernel allows it, and paced only
// with PGRIG_ENGINE_URING=paced.
TEST_F(BenchSharedTest, PacedRunsSleepThroughEpoll) {
  const std::string json = "/tmp/pgrig-bench-itest-paced-" + std::to_string(getpid()) + ".json";
  const std::vector<std::string> run = {"-S", "-M", "prepared", "-c", "2",      "-j",
                                        "2",  "-t", "20",       "-n", "--json", json};
  ProcessResult unpaced = Bench(run, params_);
  ASSERT_EQ(unpaced.exit_code, 0) << unpaced.err;
  const std::string unpaced_io = ReadJson(json)["client"]["io"].get<std::string>();
  ASSERT_THAT(unpaced_io, ::testing::AnyOf("io_uring", "epoll"));

  std::vector<std::string> paced_run = run;
  paced_run.insert(paced_run.begin(), {"-R", "400"});
  ProcessResult paced = Bench(paced_run, params_);
  ASSERT_EQ(paced.exit_code, 0) << paced.err;
  nlohmann::json j = ReadJson(json);
  EXPECT_EQ(j["client"]["io"], "epoll");
  EXPECT_EQ(j["client"]["lean_protocol_connections"], 2);
  EXPECT_EQ(j["summary"]["transactions"], 40);

  ProcessResult forced = Bench(paced_run, params_, {{"PGRIG_ENGINE_URING", "paced"}});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(ReadJson(json)["client"]["io"], unpaced_io);
  std::remove(json.c_str());
}

TEST_F(BenchSharedTest, SqlErrorAbortsClientWithPgbenchMessage) {
  const std::string script = WriteTemp("bad.sql", "SELECT * FROM no_such_table_pgrig;\n");
  ProcessResult r = Bench({"-f", script, "-c", "1", "-t", "1", "-n"}, params_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("client 0 script 0 aborted in command 0 query 0: ERROR:  relation "
                               "\"no_such_table_pgrig\" does not exist"));
  EXPECT_THAT(r.err, HasSubstr("Run was aborted; the above results are incomplete."));
  std::remove(script.c_str());
}

// The average latency -r shows for one command of the script.
double PerCommandMs(const std::string& out, const std::string& command) {
  for (const auto& line : Split(out, '\n')) {
    if (line.find(command) != std::string::npos && line.find("ms") != std::string::npos) {
      return std::atof(line.c_str());
    }
  }
  return -1;
}

TEST_F(BenchSharedTest, PerCommandLatencyCountsSleepAsPgbenchDoes) {
  const std::string script = WriteTemp("sleep.sql", "\\sleep 20 ms\nSELECT 1;\n");
  ProcessResult ours = Bench({"-f", script, "-c", "1", "-t", "3", "-n", "-r"}, params_);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  std::vector<std::string> args = {"-f", script, "-c", "1", "-t", "3", "-n", "-r"};
  for (auto& a : ConnArgs(params_)) args.push_back(a);
  ProcessResult ref = testing::RunServerTool("pgbench", args);
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  // Both report the time slept for the \sleep line, and a short SELECT.
  EXPECT_GE(PerCommandMs(ref.out, "\\sleep 20 ms"), 19.0) << ref.out;
  EXPECT_GE(PerCommandMs(ours.out, "\\sleep 20 ms"), 19.0) << ours.out;
  EXPECT_LT(PerCommandMs(ours.out, "SELECT 1;"), 19.0) << ours.out;
  std::remove(script.c_str());
}

TEST(BenchFaultTest, UnreachableServerExitsOneWithLibpqMessage) {
  pg::ConnectionParams p;
  p.host = "/nonexistent-pgrig-socket-dir";
  p.port = "5999";
  p.user = "postgres";
  p.dbname = "pgrig";
  ProcessResult r = Bench({"-S", "-t", "1"}, p);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent-pgrig-socket-dir"));
  EXPECT_THAT(r.err, HasSubstr("could not create connection for setup"));
}

// `pgrig bench ...` started in the background, output to files.
pid_t Spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> all = {"bench"};
  all.insert(all.end(), args.begin(), args.end());
  return testing::SpawnPgrig(all, out, err);
}

using testing::WaitExit;
using testing::WaitForText;

// The server ends under a running benchmark: SIGQUIT (what pg_ctl stop -m
// immediate sends) or SIGKILL of the postmaster (a crash).
void ServerEndsMidRun(int sig) {
  const std::string home = testing::MakeTempHome("pgrig-bench-fault");
  auto opened = cluster::Cluster::Open({.home = home});
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  cluster::Cluster c = std::move(opened).value();
  ASSERT_TRUE(c.Start().ok());
  pg::ConnectionParams p = c.Params("pgrig");
  InitPgbench(p, 1);
  const std::string base = home + "-run";
  std::vector<std::string> args = {"-S", "-c", "4", "-j", "2",      "-T",
                                   "60", "-P", "1", "-n", "--json", base + ".json"};
  for (auto& a : ConnArgs(p)) args.push_back(a);
  pid_t pid = Spawn(args, base + ".out", base + ".err");
  ASSERT_GT(pid, 0);
  // Stop the server under a running benchmark, not one still connecting: the
  // first progress line says transactions are flowing.
  if (!WaitForText(base + ".err", "progress: ", 120)) {
    (void)WaitExit(pid, 0);
    auto err = ReadWholeFile(base + ".err");
    (void)c.Destroy();
    FAIL() << "no progress line within 120 s; stderr:\n" << (err.ok() ? *err : "");
  }
  auto pm = c.RunningPid();
  ASSERT_TRUE(pm.has_value());
  kill(*pm, sig);
  const int64_t t0 = MonotonicNanos();
  const int code = WaitExit(pid, 20);
  const double took = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  EXPECT_EQ(code, 2);
  EXPECT_LT(took, 5.0);
  auto err = ReadWholeFile(base + ".err");
  ASSERT_TRUE(err.ok());
  EXPECT_THAT(*err, HasSubstr("aborted"));
  EXPECT_THAT(*err, HasSubstr("Run was aborted; the above results are incomplete."));
  nlohmann::json j = ReadJson(base + ".json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["stop_reason"], "aborted");
  EXPECT_GT(j["summary"]["transactions"].get<int64_t>(), 0);
  // Never a negative CPU figure; none at all from a postmaster that died
  // (SIGQUIT: it was alive for the closing snapshot, and the figure stands).
  auto out = ReadWholeFile(base + ".out");
  ASSERT_TRUE(out.ok());
  const size_t line = out->find("server CPU per transaction");
  ASSERT_NE(line, std::string::npos) << *out;
  EXPECT_EQ(out->substr(line, out->find('\n', line) - line).find('-'), std::string::npos) << *out;
  if (sig == SIGKILL) {
    EXPECT_THAT(*out,
                HasSubstr("server CPU per transaction: not measured (the server's postmaster"));
    EXPECT_TRUE(j["server_cpu_unavailable"].is_string()) << j["server_cpu_unavailable"];
  }
  // A postmaster that did not shut down is shown as crashed.
  ProcessResult st = testing::RunPgrig({"cluster", "status"}, {{"PGRIG_HOME", home}});
  EXPECT_EQ(st.out.find("state:          crashed") != std::string::npos, sig == SIGKILL) << st.out;
  (void)c.Destroy();
  // The cluster's home and the run's files all live in MakeTempHome's
  // directory.
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(home).parent_path(), ec);
}

TEST(BenchFaultTest, ServerStoppedMidRunExitsTwoWithPartialJson) { ServerEndsMidRun(SIGQUIT); }

TEST(BenchFaultTest, PostmasterKilledMidRunExitsTwoAndIsShownCrashed) { ServerEndsMidRun(SIGKILL); }

TEST_F(BenchSharedTest, SigintStopsCleanlyAndWritesResults) {
  const std::string base = "/tmp/pgrig-bench-itest-sigint-" + std::to_string(getpid());
  struct RemoveFiles {  // also when an assertion ends the test early
    std::string base;
    ~RemoveFiles() {
      for (const char* ext : {".json", ".out", ".err"}) std::remove((base + ext).c_str());
    }
  } cleanup{base};
  std::vector<std::string> args = {"-S", "-c", "2",  "-T",     "60",
                                   "-P", "1",  "-n", "--json", base + ".json"};
  for (auto& a : ConnArgs(params_)) args.push_back(a);
  pid_t pid = Spawn(args, base + ".out", base + ".err");
  ASSERT_GT(pid, 0);
  // Interrupt a running benchmark, not one still starting up (a loaded or
  // sanitized build can take seconds to connect): wait for a progress line.
  const bool running = WaitForText(base + ".err", "progress: ", 120);
  kill(pid, SIGINT);
  if (!running) {
    (void)WaitExit(pid, 10);
    auto err = ReadWholeFile(base + ".err");
    FAIL() << "no progress line within 120 s; stderr:\n" << (err.ok() ? *err : "");
  }
  const int code = WaitExit(pid, 10);
  EXPECT_EQ(code, 2);
  auto out = ReadWholeFile(base + ".out");
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, HasSubstr("tps = "));
  nlohmann::json j = ReadJson(base + ".json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["stop_reason"], "interrupted");
  EXPECT_EQ(j["complete"], false);
  EXPECT_GT(j["summary"]["transactions"].get<int64_t>(), 0);
}

}  // namespace
}  // namespace pgrig
