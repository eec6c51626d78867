#include "results/suite_doc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "results/reader.h"

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
  d.tpcc = SuiteTpcc{.warehouses = 4, .procedures = true, .loaded = true};
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
  d.builds = {SuiteBuild{.name = "installed", .server = json{{"version", "15.18"}}},
              SuiteBuild{.name = "native"}};
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
  ASSERT_TRUE(back->tpcc.has_value());
  EXPECT_EQ(back->tpcc->warehouses, 4);
  EXPECT_TRUE(back->tpcc->procedures);
  EXPECT_TRUE(back->tpcc->loaded);
  EXPECT_EQ(written["tpcc"], (json{{"warehouses", 4}, {"procedures", true}, {"loaded", true}}));
  // A suite written before the tpcc section was recorded has none.
  json before = written;
  before.erase("tpcc");
  auto old = SuiteDocFromJson(before, "suite.json");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_FALSE(old->tpcc.has_value());
  EXPECT_EQ(FinishedRuns(*back),
            (std::vector<std::pair<std::string, int>>{{"ro/prepared/default/c1/j1", 0}}));
  EXPECT_EQ(SuiteCellIds(*back), std::vector<std::string>{"ro/prepared/default/c1/j1"});
  ASSERT_EQ(back->builds.size(), 2u);
  EXPECT_EQ(back->builds[0].server["version"], "15.18");
  EXPECT_TRUE(back->builds[1].server.is_null());
}

// A suite of a plan with builds, as `pgrig run` writes it, read and split
// into one suite per build.
TEST(SplitByBuildTest, OneSuitePerBuildWithItsCellsAndServer) {
  SuiteDoc d = FullSuiteDoc();
  d.runs.clear();
  d.facts = json{{"schema", "pgrig.facts/1"}, {"server", {{"version_num", 150018}}}};
  auto cell = [](const std::string& build) {
    return json{{"id", "ro/prepared/default/c1/j1@" + build},
                {"workload", "ro"},
                {"protocol", "prepared"},
                {"variant", "default"},
                {"clients", 1},
                {"threads", 1},
                {"metric", "tps"},
                {"build", build},
                {"settings", {{"per_connection", json::object()}, {"server", json::object()}}},
                {"summary", nullptr}};
  };
  d.cells = json::array({cell("installed"), cell("native")});
  d.builds = {SuiteBuild{.name = "installed",
                         .server = {{"version_num", 150018}, {"build", {{"cflags", "-O2"}}}}},
              SuiteBuild{.name = "native",
                         .server = {{"version_num", 150020},
                                    {"build", {{"cflags", "-O3 -march=native"}}}}}};
  auto suite = ParseSuiteJson(SuiteDocToJson(d).dump(), "r/suite.json");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  ASSERT_EQ(suite->builds.size(), 2u);
  EXPECT_EQ(suite->cells[1].build, "native");
  const std::vector<Suite> parts = SplitByBuild(*suite);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].label, "installed");
  EXPECT_EQ(parts[1].label, "native");
  ASSERT_EQ(parts[1].cells.size(), 1u);
  EXPECT_EQ(parts[1].cells[0].id, "ro/prepared/default/c1/j1");
  EXPECT_EQ(parts[0].pg_version, "15.18");
  EXPECT_EQ(parts[1].pg_version, "15.20");
  EXPECT_EQ(parts[1].server_build.at("cflags"), "-O3 -march=native");
  EXPECT_NE(parts[0].suite_id, parts[1].suite_id);

  // A suite without builds is not split; a cell naming a build the suite
  // does not list is an error naming it.
  EXPECT_TRUE(SplitByBuild(Suite{}).empty());
  json bad = SuiteDocToJson(d);
  bad["cells"][1]["build"] = "other";
  auto wrong = ParseSuiteJson(bad.dump(), "r/suite.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("r/suite.json: cell \"ro/prepared/default/c1/j1@native\" names build "
                        "\"other\""));
}

TEST(SuiteDocTest, ANewSuiteHasNullsWhereNothingHappenedYet) {
  SuiteDoc d;
  const json j = SuiteDocToJson(d);
  for (const char* key :
       {"ended_at", "stop_reason", "wall_s", "scale", "lio", "tpcc", "fsync", "price"}) {
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
      {"/tpcc", "4", "\"tpcc\" must be an object or null"},
      {"/tpcc/warehouses", "four", "tpcc: \"warehouses\" must be a whole number"},
      {"/tpcc/loaded", 1, "tpcc: \"loaded\" must be true or false"},
      {"/builds", "native", "\"builds\" must be an array"},
      {"/builds/1", "native", "builds[1]: not an object"},
      {"/builds/0/name", 7, "builds[0]: \"name\" must be a string"},
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
