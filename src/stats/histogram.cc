#include "stats/histogram.h"

#include <cmath>
#include <numeric>
#include <string>

namespace pgrig::stats {
namespace {

// Nearest-rank target for percentile p of n values: max(1, ceil(p/100 * n)).
// p arrives as a binary double (99.9 is stored a hair above 99.9), so a
// product that is an integer in decimal can land just above it; the relative
// nudge of 1e-14 (far above double's 1.1e-16, far below one rank for any
// realistic n) keeps ceil() from jumping to the next rank.
int64_t RankFor(double p, int64_t n) {
  if (!(p > 0.0)) return 1;  // also catches NaN
  if (p >= 100.0) return n;
  const long double x = static_cast<long double>(p) / 100.0L * static_cast<long double>(n);
  const auto rank = static_cast<int64_t>(std::ceil(x - x * 1e-14L));
  return std::clamp<int64_t>(rank, 1, n);
}

std::string BucketText(const HistogramBucket& b) {
  return "[" + std::to_string(b.lower_ns) + ", " + std::to_string(b.upper_ns) + ")";
}

}  // namespace

std::string Uint128ToDecimal(Uint128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return std::string(out.rbegin(), out.rend());
}

std::optional<Uint128> ParseUint128(std::string_view s) {
  if (s.empty()) return std::nullopt;
  constexpr Uint128 kMax = ~Uint128{0};
  Uint128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<unsigned>(c - '0');
    if (v > (kMax - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

Histogram::Histogram() : counts_(static_cast<size_t>(kBucketCount), 0) {}

int64_t Histogram::BucketLower(int64_t index) {
  const int64_t m = std::max<int64_t>(0, (index >> kSubBucketBits) - 1);
  return (index - (m << kSubBucketBits)) << m;
}

int64_t Histogram::BucketUpper(int64_t index) {
  const int64_t m = std::max<int64_t>(0, (index >> kSubBucketBits) - 1);
  return BucketLower(index) + (int64_t{1} << m);
}

void Histogram::RecordN(int64_t value_ns, int64_t count) {
  if (count <= 0) return;
  if (value_ns < 0) negative_count_ += count;
  if (value_ns > kMaxTrackableNs) saturated_count_ += count;
  const int64_t v = std::clamp<int64_t>(value_ns, 0, kMaxTrackableNs);
  counts_[static_cast<size_t>(IndexOf(v))] += count;
  count_ += count;
  const auto u = static_cast<Uint128>(static_cast<uint64_t>(v));
  const auto n = static_cast<Uint128>(static_cast<uint64_t>(count));
  sum_ += u * n;
  sum_squares_ += u * u * n;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

void Histogram::RecordBatch(std::span<const int64_t> values) {
  for (const int64_t value_ns : values) {
    const int64_t v = std::clamp<int64_t>(value_ns, 0, kMaxTrackableNs);
    __builtin_prefetch(&counts_[static_cast<size_t>(IndexOf(v))], /*rw=*/1);
  }
  for (const int64_t value_ns : values) Record(value_ns);
}

void Histogram::Add(const Histogram& other) {
  if (other.count_ == 0) return;
  // Only the occupied span of `other` can hold non-zero counters.
  const auto lo = static_cast<size_t>(IndexOf(other.min_));
  const auto hi = static_cast<size_t>(IndexOf(other.max_));
  for (size_t i = lo; i <= hi; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  saturated_count_ += other.saturated_count_;
  negative_count_ += other.negative_count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

void Histogram::Reset() {
  if (count_ > 0) {
    std::fill(counts_.begin() + IndexOf(min_), counts_.begin() + IndexOf(max_) + 1, 0);
  }
  count_ = 0;
  min_ = std::numeric_limits<int64_t>::max();
  max_ = 0;
  saturated_count_ = 0;
  negative_count_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
}

double Histogram::mean() const {
  if (count_ == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(sum_) / static_cast<long double>(count_));
}

double Histogram::stddev() const {
  if (count_ < 2) return 0.0;
  const auto n = static_cast<Uint128>(static_cast<uint64_t>(count_));
  long double m2;  // sum of squared deviations from the mean
  if (sum_ <= std::numeric_limits<uint64_t>::max()) {
    // Exact: m2 = sum_squares - sum^2/n, with sum^2 split into n*q + r so that
    // the large terms cancel in integers and only r/n (< 1) is rounded.
    // sum_squares >= sum^2/n (Cauchy-Schwarz), so the difference is >= 0.
    const Uint128 s2 = sum_ * sum_;
    const Uint128 q = s2 / n;
    const Uint128 r = s2 % n;
    m2 = static_cast<long double>(sum_squares_ - q) -
         static_cast<long double>(r) / static_cast<long double>(n);
  } else {
    // Only reachable past 2^64 ns (584 years) of total latency.
    const long double mean = static_cast<long double>(sum_) / static_cast<long double>(n);
    m2 = static_cast<long double>(sum_squares_) - mean * static_cast<long double>(sum_);
  }
  m2 = std::max(m2, 0.0L);
  return static_cast<double>(std::sqrt(m2 / static_cast<long double>(n)));
}

int64_t Histogram::ReportedValue(int64_t index, int64_t rank) const {
  if (rank <= 1) return min_;
  return std::min(BucketUpper(index) - 1, max_);
}

int64_t Histogram::ValueAtPercentile(double p) const {
  if (count_ == 0) return 0;
  const int64_t rank = RankFor(p, count_);
  const int64_t lo = IndexOf(min_);
  const int64_t hi = IndexOf(max_);
  int64_t seen = 0;
  for (int64_t i = lo; i <= hi; ++i) {
    seen += counts_[static_cast<size_t>(i)];
    if (seen >= rank) return ReportedValue(i, rank);
  }
  return max_;  // unreachable when counters and count_ agree
}

std::vector<int64_t> Histogram::ValuesAtPercentiles(std::span<const double> ps) const {
  std::vector<int64_t> out(ps.size(), 0);
  if (count_ == 0 || ps.empty()) return out;
  std::vector<int64_t> ranks(ps.size());
  for (size_t k = 0; k < ps.size(); ++k) ranks[k] = RankFor(ps[k], count_);
  std::vector<size_t> order(ps.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranks[a] < ranks[b]; });
  size_t next = 0;
  int64_t seen = 0;
  const int64_t hi = IndexOf(max_);
  for (int64_t i = IndexOf(min_); i <= hi && next < order.size(); ++i) {
    seen += counts_[static_cast<size_t>(i)];
    while (next < order.size() && seen >= ranks[order[next]]) {
      out[order[next]] = ReportedValue(i, ranks[order[next]]);
      ++next;
    }
  }
  for (; next < order.size(); ++next) out[order[next]] = max_;
  return out;
}

int64_t Histogram::CountAtOrBelow(int64_t value_ns) const {
  if (count_ == 0 || value_ns < 0) return 0;
  const int64_t last = IndexOf(std::clamp<int64_t>(value_ns, 0, kMaxTrackableNs));
  int64_t total = 0;
  for (int64_t i = IndexOf(min_); i <= std::min(last, IndexOf(max_)); ++i) {
    total += counts_[static_cast<size_t>(i)];
  }
  return total;
}

HistogramData Histogram::Export() const {
  HistogramData data;
  data.count = count_;
  data.min_ns = min();
  data.max_ns = max();
  data.saturated_count = saturated_count_;
  data.negative_count = negative_count_;
  data.sum_ns = Uint128ToDecimal(sum_);
  data.sum_squares_ns2 = Uint128ToDecimal(sum_squares_);
  if (count_ == 0) return data;
  const int64_t hi = IndexOf(max_);
  for (int64_t i = IndexOf(min_); i <= hi; ++i) {
    const int64_t c = counts_[static_cast<size_t>(i)];
    if (c != 0) data.buckets.push_back({BucketLower(i), BucketUpper(i), c});
  }
  return data;
}

Result<Histogram> Histogram::Import(const HistogramData& data) {
  Histogram h;
  PGRIG_RETURN_IF_ERROR(h.Assign(data));
  return h;
}

Status Histogram::Assign(const HistogramData& data) {
  Reset();
  int64_t first_index = -1;
  int64_t previous_index = -1;
  // On an error, the counters written so far are cleared: Reset() clears
  // only the span between min and max, which are not set yet.
  auto fail = [&](const std::string& why) {
    if (first_index >= 0) {
      std::fill(counts_.begin() + first_index, counts_.begin() + previous_index + 1, 0);
    }
    return InvalidArgument(
        why +
        "; the histogram was not written by this version of pgrig or the file was edited "
        "(re-run the benchmark to regenerate it)");
  };
  int64_t total = 0;
  Uint128 sum_low = 0, sum_high = 0, sq_low = 0, sq_high = 0, sum_mid = 0, sq_mid = 0;
  for (size_t k = 0; k < data.buckets.size(); ++k) {
    const HistogramBucket& b = data.buckets[k];
    auto where = [&] { return "histogram bucket " + std::to_string(k) + " " + BucketText(b); };
    if (b.lower_ns < 0 || b.lower_ns > kMaxTrackableNs) {
      return fail(where() + " starts outside 0.." + std::to_string(kMaxTrackableNs) + " ns");
    }
    const int64_t index = IndexOf(b.lower_ns);
    if (BucketLower(index) != b.lower_ns || BucketUpper(index) != b.upper_ns) {
      return fail(where() + " does not match pgrig's bucket layout (" +
                  std::to_string(kSubBuckets) + " linear buckets per power of two" +
                  ", expected [" + std::to_string(BucketLower(index)) + ", " +
                  std::to_string(BucketUpper(index)) + "))");
    }
    if (index <= previous_index) {
      return fail(where() + " is out of order or repeated; buckets must be ascending");
    }
    if (b.count <= 0) {
      return fail(where() + " has count " + std::to_string(b.count) +
                  "; exported buckets have positive counts");
    }
    if (b.count > std::numeric_limits<int64_t>::max() - total) {
      return fail(where() + " makes the total count overflow");
    }
    if (first_index < 0) first_index = index;
    previous_index = index;
    total += b.count;
    counts_[static_cast<size_t>(index)] = b.count;
    const auto n = static_cast<Uint128>(static_cast<uint64_t>(b.count));
    const auto lo = static_cast<Uint128>(static_cast<uint64_t>(b.lower_ns));
    const auto top = static_cast<Uint128>(static_cast<uint64_t>(b.upper_ns - 1));
    const Uint128 mid = (lo + top) / 2;
    sum_low += lo * n;
    sum_high += top * n;
    sum_mid += mid * n;
    sq_low += lo * lo * n;
    sq_high += top * top * n;
    sq_mid += mid * mid * n;
  }
  if (total != data.count) {
    return fail("histogram count " + std::to_string(data.count) +
                " differs from the sum of its bucket counts " + std::to_string(total));
  }
  if (data.saturated_count < 0 || data.negative_count < 0 || data.saturated_count > data.count ||
      data.negative_count > data.count) {
    return fail("histogram saturated/negative counts (" + std::to_string(data.saturated_count) +
                ", " + std::to_string(data.negative_count) + ") must lie in 0.." +
                std::to_string(data.count));
  }
  if (data.count == 0) {
    if (data.min_ns != 0 || data.max_ns != 0) {
      return fail("empty histogram with non-zero min/max");
    }
    return Status::Ok();
  }
  const HistogramBucket& first = data.buckets.front();
  const HistogramBucket& last = data.buckets.back();
  if (data.min_ns < first.lower_ns || data.min_ns >= first.upper_ns) {
    return fail("histogram min " + std::to_string(data.min_ns) + " ns is not in its first bucket " +
                BucketText(first));
  }
  if (data.max_ns < last.lower_ns || data.max_ns >= last.upper_ns) {
    return fail("histogram max " + std::to_string(data.max_ns) + " ns is not in its last bucket " +
                BucketText(last));
  }
  if (data.sum_ns.empty() && data.sum_squares_ns2.empty()) {
    sum_ = sum_mid;  // estimates: each value read as its bucket's midpoint
    sum_squares_ = sq_mid;
  } else {
    const std::optional<Uint128> sum = ParseUint128(data.sum_ns);
    const std::optional<Uint128> sq = ParseUint128(data.sum_squares_ns2);
    if (!sum || !sq) {
      return fail("histogram sums \"" + data.sum_ns + "\" / \"" + data.sum_squares_ns2 +
                  "\" are not both decimal integers");
    }
    if (*sum < sum_low || *sum > sum_high || *sq < sq_low || *sq > sq_high) {
      return fail("histogram sums " + data.sum_ns + " / " + data.sum_squares_ns2 +
                  " are impossible for its buckets");
    }
    sum_ = *sum;
    sum_squares_ = *sq;
  }
  count_ = data.count;
  min_ = data.min_ns;
  max_ = data.max_ns;
  saturated_count_ = data.saturated_count;
  negative_count_ = data.negative_count;
  return Status::Ok();
}

}  // namespace pgrig::stats
