// `pgrig fleet run` in compare mode end to end: two test hosts (real sshd in
// network namespaces), each running a tiny plan against its own embedded
// cluster (its own PGRIG_HOME through the host's `env`), results copied back
// and compared.  The hosts share this machine's filesystem and CPUs.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"
#include "fleet/netns_hosts.h"
#include "support/test_cluster.h"

namespace pgrig::fleet {
namespace {

using pgrig::testing::FleetHostTable;
using pgrig::testing::NetnsHosts;
using ::testing::HasSubstr;

// A select-only plan at scale 1 with 2 clients (1 s runs, 2 iterations by default).
std::string TinyPlan(int duration_s = 1, int iterations = 2) {
  return "[plan]\nname = \"fleet-tiny\"\nscale = 1\nclients = [2]\nthreads = [1]\n"
         "duration_s = " +
         std::to_string(duration_s) + "\nwarmup_s = 0\niterations = " + std::to_string(iterations) +
         "\n\n[[workload]]\nname = \"read\"\nbuiltin = \"select-only\"\n";
}

// Writes `plan_text` and a fleet file for h's two hosts, each with its own
// embedded cluster (recorded in `clusters`); when `priced`, box1 at twice
// box0's price.  `fleet_extra` goes into [fleet].  The fleet file's path.
std::string WriteTwoHostFleet(const NetnsHosts& h, const std::string& plan_text,
                              const std::string& fleet_extra,
                              pgrig::testing::TempClusters& clusters, bool priced = false) {
  const std::string plan = h.dir() + "/tiny.toml";
  EXPECT_TRUE(WriteFileAtomically(plan, plan_text).ok());
  std::string f = "[fleet]\nplan = \"" + plan + "\"\nssh_config = \"" + h.ssh_config() +
                  "\"\nresults = \"" + h.dir() + "/results\"\n" + fleet_extra;
  for (size_t i = 0; i < 2; ++i) {
    std::string home = pgrig::testing::MakeTempHome("pgrig-fleet-run");
    clusters.homes.push_back(home);
    f += FleetHostTable(
        h, i, home, priced ? std::string("usd_per_hour = ") + (i == 0 ? "0.1" : "0.2") + "\n" : "");
  }
  const std::string file = h.dir() + "/fleet.toml";
  EXPECT_TRUE(WriteFileAtomically(file, f).ok());
  return file;
}

TEST(FleetRun, CompareModeOnTwoHosts) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  const std::string file = WriteTwoHostFleet(h, TinyPlan(), "", clusters, /*priced=*/true);

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Progress came back line by line with each host's label.
  EXPECT_THAT(r.out, HasSubstr("[box0] check: ready"));
  EXPECT_THAT(r.out, HasSubstr("[box1] check: ready"));
  EXPECT_THAT(r.out, HasSubstr("[box0] running "));
  EXPECT_THAT(r.out, HasSubstr("[box1] done: results in "));
  // Both results directories came back, complete and priced as the fleet file says.
  std::vector<std::string> found;
  for (const std::string& line : Split(r.out, '\n')) {
    auto pos = line.find("completed  results in ");
    if (pos != std::string::npos) found.push_back(std::string(Trim(line.substr(pos + 22))));
  }
  ASSERT_EQ(found.size(), 2u) << r.out;
  for (size_t i = 0; i < 2; ++i) {
    auto text = ReadWholeFile(found[i] + "/suite.json");
    ASSERT_TRUE(text.ok()) << found[i];
    auto s = nlohmann::json::parse(*text);
    EXPECT_EQ(s["schema"], "pgrig.suite/2");
    EXPECT_EQ(s["complete"], true);
    EXPECT_EQ(s["label"], "box" + std::to_string(i));
    EXPECT_EQ(s["runs"].size(), 2u);
    EXPECT_THAT(s["price"].dump(), HasSubstr(i == 0 ? "0.1" : "0.2"));
    // Each ran its own cluster: the suites' targets name different homes.
    EXPECT_THAT(s["target"].dump(), HasSubstr(clusters.homes[i])) << s["target"].dump();
  }
  // And the comparison ran over them.
  EXPECT_THAT(r.out, HasSubstr("box1")) << r.out;
  EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("no significant difference"), HasSubstr("faster"),
                                      HasSubstr("slower"), HasSubstr("not decidable")))
      << r.out;
}

bool Exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// The embedded cluster at `home`, as `pgrig cluster status --json` sees it
// (the hosts share this machine's filesystem).
nlohmann::json ClusterStatus(const std::string& home) {
  ProcessResult r =
      pgrig::testing::RunPgrig({"cluster", "status", "--json"}, {{"PGRIG_HOME", home}});
  if (r.exit_code != 0) {
    ADD_FAILURE() << "cluster status of " << home << ": " << r.out << r.err;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(r.out, nullptr, false);
}

bool ClusterRunning(const std::string& home) { return ClusterStatus(home).value("running", false); }

// The summary line of `label` ("  box0  completed ...") in a fleet run's output.
std::string SummaryLine(const std::string& out, const std::string& label) {
  std::string found;
  for (const std::string& line : Split(out, '\n')) {
    if (line.rfind("  " + label + " ", 0) == 0) found = line;
  }
  return found;
}

TEST(FleetRun, HostKilledMidRunIsFailedTheOtherIsKept) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  const std::string file = WriteTwoHostFleet(h, TinyPlan(3), "connect_timeout = 3\n", clusters);

  ProcessResult r;
  std::thread runner([&] { r = pgrig::testing::RunPgrig({"fleet", "run", file}); });
  // Once box1's cluster is up (its server log exists), wait a moment and
  // kill everything in its namespace: sshd, the remote pgrig, its server.
  const std::string log = clusters.homes[1] + "/postgresql.log";
  for (int i = 0; i < 600 && !Exists(log); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool started = Exists(log);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  h.KillHost(1);
  runner.join();
  ASSERT_TRUE(started) << "box1's cluster never started: " << r.out << r.err;

  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  std::string box0, box1;
  for (const std::string& line : Split(r.out, '\n')) {
    if (line.rfind("  box0 ", 0) == 0) box0 = line;
    if (line.rfind("  box1 ", 0) == 0) box1 = line;
  }
  EXPECT_THAT(box0, HasSubstr("completed")) << r.out;
  EXPECT_THAT(box1, HasSubstr("failed")) << r.out;
  EXPECT_THAT(box1, HasSubstr("h1")) << r.out;  // the reason names the destination
  // ssh's exit status and what ssh said, never the run's last progress line.
  EXPECT_THAT(box1, HasSubstr("ssh exited with status 255")) << r.out;
  EXPECT_THAT(box1, ::testing::Not(HasSubstr(": start ("))) << r.out;
  std::printf("%s\n", box1.c_str());
  EXPECT_THAT(r.out, HasSubstr("[box1] failed: "));
  EXPECT_THAT(r.out, HasSubstr("nothing to compare"));
  auto pos = box0.find("results in ");
  ASSERT_NE(pos, std::string::npos);
  auto suite = ReadWholeFile(std::string(Trim(box0.substr(pos + 11))) + "/suite.json");
  ASSERT_TRUE(suite.ok());
  EXPECT_EQ(nlohmann::json::parse(*suite)["complete"], true);
  // box0's cluster, started by its run, was stopped at its end.
  EXPECT_FALSE(ClusterRunning(clusters.homes[0])) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[box0] stopped its embedded cluster")) << r.out;
}

// The process (from /proc) whose command line starts with `program` and
// contains every one of `needles`; 0 when there is none.
pid_t FindProcess(const std::string& program, const std::vector<std::string>& needles) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.rfind(program + std::string(1, '\0'), 0) != 0) continue;
    bool all = true;
    for (const std::string& n : needles) all = all && cmd.find(n) != std::string::npos;
    if (all) return static_cast<pid_t>(std::atoi(e.path().filename().c_str()));
  }
  return 0;
}

// A host that fails mid-run is reported with how its command ended (the
// remote pgrig's exit status, or ssh's fate here) and its last error lines,
// not with the last progress line it printed.
TEST(FleetRun, AFailedHostIsReportedWithItsExitStatusAndLastErrors) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  // Long enough (4 x 5 s) that one host is still measuring when the other,
  // slower to load under a busy CI machine, starts: both are then failed
  // mid-run, and neither runs to its end.
  const std::string file = WriteTwoHostFleet(h, TinyPlan(5, 4), "", clusters);
  const std::string out_file = h.dir() + "/out.txt";
  const pid_t pid = pgrig::testing::SpawnPgrig({"fleet", "run", file}, out_file);
  ASSERT_GE(pid, 0);
  auto measuring = [&] {
    auto o = ReadWholeFile(out_file);
    return o.ok() && o->find("[box0] [run 1/") != std::string::npos &&
           o->find("[box1] [run 1/") != std::string::npos;
  };
  for (int i = 0; i < 900 && !measuring(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const bool was_measuring = measuring();
  // box0: its server goes away under the run (immediate shutdown), so the
  // remote pgrig run fails and exits non-zero.
  const int server_pid = ClusterStatus(clusters.homes[0]).value("pid", 0);
  // box1: the ssh client here that runs its pgrig dies.
  const pid_t ssh_pid = FindProcess("ssh", {"h1", "pgrig-fleet-pid"});
  if (server_pid > 0) ::kill(server_pid, SIGQUIT);
  if (ssh_pid > 0) ::kill(ssh_pid, SIGKILL);
  const int rc = pgrig::testing::WaitExit(pid, 240);
  auto out_text = ReadWholeFile(out_file);
  const std::string out = out_text.ok() ? *out_text : "";
  ASSERT_TRUE(was_measuring) << out;
  ASSERT_GT(server_pid, 0) << out;
  ASSERT_GT(ssh_pid, 0) << out;
  EXPECT_EQ(rc, 2) << out;

  const std::string box0 = SummaryLine(out, "box0");
  EXPECT_THAT(box0, HasSubstr("pgrig run exited with status 2")) << out;
  EXPECT_THAT(box0, HasSubstr("last error lines: ")) << out;
  // Its own last words, not "[run 1/3 ...] start (...)".
  // (What it says depends on where the shutdown caught it: the run's
  // failure, libpq's words, the server's WARNING.)
  EXPECT_THAT(box0, ::testing::AnyOf(HasSubstr("aborted"), HasSubstr("terminat"),
                                     HasSubstr("could not"), HasSubstr("server closed")))
      << out;
  EXPECT_THAT(box0, ::testing::Not(HasSubstr(": start ("))) << out;
  const std::string box1 = SummaryLine(out, "box1");
  EXPECT_THAT(box1, HasSubstr("ssh was killed by signal 9 (Killed) here")) << out;
  EXPECT_THAT(box1, ::testing::Not(HasSubstr(": start ("))) << out;
  EXPECT_THAT(out, HasSubstr("[box0] failed: ")) << out;
  EXPECT_THAT(out, HasSubstr("[box1] failed: ")) << out;
  std::printf("%s\n%s\n", box0.c_str(), box1.c_str());
}

// The run stops the embedded clusters it started, whatever the outcome,
// unless the fleet file keeps them; a cluster that was running before the
// run is left running.
TEST(FleetRun, StopsTheClustersItStartedUnlessKept) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  const std::string file = WriteTwoHostFleet(h, TinyPlan(1, 1), "", clusters);
  ProcessResult started =
      pgrig::testing::RunPgrig({"cluster", "start"}, {{"PGRIG_HOME", clusters.homes[1]}});
  ASSERT_EQ(started.exit_code, 0) << started.out << started.err;

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(ClusterRunning(clusters.homes[0])) << r.out;
  EXPECT_TRUE(ClusterRunning(clusters.homes[1])) << r.out;
  EXPECT_THAT(r.out, HasSubstr("[box0] stopped its embedded cluster (this run started it)"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("[box1] left its embedded cluster running: it was running "
                               "before the run"))
      << r.out;

  // keep_cluster = true on box0: its cluster stays up after the run.
  std::string text = ReadWholeFile(file).value();
  const std::string box0 = "label = \"box0\"\n";
  ASSERT_NE(text.find(box0), std::string::npos);
  text.insert(text.find(box0) + box0.size(), "keep_cluster = true\n");
  const std::string kept = h.dir() + "/fleet-kept.toml";
  ASSERT_TRUE(WriteFileAtomically(kept, text).ok());
  ProcessResult k = pgrig::testing::RunPgrig({"fleet", "run", kept});
  ASSERT_EQ(k.exit_code, 0) << k.out << k.err;
  EXPECT_TRUE(ClusterRunning(clusters.homes[0])) << k.out;
  EXPECT_TRUE(ClusterRunning(clusters.homes[1])) << k.out;
  EXPECT_THAT(k.out, HasSubstr("[box0] left its embedded cluster running (keep_cluster)")) << k.out;
}

// Any pgrig process whose command line mentions `needle` (from /proc).
bool AnyPgrigMentions(const std::string& needle) {
  const std::string exe = pgrig::testing::PgrigExe();
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.rfind(exe, 0) == 0 && cmd.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(FleetRun, CtrlCInterruptsRemoteRunsAndKeepsTheirResults) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  const std::string file = WriteTwoHostFleet(h, TinyPlan(3, 5), "", clusters);
  std::string out_file = h.dir() + "/out.txt";
  const pid_t pid = pgrig::testing::SpawnPgrig({"fleet", "run", file}, out_file);
  ASSERT_GE(pid, 0);
  // Both remote runs are measuring: interrupt, as Ctrl-C would.
  auto running = [&] {
    auto o = ReadWholeFile(out_file);
    return o.ok() && o->find("[box0] [run 2/") != std::string::npos &&
           o->find("[box1] [run 2/") != std::string::npos;
  };
  for (int i = 0; i < 900 && !running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool was_running = running();
  ::kill(pid, SIGINT);
  int st = 0;
  auto start = std::chrono::steady_clock::now();
  ::waitpid(pid, &st, 0);
  auto took = std::chrono::steady_clock::now() - start;
  auto out_text = ReadWholeFile(out_file);
  std::string out = out_text.ok() ? *out_text : "";
  ASSERT_TRUE(was_running) << out;
  ASSERT_TRUE(WIFEXITED(st)) << out;
  EXPECT_EQ(WEXITSTATUS(st), 2) << out;
  EXPECT_LT(took, std::chrono::seconds(60)) << out;
  EXPECT_THAT(out, HasSubstr("[box0] interrupting the remote run (SIGINT)"));
  EXPECT_THAT(out, HasSubstr("[box1] interrupting the remote run (SIGINT)"));
  for (int i = 0; i < 2; ++i) {
    std::string label = "box" + std::to_string(i);
    std::string line;
    for (const std::string& l : Split(out, '\n')) {
      if (l.rfind("  " + label + " ", 0) == 0) line = l;
    }
    EXPECT_THAT(line, HasSubstr("interrupted; its partial results were copied back")) << out;
    // The remote pgrig stopped (nothing still runs its plan).
    EXPECT_FALSE(AnyPgrigMentions(h.hosts()[i].dir + "/work/")) << label;
  }
  // The partial suites came back, marked incomplete, with their finished runs.
  std::vector<std::string> suites;
  for (const auto& e : std::filesystem::recursive_directory_iterator(h.dir() + "/results")) {
    if (e.path().filename() == "suite.json") suites.push_back(e.path().string());
  }
  ASSERT_EQ(suites.size(), 2u) << out;
  for (const std::string& s : suites) {
    auto j = nlohmann::json::parse(ReadWholeFile(s).value());
    EXPECT_EQ(j["complete"], false) << s;
    EXPECT_GE(j["runs"].size(), 1u) << s;
  }
  // The clusters the runs started were stopped after the interrupted runs.
  for (const std::string& home : clusters.homes) EXPECT_FALSE(ClusterRunning(home)) << out;
  EXPECT_THAT(out, HasSubstr("[box0] stopped its embedded cluster")) << out;
}

}  // namespace
}  // namespace pgrig::fleet
