#include "observe/observe_host.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "common/clock.h"
#include "common/strings.h"
#include "host/host_facts.h"

namespace pgrig::observe {
namespace {

std::optional<uint64_t> ParseU64(std::string_view s) {
  auto v = ParseInt64(s);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<uint64_t>(*v);
}

// Counters only grow; a smaller value means a wrap or a reset, counted as 0.
uint64_t Delta(uint64_t a, uint64_t b) { return b >= a ? b - a : 0; }

}  // namespace

std::optional<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat st;
  bool have_cpu = false;
  for (const auto& line : Split(text, '\n')) {
    auto w = SplitWords(line);
    if (w.empty()) continue;
    if (w[0] == "cpu") {
      // user nice system idle iowait irq softirq steal guest guest_nice; old
      // kernels stop after iowait or softirq: missing fields are 0.
      if (w.size() < 5) return std::nullopt;
      uint64_t f[8] = {};
      for (size_t i = 1; i < w.size() && i <= 8; ++i) {
        auto v = ParseU64(w[i]);
        if (!v) return std::nullopt;
        f[i - 1] = *v;
      }
      st.cpu = {.user = f[0],
                .nice = f[1],
                .system = f[2],
                .idle = f[3],
                .iowait = f[4],
                .irq = f[5],
                .softirq = f[6],
                .steal = f[7]};
      have_cpu = true;
    } else if (w[0].size() > 3 && w[0].rfind("cpu", 0) == 0) {
      ++st.cpus;
    } else if (w[0] == "ctxt" && w.size() >= 2) {
      st.ctxt = ParseU64(w[1]);
    } else if (w[0] == "procs_running" && w.size() >= 2) {
      st.procs_running = ParseInt64(w[1]);
    }
  }
  if (!have_cpu) return std::nullopt;
  return st;
}

std::optional<DiskCounters> ParseDiskstats(std::string_view text, std::string_view device) {
  if (device.empty()) return std::nullopt;
  for (const auto& line : Split(text, '\n')) {
    auto w = SplitWords(line);
    // major minor name, then at least 11 counters (kernels since 2.6).
    if (w.size() < 14 || w[2] != device) continue;
    auto reads = ParseU64(w[3]), sr = ParseU64(w[5]), writes = ParseU64(w[7]), sw = ParseU64(w[9]),
         ticks = ParseU64(w[12]);
    if (!reads || !sr || !writes || !sw || !ticks) return std::nullopt;
    return DiskCounters{.reads = *reads,
                        .sectors_read = *sr,
                        .writes = *writes,
                        .sectors_written = *sw,
                        .io_ticks_ms = *ticks};
  }
  return std::nullopt;
}

MemInfo ParseMeminfo(std::string_view text) {
  MemInfo m;
  for (const auto& line : Split(text, '\n')) {
    auto w = SplitWords(line);
    if (w.size() < 2) continue;
    auto kb = ParseU64(w[1]);
    if (!kb) continue;
    if (w[0] == "MemTotal:") m.total_bytes = *kb * 1024;
    if (w[0] == "MemAvailable:") m.available_bytes = *kb * 1024;
  }
  return m;
}

HostSnapshot ReadHostSnapshot(const SysFs& fs, const std::string& device,
                              std::vector<std::string>* notes) {
  HostSnapshot s;
  s.mono_ns = MonotonicNanos();
  if (auto t = fs.ReadFile("/proc/stat"); !t.ok()) {
    notes->push_back("host CPU: " + t.status().message());
  } else if (s.stat = ParseProcStat(*t); !s.stat) {
    notes->push_back("host CPU: /proc/stat has no readable \"cpu\" line");
  }
  if (!device.empty()) {
    if (auto t = fs.ReadFile("/proc/diskstats"); !t.ok()) {
      notes->push_back("disk: " + t.status().message());
    } else if (s.disk = ParseDiskstats(*t, device); !s.disk) {
      notes->push_back("disk: device " + device + " is not in /proc/diskstats");
    }
  }
  if (auto t = fs.ReadFile("/proc/meminfo"); !t.ok()) {
    notes->push_back("memory: " + t.status().message());
  } else {
    s.mem = ParseMeminfo(*t);
    if (!s.mem.total_bytes || !s.mem.available_bytes)
      notes->push_back("memory: /proc/meminfo lacks MemTotal or MemAvailable");
  }
  return s;
}

std::optional<HostSample> HostDelta(const HostSnapshot& a, const HostSnapshot& b, double t_s) {
  if (!a.stat || !b.stat) return std::nullopt;
  const CpuTicks& x = a.stat->cpu;
  const CpuTicks& y = b.stat->cpu;
  const double total = static_cast<double>(Delta(x.Total(), y.Total()));
  if (total <= 0) return std::nullopt;
  auto pct = [total](uint64_t d) { return 100.0 * static_cast<double>(d) / total; };
  HostSample h;
  h.t_s = t_s;
  h.dt_s = static_cast<double>(b.mono_ns - a.mono_ns) * 1e-9;
  h.cpu_user_pct = pct(Delta(x.user, y.user) + Delta(x.nice, y.nice));
  h.cpu_system_pct =
      pct(Delta(x.system, y.system) + Delta(x.irq, y.irq) + Delta(x.softirq, y.softirq));
  h.cpu_iowait_pct = pct(Delta(x.iowait, y.iowait));
  h.cpu_steal_pct = pct(Delta(x.steal, y.steal));
  h.cpu_idle_pct = pct(Delta(x.idle, y.idle));
  if (a.measured_cpu_s && b.measured_cpu_s) {
    // /proc/stat counts all CPUs' time in clock ticks; so does the measured
    // CPU once scaled by the tick rate.
    static const double kTicksPerS = static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double measured = std::max(0.0, *b.measured_cpu_s - *a.measured_cpu_s) * kTicksPerS;
    h.cpu_other_pct =
        std::clamp(h.cpu_user_pct + h.cpu_system_pct - 100.0 * measured / total, 0.0, 100.0);
  }
  h.run_queue = b.stat->procs_running;
  const double dt = h.dt_s;
  auto per_s = [dt](uint64_t d) { return static_cast<double>(d) / dt; };
  if (dt > 0) {
    if (a.stat->ctxt && b.stat->ctxt)
      h.context_switches_per_s = per_s(Delta(*a.stat->ctxt, *b.stat->ctxt));
    if (a.disk && b.disk) {
      const DiskCounters& p = *a.disk;
      const DiskCounters& q = *b.disk;
      h.disk_reads_per_s = per_s(Delta(p.reads, q.reads));
      h.disk_writes_per_s = per_s(Delta(p.writes, q.writes));
      h.disk_read_bytes_per_s = per_s(Delta(p.sectors_read, q.sectors_read) * 512);
      h.disk_write_bytes_per_s = per_s(Delta(p.sectors_written, q.sectors_written) * 512);
      h.disk_util_pct = std::min(
          100.0, 100.0 * static_cast<double>(Delta(p.io_ticks_ms, q.io_ticks_ms)) / (dt * 1000.0));
    }
  }
  if (b.mem.total_bytes && b.mem.available_bytes) {
    h.mem_available_bytes = *b.mem.available_bytes;
    h.mem_used_bytes = *b.mem.total_bytes > *b.mem.available_bytes
                           ? *b.mem.total_bytes - *b.mem.available_bytes
                           : 0;
  }
  return h;
}

std::optional<uint64_t> ParsePidStatCpuTicks(std::string_view text) {
  auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  auto w = SplitWords(text.substr(close + 1));
  // w[0] is field 3 (state); utime and stime are fields 14 and 15.
  if (w.size() < 13) return std::nullopt;
  auto u = ParseU64(w[11]), s = ParseU64(w[12]);
  if (!u || !s) return std::nullopt;
  return *u + *s;
}

std::optional<double> ProcessCpuSeconds(const SysFs& fs, int pid) {
  auto t = fs.ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!t.ok()) return std::nullopt;
  auto ticks = ParsePidStatCpuTicks(*t);
  long hz = sysconf(_SC_CLK_TCK);
  if (!ticks || hz <= 0) return std::nullopt;
  return static_cast<double>(*ticks) / static_cast<double>(hz);
}

double ThisThreadCpuSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::optional<std::string> DataDeviceFor(const SysFs& fs, const std::string& directory,
                                         std::vector<std::string>* notes) {
  if (directory.empty()) return std::nullopt;
  std::vector<std::string> facts_notes;
  host::StorageFacts st = host::CollectStorageFacts(fs, directory, &facts_notes);
  if (st.device) return st.device;
  for (const auto& n : facts_notes) notes->push_back("disk: " + n);
  if (facts_notes.empty()) notes->push_back("disk: no block device found for " + directory);
  return std::nullopt;
}

}  // namespace pgrig::observe
