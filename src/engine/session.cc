// The session's connecting, script stepping and sending (see session.h);
// what the answers mean is in session_results.cc.
#include "engine/session.h"

#include <algorithm>

#include "common/clock.h"
#include "engine/messages.h"

namespace pgrig::engine {

WorkerState::WorkerState(Shared* shared_in, script::Prng choose, script::Prng throttle)
    : shared(shared_in),
      config(*shared_in->config),
      choose_rng(choose),
      throttle_rng(throttle),
      series(0, int64_t{shared_in->config->series_interval_s} * 1'000'000'000) {}

int64_t WorkerState::Now() {
  now = MonotonicNanos();
  return now;
}

Session::Session(WorkerState* w, int id, script::Variables vars, script::Prng rng,
                 script::ScriptRunner::Options runner_options)
    : w_(*w),
      config_(w->config),
      id_(id),
      libpq_(&w->poller, &slot_, this),
      lean_(&w->poller, &slot_, this),
      io_(&libpq_),
      vars_(std::move(vars)),
      rng_(rng),
      runner_(std::move(runner_options), &vars_, &rng_) {
  prepared_.assign(config_.scripts->size(), false);
}

// ---------------------------------------------------------------------------
// Connections

bool Session::StartConnect() {
  state_ = ClientState::kConnecting;
  return libpq_.StartConnect(config_.target);
}

bool Session::ConnectStep(bool* done) { return libpq_.PollConnect(done); }

void Session::Ready() {
  ChooseTransport();
  state_ = ClientState::kReady;
}

void Session::ChooseTransport() {
  io_ = &libpq_;
  if (!w_.lean_scripts || !lean_.Adopt(libpq_.conn())) return;
  io_ = &lean_;
  if (!was_lean_) {
    was_lean_ = true;
    ++w_.lean_connections;
  }
}

void Session::Close() {
  lean_.Close();
  libpq_.Close();
  io_ = &libpq_;
}

// ---------------------------------------------------------------------------
// Events from the loop

void Session::OnEvents(uint32_t events) {
  if (ended()) return;
  if (state_ == ClientState::kConnecting) {
    bool done = false;
    if (!libpq_.PollConnect(&done)) {
      w_.shared->Error(msg::ConnectFailed(config_.target.dbname, libpq_.LastError(), -1));
      Abort(msg::AbortedWhile(id_, "establishing connection"));
      return;
    }
    if (done) {
      w_.conn_ns += w_.Now() - connect_begin_ns_;
      ChooseTransport();
      BeginTransaction();
    }
    return;
  }
  // Statements are prepared through libpq even with the lean transport.
  Transport& t = state_ == ClientState::kPreparing ? static_cast<Transport&>(libpq_) : *io_;
  t.OnEvents(events, *this);
}

void Session::OnRecv(int res) { lean_.OnRecv(res, *this); }

void Session::OnSendFailed(int res) {
  if (!ended()) lean_.OnSendFailed(res, *this);
}

void Session::OnTimer(uint64_t seq) {
  if (seq != timer_seq_) return;
  if (state_ == ClientState::kThrottling) {
    if (w_.timer_exceeded || w_.stopping) {
      Finish();
    } else {
      BeginTransaction();
    }
  } else if (state_ == ClientState::kSleeping) {
    // The \sleep command is done: with -r its latency is the time slept, as
    // pgbench reports it.
    if (config_.untimed_sleeps) slept_ns_ += w_.Now() - sleep_begin_ns_;
    CommandDone();
  }
}

bool Session::SleepingOutsideTransaction() const {
  return state_ == ClientState::kSleeping && io_ != nullptr && io_->Status() == TxStatus::kIdle;
}

void Session::SetTimer(int64_t when_ns, ClientState state) {
  state_ = state;
  timer_seq_ = ++w_.timer_counter;
  w_.timers.push(WorkerState::Timer{when_ns, timer_seq_, this});
}

// ---------------------------------------------------------------------------
// Transactions

void Session::Start() {
  if (ended()) return;  // stopped while connecting
  state_ = ClientState::kReady;
  StartTransaction();
}

void Session::StartTransaction() {
  const int64_t nxacts = config_.transactions_per_client;
  if (w_.timer_exceeded || w_.stopping || (nxacts > 0 && cnt_ >= nxacts)) {
    Finish();
    return;
  }
  const auto& scripts = *config_.scripts;
  script_index_ = script::ChooseScript(w_.choose_rng, scripts, w_.shared->total_weight);
  if (config_.debug) {
    w_.shared->Message(msg::Trace(
        id_, "executing script \"" + scripts[static_cast<size_t>(script_index_)].desc + "\""));
  }
  if (w_.throttle_delay_us > 0) {
    for (;;) {
      w_.throttle_trigger_ns +=
          script::PoissonDelayUs(w_.throttle_rng, w_.throttle_delay_us) * 1000;
      scheduled_ns_ = w_.throttle_trigger_ns;
      if (config_.latency_limit_us > 0 &&
          scheduled_ns_ < w_.Now() - config_.latency_limit_us * 1000 &&
          (nxacts <= 0 || cnt_ < nxacts)) {
        // Already too late to meet the limit: skip this slot (pgbench -L).
        RecordSkipped();
        if ((nxacts > 0 && cnt_ >= nxacts) || w_.timer_exceeded) {
          Finish();
          return;
        }
        continue;
      }
      break;
    }
    if (w_.shared->end_ns > 0 && scheduled_ns_ > w_.shared->end_ns) {
      Finish();
      return;
    }
    if (scheduled_ns_ > w_.now) {
      SetTimer(scheduled_ns_, ClientState::kThrottling);
      return;
    }
  }
  BeginTransaction();
}

void Session::BeginTransaction() {
  if (!libpq_.connected()) {  // -C: a new connection for every transaction
    connect_begin_ns_ = w_.Now();
    prepared_.assign(config_.scripts->size(), false);
    if (!StartConnect()) Abort(msg::AbortedWhile(id_, "establishing connection"));
    return;  // OnEvents continues when connected
  }
  begin_ns_ = w_.Now();
  if (w_.throttle_delay_us <= 0) scheduled_ns_ = begin_ns_;
  tries_ = 1;
  slept_ns_ = 0;
  error_ = ErrorKind::kNone;
  io_this_txn_ = false;
  if (config_.mode == QueryMode::kPrepared && !prepared_[static_cast<size_t>(script_index_)]) {
    prepare_next_ = 0;
    state_ = ClientState::kPreparing;
    if (SendPrepare()) return;  // the answers come through OnEvents
    if (state_ == ClientState::kAborted) return;
  }
  StartScript(begin_ns_);
}

void Session::StartScript(int64_t begin_ns) {
  runner_.Start((*config_.scripts)[static_cast<size_t>(script_index_)], script_index_);
  cmd_begin_ns_ = begin_ns;
  state_ = ClientState::kRunning;
  RunScript();
}

// Sends the next statement of the script to prepare; false when none is left
// (the script is then marked prepared) or the session aborted.
bool Session::SendPrepare() {
  const auto& commands = (*config_.scripts)[static_cast<size_t>(script_index_)].commands;
  for (int i = prepare_next_; i < static_cast<int>(commands.size()); ++i) {
    const script::Command& cmd = commands[static_cast<size_t>(i)];
    if (cmd.kind != script::CommandKind::kSql) continue;
    prepare_next_ = i + 1;
    const std::string& name = w_.PreparedName(script_index_, i);
    if (config_.debug) w_.shared->Message(msg::Trace(id_, "preparing " + name));
    if (!libpq_.SendPrepare(name, cmd.sql_params, static_cast<int>(cmd.param_slots.size()))) {
      Abort(msg::AbortedInCommand(id_, i, "SQL", script_index_,
                                  "SQL command send failed: " + libpq_.LastError()));
      return false;
    }
    io_this_txn_ = true;
    return true;
  }
  prepared_[static_cast<size_t>(script_index_)] = true;
  return false;
}

void Session::RunScript() {
  const bool per_command = config_.report_per_command;
  for (;;) {
    const script::StepKind step = runner_.Advance();
    switch (step) {
      case script::StepKind::kSql: {
        if (per_command) cmd_begin_ns_ = w_.Now();
        if (!SendCommand()) return;
        io_this_txn_ = true;
        if (runner_.in_pipeline()) {
          if (per_command) RecordCommandTime();  // sent, not waited for: pgbench's -r counts it so
          continue;
        }
        query_index_ = 0;
        state_ = ClientState::kWaiting;
        if (config_.debug) w_.shared->Message(msg::Trace(id_, "receiving"));
        return;
      }
      case script::StepKind::kSleep:
        sleep_begin_ns_ = w_.Now();
        SetTimer(sleep_begin_ns_ + runner_.sleep_us() * 1000, ClientState::kSleeping);
        return;
      case script::StepKind::kMetaDone:
        if (per_command) RecordCommandTime();
        continue;
      case script::StepKind::kPipelineStart:
        if (config_.mode == QueryMode::kSimple) {
          Abort(msg::AbortedInCommand(id_, runner_.command_index(), "startpipeline", script_index_,
                                      "cannot use pipeline mode with the simple query protocol"));
          return;
        }
        if (!libpq_.EnterPipeline()) {
          Abort(msg::AbortedInCommand(id_, runner_.command_index(), "startpipeline", script_index_,
                                      "failed to enter pipeline mode"));
          return;
        }
        pipeline_syncs_ = 0;
        pipeline_ending_ = false;
        continue;
      case script::StepKind::kPipelineSync:
      case script::StepKind::kPipelineEnd:
        if (!libpq_.PipelineSync()) {
          Abort(msg::Aborted(id_, "failed to send a pipeline sync"));
          return;
        }
        ++pipeline_syncs_;
        if (step == script::StepKind::kPipelineSync) continue;
        pipeline_ending_ = true;
        libpq_.Flush();
        state_ = ClientState::kWaiting;
        return;
      case script::StepKind::kEndOfScript:
        EndTransaction();
        return;
      case script::StepKind::kError:
        // pgbench logs the cause ("division by zero") before the abort line.
        if (!runner_.cause().empty()) w_.shared->Error(std::string(runner_.cause()));
        Abort(runner_.AbortMessage(id_));
        return;
    }
  }
}

bool Session::SendCommand() {
  const int command = runner_.command_index();
  const bool prepared = config_.mode == QueryMode::kPrepared;
  if (config_.debug) {
    w_.shared->Message(
        msg::Trace(id_, "sending " + (prepared ? w_.PreparedName(script_index_, command)
                                               : std::string(runner_.sql()))));
  }
  const SqlCommand sql{.mode = config_.mode,
                       .sql = runner_.sql(),
                       .statement = prepared ? &w_.PreparedName(script_index_, command) : nullptr,
                       .nparams = runner_.param_count(),
                       .params = runner_.params(),
                       .in_pipeline = runner_.in_pipeline()};
  if (io_->Send(sql)) return true;
  Abort(msg::AbortedInCommand(id_, command, "SQL", script_index_,
                              "SQL command send failed: " + io_->LastError()));
  return false;
}

// -r: the current command took from cmd_begin_ns_ to now; the next one
// starts now.
void Session::RecordCommandTime() {
  const int64_t t = w_.Now();
  auto& cs = w_.script_stats[static_cast<size_t>(script_index_)]
                 .commands[static_cast<size_t>(runner_.command_index())];
  ++cs.count;
  cs.sum_ns += t - cmd_begin_ns_;
  cmd_begin_ns_ = t;
}

void Session::CommandDone() {
  if (config_.report_per_command) RecordCommandTime();
  state_ = ClientState::kRunning;
  RunScript();
}

void Session::Finish() {
  if (ended()) return;
  state_ = ClientState::kDone;
  ++timer_seq_;
  Close();
  --w_.remaining;
  ++w_.finished;
}

void Session::Abort(const std::string& message) {
  if (ended()) return;
  state_ = ClientState::kAborted;
  ++timer_seq_;
  w_.shared->Error(message);  // pgbench logs every abort at error level
  if (w_.first_abort.empty()) w_.first_abort = message;
  Close();
  --w_.remaining;
  ++w_.aborted;
}

}  // namespace pgrig::engine
