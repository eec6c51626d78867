// The suite runner: turns a Plan into measured runs and a results directory.
//
// RunSuite() drives the engine and the workload loader directly (the CLI
// only parses options, resolves the server, takes the facts and prints):
//   1. validates every workload script and every setting of every cell
//      against the server (cell_settings.h) before changing anything;
//   2. chooses the scale (the plan's, or one sized to shared_buffers/RAM)
//      and loads pgbench's tables only when pgbench_branches does not
//      already hold that scale;
//   3. for each iteration, the cells in IterationOrder(); per run:
//      server-level settings of the cell (ServerSettings::Apply), VACUUM
//      (pgbench's: branches, tellers, TRUNCATE history) for writing
//      workloads, CHECKPOINT, a discarded warm-up run of warmup_s with
//      the same cell, then the measured run with an Observer sampling the
//      host and the server, and Diagnose() naming its bottleneck;
//   4. after every run rewrites suite.json atomically (complete: false
//      until the end), runs.csv and summary.md (suite_json.h);
//   5. restores every server-level setting at the end, after a failed run
//      and after an interruption.
// With `resume`, the (cell, iteration) pairs that already have a finished
// run are skipped and the previous runs are kept.
//
// Thread-safety: RunSuite() is called from one thread; on_progress is called
// from that thread.  stop_requested may be set from a signal handler.
#ifndef PGRIG_RUNNER_RUNNER_H_
#define PGRIG_RUNNER_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"
#include "plan/plan.h"
#include "profile/server_profiler.h"
#include "results/result_json.h"
#include "results/suite_doc.h"
#include "runner/suite_setup.h"

namespace pgrig::runner {

enum class OnError { kStop, kContinue };

// The machine's price, chosen by the caller (--usd-per-hour, --instance, or
// the cloud instance type from the facts).
struct SuiteProgress {
  enum class Kind {
    kNote,      // a line for people (scale chosen, data loaded, settings applied)
    kRunStart,  // a run (warm-up included) starts
    kTick,      // once per second of a measured run
    kRunEnd,    // a run ended (ok or failed); text says how
  };
  Kind kind = Kind::kNote;
  std::string text;
  std::string cell_id;
  int position = 0;  // 1-based position of the cell in this iteration
  int cells = 0;
  int iteration = 0;  // 1-based
  int iterations = 0;
  int run_number = 0;  // 1-based among the runs this invocation makes
  int runs_to_do = 0;
  bool warmup = false;
  double elapsed_s = 0;    // since RunSuite started
  double remaining_s = 0;  // estimate
  double current_tps = 0;  // last second (kTick) or the run's tps (kRunEnd)
};

// The server of one build of a plan with builds (SuiteOptions::activate_build).
struct BuildServer {
  pg::ConnectionParams target;
  cluster::Cluster* embedded = nullptr;
  results::ResultServer server;
};

struct SuiteOptions {
  plan::Plan plan;
  std::vector<plan::Cell> cells;         // ExpandPlan(plan, cpus)
  int cpus = 1;                          // what ExpandPlan used
  std::optional<uint64_t> memory_bytes;  // for size targets (facts: effective memory)

  pg::ConnectionParams target;
  cluster::Cluster* embedded = nullptr;  // non-null: the embedded cluster pgrig started
  results::ResultServer server;          // version and redacted target, for each run's document

  std::string out_dir;  // created if missing; must be empty unless resuming
  std::string label;
  std::string tool_version;
  std::vector<std::string> command_line;  // redacted
  nlohmann::json facts;                   // pgrig.facts/1 taken before anything starts
  // A plan with builds (plan.builds): makes build `b`'s embedded cluster the
  // one running (stops the others, starts it, settles what an interrupted
  // run left on it) and returns its server.  Required with builds, whose
  // suite starts from it: target, embedded and server above are not used.
  // The runner restores its server-level settings before calling it.
  std::function<Result<BuildServer>(int b)> activate_build;
  // Takes the facts of `server` again once the data is loaded (database
  // size, whether it fits in shared_buffers and RAM describe what is
  // measured, not an empty database); its result replaces `facts` in a new
  // suite, and with builds each build's "server" part is recorded in the
  // suite's builds.  Optional.
  std::function<nlohmann::json(const pg::ConnectionParams& server)> facts_after_load;
  std::optional<PriceSpec> price;
  OnError on_error = OnError::kStop;
  const std::atomic<bool>* stop_requested = nullptr;
  std::function<void(const SuiteProgress&)> on_progress;
  // The suite.json of an interrupted suite to continue (out_dir is its
  // directory); nullopt for a new suite.
  std::optional<results::SuiteDoc> resume;
  // --profile: profile every pgbench cell's last iteration, whatever the
  // plan says.
  bool profile_all = false;
};

enum class SuiteEnd { kCompleted, kInterrupted, kRunFailed };
const char* SuiteEndName(SuiteEnd e);  // "completed", "interrupted", "run_failed"

struct SuiteOutcome {
  SuiteEnd end = SuiteEnd::kCompleted;
  int runs_ok = 0;  // in the suite, including resumed ones
  int runs_failed = 0;
  int runs_made = 0;                  // by this invocation
  double wall_s = 0;                  // this invocation
  nlohmann::json suite;               // what suite.json holds
  std::vector<std::string> warnings;  // e.g. settings that could not be restored
};

// Fails (nothing measured) when a script, a setting or the data load is
// refused; a failure during a run is recorded in the suite instead.
Result<SuiteOutcome> RunSuite(const SuiteOptions& options);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_RUNNER_H_
