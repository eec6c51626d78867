// Host side of the Observer: snapshots of the kernel's cumulative counters in
// /proc/stat, /proc/diskstats and /proc/meminfo, read through a SysFs, and the
// arithmetic that turns two snapshots into one HostSample of rates.
//
// The parsers are pure functions over the files' text; ReadHostSnapshot reads
// the files; none keeps state.  Thread-safe.
#ifndef PGRIG_OBSERVE_OBSERVE_HOST_H_
#define PGRIG_OBSERVE_OBSERVE_HOST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/fs.h"
#include "observe/observation.h"

namespace pgrig::observe {

// The aggregate "cpu" line of /proc/stat, in clock ticks.  guest and
// guest_nice are already counted in user and nice, so they are left out.
struct CpuTicks {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

struct ProcStat {
  CpuTicks cpu;
  int cpus = 0;                          // "cpuN" lines
  std::optional<uint64_t> ctxt;          // context switches since boot
  std::optional<int64_t> procs_running;  // runnable tasks now
};

// One /proc/diskstats line's cumulative counters.
struct DiskCounters {
  uint64_t reads = 0;         // completed
  uint64_t sectors_read = 0;  // 512-byte units whatever the device's sector size
  uint64_t writes = 0;
  uint64_t sectors_written = 0;
  uint64_t io_ticks_ms = 0;  // milliseconds with I/O in flight
};

struct MemInfo {
  std::optional<uint64_t> total_bytes;
  std::optional<uint64_t> available_bytes;
};

// Nullopt when the text has no well-formed "cpu " line.
std::optional<ProcStat> ParseProcStat(std::string_view text);
// The counters of `device` ("vda", "nvme0n1"); nullopt when it is not listed.
std::optional<DiskCounters> ParseDiskstats(std::string_view text, std::string_view device);
MemInfo ParseMeminfo(std::string_view text);

struct HostSnapshot {
  int64_t mono_ns = 0;
  // CPU seconds the measurement itself has used so far (the client process,
  // and the server's processes when it is local): set by the Observer, not
  // by ReadHostSnapshot.  Both snapshots need it for HostSample::cpu_other_pct.
  std::optional<double> measured_cpu_s;
  std::optional<ProcStat> stat;
  std::optional<DiskCounters> disk;
  MemInfo mem;
};

// Reads the three files; what cannot be read is left nullopt and explained
// in `notes` (the caller deduplicates).  `device` "" means no disk figures.
HostSnapshot ReadHostSnapshot(const SysFs& fs, const std::string& device,
                              std::vector<std::string>* notes);

// The sample for the interval from `a` to `b`; `t_s` is b's time since start.
// Nullopt when either lacks /proc/stat or no clock tick passed between them.
std::optional<HostSample> HostDelta(const HostSnapshot& a, const HostSnapshot& b, double t_s);

// utime + stime of /proc/<pid>/stat in clock ticks; nullopt on junk.  The
// command name may hold spaces and parentheses, so fields count from the last ')'.
std::optional<uint64_t> ParsePidStatCpuTicks(std::string_view text);
// CPU seconds a process has used so far (its /proc/<pid>/stat); nullopt when
// it cannot be read.
std::optional<double> ProcessCpuSeconds(const SysFs& fs, int pid);
// CPU seconds the calling thread has used so far.
double ThisThreadCpuSeconds();

// The whole-disk name under /proc/diskstats for a directory, found the way
// host facts find it (host::CollectStorageFacts: mountinfo, partitions map to
// their disk, device-mapper to the disk underneath); nullopt with a note.
std::optional<std::string> DataDeviceFor(const SysFs& fs, const std::string& directory,
                                         std::vector<std::string>* notes);

}  // namespace pgrig::observe

#endif  // PGRIG_OBSERVE_OBSERVE_HOST_H_
