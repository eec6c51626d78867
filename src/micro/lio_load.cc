#include "micro/lio_load.h"

#include <fmt/format.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "common/strings.h"
#include "micro/lio_schema.h"

namespace pgrig::micro {

namespace {

Result<int64_t> ToInt(std::string_view v, std::string_view what) {
  auto n = ParseInt64(v);
  if (!n) return Internal(fmt::format("{}: \"{}\" is not an integer", what, v));
  return *n;
}

// Loads one table on `conn` (its own connection).
Result<LioTableInfo> LoadOne(pg::Connection& conn, int table, int64_t blocks) {
  const int64_t t0 = MonotonicNanos();
  auto ctx = [&](const Status& s) { return s.WithContext("loading " + LioQualifiedName(table)); };
  // A big load in one transaction; synchronous_commit off only for it.
  if (auto r = conn.Exec("SET synchronous_commit = off; SET maintenance_work_mem = '256MB';"
                         " SET client_min_messages = warning");
      !r.ok())
    return ctx(r.status());
  if (auto r = conn.Exec("BEGIN;" + LioCreateSql(table) + ";" + LioLoadSql(table, blocks) + ";" +
                         LioIndexSql(table) + "; COMMIT");
      !r.ok())
    return ctx(r.status());
  if (auto r = conn.Exec(LioVacuumSql(table)); !r.ok()) return ctx(r.status());
  PGRIG_RETURN_IF_ERROR(VerifyOneRowPerBlock(conn, table, blocks));
  LioTableInfo info{.table = table, .blocks = blocks};
  auto ib = conn.QueryValue(
      fmt::format("SELECT pg_relation_size('{}.{}_k') / 8192", kLioSchema, LioTableName(table)));
  if (ib.ok()) info.index_blocks = ParseInt64(*ib).value_or(0);
  info.load_s = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  return info;
}

// Asks the server to cancel whatever each connection is running.
void CancelAll(std::vector<pg::Connection>& conns) {
  for (auto& c : conns) {
    PGcancel* cancel = PQgetCancel(c.raw());
    if (!cancel) continue;
    char err[256];
    (void)PQcancel(cancel, err, sizeof err);
    PQfreeCancel(cancel);
  }
}

}  // namespace

Status ValidateLioInit(const LioInitOptions& o) {
  if (o.tables < 1 || o.tables > kMaxLioTables) {
    return InvalidArgument(
        fmt::format("--tables {} is out of range: give 1 to {}", o.tables, kMaxLioTables));
  }
  if (o.blocks_per_table < 1 || o.blocks_per_table > kMaxBlocksPerTable) {
    return InvalidArgument(fmt::format("{} blocks per table is out of range: give 1 to {}",
                                       o.blocks_per_table, kMaxBlocksPerTable));
  }
  return Status::Ok();
}

Status VerifyOneRowPerBlock(pg::Connection& conn, int table, int64_t blocks) {
  PGRIG_ASSIGN_OR_RETURN(pg::QueryResult r, conn.Exec(LioVerifySql(table)));
  if (r.rows() != 1) return Internal("verify query returned no row");
  PGRIG_ASSIGN_OR_RETURN(int64_t rows, ToInt(r.Get(0, 0), "count(*)"));
  PGRIG_ASSIGN_OR_RETURN(int64_t distinct_blocks, ToInt(r.Get(0, 1), "count(distinct block)"));
  PGRIG_ASSIGN_OR_RETURN(int64_t span, ToInt(r.Get(0, 2), "max(block)"));
  if (rows != blocks || distinct_blocks != rows || span != rows) {
    return FailedPrecondition(fmt::format(
        "{} does not hold one row per block: {} rows in {} distinct blocks spanning {} (expected "
        "{} of each); run `pgrig lio init` again",
        LioQualifiedName(table), rows, distinct_blocks, span, blocks));
  }
  return Status::Ok();
}

Result<LioInitResult> InitLio(const LioInitOptions& o) {
  PGRIG_RETURN_IF_ERROR(ValidateLioInit(o));
  const int64_t t0 = MonotonicNanos();
  auto note = [&](const std::string& s) {
    if (o.on_note) o.on_note(s);
  };
  PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(o.target));
  PGRIG_RETURN_IF_ERROR(conn.Exec("SET client_min_messages = warning").status());
  // The catalog: dropped rows first, so an interrupted init leaves no claim.
  if (auto r = conn.Exec(fmt::format(
          "CREATE SCHEMA IF NOT EXISTS {0};"
          "CREATE TABLE IF NOT EXISTS {0}.tables (tbl int PRIMARY KEY, blocks bigint NOT NULL,"
          " loaded_at timestamptz NOT NULL DEFAULT now());"
          "DELETE FROM {0}.tables",
          kLioSchema));
      !r.ok())
    return r.status().WithContext("preparing schema " + std::string(kLioSchema));
  // Tables of an earlier, larger init would otherwise be picked up by nobody
  // but still take space: drop them.
  if (auto r = conn.Exec(fmt::format(
          "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          " WHERE n.nspname = '{}' AND c.relkind = 'r' AND c.relname ~ '^t[0-9]+$'"
          " AND substr(c.relname, 2)::int > {}",
          kLioSchema, o.tables));
      r.ok()) {
    for (int i = 0; i < r->rows(); ++i) {
      if (auto d = conn.Exec(
              fmt::format("DROP TABLE IF EXISTS {}.{}", kLioSchema, pg::QuoteIdent(r->Get(i, 0))));
          !d.ok())
        return d.status();
    }
  }

  note(fmt::format("loading {} tables of {} blocks ({}) each on {} connections", o.tables,
                   o.blocks_per_table,
                   HumanBytes(static_cast<uint64_t>(o.blocks_per_table * kBlockBytes)), o.tables));
  std::vector<Result<LioTableInfo>> results(static_cast<size_t>(o.tables),
                                            Result<LioTableInfo>(Internal("not run")));
  std::vector<pg::Connection> conns;
  for (int t = 1; t <= o.tables; ++t) {
    PGRIG_ASSIGN_OR_RETURN(pg::Connection c, pg::Connect(o.target));
    conns.push_back(std::move(c));
  }
  {
    std::atomic<int> running{o.tables};
    std::vector<std::thread> threads;
    for (int t = 1; t <= o.tables; ++t) {
      threads.emplace_back([&, t] {
        const auto i = static_cast<size_t>(t - 1);
        results[i] = LoadOne(conns[i], t, o.blocks_per_table);
        running.fetch_sub(1);
      });
    }
    // Ctrl-C cancels the statements in flight rather than waiting for them.
    // Repeated, so that a statement that starts after a cancel is cancelled too.
    while (running.load() > 0) {
      if (o.stop_requested && o.stop_requested->load()) CancelAll(conns);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& th : threads) th.join();
  }
  Status first_error;
  LioInitResult out;
  for (auto& r : results) {
    if (!r.ok()) {
      if (first_error.ok()) first_error = r.status();
      continue;
    }
    out.tables.push_back(*r);
  }
  if (o.stop_requested && o.stop_requested->load()) {
    first_error = Aborted("interrupted; the tables being loaded were dropped");
  }
  if (!first_error.ok()) {
    for (int t = 1; t <= o.tables; ++t) {
      (void)conn.Exec("DROP TABLE IF EXISTS " + LioQualifiedName(t));
    }
    return first_error;
  }
  std::string values;
  for (const auto& t : out.tables) {
    values += fmt::format("{}({}, {})", values.empty() ? "" : ", ", t.table, t.blocks);
  }
  if (auto r = conn.Exec(
          fmt::format("INSERT INTO {}.tables (tbl, blocks) VALUES {}", kLioSchema, values));
      !r.ok())
    return r.status().WithContext("recording the loaded tables");
  out.wall_s = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  return out;
}

Result<std::vector<LioTableInfo>> ReadLioTables(pg::Connection& conn) {
  auto r =
      conn.Exec(fmt::format("SELECT t.tbl, t.blocks, coalesce(pg_relation_size(i.oid) / 8192, 0)"
                            " FROM {0}.tables t"
                            " LEFT JOIN pg_class i ON i.relname = 't' || t.tbl || '_k'"
                            "  AND i.relnamespace = '{0}'::regnamespace"
                            " ORDER BY t.tbl",
                            kLioSchema));
  if (!r.ok() || r->rows() == 0) {
    return FailedPrecondition(
        "no lio tables in this database; run `pgrig lio init` first (e.g. `pgrig lio init "
        "--tables 4 --fit`)");
  }
  std::vector<LioTableInfo> out;
  for (int i = 0; i < r->rows(); ++i) {
    LioTableInfo t;
    PGRIG_ASSIGN_OR_RETURN(int64_t tbl, ToInt(r->Get(i, 0), "tbl"));
    t.table = static_cast<int>(tbl);
    PGRIG_ASSIGN_OR_RETURN(t.blocks, ToInt(r->Get(i, 1), "blocks"));
    PGRIG_ASSIGN_OR_RETURN(t.index_blocks, ToInt(r->Get(i, 2), "index blocks"));
    if (t.index_blocks == 0) {
      return FailedPrecondition(fmt::format(
          "{} or its index is missing; run `pgrig lio init` again", LioQualifiedName(t.table)));
    }
    out.push_back(t);
  }
  return out;
}

Result<int64_t> SharedBuffersBlocks(pg::Connection& conn) {
  // setting is in units of `unit` (normally 8kB blocks).
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT setting::bigint * pg_size_bytes(replace(unit, 'kB', ' kB')) / 8192"
                " FROM pg_settings WHERE name = 'shared_buffers'"));
  if (r.rows() != 1) return Internal("shared_buffers is not in pg_settings");
  return ToInt(r.Get(0, 0), "shared_buffers");
}

}  // namespace pgrig::micro
