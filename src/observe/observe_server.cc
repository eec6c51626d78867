#include "observe/observe_server.h"

#include <algorithm>
#include <utility>

#include "common/clock.h"
#include "common/strings.h"

namespace pgrig::observe {
namespace {

constexpr const char* kDatabaseSql =
    "SELECT xact_commit, xact_rollback, blks_hit, blks_read, tup_returned, tup_fetched,"
    " tup_inserted, tup_updated, tup_deleted, temp_bytes, deadlocks"
    " FROM pg_stat_database WHERE datname = $1";
// PostgreSQL 13-16: one view.
// Every query takes the database name as $1 (unused by the server-wide ones),
// so that all run the same way.
constexpr const char* kBgwriterSql =
    "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean,"
    " buffers_backend FROM pg_stat_bgwriter WHERE $1::text IS NOT NULL";
// PostgreSQL 17+: the checkpointer has its own view; backend writes went to pg_stat_io.
constexpr const char* kCheckpointerSql =
    "SELECT c.num_timed, c.num_requested, c.buffers_written, b.buffers_clean, NULL"
    " FROM pg_stat_checkpointer c, pg_stat_bgwriter b WHERE $1::text IS NOT NULL";
constexpr const char* kWalSql =
    "SELECT CASE WHEN pg_is_in_recovery() THEN NULL"
    " ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint END WHERE $1::text IS NOT NULL";
// Sessions of other roles are hidden from a role without pg_read_all_stats
// (state and wait columns NULL): they are counted apart, under "?".
constexpr const char* kHiddenKey = "?";
constexpr const char* kWaitSql =
    "SELECT CASE WHEN query = '<insufficient privilege>' THEN '?'"
    " ELSE coalesce(wait_event_type || ':' || wait_event, 'CPU') END, count(*)"
    " FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()"
    " AND (query = '<insufficient privilege>'"
    "      OR (state = 'active' AND backend_type = 'client backend'))"
    " GROUP BY 1";

std::optional<int64_t> Int(const pg::QueryResult& r, int row, int col) {
  if (r.IsNull(row, col)) return std::nullopt;
  return ParseInt64(r.Get(row, col));
}

double Rate(int64_t a, int64_t b, double dt) {
  return b >= a && dt > 0 ? static_cast<double>(b - a) / dt : 0.0;
}

}  // namespace

ServerSampler::ServerSampler(pg::Connection conn, std::string database)
    : conn_(std::move(conn)), cancel_(PQgetCancel(conn_.raw())), database_(std::move(database)) {
  version_ = conn_.server_version();
}

void ServerSampler::Abandon() {
  if (abandoned_->exchange(true)) return;
  char err[256];
  if (cancel_) (void)PQcancel(cancel_.get(), err, sizeof err);
}

Result<ServerSampler> ServerSampler::Connect(const pg::ConnectionParams& params,
                                             const std::string& database) {
  pg::ConnectionParams p = params;
  p.application_name = params.application_name + "-observer";
  bool has_timeout = std::any_of(p.extra.begin(), p.extra.end(),
                                 [](const auto& kv) { return kv.first == "connect_timeout"; });
  if (!has_timeout) p.extra.emplace_back("connect_timeout", "5");
  auto conn = pg::Connect(p);
  if (!conn.ok()) return conn.status().WithContext("observer");
  auto set = conn->Exec("SET statement_timeout = '2s'");
  if (!set.ok()) return set.status().WithContext("observer");
  std::string db = database;
  if (db.empty()) {
    auto cur = conn->QueryValue("SELECT current_database()");
    if (!cur.ok()) return cur.status().WithContext("observer");
    db = *cur;
  }
  ServerSampler s(std::move(*conn), std::move(db));
  s.Prepare();
  return s;
}

std::string ServerSampler::Sql(Query q) const {
  switch (q) {
    case Query::kDatabase:
      return kDatabaseSql;
    case Query::kBgwriter:
      return version_ >= 170000 ? kCheckpointerSql : kBgwriterSql;
    case Query::kWal:
      return kWalSql;
    case Query::kWaits:
      return kWaitSql;
  }
  return "";
}

void ServerSampler::Prepare() {
  // Prepared once, each poll costs the server an execution only (no parse or
  // plan): about half the CPU of sending the text each time.
  for (Query q : {Query::kDatabase, Query::kBgwriter, Query::kWal, Query::kWaits}) {
    const std::string name = "pgrig_observe_" + std::to_string(static_cast<int>(q));
    PGresult* r = PQprepare(conn_.raw(), name.c_str(), Sql(q).c_str(), 1, nullptr);
    const bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) return;  // e.g. behind a transaction pooler: send the text instead
  }
  prepared_ = true;
}

Result<pg::QueryResult> ServerSampler::Run(Query q) {
  const std::string sql = Sql(q);
  if (!prepared_) return conn_.ExecParams(sql, {database_});
  const std::string name = "pgrig_observe_" + std::to_string(static_cast<int>(q));
  const char* values[1] = {database_.c_str()};
  pg::QueryResult res(PQexecPrepared(conn_.raw(), name.c_str(), 1, values, nullptr, nullptr, 0));
  ExecStatusType st = res.raw() ? PQresultStatus(res.raw()) : PGRES_FATAL_ERROR;
  if (st == PGRES_TUPLES_OK) return res;
  std::string msg = res.raw() ? std::string(Trim(PQresultErrorMessage(res.raw()))) : "";
  if (msg.empty()) msg = std::string(Trim(PQerrorMessage(conn_.raw())));
  return Status(StatusCode::kRuntime, msg + " (while running: " + sql.substr(0, 100) + "...)");
}

bool ServerSampler::Failed(const std::string& what, const Status& st,
                           std::vector<std::string>* notes) {
  if (abandoned_->load()) {
    notes->push_back(
        "server: a monitoring query was still running 1 s after Stop(); it was "
        "cancelled and the final server sample skipped");
    return true;
  }
  if (PQstatus(conn_.raw()) != CONNECTION_OK) {
    alive_ = false;
    notes->push_back("server: the monitoring connection was lost; server sampling stopped: " +
                     st.message());
    return true;
  }
  notes->push_back("server: " + what + " not observed: " + st.message());
  return false;
}

std::optional<WaitPoll> ServerSampler::PollWaits(std::vector<std::string>* notes) {
  if (!alive_ || abandoned_->load()) return std::nullopt;
  auto r = Run(Query::kWaits);
  if (!r.ok()) {
    Failed("wait events (pg_stat_activity)", r.status(), notes);
    return std::nullopt;
  }
  WaitPoll p;
  for (int i = 0; i < r->rows(); ++i) {
    int64_t n = Int(*r, i, 1).value_or(0);
    if (r->Get(i, 0) == kHiddenKey) {
      notes->push_back("server: sessions of other roles in \"" + database_ +
                       "\" are hidden from the monitoring role, so their wait events are not "
                       "counted (grant it pg_read_all_stats)");
      continue;
    }
    p.wait_events[std::string(r->Get(i, 0))] += n;
    p.active_backends += n;
  }
  return p;
}

ServerSnapshot ServerSampler::Take(std::vector<std::string>* notes) {
  ServerSnapshot s;
  s.mono_ns = MonotonicNanos();
  if (!alive_ || abandoned_->load()) return s;

  if (auto r = Run(Query::kDatabase); !r.ok()) {
    if (Failed("pg_stat_database", r.status(), notes)) return s;
  } else if (r->rows() == 0) {
    notes->push_back("server: database \"" + database_ + "\" has no row in pg_stat_database");
  } else {
    int64_t f[11] = {};
    for (int i = 0; i < 11; ++i) f[i] = Int(*r, 0, i).value_or(0);
    s.db = DatabaseCounters{.xact_commit = f[0],
                            .xact_rollback = f[1],
                            .blks_hit = f[2],
                            .blks_read = f[3],
                            .tup_returned = f[4],
                            .tup_fetched = f[5],
                            .tup_inserted = f[6],
                            .tup_updated = f[7],
                            .tup_deleted = f[8],
                            .temp_bytes = f[9],
                            .deadlocks = f[10]};
  }

  if (abandoned_->load()) return s;
  const bool v17 = version_ >= 170000;
  if (auto r = Run(Query::kBgwriter); !r.ok()) {
    if (Failed(v17 ? "pg_stat_checkpointer" : "pg_stat_bgwriter", r.status(), notes)) return s;
  } else if (r->rows() == 1) {
    BgwriterCounters b;
    b.checkpoints_timed = Int(*r, 0, 0).value_or(0);
    b.checkpoints_req = Int(*r, 0, 1).value_or(0);
    b.buffers_checkpoint = Int(*r, 0, 2).value_or(0);
    b.buffers_clean = Int(*r, 0, 3).value_or(0);
    b.buffers_backend = Int(*r, 0, 4);
    if (v17)
      notes->push_back(
          "server: buffers_backend is not observed on PostgreSQL 17+ (it moved to pg_stat_io)");
    s.bgwriter = b;
  }

  if (abandoned_->load()) return s;
  if (auto r = Run(Query::kWal); !r.ok()) {
    if (Failed("WAL position", r.status(), notes)) return s;
  } else if (r->rows() == 1 && r->IsNull(0, 0)) {
    notes->push_back("server: in recovery (a standby); WAL bytes are not observed");
  } else if (r->rows() == 1) {
    s.wal_bytes = Int(*r, 0, 0);
  }

  if (auto p = PollWaits(notes)) {
    s.active_backends = p->active_backends;
    s.wait_events = std::move(p->wait_events);
  }
  return s;
}

ServerSample ServerDelta(const ServerSnapshot& a, const ServerSnapshot& b, double t_s) {
  ServerSample out;
  out.t_s = t_s;
  out.dt_s = static_cast<double>(b.mono_ns - a.mono_ns) * 1e-9;
  const double dt = out.dt_s;
  if (a.db && b.db) {
    const DatabaseCounters& x = *a.db;
    const DatabaseCounters& y = *b.db;
    out.xact_commit_per_s = Rate(x.xact_commit, y.xact_commit, dt);
    out.xact_rollback_per_s = Rate(x.xact_rollback, y.xact_rollback, dt);
    out.blks_hit_per_s = Rate(x.blks_hit, y.blks_hit, dt);
    out.blks_read_per_s = Rate(x.blks_read, y.blks_read, dt);
    out.tup_returned_per_s = Rate(x.tup_returned, y.tup_returned, dt);
    out.tup_fetched_per_s = Rate(x.tup_fetched, y.tup_fetched, dt);
    out.tup_inserted_per_s = Rate(x.tup_inserted, y.tup_inserted, dt);
    out.tup_updated_per_s = Rate(x.tup_updated, y.tup_updated, dt);
    out.tup_deleted_per_s = Rate(x.tup_deleted, y.tup_deleted, dt);
    out.temp_bytes_per_s = Rate(x.temp_bytes, y.temp_bytes, dt);
    out.deadlocks_per_s = Rate(x.deadlocks, y.deadlocks, dt);
  }
  if (a.wal_bytes && b.wal_bytes) out.wal_bytes_per_s = Rate(*a.wal_bytes, *b.wal_bytes, dt);
  if (a.bgwriter && b.bgwriter) {
    const BgwriterCounters& x = *a.bgwriter;
    const BgwriterCounters& y = *b.bgwriter;
    out.checkpoints_timed = std::max<int64_t>(0, y.checkpoints_timed - x.checkpoints_timed);
    out.checkpoints_req = std::max<int64_t>(0, y.checkpoints_req - x.checkpoints_req);
    out.buffers_checkpoint_per_s = Rate(x.buffers_checkpoint, y.buffers_checkpoint, dt);
    out.buffers_clean_per_s = Rate(x.buffers_clean, y.buffers_clean, dt);
    if (x.buffers_backend && y.buffers_backend)
      out.buffers_backend_per_s = Rate(*x.buffers_backend, *y.buffers_backend, dt);
  }
  if (b.active_backends) {
    out.active_backends = static_cast<double>(*b.active_backends);
    out.wait_polls = 1;
    out.wait_events = b.wait_events;
  }
  return out;
}

void ServerWindow::Add(const ServerSnapshot& s) {
  if (!edge_) edge_ = Edge{.first_ns = s.mono_ns, .last_ns = s.mono_ns};
  edge_->last_ns = s.mono_ns;
  if (s.db) {
    if (!db_first_) db_first_ = s.db;
    db_last_ = s.db;
  }
  if (s.bgwriter) {
    if (!bgw_first_) bgw_first_ = s.bgwriter;
    bgw_last_ = s.bgwriter;
  }
  if (s.wal_bytes) {
    if (!wal_first_) wal_first_ = s.wal_bytes;
    wal_last_ = s.wal_bytes;
  }
}

ServerTotals ServerWindow::Totals() const {
  ServerTotals t;
  if (!edge_) return t;
  t.duration_s = static_cast<double>(edge_->last_ns - edge_->first_ns) * 1e-9;
  if (db_first_) {
    const DatabaseCounters& x = *db_first_;
    const DatabaseCounters& y = *db_last_;
    t.database = ServerTotals::Database{.xact_commit = y.xact_commit - x.xact_commit,
                                        .xact_rollback = y.xact_rollback - x.xact_rollback,
                                        .blks_hit = y.blks_hit - x.blks_hit,
                                        .blks_read = y.blks_read - x.blks_read,
                                        .tup_returned = y.tup_returned - x.tup_returned,
                                        .tup_fetched = y.tup_fetched - x.tup_fetched,
                                        .tup_inserted = y.tup_inserted - x.tup_inserted,
                                        .tup_updated = y.tup_updated - x.tup_updated,
                                        .tup_deleted = y.tup_deleted - x.tup_deleted,
                                        .temp_bytes = y.temp_bytes - x.temp_bytes,
                                        .deadlocks = y.deadlocks - x.deadlocks};
  }
  if (wal_first_) t.wal_bytes = *wal_last_ - *wal_first_;
  if (bgw_first_) {
    const BgwriterCounters& x = *bgw_first_;
    const BgwriterCounters& y = *bgw_last_;
    t.bgwriter = ServerTotals::Bgwriter{
        .checkpoints_timed = y.checkpoints_timed - x.checkpoints_timed,
        .checkpoints_req = y.checkpoints_req - x.checkpoints_req,
        .buffers_checkpoint = y.buffers_checkpoint - x.buffers_checkpoint,
        .buffers_clean = y.buffers_clean - x.buffers_clean,
        .buffers_backend = x.buffers_backend && y.buffers_backend
                               ? std::optional<int64_t>(*y.buffers_backend - *x.buffers_backend)
                               : std::nullopt};
  }
  return t;
}

}  // namespace pgrig::observe
