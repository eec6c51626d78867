// FUZZ_CHECK(cond): what every fuzz target uses to state an invariant.  A
// violated one prints the condition with its file and line and aborts, which
// libFuzzer (and the replay programs under CTest) report as a crash.  Unlike
// assert() it stays on in release builds.
#ifndef PGRIG_FUZZ_FUZZ_CHECK_H_
#define PGRIG_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

namespace pgrig::fuzz {

[[noreturn]] inline void CheckFailed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
  std::abort();
}

}  // namespace pgrig::fuzz

#define FUZZ_CHECK(cond)                                                \
  do {                                                                  \
    if (!(cond)) ::pgrig::fuzz::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)

#endif  // PGRIG_FUZZ_FUZZ_CHECK_H_
