// The process exit codes of every pgrig subcommand and the one place that
// turns an error into what the user sees and the code the process ends with.
//
// pgbench's convention (README, docs/architecture.md "Errors and exit
// codes"): 0 success, 1 bad invocation or setup, 2 failure during a run.
// Which of 1 and 2 an error gets depends on when it happened (ExitStage) and,
// during a run, on whether the error says the invocation itself was bad
// (ExitCodeFor()).  Fail() prints one line to stderr, "<command>: <message>"
// (or pgbench's "<command>: error: <message>"), and returns the code, so that
// a subcommand ends with `return Fail(kCommand, status);`.
//
// Only cli/ includes this (libraries return Status and never choose exit
// codes).  The functions keep no state; Fail() writes to stderr, one fputs per
// line, so lines from concurrent callers do not interleave within a line.
#ifndef PGRIG_CLI_EXIT_STATUS_H_
#define PGRIG_CLI_EXIT_STATUS_H_

#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInvocation = 1;  // also setup failures
inline constexpr int kExitRunFailure = 2;
// `pgrig compare`: the suites were read and the output written, but no cell
// of one matches a cell of the other (different client counts, protocols or
// workloads): there is no ratio to give.
inline constexpr int kExitNothingComparable = 3;

// When an error happened, relative to the work the command was asked to do.
enum class ExitStage {
  kSetup,  // checking the command line, reading inputs, reaching the server
  kRun,    // the measurement (or other work) had begun
};

// 0 for OK.  Before the run (kSetup) every error is 1.  During the run every
// error is 2 except those that say the invocation was bad (kInvalidArgument,
// kNotFound, kPermissionDenied: a value, path or permission the user gave),
// which are 1.
int ExitCodeFor(const Status& status, ExitStage stage);

// How a command prefixes its error lines.
enum class ErrorStyle {
  kPgrig,    // "pgrig cost: <message>"
  kPgbench,  // "pgrig init: error: <message>" (pgbench's pg_log_error form)
};

// A subcommand as its errors name it, e.g. {"pgrig cost"}.
struct CommandName {
  std::string_view name;
  ErrorStyle style = ErrorStyle::kPgrig;
};

// The line Fail() prints for `message`, with its newline.
std::string ErrorLine(const CommandName& command, std::string_view message);

// Prints ErrorLine(command, status.message()) to stderr and returns
// ExitCodeFor(status, stage).  REQUIRES: !status.ok().
int Fail(const CommandName& command, const Status& status, ExitStage stage = ExitStage::kSetup);

// Prints ErrorLine(command, message) to stderr and returns `code`, for the
// places that decide the code themselves (a bad option found by the
// command's own parser; a failure after the run, e.g. writing its results).
int Fail(const CommandName& command, std::string_view message, int code = kExitBadInvocation);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_EXIT_STATUS_H_
