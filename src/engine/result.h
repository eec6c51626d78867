// RunResult: what one benchmark run measured, merged over all worker threads.
//
// Plain value, filled by RunBenchmark() after every worker has stopped (the
// merge happens once, off the hot path).  Times are nanoseconds on the
// monotonic clock unless the name says otherwise.  Accounting follows
// pgbench: a transaction is attributed to the moment it ended, only
// successful transactions contribute latency and lag, and failed
// transactions are the serialization/deadlock errors that ran out of tries.
#ifndef PGRIG_ENGINE_RESULT_H_
#define PGRIG_ENGINE_RESULT_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stats/histogram.h"
#include "stats/time_series.h"

namespace pgrig::engine {

// -r: one command of one script.
struct CommandStats {
  int64_t count = 0;  // executions that completed
  int64_t sum_ns = 0;
  int64_t failures = 0;  // transactions that failed in this command
  int64_t retries = 0;   // retries started because of an error in this command
  void Add(const CommandStats& o) {
    count += o.count;
    sum_ns += o.sum_ns;
    failures += o.failures;
    retries += o.retries;
  }
};

struct ScriptStats {
  stats::IntervalStats totals;
  std::vector<CommandStats> commands;
  // The latencies of this script's successful transactions, as
  // RunResult::latency keeps them for all: only with
  // EngineConfig::per_script_latency (a histogram is ~30 KB per script and
  // worker, and pgbench's summary needs none).
  std::optional<stats::Histogram> latency;
};

// Why the run stopped.
enum class StopReason {
  kCompleted,    // -t reached or -T elapsed, every client finished
  kAborted,      // at least one client aborted (SQL error, lost connection)
  kInterrupted,  // stop_requested was set (SIGINT)
};

const char* StopReasonName(StopReason r);  // "completed", "aborted", "interrupted"

// The CPUs `client_threads` client threads can keep busy on `cpus` CPUs:
// min(client_threads, cpus), at least 1 (the client's busy share, in bench's
// report and in Diagnose).
inline int UsableClientCpus(int client_threads, int cpus) {
  return std::max(1, std::min(client_threads, cpus));
}

struct RunResult {
  StopReason stop_reason = StopReason::kCompleted;
  int aborted_clients = 0;
  int finished_clients = 0;
  std::string first_abort_message;  // pgbench's text of the first abort

  double start_wall_s = 0;  // Unix time when the benchmark started
  double end_wall_s = 0;

  // pgbench's three durations: the benchmark (first thread's start to the
  // end), the sum of connection times (for -C), and the time from the start
  // of the run to the start of the benchmark (initial connections).
  int64_t bench_duration_ns = 0;
  int64_t conn_total_ns = 0;
  int64_t conn_elapsed_ns = 0;

  stats::IntervalStats totals;
  int64_t latency_late = 0;  // -L: successful transactions above the limit
  stats::Histogram latency;  // successful transactions, from scheduled start
  stats::Histogram lag;      // -R: schedule lag of successful transactions
  stats::TimeSeries series{0, 1'000'000'000};
  std::vector<ScriptStats> scripts;

  // The client's own CPU use during the benchmark (this process, all threads).
  double client_user_cpu_s = 0;
  double client_sys_cpu_s = 0;
  int64_t client_max_rss_kb = 0;

  // How the client talked to the server: connections that took the lean
  // protocol path (pg/wire.h; the others went through libpq's), and worker
  // threads whose I/O went through io_uring (the others used epoll alone).
  int lean_connections = 0;
  int ring_threads = 0;
  int threads = 0;

  // Successful transactions per second, as pgbench computes "tps".
  double Tps() const;
  // Client CPU (user+sys) per transaction that ended (success or failure), us.
  double ClientCpuUsPerTransaction() const;
  // The client's CPU (user+sys) over the benchmark as a share of the CPUs it
  // could keep busy: min(client_threads, cpus), at least 1.  0 when nothing
  // ran.
  double ClientBusyFraction(int client_threads, int cpus) const {
    const double duration_s = static_cast<double>(bench_duration_ns) / 1e9;
    const int usable = UsableClientCpus(client_threads, cpus);
    if (duration_s <= 0) return 0;
    return (client_user_cpu_s + client_sys_cpu_s) / (duration_s * usable);
  }
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_RESULT_H_
