// Hardware counters of a server's processes over one benchmark window
// (issue 30, point 2): cycles, instructions, cache references and misses,
// branches and branch misses, from which a reader gets IPC and miss rates,
// the figures that say whether one core simply does more per cycle.
//
// How.  perf_event_open(2) directly, no perf binary: one counting event per
// hardware event on the postmaster and on each process it has when Open
// runs, every one opened disabled with `inherit`, so a backend forked
// later (a client connecting) counts from its first instruction on its
// parent's counter.  Enable() at the window's start and Disable() at its
// end switch every counter and its inherited copies at once (the kernel
// applies PERF_EVENT_IOC_ENABLE to an event's children too), and Read()
// sums each event over the processes: a counter's read includes its live
// and exited inherited copies.  A process forked in the instant between
// listing the postmaster's children and opening the postmaster's counters
// is not counted.
//
// Multiplexing.  A PMU with fewer counters than events time-shares them;
// each count is then scaled by enabled/running time, as perf stat does,
// and the share of the window it was counted is kept (`running_pct`).
//
// Cost.  Per-process counters are switched at every context switch of a
// server process: cheap next to sampling, but not free.  They run on the
// profiled iteration only, beside perf's sampling, whose cost the suite
// measures (docs/profiles.md).
//
// Where the machine has no PMU (most cloud guests without a virtual PMU,
// like the KVM guests pgrig is developed on) or perf_event_paranoid
// forbids it, there are no counters and `unavailable` says why.  The events
// are a parameter, so that tests use software events (task-clock) to check
// the whole mechanism on any machine.
//
// Open, Read and the destructor on one thread; Enable and Disable on any
// (the descriptors do not change after Open).
#ifndef PGRIG_PROFILE_HARDWARE_COUNTERS_H_
#define PGRIG_PROFILE_HARDWARE_COUNTERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pgrig::profile {

struct CounterEvent {
  std::string name;   // perf's name: "cycles", "instructions", "cache-misses"...
  uint32_t type = 0;  // PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE
  uint64_t config = 0;
};

// cycles, instructions, cache-references, cache-misses, branches,
// branch-misses.
std::vector<CounterEvent> HardwareEvents();

struct CounterReading {
  std::string event;
  std::optional<double> count;  // scaled for multiplexing; nullopt: not supported here
  double running_pct = 0;       // of the time it was enabled (100: never multiplexed)
};

struct CounterValues {
  std::vector<CounterReading> readings;  // in the order of the events asked for
  bool kernel = true;                    // kernel time included (false: user space only)
  int processes = 0;                     // counted directly (the postmaster and its children then)

  std::optional<double> Count(const std::string& event) const;
  // instructions / cycles; cache-misses / cache-references and
  // branch-misses / branches as percentages; nullopt without both.
  std::optional<double> Ipc() const;
  std::optional<double> CacheMissPct() const;
  std::optional<double> BranchMissPct() const;
};

// The counters, or why there are none.
struct CounterMeasure {
  std::optional<CounterValues> values;
  std::string unavailable;
};

class ProcessTreeCounters {
 public:
  // Opens `events` (disabled) on `root_pid` and its live children.  Never
  // fails: when nothing could be opened, Read() says why.
  static ProcessTreeCounters Open(int root_pid, const std::vector<CounterEvent>& events,
                                  const std::string& proc_root = "/proc");
  static ProcessTreeCounters Unavailable(std::string reason);

  ProcessTreeCounters(ProcessTreeCounters&& other) noexcept;
  ProcessTreeCounters& operator=(ProcessTreeCounters&& other) noexcept;
  ProcessTreeCounters(const ProcessTreeCounters&) = delete;
  ProcessTreeCounters& operator=(const ProcessTreeCounters&) = delete;
  ~ProcessTreeCounters();

  void Enable();
  void Disable();
  // The sums so far; call after Disable for the window's.
  CounterMeasure Read() const;

 private:
  ProcessTreeCounters() = default;
  void Close();

  std::vector<CounterEvent> events_;
  std::vector<std::vector<int>> fds_;  // per event, one per process; empty: not supported
  bool kernel_ = true;
  int processes_ = 0;
  std::string unavailable_;
};

// Why the counters could not be opened, for perf_event_open's errno:
// no PMU, not allowed (perf_event_paranoid), or the error itself.
std::string CounterOpenError(int err);

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_HARDWARE_COUNTERS_H_
