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
    return InvalidArgument(
        fmt::format("{}: \"{}\" is another version of \"{}\"; a newer pgrig may have written it",
                    where, found, expected));
  }
  return InvalidArgument(fmt::format("{}: a \"{}\" document, not \"{}\"", where, found, expected));
}

}  // namespace pgrig::results
