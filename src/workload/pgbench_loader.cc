#include "workload/pgbench_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "common/clock.h"
#include "common/enum_names.h"
#include "workload/init_analyze_plan.h"
#include "workload/pgbench_schema.h"

namespace pgrig::workload {

namespace {

// COPY data is handed to libpq in pieces of about this size: large enough
// that per-call overhead vanishes, small enough to stay in L2 and to react
// to Cancel() quickly.
constexpr size_t kCopyChunkBytes = 256 * 1024;

double SecondsSince(int64_t start_ns) {
  return static_cast<double>(MonotonicNanos() - start_ns) / 1e9;
}

}  // namespace

struct PgbenchLoader::Session {
  int index = 0;
  pg::Connection conn;
  PGcancel* cancel = nullptr;

  ~Session() {
    if (cancel) PQfreeCancel(cancel);
  }
};

const char* InitStepName(InitStep step) {
  static constexpr const char* kNames[] = {
      "drop tables", "create tables", "client-side generate", "server-side generate",
      "vacuum",      "primary keys",  "foreign keys"};
  return NameAt<InitStep::kForeignKeys>(step, kNames);
}

std::optional<InitStep> InitStepFromLetter(char letter) {
  switch (letter) {
    case 'd':
      return InitStep::kDropTables;
    case 't':
      return InitStep::kCreateTables;
    case 'g':
      return InitStep::kClientGenerate;
    case 'G':
      return InitStep::kServerGenerate;
    case 'v':
      return InitStep::kVacuum;
    case 'p':
      return InitStep::kPrimaryKeys;
    case 'f':
      return InitStep::kForeignKeys;
    default:
      return std::nullopt;
  }
}

PgbenchLoader::PgbenchLoader(InitOptions options, pg::ConnectionParams params)
    : options_(std::move(options)), params_(std::move(params)) {
  jobs_ = options_.jobs;
  if (jobs_ <= 0) jobs_ = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

PgbenchLoader::~PgbenchLoader() {
  if (drop_thread_.joinable()) drop_thread_.join();
}

InitProgress PgbenchLoader::Progress() const {
  return {.rows_done = rows_done_.load(std::memory_order_relaxed),
          .rows_total = rows_total_.load(std::memory_order_relaxed)};
}

void PgbenchLoader::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(sessions_mu_);
  char err[256];
  for (auto& s : sessions_) {
    if (s && s->cancel) PQcancel(s->cancel, err, sizeof err);
  }
}

void PgbenchLoader::AdoptConnection(pg::Connection conn) { adopted_ = std::move(conn); }

Result<PgbenchLoader::Session*> PgbenchLoader::SessionFor(int index) {
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    const auto at = static_cast<size_t>(index);
    if (sessions_.size() > at && sessions_[at]) {
      return sessions_[at].get();
    }
  }
  if (cancelled_) return Aborted("canceled");
  pg::Connection conn;
  if (index == 0 && adopted_.valid()) {
    conn = std::move(adopted_);
  } else {
    PGRIG_ASSIGN_OR_RETURN(conn, pg::Connect(params_));
  }
  auto s = std::make_unique<Session>();
  s->index = index;
  s->conn = std::move(conn);
  s->cancel = PQgetCancel(s->conn.raw());
  // NOTICEs ("table ... does not exist, skipping") are noise for a loader.
  PGRIG_RETURN_IF_ERROR(Exec(*s, "set client_min_messages = warning"));
  if (flush_heap_writes_) FlushHeapWritesEarly(*s);
  Session* raw = s.get();
  std::lock_guard<std::mutex> lock(sessions_mu_);
  const auto at = static_cast<size_t>(index);
  if (sessions_.size() <= at) sessions_.resize(at + 1);
  sessions_[at] = std::move(s);
  if (cancelled_) {
    char err[256];
    PQcancel(raw->cancel, err, sizeof err);
  }
  return raw;
}

void PgbenchLoader::FlushHeapWritesEarly(Session& s) {
  // With wal_level = minimal a transaction that creates or truncates a table
  // skips WAL for it and must fsync its files at commit.  Left alone, COPY's
  // ring of buffers leaves the whole heap dirty in the kernel's page cache
  // and the commit waits for all of it (about 0.6 s at scale 50 on the
  // machine in docs/performance.md); with backend_flush_after the backend
  // starts the writeback of every 2 MB it writes, during the load, and the
  // commit's fsync finds little left (under 0.1 s).  It changes when pages
  // reach the disk, not what is written.  A server that refuses the value
  // (some platforms accept only 0) loads without it.
  Status ignored = Exec(s, "set backend_flush_after = 256");
  (void)ignored;
}

Status PgbenchLoader::Exec(Session& s, const std::string& sql) {
  if (options_.debug && observer_) observer_->OnStatement(s.index, sql);
  auto r = s.conn.Exec(sql);
  return r.ok() ? Status::Ok() : r.status();
}

Status PgbenchLoader::Rollback(Session& s) {
  auto r = s.conn.Exec("rollback");
  return r.ok() ? Status::Ok() : r.status();
}

Status PgbenchLoader::RunTasks(const std::vector<Task>& tasks, Placement placement) {
  if (tasks.empty()) return Status::Ok();
  const bool pinned = placement == Placement::kPinned;
  if (pinned && tasks.size() > static_cast<size_t>(jobs_)) {
    return Internal("more pinned tasks than sessions");
  }
  const int workers = std::min<int>(jobs_, static_cast<int>(tasks.size()));
  std::atomic<size_t> next{0};
  std::mutex err_mu;
  Status first_error;

  auto record = [&](const Status& st) {
    {
      std::lock_guard<std::mutex> lock(err_mu);
      if (first_error.ok()) first_error = st;
    }
    if (!failed_.exchange(true)) {
      // Stop the siblings' statements now instead of letting them finish a
      // load that will be thrown away.
      std::lock_guard<std::mutex> lock(sessions_mu_);
      char err[256];
      for (auto& s : sessions_) {
        if (s && s->cancel) PQcancel(s->cancel, err, sizeof err);
      }
    }
  };
  auto work = [&](int w) {
    auto session = SessionFor(w);
    if (!session.ok()) {
      record(session.status());
      return;
    }
    while (!failed_ && !cancelled_) {
      const size_t i = pinned ? static_cast<size_t>(w) : next.fetch_add(1);
      if (i >= tasks.size()) break;
      Status st = tasks[i](**session);
      if (!st.ok()) {
        record(st);
        break;
      }
      if (pinned) break;
    }
  };

  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back(work, w);
  work(0);
  for (auto& t : threads) t.join();
  if (cancelled_) return Aborted("canceled");
  return first_error;
}

Result<bool> PgbenchLoader::ForeignKeysExist(Session& s) {
  // (A plain Result rather than PGRIG_ASSIGN_OR_RETURN: GCC 12 warns
  // spuriously about a std::string moved out of a std::variant.)
  Result<std::string> n = s.conn.QueryValue(
      "with t(oid) as (select pg_catalog.to_regclass(n)::oid from pg_catalog.unnest("
      "array['pgbench_accounts','pgbench_branches','pgbench_history','pgbench_tellers']) n) "
      "select pg_catalog.count(*) from pg_catalog.pg_constraint c where c.contype = 'f' "
      "and (c.conrelid in (select oid from t) or c.confrelid in (select oid from t))");
  if (!n.ok()) return n.status();
  return n.value() != "0";
}

Status PgbenchLoader::StreamAccounts(Session& s, const std::string& table, bool freeze,
                                     int64_t first, int64_t last, int hash_partition) {
  std::string sql =
      fmt::format("copy {} from stdin with (format binary{})", table, freeze ? ", freeze" : "");
  if (options_.debug && observer_) observer_->OnStatement(s.index, sql);
  PGRIG_RETURN_IF_ERROR(s.conn.CopyBegin(sql));
  const bool bigint = options_.BigintAids();
  std::string buf;
  buf.reserve(kCopyChunkBytes + 64);
  copy_binary::AppendHeader(buf);
  int64_t pending = 0;
  Status put;
  for (int64_t aid = first; aid <= last; ++aid) {
    if (hash_partition > 0 && HashPartitionOf(aid, options_.partitions, bigint) != hash_partition) {
      continue;
    }
    copy_binary::AppendAccount(buf, aid, bigint);
    ++pending;
    if (buf.size() >= kCopyChunkBytes) {
      put = s.conn.CopyPut(buf);
      buf.clear();
      rows_done_.fetch_add(pending, std::memory_order_relaxed);
      pending = 0;
      if (!put.ok() || cancelled_ || failed_) break;
    }
  }
  if (put.ok() && !cancelled_ && !failed_) {
    copy_binary::AppendTrailer(buf);
    put = s.conn.CopyPut(buf);
    rows_done_.fetch_add(pending, std::memory_order_relaxed);
    if (put.ok()) return s.conn.CopyEnd();
  }
  // Abandon the COPY so that the server rolls the rows back; the status of
  // the statement then carries the server's own error, if it had one.
  PQputCopyEnd(s.conn.raw(), "pgrig init stopped loading");
  Status end = s.conn.CopyEnd();
  if (!put.ok()) return put;
  if (cancelled_) return Aborted("canceled");
  return end.ok() ? Aborted("stopped after another connection failed") : end;
}

Status PgbenchLoader::CopySmallTables(Session& s, bool freeze) {
  const std::string with = freeze ? " with (format binary, freeze)" : " with (format binary)";
  std::string buf;
  PGRIG_RETURN_IF_ERROR(Exec(s, std::string("copy pgbench_branches from stdin") + with));
  copy_binary::AppendHeader(buf);
  for (int64_t bid = 1; bid <= options_.BranchRows(); ++bid) copy_binary::AppendBranch(buf, bid);
  copy_binary::AppendTrailer(buf);
  PGRIG_RETURN_IF_ERROR(s.conn.CopyPut(buf));
  PGRIG_RETURN_IF_ERROR(s.conn.CopyEnd());
  buf.clear();
  PGRIG_RETURN_IF_ERROR(Exec(s, std::string("copy pgbench_tellers from stdin") + with));
  copy_binary::AppendHeader(buf);
  for (int64_t tid = 1; tid <= options_.TellerRows(); ++tid) copy_binary::AppendTeller(buf, tid);
  copy_binary::AppendTrailer(buf);
  PGRIG_RETURN_IF_ERROR(s.conn.CopyPut(buf));
  return s.conn.CopyEnd();
}

Status PgbenchLoader::DropTables() {
  PGRIG_ASSIGN_OR_RETURN(Session * s, SessionFor(0));
  Result<bool> moved = MoveTablesAside(*s);
  if (!moved.ok()) return moved.status();
  if (!moved.value() && trash_schemas_.empty()) return Exec(*s, DropTablesSql());
  if (!moved.value()) PGRIG_RETURN_IF_ERROR(Exec(*s, DropTablesSql()));
  if (drop_thread_.joinable()) drop_thread_.join();  // a second d step
  drop_status_ = Status::Ok();
  std::vector<std::string> schemas = trash_schemas_;
  drop_thread_ = std::thread([this, schemas]() {
    auto c = pg::Connect(params_);
    if (!c.ok()) {
      drop_status_ = c.status();
      return;
    }
    std::string sql = "set client_min_messages = warning";
    for (const std::string& schema : schemas)
      sql += "; drop schema if exists " + schema + " cascade";
    if (options_.debug && observer_) observer_->OnStatement(-1, sql);
    auto r = c->Exec(sql);
    if (!r.ok()) drop_status_ = r.status();
  });
  return Status::Ok();
}

Result<bool> PgbenchLoader::MoveTablesAside(Session& s) {
  trash_schemas_.clear();
  // pg_partition_tree() appeared in PostgreSQL 12.
  if (server_version_ < 120000) return false;
  // Schemas left behind by an init that was killed before its background
  // drop finished: their backend is gone.
  {
    auto left = s.conn.Exec(
        "select n.nspname from pg_catalog.pg_namespace n "
        "where n.nspname ~ '^pgrig_init_trash_[0-9]+$' and pg_catalog.substr(n.nspname, 18)::int "
        "not in (select a.pid from pg_catalog.pg_stat_activity a where a.pid is not null)");
    if (left.ok()) {
      for (int i = 0; i < left->rows(); ++i) trash_schemas_.emplace_back(left->Get(i, 0));
    }
  }
  // The tables pgbench's DROP would drop, their partitions, and whether
  // anything else depends on them (then the plain DROP must decide).
  auto rels = s.conn.Exec(
      "with roots(oid) as (select pg_catalog.to_regclass(n)::oid from "
      "pg_catalog.unnest(array['pgbench_accounts','pgbench_branches','pgbench_history',"
      "'pgbench_tellers']) n), "
      "rels(oid) as (select oid from roots where oid is not null union "
      "select t.relid from roots r, pg_catalog.pg_partition_tree(r.oid) t "
      "where r.oid is not null), "
      "outside(n) as (select pg_catalog.count(*) from pg_catalog.pg_depend d "
      " where d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass "
      " and d.refobjid in (select oid from rels) and d.deptype = 'n' "
      " and not (d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass and "
      "   (select c.conrelid from pg_catalog.pg_constraint c where c.oid = d.objid) "
      "   in (select oid from rels))) "
      "select r.oid::pg_catalog.regclass::text, o.n from rels r, outside o order by r.oid");
  if (!rels.ok() || rels->rows() == 0 || rels->Get(0, 1) != "0") return false;
  const std::string schema = "pgrig_init_trash_" + std::to_string(PQbackendPID(s.conn.raw()));
  std::string sql = "begin; create schema " + schema;
  for (int i = 0; i < rels->rows(); ++i) {
    sql += "; alter table " + std::string(rels->Get(i, 0)) + " set schema " + schema;
  }
  sql += "; commit";
  if (options_.debug && observer_) observer_->OnStatement(s.index, sql);
  auto moved = s.conn.Exec(sql);
  if (!moved.ok()) {
    // No privilege to create a schema, a lock timeout, ...: pgbench's way.
    (void)Rollback(s);
    return false;
  }
  trash_schemas_.push_back(schema);
  return true;
}

void PgbenchLoader::JoinBackgroundDrop(InitReport* report) {
  if (!drop_thread_.joinable()) return;
  const int64_t start = MonotonicNanos();
  drop_thread_.join();
  const double waited = SecondsSince(start);
  report->dropped_in_background = true;
  report->drop_wait_seconds = waited;
  for (auto& st : report->steps) {
    if (st.step == InitStep::kDropTables) {
      st.seconds += waited;
      report->total_seconds += waited;
      break;
    }
  }
  if (!drop_status_.ok()) {
    std::string list;
    for (const auto& t : trash_schemas_) list += (list.empty() ? "" : ", ") + t;
    report->notes.push_back("the old pgbench tables were moved to schema " + list +
                            " but could not be dropped (" + drop_status_.message() +
                            "); the next pgrig init drops them, or run: drop schema " + list +
                            " cascade");
  }
}

Status PgbenchLoader::CreateTables() {
  PGRIG_ASSIGN_OR_RETURN(Session * s, SessionFor(0));
  std::vector<std::string> ddl = CreateTablesSql(options_);
  // One transaction: a failure (a bad tablespace, say) leaves no table.
  PGRIG_RETURN_IF_ERROR(Exec(*s, "begin"));
  // One accounts heap loaded right after this step: its load creates it,
  // unless a pgbench_accounts is in the way (then this step fails on it,
  // as pgbench's would, and not the load).
  size_t next = step_pos_ + 1;
  while (next < options_.steps.size() && options_.steps[next] == ' ') ++next;
  if (!Partitioned() && next < options_.steps.size() &&
      (options_.steps[next] == 'g' || options_.steps[next] == 'G')) {
    Result<std::string> absent =
        s->conn.QueryValue("select pg_catalog.to_regclass('pgbench_accounts') is null");
    if (!absent.ok()) {
      (void)Rollback(*s);
      return absent.status();
    }
    if (absent.value() == "t") accounts_ddl_ = ddl[kCreateAccountsIndex];
  }
  for (size_t i = 0; i < ddl.size(); ++i) {
    if (i == kCreateAccountsIndex && !accounts_ddl_.empty()) continue;
    const std::string& sql = ddl[i];
    Status st = Exec(*s, sql);
    if (!st.ok()) {
      (void)Rollback(*s);
      return st;  // nothing was created: tables in the way are not ours to drop
    }
  }
  // Every table is this run's from here (each CREATE succeeded), so a failed
  // commit or a later step's failure drops them.
  created_tables_ = true;
  return Exec(*s, "commit");
}

Status PgbenchLoader::Generate(bool client_side) {
  PGRIG_ASSIGN_OR_RETURN(Session * s0, SessionFor(0));
  PGRIG_ASSIGN_OR_RETURN(bool fks, ForeignKeysExist(*s0));
  const int64_t accounts = options_.AccountRows();
  rows_done_ = 0;
  rows_total_ = client_side ? accounts : 0;
  if (!accounts_ddl_.empty() && fks) {  // not the fast path: create it now
    PGRIG_RETURN_IF_ERROR(Exec(*s0, accounts_ddl_));
    accounts_ddl_.clear();
  }

  // The safe path: pgbench's own single transaction (all four tables
  // truncated together, so foreign keys between them are fine), used when
  // keys exist or when the tables were made by someone else and their
  // partitioning may not be what the options say.
  if (fks || !created_tables_) {
    Result<std::string> relkind = s0->conn.QueryValue(
        "select relkind from pg_catalog.pg_class where oid = "
        "pg_catalog.to_regclass('pgbench_accounts')");
    if (!relkind.ok()) return relkind.status();
    const bool plain = relkind.value() == "r";
    return RunTasks({[&](Session& s) -> Status {
      PGRIG_RETURN_IF_ERROR(Exec(s, "begin"));
      PGRIG_RETURN_IF_ERROR(Exec(s,
                                 "truncate table pgbench_accounts, pgbench_branches, "
                                 "pgbench_history, pgbench_tellers"));
      if (client_side) {
        PGRIG_RETURN_IF_ERROR(CopySmallTables(s, /*freeze=*/true));
        PGRIG_RETURN_IF_ERROR(StreamAccounts(s, kAccounts, plain, 1, accounts, 0));
      } else {
        PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateBranchesSql(options_)));
        PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateTellersSql(options_)));
        PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateAccountsSql(kAccounts, 1, accounts)));
      }
      return Exec(s, "commit");
    }});
  }

  // The fast path: one transaction per heap, each truncating its own table
  // (or creating it: accounts_ddl_) so that COPY FREEZE applies, all running
  // at once.  The key goes onto the empty table after TRUNCATE: adding an
  // index does not rewrite the table, so FREEZE still applies.
  // How many accounts heaps load at once decides between building each
  // one's key right after its load and building them all in step p.
  const int accounts_tables =
      !Partitioned() || (!client_side && options_.partition_method == PartitionMethod::kHash)
          ? 1
          : std::min(jobs_, options_.partitions);
  std::optional<KeyStrategy> key_mode;
  if (client_side && KeysDuringLoad(step_pos_)) {
    PGRIG_ASSIGN_OR_RETURN(KeyStrategyChoice choice, ChooseKeys(*s0, accounts_tables));
    key_choice_ = choice;
    if (choice.strategy != KeyStrategy::kSeparateStep) key_mode = choice.strategy;
  }
  const bool keys = key_mode.has_value();
  const bool keys_first = key_mode == KeyStrategy::kDuringLoad;
  const bool keys_after = key_mode == KeyStrategy::kAfterEachLoad;
  const bool serial_builds = keys_after && key_choice_ && key_choice_->serial_builds;
  std::vector<Task> tasks;
  auto load_accounts = [this, client_side, keys_first, keys_after, serial_builds](
                           const std::string& table, int64_t first, int64_t last,
                           int hash_partition, const std::string& create) -> Task {
    return [this, client_side, keys_first, keys_after, serial_builds, table, first, last,
            hash_partition, create](Session& s) -> Status {
      PGRIG_RETURN_IF_ERROR(Exec(s, "begin"));
      if (serial_builds) {
        PGRIG_RETURN_IF_ERROR(Exec(s, "set local max_parallel_maintenance_workers = 0"));
      }
      PGRIG_RETURN_IF_ERROR(Exec(s, create.empty() ? "truncate table " + table : create));
      if (keys_first) PGRIG_RETURN_IF_ERROR(Exec(s, PrimaryKeySql(table, "aid", options_)));
      if (client_side) {
        PGRIG_RETURN_IF_ERROR(
            StreamAccounts(s, table, /*freeze=*/true, first, last, hash_partition));
      } else if (hash_partition == 0) {
        PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateAccountsSql(table, first, last)));
      } else {
        // Server-side generation into hash partitions goes through the
        // parent, which routes each row (see below); never reached.
        return Internal("hash partition in server-side generation");
      }
      if (keys_after) PGRIG_RETURN_IF_ERROR(Exec(s, PrimaryKeySql(table, "aid", options_)));
      return Exec(s, "commit");
    };
  };
  if (!Partitioned()) {
    tasks.push_back(load_accounts(kAccounts, 1, accounts, 0, accounts_ddl_));
  } else if (options_.partition_method == PartitionMethod::kRange) {
    for (int p = 1; p <= options_.partitions; ++p) {
      AidRange r = RangePartitionAids(options_, p);
      if (r.size() == 0) continue;
      tasks.push_back(load_accounts(PartitionName(p), r.first, r.last, 0, ""));
    }
  } else if (client_side) {
    for (int p = 1; p <= options_.partitions; ++p) {
      tasks.push_back(load_accounts(PartitionName(p), 1, accounts, p, ""));
    }
  } else {
    // INSERT ... SELECT into the hash-partitioned parent: the server routes
    // rows; filtering per partition on the server would hash every aid once
    // per partition.
    tasks.push_back([this, accounts](Session& s) -> Status {
      PGRIG_RETURN_IF_ERROR(Exec(s, "begin"));
      PGRIG_RETURN_IF_ERROR(Exec(s, std::string("truncate table ") + kAccounts));
      PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateAccountsSql(kAccounts, 1, accounts)));
      return Exec(s, "commit");
    });
  }
  tasks.push_back([this, client_side, keys_first, keys_after](Session& s) -> Status {
    PGRIG_RETURN_IF_ERROR(Exec(s, "begin"));
    PGRIG_RETURN_IF_ERROR(
        Exec(s, "truncate table pgbench_branches, pgbench_history, pgbench_tellers"));
    auto add_keys = [&]() -> Status {
      PGRIG_RETURN_IF_ERROR(Exec(s, PrimaryKeySql(kBranches, "bid", options_)));
      return Exec(s, PrimaryKeySql(kTellers, "tid", options_));
    };
    if (keys_first) PGRIG_RETURN_IF_ERROR(add_keys());
    if (client_side) {
      PGRIG_RETURN_IF_ERROR(CopySmallTables(s, /*freeze=*/true));
    } else {
      PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateBranchesSql(options_)));
      PGRIG_RETURN_IF_ERROR(Exec(s, ServerGenerateTellersSql(options_)));
    }
    if (keys_after) PGRIG_RETURN_IF_ERROR(add_keys());
    return Exec(s, "commit");
  });
  accounts_ddl_.clear();  // created by its task (or the run fails)
  PGRIG_RETURN_IF_ERROR(RunTasks(tasks));
  if (keys) keys_built_ = true;
  return Status::Ok();
}

bool PgbenchLoader::KeysDuringLoad(size_t pos) const {
  // Only tables this run created have no key yet and the layout the
  // options describe; the fallback path (foreign keys) never gets here.
  if (!created_tables_) return false;
  // A p step since the tables were created has keyed them already.
  for (size_t i = pos; i-- > 0;) {
    if (options_.steps[i] == 'p') return false;
    if (options_.steps[i] == 't') break;
  }
  for (size_t i = pos + 1; i < options_.steps.size(); ++i) {
    switch (options_.steps[i]) {
      case 'p':
        return true;
      case 'd':
      case 't':
      case 'g':
      case 'G':
        return false;
      default:
        break;
    }
  }
  return false;
}

Result<KeyStrategyChoice> PgbenchLoader::ChooseKeys(Session& s, int accounts_tables) {
  auto r = s.conn.Exec(
      "select pg_catalog.current_setting('wal_level'), "
      "pg_catalog.current_setting('max_parallel_maintenance_workers')");
  if (!r.ok()) return r.status();
  ServerKeyTraits server;
  if (r->rows() == 1) {
    server.wal_level = std::string(r->Get(0, 0));
    server.max_parallel_maintenance_workers = std::atoi(std::string(r->Get(0, 1)).c_str());
  }
  return ChooseKeyStrategy(
      server,
      LoadShape{.unlogged_tables = options_.unlogged_tables,
                .tables_loaded_at_once = accounts_tables,
                .cores = static_cast<int>(std::thread::hardware_concurrency())},
      options_.key_strategy);
}

Status PgbenchLoader::Vacuum() {
  std::vector<Task> tasks;
  auto statement = [this](std::string sql) -> Task {
    return [this, sql = std::move(sql)](Session& s) { return Exec(s, sql); };
  };
  const bool per_partition = Partitioned() && created_tables_;
  if (per_partition) {
    for (int p = 1; p <= options_.partitions; ++p) {
      tasks.push_back(statement("vacuum " + PartitionName(p)));
    }
  } else {
    tasks.push_back(statement("vacuum analyze pgbench_accounts"));
  }
  tasks.push_back(statement("vacuum analyze pgbench_branches"));
  tasks.push_back(statement("vacuum analyze pgbench_tellers"));
  tasks.push_back(statement("vacuum analyze pgbench_history"));
  PGRIG_RETURN_IF_ERROR(RunTasks(tasks));
  if (per_partition) return AnalyzePartitionedAccounts();
  return Status::Ok();
}

// pgbench's "vacuum analyze pgbench_accounts" on a partitioned table leaves
// the parent's statistics (rows sampled across the partitions, pg_stats'
// inherited rows) and each partition's own: its ANALYZE of the parent then
// analyzes every partition, one after the other on its one backend (a third
// of pgrig's load with --partitions 8 at scale 10 on 2 cores, see
// docs/performance.md).  The same statistics here, each partition analyzed
// once, the parent's sampling beside the partitions' ANALYZEs (the share is
// PlanPartitionAnalyses()'s, see init_analyze_plan.h).  From PostgreSQL 12
// on, ANALYZE (SKIP_LOCKED) of the parent passes silently over a partition
// whose SHARE UPDATE EXCLUSIVE lock (the one ANALYZE takes) another session
// holds, while its sampling of the parent needs only ACCESS SHARE on them,
// which that lock does not block.  So each holder session locks its
// partitions in an open transaction and analyzes them there, and the
// parent's session, holding the parent's lock and its own partitions',
// analyzes the parent and those; the holders commit last.  With one
// session or an older server: pgbench's one recursive ANALYZE.
Status PgbenchLoader::AnalyzePartitionedAccounts() {
  const std::string recursive = "analyze pgbench_accounts";
  if (jobs_ < 2 || server_version_ < 120000) {
    return RunTasks({[this, recursive](Session& s) { return Exec(s, recursive); }});
  }
  const PartitionAnalyzePlan plan = PlanPartitionAnalyses(options_.partitions, jobs_);
  auto names = [](const std::vector<int>& partitions) {
    std::string list;
    for (int p : partitions) list += (list.empty() ? "" : ", ") + PartitionName(p);
    return list;
  };
  // Every session of the plan opens its transaction and takes its locks
  // before any ANALYZE starts; the parent's session is the last.
  std::vector<Session*> open;
  auto rollback_all = [&] {
    for (Session* s : open) (void)Rollback(*s);
  };
  const size_t parent_session = plan.holders.size();
  auto begin_and_lock = [&](size_t i) -> Status {
    // Cancel() interrupts a running statement; between two it is seen here.
    if (cancelled_) return Aborted("canceled");
    PGRIG_ASSIGN_OR_RETURN(Session * s, SessionFor(static_cast<int>(i)));
    PGRIG_RETURN_IF_ERROR(Exec(*s, "begin"));
    open.push_back(s);
    const std::string tables =
        i < parent_session ? names(plan.holders[i])
                           : "only pgbench_accounts" +
                                 (plan.with_parent.empty() ? "" : ", " + names(plan.with_parent));
    return Exec(*s, "lock table " + tables + " in share update exclusive mode");
  };
  for (size_t i = 0; i <= parent_session; ++i) {
    if (Status st = begin_and_lock(i); !st.ok()) {
      rollback_all();
      return st;
    }
  }
  std::vector<Task> tasks;
  for (const std::vector<int>& mine : plan.holders) {
    tasks.push_back([this, &mine](Session& s) -> Status {
      for (int p : mine) PGRIG_RETURN_IF_ERROR(Exec(s, "analyze " + PartitionName(p)));
      return Status::Ok();
    });
  }
  tasks.push_back([this](Session& s) { return Exec(s, "analyze (skip_locked) pgbench_accounts"); });
  Status st = RunTasks(tasks, Placement::kPinned);
  // The parent's session first: the holders' locks keep its ANALYZE off
  // their partitions until it is over.
  while (st.ok() && !open.empty()) {
    Session* s = open.back();
    open.pop_back();  // a failed COMMIT ends the transaction too
    st = Exec(*s, "commit");
  }
  if (!st.ok()) rollback_all();
  return st;
}

Status PgbenchLoader::PrimaryKeys() {
  std::vector<Task> tasks;
  auto statement = [this](std::string sql) -> Task {
    return [this, sql = std::move(sql)](Session& s) { return Exec(s, sql); };
  };
  const bool per_partition = Partitioned() && created_tables_;
  if (keys_built_) {
    // Step g keyed every table and partition; with every partition keyed,
    // the parent's key only attaches their indexes.
    keys_built_ = false;
    if (per_partition) return RunTasks({statement(PrimaryKeySql(kAccounts, "aid", options_))});
    return Status::Ok();
  }
  // The big index first, so that it starts at once.
  if (per_partition) {
    for (int p = 1; p <= options_.partitions; ++p) {
      tasks.push_back(statement(PrimaryKeySql(PartitionName(p), "aid", options_)));
    }
  } else {
    tasks.push_back(statement(PrimaryKeySql(kAccounts, "aid", options_)));
  }
  tasks.push_back(statement(PrimaryKeySql(kBranches, "bid", options_)));
  tasks.push_back(statement(PrimaryKeySql(kTellers, "tid", options_)));
  PGRIG_RETURN_IF_ERROR(RunTasks(tasks));
  // With every partition keyed, the parent's key only attaches their
  // indexes (the result is what pgbench's single statement builds).
  if (per_partition) return RunTasks({statement(PrimaryKeySql(kAccounts, "aid", options_))});
  return Status::Ok();
}

Status PgbenchLoader::ForeignKeys() {
  // Each key locks pgbench_branches or pgbench_tellers in a mode that
  // conflicts with the others', so they run one after another.
  PGRIG_ASSIGN_OR_RETURN(Session * s, SessionFor(0));
  for (const std::string& sql : ForeignKeysSql()) PGRIG_RETURN_IF_ERROR(Exec(*s, sql));
  return Status::Ok();
}

Status PgbenchLoader::RunStep(InitStep step) {
  switch (step) {
    case InitStep::kDropTables:
      return DropTables();
    case InitStep::kCreateTables:
      return CreateTables();
    case InitStep::kClientGenerate:
      return Generate(/*client_side=*/true);
    case InitStep::kServerGenerate:
      return Generate(/*client_side=*/false);
    case InitStep::kVacuum:
      return Vacuum();
    case InitStep::kPrimaryKeys:
      return PrimaryKeys();
    case InitStep::kForeignKeys:
      return ForeignKeys();
  }
  return Internal("unknown step");
}

Status PgbenchLoader::Cleanup() {
  // The failed sessions may hold locks until their backends notice; close
  // them, then drop the tables from a fresh connection.
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.clear();
  }
  PGRIG_ASSIGN_OR_RETURN(pg::Connection c, pg::Connect(params_));
  auto r =
      c.Exec("set client_min_messages = warning; set lock_timeout = '60s'; " + DropTablesSql());
  return r.ok() ? Status::Ok() : r.status();
}

Status PgbenchLoader::Decorate(const Status& s) const {
  if (s.ok()) return s;
  if (cancelled_) return Aborted("canceled by the user");
  std::string m = s.message();
  switch (s.code()) {
    case StatusCode::kUnavailable:
      m += "; check that the server is running and accepts connections (-h, -p, -U, --db)";
      break;
    case StatusCode::kResourceExhausted:
      m += "; free disk space on the database server (or load into a larger tablespace with "
           "--tablespace) and run pgrig init again";
      break;
    default:
      break;
  }
  return Status(s.code(), m);
}

Result<InitReport> PgbenchLoader::Run(InitObserver* observer) {
  observer_ = observer;
  InitReport report;
  Status failure;
  // Connect before announcing any step, so that an unreachable server is
  // one error line and nothing else.
  {
    auto first = SessionFor(0);
    if (!first.ok()) return Decorate(first.status());
    server_version_ = (*first)->conn.server_version();
    // backend_flush_after appeared in 9.6.
    if (server_version_ >= 90600) {
      auto level = (*first)->conn.QueryValue("select pg_catalog.current_setting('wal_level')");
      if (level.ok() && level.value() == "minimal") {
        flush_heap_writes_ = true;
        FlushHeapWritesEarly(**first);
      }
    }
  }
  for (size_t pos = 0; pos < options_.steps.size(); ++pos) {
    const char letter = options_.steps[pos];
    step_pos_ = pos;
    std::optional<InitStep> step = InitStepFromLetter(letter);
    if (!step) {
      if (letter == ' ') continue;
      PGRIG_RETURN_IF_ERROR(CheckInitSteps(options_.steps));
      continue;
    }
    if (cancelled_) {
      failure = Aborted("canceled");
      break;
    }
    if (observer_) observer_->OnStepStart(*step);
    const int64_t start = MonotonicNanos();
    Status st = RunStep(*step);
    if (!st.ok()) {
      failure = st;
      break;
    }
    const double secs = SecondsSince(start);
    if (keys_built_) report.keys_built_during_load = true;
    if (key_choice_) report.key_strategy = key_choice_;
    report.steps.push_back({*step, secs});
    report.total_seconds += secs;
    if (observer_) observer_->OnStepDone(*step, secs);
  }
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    report.connections = static_cast<int>(
        std::count_if(sessions_.begin(), sessions_.end(), [](auto& s) { return s != nullptr; }));
  }
  report.server_version = server_version_;
  JoinBackgroundDrop(&report);
  if (failure.ok()) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.clear();
    return report;
  }
  Status decorated = Decorate(failure);
  if (!created_tables_) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.clear();
    return decorated;
  }
  Status cleaned = Cleanup();
  if (cleaned.ok()) {
    return Status(decorated.code(),
                  decorated.message() + " (the pgbench tables this run created were dropped)");
  }
  return Status(decorated.code(),
                decorated.message() + " (could not drop the pgbench tables this run created: " +
                    cleaned.message() + "; drop them with: " + DropTablesSql() + ")");
}

}  // namespace pgrig::workload
