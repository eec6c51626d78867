// The results document of one `pgrig bench` run: "schema": "pgrig.result/1",
// documented with an example in docs/results-format.md.  Keys are
// snake_case with the unit in the name; passwords never appear (the
// command line and the target are redacted).  Pure functions.
#ifndef PGRIG_CLI_BENCH_JSON_H_
#define PGRIG_CLI_BENCH_JSON_H_

#include <nlohmann/json.hpp>

#include <string>

#include "cli/bench_options.h"
#include "cli/bench_report.h"
#include "engine/result.h"

namespace pgrig::cli {

inline constexpr const char* kResultSchema = "pgrig.result/1";

struct ServerInfo {
  std::string version;  // "15.18"
  int version_num = 0;  // 150018
  std::string target;   // redacted description
  bool embedded = false;
};

// `facts` is the facts module's document (or null when unavailable).
nlohmann::json BenchResultToJson(const BenchOptions& o, const RunInfo& info, const ServerInfo& server,
                                 const engine::RunResult& r, const nlohmann::json& facts);

// The command line with any password redacted (conninfo values, URIs).
std::vector<std::string> RedactedCommandLine(const std::vector<std::string>& argv);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_BENCH_JSON_H_
