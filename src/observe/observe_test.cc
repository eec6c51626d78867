// The Observer's thread on this machine's real /proc, host only (the server
// side runs in observe_itest.cc): cadence, immediate Stop(), idempotence,
// option checks, notes for what is missing.
#include "observe/observe.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "common/clock.h"

namespace pgrig::observe {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

double SecondsSince(int64_t ns) { return static_cast<double>(MonotonicNanos() - ns) * 1e-9; }

TEST(Observer, SamplesTheRealHostAtItsInterval) {
  auto obs = Observer::Start({.interval = 100ms});
  ASSERT_TRUE(obs.ok()) << obs.status().ToString();
  // Some CPU work so that ticks pass even on an idle machine.
  const int64_t until = MonotonicNanos() + 650'000'000;
  volatile uint64_t x = 0;
  while (MonotonicNanos() < until) x = x + 1;
  Observation o = (*obs)->Stop();
  // 6 samples at 100 ms plus the final one; a loaded machine may delay some.
  EXPECT_GE(o.host.size(), 4u);
  EXPECT_LE(o.host.size(), 8u);
  ASSERT_FALSE(o.host.empty());
  EXPECT_GT(*o.host_cpus, 0);
  double prev_t = 0;
  for (const HostSample& h : o.host) {
    EXPECT_GT(h.t_s, prev_t);
    prev_t = h.t_s;
    EXPECT_GT(h.dt_s, 0.0);
    EXPECT_NEAR(
        h.cpu_user_pct + h.cpu_system_pct + h.cpu_iowait_pct + h.cpu_steal_pct + h.cpu_idle_pct,
        100.0, 1e-6);
    EXPECT_TRUE(h.mem_available_bytes.has_value());
    EXPECT_TRUE(h.context_switches_per_s.has_value());
    EXPECT_GE(*h.run_queue, 1);  // the sampler itself is running
  }
  EXPECT_GT(o.MeanHost().CpuBusyPct(), 0.0);
  EXPECT_THAT(o.notes, Contains(HasSubstr("server: not observed")));
  EXPECT_TRUE(o.server.empty());
  EXPECT_EQ(o.wait_samples, 0);
  // Idempotent: the same observation again.
  Observation again = (*obs)->Stop();
  EXPECT_EQ(again.host.size(), o.host.size());
  EXPECT_EQ(again.notes, o.notes);
  EXPECT_EQ(again.wait_samples, o.wait_samples);
}

TEST(Observer, StopIsImmediateWhateverTheInterval) {
  auto obs = Observer::Start({.interval = std::chrono::milliseconds(3600 * 1000)});
  ASSERT_TRUE(obs.ok());
  std::this_thread::sleep_for(150ms);
  const int64_t t0 = MonotonicNanos();
  Observation o = (*obs)->Stop();
  EXPECT_LT(SecondsSince(t0), 0.5);
  // The final sample covers the 150 ms since Start.
  ASSERT_EQ(o.host.size(), 1u);
  EXPECT_GE(o.host[0].dt_s, 0.14);
  EXPECT_LT(o.host[0].dt_s, 0.6);  // a loaded machine oversleeps
}

TEST(Observer, DestructorStops) {
  const int64_t t0 = MonotonicNanos();
  {
    auto obs = Observer::Start({.interval = 50ms});
    ASSERT_TRUE(obs.ok());
  }
  EXPECT_LT(SecondsSince(t0), 0.5);
}

TEST(Observer, RefusesBadIntervals) {
  auto a = Observer::Start({.interval = 1ms});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(a.status().message(), HasSubstr("1 ms"));
  EXPECT_FALSE(Observer::Start({.interval = std::chrono::hours(2)}).ok());
  auto w = Observer::Start({.wait_interval = 5ms});
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("wait-event poll interval 5 ms"));
  // 0 polls once per sample; a poll interval longer than the sample is the sample's.
  auto once = Observer::Start({.interval = 100ms, .wait_interval = 0ms});
  ASSERT_TRUE(once.ok());
  EXPECT_DOUBLE_EQ((*once)->Stop().wait_interval_s, 0.1);
  auto longer = Observer::Start({.interval = 100ms, .wait_interval = 1000ms});
  ASSERT_TRUE(longer.ok());
  EXPECT_DOUBLE_EQ((*longer)->Stop().wait_interval_s, 0.1);
  auto third = Observer::Start({.interval = 1000ms, .wait_interval = 300ms});
  ASSERT_TRUE(third.ok());
  EXPECT_NEAR((*third)->Stop().wait_interval_s, 0.333, 0.001);
}

TEST(Observer, MissingProcAndDeviceBecomeNotes) {
  auto obs = Observer::Start(
      {.sysfs = SysFs("/nonexistent-pgrig-root"), .data_device = "vda", .interval = 20ms});
  ASSERT_TRUE(obs.ok());
  std::this_thread::sleep_for(60ms);
  Observation o = (*obs)->Stop();
  EXPECT_TRUE(o.host.empty());
  EXPECT_THAT(o.notes, Contains(HasSubstr("host CPU")));
  EXPECT_THAT(o.notes, Contains(HasSubstr("disk")));
  // Notes are not repeated once per sample.
  std::set<std::string> unique(o.notes.begin(), o.notes.end());
  EXPECT_EQ(unique.size(), o.notes.size());
}

TEST(Observer, RemoteServerHasNoDevice) {
  auto obs = Observer::Start(
      {.data_directory = "/var/lib/postgresql/data", .interval = 50ms, .server_is_local = false});
  ASSERT_TRUE(obs.ok());
  Observation o = (*obs)->Stop();
  EXPECT_FALSE(o.server_is_local);
  EXPECT_FALSE(o.data_device.has_value());
  EXPECT_THAT(o.notes, Contains(HasSubstr("the server is remote")));
}

}  // namespace
}  // namespace pgrig::observe
