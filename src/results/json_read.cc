#include "results/json_read.h"

#include <fmt/format.h>

#include <limits>
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

// The reason in a nlohmann exception's text, without its
// "[json.exception.<kind>.<id>] " prefix.
std::string_view Reason(std::string_view what) {
  const size_t close = what.find("] ");
  return close == std::string_view::npos ? what : what.substr(close + 2);
}

}  // namespace

Result<nlohmann::json> ParseJson(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = LineColumnAt(text, e.byte > 0 ? e.byte - 1 : 0);
    return InvalidArgument(
        fmt::format("{}:{}:{}: not valid JSON: {}", file, line, col, Reason(e.what())));
  } catch (const nlohmann::json::exception& e) {
    // "number overflow parsing '1e400'": no offset comes with it; the
    // token's first place in the text is where it is.
    const std::string_view reason = Reason(e.what());
    size_t at = std::string_view::npos;
    if (const size_t q = reason.find('\''); q != std::string_view::npos) {
      const size_t end = reason.find('\'', q + 1);
      if (end != std::string_view::npos && end > q + 1) {
        at = text.find(reason.substr(q + 1, end - q - 1));
      }
    }
    if (at == std::string_view::npos) {
      return InvalidArgument(fmt::format("{}: not valid JSON: {}", file, reason));
    }
    auto [line, col] = LineColumnAt(text, at);
    return InvalidArgument(fmt::format("{}:{}:{}: not valid JSON: {}", file, line, col, reason));
  }
}

Result<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& file,
                                       std::string_view what) {
  auto doc = ParseJson(text, file);
  if (!doc.ok())
    return Status(doc.status().code(), doc.status().message() + "; expected " + std::string(what));
  if (!doc->is_object()) {
    return InvalidArgument(fmt::format("{}: not a JSON object; expected {}", file, what));
  }
  return doc;
}

Status JsonFields::Bad(const char* key, const char* want) const {
  return InvalidArgument(fmt::format("{}: \"{}\" must be {}", where_, key, want));
}

Status JsonFields::Str(const char* key, std::string& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_string()) return Bad(key, "a string");
  out = j->get<std::string>();
  return Status::Ok();
}

Status JsonFields::OptStr(const char* key, std::optional<std::string>& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_string()) return Bad(key, "a string or null");
  out = j->get<std::string>();
  return Status::Ok();
}

Status JsonFields::Num(const char* key, double& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_number()) return Bad(key, "a number");
  out = j->get<double>();
  return Status::Ok();
}

Status JsonFields::OptNum(const char* key, std::optional<double>& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_number()) return Bad(key, "a number or null");
  out = j->get<double>();
  return Status::Ok();
}

Status JsonFields::Int(const char* key, int64_t& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_number_integer()) return Bad(key, "a whole number");
  out = j->get<int64_t>();
  return Status::Ok();
}

Status JsonFields::Int(const char* key, int& out) const {
  int64_t v = out;
  PGRIG_RETURN_IF_ERROR(Int(key, v));
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    return Bad(key, "a whole number in the range of int");
  }
  out = static_cast<int>(v);
  return Status::Ok();
}

Status JsonFields::Count(const char* key, int64_t& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_number_integer() || j->get<int64_t>() < 0 || j->get<int64_t>() > kMaxDocumentCount) {
    return Bad(key, "a whole number in [0, 10^15]");
  }
  out = j->get<int64_t>();
  return Status::Ok();
}

Status JsonFields::OptInt(const char* key, std::optional<int64_t>& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_number_integer()) return Bad(key, "a whole number or null");
  out = j->get<int64_t>();
  return Status::Ok();
}

Status JsonFields::Bool(const char* key, bool& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_boolean()) return Bad(key, "true or false");
  out = j->get<bool>();
  return Status::Ok();
}

Status JsonFields::Strings(const char* key, std::vector<std::string>& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_array()) return Bad(key, "an array of strings");
  for (const nlohmann::json& s : *j) {
    if (!s.is_string()) return Bad(key, "an array of strings");
    out.push_back(s.get<std::string>());
  }
  return Status::Ok();
}

Status JsonFields::StringMap(const char* key, std::map<std::string, std::string>& out) const {
  const nlohmann::json* j = Get(key);
  if (j == nullptr) return Status::Ok();
  if (!j->is_object()) return Bad(key, "an object of strings");
  for (const auto& [k, v] : j->items()) {
    if (!v.is_string()) return Bad(key, "an object of strings");
    out[k] = v.get<std::string>();
  }
  return Status::Ok();
}

nlohmann::json JsonFields::Raw(const char* key) const {
  const nlohmann::json* j = Get(key);
  return j == nullptr ? nlohmann::json(nullptr) : *j;
}

Result<const nlohmann::json*> JsonFields::Object(const char* key) const {
  const nlohmann::json* j = Get(key);
  if (j != nullptr && !j->is_object()) return Bad(key, "an object or null");
  return j;
}

Result<const nlohmann::json*> JsonFields::Array(const char* key) const {
  const nlohmann::json* j = Get(key);
  if (j != nullptr && !j->is_array()) return Bad(key, "an array");
  return j;
}

}  // namespace pgrig::results
