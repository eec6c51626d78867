#include "workload/init_key_strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::workload {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ServerKeyTraits Server(const char* wal_level, int workers = 2) {
  return {.wal_level = wal_level, .max_parallel_maintenance_workers = workers};
}

TEST(InitKeyStrategyTest, MinimalWalSortsEachKeyInItsLoadTransaction) {
  for (int tables : {1, 8}) {
    KeyStrategyChoice c =
        ChooseKeyStrategy(Server("minimal"), {.tables_loaded_at_once = tables}, std::nullopt);
    EXPECT_EQ(c.strategy, KeyStrategy::kAfterEachLoad) << tables;
    EXPECT_THAT(c.reason, HasSubstr("wal_level = minimal"));
    EXPECT_THAT(c.reason, HasSubstr("without WAL"));
  }
}

TEST(InitKeyStrategyTest, UnloggedTablesSortEachKeyInItsLoadTransactionWhateverTheWalLevel) {
  for (const char* level : {"minimal", "replica", "logical"}) {
    for (int tables : {1, 8}) {
      KeyStrategyChoice c = ChooseKeyStrategy(
          Server(level), {.unlogged_tables = true, .tables_loaded_at_once = tables}, std::nullopt);
      EXPECT_EQ(c.strategy, KeyStrategy::kAfterEachLoad) << level << tables;
      EXPECT_THAT(c.reason, HasSubstr("unlogged"));
      EXPECT_THAT(c.reason, HasSubstr("without WAL"));
    }
  }
}

TEST(InitKeyStrategyTest, KeysDuringTheLoadAreNeverChosenUnforced) {
  for (const char* level : {"minimal", "replica", "logical"}) {
    for (bool unlogged : {false, true}) {
      for (int tables : {1, 2, 64}) {
        KeyStrategyChoice c = ChooseKeyStrategy(
            Server(level), {.unlogged_tables = unlogged, .tables_loaded_at_once = tables},
            std::nullopt);
        EXPECT_NE(c.strategy, KeyStrategy::kDuringLoad) << level << unlogged << tables;
      }
    }
  }
}

TEST(InitKeyStrategyTest, ReplicaOneTableKeysInStepP) {
  KeyStrategyChoice c =
      ChooseKeyStrategy(Server("replica", 2), {.tables_loaded_at_once = 1}, std::nullopt);
  EXPECT_EQ(c.strategy, KeyStrategy::kSeparateStep);
  EXPECT_THAT(c.reason, HasSubstr("wal_level = replica"));
  EXPECT_THAT(c.reason, HasSubstr("2 parallel maintenance workers"));
  c = ChooseKeyStrategy(Server("replica", 0), {.tables_loaded_at_once = 1}, std::nullopt);
  EXPECT_EQ(c.strategy, KeyStrategy::kSeparateStep);
  EXPECT_THAT(c.reason, Not(HasSubstr("parallel")));
}

TEST(InitKeyStrategyTest, ReplicaPartitionsKeyEachRightAfterItsLoad) {
  KeyStrategyChoice c =
      ChooseKeyStrategy(Server("replica"), {.tables_loaded_at_once = 2}, std::nullopt);
  EXPECT_EQ(c.strategy, KeyStrategy::kAfterEachLoad);
  EXPECT_THAT(c.reason, HasSubstr("wal_level = replica, 2 partitions loading at once"));
}

TEST(InitKeyStrategyTest, LogicalAndUnknownLevelsAreTreatedAsLogged) {
  for (const char* level : {"logical", "archive", ""}) {
    KeyStrategyChoice c =
        ChooseKeyStrategy(Server(level), {.tables_loaded_at_once = 1}, std::nullopt);
    EXPECT_EQ(c.strategy, KeyStrategy::kSeparateStep) << level;
  }
}

TEST(InitKeyStrategyTest, ForcedStrategyWinsAndSaysSo) {
  for (KeyStrategy s :
       {KeyStrategy::kDuringLoad, KeyStrategy::kAfterEachLoad, KeyStrategy::kSeparateStep}) {
    KeyStrategyChoice c = ChooseKeyStrategy(Server("minimal"), {}, s);
    EXPECT_EQ(c.strategy, s);
    EXPECT_EQ(c.reason, "forced by PGRIG_INIT_KEYS");
  }
}

TEST(InitKeyStrategyTest, NamesRoundTripAndBadNamesAreRefused) {
  for (KeyStrategy s :
       {KeyStrategy::kDuringLoad, KeyStrategy::kAfterEachLoad, KeyStrategy::kSeparateStep}) {
    auto parsed = ParseKeyStrategy(KeyStrategyName(s));
    ASSERT_TRUE(parsed.ok()) << KeyStrategyName(s);
    EXPECT_EQ(*parsed, s);
  }
  auto bad = ParseKeyStrategy("During-Load");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("PGRIG_INIT_KEYS=\"During-Load\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("during-load, after-each-load or separate-step"));
  EXPECT_FALSE(ParseKeyStrategy("").ok());
}

}  // namespace
}  // namespace pgrig::workload
