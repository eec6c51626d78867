// `pgrig init`'s engine: creates and loads pgbench's tables over several
// connections at once, leaving the database exactly as `pgbench -i` would.
//
// The steps are pgbench's (-I letters d t g G v p f), run in the given order;
// each step is a phase whose work is split into independent tasks that run
// on up to `jobs` connections in parallel:
//   g  every table (and every accounts partition) is its own transaction:
//      TRUNCATE, then a binary COPY ... FREEZE that a thread generates on
//      the fly, so each heap is written once, already frozen and all-visible.
//      An unpartitioned pgbench_accounts that step t would create right
//      before is created by its load transaction instead of truncated
//      there: FREEZE applies all the same, and the commit, which is the
//      load's last statement, deletes no old file (a TRUNCATE's commit
//      scans every shared buffer and flushes WAL; a backend's first scan
//      of a large pool is slow while it faults the buffer descriptors in).
//      When a later p step will key the tables this run created (and no
//      step in between drops, creates or reloads them), the key strategy
//      (init_key_strategy.h, chosen from the server's wal_level) may have
//      the load transaction key the table: on the empty table before COPY
//      (kDuringLoad: ascending aids make row-by-row maintenance cheap when
//      nothing is WAL-logged) or right after COPY (kAfterEachLoad: one
//      sorted build per partition, overlapping the other loads); the p
//      step then only attaches partition indexes.  kSeparateStep leaves
//      the keys to step p, as pgbench does.  At wal_level = minimal every
//      session sets backend_flush_after, so that the heap's writeback runs
//      during the load instead of inside the commit's fsync;
//   v  one VACUUM per table/partition (the parent is analyzed after them);
//   p  one ADD PRIMARY KEY per table/partition (the parent's key then only
//      attaches the partitions' indexes);
//   d  the old tables (with their partitions) are moved into a new schema
//      of their own in one short transaction and dropped from there by a
//      background connection while the next steps run: dropping a large,
//      checkpointed table costs the server a fraction of a second of
//      freeing file pages, which then overlaps the load.  When anything
//      outside the pgbench tables depends on them (a view, a foreign key
//      from another table), or the server or privileges do not allow it,
//      step d is pgbench's plain DROP TABLE, with its errors.  Run() waits
//      for the background drop before it returns; schemas left by a killed
//      run are dropped by the next step d;
//   t f  as pgbench does them (t in one transaction; see g for accounts).
// When foreign keys already tie the tables together, or the tables were not
// created by this run (their layout may differ from the options), step g/G
// falls back to pgbench's single transaction.
//
// Failure: the first error stops the run and cancels the other connections'
// statements; every load transaction rolls back; if this run created the
// tables (step t), they are dropped again, so a failed init leaves no
// half-loaded tables behind.
//
// Thread-safety: Run() is called once, from one thread.  Cancel() and
// Progress() may be called from any thread while Run() executes.  The
// observer is called from Run()'s thread (steps) and from worker threads
// (statements, with -d); it must be thread-safe.
#ifndef PGRIG_WORKLOAD_PGBENCH_LOADER_H_
#define PGRIG_WORKLOAD_PGBENCH_LOADER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "workload/init_key_strategy.h"
#include "workload/pgbench_init_options.h"

namespace pgrig::workload {

enum class InitStep {
  kDropTables,
  kCreateTables,
  kClientGenerate,
  kServerGenerate,
  kVacuum,
  kPrimaryKeys,
  kForeignKeys,
};

// pgbench's names: "drop tables", "create tables", "client-side generate",
// "server-side generate", "vacuum", "primary keys", "foreign keys".
const char* InitStepName(InitStep step);
// The step for a -I letter; nullopt for ' ' (ignored) and unknown letters.
std::optional<InitStep> InitStepFromLetter(char letter);

struct StepTiming {
  InitStep step;
  double seconds = 0;
};

struct InitReport {
  std::vector<StepTiming> steps;  // in execution order
  double total_seconds = 0;       // sum of the steps, as pgbench reports it
  // The primary keys were built during step g (their time is in g's).
  bool keys_built_during_load = false;
  // When a g step chose how the keys of a later p step are built: the
  // choice and why.
  std::optional<KeyStrategyChoice> key_strategy;
  // Step d's old tables were dropped in the background, overlapping later
  // steps; drop_wait_seconds is how long Run() waited for it at the end
  // (included in "drop tables" and in the total).
  bool dropped_in_background = false;
  double drop_wait_seconds = 0;
  // Things the user should know that did not fail the run.
  std::vector<std::string> notes;
  int connections = 0;  // connections actually opened
  int server_version = 0;
};

class InitObserver {
 public:
  virtual ~InitObserver() = default;
  // From Run()'s thread, around each step.
  virtual void OnStepStart(InitStep step) = 0;
  virtual void OnStepDone(InitStep step, double seconds) = 0;
  // Every SQL statement sent, when options.debug is set; from any thread.
  // connection is -1 for step d's background drop.
  virtual void OnStatement(int connection, const std::string& sql) { (void)connection, (void)sql; }
};

struct InitProgress {
  int64_t rows_done = 0;   // pgbench_accounts rows sent so far in step g
  int64_t rows_total = 0;  // pgbench_accounts rows step g will send
};

class PgbenchLoader {
 public:
  // options.jobs == 0 means one connection per core.
  PgbenchLoader(InitOptions options, pg::ConnectionParams params);
  ~PgbenchLoader();
  PgbenchLoader(const PgbenchLoader&) = delete;
  PgbenchLoader& operator=(const PgbenchLoader&) = delete;

  // Runs all steps.  Errors: kUnavailable (cannot connect / connection
  // lost), kResourceExhausted (disk full), kAborted (Cancel()), kRuntime
  // (other server errors), each with a message saying what to do.
  Result<InitReport> Run(InitObserver* observer);

  // Stops a running Run() as soon as possible (it then fails with kAborted
  // after cleaning up).  Async-signal-unsafe; call it from a normal thread.
  void Cancel();

  InitProgress Progress() const;

  int jobs() const { return jobs_; }

  // Uses `conn`, already open to the same server and database, as the first
  // session rather than connecting again (a new backend costs ~10-25 ms, a
  // few percent of a scale-10 load).  Call before Run(); an invalid `conn`
  // is ignored.
  void AdoptConnection(pg::Connection conn);

 private:
  struct Session;
  using Task = std::function<Status(Session&)>;

  Status RunStep(InitStep step);
  Status DropTables();
  Status CreateTables();
  Status Generate(bool client_side);
  Status Vacuum();
  // The statistics of a partitioned pgbench_accounts (see the .cc).
  Status AnalyzePartitionedAccounts();
  Status PrimaryKeys();
  Status ForeignKeys();

  // Runs tasks on up to jobs_ connections; returns the first failure.
  // Pinned: task i runs on session i (tasks.size() <= jobs_), all at once.
  enum class Placement { kAnySession, kPinned };
  Status RunTasks(const std::vector<Task>& tasks, Placement placement = Placement::kAnySession);
  Result<Session*> SessionFor(int index);
  // SET backend_flush_after on a session (see the .cc); a refusal is ignored.
  void FlushHeapWritesEarly(Session& s);
  Status Exec(Session& s, const std::string& sql);
  Status Rollback(Session& s);
  Result<bool> ForeignKeysExist(Session& s);
  Status StreamAccounts(Session& s, const std::string& table, bool freeze, int64_t first,
                        int64_t last, int hash_partition);
  Status CopySmallTables(Session& s, bool freeze);
  Status Cleanup();
  Status Decorate(const Status& s) const;
  // Step d's fast path; false when it does not apply (nothing was moved).
  Result<bool> MoveTablesAside(Session& s);
  // Waits for the background drop; its failure becomes a note.
  void JoinBackgroundDrop(InitReport* report);

  bool Partitioned() const {
    return options_.partitions > 0 && options_.partition_method != PartitionMethod::kNone;
  }

  // Whether the g step at options_.steps[pos] decides how a later p step's
  // keys are built (see the file comment).
  bool KeysDuringLoad(size_t pos) const;
  // The key strategy for this server and load; asks the server once.
  Result<KeyStrategyChoice> ChooseKeys(Session& s, int accounts_tables);

  InitOptions options_;
  pg::ConnectionParams params_;
  int jobs_;
  InitObserver* observer_ = nullptr;

  // Sessions are opened lazily by the worker that first needs them and
  // reused by later steps; the mutex guards the vector and cancel handles.
  mutable std::mutex sessions_mu_;
  std::vector<std::unique_ptr<Session>> sessions_;
  pg::Connection adopted_;  // AdoptConnection's, until session 0 takes it

  std::atomic<bool> cancelled_{false};
  std::atomic<bool> failed_{false};
  std::atomic<int64_t> rows_done_{0};
  std::atomic<int64_t> rows_total_{0};
  // True once step t created the tables in this run: on failure they are
  // ours to drop (a step t that failed created nothing, and tables that
  // were in its way are left alone).
  bool created_tables_ = false;
  // Step t left pgbench_accounts (one heap) to the g step right after it,
  // whose load transaction creates it with this statement; empty once
  // created.  A heap created in the load's own transaction takes COPY
  // FREEZE without a TRUNCATE, so the commit deletes no old file: no scan
  // of every shared buffer (slow in a backend's first one, while it faults
  // in the buffer descriptors) and no forced WAL flush.
  std::string accounts_ddl_;
  // Position in options_.steps of the step being run.
  size_t step_pos_ = 0;
  // Set by a g step that built the keys, cleared by the p step it serves.
  bool keys_built_ = false;
  std::optional<KeyStrategyChoice> key_choice_;
  // The background drop of step d: the schemas it drops, its thread and
  // its outcome (written by the thread, read after join).
  std::vector<std::string> trash_schemas_;
  std::thread drop_thread_;
  Status drop_status_;
  int server_version_ = 0;
  // wal_level = minimal: every session starts writeback early (FlushHeapWritesEarly).
  bool flush_heap_writes_ = false;
};

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_PGBENCH_LOADER_H_
