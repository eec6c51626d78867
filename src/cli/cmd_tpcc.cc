// pgrig tpcc init|check: the TPC-C-like workload's tables (tpcc/loader.h)
// and its consistency conditions (tpcc/check.h); docs/tpcc.md.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/target.h"
#include "cli/tpcc_run.h"
#include "common/interrupt.h"
#include "common/strings.h"
#include "pg/connection_options.h"
#include "tpcc/check.h"
#include "tpcc/loader.h"

namespace pgrig::cli {
namespace {

constexpr CommandName kTpccCommand{"pgrig tpcc"};
using tpcc::kMaxWarehouses;
constexpr int kMaxPartitions = 1024;

// "1,5,9" into warehouse numbers.
Result<std::vector<int>> ParseWarehouseList(const std::string& text) {
  std::vector<int> out;
  for (const std::string& part : Split(text, ',')) {
    auto v = ParseInt64(Trim(part));
    if (!v || *v < 1 || *v > kMaxWarehouses) {
      return InvalidArgument(
          fmt::format("--warehouses \"{}\": \"{}\" is not a warehouse number (1 to {})", text, part,
                      kMaxWarehouses));
    }
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

}  // namespace

int RunTpcc(int argc, char** argv) {
  CLI::App app{
      "The TPC-C-like workload: its nine tables loaded in parallel, its consistency conditions\n"
      "(docs/tpcc.md).",
      "pgrig tpcc"};
  app.require_subcommand(1, 1);
  pg::ConnectionParams named;
  std::string positional_db;
  int warehouses = 1, partitions = 0, jobs = 0, sample = 0;
  uint64_t seed = 0;
  bool foreign_keys = false, json = false, procedures = false;
  std::string warehouse_list;
  TpccRunOptions run_options;
  app.set_help_flag("--help", "print this help and exit");
  auto add_connection = [&](CLI::App* a) {
    a->set_help_flag("--help", "print this help and exit");
    pg::AddConnectionOptions(a, &named, &positional_db);
  };
  auto* init = app.add_subcommand(
      "init",
      "create the nine tables and load them (COPY over -j connections, split by "
      "warehouse), then key, index and vacuum them; replaces tables of the same names");
  init->add_option("-w,--warehouses", warehouses, "warehouses to load (1 to 100000)")
      ->capture_default_str();
  init->add_option("--partitions", partitions,
                   "hash-partition the six large tables by warehouse into this many (0: none)")
      ->capture_default_str();
  init->add_option("-j,--jobs", jobs, "connections loading at once (default: the online CPUs)");
  init->add_option("--seed", seed, "the rows depend only on it (default 0)")->capture_default_str();
  init->add_flag("--foreign-keys", foreign_keys, "add the specification's foreign keys too");
  init->add_flag("--procedures", procedures,
                 "create the five transactions as PL/pgSQL functions, for tpcc run --procedures");
  add_connection(init);
  auto* check = app.add_subcommand(
      "check",
      "consistency conditions 1 to 12 of TPC-C (clause 3.3.2) over every warehouse, or "
      "a sample; exit 2 when one fails");
  check->add_option("--sample", sample,
                    "check this many warehouses: the first, the last and others at random");
  check->add_option("--warehouses", warehouse_list, "check these warehouses only: 1,5,9");
  check->add_flag("--json", json, "print the results as JSON");
  add_connection(check);
  auto* run = app.add_subcommand(
      "run",
      "run the five transactions in the standard mix on the loaded data and report NOPM "
      "(New-Orders per minute, checked against the database), tpmC-like, TPM and each "
      "type's latency; exit 2 when the run failed or the data breaks conditions 1 to 4");
  tpcc::AddRunOptions(run, &run_options);
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  if (Status s = pg::UseDatabaseOperand(&named, positional_db); !s.ok()) {
    return Fail(kTpccCommand, s.message());
  }

  // Everything given is checked before anything is started or connected to.
  if (init->parsed()) {
    if (warehouses < 1 || warehouses > kMaxWarehouses) {
      return Fail(kTpccCommand,
                  fmt::format("-w {}: warehouses are 1 to {}", warehouses, kMaxWarehouses));
    }
    if (partitions < 0 || partitions > kMaxPartitions) {
      return Fail(kTpccCommand,
                  fmt::format("--partitions {}: 0 (none) to {}", partitions, kMaxPartitions));
    }
    if (partitions > warehouses) {
      return Fail(kTpccCommand,
                  fmt::format("--partitions {}: more partitions than the {} warehouses would "
                              "leave some empty",
                              partitions, warehouses));
    }
    if (jobs < 0 || jobs > 256) return Fail(kTpccCommand, fmt::format("-j {}: 1 to 256", jobs));
    if (jobs == 0) jobs = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  }
  std::vector<int> chosen;
  if (check->parsed()) {
    if (sample < 0) return Fail(kTpccCommand, fmt::format("--sample {}: at least 1", sample));
    if (sample > 0 && !warehouse_list.empty()) {
      return Fail(kTpccCommand,
                  "--sample and --warehouses choose the warehouses two ways; "
                  "give one");
    }
    if (!warehouse_list.empty()) {
      auto list = ParseWarehouseList(warehouse_list);
      if (!list.ok()) return Fail(kTpccCommand, list.status());
      chosen = *list;
    }
  }

  if (run->parsed()) {
    run_options.argv.assign(argv, argv + argc);
    Status valid = ValidateTpccRun(&run_options);
    if (!valid.ok()) return Fail(kTpccCommand, valid);
    return RunTpccRun(run_options);
  }

  auto target = ResolveTarget(named);
  if (!target.ok()) return Fail(kTpccCommand, target.status());

  if (init->parsed()) {
    InterruptScope interrupts;
    tpcc::Loader loader(
        target->params,
        {.warehouses = warehouses,
         .schema = {.partitions = partitions},
         .jobs = jobs,
         .seed = seed,
         .foreign_keys = foreign_keys,
         .procedures = procedures},
        [](const std::string& line) {
          std::fprintf(stderr, "pgrig tpcc init: %s\n", line.c_str());
        },
        InterruptScope::flag());
    auto report = loader.Run();
    if (!report.ok()) return Fail(kTpccCommand, report.status(), ExitStage::kRun);
    std::printf(
        "loaded %d warehouses (seed %llu) in %.1f s: %.1f warehouses per minute of COPY, %lld "
        "rows, %.0f MB of COPY text\n",
        warehouses, static_cast<unsigned long long>(seed), report->seconds,
        warehouses / (report->load_seconds / 60.0), static_cast<long long>(report->rows),
        static_cast<double>(report->bytes) / (1024.0 * 1024.0));
    return kExitOk;
  }

  auto conn = pg::Connect(target->params);
  if (!conn.ok()) return Fail(kTpccCommand, conn.status());
  if (sample > 0) {
    auto w = conn->QueryValue("SELECT warehouses FROM tpcc_load");
    if (!w.ok()) {
      return Fail(kTpccCommand, w.status().WithContext("no TPC-C load found (pgrig tpcc init)"));
    }
    chosen = tpcc::SampleWarehouses(static_cast<int>(ParseInt64(*w).value_or(1)), sample,
                                    std::random_device{}());
  }
  auto after_load = tpcc::NoDeliverySinceLoad(*conn, chosen);
  if (!after_load.ok()) return Fail(kTpccCommand, after_load.status());
  auto results = tpcc::RunChecks(*conn, {.warehouses = chosen, .after_load = *after_load});
  if (!results.ok()) return Fail(kTpccCommand, results.status());
  int failed = 0;
  nlohmann::json out = nlohmann::json::array();
  for (const tpcc::ConditionResult& r : *results) {
    failed += r.applicable && r.violations != 0 ? 1 : 0;
    out.push_back({{"condition", r.condition.number},
                   {"what", r.condition.what},
                   {"applicable", r.applicable},
                   {"violations", r.violations},
                   {"counts", r.condition.scope},
                   {"seconds", r.seconds}});
    if (json) continue;
    if (!r.applicable) {
      std::printf("%2d  n/a     %s (orders delivered since the load)\n", r.condition.number,
                  std::string(r.condition.what).c_str());
    } else if (r.violations == 0) {
      std::printf("%2d  ok      %s (%.2f s)\n", r.condition.number,
                  std::string(r.condition.what).c_str(), r.seconds);
    } else {
      std::printf("%2d  FAILED  %s: %lld %s break it\n", r.condition.number,
                  std::string(r.condition.what).c_str(), static_cast<long long>(r.violations),
                  std::string(r.condition.scope).c_str());
    }
  }
  if (json) {
    std::printf("%s\n",
                nlohmann::json{{"warehouses", chosen}, {"conditions", out}}.dump(2).c_str());
  } else if (!chosen.empty()) {
    std::vector<std::string> names;
    for (int w : chosen) names.push_back(std::to_string(w));
    std::printf("(warehouses %s only)\n", Join(names, ",").c_str());
  }
  return failed == 0 ? kExitOk : kExitRunFailure;
}

}  // namespace pgrig::cli
