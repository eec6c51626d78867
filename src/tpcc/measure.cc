#include "tpcc/measure.h"

#include <fmt/format.h>

#include <memory>
#include <utility>

#include "engine/engine.h"
#include "results/metrics.h"
#include "script/prng.h"
#include "script/variables.h"
#include "tpcc/check.h"

namespace pgrig::tpcc {
namespace {

// The six scripts parsed for the engine, with the automatic variables'
// slots (what workload::PrepareScripts does for files and built-ins).
Result<workload::PreparedScripts> ParseScripts(const std::vector<TxnScript>& txns) {
  auto names = std::make_shared<script::NameTable>();
  auto scripts = std::make_shared<std::vector<script::Script>>();
  for (const TxnScript& t : txns) {
    PGRIG_ASSIGN_OR_RETURN(script::Script s, script::ParseScript(t.text, TxnName(t.type), *names));
    s.weight = t.weight;
    scripts->push_back(std::move(s));
  }
  for (const char* n : {"client_id", "scale", "default_seed", "random_seed"}) names->Intern(n);
  std::shared_ptr<const script::NameTable> frozen = names;
  return workload::PreparedScripts{.scripts = scripts,
                                   .names = frozen,
                                   .base_variables = std::make_shared<script::Variables>(frozen)};
}

// Conditions 1 to 4 (clause 3.3.2) over m->checked into m->checks; what
// breaks them into m->refused.
Status CheckConditions(pg::Connection& conn, Measurement* m) {
  PGRIG_ASSIGN_OR_RETURN(ConditionsAfterRun c, CheckConditionsAfterRun(conn, m->checked));
  m->checks = std::move(c.conditions);
  m->consistent = c.consistent;
  m->refused.insert(m->refused.end(), c.broken.begin(), c.broken.end());
  return Status::Ok();
}

// The section's "types": the figures of each, with its full histogram when
// the engine kept one.
std::vector<results::TpccType> SectionTypes(const TpccFigures& f, const engine::RunResult& r) {
  std::vector<results::TpccType> types;
  for (const TypeFigures& t : f.types) {
    const auto i = static_cast<size_t>(t.type);
    results::TpccType& out = types.emplace_back();
    out.name = std::string(TxnName(t.type));
    out.transactions = t.transactions;
    out.failures = t.failures;
    out.retries = t.retries;
    if (i < r.scripts.size() && r.scripts[i].latency) out.histogram = *r.scripts[i].latency;
    out.latency_ms = t.latency_ms;
  }
  return types;
}

}  // namespace

Result<ConditionsAfterRun> CheckConditionsAfterRun(pg::Connection& conn,
                                                   const std::vector<int>& warehouses) {
  PGRIG_ASSIGN_OR_RETURN(auto results,
                         RunChecks(conn, {.warehouses = warehouses, .last_condition = 4}));
  ConditionsAfterRun out;
  out.consistent = true;
  for (const ConditionResult& r : results) {
    out.conditions.push_back({{"condition", r.condition.number},
                              {"what", r.condition.what},
                              {"violations", r.violations}});
    if (r.violations != 0) {
      out.consistent = false;
      out.broken.push_back(fmt::format("after the run, condition {} ({}): {} {} break it",
                                       r.condition.number, r.condition.what, r.violations,
                                       r.condition.scope));
    }
  }
  return out;
}

std::string StopWhy(const engine::RunResult& r, const char* what) {
  return fmt::format("the {} {}{}", what, engine::StopReasonName(r.stop_reason),
                     r.first_abort_message.empty() ? "" : ": " + r.first_abort_message);
}

Result<Measurer> Measurer::Open(const MeasureOptions& o) {
  Measurer m;
  m.o_ = o;
  PGRIG_ASSIGN_OR_RETURN(m.conn_, pg::Connect(o.target));
  PGRIG_ASSIGN_OR_RETURN(m.load_, ReadLoad(m.conn_));
  if (o.procedures) {
    if (!HasProcedures(m.conn_)) {
      return FailedPrecondition(
          "procedures: the transactions' functions are not in this database (pgrig tpcc init "
          "--procedures makes them)");
    }
  }
  // The run's NURand constants: C_LAST at clause 2.1.6.1's distance from the
  // load's, drawn from the run's seed.
  script::Prng rng(o.seed);
  m.run_constants_ = NURandConstants::ForRun(m.load_.constants, rng);
  m.next_seed_ = rng.Next64();
  m.txns_ = TransactionScripts({.warehouses = m.load_.warehouses,
                                .run = m.run_constants_,
                                .spec_timing = o.spec_timing,
                                .procedures = o.procedures});
  auto prepared = ParseScripts(m.txns_);
  if (!prepared.ok()) return prepared.status().WithContext("internal script");
  m.prepared_ = std::move(prepared).value();
  return m;
}

engine::EngineConfig Measurer::ConfigFor(int duration_s, uint64_t run_seed) const {
  workload::BenchOptions bo;
  bo.clients = o_.clients;
  bo.threads = o_.threads;
  bo.mode = o_.mode;
  bo.rate_tps = o_.rate_tps;
  bo.max_tries = o_.max_tries;
  bo.progress_s = o_.progress_s;
  bo.duration_s = duration_s;
  engine::EngineConfig cfg =
      workload::EngineConfigFor(bo, {.target = o_.target,
                                     .scripts = prepared_.scripts,
                                     .names = prepared_.names,
                                     .base_variables = prepared_.base_variables,
                                     .scale = load_.warehouses,
                                     .random_seed = run_seed});
  cfg.per_script_latency = true;
  cfg.untimed_sleeps = o_.spec_timing;
  cfg.stop_requested = o_.stop_requested;
  cfg.on_message = o_.on_message;
  return cfg;
}

Result<Measurement> Measurer::Run() {
  script::Prng rng(next_seed_);
  Measurement m;
  if (o_.warmup_s > 0) {
    engine::EngineConfig warm = ConfigFor(o_.warmup_s, rng.Next64());
    warm.progress_s = 0;
    warm.on_progress = nullptr;
    PGRIG_ASSIGN_OR_RETURN(engine::RunResult w, engine::RunBenchmark(warm));
    if (w.stop_reason != engine::StopReason::kCompleted) {
      m.warmup_ended_early = true;
      m.refused.push_back(StopWhy(w, "warm-up"));
      m.run = std::move(w);
      return m;
    }
  }
  const bool fleet = static_cast<bool>(o_.fleet_gate);
  int64_t before = 0, undelivered_before = 0;
  if (!fleet) {
    PGRIG_ASSIGN_OR_RETURN(before, NewOrderCounter(conn_));
    PGRIG_ASSIGN_OR_RETURN(undelivered_before, UndeliveredOrders(conn_));
  }
  engine::EngineConfig cfg = ConfigFor(o_.duration_s, rng.Next64());
  cfg.on_progress = o_.on_progress;
  host::ServerCpuWindow server_cpu = host::ServerCpuWindow::Prepare(o_.target);
  // Every client of a fleet measures the same -T from the controller's go.
  if (fleet) cfg.window_start = engine::EngineConfig::WindowStart::kStartGate;
  cfg.start_gate = [this, &server_cpu]() -> Status {
    if (o_.fleet_gate) PGRIG_RETURN_IF_ERROR(o_.fleet_gate());
    server_cpu.Start();
    return Status();
  };
  PGRIG_ASSIGN_OR_RETURN(m.run, engine::RunBenchmark(cfg));
  m.server_cpu = server_cpu.Finish();
  if (m.run.stop_reason != engine::StopReason::kCompleted) {
    m.refused.push_back(StopWhy(m.run, "run"));
  }
  if (fleet) {
    m.figures = Figures(m.run, 0, o_.clients);
    m.figures.counts_agree = false;  // not this client's to say
    m.client_cpu_us = m.run.ClientCpuUsPerTransaction();
    return m;
  }

  // What the database says after the window, on the setup connection; a
  // server that died during the run cannot say, and the run says so.
  auto after = NewOrderCounter(conn_);
  if (!after.ok()) {
    // libpq's message spans lines; a reason is one.
    std::string why = after.status().message();
    for (char& ch : why) {
      if (ch == '\n' || ch == '\t') ch = ' ';
    }
    m.refused.push_back("the database's New-Order count could not be read after the run: " + why);
  }
  m.figures = Figures(m.run, after.ok() ? *after - before : 0, o_.clients);
  if (after.ok()) {
    if (auto undelivered = UndeliveredOrders(conn_); undelivered.ok()) {
      m.figures.delivery = SkippedDeliveries(
          m.figures.types.size() > static_cast<size_t>(TxnType::kDelivery)
              ? m.figures.types[static_cast<size_t>(TxnType::kDelivery)].transactions
              : 0,
          undelivered_before, *undelivered, m.figures.database_new_orders);
    }
    m.checked = o_.check_warehouses > 0
                    ? SampleWarehouses(load_.warehouses, o_.check_warehouses, o_.seed)
                    : std::vector<int>{};
    if (Status c = CheckConditions(conn_, &m); !c.ok()) {
      m.refused.push_back("conditions 1-4 could not be checked after the run: " + c.message());
    }
    if (!m.figures.counts_agree) {
      m.refused.push_back(fmt::format(
          "the client counted {} committed New-Orders, the database {} (it may be ahead by at "
          "most one per client, never behind)",
          m.figures.new_orders, m.figures.database_new_orders));
    }
  }
  m.client_cpu_us = m.run.ClientCpuUsPerTransaction();
  int64_t ended = 0;
  for (const TypeFigures& t : m.figures.types) ended += t.transactions + t.failures;
  if (m.server_cpu.usage && ended > 0) {
    m.server_cpu_us = m.server_cpu.usage->Total() * 1e6 / static_cast<double>(ended);
  }
  return m;
}

void Measurer::FillResultInputs(const Measurement& m, results::ResultInputs* in) const {
  in->server_cpu = m.server_cpu;
  results::ResultOptions& ro = in->options;
  ro.clients = o_.clients;
  ro.threads = engine::WorkerThreads(o_.threads, o_.clients);
  ro.duration_s = m.warmup_ended_early ? o_.warmup_s : o_.duration_s;
  ro.mode = o_.mode;
  ro.scale = load_.warehouses;
  ro.rate_tps = o_.rate_tps;
  ro.max_tries = static_cast<int>(o_.max_tries);
  ro.no_vacuum = true;
  ro.progress_s = o_.progress_s;
  ro.random_seed = std::to_string(o_.seed);
  in->scripts.clear();
  for (size_t i = 0; i < txns_.size(); ++i) {
    results::ResultScript s{.desc = std::string(TxnName(txns_[i].type)),
                            .weight = txns_[i].weight,
                            .spec = "tpcc/" + std::string(TxnName(txns_[i].type)),
                            .is_file = false,
                            .command_lines = {}};
    for (const auto& c : (*prepared_.scripts)[i].commands) s.command_lines.push_back(c.first_line);
    in->scripts.push_back(std::move(s));
  }
}

results::TpccSection Measurer::Section(const Measurement& m) const {
  const bool fleet = static_cast<bool>(o_.fleet_gate);
  const TpccFigures& f = m.figures;
  results::TpccSection s;
  s.warehouses = load_.warehouses;
  s.procedures = o_.procedures;
  s.spec_timing = o_.spec_timing;
  s.warmup_s = o_.warmup_s;
  s.warmup_ended_early = m.warmup_ended_early;
  s.run_constants = results::TpccRunConstants{.c_last = run_constants_.c_last,
                                              .c_id = run_constants_.c_id,
                                              .ol_i_id = run_constants_.ol_i_id};
  s.window_s = f.window_s;
  if (m.ok()) {
    s.nopm = f.nopm;
    s.tpmc_like = f.tpmc_like;
    s.tpm = f.tpm;
  }
  s.fleet_client = fleet;
  s.new_orders.committed = f.new_orders;
  s.new_orders.rolled_back = f.new_orders_rolled_back;
  if (!fleet) {
    s.new_orders.database = f.database_new_orders;
    s.new_orders.agree = f.counts_agree;
  }
  s.types = SectionTypes(f, m.run);
  s.delivery = f.delivery;
  s.client_cpu_us_per_transaction = m.client_cpu_us;
  s.server_cpu_us_per_transaction = m.server_cpu_us;
  s.checked_warehouses.assign(m.checked.begin(), m.checked.end());
  s.conditions = m.checks;
  s.consistent = m.consistent;
  s.refused = m.refused;
  return s;
}

}  // namespace pgrig::tpcc
