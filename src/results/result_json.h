// The results document of one benchmark run: "schema": "pgrig.result/1",
// documented with an example in docs/results-format.md.  `pgrig bench --json`
// writes it for its run (cli/bench_json.h adapts pgbench's options to
// ResultInputs) and `pgrig run` embeds one per run in its suite.json.
//
// Keys are snake_case with the unit in the name; passwords never appear (the
// caller passes a redacted command line and target).  The document itself is
// result_doc.h's ResultDoc, which also reads it back.  Pure functions;
// thread-safe.
#ifndef PGRIG_RESULTS_RESULT_JSON_H_
#define PGRIG_RESULTS_RESULT_JSON_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/result.h"
#include "host/server_cpu.h"
#include "results/profile_json.h"
#include "script/script.h"
#include "stats/histogram.h"

namespace pgrig::results {

struct ResultServer {
  std::string version;  // "15.18"
  int version_num = 0;  // 150018
  std::string target;   // redacted description
  bool embedded = false;
};

struct ResultScript {
  std::string desc;  // "<builtin: select only>"
  int weight = 1;
  std::string spec;  // built-in name or file path
  bool is_file = false;
  std::vector<std::string> command_lines;  // first line of each command
};

// The run's options as recorded under "options".
struct ResultOptions {
  int clients = 1;
  int threads = 1;                                 // after min(threads, clients)
  std::optional<int64_t> transactions_per_client;  // -t
  std::optional<int> duration_s;                   // -T
  script::QueryMode mode = script::QueryMode::kSimple;
  int scale = 1;
  double rate_tps = 0;           // 0: none
  int64_t latency_limit_us = 0;  // 0: none
  int max_tries = 1;
  bool connect_per_transaction = false;
  bool no_vacuum = false;
  int progress_s = 0;
  std::optional<std::string> random_seed;  // nullopt: "time"
  std::map<std::string, std::string> defines;
};

struct ResultInputs {
  std::string tool_version;               // tool.version (cli/version.h kVersion)
  std::string command = "bench";          // tool.command
  std::vector<std::string> command_line;  // already redacted
  ResultOptions options;
  std::vector<ResultScript> scripts;
  ResultServer server;
  int cpus = 1;  // online CPUs of this machine
  // The server's CPU over the run (host/server_cpu.h): "server_cpu" and
  // "summary.server_cpu_us_per_transaction", or null and the reason in
  // "server_cpu_unavailable".
  host::ServerCpuMeasure server_cpu{.usage = std::nullopt, .unavailable = "not measured"};
  // The server's profile when one was asked for ("server_profile",
  // results/profile_json.h); absent otherwise.
  std::optional<ServerProfileDoc> server_profile;
};

struct ResultDoc;  // result_doc.h

// The document of one run: what the engine measured and what the caller
// records beside it.  `facts` is the facts module's document (or null when
// unavailable).  RunResultToJson is ResultDocToJson(BuildResultDoc(...)).
ResultDoc BuildResultDoc(const ResultInputs& in, const engine::RunResult& r,
                         const nlohmann::json& facts);
nlohmann::json RunResultToJson(const ResultInputs& in, const engine::RunResult& r,
                               const nlohmann::json& facts);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_RESULT_JSON_H_
