// `pgrig init`'s engine: creates and loads pgbench's tables over several
// connections at once, leaving the database exactly as `pgbench -i` would.
//
// The steps are pgbench's (-I letters d t g G v p f), run in the given order;
// each step is a phase whose work is split into independent tasks that run
// on up to `jobs` connections in parallel:
//   g  every table (and every accounts partition) is its own transaction:
//      TRUNCATE, then a binary COPY ... FREEZE that a thread generates on
//      the fly, so each heap is written once, already frozen and all-visible;
//   v  one VACUUM per table/partition (the parent is analyzed after them);
//   p  one ADD PRIMARY KEY per table/partition (the parent's key then only
//      attaches the partitions' indexes);
//   d t f  as pgbench does them (t in one transaction).
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
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
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
  int connections = 0;            // connections actually opened
  int server_version = 0;
};

class InitObserver {
 public:
  virtual ~InitObserver() = default;
  // From Run()'s thread, around each step.
  virtual void OnStepStart(InitStep step) = 0;
  virtual void OnStepDone(InitStep step, double seconds) = 0;
  // Every SQL statement sent, when options.debug is set; from any thread.
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

 private:
  struct Session;
  using Task = std::function<Status(Session&)>;

  Status RunStep(InitStep step);
  Status DropTables();
  Status CreateTables();
  Status Generate(bool client_side);
  Status Vacuum();
  Status PrimaryKeys();
  Status ForeignKeys();

  // Runs tasks on up to jobs_ connections; returns the first failure.
  Status RunTasks(const std::vector<Task>& tasks);
  Result<Session*> SessionFor(int index);
  Status Exec(Session& s, const std::string& sql);
  Status Rollback(Session& s);
  Result<bool> ForeignKeysExist(Session& s);
  Status StreamAccounts(Session& s, const std::string& table, bool freeze, int64_t first,
                        int64_t last, int hash_partition);
  Status CopySmallTables(Session& s, bool freeze);
  Status Cleanup();
  Status Decorate(const Status& s) const;

  bool Partitioned() const {
    return options_.partitions > 0 && options_.partition_method != PartitionMethod::kNone;
  }

  InitOptions options_;
  pg::ConnectionParams params_;
  int jobs_;
  InitObserver* observer_ = nullptr;

  // Sessions are opened lazily by the worker that first needs them and
  // reused by later steps; the mutex guards the vector and cancel handles.
  mutable std::mutex sessions_mu_;
  std::vector<std::unique_ptr<Session>> sessions_;

  std::atomic<bool> cancelled_{false};
  std::atomic<bool> failed_{false};
  std::atomic<int64_t> rows_done_{0};
  std::atomic<int64_t> rows_total_{0};
  // True once step t began in this run: on failure the tables are ours to drop.
  bool created_tables_ = false;
  int server_version_ = 0;
};

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_PGBENCH_LOADER_H_
