// The figures a report shows for one suite, computed once from the model:
// per cell the tps median, min/max and 95% interval (geometric mean, Student
// t on the log scale, from stats), latency percentiles from the merged
// histogram of its runs (never averaged percentiles), client and server CPU
// per transaction, the bottleneck with its evidence, and transactions per
// dollar when the suite is priced.  Renderers print these and compute
// nothing.  Pure functions; the results are immutable value types.
#ifndef PGRIG_REPORT_ANALYSIS_H_
#define PGRIG_REPORT_ANALYSIS_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "profile/profile.h"
#include "results/metrics.h"
#include "results/model.h"
#include "stats/histogram.h"
#include "stats/summary.h"

namespace pgrig::report {

// Latency percentiles reported everywhere, in this order.
inline constexpr double kPercentiles[] = {50, 90, 95, 99, 99.9};
inline constexpr size_t kPercentileCount = std::size(kPercentiles);

// What a workload does, for the decision table's read-only / read-write columns.
enum class WorkloadKind { kReadOnly, kReadWrite, kWriteOnly, kOther };
WorkloadKind ClassifyWorkload(const std::string& workload);
const char* WorkloadKindName(WorkloadKind k);  // "read-only", "read-write", ...

struct CellStats {
  std::string id;
  std::string workload;
  std::string protocol;
  std::string variant;
  int clients = 0;
  int threads = 0;
  WorkloadKind kind = WorkloadKind::kOther;  // kOther for lio cells
  // What `tps` and its summaries hold: "tps", or "lio_per_s" (logical reads
  // per second) for lio cells; the statistics are the same, higher is better.
  std::string metric = results::kMetricTps;

  int runs_ok = 0;
  int runs_failed = 0;
  std::vector<std::string> failures;  // the failed runs' errors

  std::vector<double> tps;  // the successful runs' tps, in iteration order
  stats::Summary tps_summary;
  // Interval of the typical tps: geometric mean, t on the log scale (n >= 2).
  std::optional<stats::Interval> tps_ci;

  // From the merged histogram of all successful runs, in ms; indexed like
  // kPercentiles.  Empty when no run carried a histogram.
  std::vector<double> latency_ms;
  std::optional<double> latency_ms_avg;
  // Per run, the same percentiles (for ratio intervals); runs without a histogram skipped.
  std::vector<std::vector<double>> run_latency_ms;

  // The cell's profiled run (docs/profiles.md): its profile and its own
  // server CPU per transaction; the last such run when several were.
  struct Profiled {
    profile::Profile profile;
    std::optional<double> server_cpu_us_per_transaction;
    int iteration = 0;
    double tps = 0;
    // Its tps over the median of the cell's unprofiled runs: what profiling
    // cost this cell, as far as the run-to-run spread lets one see it.
    std::optional<double> tps_vs_unprofiled;
    std::string folded_path;  // its folded stacks; empty when none were kept
    // The server binary's frame pointers ("yes", "no", "partly", "unknown";
    // empty when the run did not record them): how far to trust the stacks.
    std::string frame_pointers;
    // Over the same window, where the machine has a PMU.
    std::optional<profile::CounterValues> hardware_counters;
  };
  std::optional<Profiled> profiled;

  std::optional<double> client_cpu_us_per_transaction;  // median over runs
  // Median over runs of the server's CPU per transaction: measured from /proc
  // where the run recorded it, else estimated as (busy host CPU - client
  // CPU) / transactions when the server ran on the observed host.
  std::optional<double> server_cpu_us_per_transaction;
  // Which: "measured", "estimated" (host minus client), "mixed"; "" when none.
  std::string server_cpu_source;
  bool client_saturated = false;        // in any run
  std::optional<double> steal_max;      // highest run-average steal fraction
  int runs_disturbed = 0;               // runs marked disturbed (other processes took CPU)
  std::optional<double> disturbed_max;  // the highest such share (0..1)
  // CPU split averaged over runs (fractions of the machine).
  std::optional<double> cpu_user, cpu_system, cpu_iowait, cpu_steal, cpu_idle;
  std::optional<double> read_bytes_per_s, write_bytes_per_s;
  std::map<std::string, int64_t> wait_events;  // summed over runs
  std::string bottleneck;  // most frequent kind across runs ("server_cpu"), "" when unknown
  std::string bottleneck_evidence;  // from a run that named it

  // Priced suites: transactions per USD (tps x 3,600 / USD per hour) at the
  // median, and the interval carried through from tps_ci (tps cells only).
  std::optional<double> transactions_per_usd;
  std::optional<stats::Interval> transactions_per_usd_ci;

  // Per run, tps per interval (chart of throughput over time).
  std::vector<std::vector<double>> tps_series;
  // Per run (parallel to tps_series), when checkpoints were counted.
  std::vector<std::vector<double>> checkpoint_times_s;
  double series_interval_s = 1;
};

struct SuiteStats {
  const results::Suite* suite = nullptr;  // not owned; must outlive this
  std::vector<CellStats> cells;           // in the suite's order
};

// Fails when a histogram stored in the suite does not import (the reader
// validated them, so only a hand-built model can fail).
Result<SuiteStats> Analyze(const results::Suite& suite);

// A figure as the CSV export and the database loader write it: the shortest
// decimal that reads back as the same double; "" when there is none.
std::string FigureText(const std::optional<double>& v);

// The columns of a cell that the CSV export and the database loader share, as
// text in this order: id, workload, protocol, variant, clients, threads,
// runs_ok, runs_failed, tps median/min/max, tps 95% interval low/high, latency
// p50 and p99 (ms), client and server CPU per transaction (us), bottleneck,
// transactions_per_usd.  "" for a figure the cell does not have.
std::vector<std::string> CellFigureFields(const CellStats& c);

// The cell of `stats` with the highest median tps among cells of `kind`, or nullptr.
const CellStats* BestCell(const SuiteStats& stats, WorkloadKind kind);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_ANALYSIS_H_
