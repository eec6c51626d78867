#include "results/metrics.h"

namespace pgrig::results {

const char* MetricUnit(std::string_view metric) {
  if (metric == kMetricLio) return "lio/s";
  if (metric == kMetricNopm) return "NOPM";
  return "tps";
}

const char* MetricOfKind(std::string_view kind) {
  if (kind == "lio") return kMetricLio;
  if (kind == "tpcc") return kMetricNopm;
  return kMetricTps;
}

}  // namespace pgrig::results
