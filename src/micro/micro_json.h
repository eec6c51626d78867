// JSON pieces shared by the micro-benchmark result documents
// ("pgrig.lio/1", "pgrig.fsync/1"): the latency summary and the sparse
// histogram, in exactly the layout of pgrig.result/1 (docs/results-format.md)
// so that readers of run results can read and merge ours with the same code.
// Pure functions; thread-safe.
#ifndef PGRIG_MICRO_MICRO_JSON_H_
#define PGRIG_MICRO_MICRO_JSON_H_

#include <nlohmann/json.hpp>

#include "stats/histogram.h"

namespace pgrig::micro {

// {"avg","stddev","min","p50","p90","p95","p99","p99_9","max"} in
// milliseconds from the histogram; null when it is empty.
nlohmann::json LatencyMsJson(const stats::Histogram& h);

// The sparse histogram object of pgrig.result/1 (layout, count, min_ns,
// max_ns, exact sums as decimal strings, buckets as [lower, upper, count]).
nlohmann::json HistogramJson(const stats::Histogram& h);

}  // namespace pgrig::micro

#endif  // PGRIG_MICRO_MICRO_JSON_H_
