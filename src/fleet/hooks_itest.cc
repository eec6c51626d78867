// `pgrig fleet run` with provisioning hooks, --resume, plan script files and
// the instance check, on real sshd hosts in network namespaces (netns_hosts.h)
// each running a tiny plan against its own embedded cluster.  Hook commands
// append to a marker file, so the order they ran in is on disk.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
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
using ::testing::Not;

// A plan whose only workload is a script file in a subdirectory beside it.
constexpr const char* kScriptPlan =
    "[plan]\nname = \"fleet-script\"\nscale = 1\nclients = [1]\nthreads = [1]\n"
    "duration_s = 1\nwarmup_s = 0\niterations = 2\n"
    "\n[[workload]]\nname = \"one\"\nfile = \"sql/one.sql\"\nwrites = false\n";

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  auto text = ReadWholeFile(path);
  if (!text.ok()) return out;
  for (const std::string& l : Split(*text, '\n')) {
    if (!l.empty()) out.push_back(l);
  }
  return out;
}

std::string ReadOr(const std::string& path) {
  auto text = ReadWholeFile(path);
  return text.ok() ? *text : std::string();
}

size_t IndexOf(const std::vector<std::string>& v, const std::string& s) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
}

std::string MarkHook(const std::string& marks, const std::string& word,
                     const std::string& after = "") {
  return "{ command = \"echo " + word + " >> " + marks + after + "\", timeout = 30 }";
}

nlohmann::json Json(const std::string& path) {
  auto text = ReadWholeFile(path);
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json();
}

// The run directory `fleet run` announced on its first line.
std::string RunDir(const std::string& out) {
  auto pos = out.find("results in ");
  if (pos == std::string::npos) return "";
  return std::string(Trim(out.substr(pos + 11, out.find('\n', pos) - pos - 11)));
}

TEST(FleetHooks, OrderTeardownAfterFailureInstanceWarningScriptsAndResume) {
  PGRIG_START_NETNS_HOSTS(h, 2);
  pgrig::testing::TempClusters clusters;
  ASSERT_TRUE(MakeDirs(h.dir() + "/plans/sql").ok());
  ASSERT_TRUE(WriteFileAtomically(h.dir() + "/plans/sql/one.sql", "SELECT 1;\n").ok());
  ASSERT_TRUE(WriteFileAtomically(h.dir() + "/plans/tiny.toml", kScriptPlan).ok());
  const std::string marks = h.dir() + "/marks";
  const std::string allow = h.dir() + "/allow-box1";
  std::string f = "[fleet]\nplan = \"" + h.dir() + "/plans/tiny.toml\"\nssh_config = \"" +
                  h.ssh_config() + "\"\nresults = \"" + h.dir() +
                  "/results\"\nprovision = " + MarkHook(marks, "fleet-provision") +
                  "\nteardown = " + MarkHook(marks, "fleet-teardown") + "\n";
  for (size_t i = 0; i < 2; ++i) {
    clusters.homes.push_back(pgrig::testing::MakeTempHome("pgrig-fleet-hooks"));
    std::string box = "box" + std::to_string(i);
    // box0 claims to be a Graviton (this machine is not); box1's provision
    // fails until the allow file exists.
    std::string extra = i == 0 ? "instance = \"r8g.large\"\n" : "";
    extra += "provision = " +
             MarkHook(marks, box + "-provision-$PGRIG_FLEET_LABEL",
                      i == 1 ? "; test -f " + allow + " || { echo no-go; exit 5; }" : "") +
             "\nteardown = " + MarkHook(marks, box + "-teardown") + "\n";
    f += FleetHostTable(h, i, clusters.homes[i], extra);
  }
  const std::string file = h.dir() + "/fleet.toml";
  ASSERT_TRUE(WriteFileAtomically(file, f).ok());

  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", file});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const std::string run_dir = RunDir(r.out);
  ASSERT_FALSE(run_dir.empty()) << r.out;
  // Order: fleet provision, host provisions, (run), host teardowns, fleet
  // teardown; box1's teardown ran although its provision failed.
  std::vector<std::string> m = Lines(marks);
  ASSERT_EQ(m.size(), 6u) << r.out;
  EXPECT_EQ(m.front(), "fleet-provision");
  EXPECT_EQ(m.back(), "fleet-teardown");
  EXPECT_LT(IndexOf(m, "box0-provision-box0"), IndexOf(m, "box0-teardown"));
  EXPECT_LT(IndexOf(m, "box1-provision-box1"), IndexOf(m, "box1-teardown"));
  EXPECT_LT(IndexOf(m, "box1-provision-box1"), IndexOf(m, "box0-teardown"));
  EXPECT_LT(r.out.find("[box0] running "), r.out.find("[box0] teardown: running"));
  EXPECT_LT(r.out.find("[box1] provision: exited with 5"), r.out.find("[box0] running "));
  EXPECT_THAT(r.out, HasSubstr("[box1] provision: no-go"));
  EXPECT_THAT(r.out, Not(HasSubstr("[box1] running ")));
  // The instance check warned before the run.
  EXPECT_THAT(r.out, HasSubstr("[box0] warning: declares instance r8g.large"));
  EXPECT_THAT(r.out, HasSubstr("architecture x86_64, not arm64"));
  EXPECT_LT(r.out.find("[box0] warning: "), r.out.find("[box0] running "));
  // box1's hook log is in the run directory.
  auto log = ReadWholeFile(run_dir + "/hooks/box1.log");
  ASSERT_TRUE(log.ok()) << run_dir;
  EXPECT_THAT(*log, HasSubstr("provision: no-go"));
  EXPECT_THAT(*log, HasSubstr("teardown: succeeded"));
  // box0 ran the script workload (the script was copied beside the plan).
  nlohmann::json suite = Json(run_dir + "/box0/suite.json");
  EXPECT_EQ(suite["complete"], true) << r.out;
  EXPECT_EQ(suite["runs"].size(), 2u);
  EXPECT_THAT(suite["plan"].dump(), HasSubstr("sql/one.sql"));
  // The manifest says what finished.
  nlohmann::json man = Json(run_dir + "/fleet-run.json");
  ASSERT_EQ(man["hosts"].size(), 2u) << man.dump();
  EXPECT_EQ(man["hosts"][0]["outcome"], "completed");
  EXPECT_EQ(man["hosts"][1]["outcome"], "failed");
  EXPECT_THAT(r.out, HasSubstr("pgrig fleet run --resume " + run_dir));

  // --resume: only box1 runs again, then both are compared.
  ASSERT_TRUE(WriteFileAtomically(allow, "").ok());
  ASSERT_TRUE(WriteFileAtomically(marks, "").ok());
  ProcessResult again = pgrig::testing::RunPgrig({"fleet", "run", "--resume", run_dir});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("[box0] completed in an earlier attempt: not run again"));
  EXPECT_THAT(again.out, Not(HasSubstr("[box0] running ")));
  EXPECT_THAT(again.out, HasSubstr("[box1] running "));
  EXPECT_THAT(again.out, Not(HasSubstr("nothing to compare")));
  man = Json(run_dir + "/fleet-run.json");
  EXPECT_EQ(man["hosts"][1]["outcome"], "completed") << man.dump();
  EXPECT_EQ(Json(run_dir + "/box1/suite.json")["complete"], true);
  // box0 was left alone: neither provisioned nor torn down again.
  EXPECT_THAT(Lines(marks), ::testing::ElementsAre("fleet-provision", "box1-provision-box1",
                                                   "box1-teardown", "fleet-teardown"))
      << again.out;

  // A changed fleet file is refused before anything runs.
  ASSERT_TRUE(WriteFileAtomically(file, f + "# edited\n").ok());
  ASSERT_TRUE(WriteFileAtomically(marks, "").ok());
  ProcessResult changed = pgrig::testing::RunPgrig({"fleet", "run", "--resume", run_dir});
  EXPECT_EQ(changed.exit_code, 1) << changed.out << changed.err;
  EXPECT_THAT(changed.err, HasSubstr("changed since run"));
  EXPECT_TRUE(Lines(marks).empty());
}

TEST(FleetHooks, CtrlCRunsTeardownsAndResumeContinuesThePartialSuite) {
  PGRIG_START_NETNS_HOSTS(h, 1);
  pgrig::testing::TempClusters clusters;
  std::string plan = kScriptPlan;
  plan.replace(plan.find("duration_s = 1"), 14, "duration_s = 2");
  plan.replace(plan.find("iterations = 2"), 14, "iterations = 4");
  ASSERT_TRUE(MakeDirs(h.dir() + "/plans/sql").ok());
  ASSERT_TRUE(WriteFileAtomically(h.dir() + "/plans/sql/one.sql", "SELECT 1;\n").ok());
  ASSERT_TRUE(WriteFileAtomically(h.dir() + "/plans/p.toml", plan).ok());
  const std::string marks = h.dir() + "/marks";
  clusters.homes.push_back(pgrig::testing::MakeTempHome("pgrig-fleet-hooks"));
  std::string f = "[fleet]\nplan = \"plans/p.toml\"\nssh_config = \"" + h.ssh_config() +
                  "\"\nresults = \"results\"\nteardown = " + MarkHook(marks, "fleet-teardown") +
                  "\n" +
                  FleetHostTable(h, 0, clusters.homes[0],
                                 "provision = " + MarkHook(marks, "box0-provision") +
                                     "\nteardown = " + MarkHook(marks, "box0-teardown") + "\n");
  const std::string file = h.dir() + "/fleet.toml";
  ASSERT_TRUE(WriteFileAtomically(file, f).ok());
  const std::string out_file = h.dir() + "/out.txt";
  const pid_t pid = pgrig::testing::SpawnPgrig({"fleet", "run", file}, out_file);
  ASSERT_GE(pid, 0);
  auto running = [&] {
    auto o = ReadWholeFile(out_file);
    return o.ok() && o->find("[box0] [run 2/") != std::string::npos;
  };
  for (int i = 0; i < 900 && !running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  bool was_running = running();
  ::kill(pid, SIGINT);
  int st = 0;
  ::waitpid(pid, &st, 0);
  std::string out = ReadOr(out_file);
  ASSERT_TRUE(was_running) << out;
  ASSERT_TRUE(WIFEXITED(st)) << out;
  EXPECT_EQ(WEXITSTATUS(st), 2) << out;
  EXPECT_THAT(out, HasSubstr("then the teardowns run (Ctrl-C again to skip them)"));
  EXPECT_THAT(Lines(marks),
              ::testing::ElementsAre("box0-provision", "box0-teardown", "fleet-teardown"))
      << out;
  EXPECT_LT(out.find("interrupting the remote run"), out.find("[box0] teardown: running"));
  const std::string run_dir = RunDir(out);
  ASSERT_FALSE(run_dir.empty()) << out;
  nlohmann::json man = Json(run_dir + "/fleet-run.json");
  EXPECT_EQ(man["hosts"][0]["outcome"], "partial") << man.dump() << out;
  size_t finished = Json(run_dir + "/box0/suite.json")["runs"].size();
  EXPECT_GE(finished, 1u);
  EXPECT_LT(finished, 4u);

  // --resume by id (with the fleet file): the remote suite is continued.
  std::string id = run_dir.substr(run_dir.rfind('/') + 1);
  ProcessResult again = pgrig::testing::RunPgrig({"fleet", "run", file, "--resume", id});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, HasSubstr("run --resume "));
  nlohmann::json suite = Json(h.dir() + "/results/" + id + "/box0/suite.json");
  EXPECT_EQ(suite["complete"], true) << again.out;
  EXPECT_EQ(suite["runs"].size(), 4u) << again.out;
}

TEST(FleetHooks, ProvisionTimeoutIsKilledAndNoHostIsContacted) {
  // No sshd needed: the fleet provision times out, so no host is contacted.
  char tmpl[] = "/tmp/pgrig-fleet-timeout-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::string f =
      "[fleet]\nplan = \"quick\"\nresults = \"" + dir +
      "/results\"\nprovision = { command = \"echo $$ > " + dir +
      "/pid; sleep 57\", timeout = 1 }\nteardown = { command = \"echo down > " + dir +
      "/down\", timeout = 10 }\n\n[[host]]\nlabel = \"never\"\nssh = \"never.invalid\"\n";
  ASSERT_TRUE(WriteFileAtomically(dir + "/fleet.toml", f).ok());
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = pgrig::testing::RunPgrig({"fleet", "run", dir + "/fleet.toml"});
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_LT(took, std::chrono::seconds(20));
  EXPECT_THAT(r.out,
              HasSubstr("[fleet] provision: timed out after 1 s: killed (its process group)"));
  EXPECT_THAT(r.out, Not(HasSubstr("check:")));
  EXPECT_TRUE(std::filesystem::exists(dir + "/down")) << r.out;
  // Nothing of the hook is left: no `sleep 57` anywhere.
  bool left = false;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    if (ReadOr((e.path() / "cmdline").string()) == std::string("sleep\0"
                                                               "57\0",
                                                               9))
      left = true;
  }
  EXPECT_FALSE(left);
  (void)RemoveTree(dir);
}

TEST(FleetHooks, SecondCtrlCKillsTheRunningHookAndSkipsTeardowns) {
  // No sshd needed: both interrupts come during the fleet provision.
  char tmpl[] = "/tmp/pgrig-fleet-abort-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string f =
      "[fleet]\nplan = \"quick\"\nresults = \"" + dir +
      "/results\"\nprovision = { command = \"echo up > " + dir +
      "/up; sleep 58\", timeout = 120 }\nteardown = { command = \"echo down > " + dir +
      "/down\", timeout = 10 }\n\n[[host]]\nlabel = \"never\"\nssh = \"never.invalid\"\n";
  ASSERT_TRUE(WriteFileAtomically(dir + "/fleet.toml", f).ok());
  const std::string out_file = dir + "/out.txt";
  const pid_t pid = pgrig::testing::SpawnPgrig({"fleet", "run", dir + "/fleet.toml"}, out_file);
  ASSERT_GE(pid, 0);
  for (int i = 0; i < 100 && !std::filesystem::exists(dir + "/up"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGINT);
  auto start = std::chrono::steady_clock::now();
  int st = 0;
  ::waitpid(pid, &st, 0);
  std::string out = ReadOr(out_file);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15)) << out;
  ASSERT_TRUE(WIFEXITED(st)) << out;
  EXPECT_EQ(WEXITSTATUS(st), 2) << out;
  EXPECT_THAT(out, HasSubstr("second interrupt"));
  EXPECT_THAT(out, HasSubstr("[fleet] provision: killed (its process group) by a second Ctrl-C"));
  EXPECT_THAT(out, HasSubstr("WARNING: teardown of fleet was NOT run (second interrupt)"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/down")) << out;
  (void)RemoveTree(dir);
}

}  // namespace
}  // namespace pgrig::fleet
