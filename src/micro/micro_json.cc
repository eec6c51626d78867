#include "micro/micro_json.h"

#include <vector>

#include "common/clock.h"

namespace pgrig::micro {

nlohmann::json LatencyMsJson(const stats::Histogram& h) {
  if (h.count() == 0) return nullptr;
  static constexpr double kPs[] = {50, 90, 95, 99, 99.9};
  const std::vector<int64_t> v = h.ValuesAtPercentiles(kPs);
  return nlohmann::json{
      {"avg", h.mean() / 1e6}, {"stddev", h.stddev() / 1e6}, {"min", NsToMs(h.min())},
      {"p50", NsToMs(v[0])},   {"p90", NsToMs(v[1])},        {"p95", NsToMs(v[2])},
      {"p99", NsToMs(v[3])},   {"p99_9", NsToMs(v[4])},      {"max", NsToMs(h.max())}};
}

nlohmann::json HistogramJson(const stats::Histogram& h) {
  const stats::HistogramData d = h.Export();
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : d.buckets) {
    buckets.push_back(nlohmann::json::array({b.lower_ns, b.upper_ns, b.count}));
  }
  return nlohmann::json{
      {"layout", "log-linear, 2048 linear sub-buckets per power of two, values < 4096 ns exact"},
      {"count", d.count},
      {"min_ns", d.min_ns},
      {"max_ns", d.max_ns},
      {"sum_ns", d.sum_ns},
      {"sum_squares_ns2", d.sum_squares_ns2},
      {"saturated_count", d.saturated_count},
      {"negative_count", d.negative_count},
      {"bucket_fields", nlohmann::json::array({"lower_ns", "upper_ns", "count"})},
      {"buckets", buckets}};
}

}  // namespace pgrig::micro
