// What `pgrig cost --results` reads from a results file: its throughput, the
// interval and samples behind it, and what the file says about its machine
// and price (cost/per_dollar.h's MeasuredRun, which prices and compares it).
//
// Reads: schema (must start with "pgrig." when present), summary.tps,
// summary.tps_ci95 [low, high], summary.iterations, summary.tps_samples,
// run.instance_type, run.usd_per_hour, facts.host.cloud.instance_type.
// Errors name the file, the key, and line:column for JSON syntax errors.
// Pure functions apart from LoadMeasuredRun; thread-safe.
#ifndef PGRIG_RESULTS_MEASURED_RUN_H_
#define PGRIG_RESULTS_MEASURED_RUN_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "cost/per_dollar.h"

namespace pgrig::results {

Result<cost::MeasuredRun> ParseMeasuredRun(std::string_view text, const std::string& file);
Result<cost::MeasuredRun> LoadMeasuredRun(const std::string& path);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_MEASURED_RUN_H_
