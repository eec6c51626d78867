#include "workload/pgbench_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace pgrig::workload {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Statements as PostgreSQL 15's pgbench sends them (from the server log with
// log_statement = all), for the parts that define the schema.
TEST(PgbenchSchemaTest, CreateTablesMatchesPgbench) {
  InitOptions o;
  o.scale = 10;
  auto sql = CreateTablesSql(o);
  ASSERT_EQ(sql.size(), 4u);
  EXPECT_EQ(sql[0],
            "create table pgbench_history(tid int,bid int,aid    int,delta int,mtime "
            "timestamp,filler char(22))");
  EXPECT_EQ(sql[1],
            "create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) "
            "with (fillfactor=100)");
  EXPECT_EQ(sql[2],
            "create table pgbench_accounts(aid    int not null,bid int,abalance int,filler "
            "char(84)) with (fillfactor=100)");
  EXPECT_EQ(sql[3],
            "create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with "
            "(fillfactor=100)");
}

TEST(PgbenchSchemaTest, BigintAidsFromScale20000) {
  InitOptions o;
  o.scale = 20000;
  auto sql = CreateTablesSql(o);
  EXPECT_THAT(sql[0], HasSubstr("aid bigint,delta"));
  EXPECT_THAT(sql[2], HasSubstr("aid bigint not null"));
  o.scale = 19999;
  EXPECT_THAT(CreateTablesSql(o)[2], HasSubstr("aid    int not null"));
}

TEST(PgbenchSchemaTest, UnloggedFillfactorAndTablespace) {
  InitOptions o;
  o.fillfactor = 90;
  o.unlogged_tables = true;
  o.tablespace = "my \"ts\"";
  auto sql = CreateTablesSql(o);
  EXPECT_EQ(sql[1],
            "create unlogged table pgbench_tellers(tid int not null,bid int,tbalance int,filler "
            "char(84)) with (fillfactor=90) tablespace \"my \"\"ts\"\"\"");
  EXPECT_THAT(sql[0], ::testing::Not(HasSubstr("fillfactor")));
}

TEST(PgbenchSchemaTest, RangePartitionsMatchPgbench) {
  InitOptions o;
  o.scale = 2;
  o.partitions = 3;
  o.partition_method = PartitionMethod::kRange;
  o.fillfactor = 90;
  o.unlogged_tables = true;
  auto sql = CreateTablesSql(o);
  ASSERT_EQ(sql.size(), 7u);
  // The parent is not unlogged and has no fillfactor; its partitions have both.
  EXPECT_EQ(sql[2],
            "create table pgbench_accounts(aid    int not null,bid int,abalance int,filler "
            "char(84)) partition by range (aid)");
  EXPECT_EQ(sql[4],
            "create unlogged table pgbench_accounts_1\n  partition of pgbench_accounts\n  for "
            "values from (minvalue) to (66668) with (fillfactor=90)");
  EXPECT_EQ(sql[5],
            "create unlogged table pgbench_accounts_2\n  partition of pgbench_accounts\n  for "
            "values from (66668) to (133335) with (fillfactor=90)");
  EXPECT_EQ(sql[6],
            "create unlogged table pgbench_accounts_3\n  partition of pgbench_accounts\n  for "
            "values from (133335) to (maxvalue) with (fillfactor=90)");
}

TEST(PgbenchSchemaTest, RangePartitionAidsCoverEveryRowOnce) {
  InitOptions o;
  o.scale = 3;
  for (int parts : {1, 2, 7, 64}) {
    o.partitions = parts;
    int64_t next = 1;
    for (int p = 1; p <= parts; ++p) {
      AidRange r = RangePartitionAids(o, p);
      if (r.size() == 0) continue;
      EXPECT_EQ(r.first, next) << parts << " partitions, p=" << p;
      next = r.last + 1;
    }
    EXPECT_EQ(next, o.AccountRows() + 1) << parts;
  }
}

TEST(PgbenchSchemaTest, MorePartitionsThanRowsLeavesEmptyTail) {
  InitOptions o;
  o.scale = 1;
  o.partitions = 300000;
  EXPECT_EQ(RangePartitionAids(o, 1).size(), 1);
  EXPECT_EQ(RangePartitionAids(o, 100000).size(), 1);
  EXPECT_EQ(RangePartitionAids(o, 100001).size(), 0);
  EXPECT_EQ(RangePartitionAids(o, 300000).size(), 0);
}

TEST(PgbenchSchemaTest, HashPartitionsMatchPgbench) {
  InitOptions o;
  o.partitions = 4;
  o.partition_method = PartitionMethod::kHash;
  auto sql = CreateTablesSql(o);
  EXPECT_EQ(sql[2],
            "create table pgbench_accounts(aid    int not null,bid int,abalance int,filler "
            "char(84)) partition by hash (aid)");
  EXPECT_EQ(sql[7],
            "create table pgbench_accounts_4\n  partition of pgbench_accounts\n  for values "
            "with (modulus 4, remainder 3) with (fillfactor=100)");
}

// Expected partitions from PostgreSQL 15 itself: satisfies_hash_partition()
// on a table partitioned by hash into 7 parts (remainder + 1).
TEST(PgbenchSchemaTest, HashRoutingAgreesWithServerInt4) {
  const int expected_remainders[] = {5, 6, 6, 0, 1, 6, 6, 4, 6, 0, 0, 2, 1, 5, 5, 3, 2, 4, 5, 4};
  for (int aid = 1; aid <= 20; ++aid) {
    EXPECT_EQ(HashPartitionOf(aid, 7, false), expected_remainders[aid - 1] + 1) << aid;
  }
  EXPECT_EQ(HashPartitionOf(100000, 7, false), 4 + 1);
  EXPECT_EQ(HashPartitionOf(2000000000, 7, false), 1 + 1);
}

TEST(PgbenchSchemaTest, HashRoutingAgreesWithServerInt8) {
  EXPECT_EQ(HashPartitionOf(1, 7, true), 5 + 1);  // int8 hashes like int4 for small values
  EXPECT_EQ(HashPartitionOf(3000000000LL, 7, true), 0 + 1);
  EXPECT_EQ(HashPartitionOf(9000000000LL, 7, true), 5 + 1);
  EXPECT_EQ(HashPartitionOf(-5, 7, true), 0 + 1);
}

TEST(PgbenchSchemaTest, KeysAndForeignKeys) {
  InitOptions o;
  EXPECT_EQ(PrimaryKeySql("pgbench_accounts", "aid", o),
            "alter table pgbench_accounts add primary key (aid)");
  o.index_tablespace = "fast";
  EXPECT_EQ(PrimaryKeySql("pgbench_tellers", "tid", o),
            "alter table pgbench_tellers add primary key (tid) using index tablespace \"fast\"");
  auto fks = ForeignKeysSql();
  ASSERT_EQ(fks.size(), 5u);
  EXPECT_EQ(fks[4],
            "alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key "
            "(aid) references pgbench_accounts");
}

TEST(PgbenchSchemaTest, ServerSideGenerationMatchesPgbench) {
  InitOptions o;
  o.scale = 2;
  EXPECT_EQ(ServerGenerateBranchesSql(o),
            "insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, 2) "
            "as bid");
  EXPECT_EQ(ServerGenerateTellersSql(o),
            "insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / 10 + 1, 0 from "
            "generate_series(1, 20) as tid");
  EXPECT_EQ(ServerGenerateAccountsSql("pgbench_accounts", 1, 200000),
            "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / 100000 "
            "+ 1, 0, '' from generate_series(1, 200000) as aid");
}

TEST(PgbenchSchemaTest, BranchNumbering) {
  EXPECT_EQ(BranchOfAccount(1), 1);
  EXPECT_EQ(BranchOfAccount(100000), 1);
  EXPECT_EQ(BranchOfAccount(100001), 2);
  EXPECT_EQ(BranchOfTeller(10), 1);
  EXPECT_EQ(BranchOfTeller(11), 2);
}

uint32_t ReadU32(const std::string& b, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

TEST(PgbenchSchemaTest, BinaryCopyFraming) {
  std::string b;
  copy_binary::AppendHeader(b);
  ASSERT_EQ(b.size(), 19u);
  EXPECT_EQ(std::memcmp(b.data(), "PGCOPY\n\377\r\n\0", 11), 0);
  copy_binary::AppendAccount(b, 100001, /*bigint_aid=*/false);
  // 4 fields: aid, bid, abalance, filler (length 0, not NULL).
  EXPECT_EQ(static_cast<unsigned char>(b[19]), 0);
  EXPECT_EQ(static_cast<unsigned char>(b[20]), 4);
  EXPECT_EQ(ReadU32(b, 21), 4u);
  EXPECT_EQ(ReadU32(b, 25), 100001u);
  EXPECT_EQ(ReadU32(b, 33), 2u);  // bid
  EXPECT_EQ(ReadU32(b, 41), 0u);  // abalance
  EXPECT_EQ(ReadU32(b, 45), 0u);  // filler length
  EXPECT_EQ(b.size(), 19u + 30u);
  copy_binary::AppendTrailer(b);
  EXPECT_EQ(static_cast<unsigned char>(b[b.size() - 1]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(b[b.size() - 2]), 0xFF);
}

TEST(PgbenchSchemaTest, BinaryCopyBigintAndNullFiller) {
  std::string b;
  copy_binary::AppendAccount(b, 5000000000LL, /*bigint_aid=*/true);
  EXPECT_EQ(ReadU32(b, 2), 8u);
  EXPECT_EQ(ReadU32(b, 6), 1u);  // high half of 5e9
  EXPECT_EQ(ReadU32(b, 10), static_cast<uint32_t>(5000000000LL & 0xFFFFFFFF));
  std::string t;
  copy_binary::AppendTeller(t, 11);
  EXPECT_EQ(ReadU32(t, 6), 11u);
  EXPECT_EQ(ReadU32(t, 14), 2u);           // bid of teller 11
  EXPECT_EQ(ReadU32(t, 26), 0xFFFFFFFFu);  // filler NULL
}

}  // namespace
}  // namespace pgrig::workload
