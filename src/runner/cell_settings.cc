// Splitting a plan's settings by context, and the libpq options string.
// Reading each value against pg_settings is setting_value.cc's.
#include "runner/cell_settings.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "common/strings.h"
#include "runner/setting_value.h"
#include "tune/apply.h"

namespace pgrig::runner {

namespace {

char* EnvOrNull(const char* name) { return std::getenv(name); }

}  // namespace

Result<SplitSettings> SplitAndValidate(const tune::CurrentSettings& pg_settings,
                                       const std::map<std::string, std::string>& settings) {
  PGRIG_ASSIGN_OR_RETURN(std::vector<CheckedSetting> checked, CheckSettings(pg_settings, settings));
  SplitSettings out;
  for (auto& c : checked) {
    bool per_connection = c.context == "user" || c.context == "superuser";
    (per_connection ? out.per_connection : out.server)[c.name] = c.text;
  }
  return out;
}

Result<SplitSettings> SplitAndValidate(pg::Connection& conn,
                                       const std::map<std::string, std::string>& settings) {
  if (settings.empty()) return SplitSettings{};
  auto table = tune::ReadCurrentSettings(conn);
  if (!table.ok()) {
    return Status(table.status().code(), "cannot read pg_settings to check the plan's settings: " +
                                             table.status().message());
  }
  return SplitAndValidate(*table, settings);
}

std::string ConnectionOptions(const std::map<std::string, std::string>& per_connection) {
  // libpq splits "options" at unescaped spaces; a backslash escapes the next
  // character, so spaces and backslashes in a value are backslash-escaped.
  auto escape = [](std::string_view s) {
    std::string out;
    for (char ch : s) {
      if (ch == ' ' || ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' ||
          ch == '\v') {
        out += '\\';
      }
      out += ch;
    }
    return out;
  };
  std::string out;
  for (const auto& [name, value] : per_connection) {
    if (!out.empty()) out += ' ';
    out += "-c " + escape(name) + "=" + escape(value);
  }
  return out;
}

pg::ConnectionParams WithConnectionSettings(
    pg::ConnectionParams params, const std::map<std::string, std::string>& per_connection) {
  if (per_connection.empty()) return params;
  std::string ours = ConnectionOptions(per_connection);
  for (auto& [key, value] : params.extra) {
    if (key == "options") {
      value = value.empty() ? ours : value + " " + ours;
      return params;
    }
  }
  // An explicit "options" replaces PGOPTIONS, so keep what the user set there.
  const char* env = EnvOrNull("PGOPTIONS");
  std::string base = env ? std::string(Trim(env)) : "";
  params.extra.emplace_back("options", base.empty() ? ours : base + " " + ours);
  return params;
}

}  // namespace pgrig::runner
