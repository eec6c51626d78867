// The fault matrix (docs/testing.md): `pgrig run` of a plan with
// server-level settings (one of them needs a restart) on the embedded
// cluster, held at each phase by a pause point (common/pause_point.h) and
// ended there in each way a run can end.  Afterwards, whatever the ending:
// no pgrig and no backend of its is left, the server's settings equal the
// originals once the next pgrig command has run (at once when pgrig itself
// lived to restore them), suite.json is whole and says the suite is not
// complete, and `pgrig run --resume` completes it on the original settings.
#include <errno.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/fs.h"
#include "runner/runner_itest_util.h"
#include "runner/server_settings.h"
#include "support/test_cluster.h"

namespace pgrig::fault_matrix {
namespace {

using nlohmann::json;
using run_itest::ReadJson;
using run_itest::SmallTmpfs;
using run_itest::Text;
using run_itest::WriteText;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// No SIGTERM: pgrig takes it as it takes SIGINT (common/interrupt.h), which
// the matrix showed in every phase (docs/testing.md) and
// SettingsRecordTest.SigtermEndsTheSuiteLikeCtrlCAndRestores keeps checking.
enum class Ending { kSigint, kSigintTwice, kSigkill, kKillPostmaster, kDiskFull };

struct Phase {
  const char* name;  // the pause point
  // True: the ending is delivered while pgrig waits at the point (a short
  // phase); false: pgrig is let go and the ending comes 0.4 s into the
  // phase (a 1-s warm-up or measured window).
  bool while_paused;
};

constexpr Phase kPhases[] = {
    {"load", true}, {"settings", true}, {"warmup", false}, {"measure", false}, {"restore", true}};
constexpr Ending kEndings[] = {Ending::kSigint, Ending::kSigintTwice, Ending::kSigkill,
                               Ending::kKillPostmaster, Ending::kDiskFull};

const char* EndingName(Ending e) {
  switch (e) {
    case Ending::kSigint:
      return "sigint";
    case Ending::kSigintTwice:
      return "sigint_twice";
    case Ending::kSigkill:
      return "sigkill";
    case Ending::kKillPostmaster:
      return "kill_postmaster";
    case Ending::kDiskFull:
      return "disk_full";
  }
  return "?";
}

struct Case {
  Phase phase;
  Ending ending;
};

// How gtest names a case in its output (instead of its bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.phase.name << " x " << EndingName(c.ending);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.phase.name) + "_" + EndingName(info.param.ending);
}

// Every phase with every ending, except where another case already takes
// the same path: the warm-up and the measured run stop the same way (an
// engine run interrupted, the same restore after it), so the warm-up keeps
// only SIGINT (its own discard path); a second SIGINT during the load ends
// it as the first does (the 2026-12-04 table in docs/testing.md).
bool Redundant(const Phase& p, Ending e) {
  const std::string name = p.name;
  if (name == "warmup") return e != Ending::kSigint;
  return name == "load" && e == Ending::kSigintTwice;
}

std::vector<Case> AllCases() {
  std::vector<Case> out;
  for (const Phase& p : kPhases) {
    for (Ending e : kEndings) {
      if (!Redundant(p, e)) out.push_back({p, e});
    }
  }
  return out;
}

// The processes whose parent is `pid` (from /proc/*/stat).
std::set<pid_t> ChildrenOf(pid_t pid) {
  std::set<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = ReadWholeFile(entry.path().string() + "/stat");
    if (!stat.ok()) continue;
    // "pid (comm) state ppid ...": comm may hold spaces; read after ')'.
    const size_t close = stat->rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat->c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid) {
      out.insert(static_cast<pid_t>(std::atoi(name.c_str())));
    }
  }
  return out;
}

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// Waits up to `seconds` for every process in `pids` to end.
bool AllGone(const std::set<pid_t>& pids, double seconds) {
  const int64_t deadline = MonotonicNanos() + static_cast<int64_t>(seconds * 1e9);
  for (;;) {
    bool any = false;
    for (pid_t p : pids) any = any || Alive(p);
    if (!any) return true;
    if (MonotonicNanos() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

class FaultMatrixTest : public run_itest::SettingsClusterTest<FaultMatrixTest>,
                        public ::testing::WithParamInterface<Case> {
 protected:
  static void SetUpTestSuite() { StartCluster("pgrig-fault-matrix"); }

  std::optional<pid_t> Postmaster() {
    auto pid = cluster_->RunningPid();
    if (!pid) return std::nullopt;
    return static_cast<pid_t>(*pid);
  }

  // One writing cell, one iteration: a 1-s warm-up and a 1-s window under
  // settings that need a restart.
  std::string OneCellPlan() {
    return "[plan]\nname = \"matrix\"\nscale = 1\nclients = [2]\nthreads = [1]\n"
           "duration_s = 1\nwarmup_s = 1\niterations = 1\n" +
           SettingsKey(/*reload_only=*/false) +
           "\n[[workload]]\nname = \"write\"\nbuiltin = \"simple-update\"\n";
  }

  // Waits up to two minutes for the pause file; false when pgrig ended first.
  bool WaitForPause(const std::string& file, pid_t pgrig) {
    const int64_t deadline = MonotonicNanos() + 120'000'000'000;
    while (MonotonicNanos() < deadline) {
      if (fs::exists(file)) return true;
      int status = 0;
      if (::waitpid(pgrig, &status, WNOHANG) == pgrig) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

TEST_P(FaultMatrixTest, LeavesTheServerAsItWasAndTheSuiteResumable) {
  const Case c = GetParam();
  const std::string phase = c.phase.name;
  std::optional<SmallTmpfs> disk;
  std::string out_parent = dir_;
  if (c.ending == Ending::kDiskFull) {
    disk.emplace(dir_ + "/disk");
    if (!disk->mounted) GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
    out_parent = disk->dir;
  }
  const std::string out = out_parent + "/out";
  const std::string plan = dir_ + "/matrix.toml";
  WriteText(plan, OneCellPlan());
  if (phase == "load") {  // the run must load the tables
    auto conn = pg::Connect(cluster_->Params());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(conn->Exec("DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, "
                           "pgbench_tellers, pgbench_history")
                    .ok());
  }

  // pgrig, held at the phase's pause point.
  const std::string pause = dir_ + "/pause";
  ::setenv("PGRIG_PAUSE_AT", phase.c_str(), 1);
  ::setenv("PGRIG_PAUSE_FILE", pause.c_str(), 1);
  const pid_t pid =
      testing::SpawnPgrig({"run", plan, "--out", out}, dir_ + "/run.out", dir_ + "/run.err");
  ::unsetenv("PGRIG_PAUSE_AT");
  ::unsetenv("PGRIG_PAUSE_FILE");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitForPause(pause, pid)) << Text(dir_ + "/run.out") << Text(dir_ + "/run.err");
  EXPECT_THAT(Text(pause), HasSubstr(phase + " " + std::to_string(pid)));

  // The ending.
  const std::optional<pid_t> postmaster = Postmaster();
  ASSERT_TRUE(postmaster.has_value());
  const std::set<pid_t> backends = ChildrenOf(*postmaster);
  auto deliver = [&] {
    switch (c.ending) {
      case Ending::kSigint:
        ::kill(pid, SIGINT);
        break;
      case Ending::kSigintTwice:
        ::kill(pid, SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ::kill(pid, SIGINT);
        break;
      case Ending::kSigkill:
        ::kill(-pid, SIGKILL);
        break;
      case Ending::kKillPostmaster:
        ::kill(*postmaster, SIGKILL);
        break;
      case Ending::kDiskFull:
        disk->Fill();
        break;
    }
  };
  if (c.phase.while_paused) {
    deliver();
    fs::remove(pause);
  } else {
    fs::remove(pause);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    deliver();
  }
  const int exit_code = testing::WaitExit(pid, 180);
  const std::string run_out = Text(dir_ + "/run.out");
  const std::string run_err = Text(dir_ + "/run.err");
  SCOPED_TRACE("pgrig run exited " + std::to_string(exit_code) + "\nstdout:\n" + run_out +
               "\nstderr:\n" + run_err);

  // Nothing of pgrig's is left: not its process group, not its backends.
  EXPECT_NE(exit_code, -1) << "pgrig did not end within 180 s";
  errno = 0;
  EXPECT_TRUE(::kill(-pid, 0) != 0 && errno == ESRCH) << "pgrig's process group is still there";
  if (c.ending == Ending::kKillPostmaster) {
    EXPECT_TRUE(AllGone(backends, 30)) << "backends of the killed postmaster are still running";
  }

  // How it ended, as pgrig says and as suite.json says.
  const bool pgrig_lived = exit_code >= 0;
  switch (c.ending) {
    case Ending::kSigkill:
      EXPECT_EQ(exit_code, -2);
      break;
    case Ending::kSigintTwice:
      // Outside the restore the second Ctrl-C ends pgrig as Ctrl-C does.
      EXPECT_TRUE(exit_code == -2 || exit_code == 2 || exit_code == 0);
      break;
    default:
      // 0 only when the ending could not stop a suite that then finished:
      // a signal during the restore, or a postmaster killed just before a
      // restart that pgrig makes anyway.
      EXPECT_TRUE(exit_code == 2 || exit_code == 0);
      break;
  }
  const json s = ReadJson(out + "/suite.json");
  ASSERT_TRUE(s.is_object()) << "suite.json is missing or not JSON";
  const bool complete = s["complete"] == true;
  // One line per case for docs/testing.md's table.
  std::printf("fault matrix: %s x %s: pgrig exit %d, suite %s (%s)\n", c.phase.name,
              EndingName(c.ending), exit_code, complete ? "complete" : "incomplete",
              s["stop_reason"].is_string() ? s["stop_reason"].get<std::string>().c_str() : "-");
  if (complete) {
    EXPECT_EQ(exit_code, 0);
    EXPECT_EQ(s["runs"].size(), 1u);
    EXPECT_TRUE(phase == "restore" || (phase == "settings" && c.ending == Ending::kKillPostmaster))
        << "the ending did not stop the suite";
  }
  if (pgrig_lived && exit_code != 0) {
    EXPECT_THAT(run_out, HasSubstr("pgrig run --resume " + out));
  }

  // The server: back on its original settings at once when pgrig lived to
  // restore them (for a killed postmaster it starts the cluster to do so,
  // when there is something to restore); else after the next command (a
  // killed pgrig may leave a pg_ctl of its restart running: the next
  // command waits for it).
  if (disk) disk->Unfill();
  if (pgrig_lived && cluster_->RunningPid()) {
    EXPECT_EQ(Settings(), originals_);
    EXPECT_FALSE(fs::exists(cluster_->home() + ".state")) << "a settings record is left";
    EXPECT_EQ(PgrigBackends(), 0);
  } else if (pgrig_lived) {  // a killed postmaster, and nothing to restore
    ProcessResult st = testing::RunPgrig({"cluster", "status"});
    EXPECT_EQ(st.exit_code, 0) << st.out << st.err;
    EXPECT_THAT(st.out, HasSubstr("crashed"));
  }

  if (complete) return;
  ProcessResult resumed = testing::RunPgrig({"run", "--resume", out});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const json done = ReadJson(out + "/suite.json");
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done["complete"], true);
  // A run the ending failed stays as a failed run; the resume's run is ok.
  ASSERT_GE(done["runs"].size(), 1u);
  EXPECT_EQ(done["runs"].back()["status"], "ok") << done["runs"].dump();
  for (const json& r : done["runs"]) {
    if (r["status"] != "ok") {
      EXPECT_EQ(r["status"], "failed");
      EXPECT_TRUE(r["error"].is_string() && !r["error"].get<std::string>().empty()) << r.dump();
    }
  }
  EXPECT_EQ(done["settings"]["restored"], true);
  EXPECT_EQ(Settings(), originals_);
  EXPECT_FALSE(fs::exists(cluster_->home() + ".state"));
  EXPECT_EQ(PgrigBackends(), 0);
  if (phase == "load" && c.ending != Ending::kDiskFull) {
    // The tables a stopped load left are never measured as they are.
    EXPECT_THAT(resumed.err, HasSubstr("data: loading scale 1"));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPhaseAndEnding, FaultMatrixTest, ::testing::ValuesIn(AllCases()),
                         CaseName);

}  // namespace
}  // namespace pgrig::fault_matrix
