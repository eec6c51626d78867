#include "results/suite_doc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

SuiteDoc FullSuiteDoc() {
  SuiteDoc d;
  d.tool_version = "0.9.0";
  d.command_line = {"pgrig", "run", "quick"};
  d.label = "arm";
  d.started_at = "2026-12-03T15:00:00Z";
  d.ended_at = "2026-12-03T15:10:00Z";
  d.resumed_at = {"2026-12-03T15:05:00Z"};
  d.complete = true;
  d.stop_reason = "completed";
  d.wall_s = 600.5;
  d.cpus = 2;
  d.plan_name = "quick";
  d.plan_description = "a quick look";
  d.plan_source_path = "/p/quick.toml";
  d.plan_source_text = "[plan]\nname = \"quick\"\n";
  d.plan_parsed = json{{"iterations", 1}};
  d.target_description = "embedded cluster";
  d.target_embedded = true;
  d.target_local = true;
  d.scale = SuiteScale{.value = 10, .reason = "fits", .loaded = true};
  d.lio = SuiteLio{
      .tables = 2, .blocks_per_table = 5000000000, .size = "1GB", .reason = "r", .loaded = false};
  d.fsync = json{{"schema", "pgrig.fsync/1"}, {"workload", "flush"}};
  d.facts = json{{"schema", "pgrig.facts/1"}};
  d.settings_all_cells = {{"jit", "off"}};
  d.settings_server_changed = true;
  d.settings_restored = true;
  d.price = SuitePrice{.usd_per_hour = 0.5, .instance_type = "m7g.large", .from = "--instance"};
  d.iterations = 1;
  d.cells = json::array(
      {json{{"id", "ro/prepared/default/c1/j1"},
            {"metric", "tps"},
            {"settings", {{"per_connection", json::object()}, {"server", json::object()}}},
            {"summary", nullptr}}});
  SuiteRun r;
  r.run = 1;
  r.cell = "ro/prepared/default/c1/j1";
  r.iteration = 0;
  r.position = 1;
  r.ok = true;
  r.started_at = "2026-12-03T15:01:00Z";
  r.ended_at = "2026-12-03T15:02:00Z";
  r.before_run = {"CHECKPOINT"};
  r.warmup_s = 5;
  r.server_settings = {{"shared_buffers", "256MB"}};
  r.result = json{{"schema", "pgrig.result/1"}, {"summary", {{"tps", 1000.0}}}};
  r.notes = {"a note"};
  d.runs.push_back(r);
  SuiteRun failed = r;
  failed.run = 2;
  failed.iteration = 1;
  failed.ok = false;
  failed.error = "the run was aborted";
  failed.result = nullptr;
  d.runs.push_back(failed);
  d.notes = {"suite note"};
  return d;
}

TEST(SuiteDocTest, WrittenAndReadBackIsTheSameDocument) {
  const SuiteDoc d = FullSuiteDoc();
  const json written = SuiteDocToJson(d);
  EXPECT_EQ(written["schema"], "pgrig.suite/2");
  EXPECT_EQ(written["runs"][1]["status"], "failed");
  EXPECT_EQ(written["price"]["instance_type"], "m7g.large");
  auto back = SuiteDocFromJson(written, "suite.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(SuiteDocToJson(*back), written);
  // A suite an older pgrig began (/1) is read, so that it can be resumed,
  // and written back as /2.
  json older = written;
  older["schema"] = "pgrig.suite/1";
  auto resumed = SuiteDocFromJson(older, "suite.json");
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_EQ(SuiteDocToJson(*resumed), written);
  EXPECT_EQ(back->lio->blocks_per_table, 5000000000);
  EXPECT_EQ(FinishedRuns(*back),
            (std::vector<std::pair<std::string, int>>{{"ro/prepared/default/c1/j1", 0}}));
  EXPECT_EQ(SuiteCellIds(*back), std::vector<std::string>{"ro/prepared/default/c1/j1"});
}

TEST(SuiteDocTest, ANewSuiteHasNullsWhereNothingHappenedYet) {
  SuiteDoc d;
  const json j = SuiteDocToJson(d);
  for (const char* key : {"ended_at", "stop_reason", "wall_s", "scale", "lio", "fsync", "price"}) {
    EXPECT_TRUE(j[key].is_null()) << key;
  }
  EXPECT_TRUE(j["settings"]["restored"].is_null());
  EXPECT_TRUE(j["runs"].is_array());
  auto back = SuiteDocFromJson(j, "suite.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_FALSE(back->settings_restored.has_value());
  EXPECT_FALSE(back->price.has_value());
}

TEST(SuiteDocTest, MalformedDocumentsAreErrorsNamingTheKey) {
  const json good = SuiteDocToJson(FullSuiteDoc());
  struct Case {
    const char* pointer;
    json value;
    const char* expect;
  } cases[] = {
      {"/schema", "pgrig.result/1", "pgrig.suite/2"},
      {"/complete", "yes", "\"complete\" must be true or false"},
      {"/runs", json::object(), "\"runs\" must be an array"},
      {"/runs/0/iteration", 1.5, "runs[0]: \"iteration\" must be a whole number"},
      {"/runs/1/notes", json::array({1}), "runs[1]: \"notes\" must be an array of strings"},
      {"/cells/0/id", 3, "an array of cells, each with an \"id\""},
      {"/price/usd_per_hour", "cheap", "price: \"usd_per_hour\" must be a number"},
      {"/scale", 10, "\"scale\" must be an object or null"},
  };
  for (const Case& c : cases) {
    json bad = good;
    bad[json::json_pointer(c.pointer)] = c.value;
    auto r = SuiteDocFromJson(bad, "x/suite.json");
    ASSERT_FALSE(r.ok()) << c.pointer;
    EXPECT_THAT(r.status().message(), HasSubstr("x/suite.json")) << c.pointer;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.pointer;
  }
  auto syntax = ParseSuiteDoc("{\"schema\":\n", "y/suite.json");
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().message(), HasSubstr("y/suite.json:2:1: not valid JSON"));
  // Numbers beyond a double's range, anywhere: an error naming the place.
  for (const char* number : {"1e400", "-1e400", "1e999999"}) {
    const std::string text =
        std::string("{\"schema\": \"pgrig.suite/1\",\n \"x\": ") + number + "}";
    auto r = ParseSuiteDoc(text, "z/suite.json");
    ASSERT_FALSE(r.ok()) << number;
    EXPECT_THAT(r.status().message(),
                HasSubstr("z/suite.json:2:7: not valid JSON: number overflow"))
        << number;
  }
}

}  // namespace
}  // namespace pgrig::results
