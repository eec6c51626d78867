#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/enum_names.h"
#include "common/strings.h"
#include "results/metrics.h"
#include "stats/distributions.h"

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
  if (metric == results::kMetricTps) return "tps (transactions per second)";
  if (metric == results::kMetricLio) return "lio_per_s (logical reads per second, pgrig lio)";
  if (metric == results::kMetricNopm) return "nopm (New-Orders per minute, pgrig tpcc run)";
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

// Two-sided p-value of "log ratio = 0" for a Welch t statistic; with no
// spread, 1 for an exact 1.0 and 0 otherwise (as the interval says).
double TwoSidedP(double log_ratio, double log_se, double dof) {
  if (!(log_se > 0) || !(dof > 0)) return log_ratio == 0 ? 1.0 : 0.0;
  const double t = std::fabs(log_ratio) / log_se;
  return std::clamp(2.0 * (1.0 - stats::StudentTCdf(t, dof)), 0.0, 1.0);
}

// Holm's step-down at family-wise level `alpha` over `p` (any order): which
// hypotheses are rejected.
std::vector<bool> HolmRejects(const std::vector<double>& p, double alpha) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<bool> reject(p.size(), false);
  const size_t m = p.size();
  for (size_t rank = 0; rank < m; ++rank) {
    if (p[order[rank]] > alpha / static_cast<double>(m - rank)) break;
    reject[order[rank]] = true;
  }
  return reject;
}

// Applies Holm to one comparison's cells (tps and per dollar separately):
// calls that do not survive read "no significant difference".
int ApplyHolm(std::vector<CellComparison>& row) {
  std::vector<double> p;
  std::vector<CellComparison*> who;
  for (CellComparison& cc : row) {
    if (cc.p_value) {
      p.push_back(*cc.p_value);
      who.push_back(&cc);
    }
  }
  const std::vector<bool> reject = HolmRejects(p, 0.05);
  int kept = 0;
  for (size_t i = 0; i < who.size(); ++i) {
    who[i]->holm_significant = reject[i];
    if (!reject[i] && (who[i]->speed == Speed::kFaster || who[i]->speed == Speed::kSlower)) {
      who[i]->speed = Speed::kNoSignificantDifference;
    }
    if (who[i]->speed == Speed::kFaster || who[i]->speed == Speed::kSlower) ++kept;
  }
  p.clear();
  who.clear();
  for (CellComparison& cc : row) {
    if (cc.per_dollar_p_value) {
      p.push_back(*cc.per_dollar_p_value);
      who.push_back(&cc);
    }
  }
  const std::vector<bool> reject_usd = HolmRejects(p, 0.05);
  for (size_t i = 0; i < who.size(); ++i) {
    Speed& s = who[i]->per_dollar_speed;
    if (!reject_usd[i] && (s == Speed::kFaster || s == Speed::kSlower)) {
      s = Speed::kNoSignificantDifference;
    }
  }
  return kept;
}

Multiplicity CountCalls(const std::vector<CellComparison>& row) {
  Multiplicity m;
  for (const CellComparison& cc : row) {
    if (!cc.p_value) continue;
    ++m.cells;
    if (*cc.p_value < 0.05) ++m.significant;
  }
  m.expected_by_chance = 0.05 * m.cells;
  m.any_by_chance = 1.0 - std::pow(0.95, m.cells);
  return m;
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
    if (cc.tps.interval && cc.tps.ratio) {
      cc.p_value = TwoSidedP(std::log(*cc.tps.ratio), cc.tps.log_se, cc.tps.dof);
    }
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
  if (a.metric == results::kMetricTps && sa.usd_per_hour && sb.usd_per_hour && cc.tps.ratio) {
    // (tps_a / price_a) / (tps_b / price_b): the prices are exact constants.
    const double k = *sb.usd_per_hour / *sa.usd_per_hour;
    cc.per_dollar_ratio = *cc.tps.ratio * k;
    if (cc.tps.interval) {
      cc.per_dollar_interval = stats::Interval{cc.tps.interval->low * k, cc.tps.interval->high * k};
      cc.per_dollar_p_value = TwoSidedP(std::log(*cc.per_dollar_ratio), cc.tps.log_se, cc.tps.dof);
    }
    cc.per_dollar_speed = PriceSpeed(cc.per_dollar_interval);
  }
  return cc;
}

std::string Quoted(const std::string& v) { return v.empty() ? "(none)" : "\"" + v + "\""; }

// pg_config's CONFIGURE (" '--prefix=/usr' 'CFLAGS=-O2 -g' ...") as its
// options, quotes removed.
std::vector<std::string> ConfigureOptions(const std::string& configure) {
  std::vector<std::string> out;
  for (const std::string& part : Split(configure, '\'')) {
    if (!Trim(part).empty()) out.emplace_back(Trim(part));
  }
  return out;
}

// What one side's configure options have that the other's lack.
std::string OnlyIn(const std::vector<std::string>& mine, const std::vector<std::string>& theirs) {
  std::vector<std::string> only;
  for (const std::string& o : mine) {
    if (std::find(theirs.begin(), theirs.end(), o) == theirs.end()) only.push_back(o);
  }
  return only.empty() ? "nothing" : Join(only, " ");
}

std::string BuildDifference(const std::string& key, const results::Suite& a, const std::string& va,
                            const results::Suite& b, const std::string& vb) {
  if (key == "configure") {
    const std::vector<std::string> oa = ConfigureOptions(va), ob = ConfigureOptions(vb);
    return fmt::format("configure options only on {}: {}; only on {}: {}", a.label, OnlyIn(oa, ob),
                       b.label, OnlyIn(ob, oa));
  }
  return fmt::format("{} {} on {}, {} on {}", key, Quoted(va), a.label, Quoted(vb), b.label);
}

void SuitePairMismatches(const results::Suite& a, const results::Suite& b,
                         std::vector<Mismatch>& out) {
  if (a.scale && b.scale && *a.scale != *b.scale) {
    out.push_back({MismatchKind::kScale,
                   fmt::format("scale differs: {} has scale {}, {} has scale {}; the data sets "
                               "differ in size, so cache behaviour and contention differ",
                               a.label, *a.scale, b.label, *b.scale)});
  }
  if (a.tpcc_warehouses && b.tpcc_warehouses && *a.tpcc_warehouses != *b.tpcc_warehouses) {
    out.push_back(
        {MismatchKind::kTpccWarehouses,
         fmt::format("TPC-C-like warehouses differ: {} ran on {}, {} on {}; the data sets "
                     "differ in size and the transactions in how often they meet, so NOPM is "
                     "not comparable one to one",
                     a.label, *a.tpcc_warehouses, b.label, *b.tpcc_warehouses)});
  }
  if (a.pg_major && b.pg_major && *a.pg_major != *b.pg_major) {
    out.push_back({MismatchKind::kPostgresMajor,
                   fmt::format("PostgreSQL major version differs: {} ran {}, {} ran {}", a.label,
                               a.pg_version, b.label, b.pg_version)});
  }
  for (const char* key : results::kServerBuildFacts) {
    auto ia = a.server_build.find(key);
    auto ib = b.server_build.find(key);
    if (ia != a.server_build.end() && ib != b.server_build.end() && ia->second != ib->second) {
      out.push_back({MismatchKind::kBuild,
                     fmt::format("PostgreSQL was built differently: {}; the build, not only the "
                                 "machine, may explain a difference",
                                 BuildDifference(key, a, ia->second, b, ib->second))});
    }
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
  static constexpr const char* kNames[] = {"scale",
                                           "tpcc_warehouses",
                                           "postgresql_major",
                                           "postgresql_build",
                                           "durability",
                                           "plan",
                                           "saturated_client",
                                           "steal",
                                           "failed_runs",
                                           "incomplete",
                                           "unmatched_cells",
                                           "metric",
                                           "disturbed"};
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

namespace {

// A cell's tps interval when it was chosen as the best of `among` cells:
// Bonferroni's 1 - 0.05 / among, which holds for all of them at once.
std::optional<stats::Interval> IntervalAmong(const CellStats& c, int among) {
  if (among <= 1 || c.tps.size() < 2) return c.tps_ci;
  auto e = stats::GeometricMeanInterval(c.tps, 1.0 - 0.05 / among);
  if (!e.ok()) return c.tps_ci;
  return e->interval;
}

// Which cells a decision row may read: of `kind`, or lio cells.
struct RowKind {
  WorkloadKind kind;
  bool lio;
  bool Takes(const CellStats& c) const {
    if (c.runs_ok == 0 || c.tps_summary.median <= 0) return false;
    return lio ? c.metric == results::kMetricLio
               : (c.metric == results::kMetricTps && c.kind == kind);
  }
  std::string Name() const { return lio ? "lio" : WorkloadKindName(kind); }
};

struct Pick {
  std::vector<const CellStats*> cells;  // per suite; null for none
  std::vector<int> among;               // per suite
  bool any = false;                     // some suite has a cell of the kind
};

Pick PickCells(const std::vector<const SuiteStats*>& suites, const RowKind& rk, bool best_each) {
  Pick p;
  p.cells.assign(suites.size(), nullptr);
  p.among.assign(suites.size(), 0);
  if (best_each) {
    for (size_t i = 0; i < suites.size(); ++i) {
      for (const CellStats& c : suites[i]->cells) {
        if (!rk.Takes(c)) continue;
        p.any = true;
        ++p.among[i];
        if (!p.cells[i] || c.tps_summary.median > p.cells[i]->tps_summary.median) p.cells[i] = &c;
      }
    }
    return p;
  }
  // id -> the cell in each suite (in order); a candidate is in every suite.
  std::map<std::string, std::vector<const CellStats*>> by_id;
  for (size_t i = 0; i < suites.size(); ++i) {
    for (const CellStats& c : suites[i]->cells) {
      if (!rk.Takes(c)) continue;
      p.any = true;
      auto& v = by_id[c.id];
      if (v.size() == i) v.push_back(&c);
    }
  }
  const std::vector<const CellStats*>* best = nullptr;
  double best_score = 0;
  int candidates = 0;
  for (const auto& [id, v] : by_id) {
    if (v.size() != suites.size()) continue;
    ++candidates;
    double score = 0;
    for (const CellStats* c : v) score += std::log(c->tps_summary.median);
    if (!best || score > best_score) {
      best = &v;
      best_score = score;
    }
  }
  if (best) {
    p.cells = *best;
    p.among.assign(suites.size(), candidates);
  }
  return p;
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
  return d;
}

}  // namespace

std::vector<DecisionColumn> DecisionColumns(const std::vector<const SuiteStats*>& suites,
                                            bool best_each, DecisionChoice* choice) {
  std::vector<DecisionColumn> cols;
  for (const SuiteStats* s : suites) cols.push_back(DecisionFor(*s));
  DecisionChoice ch;
  ch.best_each = best_each;
  auto pick = [&](const RowKind& rk) {
    Pick p = PickCells(suites, rk, best_each);
    bool found = std::any_of(p.cells.begin(), p.cells.end(), [](auto* c) { return c != nullptr; });
    if (p.any && !found) ch.no_common.push_back(rk.Name());
    return p;
  };
  const Pick ro = pick({WorkloadKind::kReadOnly, false});
  Pick rw = PickCells(suites, {WorkloadKind::kReadWrite, false}, best_each);
  // Write-only stands in for read-write where there is none (per suite).
  const Pick wo = PickCells(suites, {WorkloadKind::kWriteOnly, false}, best_each);
  for (size_t i = 0; i < suites.size(); ++i) {
    if (!rw.cells[i] && wo.cells[i]) {
      rw.cells[i] = wo.cells[i];
      rw.among[i] = wo.among[i];
    }
  }
  if ((rw.any || wo.any) &&
      std::all_of(rw.cells.begin(), rw.cells.end(), [](auto* c) { return c == nullptr; })) {
    ch.no_common.push_back("read-write");
  }
  const Pick lio = pick({WorkloadKind::kOther, true});
  for (size_t i = 0; i < suites.size(); ++i) {
    DecisionColumn& d = cols[i];
    if ((d.read_only = ro.cells[i])) {
      d.read_only_among = ro.among[i];
      d.read_only_ci = IntervalAmong(*d.read_only, d.read_only_among);
      d.read_only_per_usd = d.read_only->transactions_per_usd;
    }
    if ((d.read_write = rw.cells[i])) {
      d.read_write_among = rw.among[i];
      d.read_write_ci = IntervalAmong(*d.read_write, d.read_write_among);
      d.read_write_per_usd = d.read_write->transactions_per_usd;
    }
    if ((d.best_lio = lio.cells[i])) {
      d.lio_among = lio.among[i];
      d.lio_ci = IntervalAmong(*d.best_lio, d.lio_among);
    }
    const CellStats* p99_from = d.read_write ? d.read_write : d.read_only;
    if (p99_from && !p99_from->latency_ms.empty()) {
      d.p99_ms = p99_from->latency_ms[3];
      d.p99_cell = p99_from;
    }
  }
  if (choice) *choice = std::move(ch);
  return cols;
}

const char* FamilyWiseName(FamilyWise f) { return f == FamilyWise::kHolm ? "holm" : "none"; }

Result<FamilyWise> ParseFamilyWise(const std::string& s) {
  if (s == "none") return FamilyWise::kNone;
  if (s == "holm") return FamilyWise::kHolm;
  return InvalidArgument("--family-wise: '" + s + "' is not one of none, holm");
}

Result<Comparison> Compare(const std::vector<const SuiteStats*>& suites,
                           const CompareOptions& options) {
  if (suites.size() < 2) return InvalidArgument("compare needs at least two suites");
  Comparison c;
  c.suites = suites;
  c.family_wise = options.family_wise;
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
    Multiplicity m = CountCalls(row);
    if (options.family_wise == FamilyWise::kHolm) m.significant_family_wise = ApplyHolm(row);
    c.multiplicity.push_back(m);
    c.cells.push_back(std::move(row));
    c.facts_diff.push_back(host::DiffFacts(suites[i]->suite->facts, base.suite->facts));
  }
  c.decision = DecisionColumns(suites, options.best_each, &c.decision_choice);
  return c;
}

}  // namespace pgrig::report
