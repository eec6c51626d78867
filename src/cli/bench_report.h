// Text output of pgrig bench: pgbench's summary lines in pgbench's exact
// form (so scripts that parse "tps = " keep working), then pgrig's own lines
// (latency percentiles from the merged histogram, retries, the client's CPU
// per transaction, a warning when the client was the bottleneck), and
// pgbench's -P progress lines.  Pure functions of their inputs.
#ifndef PGRIG_CLI_BENCH_REPORT_H_
#define PGRIG_CLI_BENCH_REPORT_H_

#include <string>
#include <vector>

#include "engine/result.h"
#include "host/server_cpu.h"
#include "stats/time_series.h"
#include "workload/bench_options.h"

namespace pgrig::cli {

struct ScriptInfo {
  std::string desc;
  int weight = 1;
  std::vector<std::string> command_lines;  // first line of each command (-r)
};

struct RunInfo {
  int scale = 1;
  int threads = 1;  // after pgbench's min(threads, clients)
  std::vector<ScriptInfo> scripts;
  int cpus = 1;  // online CPUs of this machine
};

// pgbench's printResults(), line for line.
std::string FormatPgbenchSummary(const workload::BenchOptions& o, const RunInfo& info,
                                 const engine::RunResult& r);

// Busy fraction of the client's threads: CPU seconds over duration x
// min(threads, cpus).
double ClientBusyFraction(const RunInfo& info, const engine::RunResult& r);

// pgrig's lines after pgbench's; the server's CPU per transaction beside the
// client's when measured, else the reason (no line without one).
std::string FormatPgrigExtras(const workload::BenchOptions& o, const RunInfo& info,
                              const engine::RunResult& r,
                              const host::ServerCpuMeasure& server_cpu = {});

// One -P line (with its newline).  elapsed_s is the interval's end since the
// benchmark start; start_wall_s turns it into Unix time for
// --progress-timestamp.
std::string FormatProgress(const workload::BenchOptions& o, const stats::IntervalStats& interval,
                           double duration_s, double elapsed_s, double start_wall_s);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_BENCH_REPORT_H_
