// Reading results into the report model (model.h): a `pgrig run` results
// directory or its suite.json (schema pgrig.suite/1), or one `pgrig bench
// --json` file (pgrig.result/1, read as a suite of one cell and one run).
//
// `schema` is checked first: a document without one, or with a major
// version this build does not know, is refused with a message naming the
// file.  Key names follow docs/results-format.md; this is the only file of
// the module that knows them.  Pure apart from reading the file; thread-safe.
#ifndef PGRIG_REPORT_READER_H_
#define PGRIG_REPORT_READER_H_

#include <string>
#include <string_view>

#include "common/status.h"
#include "report/model.h"

namespace pgrig::report {

inline constexpr const char* kSuiteSchema = "pgrig.suite/1";
inline constexpr const char* kResultSchema = "pgrig.result/1";

// `path` is a results directory (its suite.json is read) or a JSON file.
// kNotFound when nothing is there, kInvalidArgument for a document that is
// not a pgrig suite or result (naming file, and line:column for syntax errors).
Result<Suite> LoadSuite(const std::string& path);

// The same from text; `source` names the input in messages and in the model.
Result<Suite> ParseSuiteJson(std::string_view text, const std::string& source);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_READER_H_
