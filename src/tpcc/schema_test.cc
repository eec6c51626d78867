#include "tpcc/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace pgrig::tpcc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TpccSchema, NineTablesInLoadOrderWithTheirKeys) {
  std::vector<std::string> names;
  for (const TableDef& t : Tables()) names.emplace_back(t.name);
  EXPECT_THAT(names, ElementsAre("item", "warehouse", "district", "customer", "history", "orders",
                                 "new_order", "order_line", "stock"));
  EXPECT_EQ(PrimaryKeySql(*FindTable("order_line")),
            "ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)");
  EXPECT_EQ(PrimaryKeySql(*FindTable("history")), "");
  EXPECT_EQ(FindTable("order"), nullptr);
  // Only the two columns the specification lets be null may be.
  std::vector<std::string> nullable;
  for (const TableDef& t : Tables()) {
    std::string_view rest = t.columns;
    while (!rest.empty()) {
      // Columns are separated by ", "; numeric(12,2) has no space.
      const size_t end = rest.find(", ");
      std::string_view column = rest.substr(0, end);
      if (column.find("NOT NULL") == std::string_view::npos) {
        nullable.emplace_back(column.substr(0, column.find(' ')));
      }
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
    }
  }
  EXPECT_THAT(nullable, ElementsAre("o_carrier_id", "ol_delivery_d"));
}

TEST(TpccSchema, PartitionsOnlyTheTablesThatGrowWithWarehouses) {
  const SchemaOptions four{.partitions = 4};
  std::set<std::string> partitioned;
  for (const TableDef& t : Tables()) {
    std::vector<std::string> sql = CreateTableSql(t, four);
    if (sql.size() > 1) partitioned.insert(std::string(t.name));
    EXPECT_EQ(sql.size(), t.partition_by.empty() ? 1u : 5u) << t.name;
  }
  EXPECT_EQ(partitioned, (std::set<std::string>{"customer", "history", "orders", "new_order",
                                                "order_line", "stock"}));
  std::vector<std::string> stock = CreateTableSql(*FindTable("stock"), four);
  EXPECT_THAT(stock[0], HasSubstr(") PARTITION BY HASH (s_w_id)"));
  EXPECT_EQ(stock[4],
            "CREATE TABLE stock_4 PARTITION OF stock FOR VALUES WITH (MODULUS 4, REMAINDER 3)");
  EXPECT_EQ(CreateTableSql(*FindTable("stock"), {}).size(), 1u);
}

}  // namespace
}  // namespace pgrig::tpcc
