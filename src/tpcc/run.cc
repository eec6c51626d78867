#include "tpcc/run.h"

#include <algorithm>
#include <array>

#include "common/strings.h"

namespace pgrig::tpcc {

Result<LoadInfo> ReadLoad(pg::Connection& conn) {
  auto r = conn.Exec("SELECT warehouses, partitions, c_last, c_id, ol_i_id FROM tpcc_load");
  if (!r.ok()) {
    return FailedPrecondition("no TPC-C load in this database (run pgrig tpcc init first): " +
                              r.status().message());
  }
  if (r->rows() != 1) {
    return FailedPrecondition(
        r->rows() == 0 ? std::string("the TPC-C load in this database never finished (tpcc_load "
                                     "is empty; run pgrig tpcc init again)")
                       : "tpcc_load should hold one row, it holds " + std::to_string(r->rows()) +
                             " (run pgrig tpcc init again)");
  }
  LoadInfo info;
  auto field = [&](int col) { return ParseInt64(r->Get(0, col)).value_or(-1); };
  info.warehouses = static_cast<int>(field(0));
  info.partitions = static_cast<int>(field(1));
  info.constants.c_last = field(2);
  info.constants.c_id = field(3);
  info.constants.ol_i_id = field(4);
  if (info.warehouses < 1 || info.constants.c_last < 0 || info.constants.c_last > kLastNameA ||
      info.constants.c_id < 0 || info.constants.c_id > kCustomerA || info.constants.ol_i_id < 0 ||
      info.constants.ol_i_id > kItemA) {
    return FailedPrecondition("tpcc_load's row is not one tpcc init writes (run it again)");
  }
  return info;
}

bool HasProcedures(pg::Connection& conn) {
  return conn.Exec("SELECT 'tpcc_new_order'::regproc, 'tpcc_stock_level'::regproc").ok();
}

Result<int64_t> NewOrderCounter(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(std::string v, conn.QueryValue("SELECT sum(d_next_o_id) FROM district"));
  auto n = ParseInt64(v);
  if (!n) return Internal("sum(d_next_o_id) is \"" + v + "\", not a number");
  return *n;
}

Result<int64_t> UndeliveredOrders(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(std::string v, conn.QueryValue("SELECT count(*) FROM new_order"));
  auto n = ParseInt64(v);
  if (!n) return Internal("count(*) of new_order is \"" + v + "\", not a number");
  return *n;
}

DeliverySkips SkippedDeliveries(int64_t deliveries, int64_t undelivered_before,
                                int64_t undelivered_after, int64_t database_new_orders) {
  DeliverySkips d;
  d.districts = 10 * deliveries;
  d.delivered = undelivered_before + database_new_orders - undelivered_after;
  d.skipped = std::max<int64_t>(0, d.districts - d.delivered);
  d.skipped_share =
      d.districts > 0 ? static_cast<double>(d.skipped) / static_cast<double>(d.districts) : 0;
  return d;
}

TpccFigures Figures(const engine::RunResult& r, int64_t database_new_orders, int clients) {
  TpccFigures f;
  f.window_s = static_cast<double>(r.bench_duration_ns) / 1e9;
  const double minutes = f.window_s / 60.0;
  int64_t all = 0;
  for (size_t i = 0; i < r.scripts.size() && i < static_cast<size_t>(kTxnTypes); ++i) {
    const engine::ScriptStats& s = r.scripts[i];
    TypeFigures t;
    t.type = static_cast<TxnType>(i);
    t.transactions = s.totals.transactions;
    t.failures = s.totals.failures();
    t.retries = s.totals.retries;
    if (s.latency) t.latency_ms = results::TpccLatencyFromHistogram(*s.latency);
    all += t.transactions;
    f.types.push_back(t);
  }
  auto count = [&](TxnType t) {
    const auto i = static_cast<size_t>(t);
    return i < f.types.size() ? f.types[i].transactions : 0;
  };
  f.new_orders = count(TxnType::kNewOrder);
  f.new_orders_rolled_back = count(TxnType::kNewOrderRollback);
  f.database_new_orders = database_new_orders;
  const int64_t ahead = database_new_orders - f.new_orders;
  f.counts_agree = ahead >= 0 && ahead <= clients;
  if (minutes > 0) {
    f.nopm = static_cast<double>(f.new_orders) / minutes;
    f.tpmc_like = static_cast<double>(f.new_orders + f.new_orders_rolled_back) / minutes;
    f.tpm = static_cast<double>(all) / minutes;
  }
  return f;
}

}  // namespace pgrig::tpcc
