// The result model of the report module: what `pgrig report` and `pgrig
// compare` know about a suite, read from `pgrig.suite/2` or `/1` (a `pgrig run`
// results directory) or, for a single run, from `pgrig.result/1` (`pgrig
// bench --json`) or `pgrig.lio/1` (`pgrig lio run --json`; one lio cell), or
// from `pgrig.fsync/1` (`pgrig fsync --json`; no cells, only Suite::fsync).  docs/results-format.md
// defines both documents; reader.cc is the only code that knows their key names, so the rest of the
// module (and every renderer) depends on these structs only.
//
// A Suite is a set of Cells (one point of the plan's matrix: workload ×
// protocol × settings variant × clients × threads), each measured by one or
// more Runs (iterations).  Values that a document may lack are optional, never
// sentinels.  Plain value types; thread-compatible.
#ifndef PGRIG_RESULTS_MODEL_H_
#define PGRIG_RESULTS_MODEL_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/metrics.h"
#include "results/profile_json.h"
#include "stats/packed_histogram.h"

namespace pgrig::results {

// What the host and server did during one run, averaged over its window
// (the suite's per-second observation, reduced).  Fractions are of all CPU
// time of the machine (0..1).
struct Observation {
  std::optional<double> cpu_user;
  std::optional<double> cpu_system;
  std::optional<double> cpu_iowait;
  std::optional<double> cpu_steal;
  std::optional<double> cpu_idle;
  std::optional<double> read_bytes_per_s;  // the data device
  std::optional<double> write_bytes_per_s;
  std::optional<double> wal_bytes;     // written during the window
  std::optional<int64_t> checkpoints;  // timed + requested, during the window
  // Seconds into the window of the samples in which a checkpoint was counted
  // (pg_stat_bgwriter; the count can lag by up to a second), for the
  // over-time chart.
  std::vector<double> checkpoint_times_s;
  bool server_is_local = false;  // host figures include the server's work
  std::optional<int> host_cpus;
  std::optional<double> host_duration_s;  // the observed window
  // Sampled wait events: "LWLock:WALWrite" -> samples.
  std::map<std::string, int64_t> wait_events;
  // The suite's verdict for the run ("server_cpu", "client_cpu", "io_wait",
  // "lock_waits", "lwlock_waits", "wal", "steal", "other_processes", "unknown"), its evidence,
  // and its warnings ("the client saturated its CPUs (92%)", "steal 12%").
  std::string bottleneck;
  std::string bottleneck_evidence;
  std::vector<std::string> warnings;
  // Set when the run was marked disturbed (the run's "disturbed"): the share
  // of the host's CPU that other processes took (0..1).
  std::optional<double> disturbed_other;
};

struct Run {
  int iteration = 0;
  bool ok = true;
  std::string error;  // why it failed, when !ok
  // The run's headline, higher is better: transactions per second, or for
  // a lio cell (Cell::metric "lio_per_s") logical reads per second.
  double tps = 0;
  double duration_s = 0;
  // Latency in ns, packed (2,000 runs of a campaign fit in tens of MB);
  // stats::ImportPacked gives the histogram back.
  std::optional<stats::PackedHistogram> histogram;
  std::optional<double> client_cpu_us_per_transaction;
  std::optional<double> client_cpu_s;  // user + system over the window
  // The server's, measured from /proc (summary.server_cpu_us_per_transaction;
  // null when the server was not provably local).
  std::optional<double> server_cpu_us_per_transaction;
  std::optional<int64_t> transactions;  // successful
  bool client_saturated = false;        // client.bottleneck in pgrig.result/1
  // Throughput per interval (series.intervals), for the over-time chart; a
  // last interval shorter than half an interval is left out (reader.cc).
  std::vector<double> tps_series;
  double series_interval_s = 1;
  Observation observation;
  // The server's profile when the run was profiled (docs/profiles.md).
  std::optional<ServerProfileDoc> server_profile;
};

struct Cell {
  // "<workload>/<protocol>/<variant>/c<clients>/j<threads>": the plan
  // module's stable cell id, used to match cells across suites.
  std::string id;
  std::string workload;
  std::string protocol;  // simple / extended / prepared
  std::string variant;   // settings variant, "default" when none
  std::string build;     // the PostgreSQL build (a plan with builds), "" when none
  int clients = 0;       // for a lio cell: its sessions
  int threads = 0;
  // What Run::tps holds: "tps" (pgrig.result/1 runs) or "lio_per_s"
  // (pgrig.lio/1 runs of a `kind = "lio"` workload).
  std::string metric = kMetricTps;
  std::map<std::string, std::string> settings;  // the variant's settings
  std::vector<Run> runs;
};

// One (method, write size, writers) test of a pgrig.fsync/1 document.
struct FsyncTest {
  std::string label;   // "open_datasync+O_DIRECT"
  std::string method;  // "open_datasync" (wal_sync_method name)
  bool o_direct = false;
  int write_bytes = 0;
  int writers = 0;
  std::optional<double> ops_per_s;  // absent when the combination could not run
  std::optional<double> p50_ms, p99_ms;
  std::string unavailable;  // why it could not run
};

// The suite's WAL flush test (a plan's `kind = "fsync"` workload, once per
// suite): the best method's single-writer figure and every test.
struct FsyncRecord {
  std::string dir;
  std::string best_method;     // "" when nothing could run or no method is significantly best
  std::string leading_method;  // the highest rate, significant or not ("" in older documents)
  std::optional<double> best_ops_per_s;
  std::optional<double> best_p99_ms;
  std::optional<int> headline_write_bytes;
  std::string server_method;  // the server's wal_sync_method, "" when unknown
  std::optional<double> server_method_ops_per_s;
  bool memory_file_system = false;
  std::vector<FsyncTest> tests;
};

// The facts.server.build keys that say how the server was built, in the
// order a reader reports a difference (Suite::server_build).
inline constexpr const char* kServerBuildFacts[] = {"compiler", "cflags", "configure",
                                                    "arm_atomics"};

// One PostgreSQL build of a suite whose plan had builds (suite.json
// "builds"): its name and what facts found of its server (facts' "server":
// null when its cluster never ran).
struct SuiteBuildRecord {
  std::string name;
  nlohmann::json server;
};

struct Suite {
  std::string source;  // the file it was read from
  std::string schema;  // the document read: pgrig.suite/2 (or /1), .result/1, .lio/1 or .fsync/1
  std::string suite_id;
  std::string label;  // for tables and charts: the suite's label, else the directory name
  bool complete = true;
  std::string started_at;
  std::string plan_name;
  std::string plan_text;  // the plan as run (compared to detect different plans)
  std::optional<int64_t> scale;
  // The TPC-C-like warehouses its tpcc cells ran on (a suite's "tpcc"
  // section, or a `tpcc run` document's); none without tpcc cells.
  std::optional<int64_t> tpcc_warehouses;
  // Machine and server.
  nlohmann::json facts;    // pgrig.facts/1 ({} when absent)
  std::string pg_version;  // "15.18"
  std::optional<int> pg_major;
  // Server settings as measured (facts.server.settings, name -> setting).
  std::map<std::string, std::string> server_settings;
  // How the server was built, as facts found it (facts.server.build's
  // compiler, cflags, configure and arm_atomics, where known).
  std::map<std::string, std::string> server_build;
  // Price.
  std::optional<double> usd_per_hour;
  std::string instance_type;
  std::vector<Cell> cells;
  std::vector<SuiteBuildRecord> builds;  // empty unless the plan had builds
  std::optional<FsyncRecord> fsync;      // suite.fsync (pgrig.fsync/1) when the plan had one
  std::vector<std::string> warnings;     // things the reader noticed (not fatal)
};

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_MODEL_H_
