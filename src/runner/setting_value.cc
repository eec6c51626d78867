// A plan's setting values read against their pg_settings rows (see
// setting_value.h).
#include "runner/setting_value.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "common/strings.h"
#include "tune/apply.h"

namespace pgrig::runner {

namespace {

enum class UnitKind { kNone, kMemory, kTime };

// PostgreSQL's memory units, in bytes (case-sensitive, as the server takes them).
std::optional<double> MemoryUnit(std::string_view u) {
  if (u == "B") return 1.0;
  if (u == "kB") return 1024.0;
  if (u == "MB") return 1024.0 * 1024;
  if (u == "GB") return 1024.0 * 1024 * 1024;
  if (u == "TB") return 1024.0 * 1024 * 1024 * 1024;
  return std::nullopt;
}

// PostgreSQL's time units, in microseconds.
std::optional<double> TimeUnit(std::string_view u) {
  if (u == "us") return 1.0;
  if (u == "ms") return 1e3;
  if (u == "s") return 1e6;
  if (u == "min") return 60e6;
  if (u == "h") return 3600e6;
  if (u == "d") return 86400e6;
  return std::nullopt;
}

// A pg_settings unit ("8kB", "MB", "s", "ms"): its kind and size in the
// kind's base (bytes or microseconds).
std::pair<UnitKind, double> RowUnit(std::string_view unit) {
  if (unit.empty()) return {UnitKind::kNone, 1.0};
  if (auto t = TimeUnit(unit)) return {UnitKind::kTime, *t};
  size_t i = 0;
  while (i < unit.size() && std::isdigit(static_cast<unsigned char>(unit[i]))) ++i;
  double count = i == 0 ? 1.0 : static_cast<double>(ParseInt64(unit.substr(0, i)).value_or(1));
  if (auto m = MemoryUnit(unit.substr(i))) return {UnitKind::kMemory, count * *m};
  return {UnitKind::kNone, 1.0};  // a unit pgrig does not know: plain numbers only
}

std::optional<std::string> BoolWord(std::string_view text) {
  std::string w = ToLower(Trim(text));
  if (w == "on" || w == "true" || w == "yes" || w == "1") return "on";
  if (w == "off" || w == "false" || w == "no" || w == "0") return "off";
  return std::nullopt;
}

Result<tune::SettingValue> ParseNumber(const tune::CurrentSetting& row, std::string_view text) {
  std::string t(Trim(text));
  const char* begin = t.c_str();
  char* end = nullptr;
  double number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number)) {
    return InvalidArgument(
        fmt::format("{} = '{}': must be a number{}", row.name, t,
                    row.unit.empty() ? "" : " (with a unit, or in " + row.unit + ")"));
  }
  std::string unit(Trim(std::string_view(end)));
  auto [kind, row_factor] = RowUnit(row.unit);
  double in_unit = number;
  if (!unit.empty()) {
    std::optional<double> f = kind == UnitKind::kMemory ? MemoryUnit(unit)
                              : kind == UnitKind::kTime ? TimeUnit(unit)
                                                        : std::nullopt;
    if (!f) {
      const char* valid = kind == UnitKind::kMemory ? "B, kB, MB, GB or TB"
                          : kind == UnitKind::kTime ? "us, ms, s, min, h or d"
                                                    : nullptr;
      if (!valid) {
        return InvalidArgument(
            fmt::format("{} = '{}': this setting takes a plain number, no unit", row.name, t));
      }
      return InvalidArgument(fmt::format("{} = '{}': unknown unit '{}'; {} takes {} (case matters)",
                                         row.name, t, unit, row.name, valid));
    }
    in_unit = number * *f / row_factor;
  }
  if (row.vartype == "real") return tune::SettingValue::Real(in_unit);
  // Integer settings: PostgreSQL rounds to the setting's unit.
  double rounded = std::rint(in_unit);
  if (std::fabs(rounded) > 9.2e18) {
    return InvalidArgument(fmt::format("{} = '{}': out of range", row.name, t));
  }
  auto n = static_cast<int64_t>(rounded);
  if (n < 0 || kind == UnitKind::kNone) return tune::SettingValue::Integer(n);
  // The canonical form tune::FromPgSettings gives for the live value.
  if (kind == UnitKind::kMemory) {
    return tune::SettingValue::Bytes(static_cast<uint64_t>(static_cast<double>(n) * row_factor));
  }
  if (row_factor < 1e3) return tune::SettingValue::Integer(n);  // a microsecond unit
  return tune::SettingValue::Millis(
      static_cast<int64_t>(static_cast<double>(n) * row_factor / 1e3));
}

std::string Suggestion(const tune::CurrentSettings& table, const std::string& name) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& [known, row] : table) {
    size_t d = EditDistance(name, known);
    if (d < best_d) {
      best_d = d;
      best = known;
    }
  }
  if (best.empty() || best_d > name.size() / 2 + 1) return "";
  return best;
}

}  // namespace

Result<CheckedSetting> ParseSettingValue(const tune::CurrentSetting& row, std::string_view text) {
  CheckedSetting c;
  c.name = row.name;
  c.context = row.context;
  c.text = std::string(Trim(text));
  if (row.vartype == "bool") {
    auto w = BoolWord(text);
    if (!w) {
      return InvalidArgument(fmt::format(
          "{} = '{}': must be on or off (or true/false, yes/no, 1/0)", row.name, c.text));
    }
    c.text = *w;
    c.value = tune::SettingValue::Word(*w);
  } else if (row.vartype == "enum") {
    std::string w = ToLower(c.text);
    bool listed = false;
    bool has_on_off = false;
    for (const auto& e : row.enumvals) {
      listed |= ToLower(e) == w;
      has_on_off |= e == "on";
    }
    // Enums with on/off (synchronous_commit, huge_pages...) take the boolean spellings too.
    if (!listed && has_on_off) {
      if (auto b = BoolWord(w)) w = *b;
    }
    c.value = tune::SettingValue::Word(w);  // tune::Validate checks it against enumvals
  } else if (row.vartype == "integer" || row.vartype == "real") {
    PGRIG_ASSIGN_OR_RETURN(c.value, ParseNumber(row, text));
  } else {
    c.value = tune::SettingValue::Word(c.text);
  }
  return c;
}

Result<std::vector<CheckedSetting>> CheckSettings(
    const tune::CurrentSettings& table, const std::map<std::string, std::string>& settings) {
  std::vector<CheckedSetting> out;
  for (const auto& [given, text] : settings) {
    std::string name = ToLower(Trim(given));
    auto it = table.find(name);
    if (it == table.end()) {
      std::string close = Suggestion(table, name);
      std::string extension = name.find('.') != std::string::npos
                                  ? " (a setting of an extension that is not loaded?)"
                                  : "";
      return InvalidArgument(
          fmt::format("unknown setting '{}': this server has no such setting{}{}", given, extension,
                      close.empty() ? "" : fmt::format("; did you mean '{}'?", close)));
    }
    const tune::CurrentSetting& row = it->second;
    if (row.context == "internal") {
      return InvalidArgument(fmt::format(
          "{} cannot be changed: it is fixed when PostgreSQL is built or the cluster is created",
          name));
    }
    PGRIG_ASSIGN_OR_RETURN(CheckedSetting c, ParseSettingValue(row, text));
    // The range, enum and boolean checks are tune's.
    tune::Recommendation r;
    r.name = c.name;
    r.proposed = c.text;
    r.value = c.value;
    r.unit = row.unit;
    r.context = row.context;
    PGRIG_RETURN_IF_ERROR(tune::Validate({&r}, table));
    out.push_back(std::move(c));
  }
  return out;
}

bool LiveMatches(const tune::CurrentSetting& live, const CheckedSetting& want,
                 bool from_auto_conf) {
  if (live.vartype == "string") {
    return live.setting == want.text || from_auto_conf;
  }
  auto v = tune::FromPgSettings(live.name, live.setting, live.unit, live.vartype);
  return v.ok() && tune::LiveValueMatches(*v, want.value);
}

}  // namespace pgrig::runner
