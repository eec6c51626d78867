// TPC-C's five transactions (specification revision 5.11, clause 2.4 to
// 2.8) as pgbench scripts that pgrig's engine runs: `pgrig tpcc run`.
//
// Each script draws its inputs on the client with pgbench's expressions, as
// clause 2 asks (NURand with the run's constants, the 1% of order lines
// supplied by another warehouse, the 15% of payments by a customer of
// another district's warehouse, 60% of customers chosen by last name), and
// runs the transaction as client-side SQL: prepared statements with -M
// prepared (the default of `tpcc run`).  Values the transaction finds in the
// database and needs later (the new order's number, the customer a last name
// selects) come back with \gset; strings never pass through the client, so
// the scripts also run with -M simple.
//
// Terminals: each client is a terminal of home warehouse
// client_id % warehouses + 1 (clause 2.1.5 puts terminals on warehouses);
// the district of every transaction is drawn uniformly.
//
// The mix (clause 5.2.3's minimums, which the standard mix meets exactly):
// New-Order 45%, of which 1% roll back (an unused item number on the last
// line, clause 2.4.1.4), Payment 43%, Order-Status, Delivery and Stock-Level
// 4% each.  The rolled-back New-Orders are a script of their own, so the
// client counts commits and rollbacks apart: weights 4455 and 45 of 10000.
//
// With TxnInputs::spec_timing each script sleeps a think time, then its
// keying time, then runs the transaction.  The specification's terminal
// thinks after a transaction; thinking before the next one instead gives the
// same cycle over the mix (the types are drawn independently) and ends each
// script with its transaction, which is then counted the moment it ends.
//
// Where pgrig departs from the specification (docs/tpcc.md): Delivery runs
// as one transaction for the ten districts at once, in the foreground, and
// a district whose oldest new order another Delivery took meanwhile is
// skipped without being counted; repeated items of one order update their
// stock row once with the sum of the quantities; stock rows are locked in
// key order before they are updated, so that two New-Orders do not deadlock
// on them.
#ifndef PGRIG_TPCC_TRANSACTIONS_H_
#define PGRIG_TPCC_TRANSACTIONS_H_

#include <string>
#include <string_view>
#include <vector>

#include "tpcc/random.h"

namespace pgrig::tpcc {

// The scripts' order in TransactionScripts() and so in the engine's
// RunResult::scripts.
enum class TxnType {
  kNewOrder = 0,
  kNewOrderRollback,
  kPayment,
  kOrderStatus,
  kDelivery,
  kStockLevel,
};
inline constexpr int kTxnTypes = 6;

// "new-order", "new-order-rollback", "payment", "order-status",
// "delivery", "stock-level".
std::string_view TxnName(TxnType t);

struct TxnInputs {
  int warehouses = 1;   // of the load; home and remote warehouses are 1..warehouses
  NURandConstants run;  // the run's constants (NURandConstants::ForRun)
  // Clause 5.2.5: each transaction preceded by a think time (negative
  // exponential with mean 12, 12, 10, 5 and 5 s by type, at most ten times
  // the mean) and its keying time (\sleep of 18 s for New-Order, 3 s for
  // Payment, 2 s for the others).  The engine leaves sleeps out of the
  // latency (EngineConfig::untimed_sleeps).
  bool spec_timing = false;
  // Each transaction one call of its function (procedures.h, made by `tpcc
  // init --procedures`), the inputs drawn on the client as without.
  bool procedures = false;
};

// Clause 5.2.5.7's keying time and 5.2.5.4's mean think time of a type, in
// seconds.
int KeyingSeconds(TxnType t);
int ThinkMeanSeconds(TxnType t);

struct TxnScript {
  TxnType type;
  int weight;        // of 10000
  std::string text;  // pgbench script
};

// The six scripts, in TxnType order.  REQUIRES: warehouses >= 1.
std::vector<TxnScript> TransactionScripts(const TxnInputs& in);

// SQL for the last name of the number held by pgbench variable `var`
// (0..999; clause 4.3.2.3): three syllables by its decimal digits, built
// on the server.
std::string LastNameSql(std::string_view var);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_TRANSACTIONS_H_
