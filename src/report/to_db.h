// Loading analysed suites into a results schema in PostgreSQL, so that users
// keep history and query it with SQL (`pgrig report DIR --to-db CONNINFO`).
//
// Tables (created if missing, in schema `pgrig_results` unless told):
//   suites(suite_id PK, label, source, document_schema, started_at, complete,
//          plan_name, scale, postgresql, usd_per_hour, instance_type,
//          facts jsonb, loaded_at)
//   cells (suite_id, cell_id) PK: the figures of the report's cell table;
//         `metric` says what the tps_* columns hold: "tps", or "lio_per_s"
//         (logical reads per second) for a lio cell
//   runs  (suite_id, cell_id, ordinal) PK: one row per run, `metric` as cells
//   fsync (suite_id PK): the suite's WAL flush test (Suite::fsync), if any
//   fsync_tests (suite_id, ordinal) PK: one row per (method, write size,
//         writers) of that test: flushes per second, p50/p99 latency
// A schema created by an older pgrig (cells and runs without `metric`) is
// upgraded in the loading transaction: ADD COLUMN IF NOT EXISTS with default
// 'tps' for the rows already there, then the default is dropped so that no
// later row gets a metric by accident.
// Loading is idempotent by suite id: one transaction deletes what was loaded
// for that suite before (cells and runs cascade) and inserts it again, so
// loading the same suite twice leaves one copy.  The caller owns the
// connection; not thread-safe on one connection.
#ifndef PGRIG_REPORT_TO_DB_H_
#define PGRIG_REPORT_TO_DB_H_

#include <string>

#include "common/status.h"
#include "pg/connection.h"
#include "report/analysis.h"

namespace pgrig::report {

struct LoadOptions {
  std::string schema = "pgrig_results";
};

struct LoadSummary {
  bool replaced = false;  // the suite id was already loaded
  int cells = 0;
  int runs = 0;
  int fsync_tests = 0;  // rows of fsync_tests
};

Result<LoadSummary> LoadIntoDatabase(pg::Connection& conn, const SuiteStats& suite,
                                     const LoadOptions& options = {});

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_TO_DB_H_
