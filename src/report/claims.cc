#include "report/claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "common/enum_names.h"
#include "cost/format.h"
#include "cost/per_dollar.h"
#include "results/metrics.h"
#include "stats/distributions.h"

namespace pgrig::report {
namespace {

constexpr double kConfidence = 0.95;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "19,000" -> 19000, "5.1m" -> 5.1e6, "12k" -> 12000.
std::optional<double> ParseAmount(std::string text, const std::string& suffix) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  try {
    double v = std::stod(text);
    if (suffix == "k") v *= 1e3;
    if (suffix == "m") v *= 1e6;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

Result<const SuiteStats*> FindSuite(const std::string& name,
                                    const std::vector<const SuiteStats*>& suites) {
  for (const SuiteStats* s : suites) {
    if (Lower(s->suite->label) == name) return s;
  }
  if (name.size() == 1 && name[0] >= 'a' && name[0] < 'a' + static_cast<char>(suites.size())) {
    return suites[static_cast<size_t>(name[0] - 'a')];
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < suites.size(); ++i) {
    names.push_back(fmt::format("{} or {}", static_cast<char>('A' + i), suites[i]->suite->label));
  }
  return InvalidArgument(fmt::format("the claim names \"{}\", which is none of the suites ({})",
                                     name, fmt::join(names, "; ")));
}

bool CellMatchesScope(const CellStats& c, const std::string& scope) {
  if (Lower(c.workload) == scope) return true;
  // A lio cell (logical reads per second) answers only a claim that names
  // its workload: "read-only", "write-heavy" or no scope mean transactions.
  if (c.metric != results::kMetricTps) return false;
  if (scope.empty()) return true;
  return WorkloadKindName(c.kind) == scope ||
         (scope == "read-heavy" && c.kind == WorkloadKind::kReadOnly) ||
         (scope == "write-heavy" && c.kind != WorkloadKind::kReadOnly);
}

// Which cells a claim is judged on: its scope, and "in cell ID" or "at peak".
struct Selection {
  std::string scope;
  std::string cell;  // lower case; empty: not named
  bool peak = false;
};

std::string Percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

// The log-scale distance from `e` to the band [lo, hi] (0 inside it).
double DistanceToBand(double e, double lo, double hi) {
  return e < lo ? lo - e : (e > hi ? e - hi : 0.0);
}

// Judges a ratio cell: `est` the ratio, `iv` its interval, `sd_log` the
// spread of one iteration's log tps (for the iterations to decide).
void JudgeRatio(double claimed, double tol, double sd_log, CellClaim& out) {
  const double lc = std::log(claimed), lt = std::log1p(tol);
  const double lo = std::log(out.interval->low), hi = std::log(out.interval->high);
  const double e = std::log(*out.measured);
  const double band_lo = lc - lt, band_hi = lc + lt;
  const std::string band = fmt::format("{:.3f}x +-{}", claimed, Percent(tol));  // "1.380x +-5%"
  std::optional<double> distance;  // to decide, on the log scale
  if (hi < band_lo || lo > band_hi) {
    out.verdict = ClaimVerdict::kContradicted;
    out.reason = "the interval misses " + band;
  } else if (std::abs(lc) < 1e-12) {
    if (lo >= band_lo && hi <= band_hi) {
      out.verdict = ClaimVerdict::kSupported;
      out.reason = "the interval lies within " + band;
    } else {
      out.reason = "the interval reaches beyond " + band;
      distance = e < band_lo || e > band_hi ? DistanceToBand(e, band_lo, band_hi)
                                            : std::min(e - band_lo, band_hi - e);
    }
  } else {
    const bool up = lc > 0;
    if (up ? lo > 0 : hi < 0) {
      out.verdict = ClaimVerdict::kSupported;
      out.reason =
          fmt::format("the interval lies {} 1.0 and meets {}", up ? "above" : "below", band);
    } else {
      out.reason = "the interval contains 1.0";
      if (e < band_lo || e > band_hi) {
        distance = DistanceToBand(e, band_lo, band_hi);
      } else if (up ? e > 0 : e < 0) {
        distance = std::abs(e);
      } else {
        out.reason += ", and the estimate is on the other side of 1.0 within the tolerance";
      }
    }
  }
  if (out.verdict == ClaimVerdict::kUndecided && distance) {
    out.iterations_to_decide = IterationsToDecide(*distance, sd_log, 2, out.confidence);
    if (!out.iterations_to_decide) {
      out.reason +=
          fmt::format("; more than {} iterations per side would be needed", kMaxIterationsToDecide);
    }
  }
}

CellClaim RatioCell(const CellStats& a, const CellStats& b, double claimed, double tol,
                    double confidence) {
  CellClaim out;
  out.cell = a.id;
  out.confidence = confidence;
  out.n_a = static_cast<int64_t>(a.tps.size());
  out.n_b = static_cast<int64_t>(b.tps.size());
  if (a.tps.empty() || b.tps.empty()) {
    out.reason = "no successful run on a side";
    return out;
  }
  Result<stats::RatioEstimate> r = stats::CompareRatio(a.tps, b.tps, confidence);
  if (!r.ok()) {
    out.reason = std::string(r.status().message());
    return out;
  }
  out.measured = r->ratio;
  out.interval = r->interval;
  if (!out.interval) {
    out.reason = "an interval needs at least 2 iterations on each side";
    return out;
  }
  const double k =
      std::sqrt(1.0 / static_cast<double>(out.n_a) + 1.0 / static_cast<double>(out.n_b));
  JudgeRatio(claimed, tol, r->log_se / k, out);
  return out;
}

// `k` turns tps into the claimed unit.
CellClaim PerDollarCell(const CellStats& c, double k, double claimed, double tol,
                        double confidence) {
  CellClaim out;
  out.cell = c.id;
  out.confidence = confidence;
  out.n_a = static_cast<int64_t>(c.tps.size());
  if (c.tps.empty()) {
    out.reason = "no successful run";
    return out;
  }
  if (c.tps.size() < 2) {
    out.measured = c.tps.front() * k;
    out.reason = "an interval needs at least 2 iterations";
    return out;
  }
  Result<stats::LogScaleEstimate> g = stats::GeometricMeanInterval(c.tps, confidence);
  if (!g.ok()) {
    out.reason = std::string(g.status().message());
    return out;
  }
  out.measured = g->geometric_mean * k;
  out.interval = stats::Interval{g->interval.low * k, g->interval.high * k};
  // A rate claim is an equivalence claim (measured / claimed = 1.0x): it
  // is supported only by an interval that lies within the tolerance.
  const double lt = std::log1p(tol), lc = std::log(claimed);
  const double band_lo = lc - lt, band_hi = lc + lt;
  const double lo = std::log(out.interval->low), hi = std::log(out.interval->high);
  const double e = std::log(*out.measured);
  const std::string band = cost::FormatNumber(claimed, 0) + " +-" + Percent(tol);
  if (hi < band_lo || lo > band_hi) {
    out.verdict = ClaimVerdict::kContradicted;
    out.reason = "the interval misses " + band;
    return out;
  }
  if (lo >= band_lo && hi <= band_hi) {
    out.verdict = ClaimVerdict::kSupported;
    out.reason = "the interval lies within " + band;
    return out;
  }
  out.reason = "the interval reaches beyond " + band;
  const double distance = e < band_lo || e > band_hi ? DistanceToBand(e, band_lo, band_hi)
                                                     : std::min(e - band_lo, band_hi - e);
  const double sd_log = g->log_se * std::sqrt(static_cast<double>(g->n));
  out.iterations_to_decide = IterationsToDecide(distance, sd_log, 1, confidence);
  if (!out.iterations_to_decide) {
    out.reason += fmt::format("; more than {} iterations would be needed", kMaxIterationsToDecide);
  }
  return out;
}

// The claim's verdict from its cells', and the basis's last words.
void Conclude(ClaimCheck& out) {
  if (out.cells.empty()) return;
  if (out.cells.size() == 1) {
    out.verdict = out.cells[0].verdict;
    out.measured = out.cells[0].measured;
    out.interval = out.cells[0].interval;
    return;
  }
  int counts[3] = {0, 0, 0};
  for (const CellClaim& c : out.cells) ++counts[static_cast<int>(c.verdict)];
  const int m = static_cast<int>(out.cells.size());
  for (int v = 0; v < 3; ++v) {
    if (counts[v] == m) out.verdict = static_cast<ClaimVerdict>(v);
  }
  if (out.verdict == ClaimVerdict::kUndecided && counts[2] < m) {
    out.basis += fmt::format(
        "; supported in {}, contradicted in {}, undecided in {} of {} cells: the cells disagree "
        "(name one with \"in cell ID\", or say \"at peak\")",
        counts[0], counts[1], counts[2], m);
  }
}

// The phrase for which cells, once they are known.
std::string SelectionText(const Selection& sel, const std::string& who, size_t candidates,
                          const std::string& chosen, double confidence) {
  if (!sel.cell.empty()) return "cell " + chosen + " as named";
  if (sel.peak) {
    return fmt::format(
        "cell {}, where {} peaks among {} cells (so its interval is at {:.2f}%, Bonferroni over "
        "the {}, to allow for the choice)",
        chosen, who, candidates, confidence * 100, candidates);
  }
  return candidates == 1 ? "cell " + chosen + ", the only matching one"
                         : fmt::format("each of the {} matching cells", candidates);
}

Result<ClaimCheck> RatioClaim(ClaimCheck out, const std::string& x, const std::string& y,
                              const Selection& sel, const std::vector<const SuiteStats*>& suites) {
  PGRIG_ASSIGN_OR_RETURN(const SuiteStats* a, FindSuite(x, suites));
  PGRIG_ASSIGN_OR_RETURN(const SuiteStats* b, FindSuite(y, suites));
  std::vector<std::pair<const CellStats*, const CellStats*>> matched;
  bool named_seen = false;
  for (const CellStats& ca : a->cells) {
    if (!sel.cell.empty() ? Lower(ca.id) != sel.cell : !CellMatchesScope(ca, sel.scope)) continue;
    named_seen = true;
    for (const CellStats& cb : b->cells) {
      if (cb.id == ca.id && cb.metric == ca.metric) matched.push_back({&ca, &cb});
    }
  }
  if (!sel.cell.empty() && !named_seen &&
      std::none_of(b->cells.begin(), b->cells.end(),
                   [&](const CellStats& c) { return Lower(c.id) == sel.cell; })) {
    return InvalidArgument(fmt::format("the claim names cell \"{}\", which neither {} nor {} has",
                                       sel.cell, a->suite->label, b->suite->label));
  }
  if (matched.empty()) {
    out.basis = fmt::format("undecided: no cell {}measured in both {} and {}",
                            !sel.cell.empty()   ? sel.cell + " "
                            : sel.scope.empty() ? ""
                                                : "of " + sel.scope + " ",
                            a->suite->label, b->suite->label);
    return out;
  }
  double confidence = kConfidence;
  const size_t candidates = matched.size();
  if (sel.peak) {
    auto best = std::max_element(matched.begin(), matched.end(), [](const auto& l, const auto& r) {
      return l.first->tps_summary.median < r.first->tps_summary.median;
    });
    matched = {*best};
    confidence = 1.0 - (1.0 - kConfidence) / static_cast<double>(candidates);
  }
  for (const auto& [ca, cb] : matched) {
    out.cells.push_back(RatioCell(*ca, *cb, out.claimed, out.tolerance, confidence));
  }
  out.basis = fmt::format(
      "{} ratio {} / {}, ratio of geometric means, Welch t interval on the log scale, claim "
      "+-{}; judged on {}",
      matched.front().first->metric, a->suite->label, b->suite->label, Percent(out.tolerance),
      SelectionText(sel, a->suite->label, candidates, matched.front().first->id, confidence));
  Conclude(out);
  return out;
}

Result<ClaimCheck> PerDollarClaim(ClaimCheck out, const std::string& who, bool tps_per_usd_hour,
                                  const Selection& sel,
                                  const std::vector<const SuiteStats*>& suites) {
  const SuiteStats* s = suites.front();
  if (!who.empty()) {
    PGRIG_ASSIGN_OR_RETURN(s, FindSuite(who, suites));
  }
  const results::Suite& suite = *s->suite;
  std::vector<const CellStats*> cells;
  for (const CellStats& c : s->cells) {
    if (c.metric != results::kMetricTps) continue;
    if (!sel.cell.empty() ? Lower(c.id) == sel.cell : CellMatchesScope(c, sel.scope)) {
      cells.push_back(&c);
    }
  }
  if (!sel.cell.empty() && cells.empty()) {
    return InvalidArgument(
        fmt::format("the claim names cell \"{}\", which {} has not (among its "
                    "transaction cells)",
                    sel.cell, suite.label));
  }
  if (!suite.usd_per_hour) {
    out.basis =
        fmt::format("undecided: {} has no price: give --usd-per-hour or --instance", suite.label);
    return out;
  }
  if (cells.empty()) {
    out.basis = fmt::format("undecided: {} has no measured cell{}", suite.label,
                            sel.scope.empty() ? "" : " of " + sel.scope);
    return out;
  }
  double confidence = kConfidence;
  const size_t candidates = cells.size();
  if (sel.peak) {
    cells = {*std::max_element(cells.begin(), cells.end(), [](const auto* l, const auto* r) {
      return l->tps_summary.median < r->tps_summary.median;
    })};
    confidence = 1.0 - (1.0 - kConfidence) / static_cast<double>(candidates);
  }
  const double k = (tps_per_usd_hour ? 1.0 : cost::kSecondsPerHour) / *suite.usd_per_hour;
  for (const CellStats* c : cells) {
    out.cells.push_back(PerDollarCell(*c, k, out.claimed, out.tolerance, confidence));
  }
  out.basis = fmt::format(
      "{} at {} USD/h: {}; geometric mean of the iterations with its t interval (log scale), "
      "claim +-{}; judged on {}",
      suite.label, *suite.usd_per_hour,
      tps_per_usd_hour ? "tps / USD per hour (as published \"TPS per dollar\")"
                       : "transactions per USD = tps x 3,600 / USD per hour",
      Percent(out.tolerance),
      SelectionText(sel, suite.label, candidates, cells.front()->id, confidence));
  Conclude(out);
  return out;
}

}  // namespace

const char* ClaimVerdictName(ClaimVerdict v) {
  static constexpr const char* kNames[] = {"supported", "contradicted", "undecided"};
  return NameAt<ClaimVerdict::kUndecided>(v, kNames, "undecided");
}

std::optional<int64_t> IterationsToDecide(double distance, double sd_log, int sides,
                                          double confidence) {
  if (!(distance > 0) || !std::isfinite(sd_log) || sd_log < 0 || sides < 1) return std::nullopt;
  const double q = (1.0 + confidence) / 2.0;
  auto half_width = [&](int64_t n) {
    const double dof = static_cast<double>(sides) * static_cast<double>(n - 1);
    return stats::StudentTQuantile(q, dof) * sd_log *
           std::sqrt(static_cast<double>(sides) / static_cast<double>(n));
  };
  if (half_width(kMaxIterationsToDecide) >= distance) return std::nullopt;
  // The half-width falls as n grows: bisect for the first n below.
  int64_t lo = 2, hi = kMaxIterationsToDecide;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (half_width(mid) < distance) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

Result<ClaimCheck> CheckClaim(const std::string& claim,
                              const std::vector<const SuiteStats*>& suites,
                              const ClaimOptions& options) {
  if (suites.empty()) return InvalidArgument("a claim needs at least one suite");
  if (!(options.tolerance >= 0) || options.tolerance >= 1) {
    return InvalidArgument(fmt::format("a claim's tolerance must be in [0, 1) (0.05 is 5%), not {}",
                                       options.tolerance));
  }
  ClaimCheck out;
  out.claim = claim;
  out.tolerance = options.tolerance;
  const std::string text = Lower(claim);
  // Both forms end the same way: " on <scope>", then " in cell <id>" or " at peak".
  static const std::string kTail =
      R"((?:\s+on\s+([a-z0-9_ -]+?))?(?:\s+in\s+cell\s+([a-z0-9_./@:-]+)|\s+(at\s+(?:the\s+)?peak))?\s*$)";
  static const std::regex kRatio(
      R"(^\s*([a-z0-9_.@-]+)\s+is\s+([0-9]+(?:\.[0-9]+)?)\s*(?:x|×|times)\s+(?:faster\s+than\s+|as\s+fast\s+as\s+)?([a-z0-9_.@-]+))" +
      kTail);
  static const std::regex kPerDollar(
      R"(^\s*(?:([a-z0-9_.@-]+)\s*(?::|gets|does|has)\s*)?([0-9][0-9,]*(?:\.[0-9]+)?)\s*([km]?)\s+(tps|transactions)\s+per\s+(?:dollar|usd|\$))" +
      kTail);
  std::smatch m;
  if (std::regex_match(text, m, kRatio)) {
    out.claimed = std::stod(m[2].str());
    if (!(out.claimed > 0) || !std::isfinite(out.claimed)) {
      return InvalidArgument("a claimed ratio must be above 0: \"" + claim + "\"");
    }
    const Selection sel{m[4].str(), m[5].str(), m[6].matched};
    return RatioClaim(std::move(out), m[1].str(), m[3].str(), sel, suites);
  }
  if (std::regex_match(text, m, kPerDollar)) {
    auto amount = ParseAmount(m[2].str(), m[3].str());
    if (!amount || !(*amount > 0) || !std::isfinite(*amount)) {
      return InvalidArgument("cannot read the number in claim \"" + claim + "\"");
    }
    out.claimed = *amount;
    const Selection sel{m[5].str(), m[6].str(), m[7].matched};
    return PerDollarClaim(std::move(out), m[1].str(), m[4].str() == "tps", sel, suites);
  }
  return InvalidArgument(
      "cannot read claim \"" + claim +
      "\"; write it as \"A is 1.38x B on read-only\" or \"19,000 TPS per dollar\" "
      "(optionally \"B: ... on read-write\"), ending in \"in cell ID\" or \"at peak\" to pick "
      "one cell");
}

}  // namespace pgrig::report
