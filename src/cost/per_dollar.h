// Per-dollar figures from measured results: how many transactions one US
// dollar buys on a machine, what a million transactions cost, and the ratio
// between machines with the measurement's 95% interval carried through.
//
//   transactions per USD         = tps x 3,600 / usd_per_hour
//   USD per 1M transactions      = usd_per_hour x 1,000,000 / (tps x 3,600)
//
// (Never "TPS per dollar": tps divided by a price per hour has units of
// transactions per second per (USD per hour), which is a per-dollar figure
// off by a factor of 3,600.)
//
// The results module reads a MeasuredRun from a results file
// (results/measured_run.h).  The price of each run comes, in order of precedence,
// from --usd-per-hour for that file, --instance for that file (catalog), the
// file's run.usd_per_hour, its run.instance_type, or its
// facts.host.cloud.instance_type (catalog).  Pure functions; thread-safe.
#ifndef PGRIG_COST_PER_DOLLAR_H_
#define PGRIG_COST_PER_DOLLAR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"
#include "stats/summary.h"

namespace pgrig::cost {

// The per-dollar intervals are stats' (low, high) intervals.
using Interval = stats::Interval;

// What a results file says about throughput and the machine (keys named
// for messages).
struct MeasuredRun {
  std::string file;
  std::string schema;                  // "" when the file has none
  double tps = 0;                      // summary.tps (required, > 0)
  std::optional<Interval> tps_ci95;    // summary.tps_ci95
  std::optional<int64_t> iterations;   // summary.iterations
  std::vector<double> tps_samples;     // summary.tps_samples (per iteration)
  std::string instance_type;           // "" when the file names none
  std::string instance_type_key;       // which key it came from
  std::optional<double> usd_per_hour;  // run.usd_per_hour
  std::vector<std::string> warnings;   // things the user should know, not fatal
};

// A command-line override for one results file.
struct PriceOverride {
  std::string instance;                // "" : none
  std::optional<double> usd_per_hour;  // nullopt: none
};

struct PricedRun {
  MeasuredRun run;
  double usd_per_hour = 0;
  std::string price_from;                 // human-readable: where the price came from
  std::optional<InstancePrice> instance;  // the catalog entry, when one was used
};

// Chooses the price for `run` by the precedence in the file comment.
Result<PricedRun> PriceRun(MeasuredRun run, const PriceOverride& override_for_file,
                           const Catalog& catalog, const LookupOptions& lookup);

inline constexpr double kSecondsPerHour = 3600;

struct PerDollar {
  double transactions_per_usd = 0;
  double usd_per_million_transactions = 0;
  std::optional<Interval> transactions_per_usd_ci95;
  std::optional<Interval> usd_per_million_transactions_ci95;
  // Where the interval came from; empty when it is unknown.
  std::string interval_from;
};

// Uses summary.tps for the point, summary.tps_ci95 for the interval when
// present, else a t interval of the geometric mean of tps_samples (>= 2).
// REQUIRES (checked): tps > 0 and usd_per_hour > 0.
Result<PerDollar> ComputePerDollar(const MeasuredRun& run, double usd_per_hour);

// The verdict's key in JSON: "higher", "lower", "no_significant_difference",
// or "unknown" (kInsufficientData: no interval, so no verdict).
const char* VerdictKey(stats::Verdict v);

struct PerDollarRatio {
  // other's transactions per USD / base's transactions per USD.
  double ratio = 0;
  std::optional<Interval> ci95;
  std::optional<double> welch_df;
  bool from_samples = false;  // ratio of geometric means (true) or of summary.tps (false)
  std::string method;         // one line for people
  stats::Verdict verdict = stats::Verdict::kInsufficientData;  // no interval: no verdict
};

// With >= 2 tps samples in both runs: ratio of geometric means of
// transactions per USD with a Welch t interval on the log scale (the prices
// are constants, so they scale the interval without widening it).
// Otherwise the point ratio of summary.tps-based figures, interval unknown.
Result<PerDollarRatio> ComparePerDollar(const PricedRun& base, const PricedRun& other);

}  // namespace pgrig::cost

#endif  // PGRIG_COST_PER_DOLLAR_H_
