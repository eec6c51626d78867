// Synthetic suites for the report module's tests: a pgrig.suite/1 document
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
  std::vector<FixtureCell> cells;
};

inline nlohmann::json FixtureFacts(const FixtureSuite& f) {
  const SysFs fs(std::string(PGRIG_SOURCE_DIR) + "/tests/data/hosts/" + f.host);
  nlohmann::json facts = host::FactsToJson(host::CollectHostFacts(fs), std::nullopt);
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : f.settings) settings[k] = {{"setting", v}, {"unit", nullptr}, {"source", "default"}};
  facts["server"] = {{"version", "PostgreSQL " + std::to_string(f.pg_version_num / 10000) + "." +
                                      std::to_string(f.pg_version_num % 10000)},
                     {"version_num", f.pg_version_num},
                     {"settings", settings},
                     {"build", {{"arm_atomics", f.host.find("graviton") != std::string::npos}}}};
  return facts;
}

// One pgrig.result/1-shaped run with tps `tps`.
inline nlohmann::json FixtureRun(const FixtureSuite& f, const FixtureCell& c, double tps,
                                 std::mt19937_64& rng) {
  std::lognormal_distribution<double> lat(std::log(c.clients / tps * 1e9), 0.5);
  stats::Histogram h;
  for (int i = 0; i < 2000; ++i) h.Record(static_cast<int64_t>(lat(rng)));
  const stats::HistogramData d = h.Export();
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : d.buckets) buckets.push_back({b.lower_ns, b.upper_ns, b.count});
  nlohmann::json intervals = nlohmann::json::array();
  std::normal_distribution<double> wobble(1.0, 0.03);
  for (int s = 1; s <= 10; ++s) {
    // A checkpoint-like dip in second 6 makes the series visibly uneven.
    intervals.push_back({{"end_s", s}, {"tps", tps * wobble(rng) * (s == 6 ? 0.6 : 1.0)}});
  }
  nlohmann::json result = {
      {"schema", "pgrig.result/1"},
      {"complete", true},
      {"summary", {{"tps", tps}, {"duration_s", 10.0}}},
      {"histogram",
       {{"count", d.count}, {"min_ns", d.min_ns}, {"max_ns", d.max_ns}, {"sum_ns", d.sum_ns},
        {"sum_squares_ns2", d.sum_squares_ns2}, {"saturated_count", d.saturated_count},
        {"negative_count", d.negative_count}, {"buckets", buckets}}},
      {"client", {{"cpu_us_per_transaction", 30.0}, {"bottleneck", f.client_saturated}}},
      {"series", {{"interval_s", 1.0}, {"intervals", intervals}}}};
  nlohmann::json observation = {
      {"cpu", {{"user", 0.55}, {"system", 0.25}, {"iowait", 0.02}, {"steal", f.steal},
               {"idle", 0.18 - f.steal}}},
      {"server_cpu_us_per_transaction", 120.0},
      {"io", {{"read_bytes_per_s", 1.0e6}, {"write_bytes_per_s", 4.0e6}}},
      {"wait_events", {{"CPU", 80}, {"LWLock:WALWrite", 12}, {"Client:ClientRead", 30}}},
      {"bottleneck", {{"name", "server CPU"}, {"evidence", "host CPU 80% busy, mostly postgres"}}}};
  return {{"status", "ok"}, {"result", result}, {"observation", observation}};
}

inline nlohmann::json MakeSuiteJson(const FixtureSuite& f) {
  std::mt19937_64 rng(f.seed);
  const double sigma = std::sqrt(std::log(1.0 + f.cv * f.cv));
  std::normal_distribution<double> z(0.0, 1.0);
  nlohmann::json cells = nlohmann::json::array();
  for (const FixtureCell& c : f.cells) {
    nlohmann::json runs = nlohmann::json::array();
    for (int i = 0; i < f.iterations; ++i) {
      nlohmann::json run = FixtureRun(f, c, c.median_tps * std::exp(sigma * z(rng)), rng);
      run["iteration"] = i;
      runs.push_back(run);
    }
    cells.push_back({{"id", c.workload + "/" + c.protocol + "/" + c.variant + "/c" +
                                std::to_string(c.clients) + "/j" + std::to_string(c.threads)},
                     {"workload", c.workload},
                     {"protocol", c.protocol},
                     {"variant", c.variant},
                     {"clients", c.clients},
                     {"threads", c.threads},
                     {"runs", runs}});
  }
  nlohmann::json doc = {{"schema", "pgrig.suite/1"},
                        {"suite_id", f.label + "-20261201T100000Z"},
                        {"label", f.label},
                        {"complete", true},
                        {"started_at", "2026-12-01T10:00:00Z"},
                        {"scale", f.scale},
                        {"plan", {{"name", f.plan_name}, {"source_text", "# plan " + f.plan_name}}},
                        {"facts", FixtureFacts(f)},
                        {"cells", cells}};
  if (f.usd_per_hour) doc["price"] = {{"usd_per_hour", *f.usd_per_hour}};
  return doc;
}

// The standard suite's cells at the given medians.
inline std::vector<FixtureCell> StandardCells(double ro, double rw, double wo) {
  return {{"select-only", 2, 2, ro},        {"select-only", 4, 2, ro * 1.3},
          {"tpcb-like", 2, 2, rw},          {"tpcb-like", 4, 2, rw * 1.2},
          {"simple-update", 2, 2, wo},      {"simple-update", 4, 2, wo * 1.15}};
}

}  // namespace pgrig::report::testing

#endif  // PGRIG_REPORT_TEST_SUITES_H_
