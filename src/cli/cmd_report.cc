// pgrig report DIR: one suite (or one `pgrig bench --json` result) as a
// table, markdown, CSV, JSON or a self-contained HTML page; optionally loaded
// into a results database.  Figures come from report/ (which calls stats/);
// this file parses options, checks --out, and prints.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/report_output.h"
#include "pg/connection.h"
#include "report/claims.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/to_db.h"
#include "results/reader.h"

namespace pgrig::cli {
namespace {

constexpr const char* kReportFooter =
    R"(DIR is a `pgrig run` results directory (its suite.json, schema
pgrig.suite/2, or /1) or a JSON file written by `pgrig run`, `pgrig bench --json`,
`pgrig lio run --json` (one cell, in logical reads per second) or
`pgrig fsync --json` (the WAL flush table only).

Per cell: tps median [95% interval: t interval of the geometric mean on the log
scale], min - max, p50/p99 latency from the merged histograms of the cell's
runs, client and server CPU per transaction, the likely bottleneck, and
transactions per USD (tps x 3,600 / USD per hour) when the suite is priced.
Warnings (saturated client, steal, failed runs, incomplete suite) come first.

Claims: --claim "19,000 TPS per dollar" or "5.1M transactions per dollar on
read-write", optionally ending "in cell ID" or "at peak" (otherwise every
matching cell is judged): supported (the 95% interval meets the claim within
--claim-tolerance, default 0.05 = 5%), contradicted (it misses it), or
undecided (no price, fewer than 2 iterations, cells that disagree).

--to-db CONNINFO loads the suite into schema pgrig_results (tables suites,
cells, runs, with each figure's metric, and fsync, fsync_tests), replacing an
earlier load of the same suite id.

Examples:
  pgrig report results/standard-20261201T100000Z
  pgrig report results/standard-20261201T100000Z --format html --out report.html
  pgrig report DIR --to-db "host=/tmp dbname=history"

Exit codes: 0 success, 1 bad invocation or input, 2 loading into the database failed.
See docs/report.md.)";

constexpr CommandName kReportCommand{"pgrig report"};

}  // namespace

int RunReport(int argc, char** argv) {
  CLI::App app{"Show one benchmark suite: cells, intervals, bottlenecks, price.", "pgrig report"};
  app.footer(kReportFooter);
  std::string dir, format_name = "text", out, to_db;
  std::vector<std::string> claims, prices;
  app.add_option("DIR", dir, "results directory or suite/result JSON file")->required();
  app.add_option("--format", format_name, "text (default), markdown, csv, json or html");
  app.add_option("--out", out, "write to FILE (atomically) instead of standard output");
  app.add_option("--claim", claims, "check a published claim against the data (repeatable)");
  app.add_option("--usd-per-hour", prices, "price of the machine, overriding the suite's");
  app.add_option("--to-db", to_db,
                 "load the suite into a results schema in this database (conninfo)");
  double tolerance = report::ClaimOptions{}.tolerance;
  app.add_option("--claim-tolerance", tolerance,
                 "how near the claimed value counts as meeting it, relative (default 0.05)");
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  auto format = report::ParseFormat(format_name);
  if (!format.ok()) return Fail(kReportCommand, format.status().message());
  if (!(tolerance >= 0 && tolerance <= 1)) {
    return Fail(kReportCommand, "--claim-tolerance: must be between 0 and 1 (0.05 = 5%)");
  }
  if (!out.empty()) {
    if (Status st = CheckWritable(out); !st.ok()) return Fail(kReportCommand, st.message());
  }
  auto price = ParsePrices(prices, 1);
  if (!price.ok()) return Fail(kReportCommand, price.status().message());
  auto loaded = LoadAndAnalyze({dir}, *price);
  if (!loaded.ok()) return Fail(kReportCommand, loaded.status().message());
  const report::SuiteStats& stats = *loaded->stats[0];

  report::ReportInput in;
  in.suite = &stats;
  in.warnings = report::SuiteWarnings(stats);
  for (const std::string& c : claims) {
    auto checked = report::CheckClaim(c, {&stats}, {.tolerance = tolerance});
    if (!checked.ok()) return Fail(kReportCommand, checked.status().message());
    in.claims.push_back(std::move(*checked));
  }
  std::string text = report::RenderReport(in, *format);
  // A plan with builds: the builds compared, the plan's first the base
  // (text and markdown; `pgrig compare DIR` gives every format).
  if (stats.suite->builds.size() >= 2) {
    if (*format == report::Format::kText || *format == report::Format::kMarkdown) {
      // The suite already read (and priced), split: not the file again.
      auto split = AnalyzeSuites(results::SplitByBuild(*stats.suite));
      if (!split.ok()) return Fail(kReportCommand, split.status().message());
      auto comparison = report::Compare(split->Pointers(), {});
      if (!comparison.ok()) return Fail(kReportCommand, comparison.status().message());
      text += *format == report::Format::kMarkdown ? "\n## PostgreSQL builds compared\n\n"
                                                   : "\nPostgreSQL builds compared\n\n";
      text += report::RenderComparison({.comparison = &*comparison}, *format);
    } else {
      std::fprintf(stderr,
                   "pgrig report: the suite compares PostgreSQL builds; pgrig compare %s "
                   "compares them\n",
                   dir.c_str());
    }
  }
  if (Status st = Emit(out, text); !st.ok()) return Fail(kReportCommand, st.message());
  if (!out.empty()) std::fprintf(stderr, "pgrig report: wrote %s\n", out.c_str());

  if (!to_db.empty()) {
    pg::ConnectionParams params;
    params.dbname = to_db;
    auto conn = pg::Connect(params);
    if (!conn.ok()) return Fail(kReportCommand, conn.status().message(), kExitRunFailure);
    auto done = report::LoadIntoDatabase(*conn, stats);
    if (!done.ok()) return Fail(kReportCommand, done.status().message(), kExitRunFailure);
    std::fprintf(stderr, "pgrig report: %s suite %s in %s: %d cells, %d runs, %d fsync tests\n",
                 done->replaced ? "replaced" : "loaded", stats.suite->suite_id.c_str(),
                 pg::RedactConninfo(to_db).c_str(), done->cells, done->runs, done->fsync_tests);
  }
  return kExitOk;
}

}  // namespace pgrig::cli
