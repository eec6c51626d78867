#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace pgrig::stats {
namespace {

constexpr int64_t kMax = Histogram::kMaxTrackableNs;

// Values spread log-uniformly over the whole range 1 ns .. kMax, so every
// power of two gets values.
std::vector<int64_t> LogUniformValues(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(0.0, std::log2(static_cast<double>(kMax)));
  std::vector<int64_t> values(n);
  for (auto& v : values) {
    v = std::clamp<int64_t>(static_cast<int64_t>(std::exp2(exponent(rng))), 1, kMax);
  }
  return values;
}

// Realistic OLTP latencies: log-normal around 1 ms with a long tail.
std::vector<int64_t> LatencyLikeValues(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> dist(std::log(1e6), 0.8);
  std::vector<int64_t> values(n);
  for (auto& v : values) v = static_cast<int64_t>(dist(rng));
  return values;
}

// Nearest-rank order statistic, computed independently of the histogram:
// p is given in thousandths of a percent so the rank is integer arithmetic.
int64_t TrueValueAt(const std::vector<int64_t>& sorted, int64_t p_milli) {
  const auto n = static_cast<int64_t>(sorted.size());
  int64_t rank = (p_milli * n + 99999) / 100000;  // ceil(p_milli * n / 100000)
  rank = std::clamp<int64_t>(rank, 1, n);
  return sorted[static_cast<size_t>(rank - 1)];
}

void ExpectPercentilesWithinBound(const std::vector<int64_t>& values, uint64_t seed) {
  Histogram h;
  for (int64_t v : values) h.Record(v);
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());

  std::vector<int64_t> ps = {0,     1,     10,    100,   1000,  10000, 25000, 50000,
                             75000, 90000, 95000, 99000, 99900, 99990, 99999, 100000};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any_p(0, 100000);
  for (int i = 0; i < 3000; ++i) ps.push_back(any_p(rng));

  for (int64_t p_milli : ps) {
    const int64_t truth = TrueValueAt(sorted, p_milli);
    const double p = static_cast<double>(p_milli) / 1000.0;
    const int64_t got = h.ValueAtPercentile(p);
    // The contract: within 0.1% of the true order statistic.
    EXPECT_LE(std::abs(static_cast<double>(got - truth)), 0.001 * static_cast<double>(truth))
        << "p=" << p << " truth=" << truth << " got=" << got;
    // The documented choice: never below it (highest equivalent value).
    EXPECT_GE(got, truth) << "p=" << p;
  }
}

TEST(HistogramLayoutTest, BucketsTileTheRangeContiguously) {
  EXPECT_EQ(Histogram::BucketLower(0), 0);
  for (int64_t i = 0; i + 1 < Histogram::kBucketCount; ++i) {
    ASSERT_EQ(Histogram::BucketUpper(i), Histogram::BucketLower(i + 1)) << "bucket " << i;
  }
  EXPECT_EQ(Histogram::BucketUpper(Histogram::kBucketCount - 1), kMax + 1);
  EXPECT_EQ(Histogram::IndexOf(kMax), Histogram::kBucketCount - 1);
}

TEST(HistogramLayoutTest, EveryBucketIsNarrowerThanATenthOfAPercent) {
  for (int64_t i = 0; i < Histogram::kBucketCount; ++i) {
    const int64_t lo = Histogram::BucketLower(i);
    const int64_t width = Histogram::BucketUpper(i) - lo;
    if (width > 1) {
      // Any two values sharing this bucket differ by less than width, which
      // must be at most 0.1% of the smaller one.
      ASSERT_LE(static_cast<double>(width), 0.001 * static_cast<double>(lo)) << "bucket " << i;
    }
  }
}

TEST(HistogramLayoutTest, IndexOfPutsValuesInsideTheirBucket) {
  std::vector<int64_t> values = LogUniformValues(200000, 7);
  for (int64_t k = 0; k <= 42; ++k) {
    const int64_t p = int64_t{1} << k;
    for (int64_t d : {-1, 0, 1}) {
      if (p + d >= 0 && p + d <= kMax) values.push_back(p + d);
    }
  }
  for (int64_t v : values) {
    const int64_t i = Histogram::IndexOf(v);
    ASSERT_GE(i, 0);
    ASSERT_LT(i, Histogram::kBucketCount);
    ASSERT_LE(Histogram::BucketLower(i), v);
    ASSERT_GT(Histogram::BucketUpper(i), v);
  }
  for (int64_t v = 0; v < 4096; ++v) EXPECT_EQ(Histogram::IndexOf(v), v);
}

TEST(HistogramTest, PercentilesWithinBoundAcrossWholeRange) {
  ExpectPercentilesWithinBound(LogUniformValues(300000, 1), 11);
}

TEST(HistogramTest, PercentilesWithinBoundForLatencyLikeValues) {
  ExpectPercentilesWithinBound(LatencyLikeValues(300000, 2), 12);
}

TEST(HistogramTest, PercentilesWithinBoundForFewValues) {
  for (size_t n : {1, 2, 3, 7, 100}) ExpectPercentilesWithinBound(LogUniformValues(n, n), n);
}

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (int64_t v = 1; v <= 1000; ++v) h.Record(v);
  EXPECT_EQ(h.ValueAtPercentile(50), 500);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999);
  EXPECT_EQ(h.ValueAtPercentile(0.1), 1);
  EXPECT_EQ(h.ValueAtPercentile(0.15), 2);
  EXPECT_EQ(h.ValueAtPercentile(100), 1000);
}

TEST(HistogramTest, P0IsMinAndP100IsMaxExactly) {
  const std::vector<int64_t> values = LatencyLikeValues(10000, 3);
  Histogram h;
  for (int64_t v : values) h.Record(v);
  EXPECT_EQ(h.ValueAtPercentile(0), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.ValueAtPercentile(100), *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(h.min(), *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(h.max(), *std::max_element(values.begin(), values.end()));
  // Out-of-range p is clamped; NaN reads as 0.
  EXPECT_EQ(h.ValueAtPercentile(-5), h.min());
  EXPECT_EQ(h.ValueAtPercentile(250), h.max());
  EXPECT_EQ(h.ValueAtPercentile(std::nan("")), h.min());
}

TEST(HistogramTest, PercentilesAreMonotonic) {
  Histogram h;
  for (int64_t v : LatencyLikeValues(50000, 4)) h.Record(v);
  int64_t previous = h.ValueAtPercentile(0);
  for (double p = 0.01; p <= 100.0; p += 0.01) {
    const int64_t v = h.ValueAtPercentile(p);
    ASSERT_GE(v, previous) << "p=" << p;
    previous = v;
  }
}

TEST(HistogramTest, ValuesAtPercentilesMatchesSingleCalls) {
  Histogram h;
  for (int64_t v : LatencyLikeValues(20000, 5)) h.Record(v);
  const std::vector<double> ps = {99.9, 50, 0, 100, 90, 99, 95, 99.99, 1, 50};
  const std::vector<int64_t> got = h.ValuesAtPercentiles(ps);
  ASSERT_EQ(got.size(), ps.size());
  for (size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(got[i], h.ValueAtPercentile(ps[i])) << ps[i];
}

TEST(HistogramTest, MeanAndStddevAreExactFromRunningSums) {
  const std::vector<int64_t> values = LogUniformValues(100000, 6);
  Histogram h;
  for (int64_t v : values) h.Record(v);
  long double sum = 0;
  for (int64_t v : values) sum += static_cast<long double>(v);
  const long double mean = sum / static_cast<long double>(values.size());
  long double ss = 0;
  for (int64_t v : values) ss += (v - mean) * (v - mean);
  const long double sd = std::sqrt(ss / static_cast<long double>(values.size()));
  EXPECT_EQ(h.count(), static_cast<int64_t>(values.size()));
  EXPECT_NEAR(h.mean(), static_cast<double>(mean), 1e-12 * static_cast<double>(mean));
  EXPECT_NEAR(h.stddev(), static_cast<double>(sd), 1e-9 * static_cast<double>(sd));
}

TEST(HistogramTest, StddevKeepsPrecisionForLargeValuesWithTinySpread) {
  // Values 10^12 +- 1: the variance (2/3 ns^2) is 24 orders of magnitude
  // below the squares; a naive floating-point formula returns noise.
  Histogram h;
  for (int i = 0; i < 3000; ++i) h.Record(1'000'000'000'000 + (i % 3) - 1);
  EXPECT_NEAR(h.stddev(), std::sqrt(2.0 / 3.0), 1e-9);
  EXPECT_DOUBLE_EQ(h.mean(), 1e12);
}

TEST(HistogramTest, MergeEqualsRecordingEverythingInOne) {
  const std::vector<int64_t> values = LogUniformValues(100000, 8);
  Histogram all;
  std::vector<Histogram> parts(4);
  std::mt19937_64 rng(9);
  for (int64_t v : values) {
    all.Record(v);
    parts[rng() % parts.size()].Record(v);
  }
  Histogram merged;
  merged.Add(Histogram());  // adding an empty one changes nothing
  for (const Histogram& p : parts) merged.Add(p);
  EXPECT_EQ(merged, all);
  EXPECT_EQ(merged.ValueAtPercentile(99), all.ValueAtPercentile(99));
}

TEST(HistogramTest, RecordNEqualsRepeatedRecord) {
  Histogram a, b;
  a.RecordN(123456, 5);
  a.RecordN(7, 0);   // nothing
  a.RecordN(7, -3);  // nothing
  a.RecordN(-2, 2);  // clamped to 0, counted as negative
  a.RecordN(kMax + 5, 3);
  for (int i = 0; i < 5; ++i) b.Record(123456);
  for (int i = 0; i < 2; ++i) b.Record(-2);
  for (int i = 0; i < 3; ++i) b.Record(kMax + 5);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.count(), 10);
}

TEST(HistogramTest, RecordBatchEqualsRecordingEachInTurn) {
  const std::vector<int64_t> values = {0, 1, 4095, 4096, 123456, -7, kMax, kMax + 1, 987654321, 5};
  Histogram a, b;
  a.RecordBatch(values);
  a.RecordBatch({});  // nothing
  for (const int64_t v : values) b.Record(v);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.count(), 10);
  EXPECT_EQ(a.negative_count(), 1);
  EXPECT_EQ(a.saturated_count(), 1);
}

TEST(BatchedHistogramTest, HoldsEveryValueOnceFlushed) {
  // 2.5 batches: two flush by themselves, the rest waits for Flush().
  const int n = BatchedHistogram::kBatch * 5 / 2;
  BatchedHistogram batched;
  Histogram plain;
  for (int i = 0; i < n; ++i) {
    const int64_t v = (int64_t{i} * 7919 % 1000) * 1000 + i;  // spread over many buckets
    batched.Record(v);
    plain.Record(v);
  }
  batched.Flush();
  EXPECT_EQ(batched.histogram(), plain);
  EXPECT_EQ(batched.histogram().count(), n);
  batched.Flush();  // nothing pending: no change
  EXPECT_EQ(batched.histogram(), plain);
}

TEST(HistogramTest, EmptyHistogram) {
  Histogram h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.ValuesAtPercentiles(std::vector<double>{50, 99}), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(h.CountAtOrBelow(1000), 0);
  const HistogramData data = h.Export();
  EXPECT_TRUE(data.buckets.empty());
  Result<Histogram> back = Histogram::Import(data);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, h);
}

TEST(HistogramTest, ZeroIsRecordedExactly) {
  Histogram h;
  h.Record(0);
  h.Record(0);
  EXPECT_EQ(h.count(), 2);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.negative_count(), 0);
}

TEST(HistogramTest, NegativeValuesAreClampedToZeroAndCounted) {
  Histogram h;
  h.Record(-5);
  h.Record(std::numeric_limits<int64_t>::min());
  h.Record(10);
  EXPECT_EQ(h.count(), 3);
  EXPECT_EQ(h.negative_count(), 2);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.sum(), Uint128{10});
}

TEST(HistogramTest, HugeValuesSaturateIntoTopBucket) {
  Histogram h;
  h.Record(1000);
  h.Record(kMax + 1);
  h.Record(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(h.count(), 3);
  EXPECT_EQ(h.saturated_count(), 2);
  EXPECT_EQ(h.max(), kMax);
  EXPECT_EQ(h.ValueAtPercentile(100), kMax);
  EXPECT_EQ(h.ValueAtPercentile(50), kMax);
  EXPECT_EQ(h.ValueAtPercentile(0), 1000);
  // One hour is inside the range and not saturated.
  Histogram hour;
  hour.Record(3'600'000'000'000);
  EXPECT_EQ(hour.saturated_count(), 0);
  EXPECT_NEAR(static_cast<double>(hour.ValueAtPercentile(50)), 3.6e12, 3.6e9);
}

TEST(HistogramTest, ResetForgetsEverything) {
  Histogram h;
  for (int64_t v : LatencyLikeValues(1000, 10)) h.Record(v);
  h.Record(-1);
  h.Record(kMax + 1);
  h.Reset();
  EXPECT_EQ(h, Histogram());
  h.Record(42);
  EXPECT_EQ(h.min(), 42);
  EXPECT_EQ(h.ValueAtPercentile(100), 42);
}

TEST(HistogramTest, CountAtOrBelow) {
  Histogram h;
  for (int64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.CountAtOrBelow(50), 50);
  EXPECT_EQ(h.CountAtOrBelow(0), 0);
  EXPECT_EQ(h.CountAtOrBelow(-1), 0);
  EXPECT_EQ(h.CountAtOrBelow(1'000'000), 100);
}

TEST(HistogramExportTest, RoundTripIsExact) {
  Histogram h;
  for (int64_t v : LogUniformValues(50000, 13)) h.Record(v);
  h.Record(-3);
  h.Record(kMax + 9);
  const HistogramData data = h.Export();
  int64_t total = 0;
  for (size_t i = 0; i < data.buckets.size(); ++i) {
    const HistogramBucket& b = data.buckets[i];
    EXPECT_GT(b.count, 0);
    EXPECT_LT(b.lower_ns, b.upper_ns);
    if (i > 0) {
      EXPECT_LE(data.buckets[i - 1].upper_ns, b.lower_ns);
    }
    total += b.count;
  }
  EXPECT_EQ(total, h.count());
  EXPECT_EQ(data.count, h.count());
  EXPECT_EQ(data.min_ns, h.min());
  EXPECT_EQ(data.max_ns, h.max());
  EXPECT_EQ(data.saturated_count, 1);
  EXPECT_EQ(data.negative_count, 1);
  Result<Histogram> back = Histogram::Import(data);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(back->Export(), data);
}

TEST(HistogramExportTest, ImportedHistogramsMerge) {
  const std::vector<int64_t> values = LatencyLikeValues(20000, 14);
  Histogram a, b, all;
  for (size_t i = 0; i < values.size(); ++i) {
    (i % 2 == 0 ? a : b).Record(values[i]);
    all.Record(values[i]);
  }
  Result<Histogram> ra = Histogram::Import(a.Export());
  Result<Histogram> rb = Histogram::Import(b.Export());
  ASSERT_TRUE(ra.ok() && rb.ok());
  ra->Add(*rb);
  EXPECT_EQ(*ra, all);
}

TEST(HistogramExportTest, ImportWithoutSumsEstimatesThemFromBuckets) {
  Histogram h;
  for (int64_t v : LatencyLikeValues(20000, 15)) h.Record(v);
  HistogramData data = h.Export();
  data.sum_ns.clear();
  data.sum_squares_ns2.clear();
  Result<Histogram> back = Histogram::Import(data);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->count(), h.count());
  EXPECT_EQ(back->ValueAtPercentile(99), h.ValueAtPercentile(99));
  EXPECT_NEAR(back->mean(), h.mean(), h.mean() / 2048);
  EXPECT_NEAR(back->stddev(), h.stddev(), h.stddev() * 0.01);
}

TEST(HistogramExportTest, ImportRejectsInconsistentData) {
  Histogram h;
  for (int64_t v : {5000, 7000, 1'000'000, 2'000'000}) h.Record(v);
  const HistogramData good = h.Export();
  ASSERT_TRUE(Histogram::Import(good).ok());

  // Assign into a table that held other values: refused, and left empty
  // (no counter of the refused data, none of the earlier one), so the next
  // Assign is exact.
  Histogram scratch;
  auto expect_invalid = [&](const HistogramData& d, const char* what) {
    Result<Histogram> r = Histogram::Import(d);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << what;
    EXPECT_FALSE(r.status().message().empty()) << what;
    ASSERT_TRUE(scratch.Assign(good).ok());
    const Status s = scratch.Assign(d);
    EXPECT_EQ(s.message(), r.status().message()) << what;
    EXPECT_EQ(scratch, Histogram()) << what;
    ASSERT_TRUE(scratch.Assign(good).ok());
    EXPECT_EQ(scratch, *Histogram::Import(good)) << what;
  };
  HistogramData d = good;
  d.buckets[1].lower_ns += 1;  // not a bucket boundary
  expect_invalid(d, "misaligned bucket");
  d = good;
  d.buckets[2].upper_ns *= 2;  // wrong width
  expect_invalid(d, "wrong width");
  d = good;
  std::swap(d.buckets[0], d.buckets[1]);
  expect_invalid(d, "descending");
  d = good;
  d.count += 1;
  expect_invalid(d, "count mismatch");
  d = good;
  d.buckets[0].count = 0;
  d.count -= 1;
  expect_invalid(d, "zero count bucket");
  d = good;
  d.min_ns = 1;
  expect_invalid(d, "min outside first bucket");
  d = good;
  d.max_ns = 5'000'000;
  expect_invalid(d, "max outside last bucket");
  d = good;
  d.sum_ns = "12x";
  expect_invalid(d, "sum not a number");
  d = good;
  d.sum_ns = "1";
  expect_invalid(d, "impossible sum");
  d = good;
  d.sum_squares_ns2 = "99999999999999999999999999999999";
  expect_invalid(d, "impossible sum of squares");
  d = good;
  d.saturated_count = 9;
  expect_invalid(d, "saturated above count");
  d = good;
  d.buckets[0].lower_ns = -4;
  expect_invalid(d, "negative bound");
}

TEST(Uint128Test, DecimalRoundTrip) {
  const Uint128 max = ~Uint128{0};
  EXPECT_EQ(Uint128ToDecimal(0), "0");
  EXPECT_EQ(Uint128ToDecimal(Uint128{1234567890123456789ULL} * 1000), "1234567890123456789000");
  EXPECT_EQ(Uint128ToDecimal(max), "340282366920938463463374607431768211455");
  EXPECT_EQ(ParseUint128("340282366920938463463374607431768211455"), max);
  EXPECT_EQ(ParseUint128("340282366920938463463374607431768211456"), std::nullopt);
  EXPECT_EQ(ParseUint128(""), std::nullopt);
  EXPECT_EQ(ParseUint128("-1"), std::nullopt);
  EXPECT_EQ(ParseUint128("42"), Uint128{42});
}

}  // namespace
}  // namespace pgrig::stats
