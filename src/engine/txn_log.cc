#include "engine/txn_log.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>

namespace pgrig::engine {

std::string TxnLog::PathFor(const TxnLogOptions& options, int thread_id) {
  std::string path = options.prefix + "." + std::to_string(options.pid);
  if (thread_id > 0) path += "." + std::to_string(thread_id);
  return path;
}

Result<std::unique_ptr<TxnLog>> TxnLog::Open(const TxnLogOptions& options, TxnLogFormat format,
                                             int thread_id, script::Prng sample_rng) {
  std::string path = PathFor(options, thread_id);
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return FailedPrecondition("could not open logfile \"" + path + "\": " + std::strerror(errno));
  }
  auto log = std::make_unique<TxnLog>(f, options, format, sample_rng);
  log->owned_ = true;
  return log;
}

TxnLog::TxnLog(FILE* out, const TxnLogOptions& options, TxnLogFormat format,
               script::Prng sample_rng)
    : out_(out), options_(options), format_(format), sample_rng_(sample_rng) {}

TxnLog::~TxnLog() {
  if (owned_ && out_ != nullptr) std::fclose(out_);
}

void TxnLog::Start(int64_t epoch_us) { agg_ = Agg{.start_us = epoch_us / 1000000 * 1000000}; }

void TxnLog::Log(int client_id, int64_t transaction_no, int script_index, TxnOutcome outcome,
                 double latency_us, double lag_us, uint32_t tries, int64_t now_epoch_us) {
  // pgbench draws the sample before anything else, for every transaction.
  if (options_.sampling_rate != 0.0 && sample_rng_.NextDouble() > options_.sampling_rate) return;

  if (options_.aggregate_interval_s > 0) {
    FlushIntervals(now_epoch_us);
    Accumulate(outcome, latency_us, lag_us, tries);
    return;
  }
  if (outcome == TxnOutcome::kSuccess) {
    std::fprintf(out_, "%d %" PRId64 " %.0f %d %" PRId64 " %" PRId64, client_id, transaction_no,
                 latency_us, script_index, now_epoch_us / 1000000, now_epoch_us % 1000000);
  } else {
    const char* what = "failed";
    if (outcome == TxnOutcome::kSkipped) {
      what = "skipped";
    } else if (format_.failures_detailed) {
      what = outcome == TxnOutcome::kSerialization ? "serialization" : "deadlock";
    }
    std::fprintf(out_, "%d %" PRId64 " %s %d %" PRId64 " %" PRId64, client_id, transaction_no, what,
                 script_index, now_epoch_us / 1000000, now_epoch_us % 1000000);
  }
  if (format_.throttled) std::fprintf(out_, " %.0f", lag_us);
  if (format_.retries) std::fprintf(out_, " %u", tries - 1);
  std::fputc('\n', out_);
}

void TxnLog::Accumulate(TxnOutcome outcome, double latency_us, double lag_us, uint32_t tries) {
  Agg& a = agg_;
  if (outcome == TxnOutcome::kSkipped) {
    ++a.skipped;
    return;
  }
  if (tries > 1) {
    ++a.retried;
    a.retries += tries - 1;
  }
  if (outcome == TxnOutcome::kSerialization) {
    ++a.serialization;
    return;
  }
  if (outcome == TxnOutcome::kDeadlock) {
    ++a.deadlock;
    return;
  }
  if (a.count == 0) {
    a.lat_min = a.lat_max = latency_us;
    a.lag_min = a.lag_max = lag_us;
  } else {
    a.lat_min = std::min(a.lat_min, latency_us);
    a.lat_max = std::max(a.lat_max, latency_us);
    a.lag_min = std::min(a.lag_min, lag_us);
    a.lag_max = std::max(a.lag_max, lag_us);
  }
  ++a.count;
  a.lat_sum += latency_us;
  a.lat_sum2 += latency_us * latency_us;
  a.lag_sum += lag_us;
  a.lag_sum2 += lag_us * lag_us;
}

void TxnLog::FlushIntervals(int64_t now_epoch_us) {
  const int64_t step = int64_t{options_.aggregate_interval_s} * 1000000;
  while (agg_.start_us + step <= now_epoch_us) {
    const Agg& a = agg_;
    std::fprintf(out_, "%" PRId64 " %" PRId64 " %.0f %.0f %.0f %.0f", a.start_us / 1000000, a.count,
                 a.lat_sum, a.lat_sum2, a.lat_min, a.lat_max);
    if (format_.throttled) {
      std::fprintf(out_, " %.0f %.0f %.0f %.0f", a.lag_sum, a.lag_sum2, a.lag_min, a.lag_max);
    } else {
      std::fputs(" 0 0 0 0", out_);
    }
    std::fprintf(out_, " %" PRId64, format_.latency_limit ? a.skipped : 0);
    std::fprintf(out_, " %" PRId64 " %" PRId64, format_.retries ? a.retried : 0,
                 format_.retries ? a.retries : 0);
    std::fprintf(out_, " %" PRId64 " %" PRId64, format_.failures_detailed ? a.serialization : 0,
                 format_.failures_detailed ? a.deadlock : 0);
    std::fputc('\n', out_);
    agg_ = Agg{.start_us = a.start_us + step};
  }
}

void TxnLog::Finish(int64_t now_epoch_us) {
  if (options_.aggregate_interval_s > 0) FlushIntervals(now_epoch_us);
  std::fflush(out_);
}

}  // namespace pgrig::engine
