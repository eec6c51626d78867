#include "workload/init_analyze_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::workload {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Every partition exactly once, in order: the holders' first, then the
// parent's session's.
void ExpectEachPartitionOnce(const PartitionAnalyzePlan& plan, int partitions) {
  std::vector<int> all;
  for (const auto& mine : plan.holders) {
    EXPECT_FALSE(mine.empty());
    all.insert(all.end(), mine.begin(), mine.end());
  }
  all.insert(all.end(), plan.with_parent.begin(), plan.with_parent.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(partitions));
  for (int p = 1; p <= partitions; ++p) EXPECT_EQ(all[static_cast<size_t>(p - 1)], p);
}

TEST(PlanPartitionAnalysesTest, TwoSessionsBalanceTheParentAgainstTheHoldersPartitions) {
  // The measured case: 8 partitions, 2 sessions.  The parent (2) and 3
  // partitions against 5 partitions.
  const PartitionAnalyzePlan plan = PlanPartitionAnalyses(8, 2);
  ASSERT_EQ(plan.holders.size(), 1u);
  EXPECT_THAT(plan.holders[0], ElementsAre(1, 2, 3, 4, 5));
  EXPECT_THAT(plan.with_parent, ElementsAre(6, 7, 8));
}

TEST(PlanPartitionAnalysesTest, FewPartitionsLeaveTheParentAlone) {
  PartitionAnalyzePlan plan = PlanPartitionAnalyses(2, 2);
  ASSERT_EQ(plan.holders.size(), 1u);
  EXPECT_THAT(plan.holders[0], ElementsAre(1, 2));
  EXPECT_THAT(plan.with_parent, IsEmpty());

  // One partition: some other session must still hold it.
  plan = PlanPartitionAnalyses(1, 2);
  ASSERT_EQ(plan.holders.size(), 1u);
  EXPECT_THAT(plan.holders[0], ElementsAre(1));
  EXPECT_THAT(plan.with_parent, IsEmpty());
}

TEST(PlanPartitionAnalysesTest, MoreSessionsSpreadTheHoldersEvenly) {
  // 8 + 2 units over 4 sessions: 2.5 each; the parent takes one partition,
  // the three holders 3, 2 and 2.
  const PartitionAnalyzePlan plan = PlanPartitionAnalyses(8, 4);
  ASSERT_EQ(plan.holders.size(), 3u);
  EXPECT_THAT(plan.holders[0], ElementsAre(1, 2, 3));
  EXPECT_THAT(plan.holders[1], ElementsAre(4, 5));
  EXPECT_THAT(plan.holders[2], ElementsAre(6, 7));
  EXPECT_THAT(plan.with_parent, ElementsAre(8));
}

TEST(PlanPartitionAnalysesTest, NoMoreHoldersThanPartitions) {
  const PartitionAnalyzePlan plan = PlanPartitionAnalyses(3, 16);
  ASSERT_EQ(plan.holders.size(), 3u);
  for (const auto& mine : plan.holders) EXPECT_EQ(mine.size(), 1u);
  EXPECT_THAT(plan.with_parent, IsEmpty());
}

TEST(PlanPartitionAnalysesTest, EveryPartitionOnceAndNoSessionFarAboveItsShare) {
  for (int sessions = 2; sessions <= 17; ++sessions) {
    for (int partitions = 1; partitions <= 40; ++partitions) {
      SCOPED_TRACE(testing::Message() << partitions << " partitions, " << sessions << " sessions");
      const PartitionAnalyzePlan plan = PlanPartitionAnalyses(partitions, sessions);
      ExpectEachPartitionOnce(plan, partitions);
      EXPECT_LE(plan.holders.size(), static_cast<size_t>(sessions - 1));
      // Within one partition of the fair share, or the parent's weight
      // where the parent alone is more than a share.
      const double share = static_cast<double>(partitions + kParentAnalyzeWeight) / sessions;
      const double bound = std::max(share + 1.0, static_cast<double>(kParentAnalyzeWeight));
      for (const auto& mine : plan.holders) EXPECT_LE(mine.size(), bound);
      EXPECT_LE(static_cast<double>(plan.with_parent.size()) + kParentAnalyzeWeight, bound);
    }
  }
}

TEST(PlanPartitionAnalysesTest, OutOfRangeInputsGiveAnEmptyPlan) {
  EXPECT_THAT(PlanPartitionAnalyses(0, 2).holders, IsEmpty());
  EXPECT_THAT(PlanPartitionAnalyses(8, 1).holders, IsEmpty());
  EXPECT_THAT(PlanPartitionAnalyses(8, 1).with_parent, IsEmpty());
}

}  // namespace
}  // namespace pgrig::workload
