#include "workload/init_key_strategy.h"

#include <fmt/format.h>
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

TEST(InitKeyStrategyTest, BuildsBesideLoadsThatFillTheCoresRunWithoutParallelWorkers) {
  // Minimal, unlogged and replica with partitions all key each table in its
  // load transaction; with as many loads at once as cores, no workers.
  struct Case {
    const char* level;
    bool unlogged;
  };
  for (Case k : {Case{"minimal", false}, Case{"replica", true}, Case{"replica", false}}) {
    for (int cores : {2, 8}) {
      for (int tables : {cores, cores + 1}) {
        KeyStrategyChoice c = ChooseKeyStrategy(
            Server(k.level, 1),
            {.unlogged_tables = k.unlogged, .tables_loaded_at_once = tables, .cores = cores},
            std::nullopt);
        EXPECT_EQ(c.strategy, KeyStrategy::kAfterEachLoad) << k.level << tables;
        EXPECT_TRUE(c.serial_builds) << k.level << tables;
        EXPECT_THAT(c.reason,
                    HasSubstr(fmt::format("without parallel maintenance workers, the {} loads "
                                          "keeping the {} cores busy",
                                          tables, cores)));
      }
    }
  }
  // A forced after-each-load gets the same rule.
  KeyStrategyChoice forced = ChooseKeyStrategy(
      Server("minimal"), {.tables_loaded_at_once = 2, .cores = 2}, KeyStrategy::kAfterEachLoad);
  EXPECT_TRUE(forced.serial_builds);
  EXPECT_THAT(forced.reason, HasSubstr("forced by PGRIG_INIT_KEYS; without parallel"));
}

TEST(InitKeyStrategyTest, ParallelWorkersStayWhereACoreMayBeFree) {
  auto serial = [](ServerKeyTraits server, LoadShape load, std::optional<KeyStrategy> forced) {
    KeyStrategyChoice c = ChooseKeyStrategy(server, load, forced);
    EXPECT_EQ(c.reason.find("without parallel"), std::string::npos) << c.reason;
    return c.serial_builds;
  };
  // One accounts table: its build may use the cores the other sessions left.
  EXPECT_FALSE(serial(Server("minimal"), {.tables_loaded_at_once = 1, .cores = 1}, std::nullopt));
  // Fewer loads at once than cores.
  EXPECT_FALSE(serial(Server("minimal"), {.tables_loaded_at_once = 4, .cores = 8}, std::nullopt));
  // Cores unknown.
  EXPECT_FALSE(serial(Server("minimal"), {.tables_loaded_at_once = 8, .cores = 0}, std::nullopt));
  // The server gives no workers anyway: nothing to set.
  EXPECT_FALSE(
      serial(Server("minimal", 0), {.tables_loaded_at_once = 2, .cores = 2}, std::nullopt));
  // Keys in step p (pgbench's order) or kept during the COPY (no sort).
  EXPECT_FALSE(serial(Server("replica"), {.tables_loaded_at_once = 1, .cores = 1}, std::nullopt));
  EXPECT_FALSE(serial(Server("minimal"), {.tables_loaded_at_once = 2, .cores = 2},
                      KeyStrategy::kSeparateStep));
  EXPECT_FALSE(serial(Server("minimal"), {.tables_loaded_at_once = 2, .cores = 2},
                      KeyStrategy::kDuringLoad));
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
