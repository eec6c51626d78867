// Internal to the results module: what its readers share to walk a JSON
// document, read typed values naming the key on error, and turn a syntax
// error into a message naming the file, line and column.  Thread-compatible.
#ifndef PGRIG_RESULTS_JSON_READ_H_
#define PGRIG_RESULTS_JSON_READ_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pgrig::results {

// The value at a path of object keys ({"summary", "tps"}); nullptr when a
// step is missing, is not an object, or the value is null.
const nlohmann::json* FindPath(const nlohmann::json& root, std::initializer_list<const char*> path);

// `text` parsed as JSON: any syntax error, and a number beyond a double's
// range (which nlohmann reports as out_of_range, not as a syntax error), is
// an InvalidArgument "<file>:<line>:<column>: not valid JSON: <reason>".
// Nothing the parser throws escapes.
Result<nlohmann::json> ParseJson(std::string_view text, const std::string& file);

// `text` parsed as one JSON object.  A syntax error is an InvalidArgument
// "<file>:<line>:<column>: not valid JSON (...)"; another value than an object
// "<file>: not a JSON object".  `what` ends both ("; expected <what>").
Result<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& file,
                                       std::string_view what);

// The largest count a document may hold (transactions, failures, bytes...):
// 10^15, a billion transactions a second for eleven days.  Far below
// int64's range, so that a fleet's merge can add the counts of thousands of
// documents without overflow, and exact as a double.
inline constexpr int64_t kMaxDocumentCount = 1'000'000'000'000'000;

// Typed reads of one object's keys: a missing or null key leaves the output
// as it was (the caller's default); a value of another type is an
// InvalidArgument "<where>: "<key>" must be <what>".  Holds a reference to
// the object.
class JsonFields {
 public:
  JsonFields(const nlohmann::json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  Status Bad(const char* key, const char* want) const;
  const nlohmann::json* Get(const char* key) const { return FindPath(obj_, {key}); }
  const std::string& where() const { return where_; }

  Status Str(const char* key, std::string& out) const;
  Status OptStr(const char* key, std::optional<std::string>& out) const;
  Status Num(const char* key, double& out) const;
  Status OptNum(const char* key, std::optional<double>& out) const;
  Status Int(const char* key, int64_t& out) const;
  Status Int(const char* key, int& out) const;
  Status OptInt(const char* key, std::optional<int64_t>& out) const;
  // A whole number in [0, kMaxDocumentCount].
  Status Count(const char* key, int64_t& out) const;
  Status Bool(const char* key, bool& out) const;
  Status Strings(const char* key, std::vector<std::string>& out) const;
  Status StringMap(const char* key, std::map<std::string, std::string>& out) const;
  // The value as it is (null when absent).
  nlohmann::json Raw(const char* key) const;
  // An object or nothing (nullptr); anything else is an error.
  Result<const nlohmann::json*> Object(const char* key) const;
  // An array or nothing (nullptr); anything else is an error.
  Result<const nlohmann::json*> Array(const char* key) const;

 private:
  const nlohmann::json& obj_;
  std::string where_;
};

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_JSON_READ_H_
