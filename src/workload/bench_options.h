// pgrig bench's command line: pgbench's run options, letters, meanings,
// validation order, error texts and exit codes, plus pgrig's --json.
//
// ParseBenchArgs() is a pure function of argv (and the process's open-file
// limit for -c): it prints nothing itself except getopt_long's own
// complaints, and returns what to print and which exit code to use when the
// command must stop early (--help, -b list, --show-script, a bad option).
// Messages are pgbench's, with "pgrig bench" where pgbench says "pgbench".
// Beyond pgbench: --json FILE and --db CONNINFO (the database operand as an
// option, as every pgrig command takes it).
// The options `pgrig init` shares (integer values, -h -p -U --db and the
// database operand) are read by workload/pgbench_options.h, so both commands
// accept and refuse them alike.
// Not thread-safe (getopt_long keeps global state).
#ifndef PGRIG_WORKLOAD_BENCH_OPTIONS_H_
#define PGRIG_WORKLOAD_BENCH_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pg/connection.h"
#include "script/script.h"

namespace pgrig::workload {

inline constexpr const char* kBenchProgram = "pgrig bench";

struct ScriptSpec {
  enum class Kind { kBuiltin, kFile };
  Kind kind = Kind::kBuiltin;
  std::string name;  // builtin's full name, or the file path ("-" is stdin)
  int weight = 1;
};

struct BenchOptions {
  pg::ConnectionParams conn;
  int clients = 1;
  int threads = 1;
  int transactions = 0;  // -t (10 when neither -t nor -T is given)
  int duration_s = 0;    // -T
  script::QueryMode mode = script::QueryMode::kSimple;
  bool scale_given = false;
  int scale = 1;
  bool no_vacuum = false;
  bool vacuum_accounts = false;  // -v
  bool connect_per_transaction = false;
  bool report_per_command = false;
  bool log = false;
  std::string log_prefix;  // empty: "pgbench_log"
  int aggregate_interval_s = 0;
  double sampling_rate = 0;
  int progress_s = 0;
  bool progress_timestamp = false;
  double rate_tps = 0;
  int64_t latency_limit_us = 0;
  uint32_t max_tries = 1;
  bool failures_detailed = false;
  bool verbose_errors = false;
  int debug = 0;
  std::optional<std::string> random_seed;  // --random-seed text
  std::vector<ScriptSpec> scripts;
  bool internal_script_used = false;
  std::vector<std::pair<std::string, std::string>> defines;  // -D name=value
  std::string json_path;                                     // --json
  std::vector<std::string> argv;                             // the command line, for the results
};

struct BenchParse {
  enum class Action { kRun, kExit };
  Action action = Action::kRun;
  int exit_code = 0;
  std::string out;  // text for stdout (--help)
  std::string err;  // text for stderr (errors, -b list, --show-script)
  BenchOptions options;
};

// REQUIRES: argv[0] is the subcommand name ("bench").
BenchParse ParseBenchArgs(int argc, char** argv);

// The same for arguments held elsewhere (a fleet file's `bench`, without the
// subcommand name), printing nothing: where getopt_long would complain, the
// result is an error line in `err` naming the argument.
BenchParse ParseBenchArgsQuietly(const std::vector<std::string>& args);

// The usage text (--help): pgbench's headings (Initialization options,
// Options to select what to run, Benchmarking options, Common options).
std::string BenchUsage();

// Whether pgbench would run this command line in initialization mode: -i or
// --initialize anywhere among the options (found by getopt_long with
// pgbench's option table, so "-ni", "--initialize" and option arguments
// are read as pgbench reads them).  argv[0] is the program name.  Prints
// nothing.  Not thread-safe (getopt_long).
bool IsPgbenchInitMode(int argc, char** argv);

// "pgrig bench: error: <message>\n"
std::string BenchError(const std::string& message);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_BENCH_OPTIONS_H_
