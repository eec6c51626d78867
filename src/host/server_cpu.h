// The CPU a local PostgreSQL cluster uses during a benchmark window, read
// from /proc (issue 16, point 3): a client that makes the server work harder
// per transaction is not leaner.  The same method as bench/server_cpu.py.
//
// How it counts.  Every server process is the postmaster or a child of it
// (backends, parallel workers, checkpointer, walwriter, autovacuum...).  A
// snapshot is the sum, in clock ticks, of
//   * the postmaster's own utime+stime,
//   * the postmaster's cutime+cstime: every child it has reaped with waitpid
//     (PostgreSQL reaps each backend as soon as it exits), so backends that
//     ended during the window are in there in full, and
//   * utime+stime+cutime+cstime of every live child (from
//     /proc/<pid>/task/*/children, or a scan of /proc when the kernel lacks
//     CONFIG_PROC_CHILDREN).
// A child that exits and is reaped between the reads would be counted twice
// (in cutime and as a live child) or not at all; the postmaster's
// cutime/cstime is read again after the children and the snapshot is
// retaken if it moved (at most ServerCpuOptions::max_attempts times, then an
// error).  After a run, Settle() waits (bounded) until the number of live
// children is back to what it was before the run, so that the run's backends
// have exited and been reaped when the closing snapshot is taken.
//
// Limits.  Resolution is one clock tick (1/SC_CLK_TCK s, 10 ms on Linux) per
// process read, so a snapshot of n processes is exact to n ticks.  The
// difference of two snapshots is the cluster's whole CPU in between: the
// run's backends (their exit, and their start-up when they connected inside
// the window) and whatever background work happened meanwhile (autovacuum,
// checkpoints, the stats collector), which every client sees alike.  A child
// that outlives Settle()'s bound is counted as far as it has run.  CPU of a
// grandchild is counted only once its parent has reaped it.
//
// Locating the postmaster (LocateLocalPostmaster) only succeeds when the
// server provably runs on this machine, in this PID namespace: the
// connection's peer is a Unix socket or a loopback address, the backend PID
// the server reports names a process here whose command is "postgres" with
// a backend's title, which started no earlier than the connection did, and
// whose parent is a "postgres" process that is not itself a backend.
// Anything else is an error whose message says why (the caller records no
// figure, never a guess).
//
// Everything reads a procfs root given in ServerCpuOptions (tests may pass
// a fixture tree).  ServerCpuMeter is immutable after construction; its
// methods may be called from any thread.
#ifndef PGRIG_HOST_SERVER_CPU_H_
#define PGRIG_HOST_SERVER_CPU_H_

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::host {

struct ServerCpuOptions {
  std::string proc_root = "/proc";
  int max_attempts = 20;  // snapshots retaken while children keep exiting
};

// The fields of /proc/<pid>/stat the meter uses; times in clock ticks.
struct ProcStat {
  std::string comm;
  char state = '?';
  int ppid = 0;
  int64_t utime = 0, stime = 0, cutime = 0, cstime = 0;
  int64_t starttime = 0;  // ticks after boot
};
Result<ProcStat> ReadProcStat(const std::string& proc_root, int pid);

// Seconds of CPU of a process tree so far.
struct ServerCpuSnapshot {
  double user_s = 0;
  double sys_s = 0;
  int live_children = 0;
};

// CPU between two snapshots.
struct ServerCpuUsage {
  double user_s = 0;
  double sys_s = 0;
  bool settled = true;  // the closing snapshot came after the children settled
  double Total() const { return user_s + sys_s; }
};

class ServerCpuMeter {
 public:
  // Fails when `pid` has no /proc entry under options.proc_root.
  static Result<ServerCpuMeter> ForProcess(int pid, ServerCpuOptions options = {});

  int pid() const { return pid_; }
  // The process's own /proc/<pid>/stat now.
  Result<ProcStat> Stat() const;

  Result<ServerCpuSnapshot> Snapshot() const;

  // Snapshots until at most `live_before` children are alive or `timeout`
  // has passed (polling every 5 ms); `settled` in the result says which.
  struct Settled {
    ServerCpuSnapshot snapshot;
    bool settled = false;
  };
  Result<Settled> Settle(int live_before, std::chrono::milliseconds timeout) const;

 private:
  ServerCpuMeter(int pid, ServerCpuOptions options) : pid_(pid), options_(std::move(options)) {}
  int pid_;
  ServerCpuOptions options_;
};

// Where a connection's peer is, from its address (getpeername).
enum class PeerKind { kUnixSocket, kLoopback, kOther };
PeerKind ClassifyPeer(const sockaddr* addr, socklen_t len);

// The postmaster PID of the server `params` names, when it provably runs
// here (see the header's paragraph); opens and closes one connection.  The
// error's message is the reason for recording no server CPU.
Result<int> LocateLocalPostmaster(const pg::ConnectionParams& params,
                                  const ServerCpuOptions& options = {});

// The checks LocateLocalPostmaster makes after connecting, on a known peer
// kind and backend PID (for tests); `connect_started_ticks` is the boot time
// in clock ticks read before connecting.
Result<int> PostmasterOfBackend(PeerKind peer, int backend_pid, int64_t connect_started_ticks,
                                const ServerCpuOptions& options = {});

// The live children of `pid` (from /proc/<pid>/task/*/children, or a scan of
// /proc); empty when it has none or does not exist.
std::vector<int> LiveChildrenOf(const std::string& proc_root, int pid);

// Clock ticks since boot, from <proc_root>/uptime (the clock of starttime).
Result<int64_t> BootTicksNow(const std::string& proc_root);

// One benchmark window's server CPU, for `pgrig bench` and `pgrig run`:
// Prepare before the run opens its connections (locates the postmaster and
// counts its live children), Start at the window's start, Finish after the
// run (settles, then the closing snapshot).  Prepare takes 0.1-1 s: it
// waits for the number of live children to hold still (backends of
// connections just closed exiting).  Start may be called from another
// thread than Prepare and Finish if that thread is joined before Finish (the
// engine's start gate runs on worker 0, joined before RunBenchmark returns).
struct ServerCpuMeasure {
  std::optional<ServerCpuUsage> usage;  // nullopt: see `unavailable`
  std::string unavailable;              // why there is no figure
};

class ServerCpuWindow {
 public:
  static ServerCpuWindow Prepare(const pg::ConnectionParams& params,
                                 const ServerCpuOptions& options = {});
  void Start();
  // The postmaster's PID when it was located (a profiler samples its tree).
  std::optional<int> postmaster_pid() const {
    return meter_ ? std::optional<int>(meter_->pid()) : std::nullopt;
  }
  // Why there is no figure when the postmaster was not located.
  const std::string& unavailable() const { return unavailable_; }
  // Waits at most `settle` for the run's backends to be reaped.
  ServerCpuMeasure Finish(std::chrono::milliseconds settle = std::chrono::milliseconds(5000));

 private:
  std::optional<ServerCpuMeter> meter_;
  int live_before_ = 0;
  std::optional<ServerCpuSnapshot> start_;
  std::string unavailable_;
};

}  // namespace pgrig::host

#endif  // PGRIG_HOST_SERVER_CPU_H_
