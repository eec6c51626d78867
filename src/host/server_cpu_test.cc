// ServerCpuMeter against a process tree the test makes (a stand-in for the
// postmaster with children that burn a known CPU time, one exiting and reaped
// inside the window), and the locality checks against fixture procfs trees.
#include "host/server_cpu.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;

double CpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Burns `s` seconds of this process's CPU (whatever the machine's load).
void Burn(double s) {
  const double start = CpuNow();
  volatile uint64_t x = 0;
  while (CpuNow() - start < s) {
    for (int i = 0; i < 1000; ++i) x = x + static_cast<uint64_t>(i);
  }
}

void WriteByte(int fd) {
  const char c = 'x';
  if (write(fd, &c, 1) != 1) _exit(3);
}
bool ReadByte(int fd) {
  char c = 0;
  return read(fd, &c, 1) == 1;
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe(fd) != 0) fd[0] = fd[1] = -1;
  }
  int r() const { return fd[0]; }
  int w() const { return fd[1]; }
};

// The tree: root R (the test's stand-in for a postmaster) with children A
// and B.  B burns 0.1 s before the window.  In the window A burns 0.3 s and
// exits, R reaps it; B burns 0.2 s and reports.  B exits when told; R reaps
// it and exits when B is gone.
class Tree {
 public:
  static constexpr double kBeforeB = 0.1, kWindowA = 0.3, kWindowB = 0.2;

  Tree() {
    root_ = fork();
    if (root_ == 0) {
      setpgid(0, 0);  // the destructor kills the whole tree through its group
      RootMain();
    }
    if (root_ > 0) setpgid(root_, root_);
    // The test's ends: it writes go_, b_exit_; reads ready_, a_reaped_, b_done_.
  }
  ~Tree() {
    if (root_ > 0) {
      kill(-root_, SIGKILL);
      int st = 0;
      waitpid(root_, &st, 0);
    }
  }
  pid_t root() const { return root_; }
  bool WaitReady() { return ReadByte(ready_.r()) && ReadByte(ready_.r()); }
  void Go() {
    WriteByte(go_.w());
    WriteByte(go_.w());
  }
  bool WaitWindowWork() { return ReadByte(a_reaped_.r()) && ReadByte(b_done_.r()); }
  void LetBExit() { WriteByte(b_exit_.w()); }
  bool WaitRootExit() {
    int st = 0;
    const bool ok = waitpid(root_, &st, 0) == root_ && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    root_ = -1;
    return ok;
  }

 private:
  [[noreturn]] void RootMain() {
    const pid_t a = fork();
    if (a == 0) {
      WriteByte(ready_.w());
      if (!ReadByte(go_.r())) _exit(2);
      Burn(kWindowA);
      _exit(0);
    }
    const pid_t b = fork();
    if (b == 0) {
      Burn(kBeforeB);
      WriteByte(ready_.w());
      if (!ReadByte(go_.r())) _exit(2);
      Burn(kWindowB);
      WriteByte(b_done_.w());
      if (!ReadByte(b_exit_.r())) _exit(2);
      _exit(0);
    }
    int st = 0;
    if (waitpid(a, &st, 0) != a) _exit(4);
    WriteByte(a_reaped_.w());
    if (waitpid(b, &st, 0) != b) _exit(4);
    _exit(0);
  }

  Pipe go_, ready_, a_reaped_, b_done_, b_exit_;
  pid_t root_ = -1;
};

// Ticks of slack: each snapshot reads three processes, each exact to a tick,
// plus the fork/exit work of the children.
double Slack() { return 8.0 / static_cast<double>(sysconf(_SC_CLK_TCK)); }

TEST(ServerCpuTest, CountsTheWindowOnlyIncludingReapedChildren) {
  Tree tree;
  ASSERT_GT(tree.root(), 0);
  ASSERT_TRUE(tree.WaitReady());
  auto meter = ServerCpuMeter::ForProcess(tree.root());
  ASSERT_TRUE(meter.ok()) << meter.status().message();
  auto s0 = meter->Snapshot();
  ASSERT_TRUE(s0.ok()) << s0.status().message();
  EXPECT_EQ(s0->live_children, 2);
  // B's 0.1 s before the window is in the opening snapshot.
  EXPECT_GE(s0->user_s + s0->sys_s, Tree::kBeforeB - Slack());

  tree.Go();
  ASSERT_TRUE(tree.WaitWindowWork());
  auto s1 = meter->Snapshot();
  ASSERT_TRUE(s1.ok()) << s1.status().message();
  EXPECT_EQ(s1->live_children, 1);  // A exited and was reaped
  const double want = Tree::kWindowA + Tree::kWindowB;
  const double got = (s1->user_s + s1->sys_s) - (s0->user_s + s0->sys_s);
  EXPECT_NEAR(got, want, Slack()) << "window CPU";

  // B exits; Settle waits for it to be reaped into R's cutime: no double
  // count, nothing lost.
  tree.LetBExit();
  auto settled = meter->Settle(0, std::chrono::milliseconds(3000));
  ASSERT_TRUE(settled.ok()) << settled.status().message();
  EXPECT_TRUE(settled->settled);
  EXPECT_EQ(settled->snapshot.live_children, 0);
  const double after =
      (settled->snapshot.user_s + settled->snapshot.sys_s) - (s0->user_s + s0->sys_s);
  EXPECT_NEAR(after, want, Slack()) << "after B was reaped";
  EXPECT_TRUE(tree.WaitRootExit());
}

TEST(ServerCpuTest, SettleGivesUpAtItsBound) {
  Tree tree;
  ASSERT_GT(tree.root(), 0);
  ASSERT_TRUE(tree.WaitReady());
  auto meter = ServerCpuMeter::ForProcess(tree.root());
  ASSERT_TRUE(meter.ok());
  const auto begin = std::chrono::steady_clock::now();
  auto settled = meter->Settle(0, std::chrono::milliseconds(100));
  ASSERT_TRUE(settled.ok());
  EXPECT_FALSE(settled->settled);  // A and B still alive, waiting for "go"
  EXPECT_EQ(settled->snapshot.live_children, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(2));
}

TEST(ServerCpuTest, MissingProcessIsAnError) {
  // PIDs above pid_max (4194304 at most) never exist.
  auto m = ServerCpuMeter::ForProcess(5'000'000);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("5000000"));
}

TEST(ServerCpuTest, ClassifiesPeers) {
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  EXPECT_EQ(ClassifyPeer(reinterpret_cast<sockaddr*>(&un), sizeof un), PeerKind::kUnixSocket);
  auto v4 = [](const char* a) {
    sockaddr_in in{};
    in.sin_family = AF_INET;
    inet_pton(AF_INET, a, &in.sin_addr);
    return ClassifyPeer(reinterpret_cast<sockaddr*>(&in), sizeof in);
  };
  EXPECT_EQ(v4("127.0.0.1"), PeerKind::kLoopback);
  EXPECT_EQ(v4("127.8.9.10"), PeerKind::kLoopback);
  EXPECT_EQ(v4("10.0.0.1"), PeerKind::kOther);
  EXPECT_EQ(v4("192.168.1.127"), PeerKind::kOther);
  auto v6 = [](const char* a) {
    sockaddr_in6 in{};
    in.sin6_family = AF_INET6;
    inet_pton(AF_INET6, a, &in.sin6_addr);
    return ClassifyPeer(reinterpret_cast<sockaddr*>(&in), sizeof in);
  };
  EXPECT_EQ(v6("::1"), PeerKind::kLoopback);
  EXPECT_EQ(v6("::ffff:127.0.0.1"), PeerKind::kLoopback);
  EXPECT_EQ(v6("::ffff:10.1.2.3"), PeerKind::kOther);
  EXPECT_EQ(v6("2001:db8::1"), PeerKind::kOther);
  EXPECT_EQ(ClassifyPeer(nullptr, 0), PeerKind::kOther);
}

// A fixture procfs: postmaster 100, backend 200 started at tick 5000.
class LocateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        std::filesystem::temp_directory_path() / ("pgrig_server_cpu_" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
    Proc(100, "postgres", 1, 10, std::string("/usr/lib/postgresql/15/bin/postgres\0-D\0/d\0", 41));
    Proc(200, "postgres", 100, 5000, std::string("postgres: u db [local] idle\0", 28));
    Proc(300, "bash", 1, 5000, std::string("bash\0", 5));
    Proc(400, "postgres", 100, 5000, std::string("postgres: checkpointer \0", 24));
    Proc(500, "postgres", 400, 5000, std::string("postgres: u db [local] idle\0", 28));
    opts_.proc_root = root_.string();
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Proc(int pid, const std::string& comm, int ppid, int64_t start, const std::string& cmd) {
    const auto dir = root_ / std::to_string(pid);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "stat") << pid << " (" << comm << ") S " << ppid
                                << " 1 1 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 1 0 " << start
                                << " 1000 100\n";
    std::ofstream(dir / "cmdline", std::ios::binary) << cmd;
  }
  std::filesystem::path root_;
  ServerCpuOptions opts_;
};

TEST_F(LocateTest, FindsThePostmasterOfALocalBackend) {
  auto pm = PostmasterOfBackend(PeerKind::kUnixSocket, 200, 4990, opts_);
  ASSERT_TRUE(pm.ok()) << pm.status().message();
  EXPECT_EQ(*pm, 100);
  EXPECT_TRUE(PostmasterOfBackend(PeerKind::kLoopback, 200, 5000, opts_).ok());
  auto st = ReadProcStat(opts_.proc_root, 200);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->utime, 7);
  EXPECT_EQ(st->stime, 3);
  EXPECT_EQ(st->starttime, 5000);
}

TEST_F(LocateTest, RefusesAnythingNotProvablyLocal) {
  auto remote = PostmasterOfBackend(PeerKind::kOther, 200, 4990, opts_);
  ASSERT_FALSE(remote.ok());
  EXPECT_THAT(remote.status().message(), HasSubstr("not loopback"));
  auto absent = PostmasterOfBackend(PeerKind::kUnixSocket, 999, 4990, opts_);
  ASSERT_FALSE(absent.ok());
  EXPECT_THAT(absent.status().message(), HasSubstr("PID namespace"));
  auto other = PostmasterOfBackend(PeerKind::kUnixSocket, 300, 4990, opts_);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("not a PostgreSQL backend"));
  // Same PID here, but a process older than the connection: another namespace's.
  auto older = PostmasterOfBackend(PeerKind::kUnixSocket, 200, 6000, opts_);
  ASSERT_FALSE(older.ok());
  EXPECT_THAT(older.status().message(), HasSubstr("started before"));
  auto not_pm = PostmasterOfBackend(PeerKind::kUnixSocket, 500, 4990, opts_);
  ASSERT_FALSE(not_pm.ok());
  EXPECT_THAT(not_pm.status().message(), HasSubstr("not a PostgreSQL postmaster"));
}

}  // namespace
}  // namespace pgrig::host
