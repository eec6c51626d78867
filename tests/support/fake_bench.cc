#include "support/fake_bench.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "common/enum_names.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/ring.h"
#include "script/variables.h"

namespace pgrig::testing {

const char* IoPathName(IoPath path) {
  static constexpr const char* kNames[] = {"lean_uring", "lean_epoll", "libpq"};
  return NameAt<IoPath::kLibpq>(path, kNames, "unknown");
}

std::unique_ptr<FakeBackend> StartFakeBackend(FakeHandler handler, FakeHandler prepare) {
  auto fb = FakeBackend::Start(std::move(handler), std::move(prepare));
  EXPECT_TRUE(fb.ok()) << fb.status().message();
  return fb.ok() ? std::move(fb).value() : nullptr;
}

FakeBenchRun RunFakeBenchOrFail(const FakeBackend& backend, const FakeBenchOptions& options,
                                IoPath path) {
  auto run = RunFakeBench(backend, options, path);
  EXPECT_TRUE(run.ok()) << run.status().message();
  if (!run.ok()) return {};
  EXPECT_FALSE(run->watchdog_fired) << "the run did not end by itself";
  return std::move(run).value();
}

bool RingAvailable() { return engine::Ring::Create(8) != nullptr; }

Result<FakeBenchRun> RunFakeBench(const FakeBackend& backend, const FakeBenchOptions& options,
                                  IoPath path) {
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  PGRIG_ASSIGN_OR_RETURN(script::Script s, script::ParseScript(options.script, "fake.sql", *names));
  scripts->push_back(std::move(s));
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  std::shared_ptr<const script::NameTable> frozen = names;

  engine::EngineConfig cfg;
  cfg.target = backend.Params();
  cfg.scripts = scripts;
  cfg.names = frozen;
  cfg.base_variables = std::make_shared<script::Variables>(frozen);
  cfg.clients = options.clients;
  cfg.threads = options.threads;
  cfg.transactions_per_client = options.transactions;
  cfg.duration_s = options.duration_s;
  cfg.mode = options.mode;
  cfg.rate_tps = options.rate_tps;
  cfg.latency_limit_us = options.latency_limit_us;
  cfg.max_tries = options.max_tries;
  cfg.connect_per_transaction = options.connect_per_transaction;
  cfg.report_per_command = options.report_per_command;
  cfg.verbose_errors = options.verbose_errors;
  cfg.untimed_sleeps = options.untimed_sleeps;
  cfg.start_gate = options.start_gate;
  cfg.window_start = options.window_start;
  cfg.random_seed = 12345;
  cfg.lean_wire = path != IoPath::kLibpq;
  cfg.io_uring = path == IoPath::kLeanUring;
  cfg.io_uring_paced = cfg.io_uring;  // -R runs on this path too

  FakeBenchRun run;
  std::mutex mu;
  cfg.on_message = [&run, &mu](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    run.messages.push_back(line);
  };
  std::atomic<bool> stop{false};
  cfg.stop_requested = &stop;

  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, options.watchdog, [&done] { return done; })) {
      run.watchdog_fired = true;
      stop.store(true);
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  Result<engine::RunResult> r = engine::RunBenchmark(cfg);
  const auto t1 = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  if (!r.ok()) return r.status();
  run.result = std::move(r).value();
  run.wall_s = std::chrono::duration<double>(t1 - t0).count();
  return run;
}

void ExpectIoPath(const FakeBenchRun& run, IoPath path, const FakeBenchOptions& options,
                  bool lean_applies) {
  const bool lean = lean_applies && path != IoPath::kLibpq;
  EXPECT_EQ(run.result.lean_connections, lean ? options.clients : 0) << IoPathName(path);
  const bool ring =
      lean && path == IoPath::kLeanUring && !options.connect_per_transaction && RingAvailable();
  EXPECT_EQ(run.result.ring_threads, ring ? run.result.threads : 0) << IoPathName(path);
}

}  // namespace pgrig::testing
