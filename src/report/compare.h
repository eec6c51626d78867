// Comparing suites: the first suite is the base (B), every other one (A) is
// compared with it cell by cell.  Cells match when workload, protocol,
// clients, threads and settings variant are equal (the plan's cell id).
//
// Per matched cell: the tps ratio A / B as a ratio of geometric means with a
// Welch t 95% interval on the log scale (stats::CompareRatio); latency
// percentile ratios from the merged histograms (point), with an interval
// from the per-run percentiles when both sides have two or more runs; and
// the ratio of transactions per dollar (the tps interval scaled by the price
// ratio, a constant).  A word such as "faster" is used only when the
// interval excludes 1.0; otherwise "no significant difference".
//
// Mismatches that make a comparison unfair are collected first (scale,
// PostgreSQL major version, durability settings, different plans, a
// saturated client, steal time, failed runs, cells of one suite measuring a
// quantity the other does not: lio_per_s is never divided by tps), and the
// decision table sets the
// machines side by side as published comparisons do, with the facts diff.
// A suite read from a pgrig.fsync/1 file has no cells: only its fsync test is
// set side by side.
// Pure functions over immutable inputs; thread-safe.
#ifndef PGRIG_REPORT_COMPARE_H_
#define PGRIG_REPORT_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/facts_json.h"
#include "report/analysis.h"
#include "stats/summary.h"

namespace pgrig::report {

// The words of a verdict on a tps ratio A / B.
enum class Speed { kFaster, kSlower, kNoSignificantDifference, kNotDecidable };
const char* SpeedName(Speed s);  // "faster", "slower", "no significant difference", "not decidable"
Speed SpeedFromVerdict(stats::Verdict v);

struct LatencyRatio {
  double percentile = 0;                    // 50, 99, ...
  std::optional<double> ratio;              // merged A / merged B
  std::optional<stats::Interval> interval;  // from per-run percentiles (Welch, log)
  stats::Verdict verdict = stats::Verdict::kInsufficientData;
};

struct CellComparison {
  std::string key;               // the matched cell id
  const CellStats* a = nullptr;  // the compared suite's cell
  const CellStats* b = nullptr;  // the base suite's cell
  stats::RatioEstimate tps;      // A / B
  Speed speed = Speed::kNotDecidable;
  std::vector<LatencyRatio> latency;  // for kPercentiles with data on both sides
  // Transactions per USD, A / B; set when both suites are priced.
  std::optional<double> per_dollar_ratio;
  std::optional<stats::Interval> per_dollar_interval;
  Speed per_dollar_speed = Speed::kNotDecidable;  // "faster" reads "more per dollar"
};

enum class MismatchKind {
  kScale,
  kPostgresMajor,
  kDurability,
  kPlan,
  kSaturatedClient,
  kSteal,
  kFailedRuns,
  kIncomplete,
  kUnmatchedCells,
  kMetric,     // cells measure different quantities (tps, lio_per_s): never divided
  kDisturbed,  // runs shared the host with other work (listed first)
};
const char* MismatchKindName(MismatchKind k);  // "scale", "postgresql_major", ...

struct Mismatch {
  MismatchKind kind = MismatchKind::kScale;
  std::string message;  // one line a reader acts on
};

// One machine's column in the decision table.
struct DecisionColumn {
  std::string label;
  std::string architecture;  // "aarch64 / Neoverse-V1"
  std::string vcpus;
  std::string caches;    // "L2 1 MiB, L3 32 MiB"
  std::string postgres;  // "15.18 (LSE atomics)"
  std::optional<double> usd_per_hour;
  std::string instance_type;
  const CellStats* read_only = nullptr;   // best read-only cell
  const CellStats* read_write = nullptr;  // best read-write cell
  std::optional<double> read_write_per_usd;
  std::optional<double> read_only_per_usd;
  std::optional<double> p99_ms;         // of p99_cell
  const CellStats* p99_cell = nullptr;  // the best read-write cell, else the best read-only one
  const CellStats* best_lio = nullptr;  // the lio cell with the highest median, if any
};

struct Comparison {
  std::vector<const SuiteStats*> suites;  // [0] is the base
  std::vector<Mismatch> mismatches;       // shown first
  // Per compared suite (index i-1 for suites[i]): its matched cells.
  std::vector<std::vector<CellComparison>> cells;
  std::vector<DecisionColumn> decision;  // one per suite
  // Facts of suites[i] against the base, most relevant first.
  std::vector<std::vector<host::FactDifference>> facts_diff;

  // True when some suite has a cell that matches one of the base's, or
  // every suite has a WAL flush test (compared side by side): the
  // comparison then says something.
  bool AnyMatched() const {
    for (const auto& row : cells) {
      if (!row.empty()) return true;
    }
    for (const SuiteStats* s : suites) {
      if (!s->suite->fsync) return false;
    }
    return !suites.empty();
  }
};

// REQUIRES: at least two suites, each outliving the result.
Result<Comparison> Compare(const std::vector<const SuiteStats*>& suites);

// Mismatches inside one suite (saturated client, steal, failed runs,
// incomplete), for `pgrig report`.
std::vector<Mismatch> SuiteWarnings(const SuiteStats& s);

// The decision-table column of one suite.
DecisionColumn DecisionFor(const SuiteStats& s);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_COMPARE_H_
