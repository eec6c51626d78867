// Loading analysed suites into a results schema in PostgreSQL, so that users
// keep history and query it with SQL (`pgrig report DIR --to-db CONNINFO`).
//
// Tables (created if missing, in schema `pgrig_results` unless told):
//   suites(suite_id PK, label, source, document_schema, started_at, complete,
//          plan_name, scale, postgresql, usd_per_hour, instance_type,
//          facts jsonb, loaded_at)
//   cells (suite_id, cell_id) PK: the figures of the report's cell table
//   runs  (suite_id, cell_id, ordinal) PK: one row per run
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
};

Result<LoadSummary> LoadIntoDatabase(pg::Connection& conn, const SuiteStats& suite,
                                     const LoadOptions& options = {});

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_TO_DB_H_
