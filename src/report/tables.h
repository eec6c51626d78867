// The tables every renderer shares (internal to the report module): each
// report is a list of titled tables of already formatted cells, so the
// terminal, markdown and HTML renderings show the same figures.  Formatting
// only; no statistics.  Pure functions; thread-safe.
#ifndef PGRIG_REPORT_TABLES_H_
#define PGRIG_REPORT_TABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "report/claims.h"
#include "report/compare.h"

namespace pgrig::report {

struct Table {
  std::string id;  // "cells", "decision", ... (HTML ids, JSON keys)
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;  // right-align column i
  std::string note;         // one line under the table ("" for none)
};

std::string Num(double v, int decimals);                        // "12,345.6"
std::string Opt(const std::optional<double>& v, int decimals);  // "-" when absent
std::string WithInterval(double v, const std::optional<stats::Interval>& iv, int decimals);
std::string RatioText(const std::optional<double>& r, const std::optional<stats::Interval>& iv);
std::string Pretty(const std::string& kind);  // "server_cpu" -> "server CPU"

Table CellTable(const SuiteStats& s);
Table MismatchTable(const std::vector<Mismatch>& m);
Table ClaimTable(const std::vector<ClaimCheck>& claims);
Table DecisionTable(const Comparison& c);
// Matched cells of suites[index] against the base.
Table ComparisonTable(const Comparison& c, size_t index);
Table FactsDiffTable(const Comparison& c, size_t index, size_t max_rows);
// The suite's WAL flush test, one row per test; nullopt when it has none.
std::optional<Table> FsyncTable(const SuiteStats& s);
// The suites' fsync tests side by side (best method, its flushes/s and p99,
// the server's method): one test per suite, so ratios but no verdict;
// nullopt when no suite has one.
std::optional<Table> FsyncComparisonTable(const Comparison& c);
// " lio/s" after a lio cell's figures, "" for tps cells.
std::string MetricSuffix(const CellStats& c);
// The name of what the cells' headline holds: "tps", "lio/s", or "tps or
// lio/s" when both kinds are there (each value then carries its suffix).
std::string MetricHeader(const std::vector<const CellStats*>& cells);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_TABLES_H_
