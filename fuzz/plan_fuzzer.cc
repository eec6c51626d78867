// plan_fuzzer: libFuzzer target over the plan file reader (plan/plan.h), the
// TOML a user writes for `pgrig run`, and over the matrix it expands into.
//
// Input: one byte that stands for the machine's CPU count (1..64), then the
// text of a plan file.  The file is read as "plans/fuzz.toml", so script
// files it names resolve against plans/ when the fuzzer runs from the
// source tree (docs/fuzzing.md), as the shipped plans' do.
//
// Checked invariants (abort = crash report): nothing the reader calls throws
// out of it; a refusal's message starts with the file's name; a plan it
// accepts has durations the runner can hold as an int of seconds and a
// latency limit the engine can hold in nanoseconds; and for it, ExpandPlan either refuses (naming
// nothing in particular: an empty matrix) or gives cells whose ids are unique, whose indexes point
// into the plan, whose threads are between 1 and the clients, and which
// every iteration's run order visits exactly once.
//
// Stateless between inputs; single-threaded.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/config.h"
#include "fuzz_check.h"
#include "plan/plan.h"

namespace {

const char kFile[] = "plans/fuzz.toml";

void CheckCells(const pgrig::plan::Plan& plan, const std::vector<pgrig::plan::Cell>& cells) {
  FUZZ_CHECK(!cells.empty());
  std::set<std::string> ids;
  for (const pgrig::plan::Cell& c : cells) {
    FUZZ_CHECK(ids.insert(c.id).second);
    FUZZ_CHECK(c.workload >= 0 && static_cast<size_t>(c.workload) < plan.workloads.size());
    FUZZ_CHECK(c.variant >= -1 &&
               (c.variant == -1 || static_cast<size_t>(c.variant) < plan.variants.size()));
    FUZZ_CHECK(c.build >= -1 &&
               (c.build == -1 || static_cast<size_t>(c.build) < plan.builds.size()));
    FUZZ_CHECK(plan.builds.empty() == (c.build == -1));
    FUZZ_CHECK(c.clients >= 1);
    FUZZ_CHECK(c.threads >= 1 && c.threads <= c.clients);
  }
  for (int iteration : {0, 1, 7}) {
    std::vector<int> order = pgrig::plan::RunOrder(cells, iteration);
    FUZZ_CHECK(order.size() == cells.size());
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i) FUZZ_CHECK(order[i] == static_cast<int>(i));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int64_t cpus = 1 + data[0] % 64;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto plan = pgrig::plan::ParsePlan(text, kFile);
  if (!plan.ok()) {
    FUZZ_CHECK(plan.status().message().rfind(kFile, 0) == 0);
    return 0;
  }
  FUZZ_CHECK(plan->duration_s > 0 && plan->duration_s <= 2147483647);
  FUZZ_CHECK(plan->warmup_s >= 0 && plan->warmup_s <= 2147483647);
  if (plan->latency_limit_ms) {
    FUZZ_CHECK(*plan->latency_limit_ms > 0 &&
               *plan->latency_limit_ms <= pgrig::engine::kMaxLatencyLimitMs);
  }
  auto cells = pgrig::plan::ExpandPlan(*plan, cpus);
  if (cells.ok()) CheckCells(*plan, *cells);
  return 0;
}
