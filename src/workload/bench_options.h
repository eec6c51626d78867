// pgrig bench's command line: pgbench's run options, letters, meanings,
// validation order, error texts and exit codes, plus pgrig's --json.
//
// ParseBenchArgs() is a pure function of argv (and the process's open-file
// limit for -c): it prints nothing itself except getopt_long's own
// complaints, and returns what to print and which exit code to use when the
// command must stop early (--help, -b list, --show-script, a bad option).
// Messages are pgbench's, with "pgrig bench" where pgbench says "pgbench".
// Beyond pgbench: --json FILE, --profile and --db CONNINFO (the database operand as an
// option, as every pgrig command takes it).
// The options `pgrig init` shares (integer values, -h -p -U --db and the
// database operand) are read by workload/pgbench_options.h, so both commands
// accept and refuse them alike.
// Not thread-safe (getopt_long keeps global state).
#ifndef PGRIG_WORKLOAD_BENCH_OPTIONS_H_
#define PGRIG_WORKLOAD_BENCH_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/config.h"
#include "pg/connection.h"
#include "script/script.h"
#include "script/variables.h"

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
  bool profile = false;  // --profile: sample the server with perf (profile/server_profiler.h)
  std::vector<std::string> argv;  // the command line, for the results
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

// A run's scripts, parsed: the scripts (with their weights), the name table
// they were parsed against (frozen, with slots for the automatic variables)
// and the -D variables every client starts from.
struct PreparedScripts {
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::NameTable> names;
  std::shared_ptr<const script::Variables> base_variables;
};

// Reads and parses `specs` (built-in scripts by name, files by path; "-" is
// standard input) and sets `defines`: what `pgrig bench` and every workload
// of `pgrig run` do before a run.  InvalidArgument with pgbench's text.
Result<PreparedScripts> PrepareScripts(
    const std::vector<ScriptSpec>& specs,
    const std::vector<std::pair<std::string, std::string>>& defines);

// What the engine needs beyond pgbench's options: the server and the
// parsed scripts.
struct EngineInputs {
  pg::ConnectionParams target;
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::NameTable> names;
  std::shared_ptr<const script::Variables> base_variables;
  int scale = 1;
  uint64_t random_seed = 0;  // resolved (script::ParseRandomSeed)
};

// The one builder of the engine's configuration from pgbench's options:
// `pgrig bench` (and so fleet's clients, which run it) and every cell of
// `pgrig run` (its cell written as options).  The threads are clamped
// (engine::WorkerThreads) and the environment's measurement knobs applied
// (engine::ApplyEnvironmentKnobs); the callbacks and the stop flag are the
// caller's to set.
engine::EngineConfig EngineConfigFor(const BenchOptions& o, EngineInputs in);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_BENCH_OPTIONS_H_
