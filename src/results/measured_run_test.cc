#include "results/measured_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using ::testing::HasSubstr;

TEST(ParseResultTest, ReadsAllKeys) {
  auto r = ParseMeasuredRun(R"({
    "schema": "pgrig.suite/1",
    "summary": {"tps": 1000, "tps_ci95": [900, 1100], "iterations": 3,
                "tps_samples": [950, 1000, 1050]},
    "run": {"instance_type": "r8g.4xlarge", "usd_per_hour": 0.9},
    "facts": {"host": {"cloud": {"instance_type": "ignored.large"}}}
  })",
                            "a.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->schema, "pgrig.suite/1");
  EXPECT_DOUBLE_EQ(r->tps, 1000);
  ASSERT_TRUE(r->tps_ci95.has_value());
  EXPECT_DOUBLE_EQ(r->tps_ci95->low, 900);
  EXPECT_DOUBLE_EQ(r->tps_ci95->high, 1100);
  EXPECT_EQ(r->iterations, 3);
  EXPECT_EQ(r->tps_samples.size(), 3u);
  EXPECT_EQ(r->instance_type, "r8g.4xlarge");
  EXPECT_EQ(r->instance_type_key, "run.instance_type");
  EXPECT_DOUBLE_EQ(*r->usd_per_hour, 0.9);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(ParseResultTest, FallsBackToFactsAndWarnsWithoutSchema) {
  auto r = ParseMeasuredRun(
      R"({"summary": {"tps": 5}, "facts": {"host": {"cloud": {"instance_type": "r7i.4xlarge"}}}})",
      "b.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->instance_type, "r7i.4xlarge");
  EXPECT_EQ(r->instance_type_key, "facts.host.cloud.instance_type");
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_THAT(r->warnings[0], HasSubstr("no \"schema\""));
}

TEST(ParseResultTest, Errors) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"{\"schema\": \"pgrig.suite/1\",\n \"summary\": {\"tps\": }}", "c.json:2:"},
      {R"({"schema": "other/1", "summary": {"tps": 1}})", "not a pgrig results file"},
      {R"({"schema": "pgrig.suite/1", "summary": {}})", "no \"summary.tps\""},
      {R"({"summary": {"tps": 0}})", "summary.tps"},
      {R"({"summary": {"tps": "fast"}})", "must be a number"},
      {R"({"summary": {"tps": 10, "tps_ci95": [11]}})", "summary.tps_ci95"},
      {R"({"summary": {"tps": 10, "tps_ci95": [12, 11]}})", "0 < low <= high"},
      {R"({"summary": {"tps": 10, "tps_samples": [1, -2]}})", "summary.tps_samples[1]"},
      {R"({"summary": {"tps": 10, "iterations": 0}})", "summary.iterations"},
      {R"({"summary": {"tps": 10}, "run": {"usd_per_hour": -1}})", "run.usd_per_hour"},
      {R"([1, 2])", "not a JSON object"},
  };
  for (const auto& c : cases) {
    auto r = ParseMeasuredRun(c.json, "c.json");
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.json;
    EXPECT_THAT(r.status().message(), HasSubstr("c.json")) << c.json;
  }
}

}  // namespace
}  // namespace pgrig::results
