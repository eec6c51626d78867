// campaign_suite: writes a campaign-sized suite.json for bench/campaign.sh
// (issue 28, point 6): `cells` cells x `iterations` iterations, every run
// carrying a real-sized latency histogram.
//
//   campaign_suite TEMPLATE OUT CELLS ITERATIONS SAMPLES RATIO SEED FORM
//
// TEMPLATE is a suite.json that `pgrig run` wrote; its cells give the
// workloads, protocols and threads, its first run of each workload gives the
// run's shape (result, observation with its per-second samples) and the
// latency distribution.  Cell k is the template's cell k mod n at k/n + 1
// clients.  Each run's histogram records SAMPLES values drawn from the
// template run's histogram (a bucket by its count, a value uniformly inside
// it) times the cell's latency factor and a run-to-run jitter, so it has as
// many non-empty buckets as a measured run of that many transactions; its
// tps is the template's times the cell's factor, times RATIO, with 3%
// run-to-run jitter.  FORM "packed" writes pgrig.suite/2 (what pgrig run
// writes now), "arrays" writes pgrig.suite/1 with bucket arrays (what it
// wrote before).  Deterministic for a SEED.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "results/histogram_json.h"
#include "results/schemas.h"
#include "stats/histogram.h"

namespace {

using nlohmann::json;
using pgrig::stats::Histogram;
using pgrig::stats::HistogramData;

int Fail(const std::string& why) {
  std::cerr << "campaign_suite: " << why << "\n";
  return 1;
}

// Draws values distributed like a measured histogram.
class LatencySource {
 public:
  explicit LatencySource(const HistogramData& d) : data_(d) {
    for (const auto& b : d.buckets) weights_.push_back(static_cast<double>(b.count));
    pick_ = std::discrete_distribution<size_t>(weights_.begin(), weights_.end());
  }
  int64_t Draw(std::mt19937_64& rng) {
    const auto& b = data_.buckets[pick_(rng)];
    std::uniform_int_distribution<int64_t> in(b.lower_ns, b.upper_ns - 1);
    return in(rng);
  }

 private:
  HistogramData data_;
  std::vector<double> weights_;
  std::discrete_distribution<size_t> pick_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    return Fail("usage: campaign_suite TEMPLATE OUT CELLS ITERATIONS SAMPLES RATIO SEED FORM");
  }
  const std::string template_path = argv[1], out_path = argv[2], form_name = argv[8];
  const int cells = std::atoi(argv[3]), iterations = std::atoi(argv[4]);
  const int64_t samples = std::atoll(argv[5]);
  const double ratio = std::atof(argv[6]);
  const uint64_t seed = std::strtoull(argv[7], nullptr, 10);
  if (cells <= 0 || iterations <= 0 || samples <= 0 || !(ratio > 0) ||
      (form_name != "packed" && form_name != "arrays")) {
    return Fail("CELLS, ITERATIONS, SAMPLES and RATIO must be positive; FORM packed or arrays");
  }
  const auto form = form_name == "packed" ? pgrig::results::BucketForm::kPacked
                                          : pgrig::results::BucketForm::kArrays;
  std::ifstream in(template_path);
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc["cells"].is_array() || !doc["runs"].is_array()) {
    return Fail(template_path + ": not a suite.json with cells and runs");
  }
  // The first ok run of each template cell, and its latency distribution.
  const json template_cells = doc["cells"];
  std::map<std::string, json> first_run;
  for (const json& r : doc["runs"]) {
    if (r.value("status", "") == "ok" && r["result"].is_object() &&
        !first_run.contains(r.value("cell", ""))) {
      first_run[r.value("cell", "")] = r;
    }
  }
  std::vector<json> shapes;
  std::vector<LatencySource> sources;
  for (const json& c : template_cells) {
    auto it = first_run.find(c.value("id", ""));
    if (it == first_run.end()) return Fail(template_path + ": cell " + c.dump() + " has no ok run");
    auto h = pgrig::results::HistogramDataFromJson(it->second["result"]["histogram"], "template");
    if (!h.ok()) return Fail(h.status().message());
    shapes.push_back(it->second);
    sources.emplace_back(*h);
  }
  const size_t n = template_cells.size();

  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> cell_spread(0.0, 0.15), jitter(0.0, 0.03);
  json out_cells = json::array();
  std::vector<double> tps_factor(static_cast<size_t>(cells));
  std::vector<double> latency_factor(static_cast<size_t>(cells));
  for (int k = 0; k < cells; ++k) {
    json c = template_cells[static_cast<size_t>(k) % n];
    c["clients"] = k / static_cast<int>(n) + 1;
    c["id"] = c.value("workload", "") + "/" + c.value("protocol", "") + "/" +
              c.value("variant", "") + "/c" + std::to_string(k / static_cast<int>(n) + 1) + "/j" +
              std::to_string(c.value("threads", 1));
    c["summary"] = nullptr;
    out_cells.push_back(c);
    tps_factor[static_cast<size_t>(k)] = cell_spread(rng);
    latency_factor[static_cast<size_t>(k)] = 1.0 / tps_factor[static_cast<size_t>(k)];
  }
  json runs = json::array();
  int position = 0;
  for (int it = 1; it <= iterations; ++it) {
    for (int k = 0; k < cells; ++k) {
      const size_t t = static_cast<size_t>(k) % n;
      json r = shapes[t];
      r["run"] = position + 1;
      r["position"] = position++;
      r["cell"] = out_cells[static_cast<size_t>(k)]["id"];
      r["iteration"] = it;
      const double tps = r["result"]["summary"]["tps"].get<double>() *
                         tps_factor[static_cast<size_t>(k)] * ratio * jitter(rng);
      r["result"]["summary"]["tps"] = tps;
      const double scale = latency_factor[static_cast<size_t>(k)] / ratio * jitter(rng);
      Histogram h;
      for (int64_t s = 0; s < samples; ++s) {
        h.Record(static_cast<int64_t>(static_cast<double>(sources[t].Draw(rng)) * scale));
      }
      r["result"]["histogram"] = pgrig::results::HistogramJson(h, form);
      r["result"]["latency_ms"] = pgrig::results::LatencyMsJson(h);
      runs.push_back(std::move(r));
    }
  }
  doc["schema"] = form == pgrig::results::BucketForm::kPacked ? pgrig::results::kSuiteSchema
                                                              : pgrig::results::kSuiteSchemaV1;
  doc["cells"] = std::move(out_cells);
  doc["runs"] = std::move(runs);
  doc["iterations"] = iterations;
  doc["complete"] = true;
  std::ofstream out(out_path);
  out << doc.dump() << "\n";
  if (!out) return Fail(out_path + ": could not write");
  return 0;
}
