// A plan with builds (`builds = [...]` and `[[build]]`, issue 29 point 3)
// run end to end by `pgrig run` in a pgrig home of its own: the installed
// server's cluster and a "build" made of links to the installed server's
// programs (testing::MakeLinkedBuild, or a [[build]] entry over the stand-in
// source tree that links them), so that no compiler runs; the real builds
// are src/pgbuild/real_build_serial_itest.cc's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/process.h"
#include "pg/connection.h"
#include "pgbuild/builder.h"
#include "pgbuild/stand_in_tree_for_test.h"
#include "runner/runner_itest_util.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
namespace fs = std::filesystem;

class RunBuildsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = testing::MakeTempHome("pgrig-run-builds");
    env_ = {{"PGRIG_HOME", home_}};
    dir_ = fs::path(home_).parent_path().string();
  }
  void TearDown() override {
    for (const char* name : {"", "fake"}) {
      auto c = cluster::Cluster::Open({.home = home_, .build = name});
      if (c.ok()) (void)c->Destroy();
    }
    fs::remove_all(dir_);
  }
  cluster::Cluster Open(const std::string& build) {
    auto c = cluster::Cluster::Open({.home = home_, .build = build});
    EXPECT_TRUE(c.ok()) << c.status().message();
    return std::move(c).value();
  }
  // `more`: TOML after the plan's workload ([[build]] tables).
  std::string WritePlan(const std::string& builds, const std::string& more = "") {
    const std::string path = dir_ + "/builds.toml";
    run_itest::WriteText(path,
                         "[plan]\nname = \"builds\"\nscale = 1\nclients = [2]\nthreads = [1]\n"
                         "duration_s = 1\niterations = 2\nbuilds = " +
                             builds +
                             "\n# sighup: applied per build and restored before each switch\n"
                             "settings = {checkpoint_completion_target = \"0.7\"}\n"
                             "[[workload]]\nname = \"read\"\nbuiltin = \"select-only\"\n" +
                             more);
    return path;
  }
  // The stand-in source tree at dir_/src-tree, whose install links the
  // installed server's programs.
  void WriteLinkingTree() {
    RealProcessRunner runner;
    auto bins = cluster::FindServerBinaries(runner, cluster::ClusterEnv{});
    ASSERT_TRUE(bins.ok()) << bins.status().message();
    auto recipe = pgbuild::ResolveRecipe({}, pgbuild::DetectBuildMachine());
    ASSERT_TRUE(recipe.ok()) << recipe.status().message();
    pgbuild::WriteStandInTree(dir_ + "/src-tree", recipe->make_dirs);
    run_itest::WriteText(dir_ + "/src-tree/link-server", bins->bindir);
  }

  std::string home_;
  std::string dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(RunBuildsTest, EachBuildRunsOnItsOwnClusterInterleavedAndIsCompared) {
  // fake is a [[build]] entry (a relative source: the plan's directory's),
  // made on first use.
  ASSERT_NO_FATAL_FAILURE(WriteLinkingTree());
  // The installed server's cluster runs before the suite, fake's does not.
  cluster::Cluster installed = Open("");
  ASSERT_TRUE(installed.Start().ok());
  const int installed_pid = *installed.RunningPid();
  const std::string plan =
      WritePlan("[\"installed\"]", "[[build]]\nname = \"fake\"\nsource = \"src-tree\"\n");
  const std::string out = dir_ + "/out";
  ProcessResult r = testing::RunPgrig({"run", plan, "--out", out}, env_);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("build fake is made first: PostgreSQL 15.99 from " + dir_ +
                               "/src-tree, profile default"));
  EXPECT_THAT(r.out, HasSubstr("pgrig run: build fake: configure"));
  EXPECT_THAT(r.out, HasSubstr("pgrig run: built fake (PostgreSQL 15.99, profile default)"));
  ProcessResult listed = testing::RunPgrig({"pg", "list"}, env_);
  EXPECT_THAT(listed.out, HasSubstr("fake: PostgreSQL 15.99, profile default"));
  // One cluster at a time: the installed one was stopped for fake's runs.
  EXPECT_THAT(r.err, Not(HasSubstr("is running too")));
  EXPECT_THAT(r.err, HasSubstr("build: installed, PostgreSQL"));
  EXPECT_THAT(r.err, HasSubstr("build: fake, PostgreSQL"));
  EXPECT_THAT(r.out, HasSubstr("read/simple/default/c2/j1@fake"));

  const json s = run_itest::ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["plan"]["parsed"]["builds"], json({"installed", "fake"}));
  ASSERT_EQ(s["builds"].size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    const json& server = s["builds"][b]["server"];
    ASSERT_TRUE(server.is_object()) << s["builds"].dump();
    EXPECT_TRUE(server["version_num"].is_number());
    EXPECT_TRUE(server.contains("build")) << server.dump();
  }
  EXPECT_EQ(s["builds"][0]["name"], "installed");
  EXPECT_EQ(s["builds"][1]["name"], "fake");
  ASSERT_EQ(s["cells"].size(), 2u);
  EXPECT_EQ(s["cells"][0]["id"], "read/simple/default/c2/j1@installed");
  EXPECT_EQ(s["cells"][0]["build"], "installed");
  EXPECT_EQ(s["cells"][1]["build"], "fake");

  // Interleaved build by build, the order rotated per iteration; each run
  // measured its build's server.
  ASSERT_EQ(s["runs"].size(), 4u);
  std::vector<std::string> order;
  for (const json& run : s["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const std::string cell = run["cell"];
    order.push_back(cell.substr(cell.find('@') + 1));
    const std::string target = run["result"]["server"]["target"].dump();
    if (cell.ends_with("@fake")) {
      EXPECT_THAT(target, HasSubstr(home_ + "/clusters/fake/run"));
    } else {
      EXPECT_THAT(target, Not(HasSubstr("/clusters/")));
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"installed", "fake", "fake", "installed"}));

  // Each cluster as it was before: the installed one running (started
  // again after fake's last runs), fake's stopped.
  ASSERT_TRUE(installed.RunningPid().has_value());
  EXPECT_NE(*installed.RunningPid(), installed_pid);
  EXPECT_FALSE(Open("fake").RunningPid().has_value());
  // The same data on both; the plan's server-level setting is off both.
  for (const std::string& build : {std::string(), std::string("fake")}) {
    cluster::Cluster c = Open(build);
    auto conf = ReadWholeFile(c.data_dir() + "/postgresql.auto.conf");
    ASSERT_TRUE(conf.ok());
    EXPECT_THAT(*conf, Not(HasSubstr("checkpoint_completion_target"))) << build;
    ASSERT_TRUE(c.Start().ok());
    auto conn = pg::Connect(c.Params());
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    EXPECT_EQ(*conn->QueryValue("SELECT count(*) FROM pgbench_accounts"), "100000") << build;
  }
  ASSERT_TRUE(Open("fake").Stop().ok());

  // compare with the one suite compares its builds; report adds them.
  ProcessResult cmp = testing::RunPgrig({"compare", out}, env_);
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("fake"));
  EXPECT_THAT(cmp.out, HasSubstr("installed"));
  EXPECT_THAT(cmp.out, HasSubstr("read/simple/default/c2/j1"));
  EXPECT_THAT(cmp.out, Not(HasSubstr("@fake")));
  ProcessResult rep = testing::RunPgrig({"report", out}, env_);
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_THAT(rep.out, HasSubstr("read/simple/default/c2/j1@installed"));
  EXPECT_THAT(rep.out, HasSubstr("PostgreSQL builds compared"));

  // Made once: the next run uses it as it is.
  ProcessResult again = testing::RunPgrig({"run", plan, "--dry-run"}, env_);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_THAT(again.out, Not(HasSubstr("made first")));
  EXPECT_THAT(again.out, HasSubstr("read/simple/default/c2/j1@fake"));
  // An entry that asks for it made otherwise is refused, naming both.
  const std::string other = WritePlan(
      "[\"installed\"]",
      "[[build]]\nname = \"fake\"\nsource = \"src-tree\"\nprofile = \"lto\"\ncflags = \"-g\"\n");
  ProcessResult refused = testing::RunPgrig({"run", other, "--out", dir_ + "/refused"}, env_);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_THAT(refused.err, HasSubstr(other + ":14: [[build]] 'fake'"));
  EXPECT_THAT(refused.err, HasSubstr("profile default, not lto"));
  EXPECT_THAT(refused.err, HasSubstr("do not end in \"-g\""));
  EXPECT_THAT(refused.err, HasSubstr("pgrig pg remove fake"));
  EXPECT_FALSE(fs::exists(dir_ + "/refused"));
  EXPECT_FALSE(Open("fake").RunningPid().has_value());
}

TEST_F(RunBuildsTest, CtrlCDuringAPlansBuildLeavesOnlyItsLog) {
  ASSERT_NO_FATAL_FAILURE(WriteLinkingTree());
  run_itest::WriteText(dir_ + "/src-tree/slow-make", "");  // make sleeps 30 s
  const std::string plan =
      WritePlan("[\"installed\"]", "[[build]]\nname = \"made\"\nsource = \"src-tree\"\n");
  const std::string said = dir_ + "/said.txt";
  ::setenv("PGRIG_HOME", home_.c_str(), 1);
  const pid_t pid = testing::SpawnPgrig({"run", plan, "--out", dir_ + "/out"}, said);
  ::unsetenv("PGRIG_HOME");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(testing::WaitForText(said, "build made: compile", 30)) << run_itest::Text(said);
  ::kill(-pid, SIGINT);  // as a terminal's Ctrl-C: the whole group
  EXPECT_EQ(testing::WaitExit(pid, 20), 2);
  EXPECT_THAT(run_itest::Text(said), HasSubstr("was interrupted; the build was stopped"));
  // Only the build's log; no suite, no cluster created or started.
  EXPECT_FALSE(fs::exists(pgbuild::BuildDir(home_, "made")));
  EXPECT_TRUE(fs::exists(pgbuild::BuildLog(home_, "made")));
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
  EXPECT_FALSE(fs::exists(home_ + "/data"));
  EXPECT_FALSE(fs::exists(home_ + "/clusters"));
}

TEST_F(RunBuildsTest, RefusalsStartAndCreateNothing) {
  ASSERT_NO_FATAL_FAILURE(testing::MakeLinkedBuild(home_, "fake"));
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    std::string builds;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{}, {}, "[\"installed\", \"nosuch\"]", "there is no PostgreSQL build 'nosuch'"},
      {{"--pg", "fake"}, {}, "[\"installed\", \"fake\"]", "--pg (or PGRIG_PG=fake)"},
      {{}, {{"PGRIG_PG", "fake"}}, "[\"installed\", \"fake\"]", "--pg (or PGRIG_PG=fake)"},
      {{"-h", "/tmp"}, {}, "[\"installed\", \"fake\"]", "drop -h/-p/-U/-d"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    const std::string plan = WritePlan(c.builds);
    std::vector<std::string> args = {"run", plan, "--out", dir_ + "/refused"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::map<std::string, std::string> env = env_;
    env.insert(c.env.begin(), c.env.end());
    ProcessResult r = testing::RunPgrig(args, env);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("plan 'builds' compares PostgreSQL builds"));
    EXPECT_THAT(r.err, HasSubstr(c.want));
    EXPECT_FALSE(fs::exists(dir_ + "/refused"));
    EXPECT_FALSE(fs::exists(home_ + "/data"));
    EXPECT_FALSE(fs::exists(home_ + "/clusters/fake"));
  }

  // [[build]] entries that cannot be made are refused before anything is
  // built, created or started.
  ASSERT_NO_FATAL_FAILURE(WriteLinkingTree());
  std::vector<std::pair<std::string, std::string>> entries = {
      {"[[build]]\nname = \"made\"\nsource = \"no-such-tree\"\n", "no-such-tree"},
      {"[[build]]\nname = \"made\"\nsource = \"src-tree\"\ncflags = \"-mno-such-flag-pgrig\"\n",
       "-mno-such-flag-pgrig"},
  };
  if (pgbuild::DetectBuildMachine().arch != "aarch64") {
    entries.push_back(
        {"[[build]]\nname = \"made\"\nsource = \"src-tree\"\nprofile = \"lse\"\n", "arm64"});
  }
  for (const auto& [entry, want] : entries) {
    SCOPED_TRACE(entry);
    const std::string plan = WritePlan("[\"installed\", \"fake\"]", entry);
    ProcessResult r = testing::RunPgrig({"run", plan, "--out", dir_ + "/refused"}, env_);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(plan + ":14: [[build]] 'made'"));
    EXPECT_THAT(r.err, HasSubstr(want));
    EXPECT_THAT(r.out, Not(HasSubstr("made first")));
    EXPECT_FALSE(fs::exists(dir_ + "/refused"));
    EXPECT_FALSE(fs::exists(pgbuild::BuildDir(home_, "made")));
    EXPECT_FALSE(fs::exists(pgbuild::BuildLog(home_, "made")));
    EXPECT_FALSE(fs::exists(home_ + "/data"));
    EXPECT_FALSE(fs::exists(home_ + "/clusters/fake"));
  }
}

}  // namespace
}  // namespace pgrig
