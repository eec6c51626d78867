// The options of `pgrig tpcc run`, defined once: the command line
// (cli/cmd_tpcc.cc adds them to its `run` subcommand) and a fleet file's
// `tpcc = [...]` (fleet/fleet_file.h, checked before any host is contacted)
// read them with the same definitions, so an option's value is never taken
// for an option and both refuse the same things.
//
// Pure: nothing is connected to, read or written.  Thread-safe (no state).
#ifndef PGRIG_TPCC_RUN_ARGS_H_
#define PGRIG_TPCC_RUN_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "script/script.h"

namespace CLI {
class App;
}  // namespace CLI

namespace pgrig::tpcc {

struct RunArgs {
  pg::ConnectionParams conn;  // -h -p -U -d; a database operand fills dbname
  int clients = 10;
  int threads = 1;
  int duration_s = 60;
  int warmup_s = 0;
  int progress_s = 0;
  double rate_tps = 0;  // -R: transactions of all types per second; 0: as fast as possible
  uint32_t max_tries = 10;
  bool spec_timing = false;  // keying and think times (tpcc/transactions.h)
  bool procedures = false;   // one function call per transaction (tpcc/procedures.h)
  std::string mode_name = "prepared";
  script::QueryMode mode = script::QueryMode::kPrepared;  // from mode_name (ValidateRunArgs)
  std::optional<std::string> random_seed;                 // --random-seed text; nullopt: time
  std::string json_path;
  int check_warehouses = 0;       // conditions 1-4 on this many (first, last, random); 0: all
  std::string positional_db;      // the database operand, as psql takes it
  std::vector<std::string> argv;  // the command line, for the results
};

// Adds every option of `tpcc run`, connection options and --help included,
// to `run`, storing into `*a` (which must outlive the parse).
void AddRunOptions(CLI::App* run, RunArgs* a);

// After a parse: the database operand into conn.dbname (refused when -d
// named one too), -M's name into `mode`, and every value within its range.
// An error names the option.
Status ValidateRunArgs(RunArgs* a);

// `args` (without "pgrig tpcc run") read by AddRunOptions's definitions and
// checked by ValidateRunArgs; InvalidArgument with the parser's message
// otherwise, and for --help.
Result<RunArgs> ParseRunArgs(const std::vector<std::string>& args);

}  // namespace pgrig::tpcc

#endif  // PGRIG_TPCC_RUN_ARGS_H_
