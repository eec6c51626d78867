#include "cli/bench_json.h"

#include "cli/version.h"
#include "pg/connection.h"

namespace pgrig::cli {

using workload::BenchOptions;
using workload::ScriptSpec;

ServerInfo ServerInfoOf(const pg::Connection& conn, const Target& target) {
  ServerInfo server;
  server.version_num = conn.server_version();
  server.version = pg::ServerVersionText(server.version_num);
  server.target = target.params.Describe();
  server.embedded = target.embedded;
  return server;
}

nlohmann::json BenchResultToJson(const BenchOptions& o, const RunInfo& info,
                                 const ServerInfo& server, const engine::RunResult& r,
                                 const nlohmann::json& facts,
                                 const host::ServerCpuMeasure& server_cpu,
                                 std::optional<results::ServerProfileDoc> server_profile) {
  results::ResultInputs in;
  in.tool_version = kVersion;
  in.command = "bench";
  in.command_line = pg::RedactedCommandLine(o.argv, "pgrig bench");
  in.server = server;
  in.cpus = info.cpus;
  in.server_cpu = server_cpu;
  in.server_profile = std::move(server_profile);
  results::ResultOptions& ro = in.options;
  ro.clients = o.clients;
  ro.threads = info.threads;
  if (o.duration_s > 0) {
    ro.duration_s = o.duration_s;
  } else {
    ro.transactions_per_client = o.transactions;
  }
  ro.mode = o.mode;
  ro.scale = info.scale;
  ro.rate_tps = o.rate_tps;
  ro.latency_limit_us = o.latency_limit_us;
  ro.max_tries = static_cast<int>(o.max_tries);
  ro.connect_per_transaction = o.connect_per_transaction;
  ro.no_vacuum = o.no_vacuum;
  ro.progress_s = o.progress_s;
  ro.random_seed = o.random_seed;
  for (const auto& [k, v] : o.defines) ro.defines[k] = v;
  for (size_t i = 0; i < info.scripts.size(); ++i) {
    const ScriptInfo& si = info.scripts[i];
    results::ResultScript s{
        .desc = si.desc,
        .weight = si.weight,
        .spec = i < o.scripts.size() ? o.scripts[i].name : "",
        .is_file = i < o.scripts.size() && o.scripts[i].kind == ScriptSpec::Kind::kFile,
        .command_lines = si.command_lines};
    in.scripts.push_back(std::move(s));
  }
  return results::RunResultToJson(in, r, facts);
}

}  // namespace pgrig::cli
