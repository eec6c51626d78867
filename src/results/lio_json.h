// The results document of `pgrig lio run`: "schema": "pgrig.lio/1", in the
// conventions of pgrig.result/1 (tool, command_line, started_at, server,
// options, summary, latency_ms, histogram, facts; units in key names; null
// for what does not apply).  Documented in docs/results-lio.md.  Pure
// functions; thread-safe.
#ifndef PGRIG_RESULTS_LIO_JSON_H_
#define PGRIG_RESULTS_LIO_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "micro/lio_run.h"
#include "results/histogram_json.h"

namespace pgrig::results {

// What the document records besides the measurement.
struct MicroDocInputs {
  std::string tool_version;
  std::vector<std::string> command_line;  // already redacted
  std::string server_version;             // "15.18"; empty when no server
  int server_version_num = 0;
  std::string server_target;  // redacted
  bool embedded = false;
  // How pgrig.lio/1 writes its histograms: arrays on its own, packed inside
  // a pgrig.suite/2 run (histogram_json.h).
  BucketForm histogram_form = BucketForm::kArrays;
};

// The keys every micro-benchmark document (pgrig.lio/1, pgrig.fsync/1)
// starts with: schema, tool, how it ended, the command line and the window's
// times.  The caller adds the rest.
nlohmann::json MicroDocHead(const char* schema, const char* command, const MicroDocInputs& in,
                            bool interrupted, double start_wall_s, double end_wall_s);

nlohmann::json LioResultToJson(const MicroDocInputs& in, const micro::LioRunOptions& options,
                               const micro::LioRunResult& r, const nlohmann::json& facts);

// The figures of one window, computed once: the document's "summary" (and
// each "scaling" row) and `pgrig lio run`'s text are both made from them.
// Rates are per second of the window; optional where there is nothing to
// divide by (no session counted a block, no range finished).
struct LioWindowFigures {
  int sessions = 0;
  double duration_s = 0;
  double lio_per_s = 0;  // pg_stat_database blks_hit + blks_read
  double lio_per_s_per_session = 0;
  double blks_hit_per_s = 0;
  double physical_reads_per_s = 0;
  double ranges_per_s = 0;
  double updates_per_s = 0;
  double session_blocks_per_s = 0;  // what the sessions' own counts predict
  std::optional<double> counters_over_sessions;
  std::optional<double> latency_ms_avg, latency_ms_p50, latency_ms_p99;
};
LioWindowFigures ComputeLioWindowFigures(const micro::LioWindow& w,
                                         const std::vector<micro::LioTableInfo>& tables,
                                         int work_unit);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_LIO_JSON_H_
