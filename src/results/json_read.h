// Internal to the results module: what its readers share to walk a JSON
// document and to turn a syntax error into a message naming the file, line
// and column.  Pure functions; thread-safe.
#ifndef PGRIG_RESULTS_JSON_READ_H_
#define PGRIG_RESULTS_JSON_READ_H_

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::results {

// The value at a path of object keys ({"summary", "tps"}); nullptr when a
// step is missing, is not an object, or the value is null.
const nlohmann::json* FindPath(const nlohmann::json& root, std::initializer_list<const char*> path);

// `text` parsed as one JSON object.  A syntax error is an InvalidArgument
// "<file>:<line>:<column>: not valid JSON (...)"; another value than an object
// "<file>: not a JSON object".  `what` ends both ("; expected <what>").
Result<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& file,
                                       std::string_view what);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_JSON_READ_H_
