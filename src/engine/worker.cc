#include "engine/worker.h"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>

#include "common/clock.h"
#include "pg/connection.h"

namespace pgrig::engine {

namespace {

constexpr int kMaxEvents = 256;
// pgbench's message for a script's COPY (the program's name as pgrig's CLI
// prints it, so the line reads as pgbench's with the name replaced).
constexpr const char* kCopyNotSupported = "COPY is not supported in pgrig bench, aborting";
constexpr int64_t kStopGraceNs = 2'000'000'000;    // in-flight work after SIGINT
constexpr int64_t kMaxWaitNs = 100'000'000;        // re-check the stop flag this often
constexpr size_t kRecvBufferBytes = 8192;          // per connection, with the ring

// Ring tags: the client's address with the operation in the low bits.
constexpr uint64_t kTagRecv = 1;
constexpr uint64_t kTagSend = 2;
constexpr uint64_t kTagEpoll = 4;  // the poll on the epoll set (no client)
uint64_t Tag(Client& c, uint64_t op) { return reinterpret_cast<uint64_t>(&c) | op; }

const char kServerClosed[] =
    "server closed the connection unexpectedly\n"
    "\tThis probably means the server terminated abnormally\n"
    "\tbefore or while processing the request.";

// libpq messages end with a newline; pgbench's logging strips one.
std::string TrimNewline(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

ErrorKind Classify(const char* sqlstate) {
  if (sqlstate == nullptr) return ErrorKind::kOther;
  if (pg::IsSerializationFailure(sqlstate)) return ErrorKind::kSerialization;
  if (pg::IsDeadlock(sqlstate)) return ErrorKind::kDeadlock;
  return ErrorKind::kOther;
}

stats::FailureKind ToFailureKind(ErrorKind k) {
  return k == ErrorKind::kDeadlock ? stats::FailureKind::kDeadlock
                                   : stats::FailureKind::kSerialization;
}

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

int64_t Worker::MonotonicNanosCached() { return MonotonicNanos(); }

Worker::Worker(Shared* shared, int thread_index, std::vector<std::unique_ptr<Client>> clients,
               script::Prng choose_rng, script::Prng throttle_rng, script::Prng sample_rng,
               Mailbox* mailbox)
    : shared_(shared),
      config_(*shared->config),
      thread_index_(thread_index),
      clients_(std::move(clients)),
      choose_rng_(choose_rng),
      throttle_rng_(throttle_rng),
      mailbox_(mailbox),
      series_(0, int64_t{shared->config->series_interval_s} * 1'000'000'000),
      sample_rng_(sample_rng) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  remaining_ = static_cast<int>(clients_.size());
  const auto& scripts = *config_.scripts;
  script_stats_.resize(scripts.size());
  wire_scripts_ = config_.lean_wire && !config_.debug;  // -d traces the libpq path
  // pgbench names prepared statements P_0, P_1, ... counting the SQL
  // commands of all scripts in order; errors show the name.
  prepared_names_.resize(scripts.size());
  int sql_counter = 0;
  for (size_t i = 0; i < scripts.size(); ++i) {
    script_stats_[i].commands.resize(scripts[i].commands.size());
    for (size_t k = 0; k < scripts[i].commands.size(); ++k) {
      const script::Command& cmd = scripts[i].commands[k];
      prepared_names_[i].push_back(cmd.kind == script::CommandKind::kSql
                                       ? "P_" + std::to_string(sql_counter++)
                                       : std::string());
      if (cmd.capture != script::Capture::kNone || cmd.kind == script::CommandKind::kStartPipeline ||
          cmd.kind == script::CommandKind::kSyncPipeline ||
          cmd.kind == script::CommandKind::kEndPipeline) {
        wire_scripts_ = false;
      }
    }
  }
  for (auto& c : clients_) c->prepared.assign(scripts.size(), false);
  if (config_.rate_tps > 0) {
    // pgbench: the rate is split evenly over the threads.
    const int nthreads = std::min(config_.threads, config_.clients);
    throttle_delay_us_ = 1e6 / config_.rate_tps * nthreads;
  }
}

Worker::~Worker() {
  for (auto& c : clients_) CloseConnection(*c);
  if (epfd_ >= 0) ::close(epfd_);
}

// ---------------------------------------------------------------------------
// Connections

bool Worker::StartConnect(Client& c) {
  auto arrays = config_.target.Keywords();
  arrays.keywords.push_back(nullptr);
  arrays.values.push_back(nullptr);
  c.conn = PQconnectStartParams(arrays.keywords.data(), arrays.values.data(), 1);
  if (c.conn == nullptr || PQstatus(c.conn) == CONNECTION_BAD) return false;
  c.fd = -1;
  c.epoll_mask = 0;
  c.state = ClientState::kConnecting;
  // libpq: behave as if the last poll said PGRES_POLLING_WRITING.
  Watch(c, EPOLLOUT);
  return c.fd >= 0;
}

bool Worker::PollConnect(Client& c, bool* done) {
  *done = false;
  PostgresPollingStatusType st = PQconnectPoll(c.conn);
  switch (st) {
    case PGRES_POLLING_READING:
      Watch(c, EPOLLIN);
      return c.fd >= 0;
    case PGRES_POLLING_WRITING:
      Watch(c, EPOLLOUT);
      return c.fd >= 0;
    case PGRES_POLLING_OK:
      PQsetnonblocking(c.conn, 1);
      Watch(c, EPOLLIN);
      *done = true;
      return true;
    default:
      return false;
  }
}

void Worker::Watch(Client& c, uint32_t events) {
  const int fd = c.conn ? PQsocket(c.conn) : -1;
  if (fd != c.fd) {
    if (c.fd >= 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, c.fd, nullptr);  // may be closed already
    c.fd = -1;
    c.epoll_mask = 0;
    if (fd < 0) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = &c;
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) return;
    c.fd = fd;
    c.epoll_mask = events;
    return;
  }
  if (c.fd >= 0 && c.epoll_mask != events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = &c;
    epoll_ctl(epfd_, EPOLL_CTL_MOD, c.fd, &ev);
    c.epoll_mask = events;
  }
}

void Worker::Unwatch(Client& c) {
  if (c.fd >= 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, c.fd, nullptr);
  c.fd = -1;
  c.epoll_mask = 0;
}

void Worker::CloseConnection(Client& c) {
  if (c.gset_result != nullptr) {
    PQclear(c.gset_result);
    c.gset_result = nullptr;
  }
  if (c.recv_armed && ring_) ring_->Cancel(Tag(c, kTagRecv));
  if (c.conn != nullptr) {
    Unwatch(c);
    PQfinish(c.conn);
    c.conn = nullptr;
  }
  c.want_write = false;
  c.wire = false;
  c.wire_out.clear();
  c.wire_out_sent = 0;
  c.wire_in.Clear();
}

bool Worker::ConnectAll() {
  size_t pending = 0;
  for (auto& c : clients_) {
    if (!StartConnect(*c)) {
      shared_->SetupError("connection to database \"" + config_.target.dbname + "\" failed: " +
                          TrimNewline(c->conn ? PQerrorMessage(c->conn) : "out of memory") +
                          "\ncould not create connection for client " + std::to_string(c->id));
      return false;
    }
    ++pending;
  }
  epoll_event events[kMaxEvents];
  while (pending > 0) {
    if (shared_->setup_failed.load(std::memory_order_relaxed)) return false;
    if (config_.stop_requested && config_.stop_requested->load(std::memory_order_relaxed)) {
      shared_->SetupError("interrupted while connecting");
      return false;
    }
    const int n = epoll_wait(epfd_, events, kMaxEvents, 100);
    if (n < 0 && errno != EINTR) {
      shared_->SetupError(std::string("epoll_wait() failed: ") + std::strerror(errno));
      return false;
    }
    for (int i = 0; i < n; ++i) {
      Client& c = *static_cast<Client*>(events[i].data.ptr);
      if (c.state != ClientState::kConnecting) continue;
      bool done = false;
      if (!PollConnect(c, &done)) {
        shared_->SetupError("connection to database \"" + config_.target.dbname + "\" failed: " +
                            TrimNewline(PQerrorMessage(c.conn)) +
                            "\ncould not create connection for client " + std::to_string(c.id));
        return false;
      }
      if (done) {
        ChooseWire(c);
        c.state = ClientState::kReady;
        --pending;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// The loop

void Worker::Run() {
  bool ok = true;
  if (!config_.connect_per_transaction) ok = ConnectAll();
  if (!ok) shared_->setup_failed.store(true);
  shared_->connected->arrive_and_wait();
  if (shared_->setup_failed.load()) {
    for (auto& c : clients_) CloseConnection(*c);
    std::lock_guard<std::mutex> lock(mailbox_->mu);
    mailbox_->finished = true;
    return;
  }
  if (config_.io_uring && wire_scripts_ && !config_.connect_per_transaction) {
    ring_ = Ring::Create(static_cast<unsigned>(std::max<size_t>(64, 2 * clients_.size() + 8)));
    used_ring_ = ring_ != nullptr;
  }
  int64_t expected = 0;
  shared_->bench_start_ns.compare_exchange_strong(expected, MonotonicNanos());
  bench_start_ = shared_->bench_start_ns.load();
  now_ = bench_start_;
  {
    timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    const int64_t wall_ns = int64_t{wall.tv_sec} * 1'000'000'000 + wall.tv_nsec;
    epoch_shift_ns_ = wall_ns - MonotonicNanos();
  }
  throttle_trigger_ns_ = bench_start_;
  series_ = stats::TimeSeries(bench_start_, series_.interval_ns());
  next_publish_ns_ = bench_start_ + series_.interval_ns();
  if (config_.log.enabled) {
    TxnLogFormat format{.throttled = config_.rate_tps > 0,
                        .latency_limit = config_.latency_limit_us > 0,
                        .retries = config_.max_tries != 1,
                        .failures_detailed = config_.log.failures_detailed};
    auto opened = TxnLog::Open(config_.log, format, thread_index_, sample_rng_);
    if (opened.ok()) {
      log_ = std::move(opened).value();
      log_->Start(EpochUs(bench_start_));
    } else {
      shared_->Error(opened.status().message());
    }
  }

  // A -T that ran out while connecting (a thousand backends can take longer
  // to start than the run lasts) ends the run before any transaction, as in
  // pgbench.
  CheckTime();
  for (auto& c : clients_) {
    c->state = ClientState::kReady;
    Drive(*c);
  }

  epoll_event events[kMaxEvents];
  while (remaining_ > 0) {
    Now();
    CheckTime();
    // Timers that are due: \sleep and -R schedules.
    while (!timers_.empty() && timers_.top().when_ns <= now_) {
      Timer t = timers_.top();
      timers_.pop();
      Client& c = *t.client;
      if (c.timer_seq != t.seq) continue;
      if (c.state == ClientState::kThrottling) {
        if (timer_exceeded_ || stopping_) {
          Finish(c);
        } else {
          BeginTransaction(c);
        }
      } else if (c.state == ClientState::kSleeping) {
        // The \sleep command is done: with -r its latency is the time
        // slept, as pgbench reports it.
        CommandDone(c);
      }
    }
    if (!ready_.empty()) {
      std::vector<Client*> batch;
      batch.swap(ready_);
      for (Client* c : batch) {
        if (c->state == ClientState::kReady) StartTransaction(*c);
      }
    }
    if (remaining_ <= 0) break;

    int64_t wait_ns = kMaxWaitNs;
    if (!ready_.empty()) wait_ns = 0;
    if (!timers_.empty()) wait_ns = std::min(wait_ns, timers_.top().when_ns - now_);
    wait_ns = std::min(wait_ns, next_publish_ns_ - now_);
    if (shared_->end_ns > 0 && !timer_exceeded_) wait_ns = std::min(wait_ns, shared_->end_ns - now_);
    if (stopping_) wait_ns = std::min(wait_ns, stop_deadline_ns_ - now_);
    wait_ns = std::max<int64_t>(wait_ns, 0);
    int n = 0;
    if (ring_) {
      bool epoll_ready = false;
      RingTurn(wait_ns, &epoll_ready);
      if (epoll_ready) n = epoll_wait(epfd_, events, kMaxEvents, 0);
      if (n > 0) {
        Now();
        for (int i = 0; i < n; ++i) {
          Client& c = *static_cast<Client*>(events[i].data.ptr);
          OnSocket(c, events[i].events);
        }
      }
      continue;
    }
    if (wait_ns > 0 && config_.yield_rounds > 0) {
      // Going to sleep costs a context switch and a wake-up, the largest
      // item in the client's CPU profile.  With a busy server on the same
      // machine, giving the CPU away for a moment (sched_yield) often lets
      // a backend answer, and the answers are then collected without
      // sleeping.
      for (int round = 0; round < config_.yield_rounds && n == 0; ++round) {
        sched_yield();
        n = epoll_wait(epfd_, events, kMaxEvents, 0);
      }
    }
    timespec ts{static_cast<time_t>(wait_ns / 1'000'000'000), static_cast<long>(wait_ns % 1'000'000'000)};
    if (n == 0) n = epoll_pwait2(epfd_, events, kMaxEvents, &ts, nullptr);
    if (n < 0) {
      if (errno == ENOSYS) {
        n = epoll_wait(epfd_, events, kMaxEvents, static_cast<int>((wait_ns + 999'999) / 1'000'000));
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        shared_->Error(std::string("epoll_wait() failed: ") + std::strerror(errno));
        for (auto& c : clients_) {
          if (c->state != ClientState::kDone && c->state != ClientState::kAborted) {
            Abort(*c, "client " + std::to_string(c->id) + " aborted: event loop failed");
          }
        }
        break;
      }
    }
    if (n > 0) {
      Now();
      for (int i = 0; i < n; ++i) {
        Client& c = *static_cast<Client*>(events[i].data.ptr);
        OnSocket(c, events[i].events);
      }
    }
  }
  // Receives still pending belong to connections already closed (clients
  // dropped at the end of a stop's grace period); their buffers must outlive
  // them, so wait for the cancellations before the ring goes.
  if (ring_) {
    const int64_t deadline = MonotonicNanos() + 2'000'000'000;
    while (armed_recvs_ > 0 && MonotonicNanos() < deadline) {
      bool epoll_ready = false;
      RingTurn(10'000'000, &epoll_ready);
    }
    ring_.reset();
  }
  Now();
  if (log_) log_->Finish(EpochUs(now_));
  PublishIntervals(/*final_publish=*/true);
}

// One turn of the ring: everything queued goes to the kernel, then the
// completions are handled.
void Worker::RingTurn(int64_t wait_ns, bool* epoll_ready) {
  if (!epoll_polled_) {
    ring_->PollIn(epfd_, kTagEpoll);
    epoll_polled_ = true;
  }
  if (!ring_->SubmitAndWait(wait_ns)) {
    shared_->Error(std::string("io_uring_enter() failed: ") + std::strerror(errno));
    for (auto& c : clients_) {
      if (c->state != ClientState::kDone && c->state != ClientState::kAborted) {
        Abort(*c, "client " + std::to_string(c->id) + " aborted: event loop failed");
      }
    }
    return;
  }
  Now();
  ring_->ForEachCompletion([this, epoll_ready](uint64_t tag, int res) {
    if (tag == kTagEpoll) {
      epoll_polled_ = false;
      *epoll_ready = true;
      return;
    }
    if (tag == 0) return;  // a cancellation that found nothing to cancel
    Client& c = *reinterpret_cast<Client*>(tag & ~uint64_t{7});
    if (tag & kTagRecv) {
      OnWireRecv(c, res);
    } else if (c.state != ClientState::kDone && c.state != ClientState::kAborted) {
      WireLost(c, std::string("could not send data to server: ") + std::strerror(-res));
    }
  });
}

void Worker::CheckTime() {
  if (shared_->end_ns > 0 && now_ >= shared_->end_ns) timer_exceeded_ = true;
  if (!stopping_ && config_.stop_requested &&
      config_.stop_requested->load(std::memory_order_relaxed)) {
    stopping_ = true;
    stop_deadline_ns_ = now_ + kStopGraceNs;
    for (auto& c : clients_) {
      if (c->state == ClientState::kReady || c->state == ClientState::kThrottling) Finish(*c);
    }
  }
  if (stopping_ && now_ >= stop_deadline_ns_) {
    // Transactions still running after the grace period are dropped, not
    // counted: they never ended.
    for (auto& c : clients_) {
      if (c->state != ClientState::kDone && c->state != ClientState::kAborted) Finish(*c);
    }
  }
  if (now_ >= next_publish_ns_) PublishIntervals(false);
}

void Worker::PublishIntervals(bool final_publish) {
  const int64_t complete = final_publish
                               ? static_cast<int64_t>(series_.intervals().size())
                               : series_.IndexOf(now_);
  {
    std::lock_guard<std::mutex> lock(mailbox_->mu);
    auto intervals = series_.intervals();
    for (int64_t i = published_; i < complete; ++i) {
      mailbox_->intervals.push_back(i < static_cast<int64_t>(intervals.size())
                                        ? intervals[static_cast<size_t>(i)]
                                        : stats::IntervalStats{});
    }
    if (final_publish) mailbox_->finished = true;
  }
  published_ = std::max(published_, complete);
  next_publish_ns_ = series_.IntervalStartNs(series_.IndexOf(now_) + 1);
}

void Worker::SetTimer(Client& c, int64_t when_ns, ClientState state) {
  c.state = state;
  c.wake_ns = when_ns;
  c.timer_seq = ++timer_counter_;
  timers_.push(Timer{when_ns, c.timer_seq, &c});
}

// ---------------------------------------------------------------------------
// The state machine

void Worker::Drive(Client& c) {
  switch (c.state) {
    case ClientState::kReady:
      StartTransaction(c);
      break;
    case ClientState::kRunning:
      RunScript(c);
      break;
    default:
      break;
  }
}

void Worker::StartTransaction(Client& c) {
  const int64_t nxacts = config_.transactions_per_client;
  if (timer_exceeded_ || stopping_ || (nxacts > 0 && c.cnt >= nxacts)) {
    Finish(c);
    return;
  }
  const auto& scripts = *config_.scripts;
  c.script_index = script::ChooseScript(choose_rng_, scripts, shared_->total_weight);
  if (config_.debug) {
    shared_->Message("client " + std::to_string(c.id) + " executing script \"" +
                     scripts[static_cast<size_t>(c.script_index)].desc + "\"");
  }
  if (throttle_delay_us_ > 0) {
    for (;;) {
      throttle_trigger_ns_ += script::PoissonDelayUs(throttle_rng_, throttle_delay_us_) * 1000;
      c.scheduled_ns = throttle_trigger_ns_;
      if (config_.latency_limit_us > 0 &&
          c.scheduled_ns < Now() - config_.latency_limit_us * 1000 && (nxacts <= 0 || c.cnt < nxacts)) {
        // Already too late to meet the limit: skip this slot (pgbench -L).
        RecordSkipped(c);
        if ((nxacts > 0 && c.cnt >= nxacts) || timer_exceeded_) {
          Finish(c);
          return;
        }
        continue;
      }
      break;
    }
    if (shared_->end_ns > 0 && c.scheduled_ns > shared_->end_ns) {
      Finish(c);
      return;
    }
    if (c.scheduled_ns > now_) {
      SetTimer(c, c.scheduled_ns, ClientState::kThrottling);
      return;
    }
  }
  BeginTransaction(c);
}

void Worker::BeginTransaction(Client& c) {
  if (c.conn == nullptr) {  // -C: a new connection for every transaction
    c.connect_begin_ns = Now();
    c.prepared.assign(config_.scripts->size(), false);
    if (!StartConnect(c)) {
      Abort(c, "client " + std::to_string(c.id) + " aborted while establishing connection");
    }
    return;  // OnSocket continues when connected
  }
  c.begin_ns = Now();
  if (throttle_delay_us_ <= 0) c.scheduled_ns = c.begin_ns;
  c.tries = 1;
  c.error = ErrorKind::kNone;
  c.io_this_txn = false;
  if (config_.mode == QueryMode::kPrepared && !c.prepared[static_cast<size_t>(c.script_index)]) {
    c.prepare_next = 0;
    c.state = ClientState::kPreparing;
    if (SendPrepare(c)) return;  // results come through OnSocket
    if (c.state == ClientState::kAborted) return;
  }
  c.runner.Start((*config_.scripts)[static_cast<size_t>(c.script_index)], c.script_index);
  c.cmd_begin_ns = c.begin_ns;
  c.state = ClientState::kRunning;
  RunScript(c);
}

// Sends the next PQsendPrepare of the script; false when none is left (the
// script is then marked prepared) or the client aborted.
bool Worker::SendPrepare(Client& c) {
  const auto& commands = (*config_.scripts)[static_cast<size_t>(c.script_index)].commands;
  for (int i = c.prepare_next; i < static_cast<int>(commands.size()); ++i) {
    const script::Command& cmd = commands[static_cast<size_t>(i)];
    if (cmd.kind != script::CommandKind::kSql) continue;
    c.prepare_next = i + 1;
    const std::string& name = PreparedName(c.script_index, i);
    if (config_.debug) shared_->Message("client " + std::to_string(c.id) + " preparing " + name);
    if (!PQsendPrepare(c.conn, name.c_str(), cmd.sql_params.c_str(),
                       static_cast<int>(cmd.param_slots.size()), nullptr)) {
      Abort(c, "client " + std::to_string(c.id) + " aborted in command " + std::to_string(i) +
                   " (SQL) of script " + std::to_string(c.script_index) +
                   "; SQL command send failed: " + TrimNewline(PQerrorMessage(c.conn)));
      return false;
    }
    c.io_this_txn = true;
    Flush(c);
    if (c.fd < 0) Watch(c, EPOLLIN);  // the ring's lean path had taken it out
    return true;
  }
  c.prepared[static_cast<size_t>(c.script_index)] = true;
  return false;
}

void Worker::RunScript(Client& c) {
  const bool per_command = config_.report_per_command;
  for (;;) {
    const script::StepKind step = c.runner.Advance();
    switch (step) {
      case script::StepKind::kSql: {
        if (per_command) c.cmd_begin_ns = Now();
        if (!SendCommand(c)) return;
        c.io_this_txn = true;
        if (c.runner.in_pipeline()) {
          if (per_command) RecordCommandTime(c);  // sent, not waited for: pgbench's -r counts it so
          continue;
        }
        c.query_index = 0;
        c.state = ClientState::kWaiting;
        if (config_.debug) shared_->Message("client " + std::to_string(c.id) + " receiving");
        return;
      }
      case script::StepKind::kSleep:
        SetTimer(c, Now() + c.runner.sleep_us() * 1000, ClientState::kSleeping);
        return;
      case script::StepKind::kMetaDone:
        if (per_command) RecordCommandTime(c);
        continue;
      case script::StepKind::kPipelineStart:
        if (config_.mode == QueryMode::kSimple) {
          Abort(c, "client " + std::to_string(c.id) + " aborted in command " +
                       std::to_string(c.runner.command_index()) + " (startpipeline) of script " +
                       std::to_string(c.script_index) +
                       "; cannot use pipeline mode with the simple query protocol");
          return;
        }
        if (!PQenterPipelineMode(c.conn)) {
          Abort(c, "client " + std::to_string(c.id) + " aborted in command " +
                       std::to_string(c.runner.command_index()) + " (startpipeline) of script " +
                       std::to_string(c.script_index) + "; failed to enter pipeline mode");
          return;
        }
        c.pipeline_syncs = 0;
        c.pipeline_ending = false;
        continue;
      case script::StepKind::kPipelineSync:
        if (!PQpipelineSync(c.conn)) {
          Abort(c, "client " + std::to_string(c.id) + " aborted: failed to send a pipeline sync");
          return;
        }
        ++c.pipeline_syncs;
        continue;
      case script::StepKind::kPipelineEnd:
        if (!PQpipelineSync(c.conn)) {
          Abort(c, "client " + std::to_string(c.id) + " aborted: failed to send a pipeline sync");
          return;
        }
        ++c.pipeline_syncs;
        c.pipeline_ending = true;
        Flush(c);
        c.state = ClientState::kWaiting;
        return;
      case script::StepKind::kEndOfScript:
        EndTransaction(c);
        return;
      case script::StepKind::kError:
        // pgbench logs the cause ("division by zero") before the abort line.
        if (!c.runner.cause().empty()) shared_->Error(std::string(c.runner.cause()));
        Abort(c, c.runner.AbortMessage(c.id));
        return;
    }
  }
}

bool Worker::SendCommand(Client& c) {
  if (config_.debug) {
    shared_->Message("client " + std::to_string(c.id) + " sending " +
                     (config_.mode == QueryMode::kPrepared
                          ? PreparedName(c.script_index, c.runner.command_index())
                          : std::string(c.runner.sql())));
  }
  if (c.wire) return WireSendCommand(c);
  const std::string_view sql = c.runner.sql();
  int ok = 0;
  switch (config_.mode) {
    case QueryMode::kSimple:
      ok = PQsendQuery(c.conn, sql.data());
      break;
    case QueryMode::kExtended:
      ok = PQsendQueryParams(c.conn, sql.data(), c.runner.param_count(), nullptr,
                             c.runner.params(), nullptr, nullptr, 0);
      break;
    case QueryMode::kPrepared: {
      const std::string& name = PreparedName(c.script_index, c.runner.command_index());
      ok = PQsendQueryPrepared(c.conn, name.c_str(), c.runner.param_count(), c.runner.params(),
                               nullptr, nullptr, 0);
      break;
    }
  }
  if (!ok) {
    Abort(c, "client " + std::to_string(c.id) + " aborted in command " +
                 std::to_string(c.runner.command_index()) + " (SQL) of script " +
                 std::to_string(c.script_index) +
                 "; SQL command send failed: " + TrimNewline(PQerrorMessage(c.conn)));
    return false;
  }
  // In pipeline mode libpq buffers until a sync or a flush; send now so the
  // server can start (pgbench relies on libpq's own flushing too).
  if (!c.runner.in_pipeline()) Flush(c);
  return true;
}

void Worker::Flush(Client& c) {
  const int r = PQflush(c.conn);
  if (r == 1) {
    if (!c.want_write) {
      c.want_write = true;
      Watch(c, EPOLLIN | EPOLLOUT);
    }
  } else if (c.want_write) {
    c.want_write = false;
    Watch(c, EPOLLIN);
  }
}

void Worker::OnSocket(Client& c, uint32_t events) {
  if (c.state == ClientState::kDone || c.state == ClientState::kAborted) return;
  if (c.state == ClientState::kConnecting) {
    bool done = false;
    if (!PollConnect(c, &done)) {
      shared_->Error("connection to database \"" + config_.target.dbname + "\" failed: " +
                       TrimNewline(PQerrorMessage(c.conn)));
      Abort(c, "client " + std::to_string(c.id) + " aborted while establishing connection");
      return;
    }
    if (done) {
      conn_ns_ += Now() - c.connect_begin_ns;
      ChooseWire(c);
      BeginTransaction(c);
    }
    return;
  }
  // Statements are prepared through libpq even on the lean path.
  if (c.wire && c.state != ClientState::kPreparing) {
    if (!ring_) {
      OnWireSocket(c, events);
    } else if (c.fd >= 0) {
      Unwatch(c);  // the ring's receives read this socket; epoll must not spin on it
    }
    return;
  }
  if ((events & EPOLLOUT) && c.want_write) Flush(c);
  if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) == 0) return;
  if (!PQconsumeInput(c.conn)) {
    const bool expecting = c.state == ClientState::kWaiting || c.state == ClientState::kPreparing ||
                           c.state == ClientState::kRollingBack;
    if (!expecting) {
      Abort(c, "client " + std::to_string(c.id) +
                   " aborted: connection lost: " + TrimNewline(PQerrorMessage(c.conn)));
      return;
    }
    // Otherwise PQgetResult reports the failure as the command's result.
  }
  switch (c.state) {
    case ClientState::kWaiting:
      if (config_.debug) shared_->Message("client " + std::to_string(c.id) + " receiving");
      if (PQpipelineStatus(c.conn) != PQ_PIPELINE_OFF) {
        ReadPipelineResults(c);
      } else {
        ReadResults(c);
      }
      break;
    case ClientState::kPreparing:
      ReadPrepareResults(c);
      break;
    case ClientState::kRollingBack:
      ReadRollbackResults(c);
      break;
    default:
      // Unsolicited input (a notice) while idle: libpq has consumed it.
      if (PQstatus(c.conn) == CONNECTION_BAD) {
        Abort(c, "client " + std::to_string(c.id) +
                     " aborted: connection lost: " + TrimNewline(PQerrorMessage(c.conn)));
      }
      break;
  }
}

void Worker::ReadResults(Client& c) {
  while (!PQisBusy(c.conn)) {
    PGresult* res = PQgetResult(c.conn);
    if (res == nullptr) {
      if (c.error != ErrorKind::kNone) {
        HandleError(c);
        return;
      }
      if (c.gset_result != nullptr) {
        PGresult* last = c.gset_result;
        c.gset_result = nullptr;
        const bool ok = StoreGset(c, last, /*aset=*/false);
        PQclear(last);
        if (!ok) return;
      }
      CommandDone(c);
      return;
    }
    if (!HandleResult(c, res)) return;
  }
}

// Handles one result of the current SQL command; takes ownership of res.
// Returns false when the client aborted.
bool Worker::HandleResult(Client& c, PGresult* res) {
  if (c.error != ErrorKind::kNone) {  // draining after a retryable error
    PQclear(res);
    return true;
  }
  const ExecStatusType st = PQresultStatus(res);
  const script::Command& cmd = c.runner.command();
  switch (st) {
    case PGRES_COMMAND_OK:
    case PGRES_TUPLES_OK:
    case PGRES_EMPTY_QUERY:
      if (cmd.capture == script::Capture::kGset) {
        if (c.gset_result != nullptr) PQclear(c.gset_result);
        c.gset_result = res;  // only the last result of the command counts
        ++c.query_index;
        return true;
      }
      if (cmd.capture == script::Capture::kAset && PQntuples(res) > 0) {
        const bool ok = StoreGset(c, res, /*aset=*/true);
        if (!ok) {
          PQclear(res);
          return false;
        }
      }
      PQclear(res);
      ++c.query_index;
      return true;
    case PGRES_COPY_IN:
    case PGRES_COPY_OUT:
    case PGRES_COPY_BOTH:
      // pgbench's words, and only them (no "aborted in command" line); the
      // connection, left in COPY mode, is closed by Abort().
      PQclear(res);
      Abort(c, kCopyNotSupported);
      return false;
    case PGRES_FATAL_ERROR:
    case PGRES_NONFATAL_ERROR: {
      const ErrorKind kind = Classify(PQresultErrorField(res, PG_DIAG_SQLSTATE));
      if (kind != ErrorKind::kOther) {
        NoteRetryableError(c, kind, TrimNewline(PQresultErrorMessage(res)));
        PQclear(res);
        return true;
      }
      [[fallthrough]];
    }
    default: {
      std::string msg = TrimNewline(PQresultErrorMessage(res));
      if (msg.empty()) msg = TrimNewline(PQerrorMessage(c.conn));
      PQclear(res);
      Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                   " aborted in command " + std::to_string(c.runner.command_index()) + " query " +
                   std::to_string(c.query_index) + ": " + msg);
      return false;
    }
  }
}

bool Worker::StoreGset(Client& c, PGresult* res, bool aset) {
  const int ntuples = PQntuples(res);
  if (!aset && ntuples != 1) {
    Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                 " command " + std::to_string(c.runner.command_index()) + " query " +
                 std::to_string(c.query_index - 1) + ": expected one row, got " +
                 std::to_string(ntuples));
    return false;
  }
  const int nfields = PQnfields(res);
  std::vector<std::string_view> names(static_cast<size_t>(nfields));
  std::vector<std::string_view> values(static_cast<size_t>(nfields));
  for (int f = 0; f < nfields; ++f) {
    names[static_cast<size_t>(f)] = PQfname(res, f);
    values[static_cast<size_t>(f)] = std::string_view(
        PQgetvalue(res, ntuples - 1, f), static_cast<size_t>(PQgetlength(res, ntuples - 1, f)));
  }
  Status s = c.runner.StoreRow(names, values);
  if (!s.ok()) {
    if (!c.runner.cause().empty()) shared_->Error(std::string(c.runner.cause()));
    Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                 " command " + std::to_string(c.runner.command_index()) + " query " +
                 std::to_string(std::max(c.query_index - 1, 0)) + ": " + s.message());
    return false;
  }
  return true;
}

// -r: the current command took from cmd_begin_ns to now; the next one
// starts now.
void Worker::RecordCommandTime(Client& c) {
  const int64_t t = Now();
  auto& cs = script_stats_[static_cast<size_t>(c.script_index)]
                 .commands[static_cast<size_t>(c.runner.command_index())];
  ++cs.count;
  cs.sum_ns += t - c.cmd_begin_ns;
  c.cmd_begin_ns = t;
}

void Worker::CommandDone(Client& c) {
  if (config_.report_per_command) RecordCommandTime(c);
  c.state = ClientState::kRunning;
  RunScript(c);
}

// Reads what a pipeline returns, once \endpipeline has sent its sync.  As in
// pgbench, results and errors belong to the \endpipeline command, which
// waits for them.  A serialization failure or deadlock discards the rest of
// the pipeline up to its last sync, leaves pipeline mode and goes through
// HandleError (rollback, then retry or fail); any other error aborts.
void Worker::ReadPipelineResults(Client& c) {
  while (!PQisBusy(c.conn)) {
    PGresult* res = PQgetResult(c.conn);
    if (res == nullptr) continue;  // end of one query's results; the next's follow
    const ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_PIPELINE_SYNC) {
      PQclear(res);
      --c.pipeline_syncs;
      if (c.pipeline_syncs == 0 && c.pipeline_ending) {
        if (!PQexitPipelineMode(c.conn)) {
          Abort(c, "client " + std::to_string(c.id) +
                       (c.error != ErrorKind::kNone
                            ? " aborted: failed to exit pipeline mode for rolling back the failed "
                              "transaction"
                            : " failed to exit pipeline mode: " +
                                  TrimNewline(PQerrorMessage(c.conn))));
          return;
        }
        c.pipeline_ending = false;
        if (c.error != ErrorKind::kNone) {
          HandleError(c);
        } else {
          CommandDone(c);  // \endpipeline: -r counts the wait for the results
        }
        return;
      }
      continue;
    }
    if (c.error != ErrorKind::kNone || st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ||
        st == PGRES_EMPTY_QUERY || st == PGRES_PIPELINE_ABORTED) {
      PQclear(res);  // a result, or what follows a retryable error up to the sync
      continue;
    }
    if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR) {
      const ErrorKind kind = Classify(PQresultErrorField(res, PG_DIAG_SQLSTATE));
      if (kind != ErrorKind::kOther) {
        NoteRetryableError(c, kind, TrimNewline(PQresultErrorMessage(res)));
        PQclear(res);
        continue;
      }
    }
    std::string msg = TrimNewline(PQresultErrorMessage(res));
    if (msg.empty()) msg = TrimNewline(PQerrorMessage(c.conn));
    PQclear(res);
    Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                 " aborted in command " + std::to_string(c.runner.command_index()) +
                 " query 0: " + msg);
    return;
  }
}

void Worker::ReadPrepareResults(Client& c) {
  while (!PQisBusy(c.conn)) {
    PGresult* res = PQgetResult(c.conn);
    if (res == nullptr) {
      // This statement is prepared; send the next, or start the script.
      if (SendPrepare(c)) return;
      if (c.state == ClientState::kAborted) return;
      c.runner.Start((*config_.scripts)[static_cast<size_t>(c.script_index)], c.script_index);
      c.cmd_begin_ns = Now();
      c.state = ClientState::kRunning;
      RunScript(c);
      return;
    }
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      // pgbench reports a failed PREPARE and goes on; the EXECUTE then fails
      // with the real error.
      shared_->Error(TrimNewline(PQresultErrorMessage(res)));
    }
    PQclear(res);
  }
}

void Worker::HandleError(Client& c) {
  const PGTransactionStatusType tx = TxStatus(c);
  if (tx == PQTRANS_INERROR || tx == PQTRANS_INTRANS) {
    bool sent = false;
    if (c.wire) {
      if (c.wire_out_sent == c.wire_out.size()) {
        c.wire_out.clear();
        c.wire_out_sent = 0;
      }
      pg::WireWriter(&c.wire_out).Query("ROLLBACK");
      sent = WireFlush(c);
    } else {
      sent = PQsendQuery(c.conn, "ROLLBACK") != 0;
      if (sent) Flush(c);
    }
    if (!sent) {
      Abort(c, "client " + std::to_string(c.id) +
                   " aborted: failed to send sql command for rolling back the failed transaction");
      return;
    }
    c.state = ClientState::kRollingBack;
    return;
  }
  if (tx != PQTRANS_IDLE) {
    if (PQstatus(c.conn) == CONNECTION_BAD) shared_->Error("perhaps the backend died while processing");
    Abort(c, "client " + std::to_string(c.id) + " aborted while receiving the transaction status");
    return;
  }
  if (timer_exceeded_ || stopping_) {
    Finish(c);
    return;
  }
  auto& cmd_stats = script_stats_[static_cast<size_t>(c.script_index)]
                        .commands[static_cast<size_t>(std::max(c.error_command, 0))];
  if (CanRetry(c)) {
    if (config_.verbose_errors) {
      shared_->Message("client " + std::to_string(c.id) +
                       " repeats the transaction after the error (try " + std::to_string(c.tries) +
                       (config_.max_tries ? "/" + std::to_string(config_.max_tries) : "") + ")");
    }
    ++c.tries;
    ++cmd_stats.retries;
    c.error = ErrorKind::kNone;
    c.runner.RestartForRetry();
    c.state = ClientState::kRunning;
    RunScript(c);
    return;
  }
  if (config_.verbose_errors) {
    shared_->Message("client " + std::to_string(c.id) + " ends the failed transaction (try " +
                     std::to_string(c.tries) +
                     (config_.max_tries ? "/" + std::to_string(config_.max_tries) : "") + ")");
  }
  ++cmd_stats.failures;
  EndTransaction(c);
}

void Worker::ReadRollbackResults(Client& c) {
  while (!PQisBusy(c.conn)) {
    PGresult* res = PQgetResult(c.conn);
    if (res == nullptr) {
      HandleError(c);  // now idle: retry or fail
      return;
    }
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
      std::string msg = TrimNewline(PQresultErrorMessage(res));
      PQclear(res);
      Abort(c, "client " + std::to_string(c.id) +
                   " aborted while rolling back the transaction after an error; " + msg);
      return;
    }
    PQclear(res);
  }
}

// A serialization failure or deadlock: the transaction ends in HandleError
// once the command's results are in.
void Worker::NoteRetryableError(Client& c, ErrorKind kind, const std::string& text) {
  c.error = kind;
  c.error_command = c.runner.command_index();
  if (config_.verbose_errors) {
    shared_->Message("client " + std::to_string(c.id) + " got an error in command " +
                     std::to_string(c.error_command) + " (SQL) of script " +
                     std::to_string(c.script_index) + "; " + text);
  }
}

bool Worker::CanRetry(const Client& c) {
  if (c.error != ErrorKind::kSerialization && c.error != ErrorKind::kDeadlock) return false;
  if (config_.max_tries != 0 && c.tries >= config_.max_tries) return false;
  if (config_.latency_limit_us > 0 && Now() - c.scheduled_ns > config_.latency_limit_us * 1000) {
    return false;
  }
  return !timer_exceeded_;
}

void Worker::EndTransaction(Client& c) {
  const int64_t t = Now();
  auto& sstats = script_stats_[static_cast<size_t>(c.script_index)].totals;
  stats::IntervalStats& interval = series_.At(t);
  TxnOutcome outcome = TxnOutcome::kSuccess;
  double latency_us = 0;
  double lag_us = 0;
  if (c.error == ErrorKind::kNone) {
    const int64_t latency = t - c.scheduled_ns;
    const int64_t lag = c.begin_ns - c.scheduled_ns;
    latency_.Record(latency);
    if (throttle_delay_us_ > 0) lag_.Record(lag);
    interval.RecordSuccess(latency, lag, c.tries);
    totals_.RecordSuccess(latency, lag, c.tries);
    sstats.RecordSuccess(latency, lag, c.tries);
    if (config_.latency_limit_us > 0 && latency > config_.latency_limit_us * 1000) ++latency_late_;
    latency_us = static_cast<double>(latency) / 1000.0;
    lag_us = static_cast<double>(lag) / 1000.0;
  } else {
    const stats::FailureKind kind = ToFailureKind(c.error);
    interval.RecordFailure(kind, c.tries);
    totals_.RecordFailure(kind, c.tries);
    sstats.RecordFailure(kind, c.tries);
    outcome = c.error == ErrorKind::kDeadlock ? TxnOutcome::kDeadlock : TxnOutcome::kSerialization;
  }
  ++c.cnt;
  if (log_) {
    log_->Log(c.id, c.cnt, c.script_index, outcome, latency_us, lag_us, c.tries, EpochUs(t));
  }
  c.error = ErrorKind::kNone;

  const PGTransactionStatusType tx = TxStatus(c);
  if (tx == PQTRANS_INTRANS || tx == PQTRANS_INERROR) {
    Abort(c, "client " + std::to_string(c.id) +
                 " aborted: end of script reached without completing the last transaction");
    return;
  }
  if (tx != PQTRANS_IDLE) {
    Abort(c, "client " + std::to_string(c.id) + " aborted while receiving the transaction status");
    return;
  }
  if (config_.connect_per_transaction) {
    const int64_t t0 = Now();
    CloseConnection(c);
    conn_ns_ += Now() - t0;
  }
  const int64_t nxacts = config_.transactions_per_client;
  if ((nxacts > 0 && c.cnt >= nxacts) || timer_exceeded_ || stopping_) {
    Finish(c);
    return;
  }
  c.state = ClientState::kReady;
  // A script that touched the network goes straight on; one made only of
  // meta-commands yields to the loop so it cannot starve the others.
  if (c.io_this_txn) {
    StartTransaction(c);
  } else {
    ready_.push_back(&c);
  }
}

void Worker::RecordSkipped(Client& c) {
  totals_.RecordSkipped();
  series_.At(now_).RecordSkipped();
  script_stats_[static_cast<size_t>(c.script_index)].totals.RecordSkipped();
  ++c.cnt;
  if (log_) log_->Log(c.id, c.cnt, c.script_index, TxnOutcome::kSkipped, 0, 0, 1, EpochUs(now_));
}

void Worker::Finish(Client& c) {
  if (c.state == ClientState::kDone || c.state == ClientState::kAborted) return;
  c.state = ClientState::kDone;
  ++c.timer_seq;
  CloseConnection(c);
  --remaining_;
  ++finished_;
}

void Worker::Abort(Client& c, const std::string& message) {
  if (c.state == ClientState::kDone || c.state == ClientState::kAborted) return;
  c.state = ClientState::kAborted;
  ++c.timer_seq;
  shared_->Error(message);  // pgbench logs every abort at error level
  if (first_abort_.empty()) first_abort_ = message;
  CloseConnection(c);
  --remaining_;
  ++aborted_;
}


PGTransactionStatusType Worker::TxStatus(const Client& c) const {
  if (!c.wire) return PQtransactionStatus(c.conn);
  switch (c.tx_status) {
    case 'I': return PQTRANS_IDLE;
    case 'T': return PQTRANS_INTRANS;
    case 'E': return PQTRANS_INERROR;
    default: return PQTRANS_UNKNOWN;
  }
}

// ---------------------------------------------------------------------------
// The lean path: the same steps as the libpq functions above, on bytes.

void Worker::ChooseWire(Client& c) {
  c.wire = false;
  if (!wire_scripts_ || PQsslInUse(c.conn) || PQgssEncInUse(c.conn)) return;
  // The caret under an error position counts characters: UTF-8 and the
  // single-byte encodings are handled here, other multibyte ones by libpq.
  const std::string_view enc = pg_encoding_to_char(PQclientEncoding(c.conn));
  static constexpr std::string_view kOtherMultibyte[] = {
      "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "MULE_INTERNAL", "SJIS",
      "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004"};
  for (std::string_view m : kOtherMultibyte) {
    if (enc == m) return;
  }
  c.wire = true;
  if (!c.was_wire) {
    c.was_wire = true;
    ++lean_connections_;
  }
  c.sock = PQsocket(c.conn);
  c.wire_utf8 = enc == "UTF8";
  c.tx_status = PQtransactionStatus(c.conn) == PQTRANS_IDLE ? 'I' : 'T';
  c.wire_out.clear();
  c.wire_out_sent = 0;
  c.wire_in.Clear();
}

// What PQsendQuery, PQsendQueryParams and PQsendQueryPrepared would send.
bool Worker::WireSendCommand(Client& c) {
  if (c.wire_out_sent == c.wire_out.size()) {
    // Everything before was sent (the server answered it): start afresh.
    c.wire_out.clear();
    c.wire_out_sent = 0;
  }
  pg::WireWriter w(&c.wire_out);
  switch (config_.mode) {
    case QueryMode::kSimple:
      w.Query(c.runner.sql());
      break;
    case QueryMode::kExtended:
      w.Parse("", c.runner.sql());
      w.Bind("", c.runner.param_count(), c.runner.params());
      w.DescribePortal();
      w.Execute();
      w.Sync();
      break;
    case QueryMode::kPrepared:
      w.Bind(PreparedName(c.script_index, c.runner.command_index()), c.runner.param_count(),
             c.runner.params());
      w.DescribePortal();
      w.Execute();
      w.Sync();
      break;
  }
  if (!WireFlush(c)) {
    Abort(c, "client " + std::to_string(c.id) + " aborted in command " +
                 std::to_string(c.runner.command_index()) + " (SQL) of script " +
                 std::to_string(c.script_index) + "; SQL command send failed: " +
                 std::strerror(errno));
    return false;
  }
  return true;
}

// Sends what is pending; false on a socket error (errno set).  A full
// socket buffer is not an error: the rest goes when epoll says writable.
bool Worker::WireFlush(Client& c) {
  if (ring_) {
    // Queued; it goes with the loop turn's single system call.  The buffer
    // stays as it is until the next command, which comes after the answer.
    if (c.fd >= 0) Unwatch(c);  // answers come through the ring, not epoll
    if (c.wire_out_sent < c.wire_out.size()) {
      ring_->Send(c.sock, c.wire_out.data() + c.wire_out_sent, c.wire_out.size() - c.wire_out_sent,
                  Tag(c, kTagSend));
      c.wire_out_sent = c.wire_out.size();
    }
    ArmRecv(c);
    return true;
  }
  while (c.wire_out_sent < c.wire_out.size()) {
    const ssize_t n = ::send(c.sock, c.wire_out.data() + c.wire_out_sent,
                             c.wire_out.size() - c.wire_out_sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      if (!c.want_write) {
        c.want_write = true;
        Watch(c, EPOLLIN | EPOLLOUT);
      }
      return true;
    }
    c.wire_out_sent += static_cast<size_t>(n);
  }
  c.wire_out.clear();
  c.wire_out_sent = 0;
  if (c.want_write) {
    c.want_write = false;
    Watch(c, EPOLLIN);
  }
  return true;
}

void Worker::OnWireSocket(Client& c, uint32_t events) {
  if ((events & EPOLLOUT) && c.want_write && !WireFlush(c)) {
    WireLost(c, std::string("could not send data to server: ") + std::strerror(errno));
    return;
  }
  if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) == 0) return;
  constexpr size_t kReadRoom = 16 * 1024;
  for (;;) {
    char* space = c.wire_in.WriteSpace(kReadRoom);
    const size_t room = c.wire_in.WriteRoom();
    const ssize_t n = ::recv(c.sock, space, room, 0);
    if (n > 0) {
      c.wire_in.Commit(static_cast<size_t>(n));
      if (static_cast<size_t>(n) < room) break;  // drained: no second call for EAGAIN
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    WireLost(c, n == 0 ? std::string(kServerClosed)
                       : std::string("could not receive data from server: ") + std::strerror(errno));
    return;
  }
  WireDispatch(c);
}

// A receive of the ring completed: res bytes are in recv_buf, or -errno.
void Worker::OnWireRecv(Client& c, int res) {
  c.recv_armed = false;
  --armed_recvs_;
  if (c.state == ClientState::kDone || c.state == ClientState::kAborted) return;
  if (res == -EINTR || res == -EAGAIN) {
    ArmRecv(c);
    return;
  }
  if (res <= 0) {
    WireLost(c, res == 0 ? std::string(kServerClosed)
                         : std::string("could not receive data from server: ") + std::strerror(-res));
    return;
  }
  c.wire_in.Feed(std::string_view(c.recv_buf.get(), static_cast<size_t>(res)));
  WireDispatch(c);
  // Still waiting for the rest of an answer: receive again.
  if (c.wire && (c.state == ClientState::kWaiting || c.state == ClientState::kRollingBack)) {
    ArmRecv(c);
  }
}

void Worker::ArmRecv(Client& c) {
  if (c.recv_armed) return;
  if (!c.recv_buf) c.recv_buf = std::make_unique_for_overwrite<char[]>(kRecvBufferBytes);
  ring_->Recv(c.sock, c.recv_buf.get(), kRecvBufferBytes, Tag(c, kTagRecv));
  c.recv_armed = true;
  ++armed_recvs_;
}

// End of stream or a socket error: what the libpq path would report.
void Worker::WireLost(Client& c, const std::string& why) {
  if (c.state == ClientState::kWaiting) {
    Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                 " aborted in command " + std::to_string(c.runner.command_index()) + " query " +
                 std::to_string(c.query_index) + ": " + why);
  } else {
    Abort(c, "client " + std::to_string(c.id) + " aborted: connection lost: " + why);
  }
}

void Worker::WireDispatch(Client& c) {
  switch (c.state) {
    case ClientState::kWaiting:
      WireReadResults(c);
      break;
    case ClientState::kRollingBack:
      WireReadRollback(c);
      break;
    default:
      // While idle: notices, parameter changes, or the server's goodbye.
      while (auto m = c.wire_in.Next()) {
        if (m->type == 'N' || m->type == 'E') WireNotice(m->body);
      }
      c.wire_in.Compact();
      break;
  }
}

void Worker::WireReadResults(Client& c) {
  while (auto m = c.wire_in.Next()) {
    switch (m->type) {
      case 'C':  // CommandComplete
      case 'I':  // EmptyQueryResponse
        if (c.error == ErrorKind::kNone) ++c.query_index;
        break;
      case 'T': case 'D': case '1': case '2': case '3': case 'n': case 's': case 'S': case 'A':
        break;  // rows and acknowledgements: nothing to keep
      case 'N':
        WireNotice(m->body);
        break;
      case 'E': {
        if (c.error != ErrorKind::kNone) break;  // draining after a retryable error
        ErrorKind kind = ErrorKind::kOther;
        const std::string text = WireErrorText(c, m->body, &kind);
        if (kind != ErrorKind::kOther) {
          NoteRetryableError(c, kind, text);
          break;
        }
        Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                     " aborted in command " + std::to_string(c.runner.command_index()) +
                     " query " + std::to_string(c.query_index) + ": " + text);
        return;
      }
      case 'Z':  // ReadyForQuery: the command is over
        c.tx_status = m->body.empty() ? '?' : m->body[0];
        c.wire_in.Compact();
        if (c.error != ErrorKind::kNone) {
          HandleError(c);
        } else {
          CommandDone(c);
        }
        return;
      case 'G':  // CopyInResponse
      case 'H':  // CopyOutResponse
      case 'W':  // CopyBothResponse
        // As on the libpq path; Abort() closes the connection, so the
        // server's COPY state cannot leave it stuck.
        Abort(c, kCopyNotSupported);
        return;
      default:
        // Anything else this path does not speak.
        Abort(c, "client " + std::to_string(c.id) + " script " + std::to_string(c.script_index) +
                     " aborted in command " + std::to_string(c.runner.command_index()) +
                     " query " + std::to_string(c.query_index) +
                     ": unexpected protocol message type '" +
                     (m->type >= 0x20 && m->type < 0x7F ? std::string(1, m->type) : "?") +
                     "'");
        return;
    }
  }
  c.wire_in.Compact();
}

void Worker::WireReadRollback(Client& c) {
  while (auto m = c.wire_in.Next()) {
    if (m->type == 'N') {
      WireNotice(m->body);
    } else if (m->type == 'E') {
      ErrorKind kind = ErrorKind::kOther;
      const std::string text = WireErrorText(c, m->body, &kind);
      Abort(c, "client " + std::to_string(c.id) +
                   " aborted while rolling back the transaction after an error; " + text);
      return;
    } else if (m->type == 'Z') {
      c.tx_status = m->body.empty() ? '?' : m->body[0];
      c.wire_in.Compact();
      HandleError(c);  // now idle: retry or fail
      return;
    }
  }
  c.wire_in.Compact();
}

// libpq's default notice processor writes the notice to stderr as is.
void Worker::WireNotice(std::string_view body) {
  const pg::ServerMessageFields f = pg::ParseServerMessage(body);
  const std::string text =
      pg::FormatServerMessage(f, pg::ServerMessageKind::kNotice, std::nullopt, /*multibyte_utf8=*/true);
  std::fputs(text.c_str(), stderr);
}

std::string Worker::WireErrorText(const Client& c, std::string_view body, ErrorKind* kind) const {
  const pg::ServerMessageFields f = pg::ParseServerMessage(body);
  *kind = f.sqlstate.empty() ? ErrorKind::kOther : Classify(std::string(f.sqlstate).c_str());
  // libpq shows the statement under the error position when it sent the
  // text itself (simple and extended protocol), not for prepared statements.
  std::optional<std::string_view> query;
  if (c.state == ClientState::kWaiting && config_.mode != QueryMode::kPrepared) {
    query = c.runner.sql();
  } else if (c.state == ClientState::kRollingBack) {
    query = "ROLLBACK";
  }
  return TrimNewline(
      pg::FormatServerMessage(f, pg::ServerMessageKind::kError, query, c.wire_utf8).c_str());
}

}  // namespace pgrig::engine
