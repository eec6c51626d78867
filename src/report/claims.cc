#include "report/claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "common/enum_names.h"
#include "cost/per_dollar.h"

namespace pgrig::report {
namespace {

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
  if (c.metric != "tps") return false;
  if (scope.empty()) return true;
  return WorkloadKindName(c.kind) == scope ||
         (scope == "read-heavy" && c.kind == WorkloadKind::kReadOnly) ||
         (scope == "write-heavy" && c.kind != WorkloadKind::kReadOnly);
}

ClaimVerdict Judge(double claimed, const std::optional<stats::Interval>& iv) {
  if (!iv) return ClaimVerdict::kNotDecidable;
  return iv->Contains(claimed) ? ClaimVerdict::kSupported : ClaimVerdict::kContradicted;
}

Result<ClaimCheck> RatioClaim(ClaimCheck out, const std::string& x, const std::string& y,
                              const std::string& scope,
                              const std::vector<const SuiteStats*>& suites) {
  PGRIG_ASSIGN_OR_RETURN(const SuiteStats* a, FindSuite(x, suites));
  PGRIG_ASSIGN_OR_RETURN(const SuiteStats* b, FindSuite(y, suites));
  // The matched cell in scope where A's median tps peaks: the headline figure.
  const CellStats* best_a = nullptr;
  const CellStats* best_b = nullptr;
  for (const CellStats& ca : a->cells) {
    if (!CellMatchesScope(ca, scope) || ca.tps.empty()) continue;
    for (const CellStats& cb : b->cells) {
      if (cb.id == ca.id && cb.metric == ca.metric && !cb.tps.empty() &&
          (best_a == nullptr || ca.tps_summary.median > best_a->tps_summary.median)) {
        best_a = &ca;
        best_b = &cb;
      }
    }
  }
  if (best_a == nullptr) {
    out.basis =
        fmt::format("no cell {}measured in both {} and {}",
                    scope.empty() ? "" : "of " + scope + " ", a->suite->label, b->suite->label);
    return out;
  }
  PGRIG_ASSIGN_OR_RETURN(stats::RatioEstimate r, stats::CompareRatio(best_a->tps, best_b->tps));
  out.measured = r.ratio;
  out.interval = r.interval;
  out.verdict = Judge(out.claimed, out.interval);
  out.basis = fmt::format(
      "{} ratio {} / {} in cell {} (where {} peaks), ratio of geometric means over "
      "{} and {} iterations, Welch t 95% interval on the log scale",
      best_a->metric, a->suite->label, b->suite->label, best_a->id, a->suite->label,
      best_a->tps.size(), best_b->tps.size());
  if (!out.interval)
    out.basis += "; not decidable: an interval needs at least 2 iterations on each side";
  return out;
}

Result<ClaimCheck> PerDollarClaim(ClaimCheck out, const std::string& who, bool tps_per_usd_hour,
                                  const std::string& scope,
                                  const std::vector<const SuiteStats*>& suites) {
  const SuiteStats* s = suites.front();
  if (!who.empty()) {
    PGRIG_ASSIGN_OR_RETURN(s, FindSuite(who, suites));
  }
  const results::Suite& suite = *s->suite;
  if (!suite.usd_per_hour) {
    out.basis = fmt::format("{} has no price: give --usd-per-hour or --instance", suite.label);
    return out;
  }
  const CellStats* best = nullptr;
  for (const CellStats& c : s->cells) {
    if (c.metric == "tps" && CellMatchesScope(c, scope) && !c.tps.empty() &&
        (best == nullptr || c.tps_summary.median > best->tps_summary.median)) {
      best = &c;
    }
  }
  if (best == nullptr) {
    out.basis =
        fmt::format("{} has no measured cell{}", suite.label, scope.empty() ? "" : " of " + scope);
    return out;
  }
  const double k = (tps_per_usd_hour ? 1.0 : cost::kSecondsPerHour) / *suite.usd_per_hour;
  out.measured = best->tps_summary.median * k;
  if (best->tps_ci) out.interval = stats::Interval{best->tps_ci->low * k, best->tps_ci->high * k};
  out.verdict = Judge(out.claimed, out.interval);
  out.basis = fmt::format(
      "{} cell {} at {} USD/h: {}; interval from the geometric mean of {} iterations (t, log "
      "scale)",
      suite.label, best->id, *suite.usd_per_hour,
      tps_per_usd_hour ? "tps / USD per hour (as published \"TPS per dollar\")"
                       : "transactions per USD = tps x 3,600 / USD per hour",
      best->tps.size());
  if (!out.interval) out.basis += "; not decidable: an interval needs at least 2 iterations";
  return out;
}

}  // namespace

const char* ClaimVerdictName(ClaimVerdict v) {
  static constexpr const char* kNames[] = {"supported", "contradicted", "not decidable"};
  return NameAt<ClaimVerdict::kNotDecidable>(v, kNames, "not decidable");
}

Result<ClaimCheck> CheckClaim(const std::string& claim,
                              const std::vector<const SuiteStats*>& suites) {
  if (suites.empty()) return InvalidArgument("a claim needs at least one suite");
  ClaimCheck out;
  out.claim = claim;
  const std::string text = Lower(claim);
  static const std::regex kRatio(
      R"(^\s*([a-z0-9_.@-]+)\s+is\s+([0-9]+(?:\.[0-9]+)?)\s*(?:x|×|times)\s+(?:faster\s+than\s+|as\s+fast\s+as\s+)?([a-z0-9_.@-]+)(?:\s+on\s+([a-z0-9_ -]+?))?\s*$)");
  static const std::regex kPerDollar(
      R"(^\s*(?:([a-z0-9_.@-]+)\s*(?::|gets|does|has)\s*)?([0-9][0-9,]*(?:\.[0-9]+)?)\s*([km]?)\s+(tps|transactions)\s+per\s+(?:dollar|usd|\$)(?:\s+on\s+([a-z0-9_ -]+?))?\s*$)");
  std::smatch m;
  if (std::regex_match(text, m, kRatio)) {
    out.claimed = std::stod(m[2].str());
    return RatioClaim(std::move(out), m[1].str(), m[3].str(), m[4].str(), suites);
  }
  if (std::regex_match(text, m, kPerDollar)) {
    auto amount = ParseAmount(m[2].str(), m[3].str());
    if (!amount) return InvalidArgument("cannot read the number in claim \"" + claim + "\"");
    out.claimed = *amount;
    return PerDollarClaim(std::move(out), m[1].str(), m[4].str() == "tps", m[5].str(), suites);
  }
  return InvalidArgument(
      "cannot read claim \"" + claim +
      "\"; write it as \"A is 1.38x B on read-only\" or \"19,000 TPS per dollar\" "
      "(optionally \"B: ... on read-write\")");
}

}  // namespace pgrig::report
