// Recommendations: the plan's proposals set against the server's current
// settings.
//
// Recommend() is pure: it takes the current settings (as pg_settings shows
// them, or none when no server is reachable) and returns, for every setting
// the rules touch, the current value, the proposed value, the reason, the
// rule, and whether a reload or a restart applies it (pg_settings.context).
// Values within 5% of the current one are kept but marked unchanged, so the
// diff shows only what matters.  ReadCurrentSettings() is the one function
// here that talks to a server.  Values; thread-safe.
#ifndef PGRIG_TUNE_RECOMMEND_H_
#define PGRIG_TUNE_RECOMMEND_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "tune/rules.h"
#include "tune/settings.h"

namespace pgrig::tune {

// One row of pg_settings.
struct CurrentSetting {
  std::string name;
  std::string setting;
  std::string unit;
  std::string context;  // "postmaster", "sighup", "user", ...
  std::string vartype;  // "bool", "integer", "real", "enum", "string"
  std::string min_val, max_val;
  std::vector<std::string> enumvals;
  std::string source;
  bool pending_restart = false;
};
using CurrentSettings = std::map<std::string, CurrentSetting>;

// Reads pg_settings (all rows).
Result<CurrentSettings> ReadCurrentSettings(pg::Connection& conn);

inline constexpr double kChangeThreshold = 0.05;

enum class Apply { kReload, kRestart };

struct Recommendation {
  std::string name;
  std::optional<std::string> current;  // display text ("128MB"); nullopt: unknown (no server)
  std::string proposed;                // display and SQL text ("4GB")
  SettingValue value;
  std::string unit;  // pg_settings unit, or "" for unit-less
  std::string reason;
  std::string rule;
  std::string context;  // pg_settings.context, or OfflineContext() offline
  Apply apply = Apply::kReload;
  bool changed = true;  // false: within 5% of (or equal to) the current value
};

struct Overrides {
  // name -> value given by the user with --set; replaces the rule's value.
  std::map<std::string, SettingValue> values;
};

struct TuneReport {
  Profile profile = Profile::kOltp;
  TuneInputs inputs;
  std::vector<Recommendation> recommendations;  // changed and unchanged, in rule order
  MemoryBudget budget;                          // of the configuration after the changes
  HugePagesPlan huge_pages;
  std::vector<std::string> advice;
  std::vector<std::string> warnings;
  bool trades_durability = false;
  bool has_server = false;

  std::vector<const Recommendation*> Changes() const;
  bool NeedsRestart() const;
};

// Builds the report.  `current` may be empty (no server): every proposal is
// then a change, the context comes from OfflineContext(), and every
// override is checked by CheckOfflineValue().  Fails on an override that
// names an unknown setting, is out of PostgreSQL's range, or breaks the
// budget or an invariant.
Result<TuneReport> Recommend(const TuneInputs& inputs, Profile profile,
                             const CurrentSettings& current, const Overrides& overrides = {});

// Parses "name=value" for --set.
Result<std::pair<std::string, SettingValue>> ParseOverride(const std::string& text);

// The server's current values as a SettingMap (for budgets and invariants).
SettingMap ToSettingMap(const CurrentSettings& current);

// The configuration the server would run with after the report's changes:
// the current settings (or PostgreSQL's defaults without a server) with the
// changed recommendations laid over them.
SettingMap CandidateConfig(const TuneReport& report, const CurrentSettings& current);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_RECOMMEND_H_
