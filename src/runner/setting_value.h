// Internal to runner/cell_settings: a plan's setting value read the way
// PostgreSQL reads it, against the setting's pg_settings row, so that
// tune::Validate can range-check it and tune::LiveValueMatches can compare it
// with what pg_settings shows after a change.  Values; thread-safe.
#ifndef PGRIG_RUNNER_SETTING_VALUE_H_
#define PGRIG_RUNNER_SETTING_VALUE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tune/recommend.h"
#include "tune/settings.h"

namespace pgrig::runner {

// One plan setting, checked against its pg_settings row.
struct CheckedSetting {
  std::string name;          // lower case, as pg_settings spells it
  std::string text;          // what goes to ALTER SYSTEM or "-c" (booleans as on/off)
  std::string context;       // pg_settings.context
  tune::SettingValue value;  // canonical (bytes, ms, number in the row's unit, word)
};

// Parses `text` as PostgreSQL would for the setting `row` describes: booleans
// (on/off/true/false/yes/no/1/0), enums (case-insensitive), integers and
// reals with the units PostgreSQL accepts for the setting (B kB MB GB TB;
// us ms s min h d), rounded to the setting's unit as PostgreSQL rounds.
// Ranges are not checked here (tune::Validate does that).
Result<CheckedSetting> ParseSettingValue(const tune::CurrentSetting& row, std::string_view text);

// Looks every name up in `table` (the closest known name is suggested for an
// unknown one), parses and validates each value.  Settings that can never be
// changed (context "internal") are errors.
Result<std::vector<CheckedSetting>> CheckSettings(
    const tune::CurrentSettings& table, const std::map<std::string, std::string>& settings);

// True when pg_settings' `setting` (for the row's unit and vartype) is the
// value wanted.  `from_auto_conf`: pg_settings says the live value came from
// postgresql.auto.conf, which settles string settings PostgreSQL rewrites
// ('utc' -> 'UTC').
bool LiveMatches(const tune::CurrentSetting& live, const CheckedSetting& want, bool from_auto_conf);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_SETTING_VALUE_H_
