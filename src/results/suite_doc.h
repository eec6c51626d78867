// The suite document pgrig.suite/2 as a typed struct: the runner fills a
// SuiteDoc and never spells a key; SuiteDocToJson is its one writer and
// SuiteDocFromJson its one reader for --resume (report reads suites through
// reader.h into its model).  docs/results-format.md documents every key.
//
// The documents a suite embeds stay what their own writers made: each run's
// pgrig.result/1 or pgrig.lio/1 (result_json.h, lio_json.h), its observation
// and bottleneck (observe), the suite's pgrig.fsync/1 (wal_flush_json.h), the
// facts, the parsed plan and the cells' identities (suite_json.h).  Cell
// summaries are not kept here: SuiteDocToJson recomputes them from the runs
// (UpdateCellSummaries) every time it writes.
// Plain value types and pure functions; thread-compatible.
#ifndef PGRIG_RESULTS_SUITE_DOC_H_
#define PGRIG_RESULTS_SUITE_DOC_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "plan/plan.h"

namespace pgrig::results {

// One (cell, iteration) measured: "runs"[i].
struct SuiteRun {
  int run = 0;  // 1, 2, ... in the order runs were made (kept across --resume)
  std::string cell;
  int iteration = 0;  // 0-based
  int position = 0;   // 1-based place in its iteration's order
  bool ok = false;    // "status": "ok" or "failed"
  std::optional<std::string> error;
  std::string started_at;
  std::optional<std::string> ended_at;
  std::vector<std::string> before_run;  // the SQL run before it (VACUUM, CHECKPOINT)
  int warmup_s = 0;
  std::map<std::string, std::string> server_settings;  // applied for this cell
  nlohmann::json result = nullptr;       // pgrig.result/1 or pgrig.lio/1; null when none
  nlohmann::json observation = nullptr;  // null when not observed
  nlohmann::json bottleneck = nullptr;
  nlohmann::json disturbed = nullptr;  // observation_json.h DisturbedJson; null: not disturbed
  std::vector<std::string> notes;
};

struct SuiteScale {
  int value = 0;
  std::string reason;
  bool loaded = false;  // pgrig loaded the tables for this suite
};

// The lio tables the suite's lio cells read.
struct SuiteLio {
  int tables = 0;
  int64_t blocks_per_table = 0;
  std::string size;  // as the plan wrote it
  std::string reason;
  bool loaded = false;
};

// The TPC-C-like data the suite's tpcc cells ran on (`pgrig tpcc init`'s
// tables, made or reused by the runner).
struct SuiteTpcc {
  int warehouses = 0;       // as the plan's count resolved on this machine
  bool procedures = false;  // the cells call the transactions' functions (made with the data)
  // pgrig loaded the data for this suite (in any attempt); false: the
  // database already held these warehouses and the suite reused them, with
  // the orders earlier runs added (a database that has grown).
  bool loaded = false;
};

// One PostgreSQL build of a plan with builds (plan::Plan::builds): its name
// and what facts found of its server (pgrig.facts/1's "server": version,
// build with compiler, cflags, configure and atomics, settings).
struct SuiteBuild {
  std::string name;
  nlohmann::json server = nullptr;  // null until the build's cluster has run
};

struct SuitePrice {
  double usd_per_hour = 0;
  std::string instance_type;  // "" when given as a bare price
  std::string from;
};

struct SuiteDoc {
  std::string tool_version;
  std::vector<std::string> command_line;  // redacted
  std::string label;
  std::string started_at;
  std::optional<std::string> ended_at;
  std::vector<std::string> resumed_at;
  bool complete = false;
  std::optional<std::string> stop_reason;  // runner::SuiteEndName
  std::optional<double> wall_s;            // summed over attempts
  int cpus = 1;
  // The plan as run: its name, description, file and text (what --resume
  // compares), and PlanToJson's parse.
  std::string plan_name;
  std::string plan_description;
  std::string plan_source_path;
  std::string plan_source_text;
  nlohmann::json plan_parsed = nullptr;
  std::string target_description;  // redacted
  bool target_embedded = false;
  bool target_local = true;
  std::optional<SuiteScale> scale;  // none without pgbench workloads
  std::optional<SuiteLio> lio;      // none without lio workloads
  std::optional<SuiteTpcc> tpcc;    // none without tpcc workloads
  nlohmann::json fsync = nullptr;   // the plan's fsync test: pgrig.fsync/1 with "workload"
  nlohmann::json facts = nullptr;   // pgrig.facts/1 (with builds: the first build's server)
  std::vector<SuiteBuild> builds;   // the plan's builds, in its order; empty without
  std::map<std::string, std::string> settings_all_cells;
  bool settings_server_changed = false;
  std::optional<bool> settings_restored;  // none until the end of an attempt
  std::optional<SuitePrice> price;
  int iterations = 1;
  // Each cell's identity (CellToJson) with its "settings"; the summaries are
  // the writer's.
  nlohmann::json cells = nlohmann::json::array();
  std::vector<SuiteRun> runs;
  std::vector<std::string> notes;
};

// A cell's identity and its settings split as the runner applies them.
nlohmann::json SuiteCellJson(const plan::Plan& plan, const plan::Cell& cell,
                             const std::map<std::string, std::string>& per_connection,
                             const std::map<std::string, std::string>& server);

// The document, cell summaries recomputed from the runs.
nlohmann::json SuiteDocToJson(const SuiteDoc& doc);

// A suite.json read back (--resume).  InvalidArgument naming `where` and the
// key when the document is neither a pgrig.suite/2 nor a /1 (an older pgrig's, resumed as /2).
Result<SuiteDoc> SuiteDocFromJson(const nlohmann::json& j, const std::string& where);

// The same from suite.json's text; `file` names it in errors (with line and
// column for a syntax error).
Result<SuiteDoc> ParseSuiteDoc(std::string_view text, const std::string& file);

// The cells' ids, in the suite's order.
std::vector<std::string> SuiteCellIds(const SuiteDoc& doc);

// (cell id, iteration) of every finished ("ok") run.
std::vector<std::pair<std::string, int>> FinishedRuns(const SuiteDoc& doc);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_SUITE_DOC_H_
