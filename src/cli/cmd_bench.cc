// pgrig bench: pgbench's benchmarking mode on pgrig's engine.
//
// Order of work follows pgbench's main(): options, scripts, -D, the setup
// connection (version line, scale from pgbench_branches, vacuum), the run,
// the summary.  Then pgrig's own lines and the --json results document.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/bench_json.h"
#include "cli/bench_report.h"
#include "cli/commands.h"
#include "cli/fleet_gate.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cli/version.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "engine/engine.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "host/server_cpu.h"
#include "pg/connection.h"
#include "profile/profile_text.h"
#include "profile/server_profiler.h"
#include "script/prng.h"
#include "script/script.h"
#include "script/variables.h"
#include "workload/bench_options.h"

namespace pgrig::cli {

using workload::BenchError;
using workload::BenchOptions;
using workload::BenchParse;
using workload::kBenchProgram;
using workload::ParseBenchArgs;
using workload::ScriptSpec;

namespace {

void PrintErr(const std::string& s) { std::fputs(s.c_str(), stderr); }

// What pgbench prints for a failed statement: the connection's error
// message as the server sent it (pg::Connection's own status adds
// " (while running: ...)", which pgbench does not), without the final
// newline.
std::string ServerErrorText(pg::Connection& con, const Status& failed) {
  std::string m = con.raw() != nullptr ? PQerrorMessage(con.raw()) : "";
  if (m.empty()) m = failed.message();
  while (!m.empty() && m.back() == '\n') m.pop_back();
  return m;
}

void TryExec(pg::Connection& con, const char* sql) {
  auto r = con.Exec(sql);
  if (!r.ok()) {
    PrintErr("\n" + BenchError(ServerErrorText(con, r.status())));
    PrintErr(std::string(kBenchProgram) +
             ": detail: (ignoring this error and continuing anyway)\n");
  }
}

}  // namespace

namespace {

// --random-seed, else PGBENCH_RANDOM_SEED, else the time (pgbench's order).
// nullopt after printing pgbench's complaint.
std::optional<uint64_t> ChooseSeed(const BenchOptions& o) {
  std::optional<std::string> seed_text = o.random_seed;
  if (!seed_text) {
    const char* env = std::getenv("PGBENCH_RANDOM_SEED");
    if (env != nullptr && *env != '\0') seed_text = env;
  }
  auto seed = script::ParseRandomSeed(seed_text ? *seed_text : "time");
  if (!seed.ok()) {
    PrintErr(BenchError("unrecognized random seed option \"" + *seed_text + "\""));
    PrintErr(BenchError(
        "error while setting random seed from PGBENCH_RANDOM_SEED environment variable"));
    return std::nullopt;
  }
  if (seed_text && *seed_text != "time") {
    PrintErr(std::string(kBenchProgram) + ": setting random seed to " + std::to_string(*seed) +
             "\n");
  }
  return *seed;
}

// The scripts and -D variables; nullopt after printing the error.
std::optional<workload::PreparedScripts> LoadScripts(const BenchOptions& o) {
  auto prepared = workload::PrepareScripts(o.scripts, o.defines);
  if (!prepared.ok()) {
    PrintErr(BenchError(prepared.status().message()));
    return std::nullopt;
  }
  return std::move(prepared).value();
}

// Output files are checked before anything starts (no cluster, no
// connection), so that a run's results cannot be lost at its end.  False
// after printing the error.
bool OutputsCanBeWritten(const BenchOptions& o) {
  if (!o.json_path.empty()) {
    Status w = CheckCanCreate(o.json_path, "the results (--json)");
    if (!w.ok()) {
      PrintErr(BenchError(w.message()));
      return false;
    }
    if (o.profile) {
      w = CheckCanCreate(profile::FoldedPathFor(o.json_path), "the folded stacks (--profile)");
      if (!w.ok()) {
        PrintErr(BenchError(w.message()));
        return false;
      }
    }
  }
  if (o.log) {
    const std::string prefix = o.log_prefix.empty() ? "pgbench_log" : o.log_prefix;
    Status w = CheckCanCreate(prefix + "." + std::to_string(getpid()), "the transaction log (-l)");
    if (!w.ok()) {
      PrintErr(BenchError(w.message()));
      return false;
    }
  }
  return true;
}

// What pgbench does on its setup connection before the run: the scale from
// pgbench_branches when a built-in script runs, then the vacuums (unless
// -n).  Returns the scale; nullopt after printing the error.
std::optional<int> PrepareTables(pg::Connection& con, const BenchOptions& o) {
  int scale = o.scale;
  if (o.internal_script_used) {
    auto count = con.Exec("select count(*) from pgbench_branches");
    if (!count.ok()) {
      PrintErr(BenchError("could not count number of branches: " +
                          ServerErrorText(con, count.status())));
      if (con.last_sqlstate() == "42P01") {
        PrintErr(std::string(kBenchProgram) +
                 ": hint: Perhaps you need to do initialization (\"pgrig init\") in database \"" +
                 std::string(PQdb(con.raw())) + "\".\n");
      }
      return std::nullopt;
    }
    const std::string v(count->Get(0, 0));
    scale = std::atoi(v.c_str());
    if (scale < 0) {
      PrintErr(BenchError("invalid count(*) from pgbench_branches: \"" + v + "\""));
      return std::nullopt;
    }
    if (o.scale_given) {
      PrintErr(std::string(kBenchProgram) +
               ": warning: scale option ignored, using count from pgbench_branches table (" +
               std::to_string(scale) + ")\n");
    }
  }
  if (!o.no_vacuum) {
    PrintErr("starting vacuum...");
    TryExec(con, "vacuum pgbench_branches");
    TryExec(con, "vacuum pgbench_tellers");
    TryExec(con, "truncate pgbench_history");
    PrintErr("end.\n");
    if (o.vacuum_accounts) {
      PrintErr("starting vacuum pgbench_accounts...");
      TryExec(con, "vacuum analyze pgbench_accounts");
      PrintErr("end.\n");
    }
  }
  return scale;
}

// The exit code for how the run ended, with pgbench's line for an aborted
// or interrupted one.
int ExitCodeOf(const engine::RunResult& r) {
  if (r.stop_reason == engine::StopReason::kAborted) {
    PrintErr(BenchError("Run was aborted; the above results are incomplete."));
    return kExitRunFailure;
  }
  if (r.stop_reason == engine::StopReason::kInterrupted) {
    PrintErr(BenchError("interrupted: the above results cover the " +
                        std::to_string(static_cast<double>(r.bench_duration_ns) / 1e9) +
                        " s measured before the interruption"));
    return kExitRunFailure;
  }
  return kExitOk;
}

}  // namespace

int RunBench(int argc, char** argv) {
  BenchParse parsed = ParseBenchArgs(argc, argv);
  if (!parsed.out.empty()) std::fputs(parsed.out.c_str(), stdout);
  if (!parsed.err.empty()) PrintErr(parsed.err);
  if (parsed.action == BenchParse::Action::kExit) return parsed.exit_code;
  BenchOptions& o = parsed.options;

  const std::optional<uint64_t> seed = ChooseSeed(o);
  if (!seed) return kExitBadInvocation;
  const std::optional<workload::PreparedScripts> loaded = LoadScripts(o);
  if (!loaded) return kExitBadInvocation;
  if (!OutputsCanBeWritten(o)) return kExitBadInvocation;

  // Target and setup connection.
  auto target = ResolveTarget(o.conn);
  if (!target.ok()) {
    PrintErr(BenchError(target.status().message()));
    return kExitBadInvocation;
  }
  auto con = pg::Connect(target->params);
  if (!con.ok()) {
    PrintErr(BenchError(con.status().message()));
    PrintErr(BenchError("could not create connection for setup"));
    return kExitBadInvocation;
  }
  const ServerInfo server = ServerInfoOf(*con, *target);
  // Facts for --json are taken before the run, so that they describe the
  // server as it was measured (and survive a server that dies mid-run).
  const nlohmann::json facts = o.json_path.empty() ? nlohmann::json(nullptr) : FactsDocument(*con);
  std::printf("pgrig bench (pgrig %s, server %s)\n", kVersion, server.version.c_str());
  std::fflush(stdout);
  if (o.debug > 0) {
    PrintErr(std::string(kBenchProgram) + ": pghost: " + PQhost(con->raw()) +
             " pgport: " + PQport(con->raw()) + " nclients: " + std::to_string(o.clients) +
             (o.duration_s > 0 ? " duration: " + std::to_string(o.duration_s)
                               : " nxacts: " + std::to_string(o.transactions)) +
             " dbName: " + PQdb(con->raw()) + "\n");
  }
  const std::optional<int> scale = PrepareTables(*con, o);
  if (!scale) return kExitBadInvocation;
  *con = pg::Connection();  // close the setup connection before the run

  RunInfo info;
  info.scale = *scale;
  info.threads = engine::WorkerThreads(o.threads, o.clients);
  info.cpus = host::UsableCpus();
  for (const auto& sc : *loaded->scripts) {
    ScriptInfo si{.desc = sc.desc, .weight = sc.weight, .command_lines = {}};
    for (const auto& c : sc.commands) si.command_lines.push_back(c.first_line);
    info.scripts.push_back(std::move(si));
  }

  engine::EngineConfig cfg = workload::EngineConfigFor(o, {.target = target->params,
                                                           .scripts = loaded->scripts,
                                                           .names = loaded->names,
                                                           .base_variables = loaded->base_variables,
                                                           .scale = *scale,
                                                           .random_seed = *seed});
  const double approx_start_wall = WallSeconds();
  cfg.on_progress = [&o, approx_start_wall](const stats::IntervalStats& s, double duration_s,
                                            double elapsed_s) {
    PrintErr(FormatProgress(o, s, duration_s, elapsed_s, approx_start_wall));
  };
  // The engine marks error-level lines itself ("error: ..."), so each line
  // gets pgbench's level: "pgrig bench: error: division by zero".
  cfg.on_message = [](const std::string& line) {
    PrintErr(std::string(kBenchProgram) + ": " + line + "\n");
  };
  cfg.stop_requested = InterruptScope::flag();
  // Clients mode: ready once every connection is open, the window from "go".
  const std::optional<int> fleet_gate_s = FleetGateFromEnvironment();
  // Every client of the fleet measures the same -T from "go", however long
  // its own connections took to open (they are open before it says ready).
  if (fleet_gate_s) cfg.window_start = engine::EngineConfig::WindowStart::kStartGate;
  // The server's CPU over the window: the first snapshot once every client
  // is connected (after the fleet's "go" in clients mode), the last after
  // the run's backends have been reaped (host/server_cpu.h).
  host::ServerCpuWindow server_cpu = host::ServerCpuWindow::Prepare(target->params);
  // --profile: perf samples the server's process tree; the window is the
  // same as the server CPU's (profile/server_profiler.h).
  std::optional<profile::ServerProfiler> profiler;
  if (o.profile) profiler.emplace(profile::StartProfilerFor(server_cpu));
  cfg.start_gate = [fleet_gate_s, &server_cpu, &profiler]() -> Status {
    if (fleet_gate_s) PGRIG_RETURN_IF_ERROR(WaitForFleetGo(*fleet_gate_s));
    server_cpu.Start();
    if (profiler) profiler->MarkWindowStart();
    return Status();
  };
  auto run = [&cfg] {
    InterruptScope interrupt;
    return engine::RunBenchmark(cfg);
  }();
  if (!run.ok()) {
    PrintErr(BenchError(run.status().message()));
    return kExitBadInvocation;
  }
  const engine::RunResult& r = *run;
  if (profiler) profiler->MarkWindowEnd();
  const host::ServerCpuMeasure server_measure = server_cpu.Finish();
  std::optional<profile::ProfileMeasure> profile_measure;
  if (profiler) profile_measure = profiler->Finish();
  std::fputs(FormatPgbenchSummary(o, info, r).c_str(), stdout);
  std::fputs(FormatPgrigExtras(o, info, r, server_measure).c_str(), stdout);
  if (profile_measure) {
    std::optional<double> measured;
    if (server_measure.usage) measured = server_measure.usage->Total();
    std::fputs(profile::FormatProfileText(*profile_measure, measured).c_str(), stdout);
  }
  std::fflush(stdout);

  int exit_code = ExitCodeOf(r);
  if (!o.json_path.empty()) {
    std::optional<results::ServerProfileDoc> profile_doc;
    if (profile_measure) {
      const std::string folded = profile::FoldedPathFor(o.json_path);
      std::string write_error;
      profile_doc = results::KeepServerProfile(*profile_measure, folded,
                                               std::filesystem::path(folded).filename().string(),
                                               &write_error);
      if (!write_error.empty()) PrintErr(BenchError(write_error));
    }
    const nlohmann::json doc =
        BenchResultToJson(o, info, server, r, facts, server_measure, std::move(profile_doc));
    Status w = WriteFileAtomically(o.json_path, doc.dump(2) + "\n");
    if (!w.ok()) {
      PrintErr(BenchError("could not write results to \"" + o.json_path + "\": " + w.message()));
      if (exit_code == kExitOk) exit_code = kExitRunFailure;
    }
  }
  return exit_code;
}

}  // namespace pgrig::cli
