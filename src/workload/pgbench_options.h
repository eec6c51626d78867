// The option rules that `pgrig init` (pgbench -i) and `pgrig bench` (pgbench)
// share: pgbench's integer option values and its connection options.
//
// Both command lines are read with getopt_long in their own parsers
// (workload/pgbench_init_options.cc, cli/bench_options.cc); each calls these
// for the options they have in common, so the two give the same answers and
// the same error texts:
//   - ParsePgbenchInt(): fe_utils' option_parse_int() as pgbench uses it
//     (strtol rules: leading blanks and a sign allowed, trailing blanks
//     allowed, anything else "invalid value"; an empty or blank value reads
//     as 0 and so is a range error when 0 is out of range);
//   - ConnectionArgs: -h/--host, -p/--port, -U/--username, --db and the
//     database operand.  The PG* environment is not copied into the
//     parameters: libpq applies PGHOST, PGPORT, PGUSER and PGDATABASE to
//     whatever the command line leaves unset, as for pgbench itself (PG 15:
//     an explicit -h/-p/-U, or a conninfo string's keyword, beats the
//     variable; the variables alone still name a server, see
//     pg::ConnectionParams::NamesAServer()).
// Errors are InvalidArgument Statuses with pgbench's wording and no program
// prefix; the callers add "pgrig init: error: " or "pgrig bench: error: ".
//
// Pure functions over their arguments (they read no environment and keep no
// state); safe from any thread.
#ifndef PGRIG_WORKLOAD_PGBENCH_OPTIONS_H_
#define PGRIG_WORKLOAD_PGBENCH_OPTIONS_H_

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::workload {

// getopt_long's value for --db in both option tables (above every option
// letter and every other long-only code the parsers use).
inline constexpr int kDbLongOption = 2000;

// pgbench's option_parse_int(): the value of option `name` (as pgbench
// names it in messages, e.g. "-c/--clients") as an int in [min, max].
// Errors: "invalid value \"<text>\" for option <name>" and
// "<name> must be in range <min>..<max>".
Result<int> ParsePgbenchInt(const std::string& text, std::string_view name, int min, int max);

// The connection part of a pgbench command line, as options are read.
struct ConnectionArgs {
  pg::ConnectionParams params;           // -h, -p, -U, then the database
  std::optional<std::string> db_option;  // --db CONNINFO (pgrig's)

  // Takes option `opt` (getopt_long's return value) with argument `arg` if
  // it is -h, -p, -U or --db (kDbLongOption), and returns true; returns
  // false, changing nothing, for any other option.  The last of a repeated
  // option wins, as in pgbench.
  bool Take(int opt, const char* arg);

  // After the options: the database from the first operand (argv[*optind],
  // advancing *optind) unless --db was given, or from --db.  Error when
  // both name a database: "both --db and a database name (\"x\") were
  // given; use one of them".  Operands left over are the caller's to
  // refuse (TooManyArguments()).
  Status TakeDatabase(int argc, char* const* argv, int* optind);
};

// pgbench's complaint about a left-over operand: "too many command-line
// arguments (first is \"<first>\")".
Status TooManyArguments(std::string_view first);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_PGBENCH_OPTIONS_H_
