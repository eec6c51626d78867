// Placeholder until issue 2 lands: the command exists so that --help lists
// it, and says plainly that it is not built yet.
#include <cstdio>

#include "cli/commands.h"

namespace pgrig::cli {

int RunInit(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "pgrig init: not available in this build yet (tracked as issue 2)\n");
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
