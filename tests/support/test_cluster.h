// Support for integration tests (*_itest.cc): a real embedded PostgreSQL
// cluster, never a mock.
//
// All integration tests of one build share one cluster whose home is
// /tmp/pgrig-test-<uid>-<hash of the build directory> (under /tmp so that the
// server account can reach it when tests run as root).  CTest starts it in
// the fixture test "embedded_cluster_start" and destroys it in
// "embedded_cluster_destroy"; a test binary run by hand starts it on first
// use (Start() is idempotent and locked).  Tests that stop, crash or destroy
// a cluster make their own with MakeTempHome().
#ifndef PGRIG_TESTS_SUPPORT_TEST_CLUSTER_H_
#define PGRIG_TESTS_SUPPORT_TEST_CLUSTER_H_

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/process.h"
#include "pg/connection.h"

namespace pgrig::testing {

std::string SharedHome();
// The shared cluster, started if needed; aborts the test binary on failure.
cluster::Cluster& SharedCluster();
pg::ConnectionParams SharedParams(const std::string& dbname = "pgrig");
pg::Connection ConnectShared(const std::string& dbname = "pgrig");

// A fresh, empty database `name` in the shared cluster (dropped first if it
// exists), and the options that name it: -h HOST -p PORT -U USER -d NAME.
std::vector<std::string> FreshDatabase(const std::string& name);

// `p` as a pgbench-style command line: -h HOST -p PORT -U USER (each only
// when set), then the database name last.
std::vector<std::string> ConnArgs(const pg::ConnectionParams& p);

// A fresh empty directory under /tmp that the server account can reach.
std::string MakeTempHome(const std::string& prefix);

// A PostgreSQL "build" named `name` under the pgrig home `home`
// (home/pg/NAME/bin) made of links to the installed server's programs: for
// tests of what runs a build (--pg, plans' builds) that need no compiler.
// Records a fatal failure when the installed server is not found.
void MakeLinkedBuild(const std::string& home, const std::string& name);

// Embedded clusters that a test made under MakeTempHome() homes (for hosts
// that run their own): each is destroyed, and its temporary directory
// removed, when this goes out of scope, also when the test failed.
struct TempClusters {
  std::vector<std::string> homes;  // MakeTempHome() values
  TempClusters() = default;
  TempClusters(const TempClusters&) = delete;
  TempClusters& operator=(const TempClusters&) = delete;
  ~TempClusters();
};

// A private embedded cluster for one test suite (for tests that restart the
// server or change its settings, which must not disturb the shared cluster),
// made under a MakeTempHome(prefix) home and started.  Records a fatal
// failure and returns nullptr when that fails.  The caller owns it and ends
// it with DestroyPrivateCluster.
cluster::Cluster* StartPrivateCluster(const std::string& prefix);

// Destroys `c`, removes its MakeTempHome directory (with whatever a test put
// beside the home) and deletes it; nullptr does nothing.
void DestroyPrivateCluster(cluster::Cluster* c);

// A test suite on a private cluster (StartPrivateCluster): the derived
// fixture's SetUpTestSuite calls StartCluster(prefix); the cluster is
// started again before a test when an earlier one left it stopped, and
// destroyed after the suite.  `Suite` is the derived fixture, so that each
// fixture has a cluster of its own.
template <typename Suite>
class PrivateClusterTest : public ::testing::Test {
 protected:
  static void StartCluster(const std::string& prefix) { cluster_ = StartPrivateCluster(prefix); }
  static void TearDownTestSuite() {
    DestroyPrivateCluster(cluster_);
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr);
    if (!cluster_->RunningPid()) {
      ASSERT_TRUE(cluster_->Start().ok());
    }
  }

  // postgresql.auto.conf as the server parses it ("name=setting", in order).
  static std::vector<std::string> AutoConf(pg::Connection& c) {
    auto r = c.Exec(
        "SELECT name || '=' || setting FROM pg_file_settings "
        "WHERE sourcefile LIKE '%/postgresql.auto.conf' ORDER BY seqno");
    EXPECT_TRUE(r.ok());
    std::vector<std::string> out;
    for (int i = 0; r.ok() && i < r->rows(); ++i) out.emplace_back(r->Get(i, 0));
    return out;
  }

  static inline cluster::Cluster* cluster_ = nullptr;
};

// The pgrig executable of this build.
std::string PgrigExe();

// Runs `o`; a program that could not run gives a result whose `err` says why.
ProcessResult RunProcess(const ProcessOptions& o);

// Runs `program` with `args`; env entries are added to the environment.  A
// program that could not run gives a result whose `err` says why.
ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env,
                         const std::string& stdin_data, std::chrono::milliseconds timeout);

// Runs the pgrig executable; env entries are added to the environment.
// Killed after `timeout`.
ProcessResult RunPgrig(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {},
                       const std::string& stdin_data = "",
                       std::chrono::milliseconds timeout = std::chrono::minutes(10));

// Starts the pgrig executable with `args` in a process group of its own (so
// that a test can signal it and everything it started, as a terminal's Ctrl-C
// does), its standard output into `out_file` and its standard error into
// `err_file` (empty: into `out_file` too); its pid, or -1.
pid_t SpawnPgrig(const std::vector<std::string>& args, const std::string& out_file,
                 const std::string& err_file = "");

// Waits up to timeout_s for `pid` to end: its exit code, -2 when a signal
// ended it, or -1 when the time ran out (it is then killed and reaped).
int WaitExit(pid_t pid, double timeout_s);

// Waits up to timeout_s for `text` to appear in `file` (a spawned program's
// output, say); whether it did.
bool WaitForText(const std::string& file, const std::string& text, double timeout_s);

// Runs a program (pgbench, psql, ...) from the server's bin directory.
ProcessResult RunServerTool(const std::string& tool, const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env = {});

}  // namespace pgrig::testing

#endif  // PGRIG_TESTS_SUPPORT_TEST_CLUSTER_H_
