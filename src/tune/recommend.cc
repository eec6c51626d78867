#include "tune/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/strings.h"

namespace pgrig::tune {

namespace {

bool WithinThreshold(const SettingValue& current, const SettingValue& proposed) {
  if (!current.numeric() || !proposed.numeric()) {
    return ToLower(current.ToConf()) == ToLower(proposed.ToConf());
  }
  double c = current.Number();
  double p = proposed.Number();
  if (c == p) return true;
  if (c == 0) return false;
  return std::fabs(p - c) <= kChangeThreshold * std::fabs(c);
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

Result<CurrentSettings> ReadCurrentSettings(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec("SELECT name, setting, coalesce(unit, ''), context, vartype, "
                "coalesce(min_val, ''), coalesce(max_val, ''), "
                "coalesce(array_to_string(enumvals, ','), ''), coalesce(source, ''), "
                "pending_restart FROM pg_settings"));
  CurrentSettings out;
  for (int i = 0; i < r.rows(); ++i) {
    CurrentSetting s;
    s.name = r.Get(i, 0);
    s.setting = r.Get(i, 1);
    s.unit = r.Get(i, 2);
    s.context = r.Get(i, 3);
    s.vartype = r.Get(i, 4);
    s.min_val = r.Get(i, 5);
    s.max_val = r.Get(i, 6);
    std::string ev(r.Get(i, 7));
    if (!ev.empty()) s.enumvals = Split(ev, ',');
    s.source = r.Get(i, 8);
    s.pending_restart = r.Get(i, 9) == "t";
    out.emplace(s.name, std::move(s));
  }
  if (out.empty()) return Internal("pg_settings returned no rows");
  return out;
}

SettingMap ToSettingMap(const CurrentSettings& current) {
  SettingMap m;
  for (const auto& [name, s] : current) {
    auto v = FromPgSettings(name, s.setting, s.unit, s.vartype);
    if (v.ok()) m[name] = *v;
  }
  return m;
}

SettingMap CandidateConfig(const TuneReport& report, const CurrentSettings& current) {
  SettingMap m =
      current.empty() ? DefaultSettings(report.inputs.server_major) : ToSettingMap(current);
  for (const auto& r : report.recommendations) {
    if (r.changed) m[r.name] = r.value;
  }
  return m;
}

std::vector<const Recommendation*> TuneReport::Changes() const {
  std::vector<const Recommendation*> out;
  for (const auto& r : recommendations) {
    if (r.changed) out.push_back(&r);
  }
  return out;
}

bool TuneReport::NeedsRestart() const {
  for (const auto& r : recommendations) {
    if (r.changed && r.apply == Apply::kRestart) return true;
  }
  return false;
}

Result<std::pair<std::string, SettingValue>> ParseOverride(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument(fmt::format("--set '{}' is not name=value", text));
  }
  std::string name = ToLower(Trim(std::string_view(text).substr(0, eq)));
  PGRIG_ASSIGN_OR_RETURN(SettingValue v, ParseUserValue(name, text.substr(eq + 1)));
  return std::make_pair(name, v);
}

Result<TuneReport> Recommend(const TuneInputs& inputs, Profile profile,
                             const CurrentSettings& current, const Overrides& overrides) {
  PGRIG_ASSIGN_OR_RETURN(TunePlan plan, ComputePlan(inputs, profile));
  const bool has_server = !current.empty();
  TuneReport rep;
  rep.profile = profile;
  rep.inputs = inputs;
  rep.has_server = has_server;
  rep.advice = plan.advice;
  rep.warnings = plan.warnings;
  rep.trades_durability = plan.trades_durability;
  rep.huge_pages = plan.huge_pages;

  std::vector<Proposal> proposals;
  for (auto& p : plan.proposals) {
    if (has_server && !current.count(p.name)) continue;  // not in this server version
    proposals.push_back(p);
  }

  auto cur = [&](const std::string& n) -> const CurrentSetting* {
    auto it = current.find(n);
    return it == current.end() ? nullptr : &it->second;
  };
  // wal_level = minimal would stop a server that archives WAL from starting.
  if (const CurrentSetting* am = cur("archive_mode"); am && am->setting != "off") {
    auto before = proposals.size();
    proposals.erase(std::remove_if(proposals.begin(), proposals.end(),
                                   [](const Proposal& p) { return p.rule == "wal.minimal"; }),
                    proposals.end());
    if (proposals.size() != before) {
      rep.warnings.push_back(
          "archive_mode is on, so wal_level stays as it is (minimal WAL cannot be archived)");
    }
  }
  // A build without lz4 offers fewer wal_compression values.
  if (const CurrentSetting* wc = cur("wal_compression"); wc && !wc->enumvals.empty()) {
    for (auto& p : proposals) {
      if (p.name == "wal_compression" && !Contains(wc->enumvals, p.value.word)) {
        p.value = SettingValue::Word(Contains(wc->enumvals, "pglz") ? "pglz" : "on");
      }
    }
  }
  for (const auto& [name, value] : overrides.values) {
    if (has_server && !cur(name)) {
      return InvalidArgument(fmt::format("--set {}: this server has no such setting", name));
    }
    if (!has_server) {
      // No pg_settings to check against: PostgreSQL's own ranges, from pgrig's table.
      PGRIG_RETURN_IF_ERROR(CheckOfflineValue(name, value, inputs.server_major));
    }
    auto it = std::find_if(proposals.begin(), proposals.end(),
                           [&](const Proposal& p) { return p.name == name; });
    Proposal p{name, value, "set with --set", "user.override"};
    if (it != proposals.end()) {
      *it = p;
    } else {
      proposals.push_back(p);
    }
  }

  SettingMap base = has_server ? ToSettingMap(current) : DefaultSettings(inputs.server_major);
  SettingMap merged = Overlay(base, proposals);
  Status inv = CheckInvariants(merged);
  if (!inv.ok()) {
    return InvalidArgument(inv.message() + (overrides.values.empty()
                                                ? " (with this server's other settings)"
                                                : "; change the --set values"));
  }
  rep.budget = ComputeBudget(merged, inputs.memory_bytes, inputs.server_major);
  if (!rep.budget.fits()) {
    std::string msg =
        fmt::format("the worst-case memory use would be {}, over 90% of {} ({})",
                    HumanBytes(rep.budget.total_bytes), HumanBytes(inputs.memory_bytes),
                    HumanBytes(rep.budget.limit_bytes));
    if (!overrides.values.empty()) return InvalidArgument(msg + "; lower the --set values");
    rep.warnings.push_back(msg +
                           " because of settings pgrig does not change (for example "
                           "hash_mem_multiplier or max_prepared_transactions); review them");
  }

  for (const auto& p : proposals) {
    Recommendation r;
    r.name = p.name;
    r.value = p.value;
    r.proposed = p.value.ToConf();
    r.reason = p.reason;
    r.rule = p.rule;
    if (const CurrentSetting* c = cur(p.name)) {
      r.unit = c->unit;
      r.context = c->context;
      auto cv = FromPgSettings(c->name, c->setting, c->unit, c->vartype);
      if (cv.ok()) {
        r.current = cv->ToConf();
        r.changed = !WithinThreshold(*cv, p.value);
      } else {
        r.current = c->setting;
      }
    } else {
      r.context = OfflineContext(p.name, inputs.server_major);
    }
    r.apply = r.context == "postmaster" ? Apply::kRestart : Apply::kReload;
    rep.recommendations.push_back(std::move(r));
  }
  return rep;
}

}  // namespace pgrig::tune
