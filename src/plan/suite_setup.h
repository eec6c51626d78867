// The pieces of a suite's set-up that need no Runner state: parsing a
// workload's scripts once for all its runs, choosing the scale (and saying
// why), finding what data the database already holds, and the checks
// `pgrig run` makes before anything starts (runner.h declares those).
// Functions taking a Connection use it from the calling thread only.
#ifndef PGRIG_PLAN_SUITE_SETUP_H_
#define PGRIG_PLAN_SUITE_SETUP_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "micro/wal_flush.h"
#include "pg/connection.h"
#include "plan/plan.h"
#include "plan/result_json.h"
#include "script/script.h"
#include "script/variables.h"

namespace pgrig::plan {

// Seconds per run beyond its duration and warm-up: VACUUM, CHECKPOINT,
// connections, the observer, writing the suite.
inline constexpr double kOverheadPerRunS = 2.0;

// One workload's scripts, parsed once and shared by all of its runs (empty
// for lio and fsync workloads, which have none).
struct PreparedWorkload {
  std::shared_ptr<const script::NameTable> names;
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::Variables> base_variables;
  std::vector<ResultScript> result_scripts;
};

// Reads and parses the workload's scripts (built-in or files) and its -D
// definitions.  InvalidArgument naming the workload.
Result<PreparedWorkload> PrepareWorkload(const Workload& w);

struct ScaleChoice {
  int scale = 1;
  std::string reason;  // for people: "scale 10 from plan 'standard'"
};

// The plan's scale, or one sized to shared_buffers (read over `conn`) or to
// `memory_bytes` (about 16 MB of tables and indexes per unit of scale).
Result<ScaleChoice> ChooseScale(const Plan& plan, pg::Connection& conn,
                                std::optional<uint64_t> memory_bytes);

// The scale pgbench_branches holds, or nullopt when pgbench's tables are missing.
Result<std::optional<int>> ExistingScale(pg::Connection& conn);

// The fsync test's options for the plan's fsync workload and `dir` (the
// plan's, or the server's data directory); tmpfs is refused.
micro::FsyncOptions FsyncOptionsFor(const FsyncParams& p, const std::string& dir);

// The first value of a one-row query, "" on error or NULL.
std::string OneValue(pg::Connection& conn, const char* sql);

}  // namespace pgrig::plan

#endif  // PGRIG_PLAN_SUITE_SETUP_H_
