// Placeholder until issue 7 lands: the command exists so that --help lists
// it, and says plainly that it is not built yet.
#include <cstdio>

#include "cli/commands.h"

namespace pgrig::cli {

int RunCost(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "pgrig cost: not available in this build yet (tracked as issue 7)\n");
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
