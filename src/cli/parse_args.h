// The one way a subcommand runs CLI11 over its command line.  cli/ only.
#ifndef PGRIG_CLI_PARSE_ARGS_H_
#define PGRIG_CLI_PARSE_ARGS_H_

#include <CLI/CLI.hpp>
#include <optional>

#include "cli/exit_status.h"

namespace pgrig::cli {

// Parses `argv` into `app`'s options.  nullopt: parsed, go on.  Otherwise the
// command ends with the returned code: 0 after --help or --version (CLI11
// printed it), kExitBadInvocation for a bad command line (CLI11 said why).
inline std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInvocation;
  }
  return std::nullopt;
}

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_PARSE_ARGS_H_
