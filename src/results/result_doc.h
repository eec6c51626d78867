// pgrig.result/1 as a typed struct: one benchmark run's document
// (docs/results-format.md).  ResultDocToJson is its one writer (what
// result_json.h's RunResultToJson and fleet's merge write through) and
// ResultDocFromJson its reader (what fleet's merge reads the clients'
// documents with).  The latency summary and the histogram are written from
// the one histogram the document holds, so they always agree.
//
// The reader is lenient where the writer is not: a missing key keeps its
// default (documents written by hand in tests, or by an older pgrig, lack
// some), a key of the wrong type is an error naming the document and the
// key.  A merged document (fleet's clients mode) also has "fleet",
// "observation", "bottleneck", "client.hosts" and "series.merged".
// Plain value types and pure functions; thread-compatible.
#ifndef PGRIG_RESULTS_RESULT_DOC_H_
#define PGRIG_RESULTS_RESULT_DOC_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "results/histogram_json.h"
#include "results/result_json.h"
#include "stats/histogram.h"

namespace pgrig::results {

struct ResultSummary {
  double tps = 0;
  double tps_including_connections = 0;
  double latency_ms_avg = 0;
  double latency_ms_p99 = 0;
  int64_t transactions = 0;
  int64_t failed_transactions = 0;
  double duration_s = 0;
  double client_cpu_us_per_transaction = 0;
  std::optional<double> server_cpu_us_per_transaction;
};

struct ResultDurations {
  double benchmark_s = 0;
  double initial_connection_ms = 0;
  double connection_total_ms = 0;
};

struct ResultTransactions {
  int64_t processed = 0;
  int64_t failed = 0;
  int64_t serialization_failures = 0;
  int64_t deadlock_failures = 0;
  int64_t skipped = 0;
  int64_t retried = 0;
  int64_t retries = 0;
  int64_t above_latency_limit = 0;
};

// Schedule lag under -R: the full summary when its histogram is known (a
// run's own document), else only the mean and the maximum (read back, merged).
struct ResultLag {
  std::optional<stats::Histogram> histogram;
  double avg_ms = 0;
  double max_ms = 0;
};

// One client host of a merged document ("client.hosts").
struct ResultClientHost {
  std::string label;
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  double cpu_us_per_transaction = 0;
  double busy_fraction = 0;
  bool bottleneck = false;
  int64_t max_rss_bytes = 0;
  double tps = 0;
};

struct ResultClient {
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  double cpu_us_per_transaction = 0;
  double cpu_user_us_per_transaction = 0;
  double cpu_system_us_per_transaction = 0;
  double busy_fraction = 0;
  bool bottleneck = false;
  int64_t max_rss_bytes = 0;
  std::string io = "epoll";  // epoll, io_uring or mixed
  int64_t lean_protocol_connections = 0;
  std::optional<std::vector<ResultClientHost>> hosts;  // merged documents only
};

struct ResultServerCpu {
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  double cpu_s = 0;
  std::optional<double> cpu_us_per_transaction;
  bool settled = false;
};

struct ResultCommandStats {
  int64_t executions = 0;
  double latency_ms_avg = 0;
  int64_t failures = 0;
  int64_t retries = 0;
};

struct ResultCommand {
  std::string line;
  std::optional<ResultCommandStats> stats;  // none when the script did not run
};

struct ResultScriptTotals {
  int64_t transactions = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
  int64_t retried = 0;
  double tps = 0;
};

struct ResultScriptDoc {
  std::string desc;
  int weight = 1;
  std::string spec;
  std::string kind = "builtin";  // or "file"
  std::vector<ResultCommand> commands;
  std::optional<ResultScriptTotals> totals;  // none when the script did not run
};

struct ResultInterval {
  double end_s = 0;
  double tps = 0;
  int64_t transactions = 0;
  int64_t failed = 0;
  int64_t serialization_failures = 0;
  int64_t deadlock_failures = 0;
  int64_t skipped = 0;
  int64_t retried = 0;
  int64_t retries = 0;
  double latency_ms_avg = 0;
  std::optional<double> latency_ms_stddev;  // none in merged series
  double latency_ms_min = 0;
  double latency_ms_max = 0;
  double lag_ms_avg = 0;
  double lag_ms_max = 0;
};

struct ResultSeries {
  double interval_s = 1;
  std::vector<ResultInterval> intervals;
  std::optional<std::string> merged;  // how a merged series was made
};

// One host of a merged document ("fleet.hosts").
struct ResultFleetHost {
  std::string label;
  std::string file;
  std::string status;  // ok, incomplete, failed
  std::optional<std::string> message;
  std::optional<int64_t> transactions;  // hosts with a document
  std::optional<double> tps;
  std::optional<std::string> started_at;
};

struct ResultFleet {
  std::string mode = "clients";
  bool partial = false;
  std::vector<ResultFleetHost> hosts;
};

struct ResultDoc {
  std::string tool_version;
  std::string command = "bench";
  bool complete = true;
  std::string stop_reason = "completed";
  std::optional<std::string> abort_message;
  int64_t aborted_clients = 0;
  std::vector<std::string> command_line;
  std::string started_at;
  std::string ended_at;
  double start_unix_s = 0;
  double end_unix_s = 0;
  ResultServer server;
  ResultOptions options;
  ResultSummary summary;
  ResultDurations durations;
  ResultTransactions transactions;
  stats::Histogram latency;  // "latency_ms" and "histogram"
  // How "histogram" is written: arrays in a pgrig.result/1 of its own,
  // packed in a pgrig.suite/2 run (histogram_json.h).
  BucketForm histogram_form = BucketForm::kArrays;
  std::optional<ResultLag> lag;
  ResultClient client;
  std::optional<ResultServerCpu> server_cpu;
  std::optional<std::string> server_cpu_unavailable;
  std::optional<ServerProfileDoc> server_profile;  // written only when set
  std::vector<ResultScriptDoc> scripts;
  ResultSeries series;
  nlohmann::json facts = nullptr;
  // A merged document (fleet's clients mode): these keys are written only
  // when `fleet` is set.
  std::optional<ResultFleet> fleet;
  nlohmann::json observation = nullptr;
  nlohmann::json bottleneck = nullptr;
};

nlohmann::json ResultDocToJson(const ResultDoc& doc);

// The first option that makes two runs different benchmarks (duration, -t,
// query mode, scale): its document key ("options.duration_s") and both
// values as JSON text ("null" when unset).  nullopt when they ran the same.
struct OptionDifference {
  std::string key;
  std::string a, b;
};
std::optional<OptionDifference> FirstRunDifference(const ResultOptions& a, const ResultOptions& b);

// `where` names the document in errors ("host a: clients/a.json").  Requires
// the schema and a valid histogram.
Result<ResultDoc> ResultDocFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_RESULT_DOC_H_
