// Renderers of finished reports: terminal text, markdown, CSV, JSON and a
// self-contained HTML page with inline SVG charts.  They lay out the figures
// that analysis.h, compare.h and claims.h computed and never compute
// statistics themselves (a ratio, an interval or a percentile printed here
// was computed there).  They return strings; cli/ prints or writes them.
// Pure functions; thread-safe.
#ifndef PGRIG_REPORT_RENDER_H_
#define PGRIG_REPORT_RENDER_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "report/analysis.h"
#include "report/claims.h"
#include "report/compare.h"

namespace pgrig::report {

enum class Format { kText, kMarkdown, kCsv, kJson, kHtml };

// "text", "markdown" (or "md"), "csv", "json", "html".
Result<Format> ParseFormat(const std::string& name);

// One suite (`pgrig report`): warnings first, the cell table, claims.
struct ReportInput {
  const SuiteStats* suite = nullptr;
  std::vector<Mismatch> warnings;  // SuiteWarnings(*suite)
  std::vector<ClaimCheck> claims;
};

// Several suites (`pgrig compare`).
struct CompareInput {
  const Comparison* comparison = nullptr;
  std::vector<ClaimCheck> claims;
};

std::string RenderReport(const ReportInput& in, Format format);
std::string RenderComparison(const CompareInput& in, Format format);

}  // namespace pgrig::report

#endif  // PGRIG_REPORT_RENDER_H_
