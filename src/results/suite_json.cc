#include "results/suite_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/clock.h"
#include "common/enum_names.h"
#include "common/fs.h"
#include "common/strings.h"
#include "cost/per_dollar.h"
#include "results/cell_summary.h"
#include "results/histogram_json.h"
#include "results/metrics.h"
#include "results/reader.h"
#include "results/result_json.h"
#include "results/schemas.h"
#include "stats/distributions.h"
#include "stats/histogram.h"
#include "stats/summary.h"

namespace pgrig::results {

namespace {

using nlohmann::json;

json CountsJson(const std::vector<plan::CountExpr>& v) {
  json a = json::array();
  for (const auto& c : v) a.push_back(c.text.empty() ? std::to_string(c.constant) : c.text);
  return a;
}

json ProtocolsJson(const std::vector<script::QueryMode>& v) {
  json a = json::array();
  for (auto m : v) a.push_back(script::QueryModeName(m));
  return a;
}

const char* VacuumName(plan::VacuumPolicy p) {
  static constexpr const char* kNames[] = {"never", "write_workloads", "always"};
  return NameAt<plan::VacuumPolicy::kAlways>(p, kNames, "write_workloads");
}

// j[key] on a const json is undefined behaviour when the key is missing (an
// assertion in debug builds), and a lio run's result lacks the pgbench
// keys: every read of a stored suite goes through At().
const json& At(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string Str(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

double Num(const json& j, const char* key, double fallback = 0) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
  return j[key].get<double>();
}

std::string NumText(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

// 1234567 -> "1.23M", 12345 -> "12.3k".
std::string Compact(double v) {
  if (v >= 1e9) return NumText(v / 1e9, 2) + "G";
  if (v >= 1e6) return NumText(v / 1e6, 2) + "M";
  if (v >= 1e4) return NumText(v / 1e3, 1) + "k";
  return NumText(v, 0);
}

// The suite's fsync test (pgrig.fsync/1): one row per test, best method first.
std::string FsyncMarkdown(const json& f) {
  const json& sum = At(f, "summary");
  std::string out =
      "\n## WAL flushes (fsync test of " + Str(At(f, "options"), "dir") + ", once)\n\n";
  if (At(sum, "best_method").is_string()) {
    out += "Best method: " + Str(sum, "best_method") + ", " +
           NumText(Num(sum, "best_ops_per_s"), 0) + " flushes/s (" +
           std::to_string(static_cast<int64_t>(Num(sum, "headline_write_bytes"))) + " B, 1 writer)";
    if (At(sum, "server_wal_sync_method").is_string()) {
      out += "; the server uses " + Str(sum, "server_wal_sync_method");
      if (At(sum, "server_method_ops_per_s").is_number())
        out += " (" + NumText(Num(sum, "server_method_ops_per_s"), 0) + " flushes/s)";
    }
    out += ".\n\n";
  } else if (At(sum, "leading_method").is_string() && At(sum, "runner_up_method").is_string()) {
    out += "No method is significantly best: " + Str(sum, "leading_method") + " leads " +
           Str(sum, "runner_up_method") + " by " + NumText(Num(sum, "leader_over_runner_up"), 2) +
           "x";
    const json& ci = At(sum, "leader_over_runner_up_ci95");
    if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
      out += " [95% interval " + NumText(ci[0].get<double>(), 2) + ", " +
             NumText(ci[1].get<double>(), 2) + "]";
    }
    out += ".\n\n";
  }
  out +=
      "| method | write bytes | writers | flushes/s | p50 ms | p99 ms "
      "|\n|---|---|---|---|---|---|\n";
  for (const json& t : At(f, "tests")) {
    const json& lat = At(t, "latency_ms");
    out += "| " + Str(t, "label") + " | " + std::to_string(t.value("write_bytes", 0)) + " | " +
           std::to_string(t.value("writers", 0)) + " | " +
           (At(t, "ops_per_s").is_number() ? NumText(At(t, "ops_per_s").get<double>(), 0)
                                           : "n/a: " + Str(t, "unavailable_reason")) +
           " | " + (lat.is_object() ? NumText(Num(lat, "p50"), 3) : "-") + " | " +
           (lat.is_object() ? NumText(Num(lat, "p99"), 3) : "-") + " |\n";
  }
  return out;
}

}  // namespace

const char* CellMetric(plan::WorkloadKind k) {
  switch (k) {
    case plan::WorkloadKind::kLio:
      return kMetricLio;
    case plan::WorkloadKind::kTpcc:
      return kMetricNopm;
    default:
      return kMetricTps;
  }
}

json PlanToJson(const plan::Plan& plan) {
  json workloads = json::array();
  for (const auto& w : plan.workloads) {
    json scripts = json::array();
    for (const auto& s : w.scripts) {
      scripts.push_back({{"kind", s.kind == plan::ScriptRef::Kind::kFile ? "file" : "builtin"},
                         {"spec", s.spec},
                         {"weight", s.weight}});
    }
    json defines = json::object();
    for (const auto& [k, v] : w.defines) defines[k] = v;
    json lio = nullptr, fsync = nullptr, tpcc = nullptr;
    if (w.kind == plan::WorkloadKind::kLio) {
      lio = {{"tables", w.lio.tables},
             {"blocks_per_table",
              w.lio.blocks_per_table ? json(*w.lio.blocks_per_table) : json(nullptr)},
             {"size", w.lio.size_text},
             {"work_unit", w.lio.work_unit},
             {"update_pct", w.lio.update_pct},
             {"update_work_unit", w.lio.update_work_unit}};
    } else if (w.kind == plan::WorkloadKind::kFsync) {
      fsync = {{"dir", w.fsync.dir.empty() ? json(nullptr) : json(w.fsync.dir)},
               {"seconds_per_test", w.fsync.seconds_per_test},
               {"write_sizes", w.fsync.write_sizes},
               {"writers", w.fsync.writers}};
    } else if (w.kind == plan::WorkloadKind::kTpcc) {
      tpcc = {{"warehouses", w.tpcc.warehouses.text},
              {"procedures", w.tpcc.procedures},
              {"check_warehouses",
               w.tpcc.check_warehouses > 0 ? json(w.tpcc.check_warehouses) : json(nullptr)},
              {"max_tries", w.tpcc.max_tries}};
    }
    workloads.push_back({{"name", w.name},
                         {"kind", plan::WorkloadKindName(w.kind)},
                         {"lio", lio},
                         {"fsync", fsync},
                         {"tpcc", tpcc},
                         {"scripts", scripts},
                         {"writes", w.writes},
                         {"defines", defines},
                         {"clients", CountsJson(w.clients)},
                         {"threads", CountsJson(w.threads)},
                         {"protocols", ProtocolsJson(w.protocols)},
                         {"profile", w.profile ? json(*w.profile) : json(nullptr)}});
  }
  json variants = json::array();
  for (const auto& v : plan.variants)
    variants.push_back({{"name", v.name}, {"settings", v.settings}});
  return json{
      {"name", plan.name},
      {"description", plan.description},
      {"size", plan::SizeTargetName(plan.size)},
      {"scale", plan.size == plan::SizeTarget::kScale &&
                        plan::HasWorkloadKind(plan, plan::WorkloadKind::kPgbench)
                    ? json(plan.scale)
                    : json(nullptr)},
      {"init_partitions", plan.init_partitions},
      {"workloads", workloads},
      {"clients", CountsJson(plan.clients)},
      {"threads", CountsJson(plan.threads)},
      {"protocols", ProtocolsJson(plan.protocols)},
      {"variants", variants},
      {"settings", plan.settings},
      {"duration_s", plan.duration_s},
      {"warmup_s", plan.warmup_s},
      {"iterations", plan.iterations},
      {"rate_tps", plan.rate_tps ? json(*plan.rate_tps) : json(nullptr)},
      {"latency_limit_ms", plan.latency_limit_ms ? json(*plan.latency_limit_ms) : json(nullptr)},
      {"max_tries", plan.max_tries},
      {"checkpoint_between_runs", plan.checkpoint_between_runs},
      {"vacuum", VacuumName(plan.vacuum)},
      {"profile", plan.profile},
      {"builds", plan.builds}};
}

json CellToJson(const plan::Plan& plan, const plan::Cell& cell) {
  const plan::Workload& w = plan.workloads[static_cast<size_t>(cell.workload)];
  const std::string variant =
      cell.variant >= 0 ? plan.variants[static_cast<size_t>(cell.variant)].name : "default";
  return json{{"id", cell.id},
              {"workload", w.name},
              {"kind", plan::WorkloadKindName(w.kind)},
              {"metric", CellMetric(w.kind)},
              {"writes", w.writes},
              {"protocol", script::QueryModeName(cell.protocol)},
              {"variant", variant},
              {"clients", cell.clients},
              {"threads", cell.threads},
              {"build", cell.build >= 0 ? json(plan.builds[static_cast<size_t>(cell.build)])
                                        : json(nullptr)}};
}

json TpsSummaryJson(const std::vector<double>& tps) {
  if (tps.empty()) return nullptr;
  const stats::Summary s = stats::Summarize(tps);
  json out{{"n", s.n},
           {"median", s.median},
           {"min", s.min},
           {"max", s.max},
           {"mean", s.mean},
           {"stddev", s.stddev},
           {"samples", tps},
           {"geomean", nullptr},
           {"ci95_low", nullptr},
           {"ci95_high", nullptr}};
  // The interval lives in stats (GeometricMeanInterval); with one run, or a
  // run of zero tps, there is a geometric mean at most and no interval.
  if (auto est = stats::GeometricMeanInterval(tps); est.ok()) {
    out["geomean"] = est->geometric_mean;
    out["ci95_low"] = est->interval.low;
    out["ci95_high"] = est->interval.high;
  } else if (tps.size() == 1 && tps[0] > 0) {
    out["geomean"] = tps[0];
  }
  return out;
}

void UpdateCellSummaries(json& suite) {
  const json& price = At(suite, "price");
  for (json& cell : suite["cells"]) {
    const std::string id = At(cell, "id").get<std::string>();
    // The headline of the cell's runs: "tps" (pgbench.result/1 summary.tps),
    // "lio_per_s" (pgrig.lio/1 summary.lio_per_s) or "nopm" (a tpcc run's
    // tpcc.nopm), higher is better; only tps is priced.
    std::string metric = Str(cell, "metric");
    if (metric.empty()) metric = kMetricTps;
    const bool not_tps = metric != kMetricTps;
    // The runs as pgrig report reads them, summed up by the same function, so
    // that the summary written here is what report and compare print.
    Cell model;
    model.id = id;
    model.metric = metric;
    std::vector<std::string> unreadable;
    for (const json& run : At(suite, "runs")) {
      if (Str(run, "cell") != id) continue;
      Result<Run> r = ReadSuiteRunJson(run, "run " + std::to_string(run.value("run", 0)));
      if (r.ok()) {
        model.runs.push_back(std::move(r).value());
      } else {
        unreadable.push_back(r.status().message());
      }
    }
    CellSummary cs = SummarizeCell(model);
    cs.notes.insert(cs.notes.end(), unreadable.begin(), unreadable.end());
    const std::vector<double>& tps = cs.tps;
    json summary{{"runs", tps.size()},
                 {"failed_runs", cs.runs_failed},
                 {"metric", metric},
                 {"tps", not_tps ? json(nullptr) : TpsSummaryJson(tps)}};
    if (not_tps) summary[metric] = TpsSummaryJson(tps);
    const stats::Histogram& merged = cs.latency;
    if (merged.count() > 0) {
      static constexpr double kPs[] = {50, 90, 95, 99, 99.9};
      const std::vector<int64_t> v = merged.ValuesAtPercentiles(kPs);
      summary["latency_ms"] = {{"avg", merged.mean() / 1e6},  {"p50", NsToMs(v[0])},
                               {"p90", NsToMs(v[1])},         {"p95", NsToMs(v[2])},
                               {"p99", NsToMs(v[3])},         {"p99_9", NsToMs(v[4])},
                               {"max", NsToMs(merged.max())}, {"transactions", merged.count()}};
    } else {
      summary["latency_ms"] = nullptr;
    }
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    summary["client_cpu_us_per_transaction"] = opt(cs.client_cpu_us_per_transaction);
    summary["server_cpu_us_per_transaction"] = opt(cs.server_cpu_us_per_transaction);
    summary["server_cpu_source"] =
        cs.server_cpu_source.empty() ? json(nullptr) : json(cs.server_cpu_source);
    if (!cs.bottleneck.empty()) {
      summary["bottleneck"] = {{"kind", cs.bottleneck},
                               {"runs", cs.bottleneck_runs},
                               {"of_runs", tps.size()},
                               {"evidence", cs.bottleneck_evidence},
                               {"warnings", cs.warnings}};
    } else {
      summary["bottleneck"] = nullptr;
    }
    std::vector<std::string> notes = cs.notes;
    summary["per_dollar"] = nullptr;
    if (!not_tps && price.is_object() && !tps.empty() && Num(price, "usd_per_hour") > 0) {
      const json& t = At(summary, "tps");
      cost::MeasuredRun m;
      m.file = id;
      m.tps = At(t, "median").get<double>();
      m.tps_samples = tps;
      if (!At(t, "ci95_low").is_null()) {
        m.tps_ci95 =
            cost::Interval{At(t, "ci95_low").get<double>(), At(t, "ci95_high").get<double>()};
      }
      auto pd = m.tps > 0 ? cost::ComputePerDollar(m, Num(price, "usd_per_hour"))
                          : Result<cost::PerDollar>(InvalidArgument("no transactions"));
      if (pd.ok()) {
        json pj{{"transactions_per_usd", pd->transactions_per_usd},
                {"usd_per_million_transactions", pd->usd_per_million_transactions},
                {"transactions_per_usd_ci95", nullptr},
                {"usd_per_million_transactions_ci95", nullptr}};
        if (pd->transactions_per_usd_ci95) {
          pj["transactions_per_usd_ci95"] = {pd->transactions_per_usd_ci95->low,
                                             pd->transactions_per_usd_ci95->high};
        }
        if (pd->usd_per_million_transactions_ci95) {
          pj["usd_per_million_transactions_ci95"] = {pd->usd_per_million_transactions_ci95->low,
                                                     pd->usd_per_million_transactions_ci95->high};
        }
        summary["per_dollar"] = pj;
      }
    }
    summary["notes"] = notes;
    cell["summary"] = summary;
  }
}

std::string RunsCsv(const json& suite) {
  std::string out =
      "run,cell,workload,protocol,variant,clients,threads,iteration,status,started_at,ended_at,"
      "duration_s,tps,transactions,failed_transactions,latency_ms_avg,latency_ms_p50,"
      "latency_ms_p99,client_cpu_us_per_transaction,bottleneck,error,lio_per_s,"
      "server_cpu_us_per_transaction,disturbed_other_cpu_pct,nopm\n";
  std::map<std::string, json> cells;
  for (const json& c : At(suite, "cells")) cells[At(c, "id").get<std::string>()] = c;
  for (const json& run : At(suite, "runs")) {
    const json& c = cells[Str(run, "cell")];
    const json& r = At(run, "result");
    const bool has = r.is_object();
    const bool lio_run = has && Str(r, "schema") == results::kLioResultSchema;
    const bool txn = has && !lio_run;  // a pgrig.result/1 run: tps and transactions
    const json& lat = has ? At(r, "latency_ms") : json();
    std::vector<std::string> f = {
        std::to_string(run.value("run", 0)),
        Str(run, "cell"),
        Str(c, "workload"),
        Str(c, "protocol"),
        Str(c, "variant"),
        std::to_string(c.value("clients", 0)),
        std::to_string(c.value("threads", 0)),
        std::to_string(run.value("iteration", 0)),
        Str(run, "status"),
        Str(run, "started_at"),
        Str(run, "ended_at"),
        has ? NumText(Num(At(r, "summary"), "duration_s"), 3) : "",
        txn ? NumText(Num(At(r, "summary"), "tps"), 3) : "",
        txn ? std::to_string(At(r, "summary").value("transactions", int64_t{0})) : "",
        txn ? std::to_string(At(r, "summary").value("failed_transactions", int64_t{0})) : "",
        lat.is_object() ? NumText(Num(lat, "avg"), 3) : "",
        lat.is_object() ? NumText(Num(lat, "p50"), 3) : "",
        lat.is_object() ? NumText(Num(lat, "p99"), 3) : "",
        txn ? NumText(Num(At(r, "summary"), "client_cpu_us_per_transaction"), 2) : "",
        At(run, "bottleneck").is_object() ? Str(At(run, "bottleneck"), "kind") : "",
        Str(run, "error"),
        lio_run ? NumText(Num(At(r, "summary"), kMetricLio), 1) : "",
        txn && At(At(r, "summary"), "server_cpu_us_per_transaction").is_number()
            ? NumText(Num(At(r, "summary"), "server_cpu_us_per_transaction"), 2)
            : "",  // not measured (a remote server): empty, never 0
        At(run, "disturbed").is_object() ? NumText(Num(At(run, "disturbed"), "other_cpu_pct"), 1)
                                         : "",  // empty: not disturbed (or not measured)
        txn && At(At(r, "tpcc"), kMetricNopm).is_number()
            ? NumText(Num(At(r, "tpcc"), kMetricNopm), 1)
            : "",  // a tpcc run's, when it gave one
    };
    for (size_t i = 0; i < f.size(); ++i) {
      if (i > 0) out += ',';
      out += CsvField(f[i]);
    }
    out += '\n';
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> CellWarnings(const json& suite) {
  std::vector<std::pair<std::string, std::string>> out;
  const json& cells = At(suite, "cells");
  if (!cells.is_array()) return out;
  for (const json& c : cells) {
    const json& warnings = At(At(At(c, "summary"), "bottleneck"), "warnings");
    if (!warnings.is_array()) continue;
    for (const json& w : warnings) {
      if (w.is_string()) out.emplace_back(Str(c, "id"), w.get<std::string>());
    }
  }
  return out;
}

std::string CellTable(const json& suite) {
  const bool priced = At(suite, "price").is_object();
  // lio cells count logical reads, not transactions (their values say lio/s);
  // the heading names that unit only when such a cell is there.
  // The heading names the units the cells hold: tps, lio/s, NOPM.
  std::vector<std::string> units;
  for (const char* m : kMetrics) {
    for (const json& c : At(suite, "cells")) {
      std::string cm = Str(At(c, "summary"), "metric");
      if (cm.empty()) cm = kMetricTps;
      if (cm == m) {
        units.push_back(MetricUnit(cm));
        break;
      }
    }
  }
  if (units.empty()) units.push_back(MetricUnit(kMetricTps));
  std::string headline = units[0];
  for (size_t i = 1; i < units.size(); ++i)
    headline += (i + 1 == units.size() ? " or " : ", ") + units[i];
  std::string out = std::string("| cell | runs | ") + headline +
                    " median [95% interval] | min-max | p50 ms | p99 ms | client CPU us/txn | "
                    "server CPU us/txn | bottleneck |";
  out += priced ? " txn per USD [95% interval] |\n" : "\n";
  out += "|---|---|---|---|---|---|---|---|---|";
  out += priced ? "---|\n" : "\n";
  bool estimated = false;
  for (const json& c : At(suite, "cells")) {
    const json& s = At(c, "summary");
    if (!s.is_object()) continue;
    const std::string metric = Str(s, "metric");
    // A tps cell's figures are under "tps" (so is an old cell's, which has
    // no metric); a lio or NOPM cell's under its metric, its unit shown.
    const bool tps_cell = metric != kMetricLio && metric != kMetricNopm;
    const json& t = At(s, tps_cell ? kMetricTps : metric.c_str());
    std::string tps = "-", range = "-";
    if (t.is_object()) {
      tps = NumText(At(t, "median").get<double>(), 1);
      if (!At(t, "ci95_low").is_null()) {
        tps += " [" + NumText(At(t, "ci95_low").get<double>(), 1) + ", " +
               NumText(At(t, "ci95_high").get<double>(), 1) + "]";
      }
      if (!tps_cell) tps += std::string(" ") + MetricUnit(metric);
      range = NumText(At(t, "min").get<double>(), 1) + "-" + NumText(At(t, "max").get<double>(), 1);
    }
    const json& lat = At(s, "latency_ms");
    std::string runs = std::to_string(s.value("runs", 0));
    if (s.value("failed_runs", 0) > 0)
      runs += " (" + std::to_string(s.value("failed_runs", 0)) + " failed)";
    out += "| " + Str(c, "id") + " | " + runs + " | " + tps + " | " + range + " | " +
           (lat.is_object() ? NumText(Num(lat, "p50"), 3) : "-") + " | " +
           (lat.is_object() ? NumText(Num(lat, "p99"), 3) : "-") + " | " +
           (At(s, "client_cpu_us_per_transaction").is_number()
                ? NumText(At(s, "client_cpu_us_per_transaction").get<double>(), 1)
                : "-") +
           " | " +
           (At(s, "server_cpu_us_per_transaction").is_number()
                // "~": estimated (the host's busy CPU minus the client's) for some runs.
                ? (Str(s, "server_cpu_source") == "measured" ? "" : "~") +
                      NumText(At(s, "server_cpu_us_per_transaction").get<double>(), 1)
                : "-") +
           " | " + (At(s, "bottleneck").is_object() ? Str(At(s, "bottleneck"), "kind") : "-") +
           " |";
    if (priced) {
      const json& pd = At(s, "per_dollar");
      std::string v = "-";
      if (pd.is_object()) {
        v = Compact(At(pd, "transactions_per_usd").get<double>());
        if (At(pd, "transactions_per_usd_ci95").is_array()) {
          v += " [" + Compact(At(pd, "transactions_per_usd_ci95")[0].get<double>()) + ", " +
               Compact(At(pd, "transactions_per_usd_ci95")[1].get<double>()) + "]";
        }
      }
      out += " " + v + " |";
    }
    out += "\n";
    estimated = estimated || (At(s, "server_cpu_us_per_transaction").is_number() &&
                              Str(s, "server_cpu_source") != "measured");
  }
  if (estimated) {
    out +=
        "\n~: server CPU estimated as the host's busy CPU minus the client's (some runs have "
        "no reading of the server's processes).\n";
  }
  return out;
}

std::string SummaryMarkdown(const json& suite) {
  std::string out = "# pgrig run: " + Str(suite, "label") + "\n\n";
  const json& plan = At(suite, "plan");
  out += "- plan: " + Str(plan, "name");
  if (!Str(plan, "source_path").empty()) out += " (" + Str(plan, "source_path") + ")";
  out += "\n";
  if (At(suite, "scale").is_object()) {
    out += "- scale: " + std::to_string(At(suite, "scale").value("value", 0)) + " (" +
           Str(At(suite, "scale"), "reason") + ")\n";
  }
  if (suite.contains("lio") && At(suite, "lio").is_object()) {
    out += "- lio tables: " + Str(At(suite, "lio"), "reason") + "\n";
  }
  out += "- server: " + Str(At(suite, "target"), "description") + "\n";
  out += "- started " + Str(suite, "started_at") + ", ";
  out += At(suite, "ended_at").is_string() ? "ended " + Str(suite, "ended_at")
                                           : std::string("not ended");
  out += "; complete: " + std::string(suite.value("complete", false) ? "yes" : "no");
  if (At(suite, "stop_reason").is_string()) out += " (" + Str(suite, "stop_reason") + ")";
  out += "\n";
  if (At(suite, "price").is_object()) {
    out += "- price: " + NumText(Num(At(suite, "price"), "usd_per_hour"), 4) + " USD/hour";
    if (!Str(At(suite, "price"), "instance_type").empty())
      out += " (" + Str(At(suite, "price"), "instance_type") + ")";
    out += ", from " + Str(At(suite, "price"), "from") + "\n";
  }
  out += "\n" + CellTable(suite);
  if (suite.contains("fsync") && At(suite, "fsync").is_object())
    out += FsyncMarkdown(At(suite, "fsync"));
  std::string notes;
  for (const json& c : At(suite, "cells")) {
    const json& s = At(c, "summary");
    if (!s.is_object() || !At(s, "bottleneck").is_object()) continue;
    const json& b = At(s, "bottleneck");
    notes += "- " + Str(c, "id") + ": " + Str(b, "kind") + " in " +
             std::to_string(b.value("runs", 0)) + " of " + std::to_string(b.value("of_runs", 0)) +
             " runs; " + Str(b, "evidence") + "\n";
    for (const auto& w : At(b, "warnings")) notes += "  - warning: " + w.get<std::string>() + "\n";
  }
  if (!notes.empty()) out += "\n## Bottlenecks\n\n" + notes;
  std::string disturbed;
  for (const json& run : At(suite, "runs")) {
    const json& d = At(run, "disturbed");
    if (!d.is_object()) continue;
    disturbed += "- run " + std::to_string(run.value("run", 0)) + " (" + Str(run, "cell") +
                 ", iteration " + std::to_string(run.value("iteration", 0)) +
                 "): other processes took " + NumText(Num(d, "other_cpu_pct"), 1) +
                 "% of the host's CPU and steal " + NumText(Num(d, "steal_pct"), 1) +
                 "% (threshold " + NumText(Num(d, "threshold_pct"), 0) + "%)\n";
  }
  if (!disturbed.empty()) {
    out +=
        "\n## Disturbed runs\n\nThese runs shared the host with other work; their figures "
        "understate the machine.\n\n" +
        disturbed;
  }
  std::string failures;
  for (const json& run : At(suite, "runs")) {
    if (Str(run, "status") == "ok") continue;
    failures += "- run " + std::to_string(run.value("run", 0)) + " (" + Str(run, "cell") +
                ", iteration " + std::to_string(run.value("iteration", 0)) +
                "): " + Str(run, "error") + "\n";
  }
  if (!failures.empty()) out += "\n## Failed runs\n\n" + failures;
  out +=
      "\ntps: median of the iterations, [95% t interval of the geometric mean, log scale]; latency "
      "percentiles from the merged histograms of the cell's runs. Every run, with its histogram, "
      "per-second series and observation, is in suite.json; one row per run in runs.csv.\n";
  return out;
}

Status WriteSuiteFiles(const std::string& dir, const json& suite) {
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(dir + "/suite.json", suite.dump() + "\n"));
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(dir + "/runs.csv", RunsCsv(suite)));
  return WriteFileAtomically(dir + "/summary.md", SummaryMarkdown(suite));
}

}  // namespace pgrig::results
