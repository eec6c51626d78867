// One measured TPC-C-like run over data `pgrig tpcc init` loaded: what
// `pgrig tpcc run` prints and a plan's `kind = "tpcc"` cell records.  The
// caller validates its options and resolves the server; this module does
// the rest, in this order:
//
//   Open()   connects, reads the load (tpcc_load), checks that the
//            functions are there for `procedures`, draws the run's NURand
//            constants and parses the six scripts;
//   Run()    a warm-up run of its own connections when asked for (not
//            measured), the database's New-Order count, the measured run
//            with the server's CPU over its window, the count again, and
//            conditions 1 to 4 over the checked warehouses.
//
// Run() reports every way a run can end in the Measurement rather than as
// an error once the measured run has started: a run that aborted, was
// interrupted, whose counts disagree, whose data broke a condition, or
// whose server could no longer be asked (it died) has `refused` reasons and
// gives no NOPM.  An error Status means nothing was measured (the clients
// could not connect).
//
// Thread-safety: one Measurer per thread; the hooks are called on the
// engine's threads as engine::EngineConfig says.
#ifndef PGRIG_TPCC_MEASURE_H_
#define PGRIG_TPCC_MEASURE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/config.h"
#include "engine/result.h"
#include "host/server_cpu.h"
#include "pg/connection.h"
#include "results/result_json.h"
#include "results/tpcc_section.h"
#include "script/script.h"
#include "tpcc/run.h"
#include "tpcc/transactions.h"
#include "workload/bench_options.h"

namespace pgrig::tpcc {

struct MeasureOptions {
  pg::ConnectionParams target;  // resolved (cli/target.h)
  int clients = 10;
  int threads = 1;
  int duration_s = 60;
  int warmup_s = 0;
  int progress_s = 0;
  double rate_tps = 0;  // all five types together; 0: as fast as possible
  uint32_t max_tries = 10;
  bool spec_timing = false;  // keying and think times (transactions.h)
  bool procedures = false;   // one function call per transaction (procedures.h)
  script::QueryMode mode = script::QueryMode::kPrepared;
  uint64_t seed = 0;         // the run's constants, the engine's seeds, the sample
  int check_warehouses = 0;  // conditions 1-4 on this many (first, last, random); 0: all
  const std::atomic<bool>* stop_requested = nullptr;
  std::function<void(const std::string&)> on_message;  // the engine's client messages
  // Fleet clients mode (fleet/client_mode.h): called once every connection
  // of the measured run is open (after the warm-up); the window starts when
  // it returns OK, and an error ends the run before any of its load.  Other
  // hosts' clients commit to the same database, so its counts and the
  // conditions are the fleet controller's to read and check: with a gate,
  // Run() reads and checks neither, and the figures are the client's own
  // counts ("fleet_client" in the section).
  std::function<Status()> fleet_gate;
  // The measured run's per-interval figures (every progress_s seconds).
  std::function<void(const stats::IntervalStats&, double, double)> on_progress;
};

struct Measurement {
  // Set when the warm-up did not complete: nothing was measured, `run` is
  // the warm-up's and `refused` says why.
  bool warmup_ended_early = false;
  engine::RunResult run;
  host::ServerCpuMeasure server_cpu{.usage = std::nullopt, .unavailable = "not measured"};
  TpccFigures figures;
  std::vector<int> checked;  // the warehouses conditions 1-4 were checked on (empty: all)
  // [{"condition", "what", "violations"}], as checked.
  nlohmann::json checks = nlohmann::json::array();
  bool consistent = false;  // every checked condition held
  // Why the run gives no NOPM; empty when it gives one.
  std::vector<std::string> refused;
  double client_cpu_us = 0;  // per transaction ended
  std::optional<double> server_cpu_us;

  bool ok() const { return refused.empty(); }
};

class Measurer {
 public:
  // Errors: the connection's, no load (NotFound-like, naming `tpcc init`),
  // missing functions for `procedures` (FailedPrecondition).
  static Result<Measurer> Open(const MeasureOptions& o);

  const LoadInfo& load() const { return load_; }
  const NURandConstants& run_constants() const { return run_constants_; }
  // The setup connection (facts, server version) between Open and Run.
  pg::Connection& connection() { return conn_; }

  Result<Measurement> Run();

  // The run's part of a pgrig.result/1 document: options, scripts and the
  // server's CPU into `in` (the caller sets tool, command and server).
  void FillResultInputs(const Measurement& m, results::ResultInputs* in) const;
  // The document's "tpcc" section (results::TpccSectionJson writes it);
  // figures are null when the run gives none.
  results::TpccSection Section(const Measurement& m) const;

 private:
  Measurer() = default;
  engine::EngineConfig ConfigFor(int duration_s, uint64_t run_seed) const;

  MeasureOptions o_;
  pg::Connection conn_;
  LoadInfo load_;
  NURandConstants run_constants_;
  uint64_t next_seed_ = 0;
  std::vector<TxnScript> txns_;
  workload::PreparedScripts prepared_;
};

// Conditions 1 to 4 over `warehouses` (empty: all) after a run: the
// section's "checks.conditions" entries ({"condition", "what",
// "violations"}), whether every one held, and a line of refusal per broken
// one.  `pgrig tpcc run` and a fleet's controller (clients mode) both check
// with it.
struct ConditionsAfterRun {
  nlohmann::json conditions = nlohmann::json::array();
  bool consistent = false;
  std::vector<std::string> broken;
};
Result<ConditionsAfterRun> CheckConditionsAfterRun(pg::Connection& conn,
                                                   const std::vector<int>& warehouses);

// The line of refusal for a run that `why` stopped, as printed and
// recorded ("the run was interrupted", "the run aborted: ...").
std::string StopWhy(const engine::RunResult& r, const char* what);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_MEASURE_H_
