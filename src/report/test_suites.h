// Synthetic suites for the report module's tests: a pgrig.suite/2 document
// built from a few parameters, with iteration tps drawn log-normal around a
// known median (seeded, so tests are deterministic), latency histograms,
// per-second series, observations, and real host facts collected from the
// fixture trees under tests/data/hosts.  Test-only; header-only so that it
// is not part of the library.  Not thread-safe (each call owns its PRNG).
#ifndef PGRIG_REPORT_TEST_SUITES_H_
#define PGRIG_REPORT_TEST_SUITES_H_

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/fs.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "results/histogram_json.h"
#include "results/schemas.h"
#include "stats/histogram.h"

namespace pgrig::report::testing {

struct FixtureCell {
  std::string workload;  // "select-only", "tpcb-like", ...
  int clients = 1;
  int threads = 1;
  double median_tps = 1000;
  std::string protocol = "simple";
  std::string variant = "default";
};

struct FixtureSuite {
  std::string label = "a";
  std::string host = "graviton3";  // a directory of tests/data/hosts
  int64_t pg_version_num = 150018;
  int64_t scale = 10;
  std::string plan_name = "standard";
  std::optional<double> usd_per_hour;
  int iterations = 3;
  double cv = 0.08;
  uint64_t seed = 1;
  std::map<std::string, std::string> settings = {
      {"fsync", "on"}, {"synchronous_commit", "on"}, {"wal_level", "replica"}};
  bool client_saturated = false;
  double steal = 0.0;
  double disturbed_other = 0;  // > 0: every run marked disturbed with this share
  std::string compiler = "gcc (Debian 12.2.0-14) 12.2.0";
  std::string configure = " '--prefix=/usr' '--with-openssl' 'CFLAGS=-O2'";
  std::vector<FixtureCell> cells;
};

inline nlohmann::json FixtureFacts(const FixtureSuite& f) {
  const SysFs fs(std::string(PGRIG_SOURCE_DIR) + "/tests/data/hosts/" + f.host);
  nlohmann::json facts = host::FactsToJson(host::CollectHostFacts(fs), std::nullopt);
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : f.settings)
    settings[k] = {{"setting", v}, {"unit", nullptr}, {"source", "default"}};
  facts["server"] = {{"version", "PostgreSQL " + std::to_string(f.pg_version_num / 10000) + "." +
                                     std::to_string(f.pg_version_num % 10000)},
                     {"version_num", f.pg_version_num},
                     {"settings", settings},
                     {"build",
                      {{"arm_atomics", f.host.find("graviton") != std::string::npos},
                       {"compiler", f.compiler},
                       {"configure", f.configure}}}};
  return facts;
}

// One pgrig.result/1-shaped run with tps `tps`.
inline nlohmann::json FixtureRun(const FixtureSuite& f, const FixtureCell& c, double tps,
                                 std::mt19937_64& rng) {
  std::lognormal_distribution<double> lat(std::log(c.clients / tps * 1e9), 0.5);
  stats::Histogram h;
  for (int i = 0; i < 2000; ++i) h.Record(static_cast<int64_t>(lat(rng)));
  nlohmann::json intervals = nlohmann::json::array();
  std::normal_distribution<double> wobble(1.0, 0.03);
  for (int s = 1; s <= 10; ++s) {
    // A checkpoint-like dip in second 6 makes the series visibly uneven.
    intervals.push_back({{"end_s", s}, {"tps", tps * wobble(rng) * (s == 6 ? 0.6 : 1.0)}});
  }
  const int64_t transactions = static_cast<int64_t>(tps * 10.0);
  const double client_cpu_s = 30e-6 * static_cast<double>(transactions);
  nlohmann::json result = {
      {"schema", "pgrig.result/1"},
      {"complete", true},
      {"summary", {{"tps", tps}, {"duration_s", 10.0}, {"transactions", transactions}}},
      {"transactions", {{"processed", transactions}, {"failed", 0}}},
      {"histogram", results::HistogramJson(h, results::BucketForm::kPacked)},
      {"client",
       {{"cpu_user_s", client_cpu_s * 0.4},
        {"cpu_system_s", client_cpu_s * 0.6},
        {"cpu_us_per_transaction", 30.0},
        {"bottleneck", f.client_saturated}}},
      {"series", {{"interval_s", 1.0}, {"intervals", intervals}}},
      {"facts", {{"see", "suite.facts"}}}};
  // Host 80% busy on 4 CPUs over 10 s: 32 CPU-s, of which the client used
  // client_cpu_s; the rest is the server's.
  nlohmann::json observation = {
      {"interval_s", 1.0},
      {"server_is_local", true},
      {"host_cpus", 4},
      {"host_mean",
       {{"duration_s", 10.0},
        {"cpu_user_pct", 55.0},
        {"cpu_system_pct", 25.0},
        {"cpu_iowait_pct", 2.0},
        {"cpu_steal_pct", f.steal * 100},
        {"cpu_idle_pct", 18.0 - f.steal * 100},
        {"disk_read_bytes_per_s", 1.0e6},
        {"disk_write_bytes_per_s", 4.0e6}}},
      {"server_totals", {{"wal_bytes", 5.0e7}, {"checkpoints_timed", 0}, {"checkpoints_req", 1}}},
      // Per-second server samples: the one checkpoint is counted at 4 s.
      {"server",
       {{{"t_s", 3.0}, {"checkpoints_timed", 0}, {"checkpoints_req", 0}},
        {{"t_s", 4.0}, {"checkpoints_timed", 0}, {"checkpoints_req", 1}},
        {{"t_s", 5.0}, {"checkpoints_timed", 0}, {"checkpoints_req", 0}}}},
      {"wait_events", {{"CPU", 80}, {"LWLock:WALWrite", 12}, {"Client:ClientRead", 30}}}};
  nlohmann::json warnings = nlohmann::json::array();
  if (f.client_saturated) warnings.push_back("the client saturated its CPUs (95% of 2 threads)");
  return {{"cell", c.workload + "/" + c.protocol + "/" + c.variant + "/c" +
                       std::to_string(c.clients) + "/j" + std::to_string(c.threads)},
          {"status", "ok"},
          {"error", nullptr},
          {"result", result},
          {"observation", observation},
          {"bottleneck",
           {{"kind", "server_cpu"},
            {"evidence", "host CPU 80% busy (user 55%, system 25%, iowait 2%, steal 0%)"},
            {"warnings", warnings}}},
          {"disturbed", f.disturbed_other > 0
                            ? nlohmann::json{{"other_cpu_pct", f.disturbed_other * 100},
                                             {"steal_pct", f.steal * 100},
                                             {"threshold_pct", 10}}
                            : nlohmann::json()}};
}

inline nlohmann::json MakeSuiteJson(const FixtureSuite& f) {
  std::mt19937_64 rng(f.seed);
  const double sigma = std::sqrt(std::log(1.0 + f.cv * f.cv));
  std::normal_distribution<double> z(0.0, 1.0);
  nlohmann::json cells = nlohmann::json::array();
  nlohmann::json runs = nlohmann::json::array();
  // Interleaved as the runner does: iteration by iteration across the cells.
  for (int i = 0; i < f.iterations; ++i) {
    for (const FixtureCell& c : f.cells) {
      nlohmann::json run = FixtureRun(f, c, c.median_tps * std::exp(sigma * z(rng)), rng);
      run["iteration"] = i;
      run["run"] = runs.size();
      runs.push_back(run);
    }
  }
  for (const FixtureCell& c : f.cells) {
    cells.push_back(
        {{"id", c.workload + "/" + c.protocol + "/" + c.variant + "/c" + std::to_string(c.clients) +
                    "/j" + std::to_string(c.threads)},
         {"workload", c.workload},
         {"protocol", c.protocol},
         {"variant", c.variant},
         {"clients", c.clients},
         {"threads", c.threads},
         {"settings",
          {{"per_connection", nlohmann::json::object()}, {"server", nlohmann::json::object()}}},
         {"summary", nullptr}});
  }
  nlohmann::json doc = {{"schema", results::kSuiteSchema},
                        {"suite_id", f.label + "-20261201T100000Z"},
                        {"label", f.label},
                        {"complete", true},
                        {"started_at", "2026-12-01T10:00:00Z"},
                        {"scale", {{"value", f.scale}, {"reason", "given"}, {"loaded", false}}},
                        {"plan", {{"name", f.plan_name}, {"source_text", "# plan " + f.plan_name}}},
                        {"facts", FixtureFacts(f)},
                        {"price", nullptr},
                        {"cells", cells},
                        {"runs", runs}};
  if (f.usd_per_hour) {
    doc["price"] = {
        {"usd_per_hour", *f.usd_per_hour}, {"instance_type", nullptr}, {"from", "--usd-per-hour"}};
  }
  return doc;
}

// The standard suite's cells at the given medians.
inline std::vector<FixtureCell> StandardCells(double ro, double rw, double wo) {
  return {{"select-only", 2, 2, ro},   {"select-only", 4, 2, ro * 1.3},
          {"tpcb-like", 2, 2, rw},     {"tpcb-like", 4, 2, rw * 1.2},
          {"simple-update", 2, 2, wo}, {"simple-update", 4, 2, wo * 1.15}};
}

}  // namespace pgrig::report::testing

#endif  // PGRIG_REPORT_TEST_SUITES_H_
