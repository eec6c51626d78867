// TPC-C's five transactions (specification revision 5.11, clause 2.4 to
// 2.8) as PL/pgSQL functions stored in the database, for runs that call one
// function per transaction instead of sending the client-side SQL of
// transactions.h.  The functions have exactly the effects of that SQL; only
// the inputs still come from the client, as arguments.  This module only
// builds the statements; whoever installs the functions runs them.
//
// The functions (all arguments and results integer unless said):
//
//   tpcc_last_name(n) -> text, IMMUTABLE: the last name of number n (0..999,
//     clause 4.3.2.3): the syllables BAR OUGHT ABLE PRI PRES ESE ANTI CALLY
//     ATION EING picked by n's three decimal digits, leading zeros included
//     (371 -> PRICALLYOUGHT, 40 -> BARPRESBAR).
//
//   tpcc_customer_by_name(w_id, d_id, c_last_n) -> c_id, STABLE: of the
//     customers of district (w_id, d_id) named tpcc_last_name(c_last_n),
//     sorted by first name, the one at position ceil(n / 2) (clause
//     2.5.2.2); raises no_data_found when no customer has the name.  Payment
//     and Order-Status choose their customer by name with it.
//
//   tpcc_new_order(w_id, d_id, c_id, ol_cnt, items integer[], supply
//     integer[], quantities integer[]) -> the new order's number, or -1 when
//     rolled back.  Line k (1..ol_cnt) orders quantities[k] of item items[k]
//     from warehouse supply[k]; elements past ol_cnt are ignored (REQUIRES:
//     every array has at least ol_cnt elements).  Takes the district's next
//     order number, reads the customer's, warehouse's and district's rates,
//     inserts the order (o_all_local 1 when every line is supplied by w_id)
//     and its new-order row, locks the stock rows used in
//     (s_w_id, s_i_id) order, so that concurrent New-Orders wait instead of
//     deadlocking, updates each distinct (item, supply warehouse) stock row
//     once with the sum of its lines' quantities, and inserts the lines.
//     Rollback (clause 2.4.1.4, the 1% of New-Orders with an unused item
//     number such as 100001): the work runs in a PL/pgSQL block with an
//     exception handler, i.e. a subtransaction.  When fewer lines can be
//     inserted than ol_cnt because an item does not exist, the function
//     raises SQLSTATE PT001, the block's subtransaction is rolled back (the
//     order number, order, new order and stock updates included), the handler
//     returns -1 and the caller's transaction commits nothing of the order.
//     Any other error propagates.
//
//   tpcc_payment(w_id, d_id, c_w_id, c_d_id, c_id, by_name boolean,
//     c_last_n, amount_cents) -> the paying customer's c_id.  Pays
//     amount_cents / 100 into warehouse w_id and district (w_id, d_id) on
//     behalf of customer (c_w_id, c_d_id, c_id), or, when by_name, of the
//     customer of (c_w_id, c_d_id) named tpcc_last_name(c_last_n) at position
//     ceil(n / 2) of the n so named sorted by first name (clause 2.5.2.2).
//     Updates the customer's balance, year-to-date payment and count, and for
//     bad credit ('BC') prepends the payment to c_data (kept to 500
//     characters); inserts the history row.  Raises no_data_found when no
//     customer has the name.
//
//   tpcc_order_status(w_id, d_id, c_id, by_name boolean, c_last_n) -> the
//     number of lines of the customer's latest order (0 when it has none).
//     Read only (STABLE, so all its queries see one snapshot): the customer,
//     chosen as in Payment, its latest order and that order's lines.
//
//   tpcc_delivery(w_id, carrier) -> the number of districts delivered (0 to
//     10).  For each district of w_id, the oldest new order is deleted, its
//     order given the carrier, its lines the delivery time, and its customer
//     credited with the lines' amounts and one more delivery.  A district
//     without new orders, or whose oldest new order another Delivery deleted
//     meanwhile, is skipped.
//
//   tpcc_stock_level(w_id, d_id, threshold) -> the number of distinct items
//     of the district's last 20 orders whose stock at w_id is below
//     threshold.  Read only (STABLE).
//
// Parameters are named p_<column> (locals v_<name>) so that no name in the
// bodies can also be a column.  Tables are referred to unqualified: the
// functions use the caller's search_path, like the client-side SQL.  Renaming
// a parameter of an existing function fails with CREATE OR REPLACE: run
// DropProceduresSql() first when the definitions may have changed.
#ifndef PGRIG_TPCC_PROCEDURES_H_
#define PGRIG_TPCC_PROCEDURES_H_

#include <string>
#include <vector>

namespace pgrig::tpcc {

// The CREATE OR REPLACE FUNCTION statements, one per element: the helpers
// tpcc_last_name and tpcc_customer_by_name first, then New-Order, Payment,
// Order-Status, Delivery and Stock-Level.  Each runs on its own (no trailing semicolon);
// PostgreSQL 15.
std::vector<std::string> ProcedureSql();

// One DROP FUNCTION IF EXISTS statement for the six functions, with their
// full signatures.
std::string DropProceduresSql();

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_PROCEDURES_H_
