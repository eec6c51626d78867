#include "engine/worker.h"

#include <algorithm>
#include <ctime>

#include "common/clock.h"
#include "engine/messages.h"

namespace pgrig::engine {

namespace {

constexpr int64_t kStopGraceNs = 2'000'000'000;  // in-flight work after SIGINT
constexpr int64_t kMaxWaitNs = 100'000'000;      // re-check the stop flag this often
constexpr int64_t kConnectWaitNs = 100'000'000;  // the same while connecting

}  // namespace

void Shared::Message(const std::string& line) {
  std::lock_guard<std::mutex> lock(message_mu);
  if (config->on_message) config->on_message(line);
}

void Shared::Error(const std::string& line) { Message("error: " + line); }

void Shared::SetupError(const std::string& message) {
  std::lock_guard<std::mutex> lock(message_mu);
  if (setup_error.empty()) setup_error = message;
  setup_failed.store(true);
}

Worker::Worker(Shared* shared, int thread_index, std::vector<ClientSeed> clients,
               script::Prng choose_rng, script::Prng throttle_rng, script::Prng sample_rng,
               Mailbox* mailbox)
    : w_(shared, choose_rng, throttle_rng),
      thread_index_(thread_index),
      mailbox_(mailbox),
      sample_rng_(sample_rng) {
  const EngineConfig& config = w_.config;
  const auto& scripts = *config.scripts;
  w_.script_stats.resize(scripts.size());
  w_.lean_scripts = config.lean_wire && !config.debug;  // -d traces the libpq path
  // pgbench names prepared statements P_0, P_1, ... counting the SQL
  // commands of all scripts in order; errors show the name.
  w_.prepared_names.resize(scripts.size());
  int sql_counter = 0;
  for (size_t i = 0; i < scripts.size(); ++i) {
    w_.script_stats[i].commands.resize(scripts[i].commands.size());
    if (config.per_script_latency) w_.script_stats[i].latency.emplace();
    for (size_t k = 0; k < scripts[i].commands.size(); ++k) {
      const script::Command& cmd = scripts[i].commands[k];
      w_.prepared_names[i].push_back(cmd.kind == script::CommandKind::kSql
                                         ? "P_" + std::to_string(sql_counter++)
                                         : std::string());
      if (cmd.capture != script::Capture::kNone ||
          cmd.kind == script::CommandKind::kStartPipeline ||
          cmd.kind == script::CommandKind::kSyncPipeline ||
          cmd.kind == script::CommandKind::kEndPipeline) {
        w_.lean_scripts = false;
      }
    }
  }
  if (config.rate_tps > 0) {
    // pgbench: the rate is split evenly over the threads.
    const int nthreads = WorkerThreads(config.threads, config.clients);
    w_.throttle_delay_us = 1e6 / config.rate_tps * nthreads;
  }
  sessions_.reserve(clients.size());
  for (ClientSeed& c : clients) {
    sessions_.push_back(std::make_unique<Session>(&w_, c.id, std::move(c.vars), c.rng,
                                                  std::move(c.runner_options)));
  }
  w_.remaining = static_cast<int>(sessions_.size());
}

Worker::~Worker() {
  for (auto& s : sessions_) s->Close();
}

// ---------------------------------------------------------------------------
// Connecting

bool Worker::ConnectAll() {
  const EngineConfig& config = w_.config;
  for (auto& s : sessions_) {
    if (!s->StartConnect()) {
      w_.shared->SetupError(msg::ConnectFailed(config.target.dbname, s->ConnectError(), s->id()));
      return false;
    }
  }
  pending_connects_ = sessions_.size();
  connecting_ = true;
  std::string error;
  while (pending_connects_ > 0) {
    if (w_.shared->setup_failed.load(std::memory_order_relaxed)) return false;
    if (config.stop_requested && config.stop_requested->load(std::memory_order_relaxed)) {
      w_.shared->SetupError(std::string(msg::kInterruptedConnecting));
      return false;
    }
    if (!w_.poller.Wait(kConnectWaitNs, 0, *this, &error)) {
      w_.shared->SetupError(error);
      return false;
    }
    if (connect_failed_) return false;
  }
  connecting_ = false;
  return true;
}

void Worker::OnEvents(void* owner, uint32_t events) {
  Session& s = *static_cast<Session*>(owner);
  if (!connecting_) {
    s.OnEvents(events);
    return;
  }
  if (connect_failed_ || s.state() != ClientState::kConnecting) return;
  bool done = false;
  if (!s.ConnectStep(&done)) {
    w_.shared->SetupError(msg::ConnectFailed(w_.config.target.dbname, s.ConnectError(), s.id()));
    connect_failed_ = true;
    return;
  }
  if (done) {
    s.Ready();
    --pending_connects_;
  }
}

// ---------------------------------------------------------------------------
// The loop

void Worker::StartRun() {
  const EngineConfig& config = w_.config;
  const bool paced = config.rate_tps > 0;
  if (config.io_uring && (!paced || config.io_uring_paced) && w_.lean_scripts &&
      !config.connect_per_transaction) {
    used_ring_ =
        w_.poller.StartRing(static_cast<unsigned>(std::max<size_t>(64, 2 * sessions_.size() + 8)));
  }
  int64_t expected = 0;
  w_.shared->bench_start_ns.compare_exchange_strong(expected, MonotonicNanos());
  bench_start_ = w_.shared->bench_start_ns.load();
  w_.now = bench_start_;
  {
    timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    const int64_t wall_ns = int64_t{wall.tv_sec} * 1'000'000'000 + wall.tv_nsec;
    w_.epoch_shift_ns = wall_ns - MonotonicNanos();
  }
  w_.throttle_trigger_ns = bench_start_;
  w_.series = stats::TimeSeries(bench_start_, w_.series.interval_ns());
  next_publish_ns_ = bench_start_ + w_.series.interval_ns();
  if (config.log.enabled) {
    TxnLogFormat format{.throttled = config.rate_tps > 0,
                        .latency_limit = config.latency_limit_us > 0,
                        .retries = config.max_tries != 1,
                        .failures_detailed = config.log.failures_detailed};
    auto opened = TxnLog::Open(config.log, format, thread_index_, sample_rng_);
    if (opened.ok()) {
      w_.log = std::move(opened).value();
      w_.log->Start(w_.EpochUs(bench_start_));
    } else {
      w_.shared->Error(opened.status().message());
    }
  }
}

// Every worker is connected: worker 0 calls the caller's start gate while
// the others wait at the barrier's next phase; the time spent there moves
// the run's clock (start and -T end) forward, so the window is whole.  With
// WindowStart::kStartGate the window starts when the gate opens and ends -T
// later, whatever the connections took.
void Worker::PassStartGate() {
  // setup_failed here can only come from connecting, set before the first
  // phase ended: every worker sees the same value.
  if (thread_index_ == 0 && !w_.shared->setup_failed.load()) {
    const int64_t begin = MonotonicNanos();
    Status go = w_.config.start_gate();
    const int64_t opened = MonotonicNanos();
    const int64_t waited = opened - begin;
    Shared& shared = *w_.shared;
    shared.gate_wait_ns = waited;
    shared.start_ns += waited;
    if (shared.end_ns > 0) shared.end_ns += waited;
    if (!go.ok()) {
      shared.SetupError(go.message());
      shared.setup_failed.store(true);
    } else if (w_.config.window_start == EngineConfig::WindowStart::kStartGate) {
      // Set before the barrier releases the other workers, so each of them
      // starts its clock here (StartRun keeps a start already set).
      if (w_.config.duration_s > 0) {
        shared.end_ns = opened + int64_t{w_.config.duration_s} * 1'000'000'000;
      }
      shared.bench_start_ns.store(opened);
    }
  }
  w_.shared->connected->arrive_and_wait();
}

void Worker::Run() {
  bool ok = true;
  if (!w_.config.connect_per_transaction) ok = ConnectAll();
  if (!ok) w_.shared->setup_failed.store(true);
  w_.shared->connected->arrive_and_wait();
  // Every worker takes part when there is a gate (the barrier's second
  // phase needs all of them), whatever worker 0's gate then decides.
  if (w_.config.start_gate) PassStartGate();
  if (w_.shared->setup_failed.load()) {
    for (auto& s : sessions_) s->Close();
    std::lock_guard<std::mutex> lock(mailbox_->mu);
    mailbox_->finished = true;
    return;
  }
  StartRun();

  // A -T that ran out while connecting (a thousand backends can take longer
  // to start than the run lasts) ends the run before any transaction, as in
  // pgbench.
  CheckTime();
  for (auto& s : sessions_) s->Start();

  std::string error;
  while (w_.remaining > 0) {
    w_.Now();
    CheckTime();
    RunTimers();
    if (!w_.ready.empty()) {
      std::vector<Session*> batch;
      batch.swap(w_.ready);
      for (Session* s : batch) {
        if (s->state() == ClientState::kReady) s->StartTransaction();
      }
    }
    if (w_.remaining <= 0) break;
    if (!w_.poller.Wait(WaitBudget(), w_.config.yield_rounds, *this, &error)) {
      w_.shared->Error(error);
      AbortAll("event loop failed");
      break;
    }
  }
  // Receives still pending belong to connections already closed (clients
  // dropped at the end of a stop's grace period); their buffers must outlive
  // them, so wait for the cancellations before the ring goes.
  w_.poller.DrainRecvs(*this);
  w_.Now();
  w_.latency.Flush();
  w_.lag.Flush();
  if (w_.log) w_.log->Finish(w_.EpochUs(w_.now));
  PublishIntervals(/*final_publish=*/true);
}

// Timers that are due: \sleep and -R schedules.
void Worker::RunTimers() {
  while (!w_.timers.empty() && w_.timers.top().when_ns <= w_.now) {
    const WorkerState::Timer t = w_.timers.top();
    w_.timers.pop();
    t.session->OnTimer(t.seq);
  }
}

// How long the loop may wait: until the next timer, progress boundary, -T
// end or stop deadline, at most kMaxWaitNs; 0 when sessions are ready.
int64_t Worker::WaitBudget() const {
  int64_t wait_ns = kMaxWaitNs;
  if (!w_.ready.empty()) wait_ns = 0;
  if (!w_.timers.empty()) wait_ns = std::min(wait_ns, w_.timers.top().when_ns - w_.now);
  wait_ns = std::min(wait_ns, next_publish_ns_ - w_.now);
  if (w_.shared->end_ns > 0 && !w_.timer_exceeded) {
    wait_ns = std::min(wait_ns, w_.shared->end_ns - w_.now);
  }
  if (w_.stopping) wait_ns = std::min(wait_ns, stop_deadline_ns_ - w_.now);
  return std::max<int64_t>(wait_ns, 0);
}

void Worker::AbortAll(const std::string& why) {
  for (auto& s : sessions_) {
    if (!s->ended()) s->Abort(msg::Aborted(s->id(), why));
  }
}

void Worker::CheckTime() {
  const EngineConfig& config = w_.config;
  if (w_.shared->end_ns > 0 && w_.now >= w_.shared->end_ns) w_.timer_exceeded = true;
  if (w_.timer_exceeded && config.untimed_sleeps) {
    for (auto& s : sessions_) {
      if (s->SleepingOutsideTransaction()) s->Finish();
    }
  }
  if (!w_.stopping && config.stop_requested &&
      config.stop_requested->load(std::memory_order_relaxed)) {
    w_.stopping = true;
    stop_deadline_ns_ = w_.now + kStopGraceNs;
    for (auto& s : sessions_) {
      if (s->state() == ClientState::kReady || s->state() == ClientState::kThrottling) s->Finish();
    }
  }
  if (w_.stopping && w_.now >= stop_deadline_ns_) {
    // Transactions still running after the grace period are dropped, not
    // counted: they never ended.
    for (auto& s : sessions_) {
      if (!s->ended()) s->Finish();
    }
  }
  if (w_.now >= next_publish_ns_) PublishIntervals(false);
}

void Worker::PublishIntervals(bool final_publish) {
  const int64_t complete = final_publish ? static_cast<int64_t>(w_.series.intervals().size())
                                         : w_.series.IndexOf(w_.now);
  {
    std::lock_guard<std::mutex> lock(mailbox_->mu);
    auto intervals = w_.series.intervals();
    for (int64_t i = published_; i < complete; ++i) {
      mailbox_->intervals.push_back(i < static_cast<int64_t>(intervals.size())
                                        ? intervals[static_cast<size_t>(i)]
                                        : stats::IntervalStats{});
    }
    if (final_publish) mailbox_->finished = true;
  }
  published_ = std::max(published_, complete);
  next_publish_ns_ = w_.series.IntervalStartNs(w_.series.IndexOf(w_.now) + 1);
}

}  // namespace pgrig::engine
