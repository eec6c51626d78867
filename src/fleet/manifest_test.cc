// The fleet run manifest: round trip, refusal of bad files, the resume check.
#include "fleet/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "common/fs.h"
#include "fleet/run.h"

namespace pgrig::fleet {
namespace {

using ::testing::HasSubstr;

Manifest Sample() {
  Manifest m;
  m.run_id = "20261201T120000Z";
  m.fleet_file = "/srv/fleet.toml";
  m.fleet_hash = ContentHash("fleet text");
  m.plan = "/srv/plan.toml";
  m.plan_hash = ContentHash("plan text");
  m.mode = "compare";
  m.hosts = {{.label = "a",
              .destination = "u@a",
              .outcome = ManifestOutcome::kCompleted,
              .results = "/r/a",
              .remote_results = ".pgrig/fleet/x/results",
              .message = "results in /r/a"},
             {.label = "b", .destination = "b", .outcome = ManifestOutcome::kPartial}};
  return m;
}

TEST(Manifest, RoundTripsThroughAFile) {
  char tmpl[] = "/tmp/pgrig-manifest-test-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  Manifest m = Sample();
  ASSERT_TRUE(WriteManifest(dir, m).ok());
  EXPECT_FALSE(m.updated.empty());
  auto back = ReadManifest(dir);
  (void)RemoveTree(dir);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->run_id, m.run_id);
  EXPECT_EQ(back->fleet_hash, m.fleet_hash);
  EXPECT_EQ(back->plan, m.plan);
  ASSERT_EQ(back->hosts.size(), 2u);
  EXPECT_EQ(back->hosts[0].outcome, ManifestOutcome::kCompleted);
  EXPECT_EQ(back->hosts[0].results, "/r/a");
  EXPECT_EQ(back->hosts[0].remote_results, ".pgrig/fleet/x/results");
  EXPECT_EQ(back->hosts[1].outcome, ManifestOutcome::kPartial);
  ASSERT_NE(back->Find("b"), nullptr);
  EXPECT_EQ(back->Find("c"), nullptr);
}

TEST(Manifest, MissingDirectoryIsNotAFleetRun) {
  auto r = ReadManifest("/nonexistent/pgrig-run");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not a fleet run directory"));
  EXPECT_THAT(r.status().message(), HasSubstr("fleet-run.json"));
}

TEST(Manifest, RefusesOtherJson) {
  EXPECT_THAT(ParseManifest("{", "m.json").status().message(), HasSubstr("not valid JSON"));
  // A number beyond a double's range is an error, not an uncaught exception.
  EXPECT_THAT(ParseManifest("{\"run_id\": 1e400}", "m.json").status().message(),
              HasSubstr("m.json:1:12: not valid JSON: number overflow parsing '1e400'"));
  EXPECT_THAT(ParseManifest(R"({"schema":"pgrig.suite/1"})", "m.json").status().message(),
              HasSubstr("pgrig.fleet-run/1"));
  std::string text = results::ManifestToJson(Sample());
  text.replace(text.find("\"partial\""), 9, "\"weird\"");
  auto r = ParseManifest(text, "m.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("unknown outcome \"weird\""));
  EXPECT_THAT(r.status().message(), HasSubstr("m.json"));
}

TEST(Manifest, ResumeRefusesAChangedFleetFileOrPlan) {
  Manifest m = Sample();
  EXPECT_TRUE(CheckResumable(m, "fleet text", "plan text").ok());
  Status fleet = CheckResumable(m, "fleet text, edited", "plan text");
  ASSERT_FALSE(fleet.ok());
  EXPECT_THAT(fleet.message(), HasSubstr("/srv/fleet.toml changed since run 20261201T120000Z"));
  EXPECT_THAT(fleet.message(), HasSubstr("without --resume"));
  Status plan = CheckResumable(m, "fleet text", "plan text 2");
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.message(), HasSubstr("plan /srv/plan.toml changed"));
}

// The manifest of a new run and what each host's end makes of its entry
// (both moved out of cli/cmd_fleet.cc, issue 26).
TEST(Manifest, NewRunHasSutHostsPendingAndOthersSkipped) {
  Fleet f;
  f.mode = FleetMode::kCompare;
  f.hosts = {FleetHost{.label = "a", .destination = "u@a"},
             FleetHost{.label = "c", .destination = "c", .role = HostRole::kClient}};
  const Manifest m = NewManifest(f, "20261203T120000Z", "fleet.toml", "fleet text",
                                 "/srv/../srv/plan.toml", "plan text");
  EXPECT_EQ(m.run_id, "20261203T120000Z");
  EXPECT_TRUE(m.fleet_file.starts_with("/")) << m.fleet_file;
  EXPECT_TRUE(m.fleet_file.ends_with("/fleet.toml")) << m.fleet_file;
  EXPECT_EQ(m.plan, "/srv/plan.toml");
  EXPECT_EQ(m.fleet_hash, ContentHash("fleet text"));
  EXPECT_EQ(m.plan_hash, ContentHash("plan text"));
  EXPECT_EQ(m.mode, "compare");
  ASSERT_EQ(m.hosts.size(), 2u);
  EXPECT_EQ(m.hosts[0].outcome, ManifestOutcome::kPending);
  EXPECT_EQ(m.hosts[0].destination, "u@a");
  EXPECT_EQ(m.hosts[1].outcome, ManifestOutcome::kSkipped);
  EXPECT_EQ(m.hosts[1].message, "not a sut host");
  EXPECT_TRUE(CheckResumable(m, "fleet text", "plan text").ok());
}

TEST(Manifest, HostEndsRecorded) {
  char tmpl[] = "/tmp/pgrig_manifest_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ManifestHost entry{.label = "a", .destination = "a"};
  HostRun run;
  run.outcome = HostOutcome::kCompleted;
  run.local_results = dir;
  run.message = "results in " + dir;
  RecordHostRun(run, entry);
  EXPECT_EQ(entry.outcome, ManifestOutcome::kCompleted);
  EXPECT_EQ(entry.results, dir);
  // Failed with nothing back, then failed with a suite.json back: partial.
  run.outcome = HostOutcome::kFailed;
  run.message = "ssh exited with 255";
  RecordHostRun(run, entry);
  EXPECT_EQ(entry.outcome, ManifestOutcome::kFailed);
  ASSERT_TRUE(WriteFileAtomically(dir + "/suite.json", "{}").ok());
  RecordHostRun(run, entry);
  EXPECT_EQ(entry.outcome, ManifestOutcome::kPartial);
  EXPECT_EQ(entry.message, "ssh exited with 255");
  // Skipped this time: still to do.
  run.outcome = HostOutcome::kSkipped;
  RecordHostRun(run, entry);
  EXPECT_EQ(entry.outcome, ManifestOutcome::kPending);
  std::filesystem::remove_all(dir);
}

TEST(Manifest, ContentHashTellsTextsApart) {
  EXPECT_EQ(ContentHash("abc"), ContentHash("abc"));
  EXPECT_NE(ContentHash("abc"), ContentHash("abd"));
  EXPECT_EQ(ContentHash("").rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(ContentHash("").size(), 8u + 16u);
}

}  // namespace
}  // namespace pgrig::fleet
