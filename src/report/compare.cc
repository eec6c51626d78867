#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/enum_names.h"

namespace pgrig::report {
namespace {

constexpr double kStealWarnFraction = 0.10;  // as the runner's diagnosis warns
constexpr const char* kDurabilitySettings[] = {"fsync", "synchronous_commit", "wal_level",
                                               "full_page_writes"};

std::string FactString(const nlohmann::json& facts, std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &facts;
  for (const char* step : path) {
    if (!cur->is_object() || !cur->contains(step)) return "";
    cur = &(*cur)[step];
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_number() || cur->is_boolean()) return cur->dump();
  return "";
}

std::string Bytes(const std::string& n) {
  if (n.empty()) return "";
  const double v = std::stod(n);
  if (v >= 1024.0 * 1024) return fmt::format("{:g} MiB", v / (1024.0 * 1024));
  return fmt::format("{:g} KiB", v / 1024.0);
}

std::string MetricMeaning(const std::string& metric) {
  if (metric == "tps") return "tps (transactions per second)";
  if (metric == "lio_per_s") return "lio_per_s (logical reads per second, pgrig lio)";
  return metric;
}

// Cells of `a` that measure a quantity `b` has no cell of (or whose matching
// cell measures another): kept apart with one message per quantity.
void MetricMismatches(const SuiteStats& a, const SuiteStats& b,
                      const std::map<std::string, std::vector<std::string>>& apart,
                      std::vector<Mismatch>& out) {
  std::vector<std::string> b_metrics;
  for (const CellStats& c : b.cells) {
    const std::string m = MetricMeaning(c.metric);
    if (std::find(b_metrics.begin(), b_metrics.end(), m) == b_metrics.end()) b_metrics.push_back(m);
  }
  for (const auto& [metric, ids] : apart) {
    out.push_back(
        {MismatchKind::kMetric,
         fmt::format("{} cell(s) of {} measure {}; {} measures {}: different quantities, never "
                     "divided, so these cells are not compared: {}",
                     ids.size(), a.suite->label, MetricMeaning(metric), b.suite->label,
                     b_metrics.empty() ? std::string("nothing (it has no cells)")
                                       : fmt::format("{}", fmt::join(b_metrics, " and ")),
                     fmt::join(ids, ", "))});
  }
}

Speed PriceSpeed(const std::optional<stats::Interval>& iv) {
  if (!iv) return Speed::kNotDecidable;
  if (iv->low > 1.0) return Speed::kFaster;
  if (iv->high < 1.0) return Speed::kSlower;
  return Speed::kNoSignificantDifference;
}

Result<CellComparison> CompareCells(const CellStats& a, const CellStats& b,
                                    const results::Suite& sa, const results::Suite& sb) {
  CellComparison cc;
  cc.key = a.id;
  cc.a = &a;
  cc.b = &b;
  if (a.tps.empty() || b.tps.empty()) {
    cc.tps.n_a = static_cast<int64_t>(a.tps.size());
    cc.tps.n_b = static_cast<int64_t>(b.tps.size());
  } else {
    PGRIG_ASSIGN_OR_RETURN(cc.tps, stats::CompareRatio(a.tps, b.tps));
  }
  cc.speed = SpeedFromVerdict(cc.tps.verdict);
  if (!a.latency_ms.empty() && !b.latency_ms.empty()) {
    for (size_t p = 0; p < kPercentileCount; ++p) {
      LatencyRatio lr;
      lr.percentile = kPercentiles[p];
      if (a.latency_ms[p] > 0 && b.latency_ms[p] > 0) lr.ratio = a.latency_ms[p] / b.latency_ms[p];
      std::vector<double> ra, rb;
      for (const auto& r : a.run_latency_ms)
        if (r[p] > 0) ra.push_back(r[p]);
      for (const auto& r : b.run_latency_ms)
        if (r[p] > 0) rb.push_back(r[p]);
      if (ra.size() >= 2 && rb.size() >= 2) {
        PGRIG_ASSIGN_OR_RETURN(stats::RatioEstimate e, stats::CompareRatio(ra, rb));
        lr.interval = e.interval;
        lr.verdict = e.verdict;
      }
      cc.latency.push_back(lr);
    }
  }
  // Per dollar for transactions only (a lio cell's ratio is the plain one).
  if (a.metric == "tps" && sa.usd_per_hour && sb.usd_per_hour && cc.tps.ratio) {
    // (tps_a / price_a) / (tps_b / price_b): the prices are exact constants.
    const double k = *sb.usd_per_hour / *sa.usd_per_hour;
    cc.per_dollar_ratio = *cc.tps.ratio * k;
    if (cc.tps.interval) {
      cc.per_dollar_interval = stats::Interval{cc.tps.interval->low * k, cc.tps.interval->high * k};
    }
    cc.per_dollar_speed = PriceSpeed(cc.per_dollar_interval);
  }
  return cc;
}

void SuitePairMismatches(const results::Suite& a, const results::Suite& b,
                         std::vector<Mismatch>& out) {
  if (a.scale && b.scale && *a.scale != *b.scale) {
    out.push_back({MismatchKind::kScale,
                   fmt::format("scale differs: {} has scale {}, {} has scale {}; the data sets "
                               "differ in size, so cache behaviour and contention differ",
                               a.label, *a.scale, b.label, *b.scale)});
  }
  if (a.pg_major && b.pg_major && *a.pg_major != *b.pg_major) {
    out.push_back({MismatchKind::kPostgresMajor,
                   fmt::format("PostgreSQL major version differs: {} ran {}, {} ran {}", a.label,
                               a.pg_version, b.label, b.pg_version)});
  }
  for (const char* name : kDurabilitySettings) {
    auto ia = a.server_settings.find(name);
    auto ib = b.server_settings.find(name);
    if (ia != a.server_settings.end() && ib != b.server_settings.end() &&
        ia->second != ib->second) {
      out.push_back({MismatchKind::kDurability,
                     fmt::format("durability setting {} differs: {} on {}, {} on {}; write "
                                 "throughput is not comparable",
                                 name, ia->second, a.label, ib->second, b.label)});
    }
  }
  if (!a.plan_name.empty() && !b.plan_name.empty() && a.plan_name != b.plan_name) {
    out.push_back(
        {MismatchKind::kPlan, fmt::format("different plans: {} ran plan \"{}\", {} ran \"{}\"",
                                          a.label, a.plan_name, b.label, b.plan_name)});
  } else if (!a.plan_text.empty() && !b.plan_text.empty() && a.plan_text != b.plan_text) {
    out.push_back({MismatchKind::kPlan,
                   fmt::format("different plans: the plan files of {} and {} differ (same name "
                               "\"{}\", different contents)",
                               a.label, b.label, a.plan_name)});
  }
}

}  // namespace

const char* SpeedName(Speed s) {
  static constexpr const char* kNames[] = {"faster", "slower", "no significant difference",
                                           "not decidable"};
  return NameAt<Speed::kNotDecidable>(s, kNames, "not decidable");
}

Speed SpeedFromVerdict(stats::Verdict v) {
  switch (v) {
    case stats::Verdict::kHigher:
      return Speed::kFaster;
    case stats::Verdict::kLower:
      return Speed::kSlower;
    case stats::Verdict::kNoSignificantDifference:
      return Speed::kNoSignificantDifference;
    case stats::Verdict::kInsufficientData:
      return Speed::kNotDecidable;
  }
  return Speed::kNotDecidable;
}

const char* MismatchKindName(MismatchKind k) {
  static constexpr const char* kNames[] = {
      "scale",       "postgresql_major", "durability",      "plan",   "saturated_client", "steal",
      "failed_runs", "incomplete",       "unmatched_cells", "metric", "disturbed"};
  return NameAt<MismatchKind::kDisturbed>(k, kNames, "unknown");
}

std::vector<Mismatch> SuiteWarnings(const SuiteStats& s) {
  std::vector<Mismatch> out;
  const results::Suite& suite = *s.suite;
  // Disturbed runs first: a figure measured beside other work is the first
  // thing a reader must know about it.
  for (const CellStats& c : s.cells) {
    if (c.runs_disturbed == 0) continue;
    out.push_back({MismatchKind::kDisturbed,
                   fmt::format("{}: {}: {} of {} runs were disturbed: other processes took up to "
                               "{:.1f}% of the host's CPU; those runs understate the machine",
                               suite.label, c.id, c.runs_disturbed, c.runs_ok + c.runs_failed,
                               c.disturbed_max.value_or(0) * 100)});
  }
  if (!suite.complete) {
    out.push_back(
        {MismatchKind::kIncomplete,
         fmt::format("{} is incomplete: the suite stopped early; cells may lack iterations",
                     suite.label)});
  } else if (!suite.cells.empty() &&
             std::all_of(suite.cells.begin(), suite.cells.end(),
                         [](const results::Cell& c) { return c.runs.empty(); })) {
    out.push_back({MismatchKind::kIncomplete,
                   fmt::format("{} is marked complete but holds no runs", suite.label)});
  }
  for (const CellStats& c : s.cells) {
    if (c.client_saturated) {
      out.push_back({MismatchKind::kSaturatedClient,
                     fmt::format("{}: {}: the load client was saturated; the figure measures the "
                                 "client, not the server",
                                 suite.label, c.id)});
    }
    if (c.steal_max && *c.steal_max >= kStealWarnFraction) {
      out.push_back({MismatchKind::kSteal,
                     fmt::format("{}: {}: {:.1f}% of CPU time was stolen by the hypervisor; "
                                 "another tenant took CPU during the run",
                                 suite.label, c.id, *c.steal_max * 100)});
    }
    if (c.runs_failed > 0) {
      out.push_back({MismatchKind::kFailedRuns,
                     fmt::format("{}: {}: {} of {} runs failed ({})", suite.label, c.id,
                                 c.runs_failed, c.runs_failed + c.runs_ok, c.failures.front())});
    }
  }
  return out;
}

DecisionColumn DecisionFor(const SuiteStats& s) {
  const results::Suite& suite = *s.suite;
  const nlohmann::json& f = suite.facts;
  DecisionColumn d;
  d.label = suite.label;
  const std::string arch = FactString(f, {"host", "cpu", "architecture"});
  std::string core = FactString(f, {"host", "cpu", "microarchitecture"});
  if (core.empty()) core = FactString(f, {"host", "cpu", "model_name"});
  d.architecture = arch.empty() && core.empty() ? "unknown" : fmt::format("{} / {}", arch, core);
  const std::string vcpus = FactString(f, {"host", "cpu", "vcpus"});
  const std::string cores = FactString(f, {"host", "cpu", "cores"});
  d.vcpus = vcpus.empty() ? "unknown"
                          : (cores.empty() ? vcpus : fmt::format("{} ({} cores)", vcpus, cores));
  std::vector<std::string> caches;
  if (auto l2 = Bytes(FactString(f, {"host", "cpu", "l2_size_bytes"})); !l2.empty())
    caches.push_back("L2 " + l2);
  if (auto l3 = Bytes(FactString(f, {"host", "cpu", "l3_total_bytes"})); !l3.empty())
    caches.push_back("L3 " + l3);
  d.caches = caches.empty() ? "unknown" : fmt::format("{}", fmt::join(caches, ", "));
  d.postgres = suite.pg_version.empty() ? "unknown" : suite.pg_version;
  const std::string lse = FactString(f, {"server", "build", "arm_atomics"});
  if (lse == "true") d.postgres += " (LSE atomics)";
  d.usd_per_hour = suite.usd_per_hour;
  d.instance_type = suite.instance_type;
  d.read_only = BestCell(s, WorkloadKind::kReadOnly);
  d.read_write = BestCell(s, WorkloadKind::kReadWrite);
  if (d.read_write == nullptr) d.read_write = BestCell(s, WorkloadKind::kWriteOnly);
  if (d.read_write) d.read_write_per_usd = d.read_write->transactions_per_usd;
  if (d.read_only) d.read_only_per_usd = d.read_only->transactions_per_usd;
  const CellStats* p99_from = d.read_write ? d.read_write : d.read_only;
  if (p99_from && !p99_from->latency_ms.empty()) {
    d.p99_ms = p99_from->latency_ms[3];
    d.p99_cell = p99_from;
  }
  for (const CellStats& c : s.cells) {
    if (c.metric != "lio_per_s" || c.runs_ok == 0) continue;
    if (!d.best_lio || c.tps_summary.median > d.best_lio->tps_summary.median) d.best_lio = &c;
  }
  return d;
}

Result<Comparison> Compare(const std::vector<const SuiteStats*>& suites) {
  if (suites.size() < 2) return InvalidArgument("compare needs at least two suites");
  Comparison c;
  c.suites = suites;
  const SuiteStats& base = *suites[0];
  for (size_t i = 1; i < suites.size(); ++i) {
    SuitePairMismatches(*suites[i]->suite, *base.suite, c.mismatches);
  }
  for (const SuiteStats* s : suites) {
    for (Mismatch& m : SuiteWarnings(*s)) c.mismatches.push_back(std::move(m));
  }
  std::stable_partition(c.mismatches.begin(), c.mismatches.end(),
                        [](const Mismatch& m) { return m.kind == MismatchKind::kDisturbed; });
  std::map<std::string, const CellStats*> base_cells;
  std::set<std::string> base_metrics;
  for (const CellStats& cs : base.cells) {
    base_cells[cs.id] = &cs;
    base_metrics.insert(cs.metric);
  }
  for (size_t i = 1; i < suites.size(); ++i) {
    std::vector<CellComparison> row;
    std::vector<std::string> unmatched;
    std::map<std::string, std::vector<std::string>> apart;  // metric -> cells
    for (const CellStats& cs : suites[i]->cells) {
      auto it = base_cells.find(cs.id);
      if (it != base_cells.end() && it->second->metric != cs.metric) {
        apart[cs.metric].push_back(cs.id);
        continue;
      }
      if (it == base_cells.end()) {
        (base_metrics.count(cs.metric) ? unmatched : apart[cs.metric]).push_back(cs.id);
        continue;
      }
      PGRIG_ASSIGN_OR_RETURN(CellComparison cc,
                             CompareCells(cs, *it->second, *suites[i]->suite, *base.suite));
      row.push_back(std::move(cc));
    }
    if (!unmatched.empty()) {
      c.mismatches.push_back(
          {MismatchKind::kUnmatchedCells,
           fmt::format("{} cell(s) of {} have no match in {}: {}", unmatched.size(),
                       suites[i]->suite->label, base.suite->label, fmt::join(unmatched, ", "))});
    }
    // And the other way: the base's cells this suite lacks, whichever order
    // the suites were given in.
    std::set<std::string> ids, metrics;
    for (const CellStats& cs : suites[i]->cells) {
      ids.insert(cs.id);
      metrics.insert(cs.metric);
    }
    std::vector<std::string> missing;
    std::map<std::string, std::vector<std::string>> base_apart;  // metric -> cells
    for (const CellStats& cs : base.cells) {
      if (ids.count(cs.id)) continue;
      (metrics.count(cs.metric) ? missing : base_apart[cs.metric]).push_back(cs.id);
    }
    MetricMismatches(base, *suites[i], base_apart, c.mismatches);
    if (!missing.empty()) {
      c.mismatches.push_back(
          {MismatchKind::kUnmatchedCells,
           fmt::format("{} cell(s) of {} have no match in {}: {}", missing.size(),
                       base.suite->label, suites[i]->suite->label, fmt::join(missing, ", "))});
    }
    MetricMismatches(*suites[i], base, apart, c.mismatches);
    c.cells.push_back(std::move(row));
    c.facts_diff.push_back(host::DiffFacts(suites[i]->suite->facts, base.suite->facts));
  }
  for (const SuiteStats* s : suites) c.decision.push_back(DecisionFor(*s));
  return c;
}

}  // namespace pgrig::report
