#include "tpcc/transactions.h"

#include <fmt/format.h>

namespace pgrig::tpcc {
namespace {

constexpr int kMaxLines = 15;  // O_OL_CNT is 5 to 15 (clause 2.4.1.3)

// The home warehouse and a district, drawn as every script starts.
std::string Terminal(int warehouses) {
  return fmt::format("\\set w_id :client_id % {} + 1\n\\set d_id random(1, 10)\n", warehouses);
}

// A warehouse other than :w_id, uniform among the others.  REQUIRES:
// warehouses >= 2.
std::string OtherWarehouse(int warehouses) {
  return fmt::format("(:w_id + random(0, {})) % {} + 1", warehouses - 2, warehouses);
}

// NURand(A, x, y) with the run's constant (clause 2.1.6).
std::string NURandExpr(int64_t a, int64_t x, int64_t y, int64_t c) {
  return fmt::format("(((random(0, {}) | random({}, {})) + {}) % {}) + {}", a, x, y, c, y - x + 1,
                     x);
}

// The customer's inputs: :by_name (at most 60: by last name), :c_id and
// :c_last_n.
std::string CustomerDraws(const NURandConstants& k) {
  return fmt::format(
      "\\set by_name random(1, 100)\n"
      "\\set c_id {}\n"
      "\\set c_last_n {}\n",
      NURandExpr(kCustomerA, 1, kCustomersPerDistrict, k.c_id),
      NURandExpr(kLastNameA, 0, 999, k.c_last));
}

// CustomerDraws, and with 60% probability :c_id replaced by the customer
// the last name selects: of those of that name in the district, sorted by
// first name, the one at position ceil(n / 2) (clause 2.5.2.2).  `w` and `d`
// are the customer's warehouse and district variables.
std::string CustomerChoice(const NURandConstants& k, std::string_view w, std::string_view d) {
  const std::string name = LastNameSql("c_last_n");
  const std::string where =
      fmt::format("c_w_id = :{} AND c_d_id = :{} AND c_last = {}", w, d, name);
  return CustomerDraws(k) +
         fmt::format(
             "\\if :by_name <= 60\n"
             "SELECT c_id FROM customer WHERE {} ORDER BY c_first\n"
             "  OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE {}) LIMIT 1 \\gset\n"
             "\\endif\n",
             where, where);
}

// New-Order (clause 2.4), committed or, with `rollback`, with an unused item
// number on its last line and rolled back at the end.
std::string NewOrder(const TxnInputs& in, bool rollback) {
  std::string s = Terminal(in.warehouses);
  s += fmt::format("\\set c_id {}\n\\set ol_cnt random(5, {})\n",
                   NURandExpr(kCustomerA, 1, kCustomersPerDistrict, in.run.c_id), kMaxLines);
  std::string items, supply, quantities;
  for (int k = 1; k <= kMaxLines; ++k) {
    s += fmt::format("\\set i{} {}\n", k, NURandExpr(kItemA, 1, kItems, in.run.ol_i_id));
    if (in.warehouses > 1) {
      s += fmt::format("\\set s{} CASE WHEN random(1, 100) = 1 THEN {} ELSE :w_id END\n", k,
                       OtherWarehouse(in.warehouses));
    } else {
      s += fmt::format("\\set s{} :w_id\n", k);
    }
    s += fmt::format("\\set q{} random(1, 10)\n", k);
    const char* sep = k == 1 ? "" : ", ";
    items += fmt::format("{}:i{}", sep, k);
    supply += fmt::format("{}:s{}", sep, k);
    quantities += fmt::format("{}:q{}", sep, k);
  }
  const std::string item = rollback ? "CASE WHEN n = :ol_cnt THEN 100001 ELSE i END" : "i";
  if (in.procedures) {
    // The rollback's unused item goes on line :ol_cnt.
    const std::string items_arg =
        rollback ? fmt::format(
                       "(SELECT array_agg({} ORDER BY n) FROM unnest(ARRAY[{}]::integer[]) WITH "
                       "ORDINALITY AS x(i, n))",
                       item, items)
                 : fmt::format("ARRAY[{}]::integer[]", items);
    s += fmt::format(
        "SELECT tpcc_new_order(:w_id, :d_id, :c_id, :ol_cnt, {}, ARRAY[{}]::integer[],\n"
        "  ARRAY[{}]::integer[]);\n",
        items_arg, supply, quantities);
    return s;
  }
  const std::string lines = fmt::format(
      "SELECT {} AS i, w, q, n FROM unnest(ARRAY[{}]::integer[], ARRAY[{}]::integer[], "
      "ARRAY[{}]::integer[]) WITH ORDINALITY AS x(i, w, q, n) WHERE n <= :ol_cnt",
      item, items, supply, quantities);
  std::string dist = "CASE CAST(:d_id AS integer)";
  for (int d = 1; d <= 10; ++d) dist += fmt::format(" WHEN {0} THEN s_dist_{0:02}", d);
  dist += " END";
  s += "BEGIN;\n";
  s += "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = :w_id AND d_id = :d_id\n"
       "  RETURNING d_next_o_id - 1 AS o_id \\gset\n";
  s += "SELECT c_discount, c_last, c_credit, w_tax, d_tax FROM customer, warehouse, district\n"
       "  WHERE w_id = :w_id AND d_w_id = :w_id AND d_id = :d_id\n"
       "  AND c_w_id = :w_id AND c_d_id = :d_id AND c_id = :c_id;\n";
  s += fmt::format(
      "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
      "o_all_local)\n"
      "  SELECT CAST(:o_id AS integer), CAST(:d_id AS integer), CAST(:w_id AS integer),\n"
      "  CAST(:c_id AS integer), now(), NULL, CAST(:ol_cnt AS integer),\n"
      "  CASE WHEN bool_and(w = :w_id) THEN 1 ELSE 0 END\n"
      "  FROM unnest(ARRAY[{}]::integer[]) WITH ORDINALITY AS x(w, n) WHERE n <= :ol_cnt;\n",
      supply);
  s += "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (:o_id, :d_id, :w_id);\n";
  // Lock the stock rows in key order first: two New-Orders that share items
  // then wait for each other instead of deadlocking.
  s += fmt::format(
      "SELECT count(*) FROM (SELECT 1 FROM stock WHERE (s_w_id, s_i_id) IN (SELECT w, i FROM "
      "({}) l)\n"
      "  ORDER BY s_w_id, s_i_id FOR UPDATE) locked;\n",
      lines);
  s += fmt::format(
      "WITH l AS ({}),\n"
      "a AS (SELECT i, w, sum(q)::integer AS q, count(*)::integer AS c,\n"
      "  (count(*) FILTER (WHERE w <> :w_id))::integer AS r FROM l GROUP BY i, w),\n"
      "s AS (UPDATE stock SET s_quantity = CASE WHEN s_quantity - a.q >= 10 THEN s_quantity - "
      "a.q\n"
      "  ELSE s_quantity - a.q + 91 END, s_ytd = s_ytd + a.q, s_order_cnt = s_order_cnt + a.c,\n"
      "  s_remote_cnt = s_remote_cnt + a.r FROM a WHERE s_w_id = a.w AND s_i_id = a.i\n"
      "  RETURNING s_w_id, s_i_id, {} AS dist)\n"
      "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,\n"
      "  ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)\n"
      "  SELECT CAST(:o_id AS integer), CAST(:d_id AS integer), CAST(:w_id AS integer), l.n, "
      "l.i, l.w,\n"
      "  NULL, l.q, l.q * it.i_price, s.dist\n"
      "  FROM l JOIN item it ON it.i_id = l.i JOIN s ON s.s_w_id = l.w AND s.s_i_id = l.i;\n",
      lines, dist);
  s += rollback ? "ROLLBACK;\n" : "END;\n";
  return s;
}

// Payment (clause 2.5): 15% of customers of a random district of another
// warehouse (when there is one), 60% chosen by last name.
std::string Payment(const TxnInputs& in) {
  std::string s = Terminal(in.warehouses);
  s += "\\set remote random(1, 100)\n";
  if (in.warehouses > 1) {
    s += fmt::format("\\set c_w_id CASE WHEN :remote <= 15 THEN {} ELSE :w_id END\n",
                     OtherWarehouse(in.warehouses));
    s += "\\set c_d_id CASE WHEN :remote <= 15 THEN random(1, 10) ELSE :d_id END\n";
  } else {
    s += "\\set c_w_id :w_id\n\\set c_d_id :d_id\n";
  }
  s += "\\set amount random(100, 500000)\n";  // cents: H_AMOUNT is 1.00 to 5,000.00
  if (in.procedures) {
    return s + CustomerDraws(in.run) +
           "SELECT tpcc_payment(:w_id, :d_id, :c_w_id, :c_d_id, :c_id, :by_name <= 60, "
           ":c_last_n,\n  :amount);\n";
  }
  s += "BEGIN;\n";
  s += CustomerChoice(in.run, "c_w_id", "c_d_id");
  s += "UPDATE warehouse SET w_ytd = w_ytd + CAST(:amount AS numeric) / 100 WHERE w_id = :w_id;\n";
  s += "UPDATE district SET d_ytd = d_ytd + CAST(:amount AS numeric) / 100\n"
       "  WHERE d_w_id = :w_id AND d_id = :d_id;\n";
  s += "UPDATE customer SET c_balance = c_balance - CAST(:amount AS numeric) / 100,\n"
       "  c_ytd_payment = c_ytd_payment + CAST(:amount AS numeric) / 100,\n"
       "  c_payment_cnt = c_payment_cnt + 1,\n"
       "  c_data = CASE WHEN c_credit = 'BC' THEN left(CAST(:c_id AS text) || ' ' ||\n"
       "    CAST(:c_d_id AS text) || ' ' || CAST(:c_w_id AS text) || ' ' || CAST(:d_id AS text)\n"
       "    || ' ' || CAST(:w_id AS text) || ' '\n"
       "    || CAST(CAST(CAST(:amount AS numeric) / 100 AS numeric(6, 2)) AS text)\n"
       "    || ' | ' || c_data, 500) ELSE c_data END\n"
       "  WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id AND c_id = :c_id;\n";
  s += "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, "
       "h_data)\n"
       "  SELECT CAST(:c_id AS integer), CAST(:c_d_id AS integer), CAST(:c_w_id AS integer),\n"
       "  CAST(:d_id AS integer), CAST(:w_id AS integer), now(), CAST(:amount AS numeric) / 100,\n"
       "  w_name || '    ' || d_name FROM warehouse, district\n"
       "  WHERE w_id = :w_id AND d_w_id = :w_id AND d_id = :d_id;\n";
  s += "END;\n";
  return s;
}

// Order-Status (clause 2.6): read only, one snapshot.
std::string OrderStatus(const TxnInputs& in) {
  std::string s = Terminal(in.warehouses);
  if (in.procedures) {
    return s + CustomerDraws(in.run) +
           "SELECT tpcc_order_status(:w_id, :d_id, :c_id, :by_name <= 60, :c_last_n);\n";
  }
  s += "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY;\n";
  s += CustomerChoice(in.run, "w_id", "d_id");
  s += "SELECT c_balance, c_first, c_middle, c_last FROM customer\n"
       "  WHERE c_w_id = :w_id AND c_d_id = :d_id AND c_id = :c_id;\n"
       "SELECT o_id, o_entry_d, o_carrier_id FROM orders\n"
       "  WHERE o_w_id = :w_id AND o_d_id = :d_id AND o_c_id = :c_id ORDER BY o_id DESC LIMIT 1;\n"
       "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line\n"
       "  WHERE ol_w_id = :w_id AND ol_d_id = :d_id AND ol_o_id = (SELECT max(o_id) FROM orders\n"
       "  WHERE o_w_id = :w_id AND o_d_id = :d_id AND o_c_id = :c_id);\n"
       "END;\n";
  return s;
}

// Delivery (clause 2.7): the oldest new order of each of the warehouse's ten
// districts delivered by one carrier, in one statement.  The oldest one no
// other Delivery holds (SKIP LOCKED): two Deliveries of one warehouse take
// consecutive orders instead of the second finding the first's gone.
std::string Delivery(const TxnInputs& in) {
  std::string s = Terminal(in.warehouses);
  s += "\\set carrier random(1, 10)\n";
  if (in.procedures) return s + "SELECT tpcc_delivery(:w_id, :carrier);\n";
  s += "BEGIN;\n"
       "WITH m AS (SELECT d, (SELECT no_o_id FROM new_order WHERE no_w_id = :w_id AND "
       "no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED) AS o\n"
       "  FROM generate_series(1, 10) AS d),\n"
       "n AS (DELETE FROM new_order USING m WHERE no_w_id = :w_id AND no_d_id = m.d AND "
       "no_o_id = m.o\n"
       "  RETURNING no_d_id, no_o_id),\n"
       "o AS (UPDATE orders SET o_carrier_id = :carrier FROM n\n"
       "  WHERE o_w_id = :w_id AND o_d_id = n.no_d_id AND o_id = n.no_o_id RETURNING o_d_id, "
       "o_id, o_c_id),\n"
       "ol AS (UPDATE order_line SET ol_delivery_d = now() FROM o\n"
       "  WHERE ol_w_id = :w_id AND ol_d_id = o.o_d_id AND ol_o_id = o.o_id RETURNING ol_d_id, "
       "ol_amount),\n"
       "t AS (SELECT ol_d_id AS d, sum(ol_amount) AS amount FROM ol GROUP BY ol_d_id)\n"
       "UPDATE customer SET c_balance = c_balance + t.amount, c_delivery_cnt = c_delivery_cnt + "
       "1\n"
       "  FROM o JOIN t ON t.d = o.o_d_id\n"
       "  WHERE c_w_id = :w_id AND c_d_id = o.o_d_id AND c_id = o.o_c_id;\n"
       "END;\n";
  return s;
}

// Stock-Level (clause 2.8): distinct items of the district's last 20
// orders whose stock is below a threshold of 10 to 20.
std::string StockLevel(const TxnInputs& in) {
  std::string s = Terminal(in.warehouses);
  s += "\\set threshold random(10, 20)\n";
  if (in.procedures) return s + "SELECT tpcc_stock_level(:w_id, :d_id, :threshold);\n";
  // Each distinct item's stock row is read by its key in a subquery: as a
  // join, a grown order_line (millions of rows) tips the planner into
  // hashing the warehouse's whole stock (100,000 rows, ~200 ms a call).
  s += "SELECT count(*) FROM (SELECT DISTINCT ol_i_id FROM district\n"
       "  JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id\n"
       "    AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20\n"
       "  WHERE d_w_id = :w_id AND d_id = :d_id) AS i\n"
       "  WHERE (SELECT s_quantity FROM stock WHERE s_w_id = :w_id AND s_i_id = i.ol_i_id)\n"
       "    < :threshold;\n";
  return s;
}

}  // namespace

std::string_view TxnName(TxnType t) {
  switch (t) {
    case TxnType::kNewOrder:
      return "new-order";
    case TxnType::kNewOrderRollback:
      return "new-order-rollback";
    case TxnType::kPayment:
      return "payment";
    case TxnType::kOrderStatus:
      return "order-status";
    case TxnType::kDelivery:
      return "delivery";
    case TxnType::kStockLevel:
      return "stock-level";
  }
  return "?";
}

std::string LastNameSql(std::string_view var) {
  constexpr std::string_view kSyllables =
      "(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])";
  return fmt::format(
      "({0}[CAST(:{1} AS integer) / 100 + 1] || {0}[CAST(:{1} AS integer) / 10 % 10 + 1] || "
      "{0}[CAST(:{1} AS integer) % 10 + 1])",
      kSyllables, var);
}

int KeyingSeconds(TxnType t) {
  switch (t) {
    case TxnType::kNewOrder:
    case TxnType::kNewOrderRollback:
      return 18;
    case TxnType::kPayment:
      return 3;
    default:
      return 2;
  }
}

int ThinkMeanSeconds(TxnType t) {
  switch (t) {
    case TxnType::kNewOrder:
    case TxnType::kNewOrderRollback:
    case TxnType::kPayment:
      return 12;
    case TxnType::kOrderStatus:
      return 10;
    default:
      return 5;
  }
}

std::vector<TxnScript> TransactionScripts(const TxnInputs& in) {
  std::vector<TxnScript> s = {
      {TxnType::kNewOrder, 4455, NewOrder(in, false)},
      {TxnType::kNewOrderRollback, 45, NewOrder(in, true)},
      {TxnType::kPayment, 4300, Payment(in)},
      {TxnType::kOrderStatus, 400, OrderStatus(in)},
      {TxnType::kDelivery, 400, Delivery(in)},
      {TxnType::kStockLevel, 400, StockLevel(in)},
  };
  if (in.spec_timing) {
    for (TxnScript& t : s) {
      // Think time: -ln(r) x mean with r uniform in (0, 1], at most 10 x mean.
      // It comes first, then the keying time, then the transaction: the
      // script ends when the transaction does, so a transaction is counted
      // as soon as it ends, and a terminal stopped by the end of -T in a
      // sleep has nothing uncounted in the database.
      const int mean_ms = ThinkMeanSeconds(t.type) * 1000;
      t.text = fmt::format(
                   "\\set think_ms least(int(-ln(random(1, 1000000) / 1000000.0) * {}), {})\n"
                   "\\sleep :think_ms ms\n"
                   "\\sleep {} s\n",
                   mean_ms, 10 * mean_ms, KeyingSeconds(t.type)) +
               t.text;
    }
  }
  return s;
}

}  // namespace pgrig::tpcc
