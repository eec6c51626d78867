#include "report/to_db.h"

#include <fmt/format.h>

namespace pgrig::report {
namespace {

std::string Num(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : ""; }

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
)sql";

Result<LoadSummary> LoadInTransaction(pg::Connection& conn, const SuiteStats& st,
                                      const std::string& s) {
  const Suite& su = *st.suite;
  LoadSummary out;
  PGRIG_RETURN_IF_ERROR(conn.Exec(fmt::format(kDdl, s)).status());
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult del,
      conn.ExecParams(fmt::format("DELETE FROM {}.suites WHERE suite_id = $1", s), {su.suite_id}));
  out.replaced = del.AffectedRows() > 0;
  PGRIG_RETURN_IF_ERROR(
      conn.ExecParams(
              fmt::format(
                  "INSERT INTO {}.suites (suite_id, label, source, document_schema, started_at, "
                  "complete, plan_name, scale, postgresql, usd_per_hour, instance_type, facts) "
                  "VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6::boolean, NULLIF($7, ''), "
                  "NULLIF($8, '')::integer, NULLIF($9, ''), NULLIF($10, '')::float8, "
                  "NULLIF($11, ''), $12::jsonb)",
                  s),
              {su.suite_id, su.label, su.source, su.schema, su.started_at,
               su.complete ? "true" : "false", su.plan_name,
               su.scale ? std::to_string(*su.scale) : "", su.pg_version, Num(su.usd_per_hour),
               su.instance_type, su.facts.is_null() ? "{}" : su.facts.dump()})
          .status());
  for (size_t i = 0; i < st.cells.size(); ++i) {
    const CellStats& c = st.cells[i];
    const bool ok = c.runs_ok > 0;
    PGRIG_RETURN_IF_ERROR(
        conn.ExecParams(
                fmt::format(
                    "INSERT INTO {}.cells VALUES ($1, $2, $3, $4, $5, $6::integer, $7::integer, "
                    "$8::integer, $9::integer, NULLIF($10, '')::float8, NULLIF($11, '')::float8, "
                    "NULLIF($12, '')::float8, NULLIF($13, '')::float8, NULLIF($14, '')::float8, "
                    "NULLIF($15, '')::float8, NULLIF($16, '')::float8, NULLIF($17, '')::float8, "
                    "NULLIF($18, '')::float8, NULLIF($19, ''), NULLIF($20, '')::float8)",
                    s),
                {su.suite_id,
                 c.id,
                 c.workload,
                 c.protocol,
                 c.variant,
                 std::to_string(c.clients),
                 std::to_string(c.threads),
                 std::to_string(c.runs_ok),
                 std::to_string(c.runs_failed),
                 ok ? Num(c.tps_summary.median) : "",
                 ok ? Num(c.tps_summary.min) : "",
                 ok ? Num(c.tps_summary.max) : "",
                 c.tps_ci ? Num(c.tps_ci->low) : "",
                 c.tps_ci ? Num(c.tps_ci->high) : "",
                 c.latency_ms.empty() ? "" : Num(c.latency_ms[0]),
                 c.latency_ms.empty() ? "" : Num(c.latency_ms[3]),
                 Num(c.client_cpu_us_per_transaction),
                 Num(c.server_cpu_us_per_transaction),
                 c.bottleneck,
                 Num(c.transactions_per_usd)})
            .status());
    ++out.cells;
    const Cell& model = su.cells[i];
    for (size_t k = 0; k < model.runs.size(); ++k) {
      const Run& r = model.runs[k];
      PGRIG_RETURN_IF_ERROR(
          conn.ExecParams(
                  fmt::format("INSERT INTO {}.runs VALUES ($1, $2, $3::integer, $4::integer, "
                              "$5::boolean, NULLIF($6, ''), NULLIF($7, '')::float8, "
                              "NULLIF($8, '')::float8)",
                              s),
                  {su.suite_id, c.id, std::to_string(k), std::to_string(r.iteration),
                   r.ok ? "true" : "false", r.error, r.ok ? Num(r.tps) : "", Num(r.duration_s)})
              .status());
      ++out.runs;
    }
  }
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
