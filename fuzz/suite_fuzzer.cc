// suite_fuzzer: libFuzzer target over the results reader, the one reader
// behind `pgrig report` and `pgrig compare` (results/reader.h): suite.json
// (pgrig.suite/1) and the single-document inputs it also reads
// (pgrig.result/1, pgrig.lio/1, pgrig.fsync/1).
//
// Input: the bytes of a file given to `pgrig report`.
//
// Checked invariants (abort = crash report): nothing the reader calls throws
// out of it; a refusal is an error whose message names the file; an
// accepted suite has cells with unique ids, every run's rate is 0 (a failed
// run) or inside [kMinRate, kMaxRate], and every run sits in a cell of the
// suite.
//
// Stateless between inputs; single-threaded.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "results/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz/suite.json";
  auto suite = pgrig::results::ParseSuiteJson(text, source);
  if (!suite.ok()) {
    FUZZ_CHECK(suite.status().message().rfind(source, 0) == 0);
    return 0;
  }
  std::set<std::string> ids;
  for (const pgrig::results::Cell& c : suite->cells) {
    FUZZ_CHECK(ids.insert(c.id).second);
    for (const pgrig::results::Run& r : c.runs) {
      FUZZ_CHECK(std::isfinite(r.tps));
      FUZZ_CHECK(r.tps == 0
                     ? !r.ok
                     : r.tps >= pgrig::results::kMinRate && r.tps <= pgrig::results::kMaxRate);
    }
  }
  return 0;
}
