#include "cluster/cluster.h"

#include <unistd.h>

#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

TEST(DefaultHome, HonoursPgrigHome) {
  ::setenv("PGRIG_HOME", "/somewhere/else", 1);
  EXPECT_EQ(DefaultHome(), "/somewhere/else");
  ::unsetenv("PGRIG_HOME");
}

TEST(DefaultHome, RootGetsADirectoryTheServerAccountCanReach) {
  ::unsetenv("PGRIG_HOME");
  if (::geteuid() == 0) {
    // Root's home is mode 0700: the postgres account could not reach a
    // cluster under ~/.local/share.
    EXPECT_EQ(DefaultHome(), "/var/lib/pgrig");
  } else {
    ::setenv("XDG_DATA_HOME", "/x/data", 1);
    EXPECT_EQ(DefaultHome(), "/x/data/pgrig");
    ::unsetenv("XDG_DATA_HOME");
  }
}

TEST(ChooseServerAccount, RootNeedsAnUnprivilegedAccount) {
  if (::geteuid() != 0) {
    auto a = ChooseServerAccount();
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->is_self);
    return;
  }
  ::setenv("PGRIG_SERVER_USER", "no-such-account-pgrig", 1);
  auto missing = ChooseServerAccount();
  ::unsetenv("PGRIG_SERVER_USER");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such-account-pgrig"));
  EXPECT_THAT(missing.status().message(), HasSubstr("useradd"));

  ::setenv("PGRIG_SERVER_USER", "root", 1);
  auto root = ChooseServerAccount();
  ::unsetenv("PGRIG_SERVER_USER");
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
  auto b = FindServerBinaries(runner);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->bindir, dir);
  EXPECT_EQ(b->major_version, 16);
  EXPECT_EQ(b->version, "16.4");
  std::system(("rm -rf " + dir).c_str());
}

TEST(FindServerBinaries, ExplainsAWrongOverride) {
  ::setenv("PGRIG_PG_BINDIR", "/nonexistent/bin", 1);
  auto b = FindServerBinaries(RealProcessRunner());
  ::unsetenv("PGRIG_PG_BINDIR");
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
