#include "tpcc/procedures.h"

namespace pgrig::tpcc {
namespace {

// Three syllables by the decimal digits of n, hundreds first.  A single
// expression, so that the planner can inline the function.
constexpr const char* kLastName = R"sql(
CREATE OR REPLACE FUNCTION tpcc_last_name(n integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION',
                'EING'])[n / 100 + 1]
      || (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION',
                'EING'])[n / 10 % 10 + 1]
      || (ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION',
                'EING'])[n % 10 + 1]
$$)sql";

// The customer of district (w_id, d_id) that last name number c_last_n
// selects (clause 2.5.2.2): of the n so named, sorted by first name, the one
// at position ceil(n / 2).  Raises no_data_found when there is none.
constexpr const char* kCustomerByName = R"sql(
CREATE OR REPLACE FUNCTION tpcc_customer_by_name(p_w_id integer, p_d_id integer,
    p_c_last_n integer)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_last text := tpcc_last_name(p_c_last_n);
  v_c_id integer;
BEGIN
  SELECT c_id INTO v_c_id FROM customer
    WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = v_last
    ORDER BY c_first
    OFFSET (SELECT (count(*) - 1) / 2 FROM customer
            WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = v_last)
    LIMIT 1;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no customer named % in district % of warehouse %', v_last, p_d_id, p_w_id
      USING ERRCODE = 'no_data_found';
  END IF;
  RETURN v_c_id;
END
$$)sql";

// The inner block is a subtransaction: raising PT001 in it undoes
// everything the order did, and its handler turns the error into -1.  An
// item that does not exist has no row to join in the last INSERT, so the
// order gets fewer lines than p_ol_cnt: that is the signal.
constexpr const char* kNewOrder = R"sql(
CREATE OR REPLACE FUNCTION tpcc_new_order(p_w_id integer, p_d_id integer, p_c_id integer,
    p_ol_cnt integer, p_items integer[], p_supply integer[], p_quantities integer[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_o_id integer;
  v_lines integer;
BEGIN
  BEGIN
    UPDATE district SET d_next_o_id = d_next_o_id + 1
      WHERE d_w_id = p_w_id AND d_id = p_d_id
      RETURNING d_next_o_id - 1 INTO v_o_id;
    PERFORM c_discount, c_last, c_credit, w_tax, d_tax FROM customer, warehouse, district
      WHERE w_id = p_w_id AND d_w_id = p_w_id AND d_id = p_d_id
        AND c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
                        o_all_local)
      SELECT v_o_id, p_d_id, p_w_id, p_c_id, now(), NULL, p_ol_cnt,
             CASE WHEN bool_and(x.w = p_w_id) THEN 1 ELSE 0 END
      FROM unnest(p_supply) WITH ORDINALITY AS x(w, n) WHERE x.n <= p_ol_cnt;
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
    -- Lock the stock rows in key order before updating them, so that two
    -- orders sharing items wait for each other instead of deadlocking.
    PERFORM 1 FROM stock
      WHERE (s_w_id, s_i_id) IN (
        SELECT x.w, x.i FROM unnest(p_items, p_supply) WITH ORDINALITY AS x(i, w, n)
        WHERE x.n <= p_ol_cnt)
      ORDER BY s_w_id, s_i_id FOR UPDATE;
    WITH l AS (
      SELECT x.i, x.w, x.q, x.n
      FROM unnest(p_items, p_supply, p_quantities) WITH ORDINALITY AS x(i, w, q, n)
      WHERE x.n <= p_ol_cnt),
    a AS (
      SELECT l.i, l.w, sum(l.q)::integer AS q, count(*)::integer AS c,
             (count(*) FILTER (WHERE l.w <> p_w_id))::integer AS r
      FROM l GROUP BY l.i, l.w),
    s AS (
      UPDATE stock SET
        s_quantity = CASE WHEN s_quantity - a.q >= 10 THEN s_quantity - a.q
                          ELSE s_quantity - a.q + 91 END,
        s_ytd = s_ytd + a.q, s_order_cnt = s_order_cnt + a.c,
        s_remote_cnt = s_remote_cnt + a.r
      FROM a WHERE s_w_id = a.w AND s_i_id = a.i
      RETURNING s_w_id, s_i_id,
        CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
                    WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                    WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09
                    WHEN 10 THEN s_dist_10 END AS dist)
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      SELECT v_o_id, p_d_id, p_w_id, l.n, l.i, l.w, NULL, l.q, l.q * it.i_price, s.dist
      FROM l JOIN item it ON it.i_id = l.i JOIN s ON s.s_w_id = l.w AND s.s_i_id = l.i;
    GET DIAGNOSTICS v_lines = ROW_COUNT;
    IF v_lines <> p_ol_cnt THEN
      RAISE EXCEPTION 'tpcc_new_order: % of % items found', v_lines, p_ol_cnt
        USING ERRCODE = 'PT001';
    END IF;
    RETURN v_o_id;
  EXCEPTION WHEN SQLSTATE 'PT001' THEN
    RETURN -1;
  END;
END
$$)sql";

constexpr const char* kPayment = R"sql(
CREATE OR REPLACE FUNCTION tpcc_payment(p_w_id integer, p_d_id integer, p_c_w_id integer,
    p_c_d_id integer, p_c_id integer, p_by_name boolean, p_c_last_n integer,
    p_amount_cents integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_c_id integer := p_c_id;
  v_amount numeric(6, 2) := CAST(p_amount_cents AS numeric) / 100;
BEGIN
  IF p_by_name THEN
    v_c_id := tpcc_customer_by_name(p_c_w_id, p_c_d_id, p_c_last_n);
  END IF;
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
  UPDATE customer SET
    c_balance = c_balance - v_amount,
    c_ytd_payment = c_ytd_payment + v_amount,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC' THEN
        left(CAST(v_c_id AS text) || ' ' || CAST(p_c_d_id AS text) || ' ' ||
             CAST(p_c_w_id AS text) || ' ' || CAST(p_d_id AS text) || ' ' ||
             CAST(p_w_id AS text) || ' ' || CAST(v_amount AS text) || ' | ' || c_data, 500)
      ELSE c_data END
    WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    SELECT v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, now(), v_amount,
           w_name || '    ' || d_name
    FROM warehouse, district
    WHERE w_id = p_w_id AND d_w_id = p_w_id AND d_id = p_d_id;
  RETURN v_c_id;
END
$$)sql";

// STABLE: every query of the call sees the snapshot of the statement that
// calls it, so the customer, order and lines read are consistent.
constexpr const char* kOrderStatus = R"sql(
CREATE OR REPLACE FUNCTION tpcc_order_status(p_w_id integer, p_d_id integer, p_c_id integer,
    p_by_name boolean, p_c_last_n integer)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_c_id integer := p_c_id;
  v_customer record;
  v_order record;
  v_line record;
  v_lines integer := 0;
BEGIN
  IF p_by_name THEN
    v_c_id := tpcc_customer_by_name(p_w_id, p_d_id, p_c_last_n);
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_customer FROM customer
    WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_order FROM orders
    WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
    ORDER BY o_id DESC LIMIT 1;
  IF FOUND THEN
    FOR v_line IN
      SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
      WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_order.o_id
    LOOP
      v_lines := v_lines + 1;
    END LOOP;
  END IF;
  RETURN v_lines;
END
$$)sql";

// A district is counted only when this call's DELETE removed its oldest new
// order: under READ COMMITTED a concurrent Delivery that got there first
// leaves it nothing to delete.
constexpr const char* kDelivery = R"sql(
CREATE OR REPLACE FUNCTION tpcc_delivery(p_w_id integer, p_carrier integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_o_id integer;
  v_c_id integer;
  v_rows integer;
  v_amount numeric;
  v_delivered integer := 0;
BEGIN
  FOR v_d_id IN 1..10 LOOP
    -- The oldest new order no other Delivery holds.
    v_o_id := NULL;
    SELECT no_o_id INTO v_o_id FROM new_order
      WHERE no_w_id = p_w_id AND no_d_id = v_d_id
      ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED;
    CONTINUE WHEN v_o_id IS NULL;
    DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    CONTINUE WHEN v_rows = 0;
    v_c_id := NULL;
    UPDATE orders SET o_carrier_id = p_carrier
      WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id
      RETURNING o_c_id INTO v_c_id;
    WITH ol AS (
      UPDATE order_line SET ol_delivery_d = now()
        WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id
        RETURNING ol_amount)
    SELECT sum(ol.ol_amount) INTO v_amount FROM ol;
    IF v_amount IS NOT NULL THEN
      UPDATE customer SET c_balance = c_balance + v_amount,
                          c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
    END IF;
    v_delivered := v_delivered + 1;
  END LOOP;
  RETURN v_delivered;
END
$$)sql";

constexpr const char* kStockLevel = R"sql(
CREATE OR REPLACE FUNCTION tpcc_stock_level(p_w_id integer, p_d_id integer,
    p_threshold integer)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_count integer;
BEGIN
  -- Stock rows by key, one per distinct item (as transactions.cc says why).
  SELECT count(*) INTO v_count FROM (SELECT DISTINCT ol_i_id FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id
      AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
    WHERE d_w_id = p_w_id AND d_id = p_d_id) AS i
    WHERE (SELECT s_quantity FROM stock WHERE s_w_id = p_w_id AND s_i_id = i.ol_i_id)
      < p_threshold;
  RETURN v_count;
END
$$)sql";

// The statements start with the newline that follows R"sql(; drop it.
std::string Trimmed(const char* sql) {
  std::string s(sql);
  if (!s.empty() && s.front() == '\n') s.erase(0, 1);
  return s;
}

}  // namespace

std::vector<std::string> ProcedureSql() {
  return {Trimmed(kLastName),    Trimmed(kCustomerByName), Trimmed(kNewOrder),  Trimmed(kPayment),
          Trimmed(kOrderStatus), Trimmed(kDelivery),       Trimmed(kStockLevel)};
}

std::string DropProceduresSql() {
  return "DROP FUNCTION IF EXISTS "
         "tpcc_new_order(integer, integer, integer, integer, integer[], integer[], integer[]), "
         "tpcc_payment(integer, integer, integer, integer, integer, boolean, integer, integer), "
         "tpcc_order_status(integer, integer, integer, boolean, integer), "
         "tpcc_delivery(integer, integer), "
         "tpcc_stock_level(integer, integer, integer), "
         "tpcc_customer_by_name(integer, integer, integer), "
         "tpcc_last_name(integer)";
}

}  // namespace pgrig::tpcc
