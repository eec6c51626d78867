// ProcessTreeCounters on the shared embedded cluster's postmaster.  The
// machines pgrig is developed on have no PMU, so the mechanism (inherited
// counters on backends that connect later, the window's enable and
// disable, the sums over processes) is checked with software events, which
// every Linux kernel has; the hardware events go through the same code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/strings.h"
#include "profile/hardware_counters.h"
#include "support/test_cluster.h"

namespace pgrig::profile {
namespace {

using ::testing::HasSubstr;

std::vector<CounterEvent> SoftwareEvents() {
  return {{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
          {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES}};
}

// utime + stime of `pid` in nanoseconds, from /proc/PID/stat.
int64_t ProcessCpuNs(int pid) {
  auto stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return -1;
  const size_t paren = stat->rfind(')');
  if (paren == std::string::npos) return -1;
  const std::vector<std::string> f = Split(stat->substr(paren + 2), ' ');
  if (f.size() < 13) return -1;  // fields 3.. from here: utime is 14th overall
  const auto ut = ParseInt64(f[11]);
  const auto st = ParseInt64(f[12]);
  if (!ut || !st) return -1;
  return (*ut + *st) * 1000000000LL / sysconf(_SC_CLK_TCK);
}

TEST(ProcessTreeCountersITest, CountsBackendsThatConnectLaterAndOnlyInsideTheWindow) {
  const std::optional<int> pm = testing::SharedCluster().RunningPid();
  ASSERT_TRUE(pm.has_value());
  ProcessTreeCounters c = ProcessTreeCounters::Open(*pm, SoftwareEvents());
  const CounterMeasure before = c.Read();
  if (!before.values && before.unavailable.find("not allowed") != std::string::npos) {
    GTEST_SKIP() << before.unavailable;  // not root here; CI runs as root
  }
  ASSERT_TRUE(before.values.has_value()) << before.unavailable;
  EXPECT_GE(before.values->processes, 2);  // the postmaster and its auxiliary processes
  EXPECT_TRUE(before.values->kernel);

  // A backend forked after Open: counted through the postmaster's counter.
  pg::Connection conn = testing::ConnectShared();
  ASSERT_TRUE(conn.valid());
  const auto bpid = ParseInt64(*conn.QueryValue("SELECT pg_backend_pid()"));
  ASSERT_TRUE(bpid.has_value());
  const int64_t cpu0 = ProcessCpuNs(static_cast<int>(*bpid));
  c.Enable();
  ASSERT_TRUE(conn.Exec("SELECT count(*) FROM generate_series(1, 4000000)").ok());
  c.Disable();
  const int64_t backend_ns = ProcessCpuNs(static_cast<int>(*bpid)) - cpu0;
  ASSERT_GT(backend_ns, 100000000) << "the query should burn at least 0.1 s of CPU";

  const CounterMeasure in = c.Read();
  ASSERT_TRUE(in.values.has_value()) << in.unavailable;
  const std::optional<double> task_ns = in.values->Count("task-clock");
  ASSERT_TRUE(task_ns.has_value());
  // At least the backend's CPU (two clock ticks of /proc's rounding), and
  // not wildly more: other tests' backends may run in the window too.
  EXPECT_GE(*task_ns, static_cast<double>(backend_ns - 20000000));
  EXPECT_GT(in.values->Count("context-switches").value_or(-1), 0);
  EXPECT_NEAR(in.values->readings[0].running_pct, 100.0, 0.01);

  // Outside the window nothing more is counted.
  ASSERT_TRUE(conn.Exec("SELECT count(*) FROM generate_series(1, 2000000)").ok());
  const CounterMeasure after = c.Read();
  ASSERT_TRUE(after.values.has_value());
  EXPECT_EQ(after.values->Count("task-clock"), task_ns);
}

TEST(ProcessTreeCountersITest, AServerThatIsGoneHasNoCountersAndSaysWhy) {
  // A pid that cannot exist (beyond pid_max).
  ProcessTreeCounters c = ProcessTreeCounters::Open(1 << 30, SoftwareEvents());
  const CounterMeasure m = c.Read();
  EXPECT_FALSE(m.values.has_value());
  EXPECT_THAT(m.unavailable, HasSubstr("postmaster is gone"));
}

TEST(ProcessTreeCountersITest, HardwareEventsGiveCountsOrTheReasonThereAreNone) {
  ProcessTreeCounters c = ProcessTreeCounters::Open(getpid(), HardwareEvents());
  c.Enable();
  volatile double x = 1;
  for (int i = 0; i < 10000000; ++i) x = x * 1.0000001 + 1e-9;
  c.Disable();
  const CounterMeasure m = c.Read();
  if (!m.values) {
    // This machine: a KVM guest without a virtual PMU.
    EXPECT_THAT(m.unavailable, HasSubstr("hardware counters"));
    return;
  }
  ASSERT_EQ(m.values->readings.size(), HardwareEvents().size());
  ASSERT_TRUE(m.values->Ipc().has_value());
  EXPECT_GT(*m.values->Count("instructions"), 1e7);  // the loop alone
  EXPECT_GT(*m.values->Ipc(), 0.05);
  EXPECT_LT(*m.values->Ipc(), 10.0);
}

TEST(CounterValues, RatiosNeedBothCounts) {
  CounterValues v;
  v.readings = {{"cycles", 2e9, 100},          {"instructions", 3e9, 100},
                {"cache-references", 1e6, 50}, {"cache-misses", 5e4, 50},
                {"branches", std::nullopt, 0}, {"branch-misses", 1e5, 100}};
  EXPECT_DOUBLE_EQ(*v.Ipc(), 1.5);
  EXPECT_DOUBLE_EQ(*v.CacheMissPct(), 5.0);
  EXPECT_FALSE(v.BranchMissPct().has_value());
  EXPECT_FALSE(v.Count("stalled-cycles").has_value());
}

}  // namespace
}  // namespace pgrig::profile
