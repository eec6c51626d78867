// What `pgrig report` and `pgrig compare` share: loading suites with the
// command-line price overrides, checking --out before anything is read, and
// writing the rendering atomically or to stdout.  cli/ only.
#ifndef PGRIG_CLI_REPORT_OUTPUT_H_
#define PGRIG_CLI_REPORT_OUTPUT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/analysis.h"
#include "report/claims.h"
#include "report/compare.h"
#include "report/render.h"
#include "results/model.h"

namespace pgrig::cli {

// Suites and their analyses; the analyses point into the suites, so both
// live here together and never move.
struct LoadedSuites {
  std::vector<std::unique_ptr<results::Suite>> suites;
  std::vector<std::unique_ptr<report::SuiteStats>> stats;
  std::vector<const report::SuiteStats*> Pointers() const;
};

// --usd-per-hour values, one per suite in order ("-" keeps the suite's own).
Result<std::vector<std::optional<double>>> ParsePrices(const std::vector<std::string>& texts,
                                                       size_t suites);

// Loads and analyses every path, applying prices[i] when set.  With
// `split_builds`, a suite whose plan had builds becomes one suite per build
// (results::SplitByBuild), each with the suite's price.
Result<LoadedSuites> LoadAndAnalyze(const std::vector<std::string>& paths,
                                    const std::vector<std::optional<double>>& prices,
                                    bool split_builds = false);
// The analysis half of LoadAndAnalyze, for suites already in memory (the
// labels made distinct the same way).
Result<LoadedSuites> AnalyzeSuites(std::vector<results::Suite> suites);

// Fails unless `path`'s directory exists and is writable (and the file, when it exists).
Status CheckWritable(const std::string& path);

// Writes `text` to `path` atomically, or to stdout when path is empty.
Status Emit(const std::string& path, const std::string& text);

// What `pgrig compare` does once its command line is read, for it and for
// `fleet run` (which compares the hosts' suites): loads the suites, compares
// them, checks the claims and emits the rendering; prints its own error
// line and returns the exit code.
struct CompareRequest {
  // Two or more results directories or files, or one whose plan had builds
  // (its builds are compared, the plan's first build the baseline).
  std::vector<std::string> dirs;
  std::vector<std::string> claims;  // --claim
  std::vector<std::string> prices;  // --usd-per-hour, one per suite or none
  report::Format format = report::Format::kText;
  std::string out;                     // empty: standard output
  report::CompareOptions options;      // --family-wise, --best-each
  report::ClaimOptions claim_options;  // --claim-tolerance
};
int CompareSuites(const CompareRequest& request);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_REPORT_OUTPUT_H_
