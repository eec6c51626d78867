#include "stats/time_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pgrig::stats {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(IntervalStatsTest, CountsAsPgbench) {
  IntervalStats s;
  s.RecordSuccess(3 * kMs, 100, 1);
  s.RecordSuccess(1 * kMs, 300, 3);  // succeeded on the third try
  s.RecordFailure(FailureKind::kSerialization, 2);
  s.RecordFailure(FailureKind::kDeadlock, 1);
  s.RecordSkipped();
  EXPECT_EQ(s.transactions, 2);
  EXPECT_EQ(s.failures(), 2);
  EXPECT_EQ(s.serialization_failures, 1);
  EXPECT_EQ(s.deadlock_failures, 1);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.retried, 2);  // the success after 3 tries and the failure after 2
  EXPECT_EQ(s.retries, 3);
  EXPECT_EQ(s.latency_sum_ns, 4 * kMs);  // failures carry no latency
  EXPECT_EQ(s.latency_min_ns, 1 * kMs);
  EXPECT_EQ(s.latency_max_ns, 3 * kMs);
  EXPECT_DOUBLE_EQ(s.latency_sum_squares_ns2, 10.0 * kMs * kMs);
  EXPECT_EQ(s.lag_sum_ns, 400);
  EXPECT_EQ(s.lag_min_ns, 100);
  EXPECT_EQ(s.lag_max_ns, 300);
}

TEST(IntervalStatsTest, AddKeepsMinMaxOfNonEmptySides) {
  IntervalStats a, b, empty;
  a.RecordSuccess(5 * kMs, 0);
  b.RecordSuccess(2 * kMs, 0);
  b.RecordSuccess(9 * kMs, 0);
  IntervalStats sum = empty;
  sum.Add(a);
  sum.Add(empty);
  sum.Add(b);
  EXPECT_EQ(sum.transactions, 3);
  EXPECT_EQ(sum.latency_min_ns, 2 * kMs);
  EXPECT_EQ(sum.latency_max_ns, 9 * kMs);
}

TEST(TimeSeriesTest, IntervalsByEndTime) {
  TimeSeries ts(1000, 100);
  EXPECT_EQ(ts.IndexOf(1000), 0);
  EXPECT_EQ(ts.IndexOf(1099), 0);
  EXPECT_EQ(ts.IndexOf(1100), 1);
  EXPECT_EQ(ts.IndexOf(900), 0);  // before the origin: first interval
  ts.At(1350).RecordSuccess(10, 0);
  ASSERT_EQ(ts.intervals().size(), 4u);  // gap intervals exist, empty
  EXPECT_EQ(ts.intervals()[3].transactions, 1);
  EXPECT_EQ(ts.intervals()[1].transactions, 0);
  EXPECT_EQ(ts.IntervalStartNs(3), 1300);
}

TEST(TimeSeriesTest, MergeByIndexEqualsRecordingInOne) {
  TimeSeries all(0, kMs), t1(0, kMs), t2(0, kMs);
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int64_t> when(0, 20 * kMs), latency(1000, 5 * kMs);
  for (int i = 0; i < 5000; ++i) {
    const int64_t t = when(rng);
    const int64_t lat = latency(rng);
    all.At(t).RecordSuccess(lat, lat / 10, 1 + i % 3);
    (i % 2 == 0 ? t1 : t2).At(t).RecordSuccess(lat, lat / 10, 1 + i % 3);
    if (i % 50 == 0) {
      all.At(t).RecordFailure(FailureKind::kDeadlock);
      (i % 2 == 0 ? t1 : t2).At(t).RecordFailure(FailureKind::kDeadlock);
    }
  }
  // Make one series shorter so Merge has to grow.
  t2.At(25 * kMs).RecordSkipped();
  all.At(25 * kMs).RecordSkipped();
  TimeSeries merged(0, kMs);
  ASSERT_TRUE(merged.Merge(t1).ok());
  ASSERT_TRUE(merged.Merge(t2).ok());
  ASSERT_EQ(merged.intervals().size(), all.intervals().size());
  for (size_t i = 0; i < all.intervals().size(); ++i) {
    const IntervalStats& x = merged.intervals()[i];
    const IntervalStats& y = all.intervals()[i];
    EXPECT_EQ(x.transactions, y.transactions) << i;
    EXPECT_EQ(x.latency_sum_ns, y.latency_sum_ns) << i;
    EXPECT_EQ(x.latency_min_ns, y.latency_min_ns) << i;
    EXPECT_EQ(x.latency_max_ns, y.latency_max_ns) << i;
    EXPECT_NEAR(x.latency_sum_squares_ns2, y.latency_sum_squares_ns2,
                1e-12 * y.latency_sum_squares_ns2)
        << i;
    EXPECT_EQ(x.retries, y.retries) << i;
    EXPECT_EQ(x.failures(), y.failures()) << i;
    EXPECT_EQ(x.skipped, y.skipped) << i;
  }
  EXPECT_EQ(merged.Total().transactions, 5000);
}

TEST(TimeSeriesTest, MergeRejectsDifferentGrids) {
  TimeSeries a(0, kMs), other_origin(5, kMs), other_interval(0, 2 * kMs);
  EXPECT_EQ(a.Merge(other_origin).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.Merge(other_interval).code(), StatusCode::kInvalidArgument);
}

TEST(ProgressTest, FieldsAsPgbenchComputesThem) {
  IntervalStats s;
  s.RecordSuccess(1 * kMs, kMs / 2, 1);
  s.RecordSuccess(2 * kMs, kMs / 2, 1);
  s.RecordSuccess(3 * kMs, kMs / 2, 4);
  s.RecordFailure(FailureKind::kSerialization);
  s.RecordSkipped();
  s.RecordSkipped();
  const ProgressFields f = ComputeProgress(s, 0.5, 5.0);
  EXPECT_DOUBLE_EQ(f.tps, 6.0);  // 3 transactions in half a second
  EXPECT_DOUBLE_EQ(f.latency_avg_ms, 2.0);
  EXPECT_NEAR(f.latency_stddev_ms, std::sqrt(2.0 / 3.0), 1e-9);  // population
  EXPECT_DOUBLE_EQ(f.lag_avg_ms, 0.5);
  EXPECT_EQ(f.failed, 1);
  EXPECT_EQ(f.skipped, 2);
  EXPECT_EQ(f.retried, 1);
  EXPECT_EQ(f.retries, 3);

  EXPECT_EQ(FormatProgressLine(f, {}),
            "progress: 5.0 s, 6.0 tps, lat 2.000 ms stddev 0.816, 1 failed");
  EXPECT_EQ(
      FormatProgressLine(f, {.rate_limited = true, .latency_limit = true, .show_retries = true}),
      "progress: 5.0 s, 6.0 tps, lat 2.000 ms stddev 0.816, 1 failed, lag 0.500 ms, "
      "2 skipped, 1 retried, 3 retries");
  // -L without -R shows no skipped count, as in pgbench.
  EXPECT_EQ(FormatProgressLine(f, {.latency_limit = true}),
            "progress: 5.0 s, 6.0 tps, lat 2.000 ms stddev 0.816, 1 failed");
}

TEST(ProgressTest, EmptyIntervalAndTimestamp) {
  const ProgressFields f = ComputeProgress(IntervalStats{}, 1.0, 1732920000.1234);
  EXPECT_EQ(f.tps, 0.0);
  EXPECT_EQ(f.latency_avg_ms, 0.0);
  EXPECT_EQ(f.latency_stddev_ms, 0.0);
  EXPECT_EQ(FormatProgressLine(f, {.time = ProgressTime::kTimestamp}),
            "progress: 1732920000.123 s, 0.0 tps, lat 0.000 ms stddev 0.000, 0 failed");
  EXPECT_EQ(ComputeProgress(IntervalStats{}, 0.0, 0.0).tps, 0.0);
}

TEST(ProgressTest, IdenticalLatenciesGiveZeroNotNaNStddev) {
  IntervalStats s;
  for (int i = 0; i < 1000; ++i) s.RecordSuccess(1'234'567, 0);
  const ProgressFields f = ComputeProgress(s, 1.0, 1.0);
  EXPECT_FALSE(std::isnan(f.latency_stddev_ms));
  EXPECT_NEAR(f.latency_stddev_ms, 0.0, 1e-6);
}

}  // namespace
}  // namespace pgrig::stats
