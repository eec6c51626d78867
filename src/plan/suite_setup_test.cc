// The suite's price (ChoosePrice, moved out of cli/cmd_run.cc by issue 26),
// against the built-in price catalog.
#include "plan/suite_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::plan {
namespace {

using ::testing::HasSubstr;

// No PGRIG_DATA_DIR and no executable directory: the catalog compiled in.
const cost::CatalogSearch kBuiltIn{};

TEST(ChoosePriceTest, GivenPriceWins) {
  auto c = ChoosePrice(0.5, "r8g.large", "m7i.large", "", kBuiltIn);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->price.has_value());
  EXPECT_DOUBLE_EQ(c->price->usd_per_hour, 0.5);
  EXPECT_EQ(c->price->instance_type, "");
  EXPECT_EQ(c->price->from, "--usd-per-hour");
}

TEST(ChoosePriceTest, InstanceFromTheCatalog) {
  auto c = ChoosePrice(std::nullopt, "r8g.large", "", "us-east-1", kBuiltIn);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->price.has_value());
  EXPECT_EQ(c->price->instance_type, "r8g.large");
  EXPECT_GT(c->price->usd_per_hour, 0.0);
  EXPECT_THAT(c->price->from, HasSubstr("--instance aws r8g.large in the price catalog"));
  EXPECT_THAT(c->price->from, HasSubstr(cost::kShippedCatalogName));
  EXPECT_TRUE(c->note.empty());
}

TEST(ChoosePriceTest, UnknownGivenInstanceIsAnErrorUnknownDetectedOneANote) {
  auto given = ChoosePrice(std::nullopt, "no.such-type", "", "", kBuiltIn);
  ASSERT_FALSE(given.ok());
  EXPECT_THAT(given.status().message(), HasSubstr("--instance no.such-type: "));
  auto detected = ChoosePrice(std::nullopt, "", "no.such-type", "", kBuiltIn);
  ASSERT_TRUE(detected.ok()) << detected.status().ToString();
  EXPECT_FALSE(detected->price.has_value());
  EXPECT_THAT(detected->note, HasSubstr("no price: this machine is no.such-type"));
  EXPECT_THAT(detected->note, HasSubstr("use --usd-per-hour"));
  // The detected type priced when the catalog has it.
  auto known = ChoosePrice(std::nullopt, "", "r8g.large", "", kBuiltIn);
  ASSERT_TRUE(known.ok());
  ASSERT_TRUE(known->price.has_value());
  EXPECT_THAT(known->price->from, HasSubstr("this machine's aws r8g.large"));
}

TEST(ChoosePriceTest, NothingKnownNoPriceNoNote) {
  auto c = ChoosePrice(std::nullopt, "", "", "", kBuiltIn);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->price.has_value());
  EXPECT_TRUE(c->note.empty());
}

}  // namespace
}  // namespace pgrig::plan
