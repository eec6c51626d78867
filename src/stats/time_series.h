// Per-interval counters for progress reporting and the results' time series.
//
// IntervalStats holds what pgbench keeps per progress interval and per
// --aggregate-interval log line: transactions, failures by kind, skipped,
// retried/retries, and latency and schedule-lag sums, sums of squares, min
// and max.  TimeSeries is a run's sequence of IntervalStats, indexed by
// interval number counted from a common origin (the start of the
// measurement), so per-thread series merge by index.
//
// Accounting follows pgbench: a transaction is attributed to the interval in
// which it ended; only successful transactions contribute latency and lag;
// every ended transaction (success or failure) contributes its retries.
// Sums of squares are doubles (enough for a progress line's stddev; the exact
// run-level figures come from Histogram).
//
// Ownership and thread-safety: plain values without synchronization.  Each
// worker thread fills its own TimeSeries; the owner merges them (Merge) when
// they are not being written, e.g. after the run, or per interval through
// whatever hand-off the engine uses.
#ifndef PGRIG_STATS_TIME_SERIES_H_
#define PGRIG_STATS_TIME_SERIES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::stats {

enum class FailureKind {
  kSerialization,  // SQLSTATE 40001
  kDeadlock,       // SQLSTATE 40P01
};

struct IntervalStats {
  int64_t transactions = 0;  // ended successfully (pgbench's "processed")
  int64_t serialization_failures = 0;
  int64_t deadlock_failures = 0;
  int64_t skipped = 0;  // -L: not sent because already later than the limit
  int64_t retried = 0;  // ended transactions that needed more than one try
  int64_t retries = 0;  // sum over ended transactions of (tries - 1)
  int64_t latency_sum_ns = 0;
  double latency_sum_squares_ns2 = 0.0;
  int64_t latency_min_ns = 0;  // valid when transactions > 0
  int64_t latency_max_ns = 0;
  int64_t lag_sum_ns = 0;
  double lag_sum_squares_ns2 = 0.0;
  int64_t lag_min_ns = 0;  // valid when transactions > 0
  int64_t lag_max_ns = 0;

  int64_t failures() const { return serialization_failures + deadlock_failures; }

  // `tries` counts the first attempt: 1 means no retry.  lag_ns is 0 when
  // there is no rate schedule.
  void RecordSuccess(int64_t latency_ns, int64_t lag_ns, int64_t tries = 1);
  void RecordFailure(FailureKind kind, int64_t tries = 1);
  void RecordSkipped() { ++skipped; }

  void Add(const IntervalStats& other);

  bool operator==(const IntervalStats&) const = default;
};

class TimeSeries {
 public:
  // REQUIRES: interval_ns > 0.
  TimeSeries(int64_t origin_ns, int64_t interval_ns);

  // The interval holding time t (ns, same clock as origin); creates it and
  // any gap before it.  Times before the origin count in interval 0.
  IntervalStats& At(int64_t t_ns);
  int64_t IndexOf(int64_t t_ns) const;

  // Adds `other` interval by interval.  Fails unless both share the origin
  // and the interval length.
  Status Merge(const TimeSeries& other);

  int64_t origin_ns() const { return origin_ns_; }
  int64_t interval_ns() const { return interval_ns_; }
  std::span<const IntervalStats> intervals() const { return intervals_; }
  int64_t IntervalStartNs(int64_t index) const { return origin_ns_ + index * interval_ns_; }
  // All intervals added together.
  IntervalStats Total() const;

 private:
  int64_t origin_ns_;
  int64_t interval_ns_;
  std::vector<IntervalStats> intervals_;
};

// The figures of one pgbench -P line, computed as pgbench computes them.
struct ProgressFields {
  double time_s = 0.0;  // elapsed since the start, or Unix time with --progress-timestamp
  double tps = 0.0;     // successful transactions / duration
  double latency_avg_ms = 0.0;
  double latency_stddev_ms = 0.0;  // population stddev, as pgbench
  double lag_avg_ms = 0.0;
  int64_t failed = 0;
  int64_t skipped = 0;
  int64_t retried = 0;
  int64_t retries = 0;
};

// `duration_s` is the length of the interval the stats cover (the time since
// the previous report; a final partial interval is shorter); `time_s` is what
// the line shows.  Latency figures are 0 when no transaction succeeded; tps
// is 0 for a non-positive duration.
ProgressFields ComputeProgress(const IntervalStats& stats, double duration_s, double time_s);

enum class ProgressTime {
  kElapsed,    // "progress: 5.0 s" (%.1f)
  kTimestamp,  // --progress-timestamp: "progress: 1732920000.123 s" (%.3f)
};

struct ProgressLineOptions {
  ProgressTime time = ProgressTime::kElapsed;
  bool rate_limited = false;   // -R given: show lag
  bool latency_limit = false;  // -L given (with -R): show skipped
  bool show_retries = false;   // --max-tries != 1: show retried and retries
};

// pgbench's progress line without the trailing newline, e.g.
// "progress: 5.0 s, 1234.5 tps, lat 0.810 ms stddev 0.123, 0 failed".
std::string FormatProgressLine(const ProgressFields& f, const ProgressLineOptions& options);

}  // namespace pgrig::stats

#endif  // PGRIG_STATS_TIME_SERIES_H_
