// Worker: one engine thread's body: connect its sessions, run the loop,
// hand progress over, and keep the results for RunBenchmark to merge.
//
// RunBenchmark (engine.cc) gives each worker its block of clients
// (ClientSeed: id, variables, random stream, runner options) and its
// choose/throttle/sample random streams.  Run() connects every session
// (non-blocking libpq, all at once), waits at the barrier for the other
// workers, starts the ring when the lean transport can use it, then loops:
// due timers (\sleep, -R), sessions that yielded, one Poller::Wait whose
// events go to the sessions (Poller::Handler), -T and stop checks, and -P
// hand-offs to the Mailbox at each interval boundary.  The per-client state
// machine is Session (session.h); how bytes move is Transport and Poller.
//
// The worker owns its sessions, connections, histograms, counters and log
// file; it shares only the read-only config and Shared (shared.h).  Not
// thread-safe: Run() is the thread's body; the accessors are read after it
// returned.
#ifndef PGRIG_ENGINE_WORKER_H_
#define PGRIG_ENGINE_WORKER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/poller.h"
#include "engine/result.h"
#include "engine/session.h"
#include "engine/shared.h"
#include "script/prng.h"
#include "script/runner.h"
#include "script/variables.h"
#include "stats/histogram.h"
#include "stats/time_series.h"

namespace pgrig::engine {

// What a client starts with.
struct ClientSeed {
  int id = 0;
  script::Variables vars;
  script::Prng rng;
  script::ScriptRunner::Options runner_options;
};

class Worker final : private Poller::Handler {
 public:
  Worker(Shared* shared, int thread_index, std::vector<ClientSeed> clients, script::Prng choose_rng,
         script::Prng throttle_rng, script::Prng sample_rng, Mailbox* mailbox);
  ~Worker() override;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Run();

  // Results, valid after Run() returned.
  const stats::IntervalStats& totals() const { return w_.totals; }
  const stats::Histogram& latency() const { return w_.latency.histogram(); }
  const stats::Histogram& lag() const { return w_.lag.histogram(); }
  const stats::TimeSeries& series() const { return w_.series; }
  const std::vector<ScriptStats>& script_stats() const { return w_.script_stats; }
  int64_t latency_late() const { return w_.latency_late; }
  int64_t conn_total_ns() const { return w_.conn_ns; }
  int64_t bench_start_ns() const { return bench_start_; }
  int aborted() const { return w_.aborted; }
  int lean_connections() const { return w_.lean_connections; }
  bool used_ring() const { return used_ring_; }
  int finished() const { return w_.finished; }
  const std::string& first_abort() const { return w_.first_abort; }

 private:
  // Worker 0 calls config.start_gate; every worker waits for it.
  void PassStartGate();
  bool ConnectAll();
  void StartRun();
  void RunTimers();
  int64_t WaitBudget() const;
  void AbortAll(const std::string& why);
  void CheckTime();
  void PublishIntervals(bool final_publish);

  // Poller::Handler: events go to the sessions (the owners).
  void OnWakeup() override { w_.Now(); }
  void OnEvents(void* owner, uint32_t events) override;
  void OnRecv(void* owner, int res) override { static_cast<Session*>(owner)->OnRecv(res); }
  void OnSendFailed(void* owner, int res) override {
    static_cast<Session*>(owner)->OnSendFailed(res);
  }

  WorkerState w_;
  int thread_index_;
  std::vector<std::unique_ptr<Session>> sessions_;
  Mailbox* mailbox_;
  script::Prng sample_rng_;
  bool connecting_ = false;  // ConnectAll's events go to ConnectEvent
  size_t pending_connects_ = 0;
  bool connect_failed_ = false;
  bool used_ring_ = false;
  int64_t stop_deadline_ns_ = 0;
  int64_t next_publish_ns_ = 0;
  int64_t published_ = 0;  // intervals handed to the mailbox
  int64_t bench_start_ = 0;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_WORKER_H_
