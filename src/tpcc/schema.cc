#include "tpcc/schema.h"

#include <fmt/format.h>

namespace pgrig::tpcc {

const std::vector<TableDef>& Tables() {
  static const std::vector<TableDef> kTables = {
      {"item",
       "i_id integer NOT NULL, i_im_id integer NOT NULL, i_name varchar(24) NOT NULL, "
       "i_price numeric(5,2) NOT NULL, i_data varchar(50) NOT NULL",
       "i_id", ""},
      {"warehouse",
       "w_id integer NOT NULL, w_name varchar(10) NOT NULL, w_street_1 varchar(20) NOT NULL, "
       "w_street_2 varchar(20) NOT NULL, w_city varchar(20) NOT NULL, w_state char(2) NOT NULL, "
       "w_zip char(9) NOT NULL, w_tax numeric(4,4) NOT NULL, w_ytd numeric(12,2) NOT NULL",
       "w_id", ""},
      {"district",
       "d_id integer NOT NULL, d_w_id integer NOT NULL, d_name varchar(10) NOT NULL, "
       "d_street_1 varchar(20) NOT NULL, d_street_2 varchar(20) NOT NULL, "
       "d_city varchar(20) NOT NULL, d_state char(2) NOT NULL, d_zip char(9) NOT NULL, "
       "d_tax numeric(4,4) NOT NULL, d_ytd numeric(12,2) NOT NULL, d_next_o_id integer NOT NULL",
       "d_w_id, d_id", ""},
      {"customer",
       "c_id integer NOT NULL, c_d_id integer NOT NULL, c_w_id integer NOT NULL, "
       "c_first varchar(16) NOT NULL, c_middle char(2) NOT NULL, c_last varchar(16) NOT NULL, "
       "c_street_1 varchar(20) NOT NULL, c_street_2 varchar(20) NOT NULL, "
       "c_city varchar(20) NOT NULL, c_state char(2) NOT NULL, c_zip char(9) NOT NULL, "
       "c_phone char(16) NOT NULL, c_since timestamp NOT NULL, c_credit char(2) NOT NULL, "
       "c_credit_lim numeric(12,2) NOT NULL, c_discount numeric(4,4) NOT NULL, "
       "c_balance numeric(12,2) NOT NULL, c_ytd_payment numeric(12,2) NOT NULL, "
       "c_payment_cnt integer NOT NULL, c_delivery_cnt integer NOT NULL, "
       "c_data varchar(500) NOT NULL",
       "c_w_id, c_d_id, c_id", "c_w_id"},
      {"history",
       "h_c_id integer NOT NULL, h_c_d_id integer NOT NULL, h_c_w_id integer NOT NULL, "
       "h_d_id integer NOT NULL, h_w_id integer NOT NULL, h_date timestamp NOT NULL, "
       "h_amount numeric(6,2) NOT NULL, h_data varchar(24) NOT NULL",
       "", "h_w_id"},
      {"orders",
       "o_id integer NOT NULL, o_d_id integer NOT NULL, o_w_id integer NOT NULL, "
       "o_c_id integer NOT NULL, o_entry_d timestamp NOT NULL, o_carrier_id integer, "
       "o_ol_cnt integer NOT NULL, o_all_local integer NOT NULL",
       "o_w_id, o_d_id, o_id", "o_w_id"},
      {"new_order", "no_o_id integer NOT NULL, no_d_id integer NOT NULL, no_w_id integer NOT NULL",
       "no_w_id, no_d_id, no_o_id", "no_w_id"},
      {"order_line",
       "ol_o_id integer NOT NULL, ol_d_id integer NOT NULL, ol_w_id integer NOT NULL, "
       "ol_number integer NOT NULL, ol_i_id integer NOT NULL, ol_supply_w_id integer NOT NULL, "
       "ol_delivery_d timestamp, ol_quantity integer NOT NULL, ol_amount numeric(6,2) NOT NULL, "
       "ol_dist_info char(24) NOT NULL",
       "ol_w_id, ol_d_id, ol_o_id, ol_number", "ol_w_id"},
      {"stock",
       "s_i_id integer NOT NULL, s_w_id integer NOT NULL, s_quantity integer NOT NULL, "
       "s_dist_01 char(24) NOT NULL, s_dist_02 char(24) NOT NULL, s_dist_03 char(24) NOT NULL, "
       "s_dist_04 char(24) NOT NULL, s_dist_05 char(24) NOT NULL, s_dist_06 char(24) NOT NULL, "
       "s_dist_07 char(24) NOT NULL, s_dist_08 char(24) NOT NULL, s_dist_09 char(24) NOT NULL, "
       "s_dist_10 char(24) NOT NULL, s_ytd integer NOT NULL, s_order_cnt integer NOT NULL, "
       "s_remote_cnt integer NOT NULL, s_data varchar(50) NOT NULL",
       "s_w_id, s_i_id", "s_w_id"},
  };
  return kTables;
}

const TableDef* FindTable(std::string_view name) {
  for (const TableDef& t : Tables()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string> CreateTableSql(const TableDef& t, const SchemaOptions& o) {
  const bool partitioned = o.partitions > 0 && !t.partition_by.empty();
  std::vector<std::string> sql;
  sql.push_back(fmt::format(
      "CREATE TABLE {} ({}){}", t.name, t.columns,
      partitioned ? fmt::format(" PARTITION BY HASH ({})", t.partition_by) : std::string()));
  if (partitioned) {
    for (int i = 0; i < o.partitions; ++i) {
      sql.push_back(fmt::format(
          "CREATE TABLE {0}_{1} PARTITION OF {0} FOR VALUES WITH (MODULUS {2}, REMAINDER {3})",
          t.name, i + 1, o.partitions, i));
    }
  }
  return sql;
}

std::string PrimaryKeySql(const TableDef& t) {
  if (t.primary_key.empty()) return "";
  return fmt::format("ALTER TABLE {} ADD PRIMARY KEY ({})", t.name, t.primary_key);
}

std::vector<std::string> SecondaryIndexSql() {
  return {"CREATE INDEX customer_by_last_name ON customer (c_w_id, c_d_id, c_last, c_first)",
          "CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)"};
}

std::vector<std::string> ForeignKeySql() {
  return {
      "ALTER TABLE district ADD FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)",
      "ALTER TABLE customer ADD FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id)",
      "ALTER TABLE history ADD FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) "
      "REFERENCES customer (c_w_id, c_d_id, c_id)",
      "ALTER TABLE history ADD FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)",
      "ALTER TABLE orders ADD FOREIGN KEY (o_w_id, o_d_id, o_c_id) "
      "REFERENCES customer (c_w_id, c_d_id, c_id)",
      "ALTER TABLE new_order ADD FOREIGN KEY (no_w_id, no_d_id, no_o_id) "
      "REFERENCES orders (o_w_id, o_d_id, o_id)",
      "ALTER TABLE order_line ADD FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) "
      "REFERENCES orders (o_w_id, o_d_id, o_id)",
      "ALTER TABLE order_line ADD FOREIGN KEY (ol_supply_w_id, ol_i_id) "
      "REFERENCES stock (s_w_id, s_i_id)",
      "ALTER TABLE stock ADD FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id)",
      "ALTER TABLE stock ADD FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
  };
}

std::string DropTablesSql() {
  std::string names;
  for (const TableDef& t : Tables()) {
    if (!names.empty()) names += ", ";
    names += t.name;
  }
  return "DROP TABLE IF EXISTS " + names + " CASCADE";
}

}  // namespace pgrig::tpcc
