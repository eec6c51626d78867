// `pgrig pg build|list|remove` through the executable, on the stand-in
// source tree (stand_in_tree_for_test.h) and a PGRIG_HOME of its own: what
// a refused command line leaves (nothing), what a build prints and lists,
// Ctrl-C during a build, and removal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/fs.h"
#include "pgbuild/builder.h"
#include "pgbuild/stand_in_tree_for_test.h"
#include "support/test_cluster.h"

namespace pgrig::pgbuild {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class PgCliITest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig-pg-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    home_ = dir_ + "/home";
    tree_ = dir_ + "/postgresql-15.99";
    WriteStandInTree(tree_, ResolveRecipe({}, BuildMachine{}).value().make_dirs);
  }
  void TearDown() override { fs::remove_all(dir_); }
  ProcessResult Pg(std::vector<std::string> args) {
    args.insert(args.begin(), "pg");
    return testing::RunPgrig(args, {{"PGRIG_HOME", home_}});
  }
  std::string dir_, home_, tree_;
};

TEST_F(PgCliITest, RefusedCommandLinesCreateNothing) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"build", dir_ + "/missing", "--name", "x"}, "the source " + dir_ + "/missing"},
      {{"build", tree_, "--name", "a/b"}, "build name \"a/b\""},
      {{"build", tree_, "--name", "x", "--profile", "fast"}, "unknown build profile \"fast\""},
      {{"build", tree_, "--name", "x", "--cflags=-mno-such-flag-pgrig"}, "do not compile"},
      {{"build", tree_, "--name", "x", "--configure=--prefix=/usr"}, "under PGRIG_HOME/pg/NAME"},
      {{"build", tree_}, "--name is required"},
      {{"remove", "nosuch"}, "no build named \"nosuch\""},
  };
  utsname u;
  if (uname(&u) == 0 && std::string(u.machine) == "x86_64") {
    cases.push_back({{"build", tree_, "--name", "x", "--profile", "lse"}, "for arm64 machines"});
  }
  for (const Case& c : cases) {
    ProcessResult r = Pg(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args[1] << " " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.says));
    EXPECT_FALSE(fs::exists(home_)) << c.says;
  }
  ProcessResult list = Pg({"list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_THAT(list.out, HasSubstr("no builds under " + home_ + "/pg"));
  EXPECT_FALSE(fs::exists(home_));
}

TEST_F(PgCliITest, BuildListJsonAndRemove) {
  ProcessResult b = Pg({"build", tree_, "--name", "native15", "--profile", "native", "-j", "2"});
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  EXPECT_THAT(b.out, HasSubstr("pgrig pg build: configure: PostgreSQL 15.99, profile native"));
  EXPECT_THAT(b.out, HasSubstr("pgrig pg build: compile: make -j2"));
  EXPECT_THAT(b.out, HasSubstr("built native15: PostgreSQL 15.99, profile native"));
  EXPECT_THAT(b.out, HasSubstr("CFLAGS -O3 -m"));  // -march=native or -mcpu=native

  ProcessResult l = Pg({"list"});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_THAT(l.out, HasSubstr("native15: PostgreSQL 15.99, profile native"));
  EXPECT_THAT(l.out, HasSubstr("  compiler "));
  ProcessResult j = Pg({"list", "--json"});
  ASSERT_EQ(j.exit_code, 0);
  const auto a = nlohmann::json::parse(j.out);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]["schema"], kManifestSchema);
  EXPECT_EQ(a[0]["profile"], "native");
  EXPECT_EQ(a[0]["version"], "15.99");

  ProcessResult again = Pg({"build", tree_, "--name", "native15"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("exists"));

  ProcessResult rm = Pg({"remove", "native15"});
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  EXPECT_THAT(Pg({"list"}).out, HasSubstr("no builds"));
}

TEST_F(PgCliITest, CtrlCStopsTheBuildAndLeavesOnlyTheLog) {
  std::ofstream(tree_ + "/slow-make") << "";
  const std::string out = dir_ + "/out.txt";
  ::setenv("PGRIG_HOME", home_.c_str(), 1);
  const pid_t pid = testing::SpawnPgrig({"pg", "build", tree_, "--name", "slow"}, out);
  ::unsetenv("PGRIG_HOME");
  ASSERT_GT(pid, 0);
  // Wait for the compile step, then interrupt the whole group as a
  // terminal's Ctrl-C does.
  ASSERT_TRUE(testing::WaitForText(out, "compile:", 30))
      << "the compile step's line, flushed as it starts";
  const auto interrupted = std::chrono::steady_clock::now();
  ::kill(-pid, SIGINT);
  const int code = testing::WaitExit(pid, 20);
  EXPECT_EQ(code, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - interrupted, std::chrono::seconds(8));
  EXPECT_THAT(ReadWholeFile(out).value(), HasSubstr("was interrupted; the build was stopped"));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(home_ + "/pg")) {
    left.push_back(e.path().filename().string());
  }
  EXPECT_EQ(left, std::vector<std::string>{"logs"});
  EXPECT_TRUE(fs::exists(BuildLog(home_, "slow")));
}

}  // namespace
}  // namespace pgrig::pgbuild
