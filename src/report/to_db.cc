#include "report/to_db.h"

#include <fmt/format.h>

namespace pgrig::report {
namespace {

// The parameters of one row of the cells table: the suite, the shared cell
// columns, the metric.
std::vector<std::string> CellParams(const std::string& suite_id, const CellStats& c) {
  std::vector<std::string> p = {suite_id};
  for (std::string& f : CellFigureFields(c)) p.push_back(std::move(f));
  p.push_back(c.metric);
  return p;
}

// ExecParams takes text; "" is not NULL, so NULLs are written with NULLIF.
constexpr const char* kDdl = R"sql(
CREATE SCHEMA IF NOT EXISTS {0};
CREATE TABLE IF NOT EXISTS {0}.suites (
  suite_id text PRIMARY KEY,
  label text NOT NULL,
  source text NOT NULL,
  document_schema text NOT NULL,
  started_at text,
  complete boolean NOT NULL,
  plan_name text,
  scale integer,
  postgresql text,
  usd_per_hour double precision,
  instance_type text,
  facts jsonb,
  loaded_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS {0}.cells (
  suite_id text NOT NULL REFERENCES {0}.suites ON DELETE CASCADE,
  cell_id text NOT NULL,
  workload text NOT NULL,
  protocol text NOT NULL,
  variant text NOT NULL,
  clients integer NOT NULL,
  threads integer NOT NULL,
  runs_ok integer NOT NULL,
  runs_failed integer NOT NULL,
  tps_median double precision,
  tps_min double precision,
  tps_max double precision,
  tps_ci95_low double precision,
  tps_ci95_high double precision,
  latency_ms_p50 double precision,
  latency_ms_p99 double precision,
  client_cpu_us_per_transaction double precision,
  server_cpu_us_per_transaction double precision,
  bottleneck text,
  transactions_per_usd double precision,
  PRIMARY KEY (suite_id, cell_id));
CREATE TABLE IF NOT EXISTS {0}.runs (
  suite_id text NOT NULL,
  cell_id text NOT NULL,
  ordinal integer NOT NULL,
  iteration integer NOT NULL,
  ok boolean NOT NULL,
  error text,
  tps double precision,
  duration_s double precision,
  PRIMARY KEY (suite_id, cell_id, ordinal),
  FOREIGN KEY (suite_id, cell_id) REFERENCES {0}.cells ON DELETE CASCADE);
ALTER TABLE {0}.cells ADD COLUMN IF NOT EXISTS metric text NOT NULL DEFAULT 'tps';
ALTER TABLE {0}.cells ALTER COLUMN metric DROP DEFAULT;
ALTER TABLE {0}.runs ADD COLUMN IF NOT EXISTS metric text NOT NULL DEFAULT 'tps';
ALTER TABLE {0}.runs ALTER COLUMN metric DROP DEFAULT;
ALTER TABLE {0}.suites ADD COLUMN IF NOT EXISTS tpcc_warehouses integer;
CREATE TABLE IF NOT EXISTS {0}.fsync (
  suite_id text PRIMARY KEY REFERENCES {0}.suites ON DELETE CASCADE,
  dir text NOT NULL,
  best_method text,
  best_ops_per_s double precision,
  best_latency_ms_p99 double precision,
  headline_write_bytes integer,
  server_wal_sync_method text,
  server_method_ops_per_s double precision,
  memory_file_system boolean NOT NULL);
CREATE TABLE IF NOT EXISTS {0}.fsync_tests (
  suite_id text NOT NULL REFERENCES {0}.fsync ON DELETE CASCADE,
  ordinal integer NOT NULL,
  label text NOT NULL,
  method text NOT NULL,
  o_direct boolean NOT NULL,
  write_bytes integer NOT NULL,
  writers integer NOT NULL,
  ops_per_s double precision,
  latency_ms_p50 double precision,
  latency_ms_p99 double precision,
  unavailable_reason text,
  PRIMARY KEY (suite_id, ordinal));
)sql";

// The suite's fsync test (Suite::fsync) and its rows.
Result<int> LoadFsync(pg::Connection& conn, const results::Suite& su, const std::string& s) {
  if (!su.fsync) return 0;
  const results::FsyncRecord& f = *su.fsync;
  PGRIG_RETURN_IF_ERROR(
      conn.ExecParams(
              fmt::format(
                  "INSERT INTO {}.fsync (suite_id, dir, best_method, best_ops_per_s, "
                  "best_latency_ms_p99, headline_write_bytes, server_wal_sync_method, "
                  "server_method_ops_per_s, memory_file_system) VALUES ($1, $2, NULLIF($3, ''), "
                  "NULLIF($4, '')::float8, NULLIF($5, '')::float8, NULLIF($6, '')::integer, "
                  "NULLIF($7, ''), NULLIF($8, '')::float8, $9::boolean)",
                  s),
              {su.suite_id, f.dir, f.best_method, FigureText(f.best_ops_per_s),
               FigureText(f.best_p99_ms),
               f.headline_write_bytes ? std::to_string(*f.headline_write_bytes) : "",
               f.server_method, FigureText(f.server_method_ops_per_s),
               f.memory_file_system ? "true" : "false"})
          .status());
  int rows = 0;
  for (const results::FsyncTest& t : f.tests) {
    PGRIG_RETURN_IF_ERROR(
        conn.ExecParams(
                fmt::format(
                    "INSERT INTO {}.fsync_tests (suite_id, ordinal, label, method, o_direct, "
                    "write_bytes, writers, ops_per_s, latency_ms_p50, latency_ms_p99, "
                    "unavailable_reason) VALUES ($1, $2::integer, $3, $4, $5::boolean, "
                    "$6::integer, $7::integer, NULLIF($8, '')::float8, NULLIF($9, '')::float8, "
                    "NULLIF($10, '')::float8, NULLIF($11, ''))",
                    s),
                {su.suite_id, std::to_string(rows), t.label, t.method.empty() ? t.label : t.method,
                 t.o_direct ? "true" : "false", std::to_string(t.write_bytes),
                 std::to_string(t.writers), FigureText(t.ops_per_s), FigureText(t.p50_ms),
                 FigureText(t.p99_ms), t.unavailable})
            .status());
    ++rows;
  }
  return rows;
}

Result<LoadSummary> LoadInTransaction(pg::Connection& conn, const SuiteStats& st,
                                      const std::string& s) {
  const results::Suite& su = *st.suite;
  LoadSummary out;
  // The "already exists, skipping" notices of the DDL are no news.
  PGRIG_RETURN_IF_ERROR(conn.Exec("SET LOCAL client_min_messages = warning").status());
  PGRIG_RETURN_IF_ERROR(conn.Exec(fmt::format(kDdl, s)).status());
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult del,
      conn.ExecParams(fmt::format("DELETE FROM {}.suites WHERE suite_id = $1", s), {su.suite_id}));
  out.replaced = del.AffectedRows() > 0;
  PGRIG_RETURN_IF_ERROR(
      conn.ExecParams(
              fmt::format(
                  "INSERT INTO {}.suites (suite_id, label, source, document_schema, started_at, "
                  "complete, plan_name, scale, postgresql, usd_per_hour, instance_type, facts, "
                  "tpcc_warehouses) "
                  "VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6::boolean, NULLIF($7, ''), "
                  "NULLIF($8, '')::integer, NULLIF($9, ''), NULLIF($10, '')::float8, "
                  "NULLIF($11, ''), $12::jsonb, NULLIF($13, '')::integer)",
                  s),
              {su.suite_id, su.label, su.source, su.schema, su.started_at,
               su.complete ? "true" : "false", su.plan_name,
               su.scale ? std::to_string(*su.scale) : "", su.pg_version,
               FigureText(su.usd_per_hour), su.instance_type,
               su.facts.is_null() ? "{}" : su.facts.dump(),
               su.tpcc_warehouses ? std::to_string(*su.tpcc_warehouses) : ""})
          .status());
  for (size_t i = 0; i < st.cells.size(); ++i) {
    const CellStats& c = st.cells[i];
    PGRIG_RETURN_IF_ERROR(
        conn.ExecParams(
                fmt::format(
                    "INSERT INTO {}.cells (suite_id, cell_id, workload, protocol, variant, "
                    "clients, threads, runs_ok, runs_failed, tps_median, tps_min, tps_max, "
                    "tps_ci95_low, tps_ci95_high, latency_ms_p50, latency_ms_p99, "
                    "client_cpu_us_per_transaction, server_cpu_us_per_transaction, bottleneck, "
                    "transactions_per_usd, metric) "
                    "VALUES ($1, $2, $3, $4, $5, $6::integer, $7::integer, "
                    "$8::integer, $9::integer, NULLIF($10, '')::float8, NULLIF($11, '')::float8, "
                    "NULLIF($12, '')::float8, NULLIF($13, '')::float8, NULLIF($14, '')::float8, "
                    "NULLIF($15, '')::float8, NULLIF($16, '')::float8, NULLIF($17, '')::float8, "
                    "NULLIF($18, '')::float8, NULLIF($19, ''), NULLIF($20, '')::float8, $21)",
                    s),
                CellParams(su.suite_id, c))
            .status());
    ++out.cells;
    const results::Cell& model = su.cells[i];
    for (size_t k = 0; k < model.runs.size(); ++k) {
      const results::Run& r = model.runs[k];
      PGRIG_RETURN_IF_ERROR(
          conn.ExecParams(
                  fmt::format("INSERT INTO {}.runs (suite_id, cell_id, ordinal, iteration, ok, "
                              "error, tps, duration_s, metric) VALUES ($1, $2, $3::integer, "
                              "$4::integer, $5::boolean, NULLIF($6, ''), NULLIF($7, '')::float8, "
                              "NULLIF($8, '')::float8, $9)",
                              s),
                  {su.suite_id, c.id, std::to_string(k), std::to_string(r.iteration),
                   r.ok ? "true" : "false", r.error, r.ok ? FigureText(r.tps) : "",
                   FigureText(r.duration_s), model.metric})
              .status());
      ++out.runs;
    }
  }
  PGRIG_ASSIGN_OR_RETURN(out.fsync_tests, LoadFsync(conn, su, s));
  return out;
}

}  // namespace

Result<LoadSummary> LoadIntoDatabase(pg::Connection& conn, const SuiteStats& suite,
                                     const LoadOptions& options) {
  if (suite.suite->suite_id.empty()) {
    return InvalidArgument(suite.suite->source +
                           ": the suite has no id; cannot load it idempotently");
  }
  const std::string schema = pg::QuoteIdent(options.schema);
  PGRIG_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  auto loaded = LoadInTransaction(conn, suite, schema);
  if (!loaded.ok()) {
    (void)conn.Exec("ROLLBACK");
    return Status(loaded.status().code(), "loading " + suite.suite->source +
                                              " into the results schema " + options.schema + ": " +
                                              loaded.status().message());
  }
  PGRIG_RETURN_IF_ERROR(conn.Exec("COMMIT").status());
  return loaded;
}

}  // namespace pgrig::report
