// The results document of one `pgrig bench` run ("pgrig.result/1"): a thin
// adapter from pgbench's options to the plan module's writer
// (results/result_json.h), which `pgrig run` shares.  Pure functions.
#ifndef PGRIG_CLI_BENCH_JSON_H_
#define PGRIG_CLI_BENCH_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/bench_report.h"
#include "cli/target.h"
#include "engine/result.h"
#include "results/result_json.h"
#include "results/schemas.h"
#include "workload/bench_options.h"

namespace pgrig::cli {

using results::kResultSchema;
using ServerInfo = results::ResultServer;

// `facts` is the facts module's document (or null when unavailable).
// What a results document records of the server on `conn`, reached as
// `target` says.
ServerInfo ServerInfoOf(const pg::Connection& conn, const Target& target);

nlohmann::json BenchResultToJson(const workload::BenchOptions& o, const RunInfo& info,
                                 const ServerInfo& server, const engine::RunResult& r,
                                 const nlohmann::json& facts,
                                 const host::ServerCpuMeasure& server_cpu,
                                 std::optional<results::ServerProfileDoc> server_profile = {});

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_BENCH_JSON_H_
