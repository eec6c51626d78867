// What `pgrig init` is asked to do, and how a `pgbench -i` command line turns
// into it.
//
// InitOptions mirrors pgbench's initialization options (-s -F -I -n -q
// --foreign-keys --partitions --partition-method --unlogged-tables
// --tablespace --index-tablespace) plus -j, the number of loading
// connections.  ParseInitCommandLine() reads an argv exactly as `pgbench -i`
// would (getopt_long, options and the database name in any order), so that a
// pgbench command line works after replacing `pgbench -i` by `pgrig init`.
// It validates with pgbench's messages and never prints: errors come back as
// InvalidArgument with one line of text for cli/ to show.
// Integer values and the connection options are read by pgbench_options.h,
// the rules `pgrig bench` uses too.
//
// Pure value types and a pure function (getopt_long's own state is reset on
// every call); safe to use from any thread, but ParseInitCommandLine() itself
// must not run in two threads at once (getopt_long is not reentrant).
#ifndef PGRIG_WORKLOAD_PGBENCH_INIT_OPTIONS_H_
#define PGRIG_WORKLOAD_PGBENCH_INIT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "workload/init_key_strategy.h"

namespace pgrig::workload {

enum class PartitionMethod { kNone, kRange, kHash };

// pgbench's step letters, in the order given; ' ' is allowed and ignored.
inline constexpr std::string_view kAllInitSteps = "dtgGvpf";
inline constexpr std::string_view kDefaultInitSteps = "dtgvp";

// The connection lines of "Common options:" (-h through --help), as both
// `pgrig init --help` and `pgrig bench --help` print them after their -d line.
inline constexpr char kConnectionOptionsHelp[] =
    "  -h, --host=HOSTNAME      database server host or socket directory\n"
    "  -p, --port=PORT          database server port number\n"
    "  -U, --username=USERNAME  connect as specified database user\n"
    "  --db=CONNINFO            database name, conninfo string or postgresql:// URI\n"
    "                           (pgrig's; the same as DBNAME)\n"
    "  -V, --version            output version information, then exit\n"
    "  -?, --help               show this help, then exit\n";

// The help lines of pgbench -i's options (-I through --unlogged-tables), as
// both `pgrig init --help` and `pgrig bench --help` print them.
inline constexpr char kInitOptionsHelp[] =
    "  -I, --init-steps=[dtgGvpf]+ (default \"dtgvp\")\n"
    "                           run selected initialization steps:\n"
    "                           d drop tables, t create tables, g generate data on the\n"
    "                           client, G generate data on the server, v vacuum,\n"
    "                           p primary keys, f foreign keys\n"
    "  -F, --fillfactor=NUM     set fill factor (10..100, default 100)\n"
    "  -n, --no-vacuum          do not run VACUUM during initialization\n"
    "  -q, --quiet              quiet logging (one progress line each 5 seconds)\n"
    "  -s, --scale=NUM          scaling factor (100000 accounts per unit, default 1)\n"
    "  --foreign-keys           create foreign key constraints between tables\n"
    "  --index-tablespace=TABLESPACE\n"
    "                           create indexes in the specified tablespace\n"
    "  --partition-method=(range|hash)\n"
    "                           partition pgbench_accounts with this method (default: range)\n"
    "  --partitions=NUM         partition pgbench_accounts into NUM parts (default: 0)\n"
    "  --tablespace=TABLESPACE  create tables in the specified tablespace\n"
    "  --unlogged-tables        create tables as unlogged tables\n";

// From scale 20000 up, aid no longer fits in int4 and pgbench uses bigint.
inline constexpr int kBigintScaleThreshold = 20000;
inline constexpr int64_t kAccountsPerScale = 100000;
inline constexpr int64_t kTellersPerScale = 10;
inline constexpr int64_t kBranchesPerScale = 1;
// Upper bound for -j: more loading connections than this never helps and
// would exhaust a server's max_connections.
inline constexpr int kMaxJobs = 1024;

struct InitOptions {
  int scale = 1;
  int fillfactor = 100;
  // Final step string, after -n (removes 'v') and --foreign-keys (adds 'f').
  std::string steps = std::string(kDefaultInitSteps);
  int partitions = 0;
  PartitionMethod partition_method = PartitionMethod::kNone;
  bool unlogged_tables = false;
  bool quiet = false;
  bool debug = false;
  std::optional<std::string> tablespace;
  std::optional<std::string> index_tablespace;
  int jobs = 0;  // loading connections; 0: the number of cores
  // When the primary keys are built; nullopt: chosen from the server
  // (init_key_strategy.h).  Not a pgbench option: cli/ sets it from
  // PGRIG_INIT_KEYS.
  std::optional<KeyStrategy> key_strategy;

  bool BigintAids() const { return scale >= kBigintScaleThreshold; }
  int64_t AccountRows() const { return kAccountsPerScale * scale; }
  int64_t TellerRows() const { return kTellersPerScale * scale; }
  int64_t BranchRows() const { return kBranchesPerScale * scale; }
};

struct InitCommandLine {
  InitOptions options;
  pg::ConnectionParams connection;
  bool help = false;
  bool version = false;
};

// argv[0] is the command's name ("init"); a leading -i/--initialize is
// accepted and ignored.  Returns InvalidArgument with pgbench's wording
// ("-F/--fillfactor must be in range 10..100", "unrecognized initialization
// step \"x\"", ...) for anything pgbench would reject, in pgbench's order:
// a bad -I string while parsing, then the operands, then pgbench's
// benchmarking options ("some of the specified options cannot be used in
// initialization (-i) mode"; -j is pgrig's loading connections, accepted).
// A message may have a second line, pgbench's detail ("Allowed step
// characters are: ..."); cli/ prints it as a detail line.
Result<InitCommandLine> ParseInitCommandLine(const std::vector<std::string>& args);

// Checks a -I string as pgbench does: not empty, only "dtgGvpf " letters.
// The error for a bad letter has two lines: the error and pgbench's detail.
Status CheckInitSteps(std::string_view steps);

// "range", "hash" or "none".
const char* PartitionMethodName(PartitionMethod m);

}  // namespace pgrig::workload

#endif  // PGRIG_WORKLOAD_PGBENCH_INIT_OPTIONS_H_
