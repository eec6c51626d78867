// pgrig: which machine gives a PostgreSQL OLTP workload the most throughput
// per dollar, and how to tune PostgreSQL on it.  This file only dispatches to
// the subcommands in cmd_*.cc.
//
// Run under the name "pgbench" (argv[0]'s last component, e.g. a symlink
// pgbench -> pgrig), pgrig takes pgbench's command line unchanged: with -i
// or --initialize among the options (as pgbench's getopt reads them) it is
// `pgrig init ARGS`, otherwise `pgrig bench ARGS` (including --help, -V and
// no arguments at all).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/version.h"
#include "pgbuild/builder.h"
#include "workload/bench_options.h"

namespace {

using pgrig::cli::CommandInfo;

constexpr CommandInfo kCommands[] = {
    {"run",
     "run a benchmark suite from a plan (default: the standard suite on the embedded cluster)",
     pgrig::cli::RunRun, true},
    {"init", "create and load pgbench's tables (pgbench -i options), in parallel",
     pgrig::cli::RunInit, true},
    {"bench", "run a pgbench-compatible benchmark (pgbench options and scripts)",
     pgrig::cli::RunBench, true},
    {"lio", "logical reads per second from shared buffers (PGIO method): init|run",
     pgrig::cli::RunLio, true},
    {"fsync", "WAL flush speed of a directory's device for each wal_sync_method",
     pgrig::cli::RunFsync, true},
    {"facts", "describe this machine and the server: CPU, memory, OS, PostgreSQL",
     pgrig::cli::RunFacts, true},
    {"tune", "recommend, explain and apply PostgreSQL settings for this machine",
     pgrig::cli::RunTune, true},
    {"cost", "prices, total cost of ownership and transactions per dollar", pgrig::cli::RunCost},
    {"report", "show one suite: intervals, latency, bottlenecks, price (text/md/csv/json/html)",
     pgrig::cli::RunReport},
    {"compare", "compare suites: ratios with 95% intervals, mismatches first, decision table",
     pgrig::cli::RunCompare},
    {"fleet", "the same plan on many machines over ssh: fleet check|run FLEET.toml",
     pgrig::cli::RunFleet},
    {"cluster", "manage the embedded PostgreSQL cluster: start|stop|status|destroy|logs",
     pgrig::cli::RunCluster, true},
    {"pg", "PostgreSQL built from source with flag profiles: build|list|remove", pgrig::cli::RunPg},
    {"tpcc", "the TPC-C-like workload's tables and consistency checks: init|check",
     pgrig::cli::RunTpcc, true},
};

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "pgrig %s - PostgreSQL throughput per dollar, measured honestly\n\n"
               "Usage:\n  pgrig <command> [options]\n  pgrig <command> --help\n\n"
               "Commands:\n",
               pgrig::cli::kVersion);
  for (const auto& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(out,
               "\nWith no server named (-h/-p/-U/-d, --db, or PG* variables), commands use the\n"
               "embedded cluster under $PGRIG_HOME (default ~/.local/share/pgrig; /var/lib/pgrig\n"
               "for root), starting it on demand; --pg NAME (or PGRIG_PG=NAME), given to run,\n"
               "init, bench, lio, fsync, facts, tune or cluster, runs PostgreSQL build NAME\n"
               "(pgrig pg build) in its own cluster instead of the installed server.\n"
               "Exit codes: 0 success, 1 bad invocation or setup, 2 failure during a run.\n");
}

// argv[0]'s last path component.
std::string_view ProgramName(const char* argv0) {
  std::string_view name = argv0 != nullptr ? argv0 : "";
  const size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// pgrig as pgbench: the same arguments, to init (-i) or bench.
int RunAsPgbench(int argc, char** argv) {
  const bool init = pgrig::workload::IsPgbenchInitMode(argc, argv);
  std::vector<char*> args(argv, argv + argc);
  std::string name = init ? "init" : "bench";
  args[0] = name.data();
  args.push_back(nullptr);
  return init ? pgrig::cli::RunInit(argc, args.data()) : pgrig::cli::RunBench(argc, args.data());
}

// The global `--pg NAME` (or `--pg=NAME`), anywhere before a "--": removed
// from `args` and put in $PGRIG_PG, where the cluster module (and any pgrig
// process this one starts) reads it.  Refused for a command without an
// embedded cluster.  nullopt: go on.
std::optional<int> TakeBuildOption(const CommandInfo& c, std::vector<char*>* args) {
  std::vector<char*> kept;
  std::optional<std::string> build;
  bool after_dashes = false;
  for (size_t i = 0; i < args->size(); ++i) {
    std::string_view a = (*args)[i];
    if (a == "--") after_dashes = true;
    if (after_dashes || (a != "--pg" && a.rfind("--pg=", 0) != 0)) {
      kept.push_back((*args)[i]);
      continue;
    }
    if (a == "--pg") {
      if (i + 1 >= args->size()) {
        std::fprintf(stderr,
                     "pgrig %s: --pg needs the name of a PostgreSQL build (pgrig pg list)\n",
                     c.name);
        return pgrig::cli::kExitBadInvocation;
      }
      build = (*args)[++i];
    } else {
      build = std::string(a.substr(5));
    }
  }
  if (!build) return std::nullopt;
  if (!c.embedded) {
    std::fprintf(stderr,
                 "pgrig %s: --pg names the PostgreSQL build of the embedded cluster; this "
                 "command does not use one\n",
                 c.name);
    return pgrig::cli::kExitBadInvocation;
  }
  if (pgrig::Status s = pgrig::pgbuild::ValidateBuildName(*build); !s.ok()) {
    std::fprintf(stderr, "pgrig %s: --pg: %s\n", c.name, s.message().c_str());
    return pgrig::cli::kExitBadInvocation;
  }
  ::setenv("PGRIG_PG", build->c_str(), 1);
  *args = std::move(kept);
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 1 && ProgramName(argv[0]) == "pgbench") return RunAsPgbench(argc, argv);
  if (argc < 2) {
    PrintUsage(stderr);
    return pgrig::cli::kExitBadInvocation;
  }
  std::string_view cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    PrintUsage(stdout);
    return pgrig::cli::kExitOk;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::printf("pgrig %s\n", pgrig::cli::kVersion);
    return pgrig::cli::kExitOk;
  }
  for (const auto& c : kCommands) {
    if (cmd != c.name) continue;
    std::vector<char*> args(argv + 1, argv + argc);
    if (auto refused = TakeBuildOption(c, &args)) return *refused;
    const int n = static_cast<int>(args.size());
    args.push_back(nullptr);
    return c.run(n, args.data());
  }
  std::fprintf(stderr,
               "pgrig: unknown command \"%s\"\nTry \"pgrig --help\" for the list of commands.\n",
               argv[1]);
  return pgrig::cli::kExitBadInvocation;
}
