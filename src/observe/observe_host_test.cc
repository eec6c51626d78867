// The host sampler's parsers and delta arithmetic against fixture /proc
// trees (tests/data/observe/t0 and t1: two snapshots of a 2-vCPU VM whose
// data directory is on /dev/vda1).
#include "observe/observe_host.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/fs.h"

namespace pgrig::observe {
namespace {

using ::testing::HasSubstr;

std::string Root(const std::string& name) {
  return std::string(PGRIG_SOURCE_DIR) + "/tests/data/observe/" + name;
}

std::string Read(const std::string& snap, const std::string& file) {
  auto t = SysFs(Root(snap)).ReadFile(file);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : "";
}

TEST(ParseProcStat, ReadsAggregateLineCountersAndCpus) {
  auto st = ParseProcStat(Read("t0", "/proc/stat"));
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->cpu.user, 10000u);
  EXPECT_EQ(st->cpu.nice, 1000u);
  EXPECT_EQ(st->cpu.system, 4000u);
  EXPECT_EQ(st->cpu.idle, 80000u);
  EXPECT_EQ(st->cpu.iowait, 2000u);
  EXPECT_EQ(st->cpu.irq, 500u);
  EXPECT_EQ(st->cpu.softirq, 500u);
  EXPECT_EQ(st->cpu.steal, 2000u);
  EXPECT_EQ(st->cpu.Total(), 100000u);
  EXPECT_EQ(st->cpus, 2);
  EXPECT_EQ(st->ctxt, 100000u);
  EXPECT_EQ(st->procs_running, 3);
}

TEST(ParseProcStat, OldKernelWithoutStealAndJunk) {
  // 2.6.0-era line: no steal/guest fields; they count as zero.
  auto st = ParseProcStat("cpu  10 0 5 100 1 0 0\ncpu0 10 0 5 100 1 0 0\n");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->cpu.steal, 0u);
  EXPECT_EQ(st->cpu.Total(), 116u);
  EXPECT_FALSE(st->ctxt.has_value());
  EXPECT_FALSE(st->procs_running.has_value());
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 3 4 5\n").has_value());
  EXPECT_FALSE(ParseProcStat("cpu  1 x 3 4 5\n").has_value());
  EXPECT_FALSE(ParseProcStat("").has_value());
}

TEST(ParseDiskstats, FindsTheWholeDiskNotItsPartition) {
  std::string text = Read("t0", "/proc/diskstats");
  auto d = ParseDiskstats(text, "vda");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reads, 50000u);
  EXPECT_EQ(d->sectors_read, 2600000u);
  EXPECT_EQ(d->writes, 8000u);
  EXPECT_EQ(d->sectors_written, 8600000u);
  EXPECT_EQ(d->io_ticks_ms, 14000u);
  auto p = ParseDiskstats(text, "vda1");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->reads, 49000u);
  // The 14-field format of kernels before 4.18 (no discard counters).
  auto z = ParseDiskstats(text, "zram0");
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->sectors_read, 80u);
  EXPECT_FALSE(ParseDiskstats(text, "sda").has_value());
  EXPECT_FALSE(ParseDiskstats(text, "").has_value());
}

TEST(ParseMeminfo, TotalAndAvailableInBytes) {
  MemInfo m = ParseMeminfo(Read("t0", "/proc/meminfo"));
  EXPECT_EQ(m.total_bytes, 16000000ull * 1024);
  EXPECT_EQ(m.available_bytes, 12000000ull * 1024);
  MemInfo old = ParseMeminfo("MemTotal: 100 kB\nMemFree: 50 kB\n");  // before 3.14
  EXPECT_EQ(old.total_bytes, 102400u);
  EXPECT_FALSE(old.available_bytes.has_value());
}

TEST(HostDelta, TwoSnapshotsGiveSharesAndRates) {
  std::vector<std::string> notes;
  HostSnapshot a = ReadHostSnapshot(SysFs(Root("t0")), "vda", &notes);
  HostSnapshot b = ReadHostSnapshot(SysFs(Root("t1")), "vda", &notes);
  EXPECT_TRUE(notes.empty()) << notes.front();
  a.mono_ns = 0;
  b.mono_ns = 2'000'000'000;  // 2 s apart
  auto h = HostDelta(a, b, 7.0);
  ASSERT_TRUE(h.has_value());
  EXPECT_DOUBLE_EQ(h->t_s, 7.0);
  EXPECT_DOUBLE_EQ(h->dt_s, 2.0);
  // 1000 ticks passed: user 450 + nice 50, system 150 + irq 20 + softirq 30.
  EXPECT_DOUBLE_EQ(h->cpu_user_pct, 50.0);
  EXPECT_DOUBLE_EQ(h->cpu_system_pct, 20.0);
  EXPECT_DOUBLE_EQ(h->cpu_iowait_pct, 5.0);
  EXPECT_DOUBLE_EQ(h->cpu_steal_pct, 5.0);
  EXPECT_DOUBLE_EQ(h->cpu_idle_pct, 20.0);
  EXPECT_DOUBLE_EQ(h->CpuBusyPct(), 70.0);
  EXPECT_EQ(h->run_queue, 5);
  EXPECT_DOUBLE_EQ(*h->context_switches_per_s, 2500.0);
  EXPECT_DOUBLE_EQ(*h->disk_reads_per_s, 100.0);
  EXPECT_DOUBLE_EQ(*h->disk_writes_per_s, 50.0);
  EXPECT_DOUBLE_EQ(*h->disk_read_bytes_per_s, 4096.0 * 512 / 2);
  EXPECT_DOUBLE_EQ(*h->disk_write_bytes_per_s, 2048.0 * 512 / 2);
  EXPECT_DOUBLE_EQ(*h->disk_util_pct, 75.0);  // 1500 ms busy in 2000 ms
  EXPECT_EQ(*h->mem_available_bytes, 11000000ull * 1024);
  EXPECT_EQ(*h->mem_used_bytes, 5000000ull * 1024);
}

TEST(HostDelta, OtherProcessesAreTheBusyCpuTheMeasurementDidNotUse) {
  std::vector<std::string> notes;
  HostSnapshot a = ReadHostSnapshot(SysFs(Root("t0")), "vda", &notes);
  HostSnapshot b = ReadHostSnapshot(SysFs(Root("t1")), "vda", &notes);
  a.mono_ns = 0;
  b.mono_ns = 2'000'000'000;
  EXPECT_FALSE(HostDelta(a, b, 2)->cpu_other_pct.has_value());  // not measured
  // 1000 ticks of all CPUs, 70% busy (700 ticks); the client and the server
  // used 400 ticks' worth of seconds: the other 300 ticks are 30%.
  const double tick_s = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  a.measured_cpu_s = 10.0;
  b.measured_cpu_s = 10.0 + 400 * tick_s;
  auto h = HostDelta(a, b, 2);
  ASSERT_TRUE(h->cpu_other_pct.has_value());
  EXPECT_NEAR(*h->cpu_other_pct, 30.0, 1e-9);
  // More measured than the host counted (sampling edges): 0, never below.
  b.measured_cpu_s = 10.0 + 800 * tick_s;
  EXPECT_DOUBLE_EQ(*HostDelta(a, b, 2)->cpu_other_pct, 0.0);
}

TEST(HostDelta, NoTicksNoSampleAndBackwardsCountersAreZero) {
  std::vector<std::string> notes;
  HostSnapshot a = ReadHostSnapshot(SysFs(Root("t0")), "vda", &notes);
  HostSnapshot b = a;
  b.mono_ns = a.mono_ns + 1'000'000;
  EXPECT_FALSE(HostDelta(a, b, 1).has_value());  // nothing to divide by
  // A counter that went backwards (reset) counts as no activity, not a huge number.
  HostSnapshot c = ReadHostSnapshot(SysFs(Root("t1")), "vda", &notes);
  c.mono_ns = a.mono_ns + 1'000'000'000;
  c.disk->io_ticks_ms = 0;
  c.stat->ctxt = 5;
  auto h = HostDelta(a, c, 1);
  ASSERT_TRUE(h.has_value());
  EXPECT_DOUBLE_EQ(*h->disk_util_pct, 0.0);
  EXPECT_DOUBLE_EQ(*h->context_switches_per_s, 0.0);
  // Util never exceeds 100% (io_ticks can run ahead of our clock).
  c.disk->io_ticks_ms = a.disk->io_ticks_ms + 5000;
  EXPECT_DOUBLE_EQ(*HostDelta(a, c, 1)->disk_util_pct, 100.0);
}

TEST(ReadHostSnapshot, MissingFilesAndDevicesBecomeNotes) {
  std::vector<std::string> notes;
  HostSnapshot s = ReadHostSnapshot(SysFs(Root("t0")), "nvme9n1", &notes);
  EXPECT_TRUE(s.stat.has_value());
  EXPECT_FALSE(s.disk.has_value());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("nvme9n1 is not in /proc/diskstats"));
  notes.clear();
  HostSnapshot none = ReadHostSnapshot(SysFs(Root("no-such-tree")), "", &notes);
  EXPECT_FALSE(none.stat.has_value());
  EXPECT_EQ(notes.size(), 2u);  // /proc/stat and /proc/meminfo; no device asked for
  EXPECT_FALSE(HostDelta(none, s, 1).has_value());
}

TEST(ProcessCpu, UtimePlusStimeAfterTheCommand) {
  // The command holds a space and parentheses; fields count from the last ')'.
  EXPECT_EQ(ParsePidStatCpuTicks(Read("t0", "/proc/4242/stat")), 380u);
  EXPECT_FALSE(ParsePidStatCpuTicks("4242 (postgres) S 1 2").has_value());
  EXPECT_FALSE(ParsePidStatCpuTicks("garbage").has_value());
  auto s = ProcessCpuSeconds(SysFs(Root("t0")), 4242);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(*s, 380.0 / static_cast<double>(sysconf(_SC_CLK_TCK)), 1e-9);
  EXPECT_FALSE(ProcessCpuSeconds(SysFs(Root("t0")), 4243).has_value());
  // This process on the real /proc, and this thread's clock, both move.
  auto self = ProcessCpuSeconds(SysFs("/"), getpid());
  ASSERT_TRUE(self.has_value());
  const double t0 = ThisThreadCpuSeconds();
  volatile uint64_t x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + static_cast<uint64_t>(i);
  EXPECT_GT(ThisThreadCpuSeconds(), t0);
}

TEST(DataDeviceFor, PartitionMapsToItsDisk) {
  std::vector<std::string> notes;
  auto d = DataDeviceFor(SysFs(Root("t0")), "/var/lib/postgresql/15/main", &notes);
  ASSERT_TRUE(d.has_value()) << (notes.empty() ? "" : notes.front());
  EXPECT_EQ(*d, "vda");
  // /tmp is a tmpfs: no block device, and the note says why.
  EXPECT_FALSE(DataDeviceFor(SysFs(Root("t0")), "/tmp/pgrig/data", &notes).has_value());
  ASSERT_FALSE(notes.empty());
  EXPECT_THAT(notes.back(), HasSubstr("tmpfs"));
  EXPECT_FALSE(DataDeviceFor(SysFs(Root("t0")), "", &notes).has_value());
}

}  // namespace
}  // namespace pgrig::observe
