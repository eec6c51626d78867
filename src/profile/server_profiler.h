// Sampling a local PostgreSQL server's CPU with Linux `perf` over one
// benchmark window (issue 30; DESIGN.md rule 10: the measured window only,
// the server's processes only).
//
// Who is sampled.  perf records every CPU (`-a`): per-CPU sampling costs
// the server a few percent, where per-process events (`-p`, inherited by
// each backend) are switched at every context switch and cost a
// select-only run 20-25% of its throughput on a 2-vCPU guest.  The profile
// then keeps the samples of the postmaster and its descendants only: perf
// reports every process that exists when it starts and every fork and exit
// after (`perf script --show-task-events`), so backends that connect during
// the run are the server's from their first instruction; everything else
// (the client, other programs) is counted as other processes' samples.
//
// When.  perf starts in Start(), before the run's clients connect, and
// Start() returns once perf is sampling: it asks perf over its control
// descriptor (`--control fd:CTL,ACK`, "ping") and waits for the answer,
// which perf gives only after it has listed the existing processes and
// enabled its events (30 s at most; a cold, busy machine takes seconds).
// The hardware counters (profile/hardware_counters.h) are opened at Start
// too, disabled, and switched on and off at the window's marks.
// The window's ends are marked with CLOCK_MONOTONIC, which perf is told to
// stamp samples with (`-k CLOCK_MONOTONIC`), and the profile keeps the
// samples between the marks only.  Samples outside are counted.
//
// How.  `perf record -a -e cpu-clock -F HZ -g -k CLOCK_MONOTONIC -N -B
// -o -` as a child in its own process group, which dies with pgrig
// (PR_SET_PDEATHSIG); Finish() stops it with SIGINT (10 s, then SIGKILL),
// feeds the recording to `perf script -i -` and builds the Profile.  The
// recording goes to a file without a name (O_TMPFILE in $TMPDIR or /tmp),
// freed when its last descriptor closes, so nothing is left behind even
// when pgrig is killed; no build-id cache is written either (-N).  The
// server's configuration is not touched.
//
// When perf is missing, not allowed to attach (perf_event_paranoid, not
// root), or fails, the profile is unavailable with perf's own first line
// as the reason; the run is measured as usual either way.
//
// One thread calls Start and Finish; MarkWindowStart may run on another
// thread that is joined before Finish (the engine's start gate).
#ifndef PGRIG_PROFILE_SERVER_PROFILER_H_
#define PGRIG_PROFILE_SERVER_PROFILER_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "host/server_cpu.h"
#include "host/server_facts.h"
#include "profile/hardware_counters.h"
#include "profile/profile.h"

namespace pgrig::profile {

struct ProfilerOptions {
  std::string perf = "perf";  // a path or a name looked up in $PATH
  int frequency_hz = 499;     // per CPU; odd, so not in step with 100/1000 Hz timers
  std::string proc_root = "/proc";
  std::string temp_dir;  // where the recording's nameless file goes; empty: $TMPDIR or /tmp
  std::chrono::milliseconds start_timeout{30000};  // for perf to answer that it samples
  // Counted over the window on the server's processes beside the sampling
  // (profile/hardware_counters.h); empty: none.
  std::vector<CounterEvent> counter_events = HardwareEvents();
};

// A profile, or why there is none.
struct ProfileMeasure {
  std::optional<Profile> profile;
  std::string unavailable;
  // With a profile: the first perf script record left out, when any were
  // (Profile::unreadable_records), for the run's notes.
  std::string unreadable_first;
  // The running server binary (/proc/PID/exe of the postmaster): whether
  // it keeps frame pointers, which decides how good the stacks are, and
  // its atomics.  nullopt when the postmaster was not found.
  std::optional<host::ServerBinaryFacts> server_binary;
  // Hardware counters over the window, or why there are none.
  std::optional<CounterValues> hardware_counters;
  std::string hardware_counters_unavailable;
};

class ServerProfiler {
 public:
  // Starts perf on the process tree of `postmaster_pid` and returns once it
  // samples.  Never fails; when perf cannot run, Finish() says why.  Takes
  // perf's start-up: ~0.1 s on an idle 2-CPU machine.
  static ServerProfiler Start(int postmaster_pid, const ProfilerOptions& options = {});
  // A profiler that only reports `reason` (no local server, no perf...).
  static ServerProfiler Unavailable(std::string reason);

  ServerProfiler(ServerProfiler&& other) noexcept;
  ServerProfiler& operator=(ServerProfiler&&) = delete;
  ServerProfiler(const ServerProfiler&) = delete;
  ~ServerProfiler();  // stops perf and removes its files if Finish was not called

  void MarkWindowStart();
  void MarkWindowEnd();
  // Stops perf and reads its samples (the window's end is now if
  // MarkWindowEnd was not called).
  ProfileMeasure Finish();

 private:
  ServerProfiler() = default;
  void Kill();

  ProfilerOptions options_;
  pid_t perf_pid_ = -1;
  int data_fd_ = -1;  // the recording: a file without a name (O_TMPFILE)
  int log_fd_ = -1;   // perf's messages, likewise
  int ctl_fd_ = -1;   // perf's control descriptor, our end (open until perf stops)
  std::string unavailable_;
  std::atomic<int64_t> window_start_ns_{0};
  int64_t window_end_ns_ = 0;
  int postmaster_pid_ = 0;
  std::optional<host::ServerBinaryFacts> server_binary_;
  ProcessTreeCounters counters_ = ProcessTreeCounters::Unavailable("not opened");
};

// The profiler for the server a benchmark window's CPU meter located, or
// one that says why there is none (a remote server).  For `pgrig bench` and
// `pgrig run`, which both measure the window with host::ServerCpuWindow.
ServerProfiler StartProfilerFor(const host::ServerCpuWindow& server_cpu,
                                const ProfilerOptions& options = {});

}  // namespace pgrig::profile

#endif  // PGRIG_PROFILE_SERVER_PROFILER_H_
