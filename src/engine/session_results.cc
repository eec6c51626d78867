// What the server's answers mean to a session (see session.h): the protocol
// facts a transport reports, errors and their retries, and the end of a
// transaction with its accounting.
#include <algorithm>

#include "engine/messages.h"
#include "engine/session.h"

namespace pgrig::engine {

namespace {

stats::FailureKind ToFailureKind(ErrorKind k) {
  return k == ErrorKind::kDeadlock ? stats::FailureKind::kDeadlock
                                   : stats::FailureKind::kSerialization;
}

bool Retryable(ErrorKind k) { return k == ErrorKind::kSerialization || k == ErrorKind::kDeadlock; }

}  // namespace

// ---------------------------------------------------------------------------
// Protocol facts

Awaiting Session::awaiting() const {
  switch (state_) {
    case ClientState::kWaiting:
    case ClientState::kRollingBack:
      return Awaiting::kAnswer;
    case ClientState::kPreparing:
      return Awaiting::kPrepare;
    default:
      return Awaiting::kNothing;
  }
}

void Session::OnReceiving() {
  if (config_.debug && state_ == ClientState::kWaiting) {
    w_.shared->Message(msg::Trace(id_, "receiving"));
  }
}

// A statement's result: counted, or kept for \gset, or stored for \aset.
// Ignored while draining after a retryable error, in a pipeline (the
// results belong to \endpipeline), while preparing and rolling back.
bool Session::OnResult(const Rows& rows) {
  if (state_ != ClientState::kWaiting || pipeline_ending_ || error_ != ErrorKind::kNone) {
    return true;
  }
  const script::Command& cmd = runner_.command();
  if (cmd.capture == script::Capture::kGset) {
    libpq_.KeepResult();  // only the last result of the command counts
  } else if (cmd.capture == script::Capture::kAset && rows.RowCount() > 0) {
    if (!StoreRow(rows, /*aset=*/true)) return false;
  }
  ++query_index_;
  return true;
}

bool Session::OnError(ErrorKind kind, std::string_view text) {
  switch (state_) {
    case ClientState::kPreparing:
      // pgbench reports a failed PREPARE and goes on; the EXECUTE then fails
      // with the real error.
      w_.shared->Error(std::string(text));
      return true;
    case ClientState::kRollingBack:
      Abort(msg::RollbackFailed(id_, text));
      return false;
    case ClientState::kWaiting:
      if (error_ != ErrorKind::kNone) return true;  // draining after a retryable error
      if (Retryable(kind)) {
        NoteRetryableError(kind, text);
        return true;
      }
      return AbortInQuery(pipeline_ending_ ? 0 : query_index_, text);
    default:
      return true;
  }
}

// An error or an answer the session cannot take ends it; libpq's message
// stands in when the result carries none.
bool Session::AbortInQuery(int query, std::string_view text) {
  const std::string why = text.empty() ? io_->LastError() : std::string(text);
  Abort(msg::AbortedInQuery(id_, script_index_, runner_.command_index(), query, why));
  return false;
}

// A pipeline's sync point.  As in pgbench, a pipeline's results and errors
// belong to its \endpipeline command, which waits for them.  A serialization
// failure or deadlock discards the rest of the pipeline up to its last sync,
// leaves pipeline mode and goes through HandleError (rollback, then retry or
// fail); any other error aborts.
bool Session::OnPipelineSync() {
  if (state_ != ClientState::kWaiting || !pipeline_ending_) return true;
  --pipeline_syncs_;
  if (pipeline_syncs_ > 0) return true;
  if (!libpq_.ExitPipeline()) {
    Abort(msg::PipelineExitFailed(id_, error_ != ErrorKind::kNone, libpq_.LastError()));
    return false;
  }
  pipeline_ending_ = false;
  if (error_ != ErrorKind::kNone) {
    HandleError();
  } else {
    CommandDone();  // \endpipeline: -r counts the wait for the results
  }
  return false;
}

bool Session::OnCopy() {
  if (state_ != ClientState::kWaiting || error_ != ErrorKind::kNone) return true;
  if (pipeline_ending_) return AbortInQuery(0, "");
  // pgbench's words, and only them (no "aborted in command" line); Abort()
  // closes the connection, so the server's COPY state cannot leave it stuck.
  Abort(std::string(msg::kCopyNotSupported));
  return false;
}

bool Session::OnUnexpected(char type) {
  if (state_ != ClientState::kWaiting) return true;
  return AbortInQuery(query_index_, msg::UnexpectedMessage(type));
}

void Session::OnCommandEnd() {
  switch (state_) {
    case ClientState::kPreparing:
      // This statement is prepared; send the next, or start the script.
      if (SendPrepare()) return;
      if (state_ == ClientState::kAborted) return;
      StartScript(w_.Now());
      return;
    case ClientState::kRollingBack:
      HandleError();  // now idle: retry or fail
      return;
    case ClientState::kWaiting:
      break;
    default:
      return;
  }
  if (error_ != ErrorKind::kNone) {
    HandleError();
    return;
  }
  if (const Rows* kept = libpq_.kept()) {
    const bool ok = StoreRow(*kept, /*aset=*/false);
    libpq_.DropKept();
    if (!ok) return;
  }
  CommandDone();
}

// End of stream or a socket error.
void Session::OnLost(std::string_view why) {
  if (state_ == ClientState::kWaiting) {
    Abort(msg::AbortedInQuery(id_, script_index_, runner_.command_index(), query_index_, why));
  } else {
    Abort(msg::ConnectionLost(id_, why));
  }
}

// pgbench, waiting for a command's result, aborts with its own words when
// PQconsumeInput fails (libpq's reason is not printed); in other states the
// loss is reported as OnLost does.
void Session::OnReadFailed(std::string_view why) {
  if (state_ == ClientState::kWaiting) {
    Abort(msg::AbortedInCommand(id_, runner_.command_index(), "SQL", script_index_,
                                msg::kBackendDied));
  } else {
    OnLost(why);
  }
}

// \gset (the command's last row, exactly one) and \aset (every row).
bool Session::StoreRow(const Rows& rows, bool aset) {
  const int ntuples = rows.RowCount();
  if (!aset && ntuples != 1) {
    Abort(msg::CaptureFailed(id_, script_index_, runner_.command_index(), query_index_ - 1,
                             "expected one row, got " + std::to_string(ntuples)));
    return false;
  }
  const int nfields = rows.FieldCount();
  std::vector<std::string_view> names(static_cast<size_t>(nfields));
  std::vector<std::string_view> values(static_cast<size_t>(nfields));
  for (int f = 0; f < nfields; ++f) {
    names[static_cast<size_t>(f)] = rows.FieldName(f);
    values[static_cast<size_t>(f)] = rows.Value(ntuples - 1, f);
  }
  Status s = runner_.StoreRow(names, values);
  if (!s.ok()) {
    if (!runner_.cause().empty()) w_.shared->Error(std::string(runner_.cause()));
    Abort(msg::CaptureFailed(id_, script_index_, runner_.command_index(),
                             std::max(query_index_ - 1, 0), s.message()));
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Errors and retries

// A serialization failure or deadlock: the transaction ends in HandleError
// once the command's results are in.
void Session::NoteRetryableError(ErrorKind kind, std::string_view text) {
  error_ = kind;
  error_command_ = runner_.command_index();
  if (config_.verbose_errors) {
    w_.shared->Message(msg::GotError(id_, error_command_, script_index_, text));
  }
}

void Session::HandleError() {
  const TxStatus tx = io_->Status();
  if (tx == TxStatus::kInError || tx == TxStatus::kInTransaction) {
    if (!io_->SendRollback()) {
      Abort(
          msg::Aborted(id_, "failed to send sql command for rolling back the failed transaction"));
      return;
    }
    state_ = ClientState::kRollingBack;
    return;
  }
  if (tx != TxStatus::kIdle) {
    if (io_->Broken()) w_.shared->Error(std::string(msg::kBackendDied));
    Abort(msg::AbortedWhile(id_, "receiving the transaction status"));
    return;
  }
  if (w_.timer_exceeded || w_.stopping) {
    Finish();
    return;
  }
  auto& cmd_stats = w_.script_stats[static_cast<size_t>(script_index_)]
                        .commands[static_cast<size_t>(std::max(error_command_, 0))];
  if (CanRetry()) {
    if (config_.verbose_errors) {
      w_.shared->Message(msg::RepeatsTransaction(id_, tries_, config_.max_tries));
    }
    ++tries_;
    ++cmd_stats.retries;
    error_ = ErrorKind::kNone;
    runner_.RestartForRetry();
    state_ = ClientState::kRunning;
    RunScript();
    return;
  }
  if (config_.verbose_errors) {
    w_.shared->Message(msg::EndsFailedTransaction(id_, tries_, config_.max_tries));
  }
  ++cmd_stats.failures;
  EndTransaction();
}

bool Session::CanRetry() {
  if (!Retryable(error_)) return false;
  if (config_.max_tries != 0 && tries_ >= config_.max_tries) return false;
  if (config_.latency_limit_us > 0 && w_.Now() - scheduled_ns_ > config_.latency_limit_us * 1000) {
    return false;
  }
  return !w_.timer_exceeded;
}

// ---------------------------------------------------------------------------
// The end of a transaction

void Session::EndTransaction() {
  const int64_t t = w_.Now();
  ScriptStats& script = w_.script_stats[static_cast<size_t>(script_index_)];
  stats::IntervalStats& sstats = script.totals;
  stats::IntervalStats& interval = w_.series.At(t);
  TxnOutcome outcome = TxnOutcome::kSuccess;
  double latency_us = 0;
  double lag_us = 0;
  if (error_ == ErrorKind::kNone) {
    const int64_t latency = t - scheduled_ns_ - slept_ns_;
    const int64_t lag = begin_ns_ - scheduled_ns_;
    w_.latency.Record(latency);
    if (w_.throttle_delay_us > 0) w_.lag.Record(lag);
    interval.RecordSuccess(latency, lag, tries_);
    w_.totals.RecordSuccess(latency, lag, tries_);
    sstats.RecordSuccess(latency, lag, tries_);
    if (script.latency) script.latency->Record(latency);
    if (config_.latency_limit_us > 0 && latency > config_.latency_limit_us * 1000) {
      ++w_.latency_late;
    }
    latency_us = static_cast<double>(latency) / 1000.0;
    lag_us = static_cast<double>(lag) / 1000.0;
  } else {
    const stats::FailureKind kind = ToFailureKind(error_);
    interval.RecordFailure(kind, tries_);
    w_.totals.RecordFailure(kind, tries_);
    sstats.RecordFailure(kind, tries_);
    outcome = error_ == ErrorKind::kDeadlock ? TxnOutcome::kDeadlock : TxnOutcome::kSerialization;
  }
  ++cnt_;
  if (w_.log) {
    w_.log->Log(id_, cnt_, script_index_, outcome, latency_us, lag_us, tries_, w_.EpochUs(t));
  }
  error_ = ErrorKind::kNone;

  const TxStatus tx = io_->Status();
  if (tx == TxStatus::kInTransaction || tx == TxStatus::kInError) {
    Abort(msg::Aborted(id_, "end of script reached without completing the last transaction"));
    return;
  }
  if (tx != TxStatus::kIdle) {
    Abort(msg::AbortedWhile(id_, "receiving the transaction status"));
    return;
  }
  if (config_.connect_per_transaction) {
    const int64_t t0 = w_.Now();
    Close();
    w_.conn_ns += w_.Now() - t0;
  }
  const int64_t nxacts = config_.transactions_per_client;
  if ((nxacts > 0 && cnt_ >= nxacts) || w_.timer_exceeded || w_.stopping) {
    Finish();
    return;
  }
  state_ = ClientState::kReady;
  // A script that touched the network goes straight on; one made only of
  // meta-commands yields to the loop so it cannot starve the others.
  if (io_this_txn_) {
    StartTransaction();
  } else {
    w_.ready.push_back(this);
  }
}

void Session::RecordSkipped() {
  w_.totals.RecordSkipped();
  w_.series.At(w_.now).RecordSkipped();
  w_.script_stats[static_cast<size_t>(script_index_)].totals.RecordSkipped();
  ++cnt_;
  if (w_.log) {
    w_.log->Log(id_, cnt_, script_index_, TxnOutcome::kSkipped, 0, 0, 1, w_.EpochUs(w_.now));
  }
}

}  // namespace pgrig::engine
