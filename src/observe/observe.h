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
#ifndef PGRIG_OBSERVE_OBSERVE_H_
#define PGRIG_OBSERVE_OBSERVE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "common/fs.h"
#include "common/status.h"
#include "observe/bottleneck.h"
#include "observe/observation.h"
#include "pg/connection.h"

namespace pgrig::observe {

struct ObserveOptions {
  // The /proc and /sys root (fixture trees in tests).
  SysFs sysfs{"/"};
  // The server's data_directory when local; "" if unknown or remote.
  std::string data_directory;
  // Block device as in /proc/diskstats ("vda"); "": derived from
  // data_directory, or none.
  std::string data_device;
  // Where to open the monitoring connection; nullopt: the host only.
  std::optional<pg::ConnectionParams> server;
  // Whose pg_stat_database row to follow; "": the connection's database.
  std::string database;
  std::chrono::milliseconds interval{1000};
  bool server_is_local = true;  // host CPU figures describe the server only when local
  // The measurement's own processes, so that the rest of the host's busy CPU
  // is "other processes" (HostSample::cpu_other_pct): the client process
  // (0: none on this host) and, when the server is local, its postmaster
  // (the whole process tree, host/server_cpu.h).  A local server without a
  // postmaster pid gives no such figure.
  int client_pid = 0;
  std::optional<int> server_pid;
  // How often the wait events (pg_stat_activity) are polled: more often than
  // the counters, so that short runs still give a usable histogram.  0: once
  // per sample.  Rounded so that a whole number of polls fits in `interval`.
  std::chrono::milliseconds wait_interval{200};
};

inline constexpr size_t kMaxSamples = 24 * 3600;

class Observer {
 public:
  // Fails (kInvalidArgument) only on an interval outside [10 ms, 1 h] or a
  // wait_interval in (0, 10 ms).
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

}  // namespace pgrig::observe

#endif  // PGRIG_OBSERVE_OBSERVE_H_
