#include "engine/result.h"

#include "common/enum_names.h"

namespace pgrig::engine {

const char* StopReasonName(StopReason r) {
  static constexpr const char* kNames[] = {"completed", "aborted", "interrupted"};
  return NameAt<StopReason::kInterrupted>(r, kNames, "unknown");
}

double RunResult::Tps() const {
  if (bench_duration_ns <= 0) return 0;
  return static_cast<double>(totals.transactions) / (static_cast<double>(bench_duration_ns) / 1e9);
}

double RunResult::ClientCpuUsPerTransaction() const {
  const int64_t ended = totals.transactions + totals.failures();
  if (ended <= 0) return 0;
  return (client_user_cpu_s + client_sys_cpu_s) * 1e6 / static_cast<double>(ended);
}

}  // namespace pgrig::engine
