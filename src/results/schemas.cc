#include "results/schemas.h"

#include <fmt/format.h>

#include <string_view>

namespace pgrig::results {

Status CheckSchema(const nlohmann::json& doc, const char* expected, const std::string& where) {
  if (!doc.is_object()) {
    return InvalidArgument(
        fmt::format("{}: not a {} document (not a JSON object)", where, expected));
  }
  auto it = doc.find("schema");
  if (it == doc.end() || !it->is_string()) {
    return InvalidArgument(fmt::format("{}: no \"schema\" key; expected \"{}\"", where, expected));
  }
  const std::string found = it->get<std::string>();
  if (found == expected) return Status::Ok();
  const std::string_view want(expected);
  const std::string_view family = want.substr(0, want.find('/') + 1);  // "pgrig.suite/"
  if (std::string_view(found).starts_with(family)) {
    // Versions are whole numbers; a longer one is a larger one.
    const std::string_view have = std::string_view(found).substr(family.size());
    const std::string_view want_version = want.substr(family.size());
    const bool newer = have.size() != want_version.size() ? have.size() > want_version.size()
                                                          : have > want_version;
    return InvalidArgument(
        fmt::format("{}: \"{}\" is another version of \"{}\"; {}", where, found, expected,
                    newer ? "a newer pgrig may have written it" : "an older pgrig wrote it"));
  }
  return InvalidArgument(fmt::format("{}: a \"{}\" document, not \"{}\"", where, found, expected));
}

}  // namespace pgrig::results
