// Server profiles in `pgrig report` and `pgrig compare` (issue 30, points
// 2 and 3; docs/profiles.md): a table of each suite's profiled cells, and
// for the cells two suites both profiled, where their server CPU per
// transaction differs, category by category and function by function.
//
// The gap is in microseconds of server CPU per transaction: a category's
// share of the profiled run's samples times that run's server CPU per
// transaction (measured from /proc in the same run).  Sorting by it puts
// first what explains the difference, not what is merely large on both
// sides.  Without the CPU figure on both sides the tables fall back to
// percentage points and say so.  Pure functions.
#ifndef PGRIG_REPORT_PROFILE_TABLES_H_
#define PGRIG_REPORT_PROFILE_TABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "report/analysis.h"
#include "report/compare.h"
#include "report/tables.h"

namespace pgrig::report {

struct ShareGap {
  std::string name;                    // a category key, or a function
  std::string object;                  // the function's object; empty for a category
  std::optional<double> a_pct, b_pct;  // nullopt: not among that side's top functions
  std::optional<double> a_us, b_us;    // per transaction; nullopt without the CPU figure
  double Pp() const { return a_pct.value_or(0) - b_pct.value_or(0); }
  std::optional<double> Us() const {
    if (!a_us && !b_us) return std::nullopt;
    return a_us.value_or(0) - b_us.value_or(0);
  }
};

struct ProfileDiff {
  std::string cell;
  std::optional<double> a_us, b_us;    // server CPU per transaction of the profiled runs
  std::optional<double> a_ipc, b_ipc;  // instructions per cycle, where both had counters
  std::vector<ShareGap> categories;    // every category with samples on a side, biggest gap first
  std::vector<ShareGap> functions;     // the two top-function lists joined, biggest gap first
  // "A needs 9.0 µs less server CPU per transaction than B (20.0 against
  // 29.0), 6.0 of them in locks", or the share-only equivalent; from
  // ProfileDiffs, with a warning when the cell's throughput verdict is not
  // a significant difference.
  std::string headline;
  std::string tps_verdict;  // the cell's (SpeedName); empty from DiffProfiles alone
};

ProfileDiff DiffProfiles(const std::string& cell, const CellStats::Profiled& a,
                         const CellStats::Profiled& b, const std::string& a_label,
                         const std::string& b_label);

// One row per profiled cell: samples, the three largest categories, the
// top function; nullopt when no cell was profiled.
std::optional<Table> ProfileTable(const SuiteStats& s);

// For suites[index] against the base: the diff of every matched cell both
// sides profiled, in the comparison's cell order.  The tables below and
// compare's JSON ("profile_diffs") both show these.
std::vector<ProfileDiff> ProfileDiffs(const Comparison& c, size_t index);

// For suites[index] against the base: per matched cell both profiled, a
// categories table and a functions table (at most `max_functions` rows).
std::vector<Table> ProfileDiffTables(const Comparison& c, size_t index, size_t max_functions = 10);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_PROFILE_TABLES_H_
