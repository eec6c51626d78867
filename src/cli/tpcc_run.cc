#include "cli/tpcc_run.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/bench_json.h"
#include "cli/exit_status.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cli/version.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "engine/engine.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "host/server_cpu.h"
#include "results/result_json.h"
#include "script/prng.h"
#include "script/variables.h"
#include "tpcc/check.h"
#include "tpcc/run.h"
#include "tpcc/transactions.h"
#include "workload/bench_options.h"

namespace pgrig::cli {
namespace {

constexpr CommandName kCommand{"pgrig tpcc run"};

void Say(const std::string& line) { std::fprintf(stderr, "pgrig tpcc run: %s\n", line.c_str()); }

// The six scripts parsed for the engine, with the automatic variables'
// slots (what workload::PrepareScripts does for files and built-ins).
Result<workload::PreparedScripts> ParseScripts(const std::vector<tpcc::TxnScript>& txns) {
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  for (const tpcc::TxnScript& t : txns) {
    PGRIG_ASSIGN_OR_RETURN(script::Script s,
                           script::ParseScript(t.text, tpcc::TxnName(t.type), *names));
    s.weight = t.weight;
    scripts->push_back(std::move(s));
  }
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  std::shared_ptr<const script::NameTable> frozen = names;
  return workload::PreparedScripts{.scripts = scripts,
                                   .names = frozen,
                                   .base_variables = std::make_shared<script::Variables>(frozen)};
}

// What is wrong with the data after the run: conditions 1 to 4 (clause
// 3.3.2) over `warehouses` (empty: all).  Empty when they hold.
Result<std::vector<std::string>> BrokenConditions(pg::Connection& conn,
                                                  const std::vector<int>& warehouses,
                                                  nlohmann::json* checks) {
  PGRIG_ASSIGN_OR_RETURN(auto results,
                         tpcc::RunChecks(conn, {.warehouses = warehouses, .last_condition = 4}));
  std::vector<std::string> broken;
  for (const tpcc::ConditionResult& r : results) {
    checks->push_back({{"condition", r.condition.number},
                       {"what", r.condition.what},
                       {"violations", r.violations}});
    if (r.violations != 0) {
      broken.push_back(fmt::format("condition {} ({}): {} {} break it", r.condition.number,
                                   r.condition.what, r.violations, r.condition.scope));
    }
  }
  return broken;
}

std::string TypesTable(const tpcc::TpccFigures& f) {
  std::string out =
      fmt::format("{:<20} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "transaction type",
                  "count", "failures", "retries", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms");
  for (const tpcc::TypeFigures& t : f.types) {
    out += fmt::format("{:<20} {:>9} {:>8} {:>8} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>9.2f}\n",
                       tpcc::TxnName(t.type), t.transactions, t.failures, t.retries, t.p50_ms,
                       t.p90_ms, t.p95_ms, t.p99_ms, t.max_ms);
  }
  return out;
}

nlohmann::json TypesJson(const tpcc::TpccFigures& f) {
  nlohmann::json types = nlohmann::json::object();
  for (const tpcc::TypeFigures& t : f.types) {
    types[std::string(tpcc::TxnName(t.type))] = {{"transactions", t.transactions},
                                                 {"failures", t.failures},
                                                 {"retries", t.retries},
                                                 {"latency_ms",
                                                  {{"p50", t.p50_ms},
                                                   {"p90", t.p90_ms},
                                                   {"p95", t.p95_ms},
                                                   {"p99", t.p99_ms},
                                                   {"max", t.max_ms}}}};
  }
  return types;
}

}  // namespace

Status ValidateTpccRun(const TpccRunOptions& o) {
  if (o.clients < 1 || o.clients > 10000) {
    return InvalidArgument(fmt::format("-c {}: clients are 1 to 10000", o.clients));
  }
  if (o.threads < 1 || o.threads > o.clients) {
    return InvalidArgument(
        fmt::format("-j {}: threads are 1 to the number of clients ({})", o.threads, o.clients));
  }
  if (o.duration_s < 1 || o.duration_s > 7 * 24 * 3600) {
    return InvalidArgument(fmt::format("-T {}: seconds, 1 to a week", o.duration_s));
  }
  if (o.warmup_s < 0 || o.warmup_s > 24 * 3600) {
    return InvalidArgument(fmt::format("--warmup {}: seconds, 0 to a day", o.warmup_s));
  }
  if (o.progress_s < 0) return InvalidArgument(fmt::format("-P {}: at least 0", o.progress_s));
  if (!(o.rate_tps >= 0) || o.rate_tps > 1e7) {
    return InvalidArgument(fmt::format("-R {}: transactions per second, 0 to 10^7", o.rate_tps));
  }
  if (o.max_tries < 1 || o.max_tries > 1000) {
    return InvalidArgument(fmt::format("--max-tries {}: 1 to 1000", o.max_tries));
  }
  if (o.spec_timing && o.rate_tps > 0) {
    return InvalidArgument(
        "--spec-timing and -R both set the pace of the terminals (keying and think times, or an "
        "offered rate); give one");
  }
  if (o.check_warehouses < 0) {
    return InvalidArgument(fmt::format("--check-warehouses {}: at least 1", o.check_warehouses));
  }
  if (o.random_seed) {
    auto seed = script::ParseRandomSeed(*o.random_seed);
    if (!seed.ok()) {
      return InvalidArgument("--random-seed \"" + *o.random_seed +
                             "\": a number, \"time\" or \"rand\"");
    }
  }
  if (!o.json_path.empty())
    PGRIG_RETURN_IF_ERROR(CheckCanCreate(o.json_path, "the results (--json)"));
  return Status::Ok();
}

int RunTpccRun(const TpccRunOptions& o) {
  const uint64_t seed = *script::ParseRandomSeed(o.random_seed.value_or("time"));
  auto target = ResolveTarget(o.conn);
  if (!target.ok()) return Fail(kCommand, target.status());
  auto conn = pg::Connect(target->params);
  if (!conn.ok()) return Fail(kCommand, conn.status());
  auto load = tpcc::ReadLoad(*conn);
  if (!load.ok()) return Fail(kCommand, load.status());
  if (o.procedures) {
    auto fn = conn->Exec("SELECT 'tpcc_new_order'::regproc, 'tpcc_stock_level'::regproc");
    if (!fn.ok()) {
      return Fail(kCommand, FailedPrecondition("--procedures: the transactions' functions are not "
                                               "in this database (pgrig tpcc init --procedures "
                                               "makes them)"));
    }
  }

  // The run's NURand constants: C_LAST at clause 2.1.6.1's distance from the
  // load's, drawn from the run's seed.
  script::Prng rng(seed);
  const tpcc::NURandConstants run_constants = tpcc::NURandConstants::ForRun(load->constants, rng);
  const std::vector<tpcc::TxnScript> txns =
      tpcc::TransactionScripts({.warehouses = load->warehouses,
                                .run = run_constants,
                                .spec_timing = o.spec_timing,
                                .procedures = o.procedures});
  auto prepared = ParseScripts(txns);
  if (!prepared.ok()) return Fail(kCommand, prepared.status().WithContext("internal script"));

  const ServerInfo server = ServerInfoOf(*conn, *target);
  const nlohmann::json facts = o.json_path.empty() ? nlohmann::json(nullptr) : FactsDocument(*conn);

  workload::BenchOptions bo;
  bo.conn = o.conn;
  bo.clients = o.clients;
  bo.threads = o.threads;
  bo.mode = o.mode;
  bo.rate_tps = o.rate_tps;
  bo.max_tries = o.max_tries;
  bo.progress_s = o.progress_s;
  bo.random_seed = o.random_seed;
  auto config_for = [&](int duration_s, uint64_t run_seed) {
    bo.duration_s = duration_s;
    engine::EngineConfig cfg =
        workload::EngineConfigFor(bo, {.target = target->params,
                                       .scripts = prepared->scripts,
                                       .names = prepared->names,
                                       .base_variables = prepared->base_variables,
                                       .scale = load->warehouses,
                                       .random_seed = run_seed});
    cfg.per_script_latency = true;
    cfg.untimed_sleeps = o.spec_timing;
    cfg.stop_requested = InterruptScope::flag();
    cfg.on_message = [](const std::string& line) { Say(line); };
    return cfg;
  };
  std::printf(
      "pgrig tpcc run (pgrig %s, server %s): %d warehouses, %d clients, %d threads, %d s%s, %s, "
      "%s%s\n",
      kVersion, server.version.c_str(), load->warehouses, o.clients,
      engine::WorkerThreads(o.threads, o.clients), o.duration_s,
      o.warmup_s > 0 ? fmt::format(" after {} s of warm-up", o.warmup_s).c_str() : "",
      script::QueryModeName(o.mode), o.procedures ? "stored procedures" : "client-side SQL",
      o.spec_timing ? ", keying and think times (latency without them)" : "");
  std::fflush(stdout);

  InterruptScope interrupt;
  if (o.warmup_s > 0) {
    engine::EngineConfig warm = config_for(o.warmup_s, rng.Next64());
    warm.progress_s = 0;
    auto w = engine::RunBenchmark(warm);
    if (!w.ok()) return Fail(kCommand, w.status(), ExitStage::kRun);
    if (w->stop_reason != engine::StopReason::kCompleted) {
      return Fail(kCommand,
                  fmt::format("the warm-up {}: {}", engine::StopReasonName(w->stop_reason),
                              w->first_abort_message.empty() ? "no figure measured"
                                                             : w->first_abort_message),
                  kExitRunFailure);
    }
  }

  auto before = tpcc::NewOrderCounter(*conn);
  if (!before.ok()) return Fail(kCommand, before.status(), ExitStage::kRun);
  engine::EngineConfig cfg = config_for(o.duration_s, rng.Next64());
  cfg.on_progress = [](const stats::IntervalStats& s, double duration_s, double elapsed_s) {
    std::fprintf(stderr, "progress: %.1f s, %.1f tpm, %lld failed\n", elapsed_s,
                 duration_s > 0 ? static_cast<double>(s.transactions) * 60.0 / duration_s : 0.0,
                 static_cast<long long>(s.failures()));
  };
  host::ServerCpuWindow server_cpu = host::ServerCpuWindow::Prepare(target->params);
  cfg.start_gate = [&server_cpu]() -> Status {
    server_cpu.Start();
    return Status();
  };
  auto run = engine::RunBenchmark(cfg);
  if (!run.ok()) return Fail(kCommand, run.status(), ExitStage::kRun);
  const engine::RunResult& r = *run;
  const host::ServerCpuMeasure server_measure = server_cpu.Finish();

  // What the database says after the window, on the setup connection.
  auto after = tpcc::NewOrderCounter(*conn);
  if (!after.ok()) return Fail(kCommand, after.status(), ExitStage::kRun);
  const std::vector<int> checked =
      o.check_warehouses > 0 ? tpcc::SampleWarehouses(load->warehouses, o.check_warehouses, seed)
                             : std::vector<int>{};
  nlohmann::json checks = nlohmann::json::array();
  auto broken = BrokenConditions(*conn, checked, &checks);
  if (!broken.ok()) return Fail(kCommand, broken.status(), ExitStage::kRun);
  const tpcc::TpccFigures f = tpcc::Figures(r, *after - *before, o.clients);

  // Why no figure can be given, if one cannot.
  std::vector<std::string> refused;
  if (r.stop_reason != engine::StopReason::kCompleted) {
    refused.push_back(
        fmt::format("the run {}{}", engine::StopReasonName(r.stop_reason),
                    r.first_abort_message.empty() ? "" : ": " + r.first_abort_message));
  }
  for (const std::string& b : *broken) refused.push_back("after the run, " + b);
  if (!f.counts_agree) {
    refused.push_back(fmt::format(
        "the client counted {} committed New-Orders, the database {} (it may be ahead by at most "
        "one per client, never behind)",
        f.new_orders, f.database_new_orders));
  }
  const bool ok = refused.empty();

  const double client_cpu_us = r.ClientCpuUsPerTransaction();
  int64_t ended = 0;
  for (const tpcc::TypeFigures& t : f.types) ended += t.transactions + t.failures;
  std::optional<double> server_cpu_us;
  if (server_measure.usage && ended > 0) {
    server_cpu_us = server_measure.usage->Total() * 1e6 / static_cast<double>(ended);
  }
  std::fputs(TypesTable(f).c_str(), stdout);
  if (ok) {
    std::printf(
        "NOPM: %.0f (New-Orders committed per minute: %lld in %.1f s; the database counted %lld)\n",
        f.nopm, static_cast<long long>(f.new_orders), f.window_s,
        static_cast<long long>(f.database_new_orders));
    std::printf(
        "tpmC-like: %.0f (New-Orders per minute, the %lld rolled back by design included)\n",
        f.tpmc_like, static_cast<long long>(f.new_orders_rolled_back));
    std::printf("TPM: %.0f (transactions of the five types per minute)\n", f.tpm);
  } else {
    std::printf("no NOPM: %s\n", refused.front().c_str());
    for (size_t i = 1; i < refused.size(); ++i) std::printf("         %s\n", refused[i].c_str());
  }
  std::printf("client CPU: %.1f us per transaction; server CPU: %s\n", client_cpu_us,
              server_cpu_us ? fmt::format("{:.1f} us per transaction", *server_cpu_us).c_str()
                            : server_measure.unavailable.c_str());
  std::printf(
      "conditions 1-4 after the run (%s): %s\n",
      checked.empty() ? "every warehouse" : fmt::format("{} warehouses", checked.size()).c_str(),
      broken->empty() ? "hold" : "FAILED");
  std::fflush(stdout);

  int exit_code = ok ? kExitOk : kExitRunFailure;
  if (!o.json_path.empty()) {
    results::ResultInputs in;
    in.tool_version = kVersion;
    in.command = "tpcc run";
    in.command_line = pg::RedactedCommandLine(o.argv, "pgrig tpcc");
    in.server = server;
    in.cpus = host::UsableCpus();
    in.server_cpu = server_measure;
    results::ResultOptions& ro = in.options;
    ro.clients = o.clients;
    ro.threads = engine::WorkerThreads(o.threads, o.clients);
    ro.duration_s = o.duration_s;
    ro.mode = o.mode;
    ro.scale = load->warehouses;
    ro.rate_tps = o.rate_tps;
    ro.max_tries = static_cast<int>(o.max_tries);
    ro.no_vacuum = true;
    ro.progress_s = o.progress_s;
    ro.random_seed = o.random_seed;
    for (size_t i = 0; i < txns.size(); ++i) {
      results::ResultScript s{.desc = std::string(tpcc::TxnName(txns[i].type)),
                              .weight = txns[i].weight,
                              .spec = "tpcc/" + std::string(tpcc::TxnName(txns[i].type)),
                              .is_file = false,
                              .command_lines = {}};
      for (const auto& c : (*prepared->scripts)[i].commands)
        s.command_lines.push_back(c.first_line);
      in.scripts.push_back(std::move(s));
    }
    nlohmann::json doc = results::RunResultToJson(in, r, facts);
    auto figure = [ok](double v) { return ok ? nlohmann::json(v) : nlohmann::json(nullptr); };
    doc["tpcc"] = {{"metric", "nopm"},
                   {"warehouses", load->warehouses},
                   {"procedures", o.procedures},
                   {"spec_timing", o.spec_timing},
                   {"warmup_s", o.warmup_s},
                   {"run_constants",
                    {{"c_last", run_constants.c_last},
                     {"c_id", run_constants.c_id},
                     {"ol_i_id", run_constants.ol_i_id}}},
                   {"window_s", f.window_s},
                   {"nopm", figure(f.nopm)},
                   {"tpmc_like", figure(f.tpmc_like)},
                   {"tpm", figure(f.tpm)},
                   {"new_orders",
                    {{"committed", f.new_orders},
                     {"rolled_back", f.new_orders_rolled_back},
                     {"database", f.database_new_orders},
                     {"agree", f.counts_agree}}},
                   {"types", TypesJson(f)},
                   {"client_cpu_us_per_transaction", client_cpu_us},
                   {"server_cpu_us_per_transaction",
                    server_cpu_us ? nlohmann::json(*server_cpu_us) : nlohmann::json(nullptr)},
                   {"checks", {{"warehouses", checked}, {"conditions", checks}}},
                   {"consistent", broken->empty()},
                   {"refused", refused}};
    Status w = WriteFileAtomically(o.json_path, doc.dump(2) + "\n");
    if (!w.ok()) {
      Fail(kCommand, "could not write the results to \"" + o.json_path + "\": " + w.message(),
           kExitRunFailure);
      exit_code = kExitRunFailure;
    }
  }
  return exit_code;
}

}  // namespace pgrig::cli
