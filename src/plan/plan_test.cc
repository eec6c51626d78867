#include "plan/plan.h"

#include <gtest/gtest.h>

namespace pgrig::plan {
namespace {

TEST(PlanTest, Placeholder) { EXPECT_EQ(IterationOrder(3, 1), (std::vector<int>{1, 2, 0})); }

}  // namespace
}  // namespace pgrig::plan
