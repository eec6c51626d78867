// TPC-C's consistency conditions 1 to 12 (specification revision 5.11,
// clause 3.3.2.1 to 3.3.2.12) as SQL over the tables of schema.h, and their
// run: `pgrig tpcc check`, after `tpcc init` and after a run.
//
// Each condition is one query that counts what breaks it (warehouses,
// districts, orders, order lines or customers), so a result says how much
// is wrong, not only that something is.  With a sample of warehouses every
// query reads only their rows (the specification allows sampling for
// conditions 2 and 4; pgrig allows it for all, and says so).
//
// Condition 11 (per district, orders minus new orders = 2100) holds only
// until the first Delivery removes a new order: it is checked right after a
// load (CheckOptions::after_load) and reported as not applicable after a
// run.  A run refuses to report on data that fails conditions 1 to 4.
#ifndef PGRIG_TPCC_CHECK_H_
#define PGRIG_TPCC_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::tpcc {

struct Condition {
  int number;              // 1..12
  std::string_view what;   // the condition, in a line
  std::string_view scope;  // what a violation counts: "warehouses", "districts", ...
};

// The twelve, in order.
const std::vector<Condition>& Conditions();

// The query that counts the violations of condition `number` (one row, one
// column), over `warehouses` only when it is not empty.  REQUIRES: number
// in 1..12.
std::string ConditionSql(int number, const std::vector<int>& warehouses);

struct CheckOptions {
  std::vector<int> warehouses;  // empty: every warehouse
  bool after_load = false;      // condition 11 applies
  int last_condition = 12;      // 4: conditions 1 to 4 only (after a run)
};

struct ConditionResult {
  Condition condition;
  bool applicable = true;  // false: condition 11 after a run
  int64_t violations = 0;
  double seconds = 0;
};

// True while no order after a load's first 2,100 of a district has been
// delivered (a Delivery always delivers the oldest new order, which the
// load numbered 2101 or more): condition 11 applies.
Result<bool> NoDeliverySinceLoad(pg::Connection& conn, const std::vector<int>& warehouses);

// Clause 3.3.3's sample of `n` of 1..warehouses: the first, the last and
// n - 2 others uniformly at random (all of them when n >= warehouses),
// sorted.
std::vector<int> SampleWarehouses(int warehouses, int n, uint64_t seed);

// Runs every condition in order on `conn` (one REPEATABLE READ READ ONLY
// transaction, so that all twelve see one snapshot); an error of the server
// is an error, a violation is a result.
Result<std::vector<ConditionResult>> RunChecks(pg::Connection& conn, const CheckOptions& o);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_CHECK_H_
