#include "results/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "plan/plan.h"
#include "results/histogram_json.h"
#include "results/json_read.h"
#include "results/metrics.h"
#include "results/schemas.h"

namespace pgrig::results {
namespace {

using Json = nlohmann::json;

std::optional<double> Number(const Json& root, std::initializer_list<const char*> path) {
  const Json* j = FindPath(root, path);
  if (j == nullptr || !j->is_number()) return std::nullopt;
  return j->get<double>();
}

std::optional<int64_t> Integer(const Json& root, std::initializer_list<const char*> path) {
  const Json* j = FindPath(root, path);
  if (j == nullptr || !j->is_number()) return std::nullopt;
  return j->get<int64_t>();
}

std::string String(const Json& root, std::initializer_list<const char*> path) {
  const Json* j = FindPath(root, path);
  if (j == nullptr) return "";
  if (j->is_string()) return j->get<std::string>();
  if (j->is_number() || j->is_boolean()) return j->dump();
  return "";
}

bool Bool(const Json& root, std::initializer_list<const char*> path, bool fallback) {
  const Json* j = FindPath(root, path);
  return j != nullptr && j->is_boolean() ? j->get<bool>() : fallback;
}

// The suite's per-run observation (observe/observation.h): host means in
// percent, server counter totals over the window, sampled wait events.
Observation ReadObservation(const Json& o) {
  Observation ob;
  auto pct = [&](const char* key) -> std::optional<double> {
    auto v = Number(o, {"host_mean", key});
    if (v) return *v / 100.0;
    return std::nullopt;
  };
  ob.cpu_user = pct("cpu_user_pct");
  ob.cpu_system = pct("cpu_system_pct");
  ob.cpu_iowait = pct("cpu_iowait_pct");
  ob.cpu_steal = pct("cpu_steal_pct");
  ob.cpu_idle = pct("cpu_idle_pct");
  ob.read_bytes_per_s = Number(o, {"host_mean", "disk_read_bytes_per_s"});
  ob.write_bytes_per_s = Number(o, {"host_mean", "disk_write_bytes_per_s"});
  ob.server_is_local = Bool(o, {"server_is_local"}, false);
  if (auto cpus = Integer(o, {"host_cpus"})) ob.host_cpus = static_cast<int>(*cpus);
  ob.host_duration_s = Number(o, {"host_mean", "duration_s"});
  ob.wal_bytes = Number(o, {"server_totals", "wal_bytes"});
  const auto timed = Integer(o, {"server_totals", "checkpoints_timed"});
  const auto req = Integer(o, {"server_totals", "checkpoints_req"});
  if (timed || req) ob.checkpoints = timed.value_or(0) + req.value_or(0);
  if (const Json* samples = FindPath(o, {"server"}); samples != nullptr && samples->is_array()) {
    for (const Json& x : *samples) {
      const int64_t n = Integer(x, {"checkpoints_timed"}).value_or(0) +
                        Integer(x, {"checkpoints_req"}).value_or(0);
      if (n > 0) {
        if (auto t = Number(x, {"t_s"})) ob.checkpoint_times_s.push_back(*t);
      }
    }
  }
  if (const Json* w = FindPath(o, {"wait_events"}); w != nullptr && w->is_object()) {
    for (const auto& [k, v] : w->items()) {
      if (v.is_number()) ob.wait_events[k] = v.get<int64_t>();
    }
  }
  return ob;
}

// What was observed around one run, kept beside it: "observation" and
// "bottleneck" ({"kind", "evidence", "warnings"}), in a suite's run or at
// the top of a fleet's merged pgrig.result/1.  Absent keys leave `run` as is.
void ReadObservationOf(const Json& holder, Run* run) {
  if (const Json* o = FindPath(holder, {"observation"}); o != nullptr && o->is_object()) {
    run->observation = ReadObservation(*o);
  }
  if (const Json* d = FindPath(holder, {"disturbed"}); d != nullptr && d->is_object()) {
    run->observation.disturbed_other = Number(*d, {"other_cpu_pct"}).value_or(0) / 100.0;
  }
  if (const Json* b = FindPath(holder, {"bottleneck"}); b != nullptr && b->is_object()) {
    run->observation.bottleneck = String(*b, {"kind"});
    run->observation.bottleneck_evidence = String(*b, {"evidence"});
    if (const Json* w = FindPath(*b, {"warnings"}); w != nullptr && w->is_array()) {
      for (const Json& x : *w) {
        if (x.is_string()) run->observation.warnings.push_back(x.get<std::string>());
      }
    }
  }
}

// The measured part of one pgrig.result/1 document, or of a lio cell's
// pgrig.lio/1 document (its headline is summary.lio_per_s).
Result<Run> ReadResultRun(const Json& r, const std::string& where) {
  Run run;
  const bool lio = String(r, {"schema"}) == results::kLioResultSchema;
  const char* headline = lio ? kMetricLio : kMetricTps;
  std::optional<double> tps = Number(r, {"summary", headline});
  if (!tps) {
    return InvalidArgument(where + ": summary." + headline + " is missing or not a number");
  }
  // A rate is a measurement only inside [kMinRate, kMaxRate] per second;
  // zero is a real outcome (a run that measured nothing): a failed run.
  if (!std::isfinite(*tps) || *tps < 0 || (*tps > 0 && *tps < kMinRate) || *tps > kMaxRate) {
    return InvalidArgument(fmt::format(
        "{}: summary.{} is {}: a rate must be 0 (nothing measured) or lie in [{:g}, {:g}] per "
        "second",
        where, headline, *tps, kMinRate, kMaxRate));
  }
  run.tps = *tps;
  run.duration_s = Number(r, {"summary", "duration_s"}).value_or(0);
  run.ok = Bool(r, {"complete"}, true);
  if (!run.ok) run.error = String(r, {"abort_message"});
  if (run.ok && run.tps == 0) {
    run.ok = false;
    run.error = fmt::format("summary.{} is 0: the run measured nothing", headline);
  }
  if (const Json* h = FindPath(r, {"histogram"}); h != nullptr && h->is_object()) {
    PGRIG_ASSIGN_OR_RETURN(run.histogram, results::PackedHistogramFromJson(*h, where));
  }
  if (lio) return run;  // no transactions, client CPU or per-second series
  // A `tpcc run`'s headline is its NOPM (never compared with a tps); a run
  // that gave none is a failed run, with the first reason it recorded.
  if (const Json* tpcc = FindPath(r, {"tpcc"}); tpcc != nullptr && tpcc->is_object()) {
    const std::optional<double> nopm = Number(r, {"tpcc", kMetricNopm});
    // Per minute: the per-second ceiling times 60.
    if (nopm && (!std::isfinite(*nopm) || *nopm < 0 || *nopm > 60 * kMaxRate)) {
      return InvalidArgument(fmt::format(
          "{}: tpcc.nopm is {}: New-Orders per minute must be null (none) or lie in [0, {:g}]",
          where, *nopm, 60 * kMaxRate));
    }
    run.tps = nopm.value_or(0);
    if (!nopm || !std::isfinite(*nopm) || *nopm <= 0) {
      run.ok = false;
      const Json* why = FindPath(r, {"tpcc", "refused"});
      run.error = why != nullptr && why->is_array() && !why->empty() && (*why)[0].is_string()
                      ? "no NOPM: " + (*why)[0].get<std::string>()
                      : "no NOPM";
    }
  }
  run.client_cpu_us_per_transaction = Number(r, {"client", "cpu_us_per_transaction"});
  if (auto u = Number(r, {"client", "cpu_user_s"})) {
    run.client_cpu_s = *u + Number(r, {"client", "cpu_system_s"}).value_or(0);
  }
  run.server_cpu_us_per_transaction = Number(r, {"summary", "server_cpu_us_per_transaction"});
  if (const Json* sp = FindPath(r, {"server_profile"}); sp != nullptr) {
    PGRIG_ASSIGN_OR_RETURN(run.server_profile, results::ServerProfileFromJson(*sp, where));
  }
  run.transactions = Integer(r, {"transactions", "processed"});
  run.client_saturated = Bool(r, {"client", "bottleneck"}, false);
  run.series_interval_s = Number(r, {"series", "interval_s"}).value_or(1);
  if (const Json* iv = FindPath(r, {"series", "intervals"}); iv != nullptr && iv->is_array()) {
    double prev_end = 0;
    double last_len = run.series_interval_s;
    for (const Json& i : *iv) {
      if (i.is_object() && i.contains("tps") && i["tps"].is_number()) {
        run.tps_series.push_back(i["tps"].get<double>());
        const double end = Number(i, {"end_s"}).value_or(prev_end + run.series_interval_s);
        last_len = end - prev_end;
        prev_end = end;
      }
    }
    // The run's last interval when it is a sliver (the clients finishing
    // after the duration): a handful of transactions over a few
    // milliseconds is no rate to draw beside whole intervals.
    if (run.tps_series.size() > 1 && last_len < 0.5 * run.series_interval_s) {
      run.tps_series.pop_back();
    }
  }
  return run;
}

std::string CellId(const Cell& c) {
  return fmt::format("{}/{}/{}/c{}/j{}", c.workload, c.protocol, c.variant, c.clients, c.threads);
}

// Facts, server version and settings: the same in both schemas.
void ReadFacts(const Json& facts, Suite& s) {
  s.facts = facts;
  if (const Json* v = FindPath(facts, {"server", "version_num"}); v != nullptr && v->is_number()) {
    const int64_t num = v->get<int64_t>();
    s.pg_major = static_cast<int>(num >= 100000 ? num / 10000 : num / 100);
    s.pg_version = fmt::format("{}.{}", num / 10000, num % 10000);
  }
  if (const Json* st = FindPath(facts, {"server", "settings"}); st != nullptr && st->is_object()) {
    for (const auto& [k, v] : st->items()) {
      if (v.is_object() && v.contains("setting") && v["setting"].is_string()) {
        s.server_settings[k] = v["setting"].get<std::string>();
      }
    }
  }
  for (const char* key : kServerBuildFacts) {
    if (const Json* v = FindPath(facts, {"server", "build", key}); v != nullptr && v->is_string()) {
      s.server_build[key] = v->get<std::string>();
    }
  }
  if (s.instance_type.empty()) s.instance_type = String(facts, {"host", "cloud", "instance_type"});
}

// tpcc.warehouses of `doc` (a suite, or a run's result) into *out when it
// is there; `where` names `doc` in the error for anything but a whole number
// of at least 1.
Status ReadTpccWarehouses(const Json& doc, const std::string& where, std::optional<int64_t>* out) {
  const Json* w = FindPath(doc, {"tpcc", "warehouses"});
  if (w == nullptr || w->is_null()) return Status::Ok();
  if (!w->is_number_integer() || w->get<int64_t>() < 1) {
    return InvalidArgument(
        fmt::format("{}: tpcc.warehouses is {}: a whole number of at least 1", where, w->dump()));
  }
  *out = w->get<int64_t>();
  return Status::Ok();
}

Result<Suite> FromResult(const Json& doc, const std::string& source) {
  Suite s;
  s.source = source;
  s.schema = results::kResultSchema;
  s.label = std::filesystem::path(source).stem().string();
  s.suite_id = String(doc, {"started_at"}) + "/" + s.label;
  s.started_at = String(doc, {"started_at"});
  s.scale = Integer(doc, {"options", "scale"});
  PGRIG_RETURN_IF_ERROR(ReadTpccWarehouses(doc, source, &s.tpcc_warehouses));
  s.usd_per_hour = Number(doc, {"run", "usd_per_hour"});
  s.instance_type = String(doc, {"run", "instance_type"});
  if (const Json* f = FindPath(doc, {"facts"})) ReadFacts(*f, s);
  if (s.pg_version.empty()) s.pg_version = String(doc, {"server", "version"});
  Cell c;
  const Json* scripts = FindPath(doc, {"scripts"});
  c.workload = scripts != nullptr && scripts->is_array() && scripts->size() == 1
                   ? String((*scripts)[0], {"spec"})
                   : "mixed";
  if (c.workload.empty()) c.workload = "script";
  c.protocol = String(doc, {"options", "query_mode"});
  c.variant = "default";
  c.clients = static_cast<int>(Integer(doc, {"options", "clients"}).value_or(1));
  c.threads = static_cast<int>(Integer(doc, {"options", "threads"}).value_or(1));
  // `pgrig tpcc run`: a cell of its own workload whose headline is NOPM
  // (never compared with a tps); a run that gave no NOPM is a failed run.
  const Json* tpcc = FindPath(doc, {"tpcc"});
  if (tpcc != nullptr && tpcc->is_object()) {
    c.workload = "tpcc";
    c.metric = kMetricNopm;
  }
  c.id = CellId(c);
  PGRIG_ASSIGN_OR_RETURN(Run run, ReadResultRun(doc, source));
  ReadObservationOf(doc, &run);  // `pgrig fleet run`'s merged result has one
  s.complete = run.ok;
  c.runs.push_back(std::move(run));
  s.cells.push_back(std::move(c));
  return s;
}

// One element of the suite's "runs": status, the run's pgrig.result/1
// under "result" (null when it failed before measuring), "observation" and
// "bottleneck" ({"kind", "evidence", "warnings"}).
Result<Run> ReadSuiteRun(const Json& r, const std::string& where) {
  Run run;
  const std::string status = String(r, {"status"});
  if (const Json* result = FindPath(r, {"result"}); result != nullptr && result->is_object()) {
    PGRIG_ASSIGN_OR_RETURN(run, ReadResultRun(*result, where));
  } else if (status == "ok") {
    return InvalidArgument(where + ": status \"ok\" but no \"result\"");
  }
  // A run that says ok but measured nothing (a rate of 0) is a failed run.
  const bool measured_nothing = status == "ok" && run.tps == 0;
  run.ok = status == "ok" && !measured_nothing;
  if (measured_nothing) {
    run.error = "its rate is 0: the run measured nothing";
  } else if (!run.ok) {
    run.error = String(r, {"error"});
    if (run.error.empty()) run.error = "status \"" + status + "\"";
  }
  run.iteration = static_cast<int>(Integer(r, {"iteration"}).value_or(0));
  ReadObservationOf(r, &run);
  return run;
}

Result<Cell> ReadCell(const Json& c, const std::string& where) {
  Cell cell;
  cell.workload = String(c, {"workload"});
  cell.protocol = String(c, {"protocol"});
  cell.variant = String(c, {"variant"});
  if (cell.variant.empty()) cell.variant = "default";
  cell.build = String(c, {"build"});
  cell.clients = static_cast<int>(Integer(c, {"clients"}).value_or(0));
  cell.threads = static_cast<int>(Integer(c, {"threads"}).value_or(0));
  if (cell.workload.empty() || cell.protocol.empty() || cell.clients <= 0) {
    return InvalidArgument(where + ": a cell needs workload, protocol and clients > 0");
  }
  if (cell.threads <= 0) cell.threads = 1;
  cell.id = String(c, {"id"});
  if (cell.id.empty()) cell.id = CellId(cell);
  cell.metric = String(c, {"metric"});
  if (cell.metric.empty()) {
    const std::string kind = String(c, {"kind"});
    cell.metric = MetricOfKind(String(c, {"kind"}));
  }
  // settings: {"per_connection": {...}, "server": {...}} as the runner split them.
  for (const char* part : {"per_connection", "server"}) {
    if (const Json* st = FindPath(c, {"settings", part}); st != nullptr && st->is_object()) {
      for (const auto& [k, v] : st->items())
        cell.settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  return cell;
}

// suite.fsync: the pgrig.fsync/1 document of the plan's fsync workload.
Result<FsyncRecord> ReadFsync(const Json& f, const std::string& where) {
  if (String(f, {"schema"}) != results::kFsyncSchema) {
    return InvalidArgument(where + ": \"fsync\" is not a " + results::kFsyncSchema + " document");
  }
  FsyncRecord r;
  r.dir = String(f, {"options", "dir"});
  r.best_method = String(f, {"summary", "best_method"});
  r.leading_method = String(f, {"summary", "leading_method"});
  r.best_ops_per_s = Number(f, {"summary", "best_ops_per_s"});
  r.best_p99_ms = Number(f, {"summary", "best_latency_ms_p99"});
  if (auto b = Integer(f, {"summary", "headline_write_bytes"})) {
    r.headline_write_bytes = static_cast<int>(*b);
  }
  r.server_method = String(f, {"summary", "server_wal_sync_method"});
  r.server_method_ops_per_s = Number(f, {"summary", "server_method_ops_per_s"});
  r.memory_file_system = Bool(f, {"summary", "memory_file_system"}, false);
  if (const Json* tests = FindPath(f, {"tests"}); tests != nullptr && tests->is_array()) {
    for (const Json& t : *tests) {
      FsyncTest x;
      x.label = String(t, {"label"});
      x.method = String(t, {"method"});
      x.o_direct = Bool(t, {"o_direct"}, false);
      x.write_bytes = static_cast<int>(Integer(t, {"write_bytes"}).value_or(0));
      x.writers = static_cast<int>(Integer(t, {"writers"}).value_or(0));
      x.ops_per_s = Number(t, {"ops_per_s"});
      x.p50_ms = Number(t, {"latency_ms", "p50"});
      x.p99_ms = Number(t, {"latency_ms", "p99"});
      x.unavailable = String(t, {"unavailable_reason"});
      r.tests.push_back(std::move(x));
    }
  }
  return r;
}

// Suite fields a standalone pgrig.lio/1 or pgrig.fsync/1 document shares:
// label from the file name, id, start, facts, server version.
Suite StandaloneSuite(const Json& doc, const std::string& source, const char* schema) {
  Suite s;
  s.source = source;
  s.schema = schema;
  s.label = std::filesystem::path(source).stem().string();
  s.started_at = String(doc, {"started_at"});
  s.suite_id = s.started_at + "/" + s.label;
  s.complete = Bool(doc, {"complete"}, true);
  if (const Json* f = FindPath(doc, {"facts"})) ReadFacts(*f, s);
  if (s.pg_version.empty()) s.pg_version = String(doc, {"server", "version"});
  if (!s.pg_major) {
    if (auto num = Integer(doc, {"server", "version_num"}); num && *num > 0) {
      s.pg_major = static_cast<int>(*num >= 100000 ? *num / 10000 : *num / 100);
    }
  }
  return s;
}

// `pgrig lio run --json`: a suite of one lio cell ("lio", its sessions as
// clients and threads, as a plan's lio cell) and one run.  The table layout
// and work unit go into the plan name, so that compare flags two runs of
// different shapes as different plans.
Result<Suite> FromLio(const Json& doc, const std::string& source) {
  Suite s = StandaloneSuite(doc, source, results::kLioResultSchema);
  s.plan_name =
      fmt::format("pgrig lio run: {} tables of {} blocks, work unit {}, {}% updates, {} driver",
                  String(doc, {"options", "tables"}), String(doc, {"options", "blocks_per_table"}),
                  String(doc, {"options", "work_unit"}), String(doc, {"options", "update_pct"}),
                  String(doc, {"options", "driver"}));
  Cell c;
  c.workload = "lio";
  c.protocol = "prepared";
  c.variant = "default";
  c.metric = kMetricLio;
  auto sessions = Integer(doc, {"summary", "sessions"});
  if (!sessions) sessions = Integer(doc, {"options", "sessions"});
  if (!sessions || *sessions <= 0) {
    return InvalidArgument(source + ": " + results::kLioResultSchema +
                           " document without summary.sessions > 0; was it cut short?");
  }
  c.clients = c.threads = static_cast<int>(*sessions);
  c.id = CellId(c);
  PGRIG_ASSIGN_OR_RETURN(Run run, ReadResultRun(doc, source));
  if (!run.ok) {
    s.complete = false;
    s.warnings.push_back(source + ": the lio run was interrupted");
  }
  c.runs.push_back(std::move(run));
  s.cells.push_back(std::move(c));
  return s;
}

// `pgrig fsync --json`: a suite without cells, holding only the fsync test.
Result<Suite> FromFsync(const Json& doc, const std::string& source) {
  Suite s = StandaloneSuite(doc, source, results::kFsyncSchema);
  PGRIG_ASSIGN_OR_RETURN(s.fsync, ReadFsync(doc, source));
  if (!s.complete) s.warnings.push_back(source + ": the fsync test was interrupted");
  return s;
}

Result<Suite> FromSuite(const Json& doc, const std::string& source, const std::string& schema) {
  Suite s;
  s.source = source;
  s.schema = schema;
  s.suite_id = String(doc, {"suite_id"});
  s.label = String(doc, {"label"});
  if (s.label.empty()) {
    s.label = std::filesystem::path(source).parent_path().filename().string();
  }
  if (s.suite_id.empty()) s.suite_id = s.label + "@" + String(doc, {"started_at"});
  s.complete = Bool(doc, {"complete"}, true);
  s.started_at = String(doc, {"started_at"});
  s.plan_name = String(doc, {"plan", "name"});
  s.plan_text = String(doc, {"plan", "source_text"});
  s.scale = Integer(doc, {"scale", "value"});
  if (!s.scale) s.scale = Integer(doc, {"plan", "parsed", "scale"});
  PGRIG_RETURN_IF_ERROR(ReadTpccWarehouses(doc, source, &s.tpcc_warehouses));
  s.usd_per_hour = Number(doc, {"price", "usd_per_hour"});
  s.instance_type = String(doc, {"price", "instance_type"});
  if (const Json* f = FindPath(doc, {"facts"})) ReadFacts(*f, s);

  const Json* cells = FindPath(doc, {"cells"});
  if (cells == nullptr || !cells->is_array()) {
    return InvalidArgument(source + ": " + schema + " document without a \"cells\" array");
  }
  for (size_t i = 0; i < cells->size(); ++i) {
    const std::string where = fmt::format("{}: cells[{}]", source, i);
    PGRIG_ASSIGN_OR_RETURN(Cell cell, ReadCell((*cells)[i], where));
    for (size_t j = 0; j < s.cells.size(); ++j) {
      if (s.cells[j].id == cell.id) {
        return InvalidArgument(fmt::format(
            "{}: cell \"{}\" appears twice (cells[{}] and cells[{}])", source, cell.id, j, i));
      }
    }
    s.cells.push_back(std::move(cell));
  }
  // Runs are kept at the top level in the order they ran, each naming its cell.
  if (const Json* runs = FindPath(doc, {"runs"}); runs != nullptr && runs->is_array()) {
    for (size_t k = 0; k < runs->size(); ++k) {
      const std::string where = fmt::format("{}: runs[{}]", source, k);
      const std::string cell_id = String((*runs)[k], {"cell"});
      auto it = std::find_if(s.cells.begin(), s.cells.end(),
                             [&](const Cell& c) { return c.id == cell_id; });
      if (it == s.cells.end()) {
        return InvalidArgument(where + ": names cell \"" + cell_id +
                               "\", which is not in \"cells\"");
      }
      PGRIG_ASSIGN_OR_RETURN(Run run, ReadSuiteRun((*runs)[k], where));
      it->runs.push_back(std::move(run));
      // A suite written before its "tpcc" section was: the runs say.
      if (!s.tpcc_warehouses) {
        if (const Json* result = FindPath((*runs)[k], {"result"}); result != nullptr) {
          PGRIG_RETURN_IF_ERROR(
              ReadTpccWarehouses(*result, where + ": result", &s.tpcc_warehouses));
        }
      }
    }
  }
  if (const Json* f = FindPath(doc, {"fsync"}); f != nullptr && f->is_object()) {
    PGRIG_ASSIGN_OR_RETURN(s.fsync, ReadFsync(*f, source));
  }
  if (const Json* b = FindPath(doc, {"builds"}); b != nullptr && b->is_array()) {
    for (size_t i = 0; i < b->size(); ++i) {
      const std::string name = String((*b)[i], {"name"});
      if (name.empty()) {
        return InvalidArgument(fmt::format("{}: builds[{}] has no \"name\"", source, i));
      }
      const Json* server = FindPath((*b)[i], {"server"});
      s.builds.push_back({name, server != nullptr ? *server : Json(nullptr)});
    }
  }
  for (const Cell& c : s.cells) {
    if (!c.build.empty() &&
        std::none_of(s.builds.begin(), s.builds.end(),
                     [&](const SuiteBuildRecord& r) { return r.name == c.build; })) {
      return InvalidArgument(
          fmt::format("{}: cell \"{}\" names build \"{}\", which is not in "
                      "\"builds\"",
                      source, c.id, c.build));
    }
  }
  if (!s.complete)
    s.warnings.push_back(source + ": the suite is marked incomplete (it stopped early)");
  return s;
}

}  // namespace

Result<Suite> ParseSuiteJson(std::string_view text, const std::string& source) {
  PGRIG_ASSIGN_OR_RETURN(Json doc, ParseJsonObject(text, source, "a pgrig results document"));
  const std::string schema = String(doc, {"schema"});
  if (schema == results::kSuiteSchema || schema == results::kSuiteSchemaV1) {
    return FromSuite(doc, source, schema);
  }
  if (schema == results::kResultSchema) return FromResult(doc, source);
  if (schema == results::kLioResultSchema) return FromLio(doc, source);
  if (schema == results::kFsyncSchema) return FromFsync(doc, source);
  if (schema.empty()) {
    return InvalidArgument(
        source + ": no \"schema\" key; expected \"" + results::kSuiteSchema + "\" (pgrig run), \"" +
        results::kResultSchema + "\" (pgrig bench --json), \"" + results::kLioResultSchema +
        "\" (pgrig lio run --json) or \"" + results::kFsyncSchema + "\" (pgrig fsync --json)");
  }
  return InvalidArgument(source + ": schema \"" + schema + "\" is not one this pgrig reads (\"" +
                         results::kSuiteSchema + "\", \"" + results::kResultSchema + "\", \"" +
                         results::kLioResultSchema + "\", \"" + results::kFsyncSchema +
                         "\"); a newer pgrig may have written it");
}

std::vector<Suite> SplitByBuild(const Suite& suite) {
  std::vector<Suite> out;
  if (suite.builds.size() < 2) return out;
  for (const SuiteBuildRecord& b : suite.builds) {
    Suite part;
    part.source = suite.source;
    part.schema = suite.schema;
    part.suite_id = suite.suite_id + "@" + b.name;
    part.label = b.name;
    part.complete = suite.complete;
    part.started_at = suite.started_at;
    part.plan_name = suite.plan_name;
    part.plan_text = suite.plan_text;
    part.scale = suite.scale;
    part.usd_per_hour = suite.usd_per_hour;
    part.instance_type = suite.instance_type;
    part.warnings = suite.warnings;
    Json facts = suite.facts.is_object() ? suite.facts : Json::object();
    facts["server"] = b.server;
    ReadFacts(facts, part);
    for (const Cell& c : suite.cells) {
      if (c.build != b.name) continue;
      Cell cell = c;
      cell.id = std::string(plan::CellIdWithoutBuild(c.id));
      cell.build.clear();
      part.cells.push_back(std::move(cell));
    }
    out.push_back(std::move(part));
  }
  return out;
}

Result<Run> ReadSuiteRunJson(const nlohmann::json& run, const std::string& where) {
  return ReadSuiteRun(run, where);
}

Result<Suite> LoadSuite(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) {
    file = (std::filesystem::path(path) / "suite.json").string();
    if (!std::filesystem::exists(file, ec)) {
      return NotFound(path + " has no suite.json: is it a `pgrig run` results directory?");
    }
  } else if (!std::filesystem::exists(path, ec)) {
    return NotFound(path + ": no such file or directory");
  }
  PGRIG_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file));
  return ParseSuiteJson(text, file);
}

}  // namespace pgrig::results
