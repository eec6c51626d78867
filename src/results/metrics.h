// The headline metrics a suite's cells measure, spelled here and nowhere
// else (tests aside).  A metric names what Run::tps holds for a cell
// (Cell::metric), the "metric" of a cell and of its summary in suite.json,
// and the key under which a summary keeps that metric's figures.  Higher is
// better for all three; cells of different metrics are never divided
// (report/compare.h).  Constants and pure functions; thread-safe.
#ifndef PGRIG_RESULTS_METRICS_H_
#define PGRIG_RESULTS_METRICS_H_

#include <array>
#include <string_view>

namespace pgrig::results {

// Transactions per second: pgrig.result/1 runs (summary.tps).
inline constexpr const char* kMetricTps = "tps";
// Logical reads per second: pgrig.lio/1 runs (summary.lio_per_s).
inline constexpr const char* kMetricLio = "lio_per_s";
// New-Orders per minute: `pgrig tpcc run` (tpcc.nopm).
inline constexpr const char* kMetricNopm = "nopm";

// Every metric, in the order tables and headings list them.
inline constexpr std::array<const char*, 3> kMetrics = {kMetricTps, kMetricLio, kMetricNopm};

// How values of `metric` are labelled in tables, headings and charts:
// "tps", "lio/s", "NOPM".  An empty or unknown metric reads as tps (cells
// written before cells had a metric were tps cells).
const char* MetricUnit(std::string_view metric);

// The metric of a cell of workload kind `kind`, as suite.json spells kinds
// ("lio", "tpcc"; any other kind measures tps).
const char* MetricOfKind(std::string_view kind);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_METRICS_H_
