// Placeholder until issue 5 lands: the command exists so that --help lists
// it, and says plainly that it is not built yet.
#include <cstdio>

#include "cli/commands.h"

namespace pgrig::cli {

int RunFacts(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "pgrig facts: not available in this build yet (tracked as issue 5)\n");
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
