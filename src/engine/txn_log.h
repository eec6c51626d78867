// TxnLog: pgbench's per-thread transaction log files (-l), in pgbench 15's
// exact formats.
//
// One line per transaction:
//   client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
// where `time` is the latency in microseconds, or "skipped" / "failed"
// ("serialization" / "deadlock" with --failures-detailed).
// With --aggregate-interval, one line per completed interval:
//   interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//   sum_lag sum_lag_2 min_lag max_lag skipped retried retries
//   serialization_failures deadlock_failures
// (columns that the options make meaningless are 0, as in pgbench; the last,
// incomplete interval is not written, as in pgbench).
//
// Files are "<prefix>.<pid>" for thread 0 and "<prefix>.<pid>.<thread>" for
// the others.  A TxnLog belongs to one worker thread; not thread-safe.
#ifndef PGRIG_ENGINE_TXN_LOG_H_
#define PGRIG_ENGINE_TXN_LOG_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "common/status.h"
#include "engine/config.h"
#include "script/prng.h"

namespace pgrig::engine {

enum class TxnOutcome { kSuccess, kSkipped, kSerialization, kDeadlock };

struct TxnLogFormat {
  bool throttled = false;          // -R: write lag
  bool latency_limit = false;      // -L: skipped counts in aggregates
  bool retries = false;            // --max-tries != 1
  bool failures_detailed = false;  // --failures-detailed
};

class TxnLog {
 public:
  // Opens the thread's file.  Error text as pgbench: could not open logfile "<path>": <reason>.
  static Result<std::unique_ptr<TxnLog>> Open(const TxnLogOptions& options, TxnLogFormat format,
                                              int thread_id, script::Prng sample_rng);
  // For tests: write to an already open stream (not closed by TxnLog).
  TxnLog(FILE* out, const TxnLogOptions& options, TxnLogFormat format, script::Prng sample_rng);
  ~TxnLog();
  TxnLog(const TxnLog&) = delete;
  TxnLog& operator=(const TxnLog&) = delete;

  static std::string PathFor(const TxnLogOptions& options, int thread_id);

  // Sets the first aggregate's start: Unix time in us, rounded down to a second.
  void Start(int64_t epoch_us);

  // One ended (or skipped) transaction.  latency_us/lag_us are ignored for
  // anything but a success; tries counts the first attempt.
  void Log(int client_id, int64_t transaction_no, int script_index, TxnOutcome outcome,
           double latency_us, double lag_us, uint32_t tries, int64_t now_epoch_us);

  // Writes the completed aggregate intervals up to now and flushes.
  void Finish(int64_t now_epoch_us);

 private:
  struct Agg {
    int64_t start_us = 0;
    int64_t count = 0;
    double lat_sum = 0, lat_sum2 = 0, lat_min = 0, lat_max = 0;
    double lag_sum = 0, lag_sum2 = 0, lag_min = 0, lag_max = 0;
    int64_t skipped = 0, retried = 0, retries = 0, serialization = 0, deadlock = 0;
  };
  void FlushIntervals(int64_t now_epoch_us);
  void Accumulate(TxnOutcome outcome, double latency_us, double lag_us, uint32_t tries);

  FILE* out_;
  bool owned_ = false;
  TxnLogOptions options_;
  TxnLogFormat format_;
  script::Prng sample_rng_;
  Agg agg_;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_TXN_LOG_H_
