// Shared: what the worker threads of one run share, and Mailbox, a worker's
// hand-off of finished progress intervals to the thread running
// RunBenchmark.
//
// RunBenchmark (engine.cc) owns both; workers hold pointers.  Shared's
// plain fields are written before the threads start and only read after;
// the atomics and the mutex-guarded fields are what crosses threads.
// Message() and Error() serialize the calls to config->on_message.
#ifndef PGRIG_ENGINE_SHARED_H_
#define PGRIG_ENGINE_SHARED_H_

#include <atomic>
#include <barrier>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "engine/config.h"
#include "stats/time_series.h"

namespace pgrig::engine {

struct Shared {
  const EngineConfig* config = nullptr;
  int64_t total_weight = 0;
  int64_t start_ns = 0;  // before connections (pgbench's start_time)
  int64_t end_ns = 0;    // -T: when to stop; 0 with -t
  // Set once: when every worker is connected, or when the start gate opens
  // (EngineConfig::WindowStart::kStartGate).
  std::atomic<int64_t> bench_start_ns{0};
  int64_t gate_wait_ns = 0;  // how long config->start_gate took
  std::atomic<bool> setup_failed{false};
  std::barrier<>* connected = nullptr;
  std::mutex message_mu;
  std::string setup_error;  // guarded by message_mu

  // Lines for config->on_message: pgbench's log lines without the program
  // name.  Message() is pgbench's info level (the line as is); Error() its
  // error level, passed on as "error: <line>" so that the caller prints
  // "<program>: error: <line>" as pgbench does.
  void Message(const std::string& line);
  void Error(const std::string& line);
  void SetupError(const std::string& message);
};

struct Mailbox {
  std::mutex mu;
  std::vector<stats::IntervalStats> intervals;  // guarded by mu
  bool finished = false;                        // guarded by mu
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_SHARED_H_
