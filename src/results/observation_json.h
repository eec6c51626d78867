// The "observation" and "bottleneck" of a pgrig.suite/2 run (observe's
// Observation and Diagnose's Bottleneck, written as docs/results-format.md and
// docs/observe.md describe them).  Rates are rounded to the hundredth and
// times to the millisecond, so that they print short.  Pure; thread-safe.
#ifndef PGRIG_RESULTS_OBSERVATION_JSON_H_
#define PGRIG_RESULTS_OBSERVATION_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>

#include "observe/bottleneck.h"
#include "observe/observation.h"

namespace pgrig::results {

// {"interval_s", "wait_interval_s", "server_is_local", "host_cpus",
//  "data_device", "host": [...], "host_mean": {...}, "server": [...],
//  "server_totals": {...}, "wait_events": {...}, "wait_samples", "notes": [...],
//  "sampler_cpu_s", "sampler_backend_cpu_s"}
nlohmann::json ObservationJson(const observe::Observation& o);

// {"kind": "server_cpu", "evidence": "...", "warnings": [...]}
nlohmann::json BottleneckJson(const observe::Bottleneck& b);

// A run's "disturbed": {"other_cpu_pct", "steal_pct", "threshold_pct"} when
// other processes and steal took at least observe::kDisturbedPct of the
// host's CPU; null otherwise (and when it could not be measured).
nlohmann::json DisturbedJson(const std::optional<observe::Disturbance>& d);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_OBSERVATION_JSON_H_
