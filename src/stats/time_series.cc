#include "stats/time_series.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace pgrig::stats {
namespace {

// printf-style append; the format is checked by the compiler.
__attribute__((format(printf, 2, 3))) void AppendFormat(std::string& out, const char* format, ...) {
  char buf[128];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int len = std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  if (len < 0) {
    va_end(again);
    return;
  }
  if (static_cast<size_t>(len) < sizeof(buf)) {
    out.append(buf, static_cast<size_t>(len));
  } else {
    const size_t old = out.size();
    out.resize(old + static_cast<size_t>(len) + 1);
    std::vsnprintf(out.data() + old, static_cast<size_t>(len) + 1, format, again);
    out.resize(old + static_cast<size_t>(len));
  }
  va_end(again);
}

}  // namespace

void IntervalStats::RecordSuccess(int64_t latency_ns, int64_t lag_ns, int64_t tries) {
  if (transactions == 0) {
    latency_min_ns = latency_max_ns = latency_ns;
    lag_min_ns = lag_max_ns = lag_ns;
  } else {
    latency_min_ns = std::min(latency_min_ns, latency_ns);
    latency_max_ns = std::max(latency_max_ns, latency_ns);
    lag_min_ns = std::min(lag_min_ns, lag_ns);
    lag_max_ns = std::max(lag_max_ns, lag_ns);
  }
  ++transactions;
  latency_sum_ns += latency_ns;
  latency_sum_squares_ns2 += static_cast<double>(latency_ns) * static_cast<double>(latency_ns);
  lag_sum_ns += lag_ns;
  lag_sum_squares_ns2 += static_cast<double>(lag_ns) * static_cast<double>(lag_ns);
  if (tries > 1) {
    ++retried;
    retries += tries - 1;
  }
}

void IntervalStats::RecordFailure(FailureKind kind, int64_t tries) {
  switch (kind) {
    case FailureKind::kSerialization:
      ++serialization_failures;
      break;
    case FailureKind::kDeadlock:
      ++deadlock_failures;
      break;
  }
  if (tries > 1) {
    ++retried;
    retries += tries - 1;
  }
}

void IntervalStats::Add(const IntervalStats& o) {
  if (o.transactions > 0) {
    if (transactions == 0) {
      latency_min_ns = o.latency_min_ns;
      latency_max_ns = o.latency_max_ns;
      lag_min_ns = o.lag_min_ns;
      lag_max_ns = o.lag_max_ns;
    } else {
      latency_min_ns = std::min(latency_min_ns, o.latency_min_ns);
      latency_max_ns = std::max(latency_max_ns, o.latency_max_ns);
      lag_min_ns = std::min(lag_min_ns, o.lag_min_ns);
      lag_max_ns = std::max(lag_max_ns, o.lag_max_ns);
    }
  }
  transactions += o.transactions;
  serialization_failures += o.serialization_failures;
  deadlock_failures += o.deadlock_failures;
  skipped += o.skipped;
  retried += o.retried;
  retries += o.retries;
  latency_sum_ns += o.latency_sum_ns;
  latency_sum_squares_ns2 += o.latency_sum_squares_ns2;
  lag_sum_ns += o.lag_sum_ns;
  lag_sum_squares_ns2 += o.lag_sum_squares_ns2;
}

TimeSeries::TimeSeries(int64_t origin_ns, int64_t interval_ns)
    : origin_ns_(origin_ns), interval_ns_(std::max<int64_t>(interval_ns, 1)) {}

int64_t TimeSeries::IndexOf(int64_t t_ns) const {
  if (t_ns <= origin_ns_) return 0;
  return (t_ns - origin_ns_) / interval_ns_;
}

IntervalStats& TimeSeries::At(int64_t t_ns) {
  const auto index = static_cast<size_t>(IndexOf(t_ns));
  if (index >= intervals_.size()) intervals_.resize(index + 1);
  return intervals_[index];
}

Status TimeSeries::Merge(const TimeSeries& other) {
  if (other.origin_ns_ != origin_ns_ || other.interval_ns_ != interval_ns_) {
    return InvalidArgument(
        "cannot merge time series with origin " + std::to_string(other.origin_ns_) +
        " ns and interval " + std::to_string(other.interval_ns_) + " ns into one with origin " +
        std::to_string(origin_ns_) + " ns and interval " + std::to_string(interval_ns_) +
        " ns; all workers must use the run's origin and interval");
  }
  if (other.intervals_.size() > intervals_.size()) intervals_.resize(other.intervals_.size());
  for (size_t i = 0; i < other.intervals_.size(); ++i) intervals_[i].Add(other.intervals_[i]);
  return Status::Ok();
}

IntervalStats TimeSeries::Total() const {
  IntervalStats total;
  for (const IntervalStats& s : intervals_) total.Add(s);
  return total;
}

ProgressFields ComputeProgress(const IntervalStats& s, double duration_s, double time_s) {
  ProgressFields f;
  f.time_s = time_s;
  f.tps = duration_s > 0 ? static_cast<double>(s.transactions) / duration_s : 0.0;
  if (s.transactions > 0) {
    const auto n = static_cast<double>(s.transactions);
    const double mean_ns = static_cast<double>(s.latency_sum_ns) / n;
    const double variance_ns2 = s.latency_sum_squares_ns2 / n - mean_ns * mean_ns;
    f.latency_avg_ms = mean_ns / 1e6;
    // Rounding can make a zero variance come out a hair negative.
    f.latency_stddev_ms = std::sqrt(std::max(variance_ns2, 0.0)) / 1e6;
    f.lag_avg_ms = static_cast<double>(s.lag_sum_ns) / n / 1e6;
  }
  f.failed = s.failures();
  f.skipped = s.skipped;
  f.retried = s.retried;
  f.retries = s.retries;
  return f;
}

std::string FormatProgressLine(const ProgressFields& f, const ProgressLineOptions& options) {
  std::string line;
  if (options.time == ProgressTime::kTimestamp) {
    AppendFormat(line, "progress: %.3f s", f.time_s);
  } else {
    AppendFormat(line, "progress: %.1f s", f.time_s);
  }
  AppendFormat(line, ", %.1f tps, lat %.3f ms stddev %.3f, %" PRId64 " failed", f.tps,
               f.latency_avg_ms, f.latency_stddev_ms, f.failed);
  if (options.rate_limited) {
    AppendFormat(line, ", lag %.3f ms", f.lag_avg_ms);
    if (options.latency_limit) AppendFormat(line, ", %" PRId64 " skipped", f.skipped);
  }
  if (options.show_retries) {
    AppendFormat(line, ", %" PRId64 " retried, %" PRId64 " retries", f.retried, f.retries);
  }
  return line;
}

}  // namespace pgrig::stats
