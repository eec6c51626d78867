// The nine tables of TPC-C (specification revision 5.11, clause 1.3) as
// `pgrig tpcc init` creates them in PostgreSQL, and the statements that key,
// index and tie them together.  Pure functions of the options: the loader
// runs the statements, tests read them.
//
// Names are the specification's in lower case, with ORDER spelled `orders`
// and NEW-ORDER `new_order` (ORDER is an SQL keyword).  Money is `numeric`
// (the specification asks for an exact type), identifiers and counts are
// `integer`, times `timestamp`.  Every column is NOT NULL but the two the
// specification allows to be null (O_CARRIER_ID and OL_DELIVERY_D of orders
// not yet delivered).
//
// With partitions > 0 the six tables that grow with the warehouses and hold
// most of the rows (stock, customer, history, orders, new_order, order_line)
// are hash-partitioned by their warehouse column into that many partitions,
// so that the loader's parallel COPYs by warehouse and the keys built after
// them work on separate heaps; item, warehouse and district stay plain.
#ifndef PGRIG_TPCC_SCHEMA_H_
#define PGRIG_TPCC_SCHEMA_H_

#include <string>
#include <string_view>
#include <vector>

namespace pgrig::tpcc {

// The most warehouses `tpcc init` and a plan's tpcc workload take.
inline constexpr int kMaxWarehouses = 100000;

struct TableDef {
  std::string_view name;
  std::string_view columns;      // what CREATE TABLE's parentheses hold
  std::string_view primary_key;  // column list; "" for history, which has none
  // The warehouse column a partitioned table is partitioned by; "" for the
  // tables that are never partitioned.
  std::string_view partition_by;
};

// The nine tables, in the order the loader fills them (item first: stock
// and order lines refer to it).
const std::vector<TableDef>& Tables();

// The table named `name`, or nullptr.
const TableDef* FindTable(std::string_view name);

struct SchemaOptions {
  int partitions = 0;  // 0: no partitioning; else 1 to 1024
};

// CREATE TABLE for `t`, then, when partitioned, CREATE TABLE ... PARTITION
// OF for each partition (t.name + "_" + i, i from 1).
std::vector<std::string> CreateTableSql(const TableDef& t, const SchemaOptions& o);

// ALTER TABLE ... ADD PRIMARY KEY, or "" for history.
std::string PrimaryKeySql(const TableDef& t);

// The secondary indexes the transactions need: customers by last name
// (Payment and Order-Status select 60% of customers by C_LAST, clause
// 2.5.1.2 and 2.6.1.2) and orders by customer (Order-Status's most recent
// order of a customer).
std::vector<std::string> SecondaryIndexSql();

// The foreign keys of clause 1.3, in an order in which each refers to a
// key that exists.  Optional (`--foreign-keys`): they cost every insert a
// lookup, and most published TPC-C-like results run without them.
std::vector<std::string> ForeignKeySql();

// DROP TABLE IF EXISTS of all nine, CASCADE.
std::string DropTablesSql();

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_SCHEMA_H_
