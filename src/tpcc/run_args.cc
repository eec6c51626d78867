#include "tpcc/run_args.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "pg/connection_options.h"
#include "script/prng.h"

namespace pgrig::tpcc {

void AddRunOptions(CLI::App* run, RunArgs* a) {
  run->set_help_flag("--help", "print this help and exit");
  run->add_option("-c,--client", a->clients, "clients (terminals)")->capture_default_str();
  run->add_option("-j,--jobs", a->threads, "worker threads")->capture_default_str();
  run->add_option("-T,--time", a->duration_s, "measured seconds")->capture_default_str();
  run->add_option("--warmup", a->warmup_s, "seconds of load before the measured window")
      ->capture_default_str();
  run->add_option("-R,--rate", a->rate_tps,
                  "offered rate: transactions of all types per second (0: as fast as they go)");
  run->add_option("-P,--progress", a->progress_s, "a progress line every this many seconds");
  run->add_option("-M,--protocol", a->mode_name, "simple, extended or prepared")
      ->capture_default_str();
  run->add_option("--max-tries", a->max_tries,
                  "tries of a transaction that meets a serialization failure or deadlock")
      ->capture_default_str();
  run->add_option("--random-seed", a->random_seed, "a number, time or rand (default: time)");
  run->add_flag("--procedures", a->procedures,
                "call one stored function per transaction (made by tpcc init --procedures) "
                "instead of sending client-side SQL");
  run->add_flag("--spec-timing", a->spec_timing,
                "each terminal keys and thinks as TPC-C clause 5.2.5 says (sleeps left out of "
                "latency); not with -R");
  run->add_option("--json", a->json_path, "write the results document (pgrig.result/1) here");
  run->add_option("--check-warehouses", a->check_warehouses,
                  "check conditions 1-4 after the run on this many warehouses (default: all)");
  pg::AddConnectionOptions(run, &a->conn, &a->positional_db);
}

Status ValidateRunArgs(RunArgs* a) {
  PGRIG_RETURN_IF_ERROR(pg::UseDatabaseOperand(&a->conn, a->positional_db));
  auto mode = script::ParseQueryMode(a->mode_name);
  if (!mode)
    return InvalidArgument(fmt::format("-M {}: simple, extended or prepared", a->mode_name));
  a->mode = *mode;
  if (a->clients < 1 || a->clients > 10000) {
    return InvalidArgument(fmt::format("-c {}: clients are 1 to 10000", a->clients));
  }
  if (a->threads < 1 || a->threads > a->clients) {
    return InvalidArgument(
        fmt::format("-j {}: threads are 1 to the number of clients ({})", a->threads, a->clients));
  }
  if (a->duration_s < 1 || a->duration_s > 7 * 24 * 3600) {
    return InvalidArgument(fmt::format("-T {}: seconds, 1 to a week", a->duration_s));
  }
  if (a->warmup_s < 0 || a->warmup_s > 24 * 3600) {
    return InvalidArgument(fmt::format("--warmup {}: seconds, 0 to a day", a->warmup_s));
  }
  if (a->progress_s < 0) return InvalidArgument(fmt::format("-P {}: at least 0", a->progress_s));
  if (!(a->rate_tps >= 0) || a->rate_tps > 1e7) {
    return InvalidArgument(fmt::format("-R {}: transactions per second, 0 to 10^7", a->rate_tps));
  }
  if (a->max_tries < 1 || a->max_tries > 1000) {
    return InvalidArgument(fmt::format("--max-tries {}: 1 to 1000", a->max_tries));
  }
  if (a->spec_timing && a->rate_tps > 0) {
    return InvalidArgument(
        "--spec-timing and -R both set the pace of the terminals (keying and think times, or an "
        "offered rate); give one");
  }
  if (a->check_warehouses < 0) {
    return InvalidArgument(fmt::format("--check-warehouses {}: at least 1", a->check_warehouses));
  }
  if (a->random_seed && !script::ParseRandomSeed(*a->random_seed).ok()) {
    return InvalidArgument("--random-seed \"" + *a->random_seed +
                           "\": a number, \"time\" or \"rand\"");
  }
  return Status::Ok();
}

Result<RunArgs> ParseRunArgs(const std::vector<std::string>& args) {
  RunArgs a;
  CLI::App app{"", "pgrig tpcc run"};
  AddRunOptions(&app, &a);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return InvalidArgument("--help prints the options and runs nothing; remove it");
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(e.what());
  }
  PGRIG_RETURN_IF_ERROR(ValidateRunArgs(&a));
  return a;
}

}  // namespace pgrig::tpcc
