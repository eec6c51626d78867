// What a cell's runs add up to, computed once: the `summary` object
// pgrig.suite/2 keeps for each cell (suite_json.h writes it) and the figures
// `pgrig report` and `pgrig compare` print (report/analysis.h) are both this
// function's result, so the two cannot disagree.
//
// A run counts when it ended ok and measured something (a headline above
// zero); any other run is a failed run with its reason.  Latency is the
// counted runs' histograms merged; CPU figures are medians over the runs
// that have one.  Pure; thread-compatible.
#ifndef PGRIG_RESULTS_CELL_SUMMARY_H_
#define PGRIG_RESULTS_CELL_SUMMARY_H_

#include <optional>
#include <string>
#include <vector>

#include "results/model.h"
#include "stats/histogram.h"

namespace pgrig::results {

struct CellSummary {
  // The counted runs' headlines (Cell::metric: tps or lio/s), in run order.
  std::vector<double> tps;
  int runs_failed = 0;
  std::vector<std::string> failures;  // why each failed run did not count
  stats::Histogram latency;           // merged; empty when no run had a histogram
  std::vector<std::string> notes;     // a run's histogram that could not be read
  std::optional<double> client_cpu_us_per_transaction;
  // The server's CPU per transaction: each run's figure measured from /proc
  // when it has one, else estimated from the host's busy time minus the
  // client's (server on the observed host only); the median of those.
  std::optional<double> server_cpu_us_per_transaction;
  std::string server_cpu_source;  // "measured", "estimated", "mixed"; "" when none
  bool client_saturated = false;  // a run's client.bottleneck or its warning
  // The bottleneck most counted runs were given (a tie goes to the name
  // first in alphabetical order), how many runs, and the evidence of the
  // first of them.  When no run has one and the client saturated:
  // "client_cpu", counted over the saturated runs.
  std::string bottleneck;
  int bottleneck_runs = 0;
  std::string bottleneck_evidence;
  // The counted runs' warnings, one per kind (the text up to " ("), in the
  // order first seen: the first run's text, then "[n of m runs]".
  std::vector<std::string> warnings;
};

CellSummary SummarizeCell(const Cell& cell);

// Whether SummarizeCell counts `r`: it ended ok and measured something.
bool RunCounts(const Run& r);

// The estimate of the server's CPU per transaction SummarizeCell uses for a
// run without a measured one: busy host CPU over the window minus the
// client's own, per transaction; nullopt unless the server ran on the
// observed host and every figure is there.
std::optional<double> EstimatedServerCpuUsPerTransaction(const Run& r);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_CELL_SUMMARY_H_
