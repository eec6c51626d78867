// Placeholder until issue 6 lands: the command exists so that --help lists
// it, and says plainly that it is not built yet.
#include <cstdio>

#include "cli/commands.h"

namespace pgrig::cli {

int RunTune(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "pgrig tune: not available in this build yet (tracked as issue 6)\n");
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
