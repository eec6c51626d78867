// Setting values as the tuner reasons about them, and what pgrig knows about
// the PostgreSQL settings it touches (units, defaults, restart context).
//
// A SettingValue is a typed value in a canonical unit: sizes in bytes, times
// in milliseconds, plain integers, reals, or an enum/bool word.  It converts
// to the text PostgreSQL accepts in postgresql.conf and ALTER SYSTEM
// ("4GB", "20971kB", "15min", "0.9", "off") and from the (setting, unit)
// pair pg_settings shows ("16384", "8kB").  Plain values; thread-safe.
//
// The tables here (defaults, contexts, ranges) describe PostgreSQL 13–18 and
// are used when no server is reachable; with a server, pg_settings is the
// authority and these are not consulted.
#ifndef PGRIG_TUNE_SETTINGS_H_
#define PGRIG_TUNE_SETTINGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::tune {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;

enum class ValueKind { kBytes, kMillis, kInteger, kReal, kWord };

struct SettingValue {
  ValueKind kind = ValueKind::kInteger;
  int64_t integer = 0;  // bytes, milliseconds or a plain integer
  double real = 0;
  std::string word;  // enum or bool value, lower case

  static SettingValue Bytes(uint64_t b) {
    return {ValueKind::kBytes, static_cast<int64_t>(b), 0, {}};
  }
  static SettingValue Millis(int64_t ms) { return {ValueKind::kMillis, ms, 0, {}}; }
  static SettingValue Integer(int64_t v) { return {ValueKind::kInteger, v, 0, {}}; }
  static SettingValue Real(double v) { return {ValueKind::kReal, 0, v, {}}; }
  static SettingValue Word(std::string w) { return {ValueKind::kWord, 0, 0, std::move(w)}; }

  bool numeric() const { return kind != ValueKind::kWord; }
  // The value as a number in its canonical unit (bytes, ms, or itself).
  double Number() const { return kind == ValueKind::kReal ? real : static_cast<double>(integer); }
  // Text for postgresql.conf / ALTER SYSTEM, using the largest exact unit.
  std::string ToConf() const;
  bool operator==(const SettingValue& o) const;
};

// How a setting's value is expressed; decides parsing of user overrides.
ValueKind KindOf(std::string_view setting_name);

// Parses a user-written value for `name` ("4GB", "15min", "0.9", "on").
// Sizes without a unit are taken in the setting's pg_settings unit as
// PostgreSQL itself does; kB is assumed for settings not in the table.
Result<SettingValue> ParseUserValue(std::string_view name, std::string_view text);

// Converts pg_settings' (setting, unit) pair; "-1" stays -1 (meaning "auto").
Result<SettingValue> FromPgSettings(std::string_view name, std::string_view setting,
                                    std::string_view unit, std::string_view vartype);

// Bytes (or ms) in one pg_settings unit: "8kB" -> 8192, "MB" -> 1 MiB,
// "s" -> 1000, "min" -> 60000; nullopt for an unknown unit.
std::optional<double> UnitMultiplier(std::string_view unit);

// A value expressed in the pg_settings unit `unit` (for min_val/max_val checks).
double InUnit(const SettingValue& v, std::string_view unit);

// Sizes parsed from the command line: "16GB", "512MB", "1.5TB"; a unit is
// required (KB/MB/GB/TB, also K/M/G/T and KiB/MiB/GiB/TiB; 1024-based).
// Sizes above kMaxParsedSize are refused as too large.
inline constexpr uint64_t kMaxParsedSize = 1024 * 1024 * 1024 * kGiB;  // 1 EiB
Result<uint64_t> ParseSize(std::string_view text);

// The effective configuration the rules reason about: name -> value.
using SettingMap = std::map<std::string, SettingValue>;

// PostgreSQL's built-in defaults for the settings the tuner touches or
// budgets, for server major version 13–18.
SettingMap DefaultSettings(int server_major);

// pg_settings.context of a setting pgrig knows ("postmaster", "sighup",
// "superuser", "user") in `server_major`, from PostgreSQL's own tables; for
// use when no server can be asked.  Unknown names: "user".
std::string OfflineContext(std::string_view name, int server_major);

// True when the setting can only change at server start ("postmaster"
// context); used only when pg_settings is unavailable.
bool NeedsRestartOffline(std::string_view name, int server_major);

// True when pgrig's table has the setting and it exists in `server_major`.
bool KnownSetting(std::string_view name, int server_major);

// The known setting of `server_major` closest to `name` by edit distance,
// when one is close enough to be a likely typo.
std::optional<std::string> ClosestSetting(std::string_view name, int server_major);

// PostgreSQL's accepted range for a numeric setting in the canonical unit
// (bytes, ms, or plain), for 8kB blocks on a 64-bit build.
struct SettingRange {
  double min = 0;
  double max = 0;
  bool minus_one = false;  // -1 ("automatic") is accepted too
};
std::optional<SettingRange> RangeOf(std::string_view name, int server_major);

// Checks a --set value without a server: the name must be a setting pgrig
// knows in `server_major` (else the error suggests the closest name), a
// number must lie in PostgreSQL's range, an enum must be one of its values.
Status CheckOfflineValue(std::string_view name, const SettingValue& value, int server_major);

// Reads a setting from a map, falling back to `fallback`.
int64_t GetInt(const SettingMap& m, const std::string& name, int64_t fallback);
double GetReal(const SettingMap& m, const std::string& name, double fallback);
std::string GetWord(const SettingMap& m, const std::string& name, const std::string& fallback);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_SETTINGS_H_
