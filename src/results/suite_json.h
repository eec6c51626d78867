// The suite document ("schema": "pgrig.suite/2", docs/results-format.md)
// and the two files derived from it: runs.csv (one row per run) and
// summary.md (one row per cell).
//
// The runner keeps the suite as a SuiteDoc (suite_doc.h), whose writer
// recomputes the cell summaries here from the runs each time, so a
// suite.json read back for --resume is the same state the runner had.
// Per cell: tps median, min, max and a 95% t interval of the geometric mean
// (computed on the log scale) over the cell's finished runs; latency
// percentiles from the MERGED histograms of those runs (never averaged
// percentiles); client CPU per transaction over all of them; the most common
// bottleneck with its evidence; transactions per dollar when priced.
// Pure functions; thread-safe.
#ifndef PGRIG_RESULTS_SUITE_JSON_H_
#define PGRIG_RESULTS_SUITE_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "plan/plan.h"

namespace pgrig::results {

// The parsed plan as recorded under plan.parsed.
nlohmann::json PlanToJson(const plan::Plan& plan);

// The headline metric of a workload kind's cells: "tps", or "lio_per_s"
// for lio cells (logical reads per second; higher is better for both).
const char* CellMetric(plan::WorkloadKind k);

// One cell's identity (id, workload, kind, metric, protocol, variant,
// clients, threads).
nlohmann::json CellToJson(const plan::Plan& plan, const plan::Cell& cell);

// tps figures of a set of samples: median, min, max, mean, geomean,
// ci95_low/ci95_high (t interval of the geometric mean, log scale; null with
// fewer than 2 samples), samples.
nlohmann::json TpsSummaryJson(const std::vector<double>& tps);

// Recomputes suite["cells"][i]["summary"] from suite["runs"] (runs whose
// "status" is "ok"), with transactions per dollar when suite["price"] is set.
// The cell's metric decides which run figure is summarised: summary.tps, or
// for lio cells summary.lio_per_s (then summary.tps is null, no per-dollar).
void UpdateCellSummaries(nlohmann::json& suite);

// runs.csv: header and one row per run.
std::string RunsCsv(const nlohmann::json& suite);

// summary.md: what was run, one table row per cell, warnings, where things are.
std::string SummaryMarkdown(const nlohmann::json& suite);

// The cell table alone (markdown, readable on a terminal).
std::string CellTable(const nlohmann::json& suite);

// The warnings of each cell's bottleneck diagnosis, as (cell id, warning),
// in the suite's order (after UpdateCellSummaries).
std::vector<std::pair<std::string, std::string>> CellWarnings(const nlohmann::json& suite);

// Writes suite.json, runs.csv and summary.md into `dir`, each atomically.
Status WriteSuiteFiles(const std::string& dir, const nlohmann::json& suite);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_SUITE_JSON_H_
