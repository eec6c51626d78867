// pgrig compare DIR_A DIR_B [DIR_C ...]: suites side by side.  The first is
// the base; every other one is compared with it cell by cell (ratio of
// geometric means, Welch t 95% interval on the log scale), mismatches first,
// then the decision table, the cell comparisons, claims and the facts diff.
// Figures come from report/; this file parses options and prints.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/report_output.h"
#include "report/claims.h"
#include "report/compare.h"
#include "report/render.h"

namespace pgrig::cli {
namespace {

constexpr const char* kCompareFooter =
    R"(Each DIR is a `pgrig run` results directory (suite.json) or a JSON file
from `pgrig run`, `pgrig bench --json`, `pgrig lio run --json` or `pgrig fsync
--json`; logical reads per second are never divided by transactions per
second (such cells are listed as a mismatch).  DIR_A is the base: ratios read
"other / A".  Cells match on workload, protocol, settings variant, clients
and threads.  One DIR alone whose plan had `builds` compares its builds (the
plan's first build is the base, each build labelled by its name).

Verdicts: "faster"/"slower" only when the whole 95% interval of the tps ratio
lies above/below 1.0, otherwise "no significant difference"; "not decidable"
with fewer than 2 iterations on a side.  With m cells, chance alone calls
about 0.05 m of them faster or slower: the output says how many, and
--family-wise holm keeps the chance of any false call at 5%.  The decision
table reads, per workload kind, one cell every suite measured (its interval
widened for the choice); --best-each takes each suite's own best instead.  Mismatches that make a comparison
unfair (scale, PostgreSQL major version, fsync/synchronous_commit/wal_level,
different plans, a saturated client, steal time, failed runs) come first.

Claims name suites by letter in command-line order (A, B, C, ...) or label:
  --claim "A is 1.38x B on read-only"   --claim "B: 19,000 TPS per dollar"
and may end "in cell ID" or "at peak"; otherwise every matching cell is
judged.  Each is supported, contradicted or undecided (with the iterations
that would likely decide it); --claim-tolerance sets how near the claimed
value counts as meeting it (default 0.05 = 5%).

Examples:
  pgrig compare results/graviton-* results/xeon-*
  pgrig compare A B --usd-per-hour 0.68 --usd-per-hour 0.85 --format html --out ab.html

Exit codes: 0 success, 1 bad invocation or input, 3 no cell of one suite matches
a cell of the other (nothing was compared; the output says why).  See docs/report.md.)";

constexpr CommandName kCompareCommand{"pgrig compare"};

}  // namespace

int RunCompare(int argc, char** argv) {
  CLI::App app{"Compare benchmark suites: ratios with 95% intervals, mismatches, price.",
               "pgrig compare"};
  app.footer(kCompareFooter);
  std::vector<std::string> dirs, claims, prices;
  std::string format_name = "text", out;
  app.add_option("DIRS", dirs,
                 "two or more results directories or JSON files, or one suite whose plan had "
                 "builds (its builds are compared)")
      ->required()
      ->expected(1, -1);
  app.add_option("--format", format_name, "text (default), markdown, csv, json or html");
  app.add_option("--out", out, "write to FILE (atomically) instead of standard output");
  app.add_option("--claim", claims, "check a published claim against the data (repeatable)");
  app.add_option("--usd-per-hour", prices, "price per suite, in order (\"-\" keeps the suite's)");
  std::string family_wise = "none";
  bool best_each = false;
  double tolerance = report::ClaimOptions{}.tolerance;
  app.add_option("--family-wise", family_wise,
                 "none (default: each cell at 95%) or holm (at most 5% chance of any false "
                 "\"faster\"/\"slower\" among the cells)");
  app.add_flag("--best-each", best_each,
               "decision table: each suite's own best cell, even of different coordinates");
  app.add_option("--claim-tolerance", tolerance,
                 "how near the claimed value counts as meeting it, relative (default 0.05)");
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  auto format = report::ParseFormat(format_name);
  if (!format.ok()) return Fail(kCompareCommand, format.status().message());
  auto fw = report::ParseFamilyWise(family_wise);
  if (!fw.ok()) return Fail(kCompareCommand, fw.status().message());
  if (!(tolerance >= 0 && tolerance <= 1)) {
    return Fail(kCompareCommand, "--claim-tolerance: must be between 0 and 1 (0.05 = 5%)");
  }
  return CompareSuites(CompareRequest{.dirs = dirs,
                                      .claims = claims,
                                      .prices = prices,
                                      .format = *format,
                                      .out = out,
                                      .options = {.family_wise = *fw, .best_each = best_each},
                                      .claim_options = {.tolerance = tolerance}});
}

int CompareSuites(const CompareRequest& r) {
  if (!r.out.empty()) {
    if (Status st = CheckWritable(r.out); !st.ok()) return Fail(kCompareCommand, st.message());
  }
  auto price = ParsePrices(r.prices, r.dirs.size());
  if (!price.ok()) return Fail(kCompareCommand, price.status().message());
  // One suite: its builds are compared (a plan with `builds`).
  const bool builds = r.dirs.size() == 1;
  auto loaded = LoadAndAnalyze(r.dirs, *price, builds);
  if (!loaded.ok()) return Fail(kCompareCommand, loaded.status().message());
  if (loaded->suites.size() < 2) {
    return Fail(kCompareCommand,
                r.dirs.front() +
                    " is one suite and its plan had no builds: give two or more suites, or one "
                    "whose plan compared PostgreSQL builds (docs/plans.md \"Builds\")");
  }
  const auto suites = loaded->Pointers();
  auto comparison = report::Compare(suites, r.options);
  if (!comparison.ok()) return Fail(kCompareCommand, comparison.status().message());
  report::CompareInput in;
  in.comparison = &*comparison;
  for (const std::string& c : r.claims) {
    auto checked = report::CheckClaim(c, suites, r.claim_options);
    if (!checked.ok()) return Fail(kCompareCommand, checked.status().message());
    in.claims.push_back(std::move(*checked));
  }
  if (Status st = Emit(r.out, report::RenderComparison(in, r.format)); !st.ok())
    return Fail(kCompareCommand, st.message());
  if (!r.out.empty()) std::fprintf(stderr, "pgrig compare: wrote %s\n", r.out.c_str());
  if (!comparison->AnyMatched()) {
    std::fprintf(stderr,
                 "pgrig compare: no cell of one suite matches a cell of the other (see the "
                 "mismatches): nothing was compared\n");
    return kExitNothingComparable;
  }
  return kExitOk;
}

}  // namespace pgrig::cli
