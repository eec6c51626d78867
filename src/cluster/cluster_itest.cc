// Integration tests of the embedded cluster: real initdb, real server, real
// processes.  Each test makes its own home so it can stop, crash or destroy
// its cluster without touching the shared one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "cluster/cluster.h"
#include "common/fs.h"
#include "support/test_cluster.h"

namespace pgrig::cluster {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

// Alive and not a zombie (an exited process stays a zombie until its adopting
// parent reaps it).
bool ProcessAlive(int pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = all.rfind(')');
  return paren != std::string::npos && paren + 2 < all.size() && all[paren + 2] != 'Z';
}

// Every process whose cwd is the data directory: what must be gone after stop.
int ProcessesOf(const Cluster& c) {
  int n = 0;
  std::string want = fs::canonical(c.data_dir()).string();
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::error_code ec;
    auto cwd = fs::read_symlink(e.path() / "cwd", ec);
    if (!ec && cwd == want) ++n;
  }
  return n;
}

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = testing::MakeTempHome("pgrig-cluster-itest");
    auto c = Cluster::Open({.home = home_});
    ASSERT_TRUE(c.ok()) << c.status().message();
    cluster_.emplace(std::move(c).value());
  }
  void TearDown() override {
    if (cluster_) (void)cluster_->Destroy();
    fs::remove_all(fs::path(home_).parent_path());
  }
  std::string home_;
  std::optional<Cluster> cluster_;
};

TEST_F(ClusterTest, LifecycleFromNothingToNothing) {
  auto started = cluster_->Start();
  ASSERT_TRUE(started.ok()) << started.status().message();
  EXPECT_EQ(*started, StartAction::kInitializedAndStarted);

  // Private, owned by the server account, Unix socket only.
  struct stat st;
  ASSERT_EQ(::stat(home_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, cluster_->account().uid);
  ASSERT_EQ(::stat(cluster_->data_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  auto conn = pg::Connect(cluster_->Params());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  EXPECT_EQ(*conn->QueryValue("SHOW listen_addresses"), "");
  EXPECT_EQ(*conn->QueryValue("SELECT current_database()"), "pgrig");
  EXPECT_GE(std::stoi(*conn->QueryValue("SHOW max_connections")), 100);

  auto st1 = cluster_->GetStatus();
  ASSERT_TRUE(st1.ok());
  EXPECT_TRUE(st1->running);
  EXPECT_THAT(st1->version, StartsWith(std::to_string(conn->server_version() / 10000)));
  EXPECT_EQ(st1->data_dir, home_ + "/data");
  EXPECT_EQ(st1->socket_path, home_ + "/run/.s.PGSQL.5432");
  EXPECT_TRUE(fs::exists(st1->socket_path));
  EXPECT_GT(st1->size_bytes, 1u << 20);
  EXPECT_GE(st1->uptime_s, 0.0);
  EXPECT_LT(st1->uptime_s, 600.0);

  auto again = cluster_->Start();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, StartAction::kAlreadyRunning);

  int pid = st1->pid;
  ASSERT_TRUE(cluster_->Stop().ok());
  EXPECT_FALSE(ProcessAlive(pid));
  EXPECT_EQ(ProcessesOf(*cluster_), 0);
  auto st2 = cluster_->GetStatus();
  ASSERT_TRUE(st2.ok());
  EXPECT_TRUE(st2->initialized);
  EXPECT_FALSE(st2->running);

  auto restarted = cluster_->Start();
  ASSERT_TRUE(restarted.ok());
  EXPECT_EQ(*restarted, StartAction::kStarted);

  ASSERT_TRUE(cluster_->Destroy().ok());
  EXPECT_FALSE(fs::exists(home_));
  EXPECT_FALSE(fs::exists(home_ + ".lock"));
}

TEST_F(ClusterTest, RecoversFromACrashedPostmaster) {
  ASSERT_TRUE(cluster_->Start().ok());
  auto pid = cluster_->RunningPid();
  ASSERT_TRUE(pid);
  ::kill(*pid, SIGKILL);
  for (int i = 0; i < 100 && ProcessAlive(*pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(fs::exists(cluster_->data_dir() + "/postmaster.pid"));
  auto r = cluster_->Start();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, StartAction::kStarted);
  EXPECT_TRUE(pg::Connect(cluster_->Params()).ok());
}

TEST_F(ClusterTest, IgnoresAPidFileNamingSomeoneElsesProcess) {
  ASSERT_TRUE(cluster_->Start().ok());
  ASSERT_TRUE(cluster_->Stop().ok());
  // A stale pid file whose pid now belongs to an unrelated live process (this
  // test): PostgreSQL alone would refuse to start.
  std::string pidfile = cluster_->data_dir() + "/postmaster.pid";
  ASSERT_TRUE(WriteFileAtomically(pidfile,
                                  std::to_string(::getpid()) + "\n" + cluster_->data_dir() +
                                      "\n1700000000\n5432\n\n\n",
                                  0600)
                  .ok());
  EXPECT_FALSE(cluster_->RunningPid());
  auto r = cluster_->Start();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(cluster_->RunningPid());
}

TEST_F(ClusterTest, AFailedStartLeavesNothingRunning) {
  ASSERT_TRUE(cluster_->Start().ok());
  ASSERT_TRUE(cluster_->Stop().ok());
  {
    std::ofstream conf(cluster_->data_dir() + "/pgrig.conf", std::ios::app);
    conf << "shared_buffers = 'lots'\n";
  }
  auto r = cluster_->Start();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("did not start"));
  EXPECT_THAT(r.status().message(), HasSubstr("shared_buffers"));
  EXPECT_FALSE(cluster_->RunningPid());
  EXPECT_EQ(ProcessesOf(*cluster_), 0);
}

TEST_F(ClusterTest, TwoConcurrentStartsMakeOneServer) {
  // Two pgrig processes at once: the lock makes one create the cluster and
  // the other find it running.
  auto a = std::async(std::launch::async, [&] {
    return testing::RunPgrig({"cluster", "start"}, {{"PGRIG_HOME", home_}});
  });
  auto b = std::async(std::launch::async, [&] {
    return testing::RunPgrig({"cluster", "start"}, {{"PGRIG_HOME", home_}});
  });
  auto ra = a.get(), rb = b.get();
  EXPECT_EQ(ra.exit_code, 0) << ra.err;
  EXPECT_EQ(rb.exit_code, 0) << rb.err;
  std::string both = ra.out + rb.out;
  EXPECT_THAT(both, HasSubstr("created and started"));
  EXPECT_THAT(both, HasSubstr("already running"));
  EXPECT_TRUE(cluster_->RunningPid());
}

TEST_F(ClusterTest, CliStatusStopAndLogs) {
  std::map<std::string, std::string> env = {{"PGRIG_HOME", home_}};
  auto none = testing::RunPgrig({"cluster", "status"}, env);
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_THAT(none.out, HasSubstr("not created"));
  auto started = testing::RunPgrig({"cluster", "start"}, env);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  // A new embedded cluster gets the tuner's benchmark profile (issue 6).
  EXPECT_THAT(started.err, HasSubstr("benchmark profile"));
  auto conn = pg::Connect(cluster_->Params());
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  EXPECT_EQ(*conn->QueryValue("SHOW synchronous_commit"), "off");
  EXPECT_EQ(*conn->QueryValue("SHOW wal_level"), "minimal");
  auto st = testing::RunPgrig({"cluster", "status", "--json"}, env);
  EXPECT_EQ(st.exit_code, 0);
  EXPECT_THAT(st.out, HasSubstr("\"running\": true"));
  EXPECT_THAT(st.out, HasSubstr("\"socket_dir\": \"" + home_ + "/run\""));
  auto logs = testing::RunPgrig({"cluster", "logs", "-n", "5"}, env);
  EXPECT_EQ(logs.exit_code, 0);
  EXPECT_THAT(logs.out, HasSubstr("database system is ready to accept connections"));
  auto stop = testing::RunPgrig({"cluster", "stop"}, env);
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_EQ(ProcessesOf(*cluster_), 0);
  auto bad = testing::RunPgrig({"cluster", "frobnicate"}, env);
  EXPECT_EQ(bad.exit_code, 1);
}

// $PGRIG_EMBEDDED_MEMORY sizes a new cluster's tuning for the memory it
// gives instead of this machine's; a malformed or out-of-range value is
// refused before anything is created.
TEST_F(ClusterTest, NewClusterIsTunedForTheMemoryGiven) {
  for (const char* bad : {"lots", "100MB", "-1GB"}) {
    auto r = testing::RunPgrig({"cluster", "start"},
                               {{"PGRIG_HOME", home_}, {"PGRIG_EMBEDDED_MEMORY", bad}});
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_THAT(r.err, HasSubstr(std::string("PGRIG_EMBEDDED_MEMORY=") + bad));
    EXPECT_FALSE(fs::exists(cluster_->data_dir())) << bad;
  }
  auto started = testing::RunPgrig({"cluster", "start"},
                                   {{"PGRIG_HOME", home_}, {"PGRIG_EMBEDDED_MEMORY", "1GB"}});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  EXPECT_THAT(started.err, HasSubstr("benchmark profile for 1.0 GB of memory"));
  // What the tuner recommends for a 1 GB machine is what the server runs with.
  auto offline =
      testing::RunPgrig({"tune", "--offline", "--memory", "1GB", "--cpus", "2", "--profile",
                         "benchmark", "--server-version", "15", "--format", "conf"});
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  {
    auto conn = pg::Connect(cluster_->Params());
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    const std::string shared_buffers = *conn->QueryValue("SHOW shared_buffers");
    EXPECT_THAT(offline.out, HasSubstr("shared_buffers = '" + shared_buffers + "'"));
    EXPECT_EQ(shared_buffers, "256MB");
  }

  // Unset (or empty), the tuning is for this machine's memory again.
  ASSERT_TRUE(cluster_->Destroy().ok());
  auto machine = testing::RunPgrig({"cluster", "start"},
                                   {{"PGRIG_HOME", home_}, {"PGRIG_EMBEDDED_MEMORY", ""}});
  ASSERT_EQ(machine.exit_code, 0) << machine.err;
  EXPECT_THAT(machine.err, HasSubstr("benchmark profile"));
  EXPECT_THAT(machine.err, ::testing::Not(HasSubstr("PGRIG_EMBEDDED_MEMORY")));
  if (::sysconf(_SC_PHYS_PAGES) * ::sysconf(_SC_PAGE_SIZE) > (int64_t{4} << 30)) {
    auto again = pg::Connect(cluster_->Params());
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_NE(*again->QueryValue("SHOW shared_buffers"), "256MB");
  }
}

TEST(ClusterFaults, MissingServerBinariesIsOneClearLine) {
  std::string home = testing::MakeTempHome("pgrig-nobins");
  auto r = testing::RunPgrig({"cluster", "start"},
                             {{"PGRIG_HOME", home}, {"PGRIG_PG_BINDIR", "/nonexistent/bin"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("PGRIG_PG_BINDIR=/nonexistent/bin"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  fs::remove_all(fs::path(home).parent_path());
}

TEST(ClusterFaults, UnwritableHomeIsOneClearLine) {
  // A regular file where a directory should be: not creatable, even for root.
  std::string dir = testing::MakeTempHome("pgrig-unwritable");
  std::string parent = fs::path(dir).parent_path().string();
  ASSERT_TRUE(WriteFileAtomically(parent + "/file", "x").ok());
  auto r = testing::RunPgrig({"cluster", "start"}, {{"PGRIG_HOME", parent + "/file/home"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("PGRIG_HOME"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  fs::remove_all(parent);
}

TEST(ClusterFaults, RootHomeUnreachableForTheServerAccountIsExplained) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root drops privileges";
  struct stat st;
  ASSERT_EQ(::stat("/root", &st), 0);
  if ((st.st_mode & 0001) != 0) GTEST_SKIP() << "/root is open to others on this machine";
  auto r = testing::RunPgrig({"cluster", "start"}, {{"PGRIG_HOME", "/root/pgrig-unreachable"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot reach /root/pgrig-unreachable"));
  EXPECT_THAT(r.err, HasSubstr("/var/lib/pgrig"));
  EXPECT_FALSE(fs::exists("/root/pgrig-unreachable"));
}

}  // namespace
}  // namespace pgrig::cluster
