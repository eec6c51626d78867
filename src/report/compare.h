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
// saturated client, steal time, failed runs, cells of one suite lacking in
// the other, whichever order they come in, cells measuring a quantity the
// other does not: lio_per_s is never divided by tps).  Every comparison
// states its multiplicity: of m cells at 95% each, chance alone calls about
// 0.05 m "significant" (FamilyWise::kHolm corrects the calls).  The decision
// table sets the machines side by side as published comparisons do, on
// cells every suite measured (DecisionChoice), with the facts diff.
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

// How the words of a comparison's cells are decided when many cells are
// compared at once.  kNone: each cell on its own 95% interval (about one A/A
// cell in twenty reads "faster" or "slower" by chance).  kHolm: Holm's
// step-down over the cells of one comparison, so that the chance of any
// false call among them stays at 5%; the printed intervals stay per cell.
enum class FamilyWise { kNone, kHolm };
const char* FamilyWiseName(FamilyWise f);  // "none", "holm"
Result<FamilyWise> ParseFamilyWise(const std::string& s);

struct CompareOptions {
  FamilyWise family_wise = FamilyWise::kNone;
  // The decision table's rows read each suite's own best cell of a kind, as
  // published tables do, even when the cells differ in clients, protocol or
  // settings.  Off: one cell measured by every suite, the same for all.
  bool best_each = false;
};

struct CellComparison {
  std::string key;               // the matched cell id
  const CellStats* a = nullptr;  // the compared suite's cell
  const CellStats* b = nullptr;  // the base suite's cell
  stats::RatioEstimate tps;      // A / B
  // Two-sided Welch p-value of "A / B = 1" on the log scale (with an interval).
  std::optional<double> p_value;
  // Under FamilyWise::kHolm, whether the cell's call survived the correction
  // (a cell that did not reads "no significant difference").
  std::optional<bool> holm_significant;
  Speed speed = Speed::kNotDecidable;
  std::vector<LatencyRatio> latency;  // for kPercentiles with data on both sides
  // Transactions per USD, A / B; set when both suites are priced.
  std::optional<double> per_dollar_ratio;
  std::optional<stats::Interval> per_dollar_interval;
  std::optional<double> per_dollar_p_value;       // of "per-dollar ratio = 1"
  Speed per_dollar_speed = Speed::kNotDecidable;  // "faster" reads "more per dollar"
};

// How many "significant" calls one comparison's cells made against how many
// chance alone would make, were no cell truly different.
struct Multiplicity {
  int cells = 0;        // m: cells with an interval
  int significant = 0;  // of them, called faster or slower at 95% each
  // 0.05 m: the calls expected by chance alone.
  double expected_by_chance = 0;
  // 1 - 0.95^m: the chance of at least one such call.
  double any_by_chance = 0;
  // Under FamilyWise::kHolm: the calls that survive (family-wise 5%).
  std::optional<int> significant_family_wise;
};

enum class MismatchKind {
  kScale,
  kTpccWarehouses,  // the TPC-C-like data differs in size
  kPostgresMajor,
  kBuild,  // the servers were built differently (compiler, CFLAGS, configure, atomics)
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
  // The cell of each kind the row reads (DecisionRows says which), its tps
  // interval at the confidence that allows for its choice among `*_among`
  // cells (1 - 0.05 / among), and that count.
  const CellStats* read_only = nullptr;
  const CellStats* read_write = nullptr;  // read-write, else write-only
  std::optional<stats::Interval> read_only_ci, read_write_ci, lio_ci;
  int read_only_among = 0, read_write_among = 0, lio_among = 0;
  std::optional<double> read_write_per_usd;
  std::optional<double> read_only_per_usd;
  std::optional<double> p99_ms;         // of p99_cell
  const CellStats* p99_cell = nullptr;  // the best read-write cell, else the best read-only one
  const CellStats* best_lio = nullptr;  // the lio cell of the row, if any
};

// Which cells the decision table reads.  Default: per kind, the one cell id
// every suite measured, where their medians are highest together (the sum
// of their logs), so that the columns compare like with like; a kind some
// suite has no common cell of is left out of the row ("-") and listed in
// `no_common`.  best_each: each suite's own highest-median cell.  Either way
// the cell is the best of several, so its interval is widened to
// 1 - 0.05 / among (Bonferroni over the candidates), which covers it
// whichever was chosen.
struct DecisionChoice {
  bool best_each = false;
  std::vector<std::string> no_common;  // kinds ("read-only", ...) with no common cell
};

struct Comparison {
  std::vector<const SuiteStats*> suites;  // [0] is the base
  std::vector<Mismatch> mismatches;       // shown first
  // Per compared suite (index i-1 for suites[i]): its matched cells.
  std::vector<std::vector<CellComparison>> cells;
  std::vector<Multiplicity> multiplicity;  // per compared suite, like `cells`
  FamilyWise family_wise = FamilyWise::kNone;
  std::vector<DecisionColumn> decision;  // one per suite
  DecisionChoice decision_choice;
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
Result<Comparison> Compare(const std::vector<const SuiteStats*>& suites,
                           const CompareOptions& options = {});

// Mismatches inside one suite (saturated client, steal, failed runs,
// incomplete), for `pgrig report`.
std::vector<Mismatch> SuiteWarnings(const SuiteStats& s);

// The decision table's columns, one per suite, and which cells they read.
std::vector<DecisionColumn> DecisionColumns(const std::vector<const SuiteStats*>& suites,
                                            bool best_each, DecisionChoice* choice);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_COMPARE_H_
