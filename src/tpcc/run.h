// What `pgrig tpcc run` reads around the engine's run and the figures it
// makes of it: the load's description (tpcc_load), the database's own
// count of New-Orders, and NOPM, tpmC-like and TPM with the per-type
// counts and latencies.
//
// NOPM (New-Orders per minute, HammerDB's figure) counts the New-Orders the
// client saw commit in the measured window, over the window's minutes; the
// database's count (the sum of D_NEXT_O_ID, which only a committed
// New-Order raises) is read before and after the window and must agree: it
// may be ahead of the client's count by at most one per client (a commit the
// server made whose answer the client did not wait for when the window
// closed), never behind.  tpmC-like counts every New-Order that completed,
// the 1% rolled back by design included (clause 5.4.1 counts them); TPM
// counts every transaction of the five types.  None of them is a pgbench
// tps and none is ever divided by one.
#ifndef PGRIG_TPCC_RUN_H_
#define PGRIG_TPCC_RUN_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "common/status.h"
#include "engine/result.h"
#include "pg/connection.h"
#include "results/tpcc_section.h"
#include "tpcc/random.h"
#include "tpcc/transactions.h"

namespace pgrig::tpcc {

// The row `tpcc init` leaves in tpcc_load.
struct LoadInfo {
  int warehouses = 0;
  int partitions = 0;
  NURandConstants constants;
};

// NotFound-like error naming `tpcc init` when there is no load.
Result<LoadInfo> ReadLoad(pg::Connection& conn);

// Whether the transactions' functions (tpcc init --procedures,
// procedures.h) are in the database.
bool HasProcedures(pg::Connection& conn);

// sum(d_next_o_id) over every district.
Result<int64_t> NewOrderCounter(pg::Connection& conn);

// The rows of new_order: orders not delivered yet.
Result<int64_t> UndeliveredOrders(pg::Connection& conn);

// Districts a Delivery found no new order for (clause 2.7.4.2; clause
// 5.4.5 allows at most 1% of them), from the database: each Delivery asks
// for ten districts, and the orders it delivered are the new_order rows
// that went away, the New-Orders committed meanwhile added.  Deliveries
// that committed as the window closed are in the database's count but not
// in the client's (at most one per client), so `skipped` is a lower bound
// within 10 x clients of the truth.  The section's "delivery".
using DeliverySkips = results::TpccDelivery;
DeliverySkips SkippedDeliveries(int64_t deliveries, int64_t undelivered_before,
                                int64_t undelivered_after, int64_t database_new_orders);

struct TypeFigures {
  TxnType type = TxnType::kNewOrder;
  int64_t transactions = 0;  // ended successfully
  int64_t failures = 0;      // serialization or deadlock errors out of tries
  int64_t retries = 0;
  // Latency of the successful ones, from the type's full histogram
  // (results::TpccLatencyFromHistogram); all 0 when none ended.
  results::TpccLatencyMs latency_ms;
};

struct TpccFigures {
  double window_s = 0;
  int64_t new_orders = 0;  // committed, as the client counted them
  int64_t new_orders_rolled_back = 0;
  int64_t database_new_orders = 0;  // the D_NEXT_O_ID sum's growth over the window
  bool counts_agree = false;
  double nopm = 0;
  double tpmc_like = 0;
  double tpm = 0;
  std::vector<TypeFigures> types;         // the five, New-Order's rollbacks apart (TxnType order)
  std::optional<DeliverySkips> delivery;  // when the database could be asked
};

// REQUIRES: r.scripts are TransactionScripts()'s, in order.
TpccFigures Figures(const engine::RunResult& r, int64_t database_new_orders, int clients);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_RUN_H_
