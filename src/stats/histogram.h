// Histogram: a log-linear latency histogram over int64 nanosecond values, in
// the spirit of HdrHistogram, with a fixed layout chosen for transaction
// latencies.
//
// Layout.  Values 0 .. 4095 ns each have their own bucket.  Above that, every
// power of two [2^k, 2^(k+1)) is split into kSubBuckets (2048) equal linear
// buckets, so a bucket is never wider than 1/2048 of its lower bound: any
// value read back from a bucket is within 0.049% of every value recorded in
// it (the requirement is 0.1%).  The range ends at kMaxTrackableNs
// (2^42 - 1 ns, about 73 minutes); larger values are clamped to it, land in
// the top bucket and are counted in saturated_count().  Negative values (a
// clock anomaly; they are never legitimate latencies) are clamped to 0 and
// counted in negative_count(), so a sum of counts is never silently wrong.
// The whole table is kBucketCount (65,536) int64 counters, 512 KiB, on the
// heap: one per worker thread, plus the merged one.
//
// Exact moments.  count, min, max, the sum and the sum of squares of the
// (clamped) values are kept exactly in running integers (128-bit for the
// sums), so mean() and stddev() do not depend on bucket resolution.
//
// Percentiles.  ValueAtPercentile(p) uses the nearest-rank definition: the
// target is the order statistic x_(r) with r = max(1, ceil(p/100 * count)).
// It returns the highest value equivalent to x_(r)'s bucket (the bucket's
// upper bound minus one) clamped to max(), except that rank 1 returns min()
// exactly, since the smallest value is known.  Hence p100 == max(), p0 ==
// min(), the result is never below the true order statistic and never more
// than 1/2048 above it.
//
// Ownership and thread-safety: a Histogram is a plain value (copyable,
// movable).  It is not synchronized: each worker thread owns its own and the
// owner merges them with Add() when the workers are quiescent (end of an
// interval or of the run).  Record() is inline and branch-free (clamps and
// min/max compile to conditional moves): about 3-4 ns of CPU per value, see
// bench/histogram_benchmark.cc.
#ifndef PGRIG_STATS_HISTOGRAM_H_
#define PGRIG_STATS_HISTOGRAM_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::stats {

// 128-bit unsigned integer for exact sums; __extension__ keeps -Wpedantic quiet
// about a type every supported compiler (GCC, Clang) provides.
__extension__ typedef unsigned __int128 Uint128;

// One non-empty bucket of an exported histogram: `count` values v with
// lower_ns <= v < upper_ns (half-open).
struct HistogramBucket {
  int64_t lower_ns = 0;
  int64_t upper_ns = 0;
  int64_t count = 0;

  bool operator==(const HistogramBucket&) const = default;
};

// Everything needed to rebuild a Histogram exactly, in types a JSON writer can
// carry.  The two sums are decimal integer strings because the sum of squares
// does not fit in 64 bits; write them as JSON strings.  Empty strings mean
// "unknown": Import() then estimates them from bucket midpoints.
struct HistogramData {
  std::vector<HistogramBucket> buckets;  // non-empty buckets, ascending
  int64_t count = 0;
  int64_t min_ns = 0;  // 0 when count == 0
  int64_t max_ns = 0;  // 0 when count == 0
  int64_t saturated_count = 0;
  int64_t negative_count = 0;
  std::string sum_ns;           // decimal, e.g. "123456789"
  std::string sum_squares_ns2;  // decimal

  bool operator==(const HistogramData&) const = default;
};

class Histogram {
 public:
  static constexpr int kSubBucketBits = 11;
  static constexpr int64_t kSubBuckets = int64_t{1} << kSubBucketBits;  // per power of two
  static constexpr int kValueBits = 42;
  static constexpr int64_t kMaxTrackableNs = (int64_t{1} << kValueBits) - 1;  // ~73.3 min
  static constexpr int64_t kBucketCount = int64_t{kValueBits - kSubBucketBits + 1}
                                          << kSubBucketBits;  // 65,536

  Histogram();

  // Records one value in nanoseconds (see the header comment for clamping).
  void Record(int64_t value_ns) {
    negative_count_ += static_cast<int64_t>(value_ns < 0);
    saturated_count_ += static_cast<int64_t>(value_ns > kMaxTrackableNs);
    const int64_t v = std::clamp<int64_t>(value_ns, 0, kMaxTrackableNs);
    ++counts_[static_cast<size_t>(IndexOf(v))];
    ++count_;
    const auto u = static_cast<uint64_t>(v);
    sum_ += u;
    sum_squares_ += static_cast<Uint128>(u) * u;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
  }

  // Records `count` occurrences of one value.  count <= 0 records nothing.
  void RecordN(int64_t value_ns, int64_t count);

  // Records every value of `values`, with the same result as Record() on
  // each in turn, but first prefetches every bucket the batch touches, so
  // that their cache misses overlap instead of following one another (see
  // BatchedHistogram).
  void RecordBatch(std::span<const int64_t> values);

  // Adds every value recorded in `other` to this histogram.
  void Add(const Histogram& other);

  // Forgets everything; the table stays allocated.
  void Reset();

  int64_t count() const { return count_; }
  // Statistics of an empty histogram are all 0; check count() first.
  int64_t min() const { return count_ == 0 ? 0 : min_; }
  int64_t max() const { return count_ == 0 ? 0 : max_; }
  double mean() const;
  // Population standard deviation (divides by count, as pgbench's "latency
  // stddev" does), from the exact sums.
  double stddev() const;
  int64_t saturated_count() const { return saturated_count_; }
  int64_t negative_count() const { return negative_count_; }
  Uint128 sum() const { return sum_; }
  Uint128 sum_squares() const { return sum_squares_; }

  // p in [0, 100]; values outside are clamped, NaN reads as 0.  Returns 0 for
  // an empty histogram.  Cost: one pass over the occupied buckets.
  int64_t ValueAtPercentile(double p) const;
  // Same as calling ValueAtPercentile for each p, in one pass; result in the
  // order of `ps` (which need not be sorted).
  std::vector<int64_t> ValuesAtPercentiles(std::span<const double> ps) const;

  // Number of recorded values <= value_ns, at bucket resolution (counts the
  // whole bucket that holds value_ns).
  int64_t CountAtOrBelow(int64_t value_ns) const;

  HistogramData Export() const;
  // Rebuilds a histogram from Export()'s output, validating it against this
  // layout and against itself (counts add up, min/max/sums consistent with
  // the buckets).  Histograms from files can be merged with Add().
  static Result<Histogram> Import(const HistogramData& data);
  // Import into this histogram, reusing its table (a report reads thousands
  // of runs' histograms through one).  On an error the histogram is left
  // empty.
  Status Assign(const HistogramData& data);

  // Bucket geometry, exposed for exporters and tests.
  static int64_t IndexOf(int64_t v) {
    // Magnitude m: how far v must be shifted right to fit in 12 bits; values
    // below 4096 have m = 0 and a unit-wide bucket of their own.
    const auto u = static_cast<uint64_t>(v);
    const int m = static_cast<int>(std::bit_width(u | kLinearMask)) - (kSubBucketBits + 1);
    return (static_cast<int64_t>(m) << kSubBucketBits) + static_cast<int64_t>(u >> m);
  }
  static int64_t BucketLower(int64_t index);
  static int64_t BucketUpper(int64_t index);  // exclusive

  bool operator==(const Histogram&) const = default;

 private:
  static constexpr uint64_t kLinearMask = (uint64_t{1} << (kSubBucketBits + 1)) - 1;

  // Value reported for the order statistic of rank `rank` lying in `index`.
  int64_t ReportedValue(int64_t index, int64_t rank) const;

  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  int64_t min_ = std::numeric_limits<int64_t>::max();
  int64_t max_ = 0;
  int64_t saturated_count_ = 0;
  int64_t negative_count_ = 0;
  Uint128 sum_ = 0;
  Uint128 sum_squares_ = 0;
};

// BatchedHistogram: a Histogram whose Record() collects values and records
// them kBatch at a time with RecordBatch().  A load worker shares its core
// with the server's backends: between two of its transactions they evict
// most of the worker's cache, so one Record() per transaction pays a cache
// (and TLB) miss on the bucket it increments, ~0.15 us on a 2-vCPU guest
// (docs/performance.md); a batch pays its misses side by side.  The
// histogram holds every value only after Flush(): histogram() is for the
// owner once it has flushed (a debug build checks).  Not synchronized, like
// Histogram.
class BatchedHistogram {
 public:
  static constexpr int kBatch = 64;

  void Record(int64_t value_ns) {
    pending_[static_cast<size_t>(pending_count_++)] = value_ns;
    if (pending_count_ == kBatch) Flush();
  }
  // Records the values still pending.
  void Flush() {
    histogram_.RecordBatch(
        std::span<const int64_t>(pending_.data(), static_cast<size_t>(pending_count_)));
    pending_count_ = 0;
  }
  const Histogram& histogram() const {
    assert(pending_count_ == 0);
    return histogram_;
  }

 private:
  Histogram histogram_;
  std::array<int64_t, kBatch> pending_{};
  int pending_count_ = 0;
};

// Decimal text of a 128-bit unsigned integer and back (nullopt on junk or
// overflow); used for HistogramData's sums.
std::string Uint128ToDecimal(Uint128 v);
std::optional<Uint128> ParseUint128(std::string_view s);

}  // namespace pgrig::stats

#endif  // PGRIG_STATS_HISTOGRAM_H_
