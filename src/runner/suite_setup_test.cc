// The suite's price (ChoosePrice, moved out of cli/cmd_run.cc by issue 26),
// against the built-in price catalog; the clients-against-connections check.
#include "runner/suite_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"

namespace pgrig::runner {
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

// `pgrig run --resume DIR` reads the suite and the plan recorded in it
// (ReadResumable, moved out of cli/cmd_run.cc by issue 26).
class ReadResumableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig_resumable_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto text = ReadWholeFile(PGRIG_SOURCE_DIR "/plans/quick.toml");
    ASSERT_TRUE(text.ok());
    plan_text_ = *text;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void WriteSuite(const std::string& text) {
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/suite.json", text).ok());
  }
  std::string dir_;
  std::string plan_text_;
};

TEST_F(ReadResumableTest, ThePlanRecordedInTheSuite) {
  nlohmann::json suite = {
      {"schema", "pgrig.suite/1"},
      {"label", "mine"},
      {"plan",
       {{"name", "quick"}, {"source_path", "/somewhere/quick.toml"}, {"source_text", plan_text_}}}};
  WriteSuite(suite.dump());
  auto r = ReadResumable(dir_, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->plan.name, "quick");
  EXPECT_EQ(r->plan.source_path, "/somewhere/quick.toml");
  EXPECT_EQ(r->plan.source_text, plan_text_);
  EXPECT_EQ(r->label, "mine");
  EXPECT_EQ(r->suite.label, "mine");
  EXPECT_TRUE(ReadResumable(dir_, "quick").ok());
  EXPECT_TRUE(ReadResumable(dir_, "/somewhere/quick.toml").ok());
  auto other = ReadResumable(dir_, "standard");
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("it continues plan 'quick', not 'standard'"));
  // No label: the plan's name.
  suite.erase("label");
  WriteSuite(suite.dump());
  EXPECT_EQ(ReadResumable(dir_, "")->label, "quick");
}

TEST_F(ReadResumableTest, WhatCannotBeResumedIsSaid) {
  auto none = ReadResumable(dir_, "");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no suite.json there"));
  WriteSuite("{\"schema\": ");
  EXPECT_THAT(ReadResumable(dir_, "").status().message(), HasSubstr("not valid JSON"));
  WriteSuite("[1, 2]");
  EXPECT_THAT(ReadResumable(dir_, "").status().message(),
              HasSubstr("expected a pgrig.suite document"));
  WriteSuite(R"({"schema": "pgrig.suite/1", "plan": {"name": "x"}})");
  EXPECT_THAT(ReadResumable(dir_, "").status().message(), HasSubstr("holds no plan"));
  WriteSuite(R"({"schema": "pgrig.suite/1", "plan": {"source_text": "[plan\nscale = "}})");
  EXPECT_FALSE(ReadResumable(dir_, "").ok());
}

plan::Cell CellOf(const std::string& id, int clients) {
  plan::Cell c;
  c.id = id;
  c.clients = clients;
  return c;
}

TEST(CheckClientsFitTest, RoomIsMaxLessReservedInUseAndPgrigsOwn) {
  const ConnectionRoom room{.max_connections = 100, .reserved = 3, .in_use = 7};
  // 100 - 3 - 7 - kSuiteOwnSessions = 87.
  EXPECT_TRUE(CheckClientsFit({CellOf("a/c87", 87)}, {}, room).ok());
  Status s =
      CheckClientsFit({CellOf("a/c8", 8), CellOf("a/c88", 88), CellOf("a/c90", 90)}, {}, room);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // The largest cell that does not fit is named, with the numbers.
  EXPECT_THAT(s.message(), HasSubstr("cell a/c90 needs 90 client connections"));
  EXPECT_THAT(s.message(), HasSubstr("room for 87 (max_connections 100, 3 reserved, 7 in use"));
}

TEST(CheckClientsFitTest, ACellThatRaisesMaxConnectionsIsJudgedByItsOwnValue) {
  const ConnectionRoom room{.max_connections = 100, .reserved = 3, .in_use = 0};
  const std::vector<std::map<std::string, std::string>> settings = {{{"max_connections", "500"}},
                                                                    {}};
  EXPECT_TRUE(CheckClientsFit({CellOf("big", 400)}, settings, room).ok());
  EXPECT_FALSE(
      CheckClientsFit({CellOf("big", 400), CellOf("small-server", 400)}, settings, room).ok());
}

}  // namespace
}  // namespace pgrig::runner
