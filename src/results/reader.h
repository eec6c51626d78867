// Reading results into the report model (model.h): a `pgrig run` results
// directory or its suite.json (schema pgrig.suite/2, or /1 from an older pgrig), one `pgrig bench
// --json` file (pgrig.result/1, read as a suite of one cell and one run), one
// `pgrig lio run --json` file (pgrig.lio/1: a suite of one lio cell
// "lio/prepared/default/c<sessions>/j<sessions>", metric lio_per_s, one run),
// or one `pgrig fsync --json` file (pgrig.fsync/1: a suite without cells
// whose Suite::fsync holds the test).
//
// `schema` is checked first: a document without one, or with a major
// version this build does not know, is refused with a message naming the
// file.  Key names follow docs/results-format.md; this is the only file of
// the module that knows them.  Pure apart from reading the file; thread-safe.
#ifndef PGRIG_RESULTS_READER_H_
#define PGRIG_RESULTS_READER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "results/model.h"

namespace pgrig::results {

// The documents' schema names are results/schemas.h's.

// A suite's cells may be lio cells (cell "metric": "lio_per_s", runs in
// pgrig.lio/1: summary.lio_per_s is read as Run::tps, the range latency
// histogram as the latency), and suite "fsync" a pgrig.fsync/1 document
// (read into Suite::fsync).  Each embedded document is recognised by its own
// "schema".
//
// What a reader refuses, naming the file and the place: a run's rate
// (summary.tps, summary.lio_per_s) that is negative, not finite, or outside
// [kMinRate, kMaxRate] per second (a rate of 0 is read as a failed run that
// measured nothing); a cell id that appears twice; a number beyond a
// double's range anywhere in the text.
inline constexpr double kMinRate = 1e-6;
inline constexpr double kMaxRate = 1e12;

// `path` is a results directory (its suite.json is read) or a JSON file.
// kNotFound when nothing is there, kInvalidArgument for a document that is
// not one of these four documents (naming file, and line:column for syntax
// errors).
Result<Suite> LoadSuite(const std::string& path);

// The same from text; `source` names the input in messages and in the model.
Result<Suite> ParseSuiteJson(std::string_view text, const std::string& source);

// A suite whose plan had builds as one Suite per build, in the plan's order:
// labelled with the build's name, holding that build's cells with their ids
// without "@<build>" (so that the builds' cells match in report::Compare)
// and the build's server version, settings and build facts.  Empty when the
// suite has fewer than two builds.
std::vector<Suite> SplitByBuild(const Suite& suite);

// One element of a pgrig.suite/2 (or /1) "runs" array, read as LoadSuite reads it
// (`where` names it in errors): the suite writer sums its cells up over the
// same Runs that report reads (cell_summary.h).
Result<Run> ReadSuiteRunJson(const nlohmann::json& run, const std::string& where);

}  // namespace pgrig::results

#endif  // PGRIG_RESULTS_READER_H_
