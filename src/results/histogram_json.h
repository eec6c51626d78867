// The latency pieces every results document carries (pgrig.result/1,
// pgrig.suite/2 runs, pgrig.lio/1, pgrig.fsync/1, the fleet's merged
// result): the latency summary in milliseconds and the sparse histogram
// that readers merge.  One writer and one reader each; the layout is
// docs/results-format.md's "histogram" object:
//
//   {"layout": "...", "count": N, "min_ns": .., "max_ns": ..,
//    "sum_ns": "<decimal>", "sum_squares_ns2": "<decimal>",
//    "saturated_count": .., "negative_count": ..,
//    "bucket_fields": ["lower_ns", "upper_ns", "count"],
//    "buckets": [[lower, upper, count], ...]}
//
// or, packed (pgrig.suite/2's runs: about a tenth of the size), the same
// with the last two keys replaced by
//
//    "packing": "base64-vlq/1", "packed_buckets": "AABgB..."
//
// (stats/packed_histogram.h).  Every reader takes either form.
//
// The reader never throws: a value of the wrong type, a number out of
// range or a histogram that does not add up (stats::Histogram::Import's
// checks) is an InvalidArgument naming `where` (a file and the place in
// it).  Missing integers read as 0 and missing sums as unknown, so that a
// hand-made histogram with only buckets, count, min and max is read.
// Pure functions; thread-safe.
#ifndef PGRIG_RESULTS_HISTOGRAM_JSON_H_
#define PGRIG_RESULTS_HISTOGRAM_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "stats/histogram.h"
#include "stats/packed_histogram.h"

namespace pgrig::results {

// {"avg","stddev","min","p50","p90","p95","p99","p99_9","max"} in
// milliseconds; null when the histogram is empty.
nlohmann::json LatencyMsJson(const stats::Histogram& h);

enum class BucketForm { kArrays, kPacked };

// The sparse histogram object above.
nlohmann::json HistogramJson(const stats::Histogram& h, BucketForm form = BucketForm::kArrays);

// Reads HistogramJson's object and checks it (stats::Histogram::Import).
Result<stats::HistogramData> HistogramDataFromJson(const nlohmann::json& h,
                                                   const std::string& where);
Result<stats::Histogram> HistogramFromJson(const nlohmann::json& h, const std::string& where);
// The same checks, kept packed (what the report module holds per run).
Result<stats::PackedHistogram> PackedHistogramFromJson(const nlohmann::json& h,
                                                       const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_HISTOGRAM_JSON_H_
