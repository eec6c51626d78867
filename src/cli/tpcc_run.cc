#include "cli/tpcc_run.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/bench_json.h"
#include "cli/exit_status.h"
#include "cli/fleet_gate.h"
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
#include "results/tpcc_section.h"
#include "script/prng.h"
#include "tpcc/measure.h"
#include "workload/bench_options.h"

namespace pgrig::cli {
namespace {

constexpr CommandName kCommand{"pgrig tpcc run"};

void Say(const std::string& line) { std::fprintf(stderr, "pgrig tpcc run: %s\n", line.c_str()); }

std::string TypesTable(const tpcc::TpccFigures& f) {
  std::string out =
      fmt::format("{:<20} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9}\n", "transaction type",
                  "count", "failures", "retries", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms");
  for (const tpcc::TypeFigures& t : f.types) {
    out +=
        fmt::format("{:<20} {:>9} {:>8} {:>8} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>9.2f}\n",
                    tpcc::TxnName(t.type), t.transactions, t.failures, t.retries, t.latency_ms.p50,
                    t.latency_ms.p90, t.latency_ms.p95, t.latency_ms.p99, t.latency_ms.max);
  }
  return out;
}

}  // namespace

Status ValidateTpccRun(TpccRunOptions* o) {
  PGRIG_RETURN_IF_ERROR(tpcc::ValidateRunArgs(o));
  if (!o->json_path.empty())
    PGRIG_RETURN_IF_ERROR(CheckCanCreate(o->json_path, "the results (--json)"));
  return Status::Ok();
}

int RunTpccRun(const TpccRunOptions& o) {
  const uint64_t seed = *script::ParseRandomSeed(o.random_seed.value_or("time"));
  auto target = ResolveTarget(o.conn);
  if (!target.ok()) return Fail(kCommand, target.status());
  InterruptScope interrupt;
  tpcc::MeasureOptions mo{
      .target = target->params,
      .clients = o.clients,
      .threads = o.threads,
      .duration_s = o.duration_s,
      .warmup_s = o.warmup_s,
      .progress_s = o.progress_s,
      .rate_tps = o.rate_tps,
      .max_tries = o.max_tries,
      .spec_timing = o.spec_timing,
      .procedures = o.procedures,
      .mode = o.mode,
      .seed = seed,
      .check_warehouses = o.check_warehouses,
      .stop_requested = InterruptScope::flag(),
      .on_message = [](const std::string& line) { Say(line); },
      .fleet_gate = nullptr,
      .on_progress =
          [](const stats::IntervalStats& s, double duration_s, double elapsed_s) {
            std::fprintf(
                stderr, "progress: %.1f s, %.1f tpm, %lld failed\n", elapsed_s,
                duration_s > 0 ? static_cast<double>(s.transactions) * 60.0 / duration_s : 0.0,
                static_cast<long long>(s.failures()));
          }};
  // Clients mode of a fleet: ready after the warm-up, once every connection
  // is open; the window from "go" (cli/fleet_gate.h).
  if (const std::optional<int> gate_s = FleetGateFromEnvironment()) {
    mo.fleet_gate = [s = *gate_s] { return WaitForFleetGo(s); };
  }
  auto measurer = tpcc::Measurer::Open(mo);
  if (!measurer.ok()) {
    Status s = measurer.status();
    if (s.code() == StatusCode::kFailedPrecondition) s = FailedPrecondition("--" + s.message());
    return Fail(kCommand, s);
  }
  const ServerInfo server = ServerInfoOf(measurer->connection(), *target);
  const nlohmann::json facts =
      o.json_path.empty() ? nlohmann::json(nullptr) : FactsDocument(measurer->connection());
  std::printf(
      "pgrig tpcc run (pgrig %s, server %s): %d warehouses, %d clients, %d threads, %d s%s, %s, "
      "%s%s\n",
      kVersion, server.version.c_str(), measurer->load().warehouses, o.clients,
      engine::WorkerThreads(o.threads, o.clients), o.duration_s,
      o.warmup_s > 0 ? fmt::format(" after {} s of warm-up", o.warmup_s).c_str() : "",
      script::QueryModeName(o.mode), o.procedures ? "stored procedures" : "client-side SQL",
      o.spec_timing ? ", keying and think times (latency without them)" : "");
  std::fflush(stdout);

  auto measured = measurer->Run();
  if (!measured.ok()) return Fail(kCommand, measured.status(), ExitStage::kRun);
  const tpcc::Measurement& m = *measured;
  const tpcc::TpccFigures& f = m.figures;
  if (!m.warmup_ended_early) std::fputs(TypesTable(f).c_str(), stdout);
  if (m.ok()) {
    const std::string database =
        mo.fleet_gate ? std::string("this client's count; the fleet controller checks the database")
                      : fmt::format("the database counted {}", f.database_new_orders);
    std::printf("NOPM: %.0f (New-Orders committed per minute: %lld in %.1f s; %s)\n", f.nopm,
                static_cast<long long>(f.new_orders), f.window_s, database.c_str());
    std::printf(
        "tpmC-like: %.0f (New-Orders per minute, the %lld rolled back by design included)\n",
        f.tpmc_like, static_cast<long long>(f.new_orders_rolled_back));
    std::printf("TPM: %.0f (transactions of the five types per minute)\n", f.tpm);
    if (f.delivery && f.delivery->districts > 0) {
      std::printf("Delivery: %lld of %lld districts skipped, no new order found (%.2f%%%s)\n",
                  static_cast<long long>(f.delivery->skipped),
                  static_cast<long long>(f.delivery->districts), 100.0 * f.delivery->skipped_share,
                  f.delivery->skipped_share > 0.01 ? "; more than the 1% clause 5.4.5 allows" : "");
    }
  } else {
    std::printf("no NOPM: %s\n", m.refused.front().c_str());
    for (size_t i = 1; i < m.refused.size(); ++i)
      std::printf("         %s\n", m.refused[i].c_str());
  }
  if (!m.warmup_ended_early) {
    std::printf("client CPU: %.1f us per transaction; server CPU: %s\n", m.client_cpu_us,
                m.server_cpu_us ? fmt::format("{:.1f} us per transaction", *m.server_cpu_us).c_str()
                                : m.server_cpu.unavailable.c_str());
    const std::string where =
        m.checked.empty() ? "every warehouse" : fmt::format("{} warehouses", m.checked.size());
    std::printf("conditions 1-4 after the run (%s): %s\n", where.c_str(),
                mo.fleet_gate      ? "checked by the fleet controller"
                : m.checks.empty() ? "not checked"
                                   : (m.consistent ? "hold" : "FAILED"));
  }
  std::fflush(stdout);

  int exit_code = m.ok() ? kExitOk : kExitRunFailure;
  if (!o.json_path.empty()) {
    results::ResultInputs in;
    in.tool_version = kVersion;
    in.command = "tpcc run";
    in.command_line = pg::RedactedCommandLine(o.argv, "pgrig tpcc");
    in.server = server;
    in.cpus = host::UsableCpus();
    measurer->FillResultInputs(m, &in);
    nlohmann::json doc = results::RunResultToJson(in, m.run, facts);
    doc["tpcc"] = results::TpccSectionJson(measurer->Section(m));
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
