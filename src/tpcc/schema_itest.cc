// The TPC-C tables created, keyed, indexed and tied together on the
// embedded cluster, plain and partitioned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_cluster.h"
#include "tpcc/schema.h"

namespace pgrig::tpcc {
namespace {

void CreateAll(pg::Connection& c, const SchemaOptions& o, bool foreign_keys) {
  ASSERT_TRUE(c.Exec(DropTablesSql()).ok());
  for (const TableDef& t : Tables()) {
    for (const std::string& sql : CreateTableSql(t, o)) {
      auto r = c.Exec(sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.status().message();
    }
  }
  for (const TableDef& t : Tables()) {
    if (const std::string sql = PrimaryKeySql(t); !sql.empty()) {
      auto r = c.Exec(sql);
      ASSERT_TRUE(r.ok()) << sql << ": " << r.status().message();
    }
  }
  for (const std::string& sql : SecondaryIndexSql()) {
    auto r = c.Exec(sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().message();
  }
  if (!foreign_keys) return;
  for (const std::string& sql : ForeignKeySql()) {
    auto r = c.Exec(sql);
    ASSERT_TRUE(r.ok()) << sql << ": " << r.status().message();
  }
}

std::string Count(pg::Connection& c, const std::string& sql) { return *c.QueryValue(sql); }

TEST(TpccSchemaITest, PlainTablesWithKeysIndexesAndForeignKeys) {
  testing::FreshDatabase("tpcc_schema_plain");
  pg::Connection c = testing::ConnectShared("tpcc_schema_plain");
  CreateAll(c, {}, /*foreign_keys=*/true);
  EXPECT_EQ(Count(c,
                  "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relnamespace = "
                  "'public'::regnamespace"),
            "9");
  EXPECT_EQ(Count(c,
                  "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND "
                  "connamespace = 'public'::regnamespace"),
            "8");
  EXPECT_EQ(Count(c,
                  "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND "
                  "connamespace = 'public'::regnamespace"),
            "10");
  // Money is exact: a payment's cents add up.
  EXPECT_EQ(Count(c,
                  "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                  "WHERE attrelid = 'customer'::regclass AND attname = 'c_balance'"),
            "numeric(12,2)");
  // The keys hold: a second order line with the same number is refused.
  ASSERT_TRUE(c.Exec("INSERT INTO warehouse VALUES (1,'w','s1','s2','c','ST','123411111',0.1,"
                     "300000)")
                  .ok());
  auto orphan = c.Exec(
      "INSERT INTO district VALUES (1,2,'d','s1','s2','c','ST','123411111',0.1,"
      "30000,3001)");
  EXPECT_FALSE(orphan.ok()) << "district of a missing warehouse accepted";
  ASSERT_TRUE(c.Exec(DropTablesSql()).ok());
}

TEST(TpccSchemaITest, PartitionedTablesSpreadRowsByWarehouse) {
  testing::FreshDatabase("tpcc_schema_parts");
  pg::Connection c = testing::ConnectShared("tpcc_schema_parts");
  CreateAll(c, {.partitions = 3}, /*foreign_keys=*/false);
  ASSERT_TRUE(c.Exec("INSERT INTO new_order SELECT 1, 1, w FROM generate_series(1, 30) w").ok());
  // Every partition got some of the 30 warehouses, and the key spans them.
  EXPECT_EQ(Count(c, "SELECT count(DISTINCT tableoid) FROM new_order"), "3");
  auto dup = c.Exec("INSERT INTO new_order VALUES (1, 1, 7)");
  EXPECT_FALSE(dup.ok());
  // 6 tables of 3 partitions (their indexes' partitions are in pg_inherits
  // too: not counted).
  EXPECT_EQ(Count(c,
                  "SELECT count(*) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid "
                  "WHERE p.relkind = 'r'"),
            "18");
  ASSERT_TRUE(c.Exec(DropTablesSql()).ok());
  EXPECT_EQ(Count(c, "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace"),
            "0");
}

}  // namespace
}  // namespace pgrig::tpcc
