// Names the likely bottleneck of one run from its Observation and what the
// client (the load engine) used, with the numbers that led there.
//
// Diagnose() is a pure function of its inputs; the thresholds are the
// constants below and docs/observe.md explains each.  Thread-safe.
#ifndef PGRIG_OBSERVE_BOTTLENECK_H_
#define PGRIG_OBSERVE_BOTTLENECK_H_

#include <optional>
#include <string>
#include <vector>

#include "engine/result.h"
#include "observe/observation.h"

namespace pgrig::observe {

// What the client used during the measured window.
struct ClientUse {
  double cpu_s = 0;       // user + system CPU seconds of the client process in the window
  double duration_s = 0;  // the window
  int threads = 1;        // -j: the most CPUs the client can use
  int cpus = 1;           // CPUs of the machine the client runs on
  double tps = 0;
};

enum class BottleneckKind {
  kServerCpu,
  kClientCpu,
  kIoWait,
  kLockWaits,
  kLwLockWaits,
  kWal,
  kSteal,
  kOtherProcesses,  // programs that are neither the client nor the server
  kUnknown
};

struct Bottleneck {
  BottleneckKind kind = BottleneckKind::kUnknown;
  // "host CPU 97% busy (user 71%, system 26%); client used 31% of it"
  std::string evidence;
  // "the client saturated its CPUs (92%)", "client and server shared 2 CPUs", "steal 12%"
  std::vector<std::string> warnings;
};

// "server_cpu", "client_cpu", "io_wait", "lock_waits", "lwlock_waits", "wal", "steal",
// "other_processes", "unknown"
const char* BottleneckName(BottleneckKind k);

// Thresholds (percent of time, or share of active-backend observations).
inline constexpr double kClientSaturatedPct = 90;  // of the CPUs its threads can use
inline constexpr double kHostBusyPct = 90;         // user + system + steal of all CPUs
inline constexpr double kStealWarnPct = 10;
inline constexpr double kStealDominantPct = 20;
inline constexpr double kIoWaitPct = 20;
inline constexpr double kDiskUtilPct = 80;
inline constexpr double kWaitDominantShare = 0.5;  // beats a busy CPU
inline constexpr double kWaitLeadingShare = 0.25;  // names the limit when the CPU is not busy
inline constexpr double kClientShareWarnPct = 20;  // of the whole machine, when the server is local
// Other processes' share of the host's CPU (HostSample::cpu_other_pct) plus
// steal: from kDisturbedPct a run is marked disturbed (Disturbance); from
// kOtherDominantPct, on a busy host, they are the bottleneck.
inline constexpr double kDisturbedPct = 10;
inline constexpr double kOtherDominantPct = 20;

// How much of the host's CPU went to neither the client nor the server
// during a window: other processes, and the hypervisor's other guests.
struct Disturbance {
  double other_cpu_pct = 0;  // time-weighted mean of cpu_other_pct
  double steal_pct = 0;
  bool disturbed = false;  // other_cpu_pct + steal_pct >= kDisturbedPct
};
// Nullopt when the window has no host samples with cpu_other_pct.
std::optional<Disturbance> AssessDisturbance(const Observation& obs);

Bottleneck Diagnose(const Observation& obs, const ClientUse& client);

// The client's use in an engine run: its process CPU (getrusage) less the
// Observer's sampling thread, which runs in the same process; the benchmark
// duration; its threads; `cpus`, the CPUs of the client's machine.
ClientUse ClientUseOf(const engine::RunResult& run, const Observation& obs, int cpus);

// The class a wait event key belongs to, as Diagnose groups them: "lock",
// "wal", "lwlock", "io", "cpu" or "other".
std::string WaitClass(const std::string& event_key);

}  // namespace pgrig::observe

#endif  // PGRIG_OBSERVE_BOTTLENECK_H_
