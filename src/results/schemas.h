// The schema names of pgrig's results documents: the "schema" value at the
// top of each document, spelled here and nowhere else (tests aside).
// docs/results-format.md documents every document.  A reader checks a
// document's schema with CheckSchema before it reads anything else.
// Constants and a pure function; thread-safe.
#ifndef PGRIG_RESULTS_SCHEMAS_H_
#define PGRIG_RESULTS_SCHEMAS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace pgrig::results {

inline constexpr const char* kResultSchema =
    "pgrig.result/1";  // one run (bench --json, a suite's runs)
// pgrig run's suite.json.  /2 packs its runs' histograms; /1 is read (and
// resumed), never written.
inline constexpr const char* kSuiteSchema = "pgrig.suite/2";
inline constexpr const char* kSuiteSchemaV1 = "pgrig.suite/1";
inline constexpr const char* kLioResultSchema = "pgrig.lio/1";       // pgrig lio run --json
inline constexpr const char* kFsyncSchema = "pgrig.fsync/1";         // pgrig fsync --json
inline constexpr const char* kFleetRunSchema = "pgrig.fleet-run/1";  // a fleet run's manifest

// OK when `doc` is an object whose "schema" is `expected`; otherwise an
// InvalidArgument naming `where` and what was found (not an object, no
// schema, another document, or another version of this one).
Status CheckSchema(const nlohmann::json& doc, const char* expected, const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_SCHEMAS_H_
