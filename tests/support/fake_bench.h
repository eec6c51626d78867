// Running the load engine against a FakeBackend (fake_backend.h): builds an
// EngineConfig from one script's text as `pgrig bench -f` would, picks one
// of the engine's three I/O paths, runs engine::RunBenchmark under a
// watchdog and collects the engine's messages.  Test-only
// (pgrig_fake_backend).
//
// The I/O path is chosen with EngineConfig::lean_wire and ::io_uring, the
// fields that `pgrig bench` sets from PGRIG_ENGINE_LIBPQ=1 and
// PGRIG_ENGINE_URING=0; no environment is touched.
//
// The watchdog: when the run has not returned after `watchdog`, it sets the
// engine's stop flag (the engine then ends within its grace period) and the
// run is marked watchdog_fired, so a hang fails a test instead of stalling
// it.  Thread-safety: RunFakeBench may be called from one thread at a time.
#ifndef PGRIG_TESTS_SUPPORT_FAKE_BENCH_H_
#define PGRIG_TESTS_SUPPORT_FAKE_BENCH_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/config.h"
#include "engine/result.h"
#include "script/script.h"
#include "support/fake_backend.h"

namespace pgrig::testing {

// The engine's three ways to do I/O (docs/architecture.md).
enum class IoPath {
  kLeanUring,  // the lean protocol over io_uring: the default unpaced, forced with -R too
  kLeanEpoll,  // PGRIG_ENGINE_URING=0: the lean protocol over epoll
  kLibpq,      // PGRIG_ENGINE_LIBPQ=1: libpq under epoll
};
const char* IoPathName(IoPath path);  // "lean_uring", "lean_epoll", "libpq"
inline constexpr IoPath kAllIoPaths[] = {IoPath::kLeanUring, IoPath::kLeanEpoll, IoPath::kLibpq};

struct FakeBenchOptions {
  std::string script;  // one script's text (-f)
  script::QueryMode mode = script::QueryMode::kSimple;
  int clients = 1;
  int threads = 1;
  int64_t transactions = 0;      // -t
  int duration_s = 0;            // -T
  double rate_tps = 0;           // -R
  int64_t latency_limit_us = 0;  // -L
  uint32_t max_tries = 1;
  bool connect_per_transaction = false;  // -C
  bool report_per_command = true;        // -r: per-command retries and failures
  bool verbose_errors = false;
  bool untimed_sleeps = false;         // EngineConfig::untimed_sleeps
  std::function<Status()> start_gate;  // EngineConfig::start_gate
  engine::EngineConfig::WindowStart window_start = engine::EngineConfig::WindowStart::kRunStart;
  std::chrono::seconds watchdog{20};
};

struct FakeBenchRun {
  engine::RunResult result;
  std::vector<std::string> messages;  // on_message lines, in order
  bool watchdog_fired = false;
  double wall_s = 0;  // how long RunBenchmark took
};

// Fails when the script does not parse or the run could not start.
Result<FakeBenchRun> RunFakeBench(const FakeBackend& backend, const FakeBenchOptions& options,
                                  IoPath path);

// The same for tests: a failure is a gtest failure (and an empty result);
// so is a run that the watchdog had to stop.
std::unique_ptr<FakeBackend> StartFakeBackend(FakeHandler handler, FakeHandler prepare = nullptr);
FakeBenchRun RunFakeBenchOrFail(const FakeBackend& backend, const FakeBenchOptions& options,
                                IoPath path);

inline constexpr script::QueryMode kAllQueryModes[] = {
    script::QueryMode::kSimple, script::QueryMode::kExtended, script::QueryMode::kPrepared};

// True when this kernel lets the engine use io_uring (engine::Ring).
bool RingAvailable();

// Checks with gtest that `run` went through `path`: the lean path for every
// client when `lean_applies` and the path is a lean one, io_uring in every
// thread on kLeanUring when the kernel allows it and the run is not -C.
void ExpectIoPath(const FakeBenchRun& run, IoPath path, const FakeBenchOptions& options,
                  bool lean_applies);

}  // namespace pgrig::testing

#endif  // PGRIG_TESTS_SUPPORT_FAKE_BENCH_H_
