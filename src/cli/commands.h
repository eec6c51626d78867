// The subcommands of the pgrig executable.
//
// Each subcommand lives in its own cmd_<name>.cc, parses its own arguments
// (CLI11, or getopt_long where pgbench compatibility demands pgbench's exact
// option handling), prints for humans and returns the process exit code:
// 0 success, 1 bad invocation or setup, 2 failure during a run (pgbench's
// convention).  argv[0] is the subcommand's name ("init", "bench", ...).
// Only cli/ prints for humans or decides exit codes.
#ifndef PGRIG_CLI_COMMANDS_H_
#define PGRIG_CLI_COMMANDS_H_

#include "cli/exit_status.h"  // kExitOk, kExitBadInvocation, kExitRunFailure, Fail()

namespace pgrig::cli {

using CommandFn = int (*)(int argc, char** argv);

struct CommandInfo {
  const char* name;
  const char* summary;
  CommandFn run;
  // Starts or reads the embedded cluster, and so takes the global `--pg NAME`.
  bool embedded = false;
};

int RunInit(int argc, char** argv);
int RunBench(int argc, char** argv);
int RunLio(int argc, char** argv);
int RunFsync(int argc, char** argv);
int RunRun(int argc, char** argv);
int RunFacts(int argc, char** argv);
int RunTune(int argc, char** argv);
int RunCost(int argc, char** argv);
int RunCluster(int argc, char** argv);
int RunReport(int argc, char** argv);
int RunCompare(int argc, char** argv);
int RunFleet(int argc, char** argv);
int RunPg(int argc, char** argv);
int RunTpcc(int argc, char** argv);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_COMMANDS_H_
