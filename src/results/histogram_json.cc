#include "results/histogram_json.h"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "common/clock.h"

namespace pgrig::results {

using nlohmann::json;

namespace {

constexpr const char* kLayout =
    "log-linear, 2048 linear sub-buckets per power of two, values < 4096 ns exact";
constexpr const char* kPacking = "base64-vlq/1";

}  // namespace

json LatencyMsJson(const stats::Histogram& h) {
  if (h.count() == 0) return nullptr;
  static constexpr double kPs[] = {50, 90, 95, 99, 99.9};
  const std::vector<int64_t> v = h.ValuesAtPercentiles(kPs);
  return json{{"avg", h.mean() / 1e6}, {"stddev", h.stddev() / 1e6}, {"min", NsToMs(h.min())},
              {"p50", NsToMs(v[0])},   {"p90", NsToMs(v[1])},        {"p95", NsToMs(v[2])},
              {"p99", NsToMs(v[3])},   {"p99_9", NsToMs(v[4])},      {"max", NsToMs(h.max())}};
}

json HistogramJson(const stats::Histogram& h, BucketForm form) {
  const stats::HistogramData d = h.Export();
  json out{{"layout", kLayout},
           {"count", d.count},
           {"min_ns", d.min_ns},
           {"max_ns", d.max_ns},
           {"sum_ns", d.sum_ns},
           {"sum_squares_ns2", d.sum_squares_ns2},
           {"saturated_count", d.saturated_count},
           {"negative_count", d.negative_count}};
  if (form == BucketForm::kPacked) {
    out["packing"] = kPacking;
    out["packed_buckets"] = stats::Pack(d).buckets;
    return out;
  }
  json buckets = json::array();
  for (const auto& b : d.buckets) buckets.push_back(json::array({b.lower_ns, b.upper_ns, b.count}));
  out["bucket_fields"] = json::array({"lower_ns", "upper_ns", "count"});
  out["buckets"] = std::move(buckets);
  return out;
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

// The fields both forms share.
Status ReadCommon(const json& h, const std::string& where, stats::HistogramData* d) {
  if (!h.is_object()) {
    return InvalidArgument(fmt::format("{}: histogram must be an object, not {}", where,
                                       h.is_null() ? "null" : h.type_name()));
  }
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "count", where, &d->count));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "min_ns", where, &d->min_ns));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "max_ns", where, &d->max_ns));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "saturated_count", where, &d->saturated_count));
  PGRIG_RETURN_IF_ERROR(ReadInt(h, "negative_count", where, &d->negative_count));
  PGRIG_RETURN_IF_ERROR(ReadSum(h, "sum_ns", where, &d->sum_ns));
  PGRIG_RETURN_IF_ERROR(ReadSum(h, "sum_squares_ns2", where, &d->sum_squares_ns2));
  return Status::Ok();
}

// The packed form's "packed_buckets", or nullptr when the histogram has
// bucket arrays; an error for an unknown packing or both forms at once.
Result<const json*> PackedBuckets(const json& h, const std::string& where) {
  auto packed = h.find("packed_buckets");
  if (packed == h.end()) return nullptr;
  auto packing = h.find("packing");
  if (packing == h.end() || !packing->is_string() || packing->get<std::string>() != kPacking) {
    return InvalidArgument(fmt::format(
        "{}: histogram.packing is {}; this pgrig reads \"{}\" (a newer pgrig may have written it)",
        where, packing == h.end() ? "missing" : packing->dump(), kPacking));
  }
  if (!packed->is_string()) {
    return InvalidArgument(fmt::format("{}: histogram.packed_buckets must be a string, not {}",
                                       where, packed->type_name()));
  }
  if (h.contains("buckets")) {
    return InvalidArgument(
        fmt::format("{}: histogram has both \"buckets\" and \"packed_buckets\"", where));
  }
  return &*packed;
}

Result<stats::PackedHistogram> PackedFromPackedForm(const json& h, const json& packed,
                                                    const std::string& where) {
  stats::HistogramData d;
  PGRIG_RETURN_IF_ERROR(ReadCommon(h, where, &d));
  stats::PackedHistogram p{.buckets = packed.get<std::string>(),
                           .count = d.count,
                           .min_ns = d.min_ns,
                           .max_ns = d.max_ns,
                           .saturated_count = d.saturated_count,
                           .negative_count = d.negative_count,
                           .sum_ns = std::move(d.sum_ns),
                           .sum_squares_ns2 = std::move(d.sum_squares_ns2)};
  // Checked here, so that a bad file is refused by its reader and not later;
  // one table per thread for all the runs of a suite.
  thread_local stats::Histogram scratch;
  const Status checked = stats::AssignPacked(p, &scratch);
  if (!checked.ok()) return InvalidArgument(where + ": " + checked.message());
  return p;
}

}  // namespace

Result<stats::HistogramData> HistogramDataFromJson(const json& h, const std::string& where) {
  stats::HistogramData d;
  PGRIG_RETURN_IF_ERROR(ReadCommon(h, where, &d));
  PGRIG_ASSIGN_OR_RETURN(const json* packed, PackedBuckets(h, where));
  if (packed != nullptr) {
    PGRIG_ASSIGN_OR_RETURN(stats::PackedHistogram p, PackedFromPackedForm(h, *packed, where));
    return stats::Unpack(p);
  }
  auto buckets = h.find("buckets");
  if (buckets == h.end() || !buckets->is_array()) {
    return InvalidArgument(fmt::format(
        "{}: histogram.buckets must be an array of [lower_ns, upper_ns, count] (or the packed "
        "form's \"packed_buckets\")",
        where));
  }
  d.buckets.reserve(buckets->size());
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

Result<stats::PackedHistogram> PackedHistogramFromJson(const json& h, const std::string& where) {
  if (h.is_object()) {
    PGRIG_ASSIGN_OR_RETURN(const json* packed, PackedBuckets(h, where));
    if (packed != nullptr) return PackedFromPackedForm(h, *packed, where);
  }
  PGRIG_ASSIGN_OR_RETURN(stats::HistogramData d, HistogramDataFromJson(h, where));
  return stats::Pack(d);
}

Result<stats::Histogram> HistogramFromJson(const json& h, const std::string& where) {
  PGRIG_ASSIGN_OR_RETURN(stats::HistogramData d, HistogramDataFromJson(h, where));
  return stats::Histogram::Import(d);
}

}  // namespace pgrig::results
