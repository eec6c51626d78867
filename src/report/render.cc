// Terminal text, markdown, CSV and JSON renderings, and the dispatch to the
// HTML renderer (render_html.cc).
#include "report/render.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "cost/render.h"
#include "report/profile_tables.h"
#include "report/render_html.h"
#include "report/tables.h"
#include "results/metrics.h"
#include "results/profile_json.h"

namespace pgrig::report {
namespace {

using Json = nlohmann::json;

std::string Header(const results::Suite& s) {
  std::string out = fmt::format("{} ({})", s.label, s.source);
  if (!s.plan_name.empty()) out += ", plan " + s.plan_name;
  if (s.scale) out += fmt::format(", scale {}", *s.scale);
  if (s.tpcc_warehouses) out += fmt::format(", {} TPC-C-like warehouses", *s.tpcc_warehouses);
  if (!s.pg_version.empty()) out += ", PostgreSQL " + s.pg_version;
  if (s.usd_per_hour) out += fmt::format(", {:.4f} USD/hour", *s.usd_per_hour);
  if (!s.complete) out += ", INCOMPLETE";
  return out;
}

std::string TextTable(const Table& t) {
  std::string out = t.title + "\n";
  if (!t.rows.empty()) out += cost::RenderTable(t.headers, t.rows, t.right);
  if (!t.note.empty()) out += "  " + t.note + "\n";
  return out + "\n";
}

std::string MdEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string MarkdownTable(const Table& t) {
  std::string out = "## " + t.title + "\n\n";
  if (t.rows.empty()) return t.note.empty() ? out : out + t.note + "\n\n";
  out += "|";
  for (const auto& h : t.headers) out += " " + MdEscape(h) + " |";
  out += "\n|";
  for (bool r : t.right) out += r ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) out += " " + MdEscape(c) + " |";
    out += "\n";
  }
  if (!t.note.empty()) out += "\n" + t.note + "\n";
  return out + "\n";
}

std::string CsvRow(const std::vector<std::string>& f) {
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + CsvField(f[i]);
  return out + "\n";
}

Json OptJson(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json IntervalJson(const std::optional<stats::Interval>& iv) {
  return iv ? Json{iv->low, iv->high} : Json(nullptr);
}

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }
Json OptRound3(const std::optional<double>& v) { return v ? Json(Round3(*v)) : Json(nullptr); }

// A cell's profiled run (report/analysis.h's Profiled), or null: the
// categories and top functions as results/profile_json.h spells them.
Json CellProfileJson(const CellStats& c) {
  if (!c.profiled) return nullptr;
  const CellStats::Profiled& p = *c.profiled;
  return {
      {"iteration", p.iteration + 1},
      {"tps", p.tps},
      {"tps_vs_unprofiled", OptRound3(p.tps_vs_unprofiled)},
      {"server_cpu_us_per_transaction", OptRound3(p.server_cpu_us_per_transaction)},
      {"samples", p.profile.samples},
      {"unresolved_leaf_pct", Round3(p.profile.Pct(p.profile.unresolved_leaf_samples))},
      {"frame_pointers", p.frame_pointers.empty() ? Json(nullptr) : Json(p.frame_pointers)},
      {"hardware_counters",
       p.hardware_counters ? results::HardwareCountersToJson(*p.hardware_counters) : Json(nullptr)},
      {"categories", results::ProfileCategoriesJson(p.profile)},
      {"top_functions", results::ProfileTopFunctionsJson(p.profile, 10)},
      {"folded_stacks", p.folded_path.empty() ? Json(nullptr) : Json(p.folded_path)}};
}

// One ShareGap: "category" or "function" and "object", then the two sides.
Json ShareGapJson(const ShareGap& g, const char* name_key) {
  Json j = {{name_key, g.name}};
  if (!g.object.empty()) j["object"] = g.object;
  j["other_pct"] = OptRound3(g.a_pct);
  j["base_pct"] = OptRound3(g.b_pct);
  j["diff_points"] = Round3(g.Pp());
  j["other_us_per_transaction"] = OptRound3(g.a_us);
  j["base_us_per_transaction"] = OptRound3(g.b_us);
  j["diff_us_per_transaction"] = OptRound3(g.Us());
  return j;
}

// compare's "profile_diffs" for suites[index] against the base.
Json ProfileDiffsJson(const Comparison& c, size_t index) {
  Json out = Json::array();
  for (const ProfileDiff& d : ProfileDiffs(c, index)) {
    Json cats = Json::array(), fns = Json::array();
    for (const ShareGap& g : d.categories) cats.push_back(ShareGapJson(g, "category"));
    for (const ShareGap& g : d.functions) fns.push_back(ShareGapJson(g, "function"));
    out.push_back({{"cell", d.cell},
                   {"other_us_per_transaction", OptRound3(d.a_us)},
                   {"base_us_per_transaction", OptRound3(d.b_us)},
                   {"other_ipc", OptRound3(d.a_ipc)},
                   {"base_ipc", OptRound3(d.b_ipc)},
                   {"headline", d.headline},
                   {"tps_verdict", d.tps_verdict},
                   {"categories", std::move(cats)},
                   {"functions", std::move(fns)}});
  }
  return out;
}

Json CellJson(const CellStats& c) {
  Json lat = nullptr;
  if (!c.latency_ms.empty()) {
    lat = {{"avg", OptJson(c.latency_ms_avg)}, {"p50", c.latency_ms[0]},
           {"p90", c.latency_ms[1]},           {"p95", c.latency_ms[2]},
           {"p99", c.latency_ms[3]},           {"p99_9", c.latency_ms[4]}};
  }
  return {{"id", c.id},
          {"workload", c.workload},
          {"kind", WorkloadKindName(c.kind)},
          {"metric", c.metric},
          {"protocol", c.protocol},
          {"variant", c.variant},
          {"clients", c.clients},
          {"threads", c.threads},
          {"runs_ok", c.runs_ok},
          {"runs_failed", c.runs_failed},
          {"tps_samples", c.tps},
          {"tps_median", c.runs_ok ? Json(c.tps_summary.median) : Json(nullptr)},
          {"tps_min", c.runs_ok ? Json(c.tps_summary.min) : Json(nullptr)},
          {"tps_max", c.runs_ok ? Json(c.tps_summary.max) : Json(nullptr)},
          {"tps_geomean", OptJson(c.tps_summary.geometric_mean)},
          {"tps_ci95", IntervalJson(c.tps_ci)},
          {"latency_ms", lat},
          {"client_cpu_us_per_transaction", OptJson(c.client_cpu_us_per_transaction)},
          {"server_cpu_us_per_transaction", OptJson(c.server_cpu_us_per_transaction)},
          {"server_cpu_source",
           c.server_cpu_source.empty() ? Json(nullptr) : Json(c.server_cpu_source)},
          {"client_saturated", c.client_saturated},
          {"steal_fraction_max", OptJson(c.steal_max)},
          {"runs_disturbed", c.runs_disturbed},
          {"disturbed_fraction_max", OptJson(c.disturbed_max)},
          {"bottleneck", c.bottleneck.empty() ? Json(nullptr) : Json(c.bottleneck)},
          {"bottleneck_evidence", c.bottleneck_evidence},
          {"transactions_per_usd", OptJson(c.transactions_per_usd)},
          {"transactions_per_usd_ci95", IntervalJson(c.transactions_per_usd_ci)},
          {"profile", CellProfileJson(c)}};
}

Json MismatchesJson(const std::vector<Mismatch>& m) {
  Json a = Json::array();
  for (const Mismatch& x : m)
    a.push_back({{"kind", MismatchKindName(x.kind)}, {"message", x.message}});
  return a;
}

Json ClaimsJson(const std::vector<ClaimCheck>& claims) {
  Json a = Json::array();
  for (const ClaimCheck& c : claims) {
    Json cells = Json::array();
    for (const CellClaim& x : c.cells) {
      cells.push_back({{"cell", x.cell},
                       {"verdict", ClaimVerdictName(x.verdict)},
                       {"measured", OptJson(x.measured)},
                       {"interval", IntervalJson(x.interval)},
                       {"confidence", x.confidence},
                       {"iterations", {x.n_a, x.n_b}},
                       {"iterations_to_decide",
                        x.iterations_to_decide ? Json(*x.iterations_to_decide) : Json(nullptr)},
                       {"reason", x.reason}});
    }
    a.push_back({{"claim", c.claim},
                 {"verdict", ClaimVerdictName(c.verdict)},
                 {"claimed", c.claimed},
                 {"tolerance", c.tolerance},
                 {"measured", OptJson(c.measured)},
                 {"interval", IntervalJson(c.interval)},
                 {"confidence", c.cells.size() == 1 ? Json(c.cells[0].confidence) : Json(nullptr)},
                 {"cells", std::move(cells)},
                 {"basis", c.basis}});
  }
  return a;
}

Json FsyncJson(const std::optional<results::FsyncRecord>& f) {
  if (!f) return nullptr;
  Json tests = Json::array();
  for (const results::FsyncTest& t : f->tests) {
    tests.push_back({{"label", t.label},
                     {"write_bytes", t.write_bytes},
                     {"writers", t.writers},
                     {"ops_per_s", OptJson(t.ops_per_s)},
                     {"latency_ms_p50", OptJson(t.p50_ms)},
                     {"latency_ms_p99", OptJson(t.p99_ms)},
                     {"unavailable", t.unavailable.empty() ? Json(nullptr) : Json(t.unavailable)}});
  }
  return {
      {"dir", f->dir},
      {"best_method", f->best_method.empty() ? Json(nullptr) : Json(f->best_method)},
      {"best_ops_per_s", OptJson(f->best_ops_per_s)},
      {"best_latency_ms_p99", OptJson(f->best_p99_ms)},
      {"server_wal_sync_method", f->server_method.empty() ? Json(nullptr) : Json(f->server_method)},
      {"server_method_ops_per_s", OptJson(f->server_method_ops_per_s)},
      {"memory_file_system", f->memory_file_system},
      {"tests", tests}};
}

Json SuiteJson(const SuiteStats& s) {
  Json cells = Json::array();
  for (const CellStats& c : s.cells) cells.push_back(CellJson(c));
  const results::Suite& su = *s.suite;
  return {{"label", su.label},
          {"suite_id", su.suite_id},
          {"source", su.source},
          {"schema", su.schema},
          {"complete", su.complete},
          {"plan", su.plan_name},
          {"scale", su.scale ? Json(*su.scale) : Json(nullptr)},
          {"tpcc_warehouses", su.tpcc_warehouses ? Json(*su.tpcc_warehouses) : Json(nullptr)},
          {"postgresql", su.pg_version},
          {"usd_per_hour", OptJson(su.usd_per_hour)},
          {"cells", cells},
          {"fsync", FsyncJson(su.fsync)}};
}

// CSV columns of a profiled cell: one per category, so that a spreadsheet
// holds every profile in the same columns.  Empty fields: not profiled.
std::vector<std::string> ProfileCsvHeaders() {
  std::vector<std::string> h = {"profile_iteration", "profile_samples",
                                "profile_server_cpu_us_per_transaction", "profile_top_function"};
  for (profile::Category c : profile::kAllCategories)
    h.push_back("profile_pct_" + std::string(profile::CategoryKey(c)));
  return h;
}

std::vector<std::string> ProfileCsvFields(const CellStats& c) {
  std::vector<std::string> f;
  if (!c.profiled) return std::vector<std::string>(ProfileCsvHeaders().size());
  const profile::Profile& p = c.profiled->profile;
  f.push_back(std::to_string(c.profiled->iteration + 1));
  f.push_back(std::to_string(p.samples));
  f.push_back(FigureText(c.profiled->server_cpu_us_per_transaction));
  f.push_back(p.top_functions.empty() ? "" : p.top_functions.front().function);
  for (profile::Category k : profile::kAllCategories)
    f.push_back(FigureText(Round3(p.Pct(p.category_samples[static_cast<size_t>(k)]))));
  return f;
}

// compare's: the two sides' server CPU per transaction and, per category,
// the gap in points and in µs per transaction (other minus base).
std::vector<std::string> ProfileDiffCsvHeaders() {
  std::vector<std::string> h = {"profile_other_us_per_transaction",
                                "profile_base_us_per_transaction"};
  for (profile::Category c : profile::kAllCategories)
    h.push_back("profile_gap_points_" + std::string(profile::CategoryKey(c)));
  for (profile::Category c : profile::kAllCategories)
    h.push_back("profile_gap_us_" + std::string(profile::CategoryKey(c)));
  return h;
}

std::vector<std::string> ProfileDiffCsvFields(const ProfileDiff* d) {
  if (d == nullptr) return std::vector<std::string>(ProfileDiffCsvHeaders().size());
  std::vector<std::string> f = {FigureText(d->a_us), FigureText(d->b_us)};
  std::vector<std::string> us;
  for (profile::Category c : profile::kAllCategories) {
    const ShareGap* g = nullptr;
    for (const ShareGap& x : d->categories) {
      if (x.name == profile::CategoryKey(c)) g = &x;
    }
    f.push_back(FigureText(g ? Round3(g->Pp()) : 0.0));
    us.push_back(g ? FigureText(g->Us() ? std::optional<double>(Round3(*g->Us())) : std::nullopt)
                   : (d->a_us && d->b_us ? FigureText(0.0) : ""));
  }
  f.insert(f.end(), us.begin(), us.end());
  return f;
}

std::string ReportCsv(const SuiteStats& s) {
  std::vector<std::string> headers = {"suite",
                                      "cell",
                                      "workload",
                                      "protocol",
                                      "variant",
                                      "clients",
                                      "threads",
                                      "runs_ok",
                                      "runs_failed",
                                      "tps_median",
                                      "tps_min",
                                      "tps_max",
                                      "tps_ci95_low",
                                      "tps_ci95_high",
                                      "latency_ms_p50",
                                      "latency_ms_p99",
                                      "client_cpu_us_per_transaction",
                                      "server_cpu_us_per_transaction",
                                      "bottleneck",
                                      "transactions_per_usd",
                                      "transactions_per_usd_ci95_low",
                                      "transactions_per_usd_ci95_high",
                                      "metric",
                                      "server_cpu_source"};
  for (std::string& h : ProfileCsvHeaders()) headers.push_back(std::move(h));
  std::string out = CsvRow(headers);
  for (const CellStats& c : s.cells) {
    std::vector<std::string> row = {s.suite->label};
    for (std::string& f : CellFigureFields(c)) row.push_back(std::move(f));
    row.push_back(c.transactions_per_usd_ci ? FigureText(c.transactions_per_usd_ci->low) : "");
    row.push_back(c.transactions_per_usd_ci ? FigureText(c.transactions_per_usd_ci->high) : "");
    row.push_back(c.metric);
    row.push_back(c.server_cpu_source);
    for (std::string& f : ProfileCsvFields(c)) row.push_back(std::move(f));
    out += CsvRow(row);
  }
  return out;
}

std::string CompareCsv(const Comparison& c) {
  std::vector<std::string> headers = {"base",
                                      "other",
                                      "cell",
                                      "tps_base_median",
                                      "tps_other_median",
                                      "tps_ratio",
                                      "tps_ratio_ci95_low",
                                      "tps_ratio_ci95_high",
                                      "welch_dof",
                                      "verdict",
                                      "latency_p50_ratio",
                                      "latency_p99_ratio",
                                      "per_dollar_ratio",
                                      "per_dollar_ratio_ci95_low",
                                      "per_dollar_ratio_ci95_high",
                                      "metric"};
  for (std::string& h : ProfileDiffCsvHeaders()) headers.push_back(std::move(h));
  std::string out = CsvRow(headers);
  for (size_t i = 1; i < c.suites.size(); ++i) {
    const std::vector<ProfileDiff> diffs = ProfileDiffs(c, i);
    for (const CellComparison& cc : c.cells[i - 1]) {
      const ProfileDiff* diff = nullptr;
      for (const ProfileDiff& d : diffs) {
        if (d.cell == cc.key) diff = &d;
      }
      std::optional<double> p50, p99;
      for (const LatencyRatio& l : cc.latency) {
        if (l.percentile == 50) p50 = l.ratio;
        if (l.percentile == 99) p99 = l.ratio;
      }
      std::vector<std::string> row = {
          c.suites[0]->suite->label,
          c.suites[i]->suite->label,
          cc.key,
          cc.b->runs_ok ? FigureText(cc.b->tps_summary.median) : "",
          cc.a->runs_ok ? FigureText(cc.a->tps_summary.median) : "",
          FigureText(cc.tps.ratio),
          cc.tps.interval ? FigureText(cc.tps.interval->low) : "",
          cc.tps.interval ? FigureText(cc.tps.interval->high) : "",
          cc.tps.interval ? FigureText(cc.tps.dof) : "",
          SpeedName(cc.speed),
          FigureText(p50),
          FigureText(p99),
          FigureText(cc.per_dollar_ratio),
          cc.per_dollar_interval ? FigureText(cc.per_dollar_interval->low) : "",
          cc.per_dollar_interval ? FigureText(cc.per_dollar_interval->high) : "",
          cc.a->metric};
      for (std::string& f : ProfileDiffCsvFields(diff)) row.push_back(std::move(f));
      out += CsvRow(row);
    }
  }
  return out;
}

Json CompareJson(const CompareInput& in) {
  const Comparison& c = *in.comparison;
  Json suites = Json::array();
  for (const SuiteStats* s : c.suites) suites.push_back(SuiteJson(*s));
  Json comparisons = Json::array();
  for (size_t i = 1; i < c.suites.size(); ++i) {
    Json cells = Json::array();
    for (const CellComparison& cc : c.cells[i - 1]) {
      Json lat = Json::array();
      for (const LatencyRatio& l : cc.latency) {
        lat.push_back({{"percentile", l.percentile},
                       {"ratio", OptJson(l.ratio)},
                       {"ci95", IntervalJson(l.interval)},
                       {"verdict", stats::VerdictName(l.verdict)}});
      }
      cells.push_back(
          {{"cell", cc.key},
           {"metric", cc.a->metric},
           {"tps_ratio", OptJson(cc.tps.ratio)},
           {"tps_ratio_ci95", IntervalJson(cc.tps.interval)},
           {"welch_dof", cc.tps.interval ? Json(cc.tps.dof) : Json(nullptr)},
           {"p_value", OptJson(cc.p_value)},
           {"n_other", cc.tps.n_a},
           {"n_base", cc.tps.n_b},
           {"verdict", SpeedName(cc.speed)},
           {"latency_ratios", lat},
           {"per_dollar_ratio", OptJson(cc.per_dollar_ratio)},
           {"per_dollar_ratio_ci95", IntervalJson(cc.per_dollar_interval)},
           {"per_dollar_verdict",
            cc.per_dollar_ratio ? Json(SpeedName(cc.per_dollar_speed)) : Json(nullptr)}});
    }
    Json facts = Json::array();
    for (const auto& d : c.facts_diff[i - 1])
      facts.push_back({{"key", d.key}, {"other", d.a}, {"base", d.b}});
    const Multiplicity& m = c.multiplicity[i - 1];
    Json multiplicity = {
        {"cells", m.cells},
        {"significant", m.significant},
        {"expected_by_chance", m.expected_by_chance},
        {"any_by_chance", m.any_by_chance},
        {"family_wise", FamilyWiseName(c.family_wise)},
        {"significant_family_wise",
         m.significant_family_wise ? Json(*m.significant_family_wise) : Json(nullptr)}};
    comparisons.push_back({{"base", c.suites[0]->suite->label},
                           {"other", c.suites[i]->suite->label},
                           {"cells", cells},
                           {"multiplicity", multiplicity},
                           {"facts_diff", facts},
                           {"profile_diffs", ProfileDiffsJson(c, i)}});
  }
  Json decision = Json::array();
  for (const DecisionColumn& d : c.decision) {
    decision.push_back(
        {{"label", d.label},
         {"architecture", d.architecture},
         {"vcpus", d.vcpus},
         {"caches", d.caches},
         {"postgresql", d.postgres},
         {"usd_per_hour", OptJson(d.usd_per_hour)},
         {"read_only_cell", d.read_only ? Json(d.read_only->id) : Json(nullptr)},
         {"read_only_tps", d.read_only ? Json(d.read_only->tps_summary.median) : Json(nullptr)},
         {"read_only_interval", IntervalJson(d.read_only_ci)},
         {"read_only_among", d.read_only_among},
         {"read_write_cell", d.read_write ? Json(d.read_write->id) : Json(nullptr)},
         {"read_write_tps", d.read_write ? Json(d.read_write->tps_summary.median) : Json(nullptr)},
         {"read_write_interval", IntervalJson(d.read_write_ci)},
         {"read_write_among", d.read_write_among},
         {"read_only_transactions_per_usd", OptJson(d.read_only_per_usd)},
         {"read_write_transactions_per_usd", OptJson(d.read_write_per_usd)},
         {"p99_ms", OptJson(d.p99_ms)},
         {"p99_cell", d.p99_cell ? Json(d.p99_cell->id) : Json(nullptr)},
         {"lio_cell", d.best_lio ? Json(d.best_lio->id) : Json(nullptr)},
         {results::kMetricLio, d.best_lio ? Json(d.best_lio->tps_summary.median) : Json(nullptr)},
         {"lio_interval", IntervalJson(d.lio_ci)},
         {"lio_among", d.lio_among}});
  }
  const Json decision_cells = {{"choice", c.decision_choice.best_each ? "best_each" : "common"},
                               {"no_common", c.decision_choice.no_common}};
  return {{"schema", "pgrig.compare/1"},
          {"mismatches", MismatchesJson(c.mismatches)},
          {"decision", decision},
          {"decision_cells", decision_cells},
          {"suites", suites},
          {"comparisons", comparisons},
          {"claims", ClaimsJson(in.claims)}};
}

}  // namespace

Result<Format> ParseFormat(const std::string& name) {
  if (name == "text") return Format::kText;
  if (name == "markdown" || name == "md") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  if (name == "html") return Format::kHtml;
  return InvalidArgument("unknown --format \"" + name +
                         "\": use text, markdown, csv, json or html");
}

std::string RenderReport(const ReportInput& in, Format format) {
  const SuiteStats& s = *in.suite;
  std::vector<Table> tables;
  if (!in.warnings.empty()) tables.push_back(MismatchTable(in.warnings));
  // A pgrig.fsync/1 file is a suite with no cells: only its fsync table.
  if (!s.cells.empty() || !s.suite->fsync) tables.push_back(CellTable(s));
  if (auto f = FsyncTable(s)) tables.push_back(std::move(*f));
  if (auto p = ProfileTable(s)) tables.push_back(std::move(*p));
  if (!in.claims.empty()) tables.push_back(ClaimTable(in.claims));
  switch (format) {
    case Format::kText: {
      std::string out = Header(*s.suite) + "\n\n";
      for (const Table& t : tables) out += TextTable(t);
      return out;
    }
    case Format::kMarkdown: {
      std::string out = "# pgrig report: " + s.suite->label + "\n\n" + Header(*s.suite) + "\n\n";
      for (const Table& t : tables) out += MarkdownTable(t);
      return out;
    }
    case Format::kCsv:
      return ReportCsv(s);
    case Format::kJson:
      return Json{{"schema", "pgrig.report/1"},
                  {"warnings", MismatchesJson(in.warnings)},
                  {"suite", SuiteJson(s)},
                  {"claims", ClaimsJson(in.claims)}}
                 .dump(1) +
             "\n";
    case Format::kHtml:
      return RenderReportHtml(in, tables);
  }
  return "";
}

std::string RenderComparison(const CompareInput& in, Format format) {
  const Comparison& c = *in.comparison;
  std::vector<Table> tables;
  tables.push_back(MismatchTable(c.mismatches));
  tables.push_back(DecisionTable(c));
  for (size_t i = 1; i < c.suites.size(); ++i) {
    // Two pgrig.fsync/1 files have no cells: their fsync tests are the comparison.
    if (c.suites[i]->cells.empty() && c.suites[0]->cells.empty()) continue;
    tables.push_back(ComparisonTable(c, i));
  }
  if (auto f = FsyncComparisonTable(c)) tables.push_back(std::move(*f));
  for (size_t i = 1; i < c.suites.size(); ++i) {
    for (Table& t : ProfileDiffTables(c, i)) tables.push_back(std::move(t));
  }
  if (!in.claims.empty()) tables.push_back(ClaimTable(in.claims));
  for (size_t i = 1; i < c.suites.size(); ++i) tables.push_back(FactsDiffTable(c, i, 25));
  switch (format) {
    case Format::kText: {
      std::string out;
      for (const SuiteStats* s : c.suites) out += Header(*s->suite) + "\n";
      out += "\n";
      for (const Table& t : tables) out += TextTable(t);
      return out;
    }
    case Format::kMarkdown: {
      std::string out = "# pgrig compare\n\n";
      for (const SuiteStats* s : c.suites) out += "- " + Header(*s->suite) + "\n";
      out += "\n";
      for (const Table& t : tables) out += MarkdownTable(t);
      return out;
    }
    case Format::kCsv:
      return CompareCsv(c);
    case Format::kJson:
      return CompareJson(in).dump(1) + "\n";
    case Format::kHtml:
      return RenderComparisonHtml(in, tables);
  }
  return "";
}

}  // namespace pgrig::report
