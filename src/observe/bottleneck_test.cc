// Diagnose() on constructed observations: one case per kind, the order in
// which the rules apply, and the warnings.
#include "observe/bottleneck.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::observe {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

struct Cpu {
  double user = 0, system = 0, iowait = 0, steal = 0;
  std::optional<double> util;
  std::optional<double> other;  // HostSample::cpu_other_pct
};

Observation Obs(const Cpu& c, std::map<std::string, int64_t> waits = {}, int cpus = 8) {
  Observation o;
  o.host_cpus = cpus;
  o.data_device = "nvme0n1";
  for (int i = 0; i < 10; ++i) {
    HostSample h;
    h.t_s = i + 1;
    h.dt_s = 1;
    h.cpu_user_pct = c.user;
    h.cpu_system_pct = c.system;
    h.cpu_iowait_pct = c.iowait;
    h.cpu_steal_pct = c.steal;
    h.cpu_idle_pct = 100 - c.user - c.system - c.iowait - c.steal;
    h.disk_util_pct = c.util;
    h.cpu_other_pct = c.other;
    if (c.util) h.disk_write_bytes_per_s = 50e6;
    o.host.push_back(h);
  }
  o.wait_events = std::move(waits);
  for (const auto& [k, v] : o.wait_events) o.wait_samples += v;
  // Two active backends per sample, so the machine is not crowded by count.
  for (int i = 0; i < 10; ++i) {
    ServerSample s;
    s.active_backends = 2;
    s.wait_polls = 1;
    o.server.push_back(s);
  }
  return o;
}

// A client that used `share` of one of its threads' CPUs.
ClientUse Client(double busy_fraction, int threads = 2, int cpus = 8) {
  return {.cpu_s = busy_fraction * threads * 10.0,
          .duration_s = 10,
          .threads = threads,
          .cpus = cpus,
          .tps = 1000};
}

TEST(BottleneckName, AllKinds) {
  EXPECT_STREQ(BottleneckName(BottleneckKind::kServerCpu), "server_cpu");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kClientCpu), "client_cpu");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kIoWait), "io_wait");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kLockWaits), "lock_waits");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kLwLockWaits), "lwlock_waits");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kWal), "wal");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kSteal), "steal");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kOtherProcesses), "other_processes");
  EXPECT_STREQ(BottleneckName(BottleneckKind::kUnknown), "unknown");
}

TEST(WaitClass, GroupsEvents) {
  EXPECT_EQ(WaitClass("CPU"), "cpu");
  EXPECT_EQ(WaitClass("Lock:transactionid"), "lock");
  EXPECT_EQ(WaitClass("Lock:tuple"), "lock");
  EXPECT_EQ(WaitClass("BufferPin:BufferPin"), "lock");
  EXPECT_EQ(WaitClass("LWLock:WALWrite"), "wal");
  EXPECT_EQ(WaitClass("LWLock:WALInsert"), "wal");
  EXPECT_EQ(WaitClass("LWLock:BufferContent"), "lwlock");
  EXPECT_EQ(WaitClass("LWLock:LockManager"), "lwlock");
  EXPECT_EQ(WaitClass("IO:WALSync"), "wal");
  EXPECT_EQ(WaitClass("IO:DataFileRead"), "io");
  EXPECT_EQ(WaitClass("IPC:SyncRep"), "wal");
  EXPECT_EQ(WaitClass("Client:ClientRead"), "other");
  EXPECT_EQ(WaitClass("Timeout:PgSleep"), "other");
}

TEST(Diagnose, ServerCpu) {
  Bottleneck b = Diagnose(Obs({.user = 70, .system = 26}), Client(0.3));
  EXPECT_EQ(b.kind, BottleneckKind::kServerCpu);
  EXPECT_THAT(b.evidence,
              AllOf(HasSubstr("host CPU 96% busy"), HasSubstr("user 70%"), HasSubstr("system 26%"),
                    HasSubstr("client used 8% of the machine")));
  EXPECT_THAT(b.warnings, IsEmpty());
}

TEST(Diagnose, ClientCpuWinsOverEverything) {
  Bottleneck b =
      Diagnose(Obs({.user = 95, .system = 4}, {{"Lock:tuple", 90}, {"CPU", 10}}), Client(0.95));
  EXPECT_EQ(b.kind, BottleneckKind::kClientCpu);
  EXPECT_THAT(b.evidence, HasSubstr("client CPU 95% of its 2 usable CPUs"));
  EXPECT_THAT(b.warnings, Contains(HasSubstr("the client saturated its CPUs (95% of 2 threads)")));
}

TEST(Diagnose, RemoteServerBusyHostIsTheClientsMachine) {
  Observation o = Obs({.user = 93, .system = 5});
  o.server_is_local = false;
  // 16 threads on 8 CPUs (8 usable) at 40%: the process is not saturated, the machine is.
  Bottleneck b = Diagnose(o, Client(0.2, 16, 8));
  EXPECT_EQ(b.kind, BottleneckKind::kClientCpu);
  EXPECT_THAT(b.evidence, AllOf(HasSubstr("the server is remote"),
                                HasSubstr("client used 40% of the machine")));
  // The server is elsewhere: nothing was shared.
  EXPECT_THAT(b.warnings, IsEmpty());
}

TEST(Diagnose, IoWaitNeedsABusyDevice) {
  Bottleneck b = Diagnose(Obs({.user = 20, .system = 10, .iowait = 45, .util = 97}), Client(0.1));
  EXPECT_EQ(b.kind, BottleneckKind::kIoWait);
  EXPECT_THAT(b.evidence, AllOf(HasSubstr("iowait 45%"), HasSubstr("nvme0n1 97% busy")));
  // The same iowait on an idle device is not blamed on it.
  Bottleneck idle =
      Diagnose(Obs({.user = 20, .system = 10, .iowait = 45, .util = 10}), Client(0.1));
  EXPECT_EQ(idle.kind, BottleneckKind::kUnknown);
  // IO wait events dominating name it too, without iowait.
  Bottleneck ev = Diagnose(Obs({.user = 30}, {{"IO:DataFileRead", 60}, {"CPU", 40}}), Client(0.1));
  EXPECT_EQ(ev.kind, BottleneckKind::kIoWait);
  EXPECT_THAT(ev.evidence, HasSubstr("60% of active backends' samples waited on io"));
}

TEST(Diagnose, LockWaitsDominantBeatBusyCpu) {
  Bottleneck b = Diagnose(Obs({.user = 80, .system = 15},
                              {{"Lock:transactionid", 40}, {"Lock:tuple", 20}, {"CPU", 40}}),
                          Client(0.2));
  EXPECT_EQ(b.kind, BottleneckKind::kLockWaits);
  EXPECT_THAT(b.evidence, AllOf(HasSubstr("60% of active backends' samples waited on lock"),
                                HasSubstr("Lock:transactionid 40%"), HasSubstr("Lock:tuple 20%")));
}

TEST(Diagnose, LeadingWaitsOnlyWhenCpuIsNotBusy) {
  std::map<std::string, int64_t> w = {{"LWLock:BufferContent", 30}, {"CPU", 70}};
  EXPECT_EQ(Diagnose(Obs({.user = 40, .system = 10}, w), Client(0.2)).kind,
            BottleneckKind::kLwLockWaits);
  EXPECT_EQ(Diagnose(Obs({.user = 80, .system = 15}, w), Client(0.2)).kind,
            BottleneckKind::kServerCpu);
}

TEST(Diagnose, WalWaits) {
  Bottleneck b = Diagnose(
      Obs({.user = 30, .system = 20}, {{"LWLock:WALWrite", 35}, {"IO:WALSync", 25}, {"CPU", 40}}),
      Client(0.2));
  EXPECT_EQ(b.kind, BottleneckKind::kWal);
  EXPECT_THAT(b.evidence, HasSubstr("LWLock:WALWrite 35%"));
}

TEST(Diagnose, StealWarnsAndNamesItWhenDominant) {
  Bottleneck warn = Diagnose(Obs({.user = 70, .system = 15, .steal = 12}), Client(0.2));
  EXPECT_EQ(warn.kind, BottleneckKind::kServerCpu);
  EXPECT_THAT(warn.warnings, Contains(HasSubstr("steal 12%")));
  Bottleneck dom = Diagnose(Obs({.user = 50, .system = 15, .steal = 30}), Client(0.2));
  EXPECT_EQ(dom.kind, BottleneckKind::kSteal);
  EXPECT_THAT(dom.evidence, HasSubstr("of which steal 30%"));
  // Steal on a machine that is not busy is only a warning.
  Bottleneck light = Diagnose(Obs({.user = 20, .system = 5, .steal = 25}), Client(0.1));
  EXPECT_EQ(light.kind, BottleneckKind::kUnknown);
  EXPECT_THAT(light.warnings, Contains(HasSubstr("steal 25%")));
}

TEST(Diagnose, OtherProcessesWarnFromTenPercentAndAreTheBottleneckFromTwenty) {
  Bottleneck quiet = Diagnose(Obs({.user = 70, .system = 25, .other = 4}), Client(0.2));
  EXPECT_EQ(quiet.kind, BottleneckKind::kServerCpu);
  EXPECT_THAT(quiet.warnings, Not(Contains(HasSubstr("other processes"))));
  Bottleneck warn = Diagnose(Obs({.user = 70, .system = 25, .other = 12}), Client(0.2));
  EXPECT_EQ(warn.kind, BottleneckKind::kServerCpu);
  EXPECT_THAT(warn.warnings, Contains(HasSubstr("other processes took 12% of the host's CPU")));
  // A busy host that is busy with other programs: not the server's limit.
  Bottleneck dom = Diagnose(Obs({.user = 70, .system = 25, .other = 45}), Client(0.2));
  EXPECT_EQ(dom.kind, BottleneckKind::kOtherProcesses);
  EXPECT_THAT(dom.evidence, HasSubstr("of which other processes 45%"));
}

TEST(AssessDisturbance, OtherPlusStealFromTheThreshold) {
  EXPECT_FALSE(AssessDisturbance(Obs({.user = 50})).has_value());  // not measured
  auto calm = AssessDisturbance(Obs({.user = 50, .steal = 3, .other = 6}));
  ASSERT_TRUE(calm.has_value());
  EXPECT_DOUBLE_EQ(calm->other_cpu_pct, 6);
  EXPECT_FALSE(calm->disturbed);
  auto busy = AssessDisturbance(Obs({.user = 50, .steal = 3, .other = 7}));
  ASSERT_TRUE(busy.has_value());
  EXPECT_TRUE(busy->disturbed);  // 7 + 3 = kDisturbedPct
  EXPECT_DOUBLE_EQ(busy->steal_pct, 3);
}

TEST(Diagnose, SharedCpusWarning) {
  // 2 CPUs, 1 client thread and 2 active backends: they had to share.
  Observation o = Obs({.user = 60, .system = 35}, {}, 2);
  Bottleneck b = Diagnose(o, Client(0.6, 1, 2));
  EXPECT_EQ(b.kind, BottleneckKind::kServerCpu);
  EXPECT_THAT(b.warnings, Contains(AllOf(HasSubstr("client and server shared 2 CPUs"),
                                         HasSubstr("client used 30% of the machine"))));
  // Plenty of CPUs and a light client: no warning.
  EXPECT_THAT(Diagnose(Obs({.user = 60, .system = 35}, {}, 64), Client(0.1, 2, 64)).warnings,
              IsEmpty());
}

TEST(ClientUseOf, SubtractsTheSamplerThread) {
  engine::RunResult r;
  r.client_user_cpu_s = 3.0;
  r.client_sys_cpu_s = 1.0;
  r.bench_duration_ns = 10'000'000'000;
  r.threads = 4;
  Observation o;
  o.sampler_cpu_s = 0.05;
  ClientUse c = ClientUseOf(r, o, 8);
  EXPECT_DOUBLE_EQ(c.cpu_s, 3.95);
  EXPECT_DOUBLE_EQ(c.duration_s, 10.0);
  EXPECT_EQ(c.threads, 4);
  EXPECT_EQ(c.cpus, 8);
  o.sampler_cpu_s = 9;  // never negative
  EXPECT_DOUBLE_EQ(ClientUseOf(r, o, 0).cpu_s, 0.0);
  EXPECT_EQ(ClientUseOf(r, o, 0).cpus, 1);
}

TEST(Diagnose, UnknownCarriesTheNumbers) {
  Bottleneck b = Diagnose(Obs({.user = 30, .system = 10, .util = 5}, {{"CPU", 20}}), Client(0.2));
  EXPECT_EQ(b.kind, BottleneckKind::kUnknown);
  EXPECT_THAT(b.evidence,
              AllOf(HasSubstr("no resource saturated"), HasSubstr("host CPU 40% busy"),
                    HasSubstr("nvme0n1 5% busy"), HasSubstr("not waiting in 20 samples")));
  Bottleneck empty = Diagnose(Observation{}, ClientUse{});
  EXPECT_EQ(empty.kind, BottleneckKind::kUnknown);
  EXPECT_THAT(empty.evidence, AllOf(HasSubstr("host not observed"), HasSubstr("no wait events")));
  EXPECT_THAT(empty.warnings, IsEmpty());
}

}  // namespace
}  // namespace pgrig::observe
