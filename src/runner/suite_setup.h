// The pieces of a suite's set-up that need no Runner state: parsing a
// workload's scripts once for all its runs, choosing the scale (and saying
// why), finding what data the database already holds, and the checks
// `pgrig run` makes before anything starts.
// Functions taking a Connection use it from the calling thread only.
#ifndef PGRIG_RUNNER_SUITE_SETUP_H_
#define PGRIG_RUNNER_SUITE_SETUP_H_

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "cost/catalog.h"
#include "micro/wal_flush.h"
#include "pg/connection.h"
#include "plan/plan.h"
#include "results/result_json.h"
#include "results/suite_doc.h"
#include "script/script.h"
#include "script/variables.h"

namespace pgrig::runner {

// A suite to continue (`pgrig run --resume DIR`): its suite.json, and the
// plan rebuilt from the plan text recorded in it (name and source path as
// recorded).  `plan_arg`, the PLAN given with --resume (may be empty), must
// name that plan.  InvalidArgument saying what is wrong; the caller names
// the directory.
struct ResumedSuite {
  results::SuiteDoc suite;
  plan::Plan plan;
  std::string label;  // the suite's label, else the plan's name
};
Result<ResumedSuite> ReadResumable(const std::string& dir, const std::string& plan_arg);

struct PriceSpec {
  double usd_per_hour = 0;
  std::string instance_type;  // "" when given as a bare price
  std::string from;  // "--usd-per-hour", "--instance (catalog data/prices.toml:12, 2026-10-01)"
};

struct PriceChoice {
  std::optional<PriceSpec> price;  // none: the suite has no price
  std::string note;                // why there is none, for people; may be empty
};

// The suite's price: `usd_per_hour` as given; else `instance`'s from the
// price catalog (cost::LoadCatalog with `search`; InvalidArgument naming
// --instance when the catalog lacks it); else `detected_instance` (this
// machine's cloud instance type from its facts; a note, not an error, when
// the catalog lacks it); else none.  `region` narrows the look-up.
Result<PriceChoice> ChoosePrice(std::optional<double> usd_per_hour, const std::string& instance,
                                const std::string& detected_instance, const std::string& region,
                                const cost::CatalogSearch& search);

// Rough wall time of the whole suite (runs, warm-ups, between-run actions),
// without data loading.
double EstimateSuiteSeconds(const plan::Plan& plan, size_t cell_count);

// The checks RunSuite makes before touching anything, for --dry-run and for
// the CLI's validation: every workload script can be read and parsed.
Status CheckWorkloads(const plan::Plan& plan);

// Checks that `dir` can hold a new suite: it does not exist (its parent is a
// writable directory, or can be created) or is an empty writable directory.
// Creates nothing.
Status CheckOutDir(const std::string& dir);

// Whether a previous suite.json can be continued: an incomplete
// pgrig.suite/2 document made with the same plan text whose cells are
// `cells` (the matrix depends on the CPU count).
Status CheckResumable(const results::SuiteDoc& suite, const plan::Plan& plan,
                      const std::vector<plan::Cell>& cells);

// Seconds per run beyond its duration and warm-up: VACUUM, CHECKPOINT,
// connections, the observer, writing the suite.
inline constexpr double kOverheadPerRunS = 2.0;

// One workload's scripts, parsed once and shared by all of its runs (empty
// for lio and fsync workloads, which have none).
struct PreparedWorkload {
  std::shared_ptr<const script::NameTable> names;
  std::shared_ptr<const std::vector<script::Script>> scripts;
  std::shared_ptr<const script::Variables> base_variables;
  std::vector<results::ResultScript> result_scripts;
};

// Reads and parses the workload's scripts (built-in or files) and its -D
// definitions.  InvalidArgument naming the workload.
Result<PreparedWorkload> PrepareWorkload(const plan::Workload& w);

struct ScaleChoice {
  int scale = 1;
  std::string reason;  // for people: "scale 10 from plan 'standard'"
};

// The plan's scale, or one sized to shared_buffers (read over `conn`) or to
// `memory_bytes` (about 16 MB of tables and indexes per unit of scale).
Result<ScaleChoice> ChooseScale(const plan::Plan& plan, pg::Connection& conn,
                                std::optional<uint64_t> memory_bytes);

// Room for the suite's connections on the server: max_connections less the
// slots kept for superusers (and, from PostgreSQL 16, reserved_connections),
// less the client sessions open now.
struct ConnectionRoom {
  int max_connections = 0;
  int reserved = 0;
  int in_use = 0;  // client backends other than the one asking
};
Result<ConnectionRoom> ReadConnectionRoom(pg::Connection& conn);

// Sessions a suite opens besides a cell's clients (its lock, its settings
// and observer connections).
inline constexpr int kSuiteOwnSessions = 3;

// Every cell's clients (a lio cell's sessions) fit `room`, with the suite's
// own sessions; a cell whose server settings set max_connections is judged
// against that value.  InvalidArgument naming the largest cell that does
// not fit and what to change.
Status CheckClientsFit(const std::vector<plan::Cell>& cells,
                       const std::vector<std::map<std::string, std::string>>& server_settings,
                       const ConnectionRoom& room);

// What pgbench's tables in a database hold, and whether a suite may use
// them as they are.
struct ExistingData {
  bool present = false;  // all four tables exist
  int scale = 0;         // rows in pgbench_branches
  // Why they cannot be used as they are ("" when they can): a pgrig load
  // that did not finish (kLoadInProgress on pgbench_accounts), a missing
  // primary key, or row counts that do not match the scale.
  std::string incomplete;
};
Result<ExistingData> ReadExistingData(pg::Connection& conn);

// The comment a suite's data load puts on pgbench_accounts once the tables
// are created and takes off when the load has finished: tables a killed
// load left behind are never taken for loaded ones.
inline constexpr const char* kLoadInProgress = "pgrig: load in progress";

// The fsync test's options for the plan's fsync workload and `dir` (the
// plan's, or the server's data directory); tmpfs is refused.
micro::FsyncOptions FsyncOptionsFor(const plan::FsyncParams& p, const std::string& dir);

// The first value of a one-row query, "" on error or NULL.
std::string OneValue(pg::Connection& conn, const char* sql);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_SUITE_SETUP_H_
