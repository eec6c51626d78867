// Session: one client's state machine (pgbench's CSTATE_* in spirit), and
// WorkerState, what the sessions of one worker thread share.
//
//   kConnecting ──► kReady ──► (kThrottling) ──► kPreparing? ──► kRunning
//        ▲             ▲                                     │    ▲  │
//        │ (-C)        │                            SQL sent │    │  │ \sleep
//        └─────────────┴── end of transaction ◄── kWaiting ◄─┘    │  ▼
//                                                   │ 40001/40P01  kSleeping
//                                                   ▼
//                                              kRollingBack ──► retry (kRunning)
//                                                             or failure (end)
//   any state ──► kAborted (other SQL error, lost connection, script error)
//   kReady ──► kDone (-t reached, -T elapsed, stop requested)
//
// kRunning is transient: script::ScriptRunner executes meta-commands until
// the script needs the network or a timer.  A session talks to the server
// through one Transport (transport.h): LibpqTransport always connects and
// prepares; after connecting the session hands the connection to the
// LeanTransport when the worker's scripts allow it (WorkerState::lean_scripts)
// and the connection does (LeanTransport::Adopt).  The transport reports the
// server's answers as protocol facts through the ResultSink this class
// implements; what each fact means in each state (count a result, note a
// retryable error, abort, roll back, retry, end the transaction) is decided
// here, once for both transports.  Pipelines and \gset/\aset use the libpq
// transport's extras, as only it serves such scripts.
//
// Accounting (histograms, counters, per-script and per-command stats, the
// -l log), timers (\sleep, -R), -T/-t ends and -L skips go into WorkerState.
// The code is split in two files: session.cc (connecting, stepping through
// the script, sending) and session_results.cc (the facts, errors, retries,
// the end of a transaction).
//
// Sessions and their WorkerState belong to one worker thread (worker.h); not
// thread-safe.  WorkerState reaches other threads only through Shared.
#ifndef PGRIG_ENGINE_SESSION_H_
#define PGRIG_ENGINE_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/poller.h"
#include "engine/result.h"
#include "engine/shared.h"
#include "engine/transport_lean.h"
#include "engine/transport_libpq.h"
#include "engine/txn_log.h"
#include "script/prng.h"
#include "script/runner.h"
#include "script/variables.h"
#include "stats/histogram.h"
#include "stats/time_series.h"

namespace pgrig::engine {

class Session;

// What a worker's sessions share: the run's settings, the poller, the loop's
// clock and timers, and the accounting.  Owned by the Worker.
struct WorkerState {
  WorkerState(Shared* shared_in, script::Prng choose, script::Prng throttle);

  Shared* shared;
  const EngineConfig& config;
  Poller poller;
  std::vector<std::vector<std::string>> prepared_names;  // [script][command]: P_0, P_1, ...
  bool lean_scripts = false;                             // every script can take the lean transport
  script::Prng choose_rng;
  script::Prng throttle_rng;
  double throttle_delay_us = 0;  // -R: mean delay per thread; 0 without -R
  int64_t throttle_trigger_ns = 0;

  // The loop.
  int64_t now = 0;
  bool timer_exceeded = false;  // -T elapsed
  bool stopping = false;        // stop requested
  int remaining = 0;            // sessions not done or aborted
  struct Timer {
    int64_t when_ns;
    uint64_t seq;
    Session* session;
    bool operator>(const Timer& o) const { return when_ns > o.when_ns; }
  };
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers;
  uint64_t timer_counter = 0;
  std::vector<Session*> ready;  // sessions to start on the next loop turn

  // Accounting.
  stats::IntervalStats totals;
  stats::BatchedHistogram latency;  // flushed at the end of Worker::Run
  stats::BatchedHistogram lag;
  stats::TimeSeries series;
  std::vector<ScriptStats> script_stats;
  int64_t latency_late = 0;
  int64_t conn_ns = 0;
  int aborted = 0;
  int finished = 0;
  int lean_connections = 0;  // sessions that took the lean transport at least once
  std::string first_abort;
  std::unique_ptr<TxnLog> log;
  int64_t epoch_shift_ns = 0;

  int64_t Now();
  int64_t EpochUs(int64_t mono_ns) const { return (mono_ns + epoch_shift_ns) / 1000; }
  const std::string& PreparedName(int script, int command) const {
    return prepared_names[static_cast<size_t>(script)][static_cast<size_t>(command)];
  }
};

enum class ClientState : uint8_t {
  kConnecting,
  kReady,
  kThrottling,
  kPreparing,
  kRunning,
  kWaiting,
  kSleeping,
  kRollingBack,
  kDone,
  kAborted,
};

class Session final : public ResultSink {
 public:
  Session(WorkerState* w, int id, script::Variables vars, script::Prng rng,
          script::ScriptRunner::Options runner_options);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int id() const { return id_; }
  ClientState state() const { return state_; }
  bool ended() const { return state_ == ClientState::kDone || state_ == ClientState::kAborted; }
  // In a \sleep with no transaction block open (EngineConfig::untimed_sleeps
  // ends such sessions when -T ends).
  bool SleepingOutsideTransaction() const;

  // Connecting before the run: StartConnect, then ConnectStep at each event
  // until *done (false: failed; ConnectError() says why).  Ready() then
  // chooses the transport and makes the session kReady.
  bool StartConnect();
  bool ConnectStep(bool* done);
  std::string ConnectError() const { return libpq_.LastError(); }
  void Ready();

  // The loop's entry points.
  void Start();             // the run begins: the first transaction (or the end)
  void StartTransaction();  // kReady: the next transaction (or the end)
  void OnTimer(uint64_t seq);
  void OnEvents(uint32_t events);
  void OnRecv(int res);
  void OnSendFailed(int res);
  void Finish();
  void Abort(const std::string& message);
  void Close();

  // ResultSink (session_results.cc).
  Awaiting awaiting() const override;
  void OnReceiving() override;
  bool OnResult(const Rows& rows) override;
  bool OnError(ErrorKind kind, std::string_view text) override;
  bool OnPipelineSync() override;
  bool OnCopy() override;
  bool OnUnexpected(char type) override;
  void OnCommandEnd() override;
  void OnLost(std::string_view why) override;
  void OnReadFailed(std::string_view why) override;

 private:
  // session.cc
  void ChooseTransport();
  void BeginTransaction();
  bool SendPrepare();
  void StartScript(int64_t begin_ns);
  void RunScript();
  bool SendCommand();
  void SetTimer(int64_t when_ns, ClientState state);
  void RecordCommandTime();
  void CommandDone();
  // session_results.cc
  bool StoreRow(const Rows& rows, bool aset);
  void HandleError();
  void NoteRetryableError(ErrorKind kind, std::string_view text);
  bool CanRetry();
  void EndTransaction();
  void RecordSkipped();
  bool AbortInQuery(int query, std::string_view text);

  WorkerState& w_;
  const EngineConfig& config_;
  int id_;
  ClientState state_ = ClientState::kConnecting;
  PollSlot slot_;
  LibpqTransport libpq_;
  LeanTransport lean_;
  Transport* io_;  // &libpq_ or &lean_
  bool was_lean_ = false;
  script::Variables vars_;
  script::Prng rng_;
  script::ScriptRunner runner_;

  int script_index_ = 0;
  int64_t cnt_ = 0;  // ended or skipped transactions (pgbench's st->cnt)
  int64_t scheduled_ns_ = 0;
  int64_t begin_ns_ = 0;
  int64_t sleep_begin_ns_ = 0;  // when the current \sleep started
  int64_t slept_ns_ = 0;        // EngineConfig::untimed_sleeps: slept in this transaction
  int64_t cmd_begin_ns_ = 0;
  int64_t connect_begin_ns_ = 0;
  uint64_t timer_seq_ = 0;
  uint32_t tries_ = 1;
  ErrorKind error_ = ErrorKind::kNone;
  int error_command_ = -1;
  int query_index_ = 0;  // result number within the current command
  bool io_this_txn_ = false;
  std::vector<bool> prepared_;  // per script
  int prepare_next_ = 0;        // next command to prepare
  // Pipeline mode: the number of sync points sent but not yet read.
  int pipeline_syncs_ = 0;
  bool pipeline_ending_ = false;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_SESSION_H_
