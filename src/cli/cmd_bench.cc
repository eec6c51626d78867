// Placeholder until issue 3 lands: the command exists so that --help lists
// it, and says plainly that it is not built yet.
#include <cstdio>

#include "cli/commands.h"

namespace pgrig::cli {

int RunBench(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "pgrig bench: not available in this build yet (tracked as issue 3)\n");
  return kExitBadInvocation;
}

}  // namespace pgrig::cli
