#include "cluster/cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

namespace pgrig::cluster {
namespace {

using ::testing::HasSubstr;

TEST(SizeForMemory, QuarterForSharedBuffersWithinBounds) {
  auto s = SizeForMemory(24ull << 30);
  EXPECT_EQ(s.shared_buffers_mb, 6144u);
  EXPECT_EQ(s.effective_cache_size_mb, 18432u);
  EXPECT_EQ(s.maintenance_work_mem_mb, 1536u);
  EXPECT_EQ(s.max_connections, 1100);
  auto tiny = SizeForMemory(512ull << 20);
  EXPECT_EQ(tiny.shared_buffers_mb, 128u);
  EXPECT_EQ(tiny.max_connections, 100);
  auto huge = SizeForMemory(512ull << 30);
  EXPECT_EQ(huge.shared_buffers_mb, 8192u);
  EXPECT_EQ(huge.maintenance_work_mem_mb, 2048u);
}

// The environment is given, never set: these tests leave the process's
// environment alone and do not depend on it.
TEST(ClusterEnv, DefaultHomeFromTheGivenEnvironment) {
  const uid_t user = ::geteuid() == 0 ? 1000 : ::geteuid();
  EXPECT_EQ(DefaultHome({.pgrig_home = "/somewhere/else", .xdg_data_home = "/x", .euid = user}),
            "/somewhere/else");
  EXPECT_EQ(DefaultHome({.pgrig_home = "/somewhere/else", .euid = 0}), "/somewhere/else");
  // Root's home is mode 0700: the postgres account could not reach a
  // cluster under ~/.local/share.
  EXPECT_EQ(DefaultHome({.xdg_data_home = "/x/data", .home = "/root", .euid = 0}),
            "/var/lib/pgrig");
  EXPECT_EQ(DefaultHome({.xdg_data_home = "/x/data", .home = "/h", .euid = user}), "/x/data/pgrig");
  EXPECT_EQ(DefaultHome({.home = "/h", .euid = user}), "/h/.local/share/pgrig");
}

TEST(ClusterEnv, OpenTakesTheHomeFromTheGivenEnvironment) {
  const uid_t user = ::geteuid() == 0 ? 1000 : ::geteuid();
  auto c = Cluster::Open({.env = ClusterEnv{.pgrig_home = "/tmp/pgrig-env-test/", .euid = user}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->home(), "/tmp/pgrig-env-test");
  EXPECT_TRUE(c->account().is_self);
}

TEST(ClusterEnv, FromProcessReadsTheVariables) {
  const char* home = std::getenv("PGRIG_HOME");
  ClusterEnv env = ClusterEnv::FromProcess();
  EXPECT_EQ(env.pgrig_home, home ? home : "");
  EXPECT_EQ(env.euid, ::geteuid());
}

TEST(ChooseServerAccount, RootNeedsAnUnprivilegedAccount) {
  auto self = ChooseServerAccount({.server_user = "ignored-when-not-root", .euid = 4321});
  ASSERT_TRUE(self.ok());
  EXPECT_TRUE(self->is_self);
  EXPECT_EQ(self->uid, 4321u);

  auto missing = ChooseServerAccount({.server_user = "no-such-account-pgrig", .euid = 0});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such-account-pgrig"));
  EXPECT_THAT(missing.status().message(), HasSubstr("useradd"));

  auto root = ChooseServerAccount({.server_user = "root", .euid = 0});
  ASSERT_FALSE(root.ok());
  EXPECT_THAT(root.status().message(), HasSubstr("refuses to run as root"));
}

// Answers pg_config and postgres --version like a real installation.
class FakeRunner : public ProcessRunner {
 public:
  Result<ProcessResult> Run(const ProcessOptions& o) const override {
    ProcessResult r;
    r.exit_code = 0;
    if (o.argv[0] == "pg_config") {
      r.out = bindir + "\n";
    } else if (o.argv[0].ends_with("/postgres")) {
      r.out = "postgres (PostgreSQL) 16.4 (Debian 16.4-1)\n";
    } else {
      r.exit_code = 1;
    }
    return r;
  }
  std::string bindir;
};

TEST(FindServerBinaries, PrefersPgConfigAndReadsTheVersion) {
  char tmpl[] = "/tmp/pgrig-bins-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  for (const char* b : {"postgres", "initdb", "pg_ctl"}) {
    std::string p = dir + "/" + b;
    FILE* f = std::fopen(p.c_str(), "w");
    std::fclose(f);
    ::chmod(p.c_str(), 0755);
  }
  FakeRunner runner;
  runner.bindir = dir;
  auto b = FindServerBinaries(runner, {.pg_bindir = ""});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->bindir, dir);
  EXPECT_EQ(b->major_version, 16);
  EXPECT_EQ(b->version, "16.4");
  std::system(("rm -rf " + dir).c_str());
}

TEST(FindServerBinaries, ExplainsAWrongOverride) {
  auto b = FindServerBinaries(RealProcessRunner(), {.pg_bindir = "/nonexistent/bin"});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(b.status().message(), HasSubstr("PGRIG_PG_BINDIR=/nonexistent/bin"));
}

TEST(FileLock, SecondHolderTimesOut) {
  std::string path = "/tmp/pgrig-lock-test-" + std::to_string(::getpid());
  auto first = FileLock::Acquire(path, 1);
  ASSERT_TRUE(first.ok());
  // flock locks belong to the open file description, so a second open in
  // the same process conflicts just as another process would.
  auto second = FileLock::Acquire(path, 0);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("another pgrig process"));
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace pgrig::cluster
