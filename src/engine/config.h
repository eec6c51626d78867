// EngineConfig: everything the load engine needs to run one benchmark, as a
// plain struct built by the caller (cli/ builds it from pgbench's options).
//
// The engine does no option parsing and prints nothing: the caller passes
// parsed scripts, a name table, the per-client starting variables and
// callbacks for progress lines and diagnostics.  The struct is read-only
// while the engine runs and is shared by all worker threads; the callbacks
// are called from the thread that called RunBenchmark() (progress) or from
// worker threads (diagnostics, serialized by the engine).
#ifndef PGRIG_ENGINE_CONFIG_H_
#define PGRIG_ENGINE_CONFIG_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "script/script.h"
#include "script/variables.h"
#include "stats/time_series.h"

namespace pgrig::engine {

using script::QueryMode;

// pgbench's -l / --log-prefix / --aggregate-interval / --sampling-rate.
struct TxnLogOptions {
  bool enabled = false;
  std::string prefix = "pgbench_log";
  int aggregate_interval_s = 0;    // 0: one line per transaction
  double sampling_rate = 0.0;      // 0: log everything
  int pid = 0;                     // names the files: <prefix>.<pid>[.<thread>]
  bool failures_detailed = false;  // --failures-detailed: failure kinds in the log
};

// The largest -L (`bench -L`, a plan's latency_limit_ms) in milliseconds,
// ~31.7 years: the engine compares the limit in nanoseconds, and a larger
// one would overflow them.  Both readers refuse a larger limit.
inline constexpr double kMaxLatencyLimitMs = 1e12;

struct EngineConfig {
  pg::ConnectionParams target;

  // The run's scripts (-b/-f/-S/-N), parsed with `names`.
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::NameTable> names;
  // Variables every client starts with (-D definitions); the engine adds
  // client_id, scale, default_seed and random_seed unless defined here.
  std::shared_ptr<const script::Variables> base_variables;
  int scale = 1;

  int clients = 1;
  int threads = 1;
  int64_t transactions_per_client = 0;  // -t; 0 when -T is used
  int duration_s = 0;                   // -T; 0 when -t is used
  QueryMode mode = QueryMode::kSimple;

  double rate_tps = 0.0;                 // -R; 0: no throttling
  int64_t latency_limit_us = 0;          // -L; 0: none (at most kMaxLatencyLimitMs * 1000)
  uint32_t max_tries = 1;                // --max-tries; 0: unlimited (needs -L or -T)
  bool connect_per_transaction = false;  // -C
  bool report_per_command = false;       // -r
  bool verbose_errors = false;           // --verbose-errors
  uint64_t random_seed = 0;              // resolved --random-seed

  int progress_s = 0;  // -P; 0: no progress callbacks
  // Length of the intervals of RunResult::series (and of progress when -P).
  int series_interval_s = 1;

  TxnLogOptions log;

  // pgbench -d: trace each client's steps through on_message, with
  // pgbench's debug texts ("client 0 executing script \"x\"", "client 0
  // sending SELECT 1;", "client 0 receiving", "client 0 executing \\set x").
  // Traced runs take the libpq path (lean_wire is ignored).
  bool debug = false;

  // Before blocking in epoll, yield the CPU this many times and poll again
  // (see poller.cc).  Off by default: on the 2-core test machine it saved
  // wake-ups but cost more system time than it saved (docs/performance.md);
  // PGRIG_ENGINE_YIELD=N turns it on for experiments.
  int yield_rounds = 0;

  // Speak the protocol directly (pg/wire.h) for transactions whose scripts
  // need nothing else from libpq: no \gset or \aset, no pipeline, and
  // connections without SSL or GSS encryption in UTF-8 or a single-byte
  // client encoding.  libpq still connects and prepares.  Off only for
  // comparisons (PGRIG_ENGINE_LIBPQ=1).
  bool lean_wire = true;
  // Keep a latency histogram per script (ScriptStats::latency): percentiles
  // per transaction type (`pgrig tpcc run`).
  bool per_script_latency = false;
  // \sleep is time the client spends away, not the server's (TPC-C's keying
  // and think times, `pgrig tpcc run --spec-timing`): the time slept is left
  // out of each transaction's latency, and when -T ends a client sleeping
  // outside a transaction block stops at once instead of sleeping on (its
  // unfinished script is not counted).  Off: pgbench's behaviour, where a
  // \sleep is part of the latency and a sleeping client finishes its sleep.
  bool untimed_sleeps = false;
  // On the lean path, batch each loop turn's sends and receives into one
  // io_uring system call (engine/ring.h) when the kernel allows it; not with
  // -C, and at a fixed rate (-R) only with io_uring_paced.  Off only for
  // comparisons (PGRIG_ENGINE_URING=0).
  bool io_uring = true;
  // Use io_uring at a fixed rate too.  Off by default: a paced client sleeps
  // until its next scheduled start, and io_uring's timed wait has no timer
  // slack, so each of those sleeps ends in a timer interrupt of its own,
  // where epoll_pwait2 lets the kernel fire it with another within the
  // thread's slack (50 us by default, as for pgbench's ppoll).  Measured: at
  // -R 17000 the io_uring loop spent 29 us of client CPU per transaction,
  // the epoll loop 24 us, and the epoll loop with its slack set to 1 ns
  // 29 us again (docs/performance.md).  On only for comparisons and tests
  // (PGRIG_ENGINE_URING=paced).
  bool io_uring_paced = false;

  // Called once per -P interval from the thread running RunBenchmark:
  // the interval's merged stats, its length and its end (seconds since the
  // benchmark start).
  std::function<void(const stats::IntervalStats& interval, double duration_s, double elapsed_s)>
      on_progress;
  // Called for pgbench's per-client messages (aborts, their causes, verbose
  // errors), one log line without the program name; error-level lines start
  // with "error: " (print "<program>: " + line).  May be called from worker
  // threads, never concurrently.
  std::function<void(const std::string& line)> on_message;

  // Called once, from one worker thread, when every client is connected and
  // before any transaction: it may block (`pgrig fleet run` in clients mode
  // waits there for its controller's start signal).  The time it takes is
  // not part of the run: neither the window nor the connection time.  An
  // error ends the run as a setup failure (RunBenchmark returns it), before
  // any transaction.
  std::function<Status()> start_gate;
  // Where the -T window starts.  kRunStart (pgbench's): when the run starts
  // connecting, so the initial connections use up part of -T (with a gate,
  // as if it had opened at once).  kStartGate: when start_gate returns, every
  // connection already open, so the window is -T of load whatever the
  // connections took: `pgrig fleet run` in clients mode, where every client
  // must measure the same -T from the controller's "go".  Needs start_gate.
  enum class WindowStart { kRunStart, kStartGate };
  WindowStart window_start = WindowStart::kRunStart;

  // Set by the caller (e.g. from a SIGINT handler) to stop the run early; the
  // engine lets in-flight transactions finish for a short grace period.
  const std::atomic<bool>* stop_requested = nullptr;
};

// The worker threads a run of `clients` clients on `threads` threads uses:
// pgbench's min(threads, clients), at least 1.  The one place this clamp is
// made: the option parser, the suite runner and the engine call it.
inline int WorkerThreads(int threads, int clients) {
  return std::max(1, std::min(threads, clients));
}

// The measurement knobs above from the environment, for comparisons
// (bench/*.sh): PGRIG_ENGINE_YIELD=N sets yield_rounds, PGRIG_ENGINE_LIBPQ=1
// turns lean_wire off, PGRIG_ENGINE_URING=0 turns io_uring off and
// PGRIG_ENGINE_URING=paced turns it on at a fixed rate too (io_uring_paced).
// workload::EngineConfigFor, the one builder of an EngineConfig, applies
// them, so a knob means the same in `bench` and in `run`.
void ApplyEnvironmentKnobs(EngineConfig& cfg);

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_CONFIG_H_
