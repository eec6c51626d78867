// A PostgreSQL build's own cluster (`--pg NAME`, $PGRIG_PG; issue 29 point
// 2), on a real server.  The "build" is the installed server's binaries
// linked into PGRIG_HOME/pg/NAME/bin, so that these tests need no compiler:
// what is tested is where the cluster lives, which binaries it runs and what
// the commands refuse; src/pgbuild/ tests the building.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cluster/cluster.h"
#include "pg/connection.h"
#include "support/test_cluster.h"

namespace pgrig::cluster {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class BuildClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = testing::MakeTempHome("pgrig-build-cluster");
    env_ = {{"PGRIG_HOME", home_}};
  }
  void TearDown() override {
    for (const char* name : {"fake", "other"}) {
      auto c = Cluster::Open({.home = home_, .build = name});
      if (c.ok()) (void)c->Destroy();
    }
    fs::remove_all(fs::path(home_).parent_path());
  }
  std::string home_;
  std::map<std::string, std::string> env_;
};

TEST_F(BuildClusterTest, OneDataDirectoryPerBuildRunningItsBinaries) {
  ASSERT_NO_FATAL_FAILURE(testing::MakeLinkedBuild(home_, "fake"));
  auto start = testing::RunPgrig({"cluster", "start", "--pg", "fake"}, env_);
  ASSERT_EQ(start.exit_code, 0) << start.err;
  EXPECT_THAT(start.out, HasSubstr(home_ + "/clusters/fake"));

  auto st = testing::RunPgrig({"cluster", "--pg=fake", "status", "--json"}, env_);
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_THAT(st.out, HasSubstr("\"build\": \"fake\""));
  EXPECT_THAT(st.out, HasSubstr("\"data_dir\": \"" + home_ + "/clusters/fake/data\""));
  EXPECT_THAT(st.out, HasSubstr("\"bindir\": \"" + home_ + "/pg/fake/bin\""));
  EXPECT_THAT(st.out, HasSubstr("\"running\": true"));
  // The installed server's cluster was neither created nor started.
  EXPECT_FALSE(fs::exists(home_ + "/data"));

  // The server that answers is the one started from the build's bin/.
  auto c = Cluster::Open({.home = home_, .build = "fake"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto pid = c->RunningPid();
  ASSERT_TRUE(pid.has_value());
  EXPECT_EQ(fs::read_symlink("/proc/" + std::to_string(*pid) + "/cwd"),
            fs::canonical(home_ + "/clusters/fake/data"));

  // The commands that load and measure use it: --pg, and PGRIG_PG the same.
  auto init = testing::RunPgrig({"init", "--pg", "fake", "-s", "1", "-q"}, env_);
  ASSERT_EQ(init.exit_code, 0) << init.err;
  auto env = env_;
  env["PGRIG_PG"] = "fake";
  auto bench = testing::RunPgrig({"bench", "-S", "-t", "50", "-c", "2"}, env);
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_THAT(bench.out, HasSubstr("number of transactions actually processed: 100/100"));
  auto conn = pg::Connect(c->Params());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  EXPECT_EQ(*conn->QueryValue("SELECT count(*) FROM pgbench_accounts"), "100000");
  EXPECT_FALSE(fs::exists(home_ + "/data"));

  // A build whose cluster runs is not removed; stopped, both go.
  auto busy = testing::RunPgrig({"pg", "remove", "fake"}, env_);
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_THAT(busy.err, HasSubstr("pgrig cluster stop --pg fake"));
  EXPECT_TRUE(fs::exists(home_ + "/pg/fake/bin/postgres"));
  auto stop = testing::RunPgrig({"cluster", "stop", "--pg", "fake"}, env_);
  ASSERT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_FALSE(c->RunningPid().has_value());
  auto removed = testing::RunPgrig({"pg", "remove", "fake"}, env_);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_FALSE(fs::exists(home_ + "/pg/fake"));
  EXPECT_FALSE(fs::exists(home_ + "/clusters/fake"));
}

TEST_F(BuildClusterTest, DestroyingAClusterLeavesTheBuildsAndOtherClusters) {
  ASSERT_NO_FATAL_FAILURE(testing::MakeLinkedBuild(home_, "fake"));
  ASSERT_NO_FATAL_FAILURE(testing::MakeLinkedBuild(home_, "other"));
  auto fake = Cluster::Open({.home = home_, .build = "fake"});
  auto other = Cluster::Open({.home = home_, .build = "other"});
  ASSERT_TRUE(fake.ok() && other.ok());
  ASSERT_TRUE(fake->Start().ok());
  ASSERT_TRUE(other->Start().ok());
  EXPECT_NE(fake->data_dir(), other->data_dir());
  // Each sees the other running, and the command that starts one says so.
  auto seen = fake->OthersRunning();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].build, "other");
  EXPECT_EQ(seen[0].home, home_ + "/clusters/other");
  auto again = testing::RunPgrig({"cluster", "start", "--pg", "other"}, env_);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("the embedded cluster of build fake is running too"));
  EXPECT_THAT(again.err, HasSubstr("pgrig cluster stop --pg fake"));
  ASSERT_TRUE(fake->Destroy().ok());
  EXPECT_FALSE(fs::exists(home_ + "/clusters/fake"));
  EXPECT_TRUE(other->RunningPid().has_value());
  EXPECT_TRUE(fs::exists(home_ + "/pg/fake/bin/postgres"));
  ASSERT_TRUE(other->Stop().ok());

  // The installed server's cluster lives in the home itself, beside pg/:
  // destroying it removes what it made and nothing else.
  auto base = Cluster::Open({.home = home_});
  ASSERT_TRUE(base.ok());
  fs::create_directories(base->data_dir());
  fs::create_directories(base->socket_dir());
  ASSERT_TRUE(base->Destroy().ok());
  EXPECT_FALSE(fs::exists(base->data_dir()));
  EXPECT_TRUE(fs::exists(home_ + "/pg/other/bin/postgres"));
  EXPECT_TRUE(fs::exists(home_ + "/clusters/other/data/PG_VERSION"));
}

// Each refusal: exit 1, one line naming the problem, nothing created.
TEST_F(BuildClusterTest, RefusedBeforeAnythingIsCreated) {
  struct Case {
    std::vector<std::string> args;
    std::map<std::string, std::string> extra_env;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"cluster", "start", "--pg", "nosuch"}, {}, "there is no PostgreSQL build 'nosuch'"},
      {{"bench", "-S", "-t", "1", "--pg", "nosuch"}, {}, "there is no PostgreSQL build"},
      {{"bench", "-S", "-t", "1", "--pg", "../up"}, {}, "--pg: "},
      {{"bench", "-S", "-t", "1", "--pg"}, {}, "--pg needs the name"},
      {{"compare", "--pg", "fake", "a.json", "b.json"}, {}, "does not use one"},
      {{"bench", "-S", "-t", "1", "-h", "/nonexistent", "--pg", "fake"},
       {},
       "names a server (-h/-p/-U/-d"},
      {{"cluster", "start", "--pg", "fake"},
       {{"PGRIG_PG_BINDIR", "/usr/bin"}},
       "both name the server to run"},
  };
  for (const Case& k : cases) {
    auto env = env_;
    env.insert(k.extra_env.begin(), k.extra_env.end());
    auto r = testing::RunPgrig(k.args, env);
    EXPECT_EQ(r.exit_code, 1) << k.says << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(k.says));
    EXPECT_FALSE(fs::exists(home_)) << k.says;
  }
}

}  // namespace
}  // namespace pgrig::cluster
