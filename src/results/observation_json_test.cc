// Unit tests of the observation and bottleneck JSON of a suite's runs.
#include "results/observation_json.h"

#include <gtest/gtest.h>

namespace pgrig::results {
namespace {

using json = nlohmann::json;
using observe::Observation;

TEST(ObservationJsonTest, SamplesMeansAndTotals) {
  Observation o;
  o.host.resize(2);
  o.host[0].dt_s = 1;
  o.host[0].cpu_user_pct = 90;
  o.host[0].run_queue = 4;
  o.host[1].dt_s = 3;
  o.host[1].cpu_user_pct = 10;
  o.server.resize(3);
  o.server[0].wait_events = {{"CPU", 2}, {"IO:DataFileRead", 1}};
  o.server[2].wait_polls = 4;
  o.wait_events = {{"CPU", 2}};
  o.wait_samples = 3;
  o.notes = {"disk: data directory unknown; no data device observed"};
  json j = ObservationJson(o);
  EXPECT_EQ(j["host"].size(), 2u);
  EXPECT_EQ(j["server"][2]["wait_polls"], 4);
  EXPECT_EQ(j["host"][0]["run_queue"], 4);
  EXPECT_TRUE(j["host"][0]["disk_util_pct"].is_null());
  EXPECT_DOUBLE_EQ(j["host_mean"]["cpu_user_pct"].get<double>(), 30.0);  // time-weighted
  EXPECT_EQ(j["server"][0]["wait_events"]["IO:DataFileRead"], 1);
  EXPECT_TRUE(j["server"][1]["xact_commit_per_s"].is_null());
  EXPECT_EQ(j["wait_events"]["CPU"], 2);
  EXPECT_EQ(j["wait_samples"], 3);
  EXPECT_EQ(j["notes"].size(), 1u);
  EXPECT_TRUE(j["server_totals"].is_object());
  EXPECT_TRUE(j["host_cpus"].is_null());
  // Rounded to the hundredth, and printed short.
  o.host[0].cpu_user_pct = 15.619999;
  o.host[0].context_switches_per_s = 1546.4951;
  const json r = ObservationJson(o);
  EXPECT_EQ(r["host"][0]["cpu_user_pct"].dump(), "15.62");
  EXPECT_EQ(r["host"][0]["context_switches_per_s"].dump(), "1546.5");
  EXPECT_TRUE(r["sampler_backend_cpu_s"].is_null());
}

TEST(ObservationJsonTest, ServerTotalsHoldWhatWasRead) {
  Observation o;
  EXPECT_TRUE(ObservationJson(o)["server_totals"].empty());
  o.server_totals.duration_s = 4;
  o.server_totals.wal_bytes = 9000;
  o.server_totals.bgwriter = observe::ServerTotals::Bgwriter{.checkpoints_req = 1};
  const json t = ObservationJson(o)["server_totals"];
  EXPECT_DOUBLE_EQ(t["duration_s"].get<double>(), 4.0);
  EXPECT_EQ(t["wal_bytes"], 9000);
  EXPECT_EQ(t["checkpoints_req"], 1);
  EXPECT_FALSE(t.contains("buffers_backend"));  // PostgreSQL 17+: not read
  EXPECT_FALSE(t.contains("xact_commit"));      // pg_stat_database not read
}

TEST(ObservationJsonTest, Bottleneck) {
  const json b = BottleneckJson({.kind = observe::BottleneckKind::kServerCpu,
                                 .evidence = "host CPU 96% busy",
                                 .warnings = {"steal 12%"}});
  EXPECT_EQ(
      b, json::parse(
             R"({"kind":"server_cpu","evidence":"host CPU 96% busy","warnings":["steal 12%"]})"));
}

}  // namespace
}  // namespace pgrig::results
