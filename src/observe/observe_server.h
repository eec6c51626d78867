// Server side of the Observer: snapshots of PostgreSQL's cumulative
// statistics (pg_stat_database for one database, pg_stat_bgwriter or on 17+
// pg_stat_checkpointer, the WAL insert position) and of what the database's
// active backends wait on (pg_stat_activity), over one monitoring connection;
// and the arithmetic from two snapshots to a ServerSample of rates.
//
// ServerSampler owns its connection and is used by one thread at a time,
// except Abandon(), which any thread may call.  A
// failed query leaves that part of the snapshot empty with a note; a lost
// connection ends the sampling with a note.  The free functions are pure.
#ifndef PGRIG_OBSERVE_OBSERVE_SERVER_H_
#define PGRIG_OBSERVE_OBSERVE_SERVER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "observe/observation.h"
#include "pg/connection.h"

namespace pgrig::observe {

struct DatabaseCounters {
  int64_t xact_commit = 0, xact_rollback = 0, blks_hit = 0, blks_read = 0;
  int64_t tup_returned = 0, tup_fetched = 0, tup_inserted = 0, tup_updated = 0, tup_deleted = 0;
  int64_t temp_bytes = 0, deadlocks = 0;
};

struct BgwriterCounters {
  int64_t checkpoints_timed = 0, checkpoints_req = 0;
  int64_t buffers_checkpoint = 0, buffers_clean = 0;
  std::optional<int64_t> buffers_backend;  // not in PostgreSQL 17+
};

struct ServerSnapshot {
  int64_t mono_ns = 0;
  std::optional<DatabaseCounters> db;
  std::optional<BgwriterCounters> bgwriter;
  std::optional<int64_t> wal_bytes;  // WAL position as a byte count (pg_wal_lsn_diff from 0/0)
  std::optional<int64_t> active_backends;      // from one poll of pg_stat_activity
  std::map<std::string, int64_t> wait_events;  // "IO:DataFileRead" -> backends; "CPU": not waiting
};

// One poll of pg_stat_activity.
struct WaitPoll {
  int64_t active_backends = 0;
  std::map<std::string, int64_t> wait_events;
};

class ServerSampler {
 public:
  // Connects with application_name "<params' name>-observer" ("pgrig-observer")
  // and a 2 s statement timeout.  `database` "" follows the connection's own database.
  static Result<ServerSampler> Connect(const pg::ConnectionParams& params,
                                       const std::string& database);

  // Reads one snapshot (counters and a wait poll); parts that fail are left
  // empty with a note.
  ServerSnapshot Take(std::vector<std::string>* notes);
  // Polls the wait events only (between snapshots); nullopt when it failed.
  std::optional<WaitPoll> PollWaits(std::vector<std::string>* notes);
  // Thread-safe: cancels the query in flight (a cancel request to the server)
  // and makes every later Take() return at once with nothing read.
  void Abandon();
  bool alive() const { return alive_; }
  int backend_pid() const { return PQbackendPID(conn_.raw()); }
  const std::string& database() const { return database_; }

 private:
  ServerSampler(pg::Connection conn, std::string database);
  enum class Query { kDatabase, kBgwriter, kWal, kWaits };
  std::string Sql(Query q) const;
  void Prepare();
  Result<pg::QueryResult> Run(Query q);
  // Records a failed query: true when sampling must end (connection lost or abandoned).
  bool Failed(const std::string& what, const Status& st, std::vector<std::string>* notes);

  struct CancelDeleter {
    void operator()(PGcancel* c) const { PQfreeCancel(c); }
  };

  pg::Connection conn_;
  std::unique_ptr<PGcancel, CancelDeleter> cancel_;
  // Behind a pointer so that the sampler stays movable.
  std::unique_ptr<std::atomic<bool>> abandoned_ = std::make_unique<std::atomic<bool>>(false);
  std::string database_;
  int version_ = 0;
  bool prepared_ = false;
  bool alive_ = true;
};

// The sample for the interval from `a` to `b` (rates per second of b - a;
// wait events and active backends from b's poll, as one poll).
ServerSample ServerDelta(const ServerSnapshot& a, const ServerSnapshot& b, double t_s);

// Window totals: for each counter group, its last value minus its first over
// the snapshots added (groups never read are left out).
class ServerWindow {
 public:
  void Add(const ServerSnapshot& s);
  ServerTotals Totals() const;

 private:
  struct Edge {
    int64_t first_ns = 0, last_ns = 0;
  };
  std::optional<DatabaseCounters> db_first_, db_last_;
  std::optional<BgwriterCounters> bgw_first_, bgw_last_;
  std::optional<int64_t> wal_first_, wal_last_;
  std::optional<Edge> edge_;
};

}  // namespace pgrig::observe

#endif  // PGRIG_OBSERVE_OBSERVE_SERVER_H_
