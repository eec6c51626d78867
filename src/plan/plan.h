// A run plan: what `pgrig run` measures, as read from a TOML file.
//
// A plan is a matrix (workload × protocol × settings variant × clients ×
// threads) times iterations, with the measurement rules of DESIGN.md: a
// warm-up that is not counted, a CHECKPOINT (and for writing workloads a
// VACUUM) before every run, iterations interleaved across the cells with the
// order rotated per iteration.  This header is the contract between the plan
// reader (plan.cc: TOML -> Plan, with errors naming file, line and key) and
// the runner (runner.h: Plan -> suite).
//
// A plan may also name PostgreSQL builds (`builds = ["installed",
// "native"]`: `pgrig pg build` names, or "installed" for the server pgrig
// finds without --pg), and say how to make a missing one (`[[build]]`:
// source, profile, flags; BuildEntry): every cell then runs on each build's
// embedded cluster, and the cell id ends in "@<build>".  docs/plans.md documents the file
// format; plans/*.toml are the shipped plans.
//
// Besides pgbench-style workloads (scripts), a plan may hold `kind = "lio"`
// workloads (logical reads from shared buffers, micro/lio_run.h: one cell
// per session count) and one `kind = "fsync"` workload (the WAL flush test,
// micro/wal_flush.h), which makes no cells: it runs once per suite, before
// the first cell, because the storage does not change between cells.
//
// Client and thread counts may be written relative to the machine
// ("cores", "2*cores", "cores/2"); they are kept as CountExpr and resolved by
// ExpandPlan() against the number of CPUs the benchmark may use, so a plan
// means the same thing on a 2-vCPU and a 64-vCPU machine.
//
// Everything here is a plain value type; thread-compatible.
#ifndef PGRIG_PLAN_PLAN_H_
#define PGRIG_PLAN_PLAN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "script/script.h"

namespace pgrig::plan {

// "8", "cores", "2*cores", "cores/2" (at least 1 once resolved).
struct CountExpr {
  int64_t constant = 0;  // used when per_core == 0
  int64_t per_core = 0;  // multiplier of the CPU count ("2*cores" -> 2)
  int64_t divisor = 1;   // "cores/2" -> per_core 1, divisor 2
  std::string text;      // as written, for messages and the suite record

  int64_t Resolve(int64_t cpus) const;  // max(1, ...)
};

// Parses "8", "cores", "2*cores", "cores*2", "cores/2", "3*cores/2" (blanks
// ignored; constants 1..100000, multipliers and divisors 1..10000).  The
// message of an error says what is allowed but not where (the caller adds
// file, line and key).  kInvalidArgument.
Result<CountExpr> ParseCountExpr(std::string_view text);

// How big the pgbench data set is.
enum class SizeTarget {
  kScale,              // an explicit scale factor
  kFitsSharedBuffers,  // largest scale whose tables and indexes fit in shared_buffers
  kFitsRam,            // fits in memory but not in shared_buffers
  kLargerThanRam,      // larger than the machine's memory (storage-bound)
};

// One -b/-f entry of a workload.
struct ScriptRef {
  enum class Kind { kBuiltin, kFile };
  Kind kind = Kind::kBuiltin;
  // Built-in name as pgbench spells it ("tpcb-like", "simple-update",
  // "select-only"), or the file's absolute path (relative paths in the plan
  // are resolved against the plan file's directory).
  std::string spec;
  int weight = 1;
};

// What VACUUM to run between runs.
enum class VacuumPolicy { kNever, kWriteWorkloads, kAlways };

enum class WorkloadKind { kPgbench, kLio, kFsync, kTpcc };
const char* WorkloadKindName(WorkloadKind k);  // "pgbench", "lio", "fsync", "tpcc"

// `kind = "lio"`: the tables (`pgrig lio init`) and the range reads.  Every
// lio workload of a plan uses the same tables, so `tables` and the size must
// agree between them.
struct LioParams {
  int tables = 4;                           // 1..micro::kMaxLioTables
  std::optional<int64_t> blocks_per_table;  // nullopt: sized to fit shared_buffers
  std::string size_text = "fit";            // as written ("64MB", "8192", "fit")
  int work_unit = 255;                      // blocks per range SELECT
  int update_pct = 0;                       // 0..100
  int update_work_unit = 8;                 // blocks per range UPDATE
};

// `kind = "fsync"`: micro::RunFsync once per suite.
struct FsyncParams {
  std::string dir;  // absolute; "" = the server's data directory (local servers only)
  double seconds_per_test = 2;
  std::vector<int> write_sizes = {8192, 16384};
  std::vector<int> writers = {1, 4};
};

// `kind = "tpcc"`: the TPC-C-like transactions (`pgrig tpcc run`) over the
// data `pgrig tpcc init` loads.  Every tpcc workload of a plan uses the same
// load, so `warehouses` must agree between them; the load gets the
// functions when any of them runs `procedures`.
struct TpccParams {
  // A count or a per-core expression ("4*cores"), resolved on the machine
  // measured; at most tpcc::kMaxWarehouses.
  CountExpr warehouses{.constant = 1, .per_core = 0, .divisor = 1, .text = "1"};
  bool procedures = false;
  int check_warehouses = 0;  // conditions 1-4 after each run on this many; 0: all
  int max_tries = 10;        // serialization failures and deadlocks retried
};

struct Workload {
  std::string name;  // unique in the plan: [a-z0-9_-]+
  WorkloadKind kind = WorkloadKind::kPgbench;
  LioParams lio;      // with kLio
  FsyncParams fsync;  // with kFsync
  TpccParams tpcc;    // with kTpcc
  // kPgbench: at least one, total weight > 0; empty for the other kinds.
  std::vector<ScriptRef> scripts;
  // True when the scripts modify data (built-ins: tpcb-like, simple-update;
  // files: the `writes` key, default true).  Drives VacuumPolicy.
  bool writes = false;
  // -D NAME=VALUE definitions.
  std::map<std::string, std::string> defines;
  // Per-workload overrides of the plan's lists (empty: use the plan's).
  // For kLio, `clients` is the total session count (the `sessions` key).
  std::vector<CountExpr> clients;
  std::vector<CountExpr> threads;
  std::vector<script::QueryMode> protocols;
  // Profile the server on one run of each of this workload's cells
  // (docs/profiles.md); unset: the plan's `profile`.
  std::optional<bool> profile;
};

// A named set of PostgreSQL settings for some cells ("jit-on": jit=on,
// jit_above_cost=1000).  Which ones are per-connection and which need the
// server changed is decided by the runner from pg_settings.context.
struct SettingsVariant {
  std::string name;                             // [a-z0-9_-]+, unique
  std::map<std::string, std::string> settings;  // name -> value as PostgreSQL takes it
};

// A PostgreSQL build a plan makes when it is not there yet: what
// `pgrig pg build SOURCE --name NAME --profile PROFILE --cflags CFLAGS
// --configure OPTION...` makes (pgbuild/builder.h).  `pgrig run` builds it
// before the suite starts and uses it as it is when it exists with the same
// profile and flags.
struct BuildEntry {
  std::string name;
  std::string source;                  // a tarball or source tree, absolute
  std::string profile = "default";     // pgbuild::ProfileName's spelling
  std::string cflags;                  // added to the profile's
  std::vector<std::string> configure;  // added to the profile's
  int line = 0;                        // of its [[build]] table
};

struct Plan {
  std::string name;  // from the file name unless given
  std::string description;
  std::string source_path;  // absolute path of the TOML file ("" for built-in defaults)
  std::string source_text;  // the file as read, kept in the suite for provenance

  SizeTarget size = SizeTarget::kScale;
  int scale = 10;           // with kScale
  int init_partitions = 0;  // pgbench -i --partitions (0: none)

  std::vector<Workload> workloads;
  std::vector<CountExpr> clients;            // default for every workload
  std::vector<CountExpr> threads;            // empty: min(clients, cpus)
  std::vector<script::QueryMode> protocols;  // default {kSimple}
  std::vector<SettingsVariant> variants;     // empty: one variant without settings
  // Settings applied to every cell (e.g. the published method's
  // shared_buffers and work_mem); server-level ones are restored at the end.
  std::map<std::string, std::string> settings;

  double duration_s = 10;
  double warmup_s = 0;
  int iterations = 3;
  std::optional<double> rate_tps;          // -R
  std::optional<double> latency_limit_ms;  // -L
  int max_tries = 1;                       // --max-tries

  bool checkpoint_between_runs = true;
  VacuumPolicy vacuum = VacuumPolicy::kWriteWorkloads;
  // Profile the server with perf on the last iteration of every cell
  // (pgbench workloads; a workload's own `profile` wins).
  bool profile = false;
  // PostgreSQL builds to compare (docs/plans.md "Builds"): empty, the one
  // server the suite is given; else each name once, kInstalledBuild or a
  // `pgrig pg list` name, and the matrix is repeated per build.
  std::vector<std::string> builds;
  // How to make those of `builds` that may be missing (`[[build]]`), in
  // file order; each one's name is in `builds` (an entry `builds` does not
  // list joins it after the names it lists).
  std::vector<BuildEntry> build_entries;
};

// The build name of the server pgrig finds without a build (the installed
// PostgreSQL or PGRIG_PG_BINDIR's).
inline constexpr const char kInstalledBuild[] = "installed";

// Parses a plan file.  Unknown keys, wrong types and bad values are errors
// whose message names the file, the line and the key, and for an unknown
// key suggests the closest valid one ("plans/x.toml:7: unknown key
// 'iteration' in [plan]; did you mean 'iterations'?").  kInvalidArgument.
Result<Plan> ReadPlanFile(const std::string& path);
// The same from text; `path` is used in messages and to resolve script paths.
Result<Plan> ParsePlan(const std::string& text, const std::string& path);

// True when some workload of the plan is of kind `k`.
bool HasWorkloadKind(const Plan& plan, WorkloadKind k);
// The plan's fsync workload, or nullptr.
const Workload* FsyncWorkload(const Plan& plan);

// One point of the matrix.
struct Cell {
  // Stable across machines and runs, used to match cells in comparisons and
  // to resume: "<workload>/<protocol>/<variant>/c<clients>/j<threads>"
  // (variant "default" when the plan has none).  A lio cell is
  // "<workload>/prepared/<variant>/c<sessions>/j<sessions>": its sessions
  // run prepared range SELECTs, one thread each.  In a plan with builds the
  // id ends in "@<build>" ("rw/simple/default/c8/j2@native").
  std::string id;
  int build = -1;    // index into Plan::builds, -1: the plan has none
  int workload = 0;  // index into Plan::workloads
  int variant = -1;  // index into Plan::variants, -1: none
  script::QueryMode protocol = script::QueryMode::kSimple;
  int clients = 1;
  int threads = 1;
};

// The matrix for a machine with `cpus` usable CPUs, in plan order (build,
// workload, protocol, variant, clients, threads), duplicates removed, threads
// clamped to clients; fsync workloads make no cells.  Fails when the matrix
// is empty.
Result<std::vector<Cell>> ExpandPlan(const Plan& plan, int64_t cpus);

// The order of the cells in iteration `iteration` (0-based): the plan order
// rotated left by `iteration` places, so that no cell always runs first or
// last.  Returns indexes into the cell vector.
std::vector<int> IterationOrder(size_t cell_count, int iteration);

// The order of the runs of iteration `iteration` over ExpandPlan's cells:
// IterationOrder() when the plan has no builds; otherwise build by build
// (one cluster runs at a time), the builds rotated by `iteration` places
// and each build's cells rotated the same way.  Indexes into `cells`.
std::vector<int> RunOrder(const std::vector<Cell>& cells, int iteration);

// The cell id without its "@<build>" (the same point of the matrix on
// another build); `id` itself when it has none.
std::string_view CellIdWithoutBuild(std::string_view id);

// Names for messages and records.
const char* SizeTargetName(SizeTarget t);  // "scale", "fits_shared_buffers", ...

}  // namespace pgrig::plan

#endif  // PGRIG_PLAN_PLAN_H_
