#include "results/json_read.h"

#include <fmt/format.h>

#include <utility>

namespace pgrig::results {

const nlohmann::json* FindPath(const nlohmann::json& root,
                               std::initializer_list<const char*> path) {
  const nlohmann::json* cur = &root;
  for (const char* step : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(step);
    if (it == cur->end() || it->is_null()) return nullptr;
    cur = &*it;
  }
  return cur;
}

namespace {

// 1-based line and column of a byte offset.
std::pair<size_t, size_t> LineColumnAt(std::string_view text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

Result<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& file,
                                       std::string_view what) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = LineColumnAt(text, e.byte > 0 ? e.byte - 1 : 0);
    return InvalidArgument(
        fmt::format("{}:{}:{}: not valid JSON; expected {}", file, line, col, what));
  }
  if (!doc.is_object()) {
    return InvalidArgument(fmt::format("{}: not a JSON object; expected {}", file, what));
  }
  return doc;
}

}  // namespace pgrig::results
