// Worker: one engine thread, its epoll loop and its clients' state machines.
//
// Client state machine (one per connection; pgbench's CSTATE_* in spirit):
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
// kRunning is transient: the script runner executes meta-commands until it
// needs the network or a timer.  kWaiting reads results only when epoll
// reports the socket readable, so a transaction costs about one send and
// one receive system call, plus a share of one epoll_wait.
//
// Two ways to talk to the server, chosen per connection once it is open: the
// lean path (Client::wire) writes protocol messages and parses the answers
// itself (pg/wire.h), never building a PGresult; the libpq path serves
// scripts that need more (\gset, \aset, pipelines) and encrypted
// connections.  Both share the state machine; libpq always connects and
// prepares statements.
//
// The worker owns its connections, histograms, counters and log file; it
// shares only the read-only config and the Shared block (atomics, the
// progress mailbox, the message mutex).  Not thread-safe: Run() is the
// thread's body.
#ifndef PGRIG_ENGINE_WORKER_H_
#define PGRIG_ENGINE_WORKER_H_

#include <libpq-fe.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/result.h"
#include "engine/ring.h"
#include "engine/txn_log.h"
#include "pg/wire.h"
#include "script/prng.h"
#include "script/runner.h"
#include "script/variables.h"
#include "stats/histogram.h"
#include "stats/time_series.h"

namespace pgrig::engine {

// State shared by the workers of one run.
struct Shared {
  const EngineConfig* config = nullptr;
  int64_t total_weight = 0;
  int64_t start_ns = 0;  // before connections (pgbench's start_time)
  int64_t end_ns = 0;    // -T: when to stop; 0 with -t
  std::atomic<int64_t> bench_start_ns{0};  // set once, when every worker is connected
  std::atomic<bool> setup_failed{false};
  std::barrier<>* connected = nullptr;
  std::mutex message_mu;
  std::string setup_error;  // guarded by message_mu

  // Lines for config->on_message: pgbench's log lines without the program
  // name.  Message() is pgbench's info level (the line as is); Error() its
  // error level, passed on as "error: <line>" so that the caller prints
  // "<program>: error: <line>" as pgbench does.
  void Message(const std::string& line);
  void Error(const std::string& line);
  void SetupError(const std::string& message);
};

// A worker's hand-off of finished progress intervals to the reporting thread.
struct Mailbox {
  std::mutex mu;
  std::vector<stats::IntervalStats> intervals;  // guarded by mu
  bool finished = false;                        // guarded by mu
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

enum class ErrorKind : uint8_t { kNone, kSerialization, kDeadlock, kOther };

struct Client {
  Client(int id_in, script::Variables vars_in, script::Prng rng_in,
         script::ScriptRunner::Options runner_options)
      : id(id_in),
        vars(std::move(vars_in)),
        rng(rng_in),
        runner(runner_options, &vars, &rng) {}
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  int id;
  ClientState state = ClientState::kConnecting;
  PGconn* conn = nullptr;
  int fd = -1;               // registered with epoll
  uint32_t epoll_mask = 0;   // events registered
  bool want_write = false;   // output pending in libpq's buffer
  script::Variables vars;
  script::Prng rng;
  script::ScriptRunner runner;

  int script_index = 0;
  int64_t cnt = 0;  // ended or skipped transactions (pgbench's st->cnt)
  int64_t scheduled_ns = 0;
  int64_t begin_ns = 0;
  int64_t cmd_begin_ns = 0;
  int64_t wake_ns = 0;
  int64_t connect_begin_ns = 0;
  uint64_t timer_seq = 0;
  uint32_t tries = 1;
  ErrorKind error = ErrorKind::kNone;
  int error_command = -1;
  int query_index = 0;   // result number within the current command
  bool io_this_txn = false;
  std::vector<bool> prepared;  // per script
  int prepare_next = 0;        // next command to prepare
  PGresult* gset_result = nullptr;
  // Pipeline mode: the number of sync points sent but not yet read.
  int pipeline_syncs = 0;
  bool pipeline_ending = false;

  // The lean path: set when the connection opens (Worker::ChooseWire).
  bool wire = false;
  bool wire_utf8 = true;     // client encoding UTF-8 (else single-byte)
  std::string wire_out;      // messages written, from wire_out_sent on not yet sent
  size_t wire_out_sent = 0;
  pg::WireReader wire_in;
  char tx_status = 'I';      // the last ReadyForQuery's transaction status
  int sock = -1;             // the connection's socket
  bool was_wire = false;     // took the lean path at least once
  // With the ring: a receive is pending into recv_buf (kept for the run).
  bool recv_armed = false;
  std::unique_ptr<char[]> recv_buf;
};

class Worker {
 public:
  Worker(Shared* shared, int thread_index, std::vector<std::unique_ptr<Client>> clients,
         script::Prng choose_rng, script::Prng throttle_rng, script::Prng sample_rng,
         Mailbox* mailbox);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Run();

  // Results, valid after Run() returned.
  const stats::IntervalStats& totals() const { return totals_; }
  const stats::Histogram& latency() const { return latency_; }
  const stats::Histogram& lag() const { return lag_; }
  const stats::TimeSeries& series() const { return series_; }
  const std::vector<ScriptStats>& script_stats() const { return script_stats_; }
  int64_t latency_late() const { return latency_late_; }
  int64_t conn_total_ns() const { return conn_ns_; }
  int64_t bench_start_ns() const { return bench_start_; }
  int aborted() const { return aborted_; }
  int lean_connections() const { return lean_connections_; }
  bool used_ring() const { return used_ring_; }
  int finished() const { return finished_; }
  const std::string& first_abort() const { return first_abort_; }

 private:
  // Setup.
  bool ConnectAll();
  bool StartConnect(Client& c);
  // Returns false when the connection failed.
  bool PollConnect(Client& c, bool* done);
  void Watch(Client& c, uint32_t events);
  void Unwatch(Client& c);

  // The state machine.
  void Drive(Client& c);  // runs transient states until the client blocks
  void StartTransaction(Client& c);
  void BeginTransaction(Client& c);
  void RunScript(Client& c);
  bool SendCommand(Client& c);
  bool SendPrepare(Client& c);
  void OnSocket(Client& c, uint32_t events);
  void ReadResults(Client& c);
  void ReadPipelineResults(Client& c);
  void ReadPrepareResults(Client& c);
  void ReadRollbackResults(Client& c);
  bool HandleResult(Client& c, PGresult* res);
  bool StoreGset(Client& c, PGresult* res, bool aset);
  void CommandDone(Client& c);
  void RecordCommandTime(Client& c);
  void HandleError(Client& c);
  void NoteRetryableError(Client& c, ErrorKind kind, const std::string& text);
  bool CanRetry(const Client& c);
  void EndTransaction(Client& c);
  void RecordSkipped(Client& c);
  void Finish(Client& c);
  void Abort(Client& c, const std::string& message);
  void CloseConnection(Client& c);
  void Flush(Client& c);
  PGTransactionStatusType TxStatus(const Client& c) const;

  // The lean path (see the top of this file).
  void ChooseWire(Client& c);
  bool WireSendCommand(Client& c);
  bool WireFlush(Client& c);
  void OnWireSocket(Client& c, uint32_t events);
  void OnWireRecv(Client& c, int res);
  void WireDispatch(Client& c);
  void WireLost(Client& c, const std::string& why);
  void ArmRecv(Client& c);
  void RingTurn(int64_t wait_ns, bool* epoll_ready);
  void WireReadResults(Client& c);
  void WireReadRollback(Client& c);
  void WireNotice(std::string_view body);
  std::string WireErrorText(const Client& c, std::string_view body, ErrorKind* kind) const;
  void SetTimer(Client& c, int64_t when_ns, ClientState state);

  // Loop helpers.
  int64_t Now() {
    now_ = MonotonicNanosCached();
    return now_;
  }
  static int64_t MonotonicNanosCached();
  void CheckTime();
  void PublishIntervals(bool final_publish);
  const std::string& PreparedName(int script, int command) const {
    return prepared_names_[static_cast<size_t>(script)][static_cast<size_t>(command)];
  }
  int64_t EpochUs(int64_t mono_ns) const { return (mono_ns + epoch_shift_ns_) / 1000; }

  Shared* shared_;
  const EngineConfig& config_;
  int thread_index_;
  std::vector<std::unique_ptr<Client>> clients_;
  script::Prng choose_rng_;
  script::Prng throttle_rng_;
  Mailbox* mailbox_;
  std::vector<std::vector<std::string>> prepared_names_;  // [script][command]
  bool wire_scripts_ = false;  // every script can take the lean path
  int epfd_ = -1;
  std::unique_ptr<Ring> ring_;   // the lean path's I/O, when available
  bool epoll_polled_ = false;    // the ring has a poll pending on epfd_
  int armed_recvs_ = 0;
  bool used_ring_ = false;
  int lean_connections_ = 0;  // clients that took the lean path at least once
  int remaining_ = 0;
  int64_t now_ = 0;
  bool timer_exceeded_ = false;
  bool stopping_ = false;
  int64_t stop_deadline_ns_ = 0;
  int64_t throttle_trigger_ns_ = 0;
  double throttle_delay_us_ = 0;
  int64_t next_publish_ns_ = 0;
  int64_t published_ = 0;  // intervals handed to the mailbox
  int64_t epoch_shift_ns_ = 0;
  int64_t bench_start_ = 0;

  struct Timer {
    int64_t when_ns;
    uint64_t seq;
    Client* client;
    bool operator>(const Timer& o) const { return when_ns > o.when_ns; }
  };
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  std::vector<Client*> ready_;  // clients to drive on the next loop turn
  uint64_t timer_counter_ = 0;

  stats::IntervalStats totals_;
  stats::Histogram latency_;
  stats::Histogram lag_;
  stats::TimeSeries series_;
  std::vector<ScriptStats> script_stats_;
  int64_t latency_late_ = 0;
  int64_t conn_ns_ = 0;
  int aborted_ = 0;
  int finished_ = 0;
  std::string first_abort_;
  std::unique_ptr<TxnLog> log_;
  script::Prng sample_rng_;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_WORKER_H_
