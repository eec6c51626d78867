// The results document of `pgrig lio run`: "schema": "pgrig.lio/1", in the
// conventions of pgrig.result/1 (tool, command_line, started_at, server,
// options, summary, latency_ms, histogram, facts; units in key names; null
// for what does not apply).  Documented in docs/results-lio.md.  Pure
// functions; thread-safe.
#ifndef PGRIG_RESULTS_LIO_JSON_H_
#define PGRIG_RESULTS_LIO_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "micro/lio_run.h"

namespace pgrig::results {

// What the document records besides the measurement.
struct MicroDocInputs {
  std::string tool_version;
  std::vector<std::string> command_line;  // already redacted
  std::string server_version;             // "15.18"; empty when no server
  int server_version_num = 0;
  std::string server_target;  // redacted
  bool embedded = false;
};

nlohmann::json LioResultToJson(const MicroDocInputs& in, const micro::LioRunOptions& options,
                               const micro::LioRunResult& r, const nlohmann::json& facts);

// The summary figures of one window (also each row of "scaling").
nlohmann::json LioWindowSummary(const micro::LioWindow& w,
                                const std::vector<micro::LioTableInfo>& tables, int work_unit);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_LIO_JSON_H_
