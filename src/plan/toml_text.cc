// The one TOML reader for pgrig's own files: see toml_text.h.
#include "plan/toml_text.h"

#include <fmt/format.h>

namespace pgrig::plan {

Result<toml::table> ParseTomlText(std::string_view text, const std::string& file) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    return InvalidArgument(fmt::format("{}:{}: not valid TOML: {} (column {})", file,
                                       e.source().begin.line, e.description(),
                                       e.source().begin.column));
  }
#else
  toml::parse_result r = toml::parse(text, std::string_view(file));
  if (!r) {
    return InvalidArgument(fmt::format("{}:{}: not valid TOML: {} (column {})", file,
                                       r.error().source().begin.line, r.error().description(),
                                       r.error().source().begin.column));
  }
  return std::move(r).table();
#endif
}

}  // namespace pgrig::plan
