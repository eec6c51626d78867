#include "results/histogram_json.h"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "common/clock.h"

namespace pgrig::results {

using nlohmann::json;

json LatencyMsJson(const stats::Histogram& h) {
  if (h.count() == 0) return nullptr;
  static constexpr double kPs[] = {50, 90, 95, 99, 99.9};
  const std::vector<int64_t> v = h.ValuesAtPercentiles(kPs);
  return json{{"avg", h.mean() / 1e6}, {"stddev", h.stddev() / 1e6}, {"min", NsToMs(h.min())},
              {"p50", NsToMs(v[0])},   {"p90", NsToMs(v[1])},        {"p95", NsToMs(v[2])},
              {"p99", NsToMs(v[3])},   {"p99_9", NsToMs(v[4])},      {"max", NsToMs(h.max())}};
}

json HistogramJson(const stats::Histogram& h) {
  const stats::HistogramData d = h.Export();
  json buckets = json::array();
  for (const auto& b : d.buckets) buckets.push_back(json::array({b.lower_ns, b.upper_ns, b.count}));
  return json{
      {"layout", "log-linear, 2048 linear sub-buckets per power of two, values < 4096 ns exact"},
      {"count", d.count},
      {"min_ns", d.min_ns},
      {"max_ns", d.max_ns},
      {"sum_ns", d.sum_ns},
      {"sum_squares_ns2", d.sum_squares_ns2},
      {"saturated_count", d.saturated_count},
      {"negative_count", d.negative_count},
      {"bucket_fields", json::array({"lower_ns", "upper_ns", "count"})},
      {"buckets", buckets}};
}

namespace {

// A 64-bit integer (nlohmann keeps JSON integers as int64 or uint64; a
// float, even a whole one, is not a count).
bool AsInt64(const json& v, int64_t* out) {
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    *out = v.get<int64_t>();
    return true;
  }
  if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
    *out = static_cast<int64_t>(v.get<uint64_t>());
    return true;
  }
  return false;
}

Status ReadInt(const json& h, const char* key, const std::string& where, int64_t* out) {
  auto it = h.find(key);
  if (it == h.end() || it->is_null()) return Status::Ok();
  if (!AsInt64(*it, out)) {
    return InvalidArgument(
        fmt::format("{}: histogram.{} is {}, not a whole number", where, key, it->dump()));
  }
  return Status::Ok();
}

Status ReadSum(const json& h, const char* key, const std::string& where, std::string* out) {
  auto it = h.find(key);
  if (it == h.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) {
    return InvalidArgument(
        fmt::format("{}: histogram.{} must be a decimal string, not {}", where, key, it->dump()));
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

}  // namespace

Result<stats::HistogramData> HistogramDataFromJson(const json& h, const std::string& where) {
  if (!h.is_object()) {
    return InvalidArgument(fmt::format("{}: histogram must be an object, not {}", where,
                                       h.is_null() ? "null" : h.type_name()));
  }
  stats::HistogramData d;
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "count", where, &d.count));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "min_ns", where, &d.min_ns));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "max_ns", where, &d.max_ns));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "saturated_count", where, &d.saturated_count));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "negative_count", where, &d.negative_count));
  PGRIG_RETURN_IF_ERROR(ReadSum(h, "sum_ns", where, &d.sum_ns));
  PGRIG_RETURN_IF_ERROR(ReadSum(h, "sum_squares_ns2", where, &d.sum_squares_ns2));
  auto buckets = h.find("buckets");
  if (buckets == h.end() || !buckets->is_array()) {
    return InvalidArgument(fmt::format(
        "{}: histogram.buckets must be an array of [lower_ns, upper_ns, count]", where));
  }
  for (const json& b : *buckets) {
    stats::HistogramBucket bucket;
    if (!b.is_array() || b.size() != 3 || !AsInt64(b[0], &bucket.lower_ns) ||
        !AsInt64(b[1], &bucket.upper_ns) || !AsInt64(b[2], &bucket.count)) {
      return InvalidArgument(fmt::format(
          "{}: histogram bucket {} is not [lower_ns, upper_ns, count]", where, b.dump()));
    }
    d.buckets.push_back(bucket);
  }
  // Checked here, so that a bad file is refused by its reader and not later.
  auto imported = stats::Histogram::Import(d);
  if (!imported.ok()) return InvalidArgument(where + ": " + imported.status().message());
  return d;
}

Result<stats::Histogram> HistogramFromJson(const json& h, const std::string& where) {
  PGRIG_ASSIGN_OR_RETURN(stats::HistogramData d, HistogramDataFromJson(h, where));
  return stats::Histogram::Import(d);
}

}  // namespace pgrig::results
