#include "tpcc/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "common/strings.h"
#include "tpcc/random.h"

namespace pgrig::tpcc {

namespace {

// "col = ANY('{1,2}'::int[])" or "true".
std::string In(std::string_view column, const std::vector<int>& warehouses) {
  if (warehouses.empty()) return "true";
  std::string list;
  for (int w : warehouses) {
    if (!list.empty()) list += ',';
    list += std::to_string(w);
  }
  return fmt::format("{} = ANY('{{{}}}'::int[])", column, list);
}

// Each customer's delivered order lines' amounts.
std::string DeliveredByCustomer(const std::vector<int>& ws) {
  return fmt::format(
      "SELECT o.o_w_id, o.o_d_id, o.o_c_id, sum(l.ol_amount) AS s FROM orders o "
      "JOIN order_line l ON (l.ol_w_id, l.ol_d_id, l.ol_o_id) = (o.o_w_id, o.o_d_id, o.o_id) "
      "WHERE {} AND l.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3",
      In("o.o_w_id", ws));
}

}  // namespace

const std::vector<Condition>& Conditions() {
  static const std::vector<Condition> kConditions = {
      {1, "W_YTD = sum(D_YTD) of the warehouse's districts", "warehouses"},
      {2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district", "districts"},
      {3, "max(NO_O_ID) - min(NO_O_ID) + 1 = the district's NEW-ORDER rows", "districts"},
      {4, "sum(O_OL_CNT) = the district's ORDER-LINE rows", "districts"},
      {5, "O_CARRIER_ID is null exactly when the order has a NEW-ORDER row", "orders"},
      {6, "O_OL_CNT = the order's ORDER-LINE rows", "orders"},
      {7, "OL_DELIVERY_D is null exactly when the order's O_CARRIER_ID is", "order lines"},
      {8, "W_YTD = sum(H_AMOUNT) of the warehouse's HISTORY rows", "warehouses"},
      {9, "D_YTD = sum(H_AMOUNT) of the district's HISTORY rows", "districts"},
      {10, "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) of the customer", "customers"},
      {11, "the district's ORDER rows - NEW-ORDER rows = 2100 (right after a load)", "districts"},
      {12, "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) of the customer", "customers"},
  };
  return kConditions;
}

std::string ConditionSql(int number, const std::vector<int>& ws) {
  switch (number) {
    case 1:
      return fmt::format(
          "SELECT count(*) FROM warehouse w LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM "
          "district WHERE {} GROUP BY 1) d ON d.d_w_id = w.w_id "
          "WHERE {} AND w.w_ytd IS DISTINCT FROM d.s",
          In("d_w_id", ws), In("w.w_id", ws));
    case 2:
      return fmt::format(
          "SELECT count(*) FROM district d "
          "LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM orders WHERE {} GROUP BY 1, 2) o "
          "ON (o.o_w_id, o.o_d_id) = (d.d_w_id, d.d_id) "
          "LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM new_order WHERE {} "
          "GROUP BY 1, 2) n ON (n.no_w_id, n.no_d_id) = (d.d_w_id, d.d_id) "
          "WHERE {} AND (o.m IS DISTINCT FROM d.d_next_o_id - 1 "
          "OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1))",
          In("o_w_id", ws), In("no_w_id", ws), In("d.d_w_id", ws));
    case 3:
      return fmt::format(
          "SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n "
          "FROM new_order WHERE {} GROUP BY no_w_id, no_d_id) x WHERE span <> n",
          In("no_w_id", ws));
    case 4:
      return fmt::format(
          "SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders "
          "WHERE {} GROUP BY 1, 2) o FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS n FROM "
          "order_line WHERE {} GROUP BY 1, 2) l ON (l.ol_w_id, l.ol_d_id) = (o.o_w_id, o.o_d_id) "
          "WHERE o.s IS DISTINCT FROM l.n",
          In("o_w_id", ws), In("ol_w_id", ws));
    case 5:
      return fmt::format(
          "SELECT count(*) FROM orders o FULL JOIN (SELECT * FROM new_order WHERE {}) n "
          "ON (n.no_w_id, n.no_d_id, n.no_o_id) = (o.o_w_id, o.o_d_id, o.o_id) "
          "WHERE (o.o_id IS NULL OR {}) "
          "AND (o.o_id IS NULL OR (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL))",
          In("no_w_id", ws), In("o.o_w_id", ws));
    case 6:
      return fmt::format(
          "SELECT count(*) FROM orders o LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) "
          "AS n FROM order_line WHERE {} GROUP BY 1, 2, 3) l "
          "ON (l.ol_w_id, l.ol_d_id, l.ol_o_id) = (o.o_w_id, o.o_d_id, o.o_id) "
          "WHERE {} AND o.o_ol_cnt IS DISTINCT FROM l.n",
          In("ol_w_id", ws), In("o.o_w_id", ws));
    case 7:
      return fmt::format(
          "SELECT count(*) FROM order_line l JOIN orders o "
          "ON (o.o_w_id, o.o_d_id, o.o_id) = (l.ol_w_id, l.ol_d_id, l.ol_o_id) "
          "WHERE {} AND (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)",
          In("l.ol_w_id", ws));
    case 8:
      return fmt::format(
          "SELECT count(*) FROM warehouse w LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM "
          "history WHERE {} GROUP BY 1) h ON h.h_w_id = w.w_id "
          "WHERE {} AND w.w_ytd IS DISTINCT FROM h.s",
          In("h_w_id", ws), In("w.w_id", ws));
    case 9:
      return fmt::format(
          "SELECT count(*) FROM district d LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s "
          "FROM history WHERE {} GROUP BY 1, 2) h ON (h.h_w_id, h.h_d_id) = (d.d_w_id, d.d_id) "
          "WHERE {} AND d.d_ytd IS DISTINCT FROM h.s",
          In("h_w_id", ws), In("d.d_w_id", ws));
    case 10:
      return fmt::format(
          "SELECT count(*) FROM customer c LEFT JOIN ({}) d "
          "ON (d.o_w_id, d.o_d_id, d.o_c_id) = (c.c_w_id, c.c_d_id, c.c_id) "
          "LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) AS s FROM history "
          "WHERE {} GROUP BY 1, 2, 3) h "
          "ON (h.h_c_w_id, h.h_c_d_id, h.h_c_id) = (c.c_w_id, c.c_d_id, c.c_id) "
          "WHERE {} AND c.c_balance <> coalesce(d.s, 0) - coalesce(h.s, 0)",
          DeliveredByCustomer(ws), In("h_c_w_id", ws), In("c.c_w_id", ws));
    case 11:
      return fmt::format(
          "SELECT count(*) FROM district d "
          "LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS n FROM orders WHERE {} GROUP BY 1, 2) o "
          "ON (o.o_w_id, o.o_d_id) = (d.d_w_id, d.d_id) "
          "LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS n FROM new_order WHERE {} "
          "GROUP BY 1, 2) n ON (n.no_w_id, n.no_d_id) = (d.d_w_id, d.d_id) "
          "WHERE {} AND coalesce(o.n, 0) - coalesce(n.n, 0) <> 2100",
          In("o_w_id", ws), In("no_w_id", ws), In("d.d_w_id", ws));
    case 12:
      return fmt::format(
          "SELECT count(*) FROM customer c LEFT JOIN ({}) d "
          "ON (d.o_w_id, d.o_d_id, d.o_c_id) = (c.c_w_id, c.c_d_id, c.c_id) "
          "WHERE {} AND c.c_balance + c.c_ytd_payment <> coalesce(d.s, 0)",
          DeliveredByCustomer(ws), In("c.c_w_id", ws));
    default:
      return "";
  }
}

Result<bool> NoDeliverySinceLoad(pg::Connection& conn, const std::vector<int>& warehouses) {
  PGRIG_ASSIGN_OR_RETURN(
      std::string delivered,
      conn.QueryValue(fmt::format("SELECT count(*) FROM orders WHERE {} AND o_id > 2100 AND "
                                  "o_carrier_id IS NOT NULL",
                                  In("o_w_id", warehouses))));
  return delivered == "0";
}

std::vector<int> SampleWarehouses(int warehouses, int n, uint64_t seed) {
  std::set<int> chosen = {1, warehouses};
  Prng rng(seed);
  while (static_cast<int>(chosen.size()) < std::min(n, warehouses)) {
    chosen.insert(static_cast<int>(Uniform(rng, 1, warehouses)));
  }
  return {chosen.begin(), chosen.end()};
}

Result<std::vector<ConditionResult>> RunChecks(pg::Connection& conn, const CheckOptions& o) {
  PGRIG_RETURN_IF_ERROR(conn.Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").status());
  std::vector<ConditionResult> results;
  for (const Condition& c : Conditions()) {
    if (c.number > o.last_condition) break;
    ConditionResult r{.condition = c};
    if (c.number == 11 && !o.after_load) {
      r.applicable = false;
      results.push_back(r);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto count = conn.QueryValue(ConditionSql(c.number, o.warehouses));
    if (!count.ok()) {
      (void)conn.Exec("ROLLBACK");
      return count.status().WithContext(fmt::format("consistency condition {}", c.number));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.violations = ParseInt64(*count).value_or(-1);
    results.push_back(r);
  }
  PGRIG_RETURN_IF_ERROR(conn.Exec("COMMIT").status());
  return results;
}

}  // namespace pgrig::tpcc
