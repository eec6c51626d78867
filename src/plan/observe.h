// The Observer: samples the host and the server once per interval on its own
// thread while a benchmark runs, and hands back an Observation (observation.h)
// that Diagnose (bottleneck.h) turns into a named bottleneck.
//
// Start() takes the baseline sample synchronously and starts one thread; the
// thread sleeps on a condition variable between samples, so Stop() wakes it at
// once, lets it take a final sample, joins it and returns everything.  The
// server is read over one extra connection of its own (application_name
// "pgrig-observer", statement_timeout 2 s), never over the benchmark's.  What
// cannot be read (no device, a query refused, the server gone) becomes a note
// in the Observation; only invalid options make Start() fail.  A query still
// running 1 s after Stop() is cancelled, so Stop() returns within about a
// second.  Samples are capped at kMaxSamples (24 h at 1/s); beyond that they
// are dropped with a note.
//
// An Observer is used by one thread (the one that started it); its sampling
// thread shares nothing with the caller until Stop() has joined it.
#ifndef PGRIG_PLAN_OBSERVE_H_
#define PGRIG_PLAN_OBSERVE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "common/fs.h"
#include "common/status.h"
#include "pg/connection.h"
#include "plan/bottleneck.h"
#include "plan/observation.h"

namespace pgrig::plan {

struct ObserveOptions {
  SysFs sysfs{"/"};             // /proc and /sys root (fixture trees in tests)
  std::string data_directory;   // server's data_directory when local; "" if unknown/remote
  std::string data_device;      // block device as in /proc/diskstats ("vda"); "" = derive from data_directory, or none
  std::optional<pg::ConnectionParams> server;  // a separate monitoring connection; nullopt: host only
  std::string database;         // whose pg_stat_database row to follow (required with `server`)
  std::chrono::milliseconds interval{1000};
  bool server_is_local = true;  // host CPU figures describe the server only when local
};

inline constexpr size_t kMaxSamples = 24 * 3600;

class Observer {
 public:
  // REQUIRES nothing; fails (kInvalidArgument) on an interval outside
  // [10 ms, 1 h] or a server without a database.
  static Result<std::unique_ptr<Observer>> Start(const ObserveOptions& options);

  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;
  ~Observer();  // stops if still running

  // Wakes the thread, which takes a final sample; joins; returns the
  // observation.  Idempotent: later calls return the same observation.
  Observation Stop();

 private:
  class Impl;
  explicit Observer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pgrig::plan

#endif  // PGRIG_PLAN_OBSERVE_H_
