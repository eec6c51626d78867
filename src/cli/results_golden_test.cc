// Golden tests of the results documents (issue 26, stage S0 of its plan):
// every writer of pgrig.result/1, pgrig.suite/2 (with runs.csv and
// summary.md), pgrig.lio/1, pgrig.fsync/1 and pgrig.fleet-run/1, the fleet's
// merged pgrig.result/1, and the report and compare renderings of the suites
// read back, run on fixed inputs and compared byte for byte with the files in
// tests/data/results/golden/.  The inputs are synthetic values built here
// (fixed timestamps, fixed counts and latencies, no clock, no host) or the
// suites under tests/data/suites/; nothing is measured.
//
// The point is that a refactoring of the documents (moving them into a typed
// module, sharing their pieces) must not change one byte of what pgrig
// writes: the golden files never change with such a refactoring, only the
// calls in this file do.  A change of a document that is meant must come with
// regenerated golden files, reviewed as a diff in the same commit.
//
// JSON documents are compared as their writers' callers serialise them:
// `dump(2)` plus a newline (`pgrig bench --json`, `lio run --json`, `fsync
// --json`, the fleet's merged.json; suite.json is written compactly, its
// golden is indented so that a difference shows as a line).  Texts (runs.csv,
// summary.md, the report renderings, fleet-run.json) are compared as returned.
// The only change made to a writer's output before comparing is
// GoldenNormalise() below: what depends on the build rather than on the
// inputs.
//
// Regenerating: run the tests with PGRIG_UPDATE_GOLDEN=1 in the environment,
//   cd build && PGRIG_UPDATE_GOLDEN=1 ctest -R ResultsGolden
// They then write every golden file instead of comparing (and say so on
// stdout); check `git diff tests/data/results/golden` before committing.
// Without it, a mismatch fails and shows the first line that differs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli/bench_json.h"
#include "cli/bench_report.h"
#include "cli/version.h"
#include "common/fs.h"
#include "engine/result.h"
#include "fleet/manifest.h"
#include "fleet/merge.h"
#include "host/server_cpu.h"
#include "micro/lio_run.h"
#include "micro/wal_flush.h"
#include "plan/plan.h"
#include "report/analysis.h"
#include "report/claims.h"
#include "report/compare.h"
#include "report/render.h"
#include "results/fleet_run_doc.h"
#include "results/lio_json.h"
#include "results/reader.h"
#include "results/result_json.h"
#include "results/suite_json.h"
#include "results/wal_flush_json.h"
#include "stats/histogram.h"
#include "stats/time_series.h"
#include "workload/bench_options.h"

namespace pgrig::cli {

using workload::BenchParse;
using workload::ParseBenchArgs;
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------
// Comparing with, and writing, the golden files.

const std::string kGoldenDir = std::string(PGRIG_SOURCE_DIR) + "/tests/data/results/golden/";
const std::string kGoldenSuitesDir = std::string(PGRIG_SOURCE_DIR) + "/tests/data/suites/";

bool GoldenUpdating() {
  const char* v = std::getenv("PGRIG_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

void GoldenReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// What a writer's output depends on besides the inputs given here, replaced
// by a fixed marker; the one place where anything is changed before the
// comparison.
//  - The source tree's path: a parsed plan records its script files as
//    absolute paths (plans/jit.toml's jit_aggregate.sql), and a checkout may
//    be anywhere.
//  - pgrig's version (cli/version.h): `pgrig bench --json`'s adapter is the
//    only writer that takes it from there instead of from its inputs; it
//    appears as the "version" of the document's "tool" object, written by
//    dump(2) at the top level of the document.
std::string GoldenNormalise(std::string text) {
  GoldenReplaceAll(text, PGRIG_SOURCE_DIR, "@PGRIG_SOURCE_DIR@");
  GoldenReplaceAll(text, std::string("\"name\": \"pgrig\",\n    \"version\": \"") + kVersion + "\"",
                   "\"name\": \"pgrig\",\n    \"version\": \"@PGRIG_VERSION@\"");
  return text;
}

std::string GoldenLineAt(const std::string& text, size_t line) {
  size_t start = 0;
  for (size_t i = 1; i < line && start != std::string::npos; ++i) {
    start = text.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos || start > text.size()) return "<end of file>";
  const size_t end = text.find('\n', start);
  std::string l = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (end == std::string::npos && l.empty()) return "<end of file>";
  if (l.size() > 400) l = l.substr(0, 400) + "...";
  return l;
}

// Where `expected` and `actual` first differ, by line.
std::string GoldenFirstDifference(const std::string& name, const std::string& expected,
                                  const std::string& actual) {
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  const size_t line =
      1 + static_cast<size_t>(std::count(expected.begin(), expected.begin() + i, '\n'));
  const auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  return "tests/data/results/golden/" + name + " differs from the writer's output at line " +
         std::to_string(line) + ":\n  golden: " + GoldenLineAt(expected, line) +
         "\n  output: " + GoldenLineAt(actual, line) + "\n(golden " +
         std::to_string(expected.size()) + " bytes, " + std::to_string(lines(expected)) +
         " lines; output " + std::to_string(actual.size()) + " bytes, " +
         std::to_string(lines(actual)) +
         " lines.)  If the change is meant, regenerate the golden files with "
         "PGRIG_UPDATE_GOLDEN=1 and review the diff.";
}

// The golden files are written on x86-64, where they must match byte for
// byte.  Elsewhere (the arm64 build under qemu) the compiler fuses a * b + c
// into one rounding (FMA), so a number printed with all 17 digits may end
// in other last digits: there, and only in numbers, a difference of at most
// 1e-12 of the value is accepted; every other byte must still match.
#if defined(__x86_64__)
constexpr bool kGoldenExactNumbers = true;
#else
constexpr bool kGoldenExactNumbers = false;
#endif

// Splits a text into alternating non-number and number pieces (a number: an
// optional sign, digits with an optional fraction and exponent).
std::vector<std::string> GoldenPieces(const std::string& text) {
  static const std::regex kNumber(R"(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
  std::vector<std::string> pieces;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kNumber);
  size_t at = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    pieces.push_back(text.substr(at, static_cast<size_t>(it->position()) - at));
    pieces.push_back(it->str());
    at = static_cast<size_t>(it->position() + it->length());
  }
  pieces.push_back(text.substr(at));
  return pieces;
}

// True when the texts differ only in numbers within 1e-12 of each other.
bool GoldenNumbersClose(const std::string& expected, const std::string& actual) {
  const std::vector<std::string> e = GoldenPieces(expected);
  const std::vector<std::string> a = GoldenPieces(actual);
  if (e.size() != a.size()) return false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] == a[i]) continue;
    if (i % 2 == 0) return false;  // text, not a number
    const double x = std::strtod(e[i].c_str(), nullptr);
    const double y = std::strtod(a[i].c_str(), nullptr);
    if (std::fabs(x - y) > 1e-12 * std::max(std::fabs(x), std::fabs(y))) return false;
  }
  return true;
}

// Compares `output` (after GoldenNormalise) with the golden file `name`, or
// writes it there under PGRIG_UPDATE_GOLDEN=1.
void ExpectGolden(const std::string& name, const std::string& output) {
  const std::string actual = GoldenNormalise(output);
  const std::string path = kGoldenDir + name;
  if (GoldenUpdating()) {
    std::filesystem::create_directories(kGoldenDir);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    out.close();
    ASSERT_TRUE(out.good()) << "could not write " << path;
    std::printf("PGRIG_UPDATE_GOLDEN=1: wrote %s (%zu bytes) instead of comparing\n", path.c_str(),
                actual.size());
    return;
  }
  Result<std::string> expected = ReadWholeFile(path);
  ASSERT_TRUE(expected.ok()) << expected.status().message()
                             << " (a new golden file is made with PGRIG_UPDATE_GOLDEN=1)";
  if (*expected == actual) return;
  if (!kGoldenExactNumbers && GoldenNumbersClose(*expected, actual)) return;
  ADD_FAILURE() << GoldenFirstDifference(name, *expected, actual);
}

// JSON documents as `pgrig bench --json` and the others write them.
std::string GoldenJsonText(const json& doc) { return doc.dump(2) + "\n"; }

json GoldenFixtureSuite(const std::string& name) {
  Result<std::string> text = ReadWholeFile(kGoldenSuitesDir + name + "/suite.json");
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? json::parse(*text) : json(nullptr);
}

// Real pgrig.facts/1 (the tiny-r1 suite's, a 2-vCPU AMD EPYC KVM guest),
// fixed: the documents embed facts without reading them.
json GoldenFacts() { return GoldenFixtureSuite("tiny-r1")["facts"]; }

// ---------------------------------------------------------------------------
// Synthetic runs.

// 2025-12-01T10:00:00.25Z.
constexpr double kGoldenStartWallS = 1764583200.25;

// The latencies the synthetic transactions cycle through: a dozen histogram
// buckets, two of them above the 10 ms latency limit.
constexpr int64_t kGoldenLatenciesNs[] = {412'000,   455'000,   498'000,    530'000,
                                          611'000,   734'000,   905'000,    1'250'000,
                                          2'400'000, 4'800'000, 12'500'000, 31'000'000};

// What one pgbench-style run measured: `transactions` attempts spread
// evenly over 3.00025 s, latencies from kGoldenLatenciesNs scaled by
// `latency_pct` / 100, every 5th on the second script, a serialization
// failure now and then (after a retry), some retried successes, a few
// skipped (-L), schedule lag (-R), and per-second series.
engine::RunResult GoldenRunResult(int64_t transactions, int64_t latency_pct, double cpu_scale) {
  engine::RunResult r;
  r.stop_reason = engine::StopReason::kCompleted;
  r.finished_clients = 4;
  r.threads = 2;
  r.start_wall_s = kGoldenStartWallS;
  r.bench_duration_ns = 3'000'250'000;
  r.end_wall_s = kGoldenStartWallS + 3.0625;
  r.conn_elapsed_ns = 12'500'000;
  r.conn_total_ns = 23'750'000;
  r.series = stats::TimeSeries(0, 1'000'000'000);
  r.scripts.resize(2);
  r.scripts[0].commands.resize(3);
  r.scripts[1].commands.resize(2);
  for (int64_t i = 0; i < transactions; ++i) {
    const int64_t t_ns = i * r.bench_duration_ns / transactions;
    const int64_t latency_ns =
        kGoldenLatenciesNs[static_cast<size_t>(i) % std::size(kGoldenLatenciesNs)] * latency_pct /
        100;
    const int64_t lag_ns = (i % 7) * 15'000;
    engine::ScriptStats& s = r.scripts[i % 5 == 0 ? 1 : 0];
    stats::IntervalStats& interval = r.series.At(t_ns);
    if (i % 301 == 150) {
      r.totals.RecordSkipped();
      interval.RecordSkipped();
      s.totals.RecordSkipped();
      continue;
    }
    if (i % 211 == 17) {
      r.totals.RecordFailure(stats::FailureKind::kSerialization, 2);
      interval.RecordFailure(stats::FailureKind::kSerialization, 2);
      s.totals.RecordFailure(stats::FailureKind::kSerialization, 2);
      s.commands[1].failures += 1;
      s.commands[1].retries += 1;
      continue;
    }
    const int64_t tries = i % 97 == 3 ? 2 : 1;
    r.totals.RecordSuccess(latency_ns, lag_ns, tries);
    interval.RecordSuccess(latency_ns, lag_ns, tries);
    s.totals.RecordSuccess(latency_ns, lag_ns, tries);
    r.latency.Record(latency_ns);
    r.lag.Record(lag_ns);
    if (latency_ns > 10'000'000) ++r.latency_late;
    for (engine::CommandStats& c : s.commands) {
      c.count += 1;
      c.sum_ns += latency_ns / static_cast<int64_t>(s.commands.size());
    }
    if (tries > 1) s.commands[0].retries += 1;
  }
  r.client_user_cpu_s = 0.75 * cpu_scale;
  r.client_sys_cpu_s = 0.3125 * cpu_scale;
  r.client_max_rss_kb = 18'432;
  r.lean_connections = 4;
  r.ring_threads = 2;
  return r;
}

// A run that aborted before any transaction succeeded: three deadlocks, then
// a client's error.
engine::RunResult GoldenAbortedRunResult() {
  engine::RunResult r;
  r.stop_reason = engine::StopReason::kAborted;
  r.aborted_clients = 1;
  r.finished_clients = 1;
  r.first_abort_message =
      "client 0 script 0 aborted in command 1 query 0: ERROR:  relation \"pgbench_accounts\" "
      "does not exist";
  r.threads = 1;
  r.start_wall_s = kGoldenStartWallS + 60;
  r.bench_duration_ns = 40'000'000;
  r.end_wall_s = r.start_wall_s + 0.0625;
  r.conn_elapsed_ns = 2'500'000;
  r.conn_total_ns = 2'500'000;
  r.series = stats::TimeSeries(0, 1'000'000'000);
  r.scripts.resize(1);
  r.scripts[0].commands.resize(2);
  for (int i = 0; i < 3; ++i) {
    r.totals.RecordFailure(stats::FailureKind::kDeadlock, 1);
    r.series.At(i * 10'000'000).RecordFailure(stats::FailureKind::kDeadlock, 1);
    r.scripts[0].totals.RecordFailure(stats::FailureKind::kDeadlock, 1);
    r.scripts[0].commands[1].failures += 1;
  }
  r.client_user_cpu_s = 0.0025;
  r.client_sys_cpu_s = 0.00125;
  r.client_max_rss_kb = 9'216;
  r.lean_connections = 0;
  r.ring_threads = 0;
  return r;
}

// `pgrig bench -c 4 -j 2 -T 3 -M prepared -R 1200 -L 10 ...` on two scripts,
// the server's CPU measured.
results::ResultInputs GoldenResultInputs() {
  results::ResultInputs in;
  in.tool_version = "9.8.7-golden";
  in.command = "bench";
  in.command_line = {"pgrig bench",
                     "-c",
                     "4",
                     "-j",
                     "2",
                     "-T",
                     "3",
                     "-M",
                     "prepared",
                     "-R",
                     "1200",
                     "-L",
                     "10",
                     "--max-tries",
                     "3",
                     "-f",
                     "/home/bench/custom.sql@1",
                     "-b",
                     "tpcb-like@4",
                     "host=db password=xxxxx"};
  results::ResultOptions& o = in.options;
  o.clients = 4;
  o.threads = 2;
  o.duration_s = 3;
  o.mode = script::QueryMode::kPrepared;
  o.scale = 10;
  o.rate_tps = 1200;
  o.latency_limit_us = 10'000;
  o.max_tries = 3;
  o.no_vacuum = true;
  o.progress_s = 1;
  o.random_seed = "42";
  o.defines = {{"aid", "7"}, {"label", "golden"}};
  in.scripts = {
      {.desc = "<builtin: TPC-B (sort of)>",
       .weight = 4,
       .spec = "tpcb-like",
       .is_file = false,
       .command_lines = {"\\set aid random(1, 100000 * :scale)", "BEGIN;",
                         "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = "
                         ":aid;"}},
      {.desc = "/home/bench/custom.sql",
       .weight = 1,
       .spec = "/home/bench/custom.sql",
       .is_file = true,
       .command_lines = {"\\set n random(1, 10)", "SELECT :n, :label;"}},
  };
  in.server = {.version = "17.2",
               .version_num = 170002,
               .target = "host=db port=5432 user=bench dbname=pgrig",
               .embedded = false};
  in.cpus = 2;
  in.server_cpu = {.usage = host::ServerCpuUsage{.user_s = 1.75, .sys_s = 0.5, .settled = true},
                   .unavailable = ""};
  return in;
}

results::ResultInputs GoldenAbortedInputs() {
  results::ResultInputs in;
  in.tool_version = "9.8.7-golden";
  in.command = "bench";
  in.command_line = {"pgrig bench", "-t", "100", "dbname=pgrig"};
  in.options.clients = 1;
  in.options.threads = 1;
  in.options.transactions_per_client = 100;
  in.options.scale = 1;
  in.scripts = {{.desc = "<builtin: select only>",
                 .weight = 1,
                 .spec = "select-only",
                 .is_file = false,
                 .command_lines = {"\\set aid random(1, 100000 * :scale)",
                                   "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"}}};
  in.server = {.version = "15.18",
               .version_num = 150018,
               .target = "dbname=pgrig host=/tmp/pgrig/run port=5432 user=postgres",
               .embedded = true};
  in.cpus = 2;
  in.server_cpu = {.usage = std::nullopt,
                   .unavailable = "the server is not on this machine (connected over TCP)"};
  return in;
}

// The arm64 allowance: last digits of numbers only, never text.
TEST(ResultsGolden, NumbersCloseAllowsLastDigitsOnly) {
  EXPECT_TRUE(GoldenNumbersClose("x: 158.09642174316545,\n", "x: 158.0964217431656,\n"));
  EXPECT_TRUE(GoldenNumbersClose("a,-1.5e-3,b", "a,-1.5e-3,b"));
  EXPECT_FALSE(GoldenNumbersClose("x: 158.09,\n", "x: 158.10,\n"));
  EXPECT_FALSE(GoldenNumbersClose("x: 1,\n", "y: 1,\n"));
  EXPECT_FALSE(GoldenNumbersClose("x: 1,\n", "x: 1, 2\n"));
}

TEST(ResultsGolden, RunResultDocument) {
  ExpectGolden("result.json",
               GoldenJsonText(results::RunResultToJson(
                   GoldenResultInputs(), GoldenRunResult(3000, 100, 1.0), GoldenFacts())));
  ExpectGolden("result-aborted.json",
               GoldenJsonText(results::RunResultToJson(GoldenAbortedInputs(),
                                                       GoldenAbortedRunResult(), nullptr)));
}

TEST(ResultsGolden, BenchResultDocument) {
  std::vector<std::string> args = {"pgbench",
                                   "-c",
                                   "4",
                                   "-j",
                                   "2",
                                   "-T",
                                   "3",
                                   "-M",
                                   "prepared",
                                   "-R",
                                   "1200",
                                   "-L",
                                   "10",
                                   "--max-tries",
                                   "3",
                                   "-n",
                                   "-P",
                                   "1",
                                   "--random-seed",
                                   "42",
                                   "-D",
                                   "aid=7",
                                   "-b",
                                   "tpcb-like@4",
                                   "-b",
                                   "select-only@1",
                                   "host=db user=bench password=secret dbname=pgrig"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  const BenchParse p = ParseBenchArgs(static_cast<int>(argv.size()), argv.data());
  ASSERT_EQ(p.action, BenchParse::Action::kRun) << p.err;
  RunInfo info;
  info.scale = 10;
  info.threads = 2;
  info.cpus = 2;
  info.scripts = {{.desc = "<builtin: TPC-B (sort of)>",
                   .weight = 4,
                   .command_lines = {"\\set aid random(1, 100000 * :scale)", "BEGIN;", "END;"}},
                  {.desc = "<builtin: select only>",
                   .weight = 1,
                   .command_lines = {"\\set aid random(1, 100000 * :scale)",
                                     "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"}}};
  const ServerInfo server{.version = "17.2",
                          .version_num = 170002,
                          .target = "dbname=pgrig host=db user=bench",
                          .embedded = false};
  const json doc = BenchResultToJson(
      p.options, info, server, GoldenRunResult(3000, 100, 1.0), nullptr,
      host::ServerCpuMeasure{.usage = host::ServerCpuUsage{.user_s = 1.5, .sys_s = 0.25},
                             .unavailable = ""});
  ASSERT_EQ(doc["tool"]["version"], kVersion);  // replaced by GoldenNormalise
  ExpectGolden("bench.json", GoldenJsonText(doc));
}

// ---------------------------------------------------------------------------
// pgrig.lio/1 and pgrig.fsync/1.

results::MicroDocInputs GoldenMicroInputs(const std::vector<std::string>& command_line) {
  return results::MicroDocInputs{.tool_version = "9.8.7-golden",
                                 .command_line = command_line,
                                 .server_version = "17.2",
                                 .server_version_num = 170002,
                                 .server_target = "host=db port=5432 user=bench dbname=pgrig",
                                 .embedded = false};
}

// One lio window of `sessions` sessions over two tables; `with_sessions`
// keeps the per-session results (the main window does, scaling windows not).
micro::LioWindow GoldenLioWindow(int sessions, double window_s, int64_t ranges_per_session,
                                 bool with_updates, bool with_sessions) {
  micro::LioWindow w;
  w.sessions = sessions;
  w.window_s = window_s;
  for (int s = 0; s < sessions; ++s) {
    micro::LioSessionResult sr;
    sr.session = s;
    sr.table = s % 2 + 1;
    for (int64_t k = 0; k < ranges_per_session; ++k) {
      const int64_t latency_ns = 61'000 + (k % 9) * 7'500 + s * 2'000;
      sr.latency.Record(latency_ns);
      ++sr.ranges;
      sr.rows += 16;
      if (with_updates && k % 10 == 4) {
        sr.update_latency.Record(240'000 + (k % 3) * 55'000);
        ++sr.updates;
        sr.updated_rows += 4;
      }
    }
    w.latency.Add(sr.latency);
    w.update_latency.Add(sr.update_latency);
    w.ranges += sr.ranges;
    w.updates += sr.updates;
    w.rows += sr.rows;
    w.updated_rows += sr.updated_rows;
    if (with_sessions) w.per_session.push_back(std::move(sr));
  }
  w.start = micro::DbCounters{.blks_hit = 1'000'000,
                              .blks_read = 512,
                              .xact_commit = 4'000,
                              .tup_returned = 90'000,
                              .tup_fetched = 80'000,
                              .tup_updated = 100,
                              .at_s = 500.0};
  w.delta = micro::CounterDelta{.blks_hit = w.rows * 1035 / 1000 + w.updated_rows,
                                .blks_read = 3,
                                .xact_commit = w.ranges + w.updates + 2,
                                .tup_fetched = w.rows,
                                .tup_updated = w.updated_rows,
                                .window_s = window_s + 0.0015};
  w.end = w.start;
  w.end.blks_hit += w.delta.blks_hit;
  w.end.blks_read += w.delta.blks_read;
  w.end.at_s += w.delta.window_s;
  return w;
}

TEST(ResultsGolden, LioDocument) {
  micro::LioRunOptions o;
  o.sessions_per_table = 1;
  o.duration_s = 5;
  o.warmup_s = 1;
  o.work_unit = 16;
  o.update_pct = 10;
  o.update_work_unit = 4;
  o.seed = 12345;
  o.scaling = micro::LioScaling::kOn;
  o.max_scaling_sessions = 2;
  micro::LioRunResult r;
  r.tables = {{.table = 1, .blocks = 256, .index_blocks = 4, .load_s = 0.5},
              {.table = 2, .blocks = 256, .index_blocks = 4, .load_s = 0.25}};
  r.server_version_num = 170002;
  r.exact_counters = true;
  r.seed = 12345;
  r.start_wall_s = kGoldenStartWallS;
  r.end_wall_s = kGoldenStartWallS + 9.5;
  r.main = GoldenLioWindow(2, 5.0, 1500, true, true);
  r.scaling = {GoldenLioWindow(1, 5.0, 1800, true, false),
               GoldenLioWindow(2, 5.0, 1500, true, false)};
  r.notes = {"lio tables reused: 2 tables of 256 blocks"};
  const std::vector<std::string> cl = {
      "pgrig lio run", "--sessions", "1",         "--work-unit", "16",
      "--update-pct",  "10",         "--scaling", "--json",      "lio.json"};
  ExpectGolden("lio.json", GoldenJsonText(results::LioResultToJson(GoldenMicroInputs(cl), o, r,
                                                                   GoldenFacts())));

  // Interrupted, a total session count (a plan cell), no updates, no scaling,
  // an old server without exact counters.
  micro::LioRunOptions o2;
  o2.total_sessions = 3;
  o2.duration_s = 2;
  o2.warmup_s = 0.5;
  o2.work_unit = 255;
  o2.driver = micro::LioDriver::kServer;
  micro::LioRunResult r2;
  r2.tables = {{.table = 1, .blocks = 4096, .index_blocks = 12, .load_s = 0}};
  r2.server_version_num = 140010;
  r2.exact_counters = false;
  r2.seed = 7;
  r2.start_wall_s = kGoldenStartWallS + 120;
  r2.end_wall_s = kGoldenStartWallS + 121.25;
  r2.main = GoldenLioWindow(3, 1.125, 40, false, true);
  r2.main.interrupted = true;
  r2.interrupted = true;
  ExpectGolden("lio-interrupted.json",
               GoldenJsonText(results::LioResultToJson(
                   GoldenMicroInputs({"pgrig lio run", "--sessions", "3"}), o2, r2, nullptr)));
}

micro::FlushTest GoldenFlushTest(micro::SyncMethod method, micro::DirectIo direct, int write_bytes,
                                 int writers, int64_t ops, int64_t base_ns) {
  micro::FlushTest t;
  t.method = method;
  t.direct = direct;
  t.write_bytes = write_bytes;
  t.writers = writers;
  t.ops = ops;
  t.seconds = 0.5;
  for (int64_t k = 0; k < ops; ++k) t.latency.Record(base_ns + (k % 11) * base_ns / 20);
  // Five samples within 2% of the rate, as the rounds would give.
  for (double f : {0.98, 1.01, 1.0, 0.99, 1.02}) {
    if (ops > 0) t.sample_ops_per_s.push_back(static_cast<double>(ops) / 0.5 * f);
  }
  return t;
}

TEST(ResultsGolden, FsyncDocument) {
  using micro::DirectIo;
  using micro::SyncMethod;
  micro::FsyncOptions o;
  o.dir = "/var/lib/postgresql/17/main/pg_wal";
  o.seconds_per_test = 0.5;
  o.write_sizes = {8192, 16384};
  o.writers = {1, 2};
  micro::FsyncResult r;
  r.dir = o.dir;
  r.filesystem_magic = "ef53";
  r.tmpfs = false;
  r.start_wall_s = kGoldenStartWallS;
  r.end_wall_s = kGoldenStartWallS + 6.125;
  r.tests = {
      GoldenFlushTest(SyncMethod::kFdatasync, DirectIo::kOff, 8192, 1, 410, 1'200'000),
      GoldenFlushTest(SyncMethod::kFdatasync, DirectIo::kOff, 8192, 2, 620, 1'550'000),
      GoldenFlushTest(SyncMethod::kFdatasync, DirectIo::kOff, 16384, 1, 380, 1'300'000),
      GoldenFlushTest(SyncMethod::kFsync, DirectIo::kOff, 8192, 1, 395, 1'250'000),
      GoldenFlushTest(SyncMethod::kOpenDatasync, DirectIo::kOff, 8192, 1, 455, 1'090'000),
      GoldenFlushTest(SyncMethod::kOpenDatasync, DirectIo::kOn, 8192, 1, 0, 0),
      GoldenFlushTest(SyncMethod::kOpenSync, DirectIo::kOff, 8192, 1, 440, 1'120'000),
  };
  r.tests[5].unavailable = "not allowed here: the file system refused O_DIRECT (EINVAL)";
  r.tests[5].seconds = 0;
  r.notes = {"open_datasync+O_DIRECT: not allowed here"};
  const json facts = GoldenFacts();
  const results::FsyncDocContext ctx{
      .server_wal_sync_method = "fdatasync", .storage = facts["host"]["storage"], .facts = facts};
  ExpectGolden(
      "fsync.json",
      GoldenJsonText(results::FsyncResultToJson(
          GoldenMicroInputs({"pgrig fsync", "--dir", o.dir, "--json", "fsync.json"}), o, r, ctx)));

  // No server, interrupted, nothing measured: no best method.
  micro::FsyncOptions o2;
  o2.dir = "/mnt/nvme0";
  o2.seconds_per_test = 2;
  o2.write_sizes = {8192};
  o2.writers = {1};
  micro::FsyncResult r2;
  r2.dir = o2.dir;
  r2.filesystem_magic = "58465342";
  r2.interrupted = true;
  r2.start_wall_s = kGoldenStartWallS + 30;
  r2.end_wall_s = kGoldenStartWallS + 30.5;
  r2.tests = {GoldenFlushTest(SyncMethod::kFdatasync, DirectIo::kOff, 8192, 1, 0, 0)};
  r2.tests[0].unavailable = "interrupted before it ran";
  results::MicroDocInputs no_server{.tool_version = "9.8.7-golden",
                                    .command_line = {"pgrig fsync", "--dir", "/mnt/nvme0"}};
  ExpectGolden("fsync-no-server.json",
               GoldenJsonText(results::FsyncResultToJson(no_server, o2, r2, {})));
}

// ---------------------------------------------------------------------------
// The fleet: merged client results and the run manifest.

TEST(ResultsGolden, FleetMergedResults) {
  const results::ResultInputs in = GoldenResultInputs();
  const json suite = GoldenFixtureSuite("tiny-r1");
  const json a = results::RunResultToJson(in, GoldenRunResult(3000, 100, 1.0), nullptr);
  const json b = results::RunResultToJson(in, GoldenRunResult(2000, 140, 1.25), nullptr);
  const fleet::MergeOptions options{
      .tool_version = "9.8.7-golden",
      .command_line = {"pgrig fleet", "run", "/home/bench/fleet.toml"},
      .facts = suite["facts"],
      .observation = suite["runs"][0]["observation"],
      .bottleneck = suite["runs"][0]["bottleneck"]};
  Result<json> merged = fleet::MergeClientResults(
      {{.label = "client-a", .file = "clients/client-a.json", .doc = a, .error = ""},
       {.label = "client-b", .file = "clients/client-b.json", .doc = b, .error = ""}},
      options);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ExpectGolden("fleet-merged.json", GoldenJsonText(*merged));

  // One host failed, one aborted: the merged document is partial.
  engine::RunResult aborted = GoldenRunResult(900, 120, 0.5);
  aborted.stop_reason = engine::StopReason::kAborted;
  aborted.aborted_clients = 2;
  aborted.first_abort_message =
      "client 3 aborted in command 2 (SQL) of script 0; "
      "server closed the connection unexpectedly";
  const json c = results::RunResultToJson(in, aborted, nullptr);
  Result<json> partial = fleet::MergeClientResults(
      {{.label = "client-a", .file = "clients/client-a.json", .doc = a, .error = ""},
       {.label = "client-b",
        .file = "clients/client-b.json",
        .doc = std::nullopt,
        .error = "ssh: connect to host 10.0.0.12 port 22: Connection refused"},
       {.label = "client-c", .file = "clients/client-c.json", .doc = c, .error = ""}},
      fleet::MergeOptions{.tool_version = "9.8.7-golden",
                          .command_line = {"pgrig fleet", "run", "fleet.toml"}});
  ASSERT_TRUE(partial.ok()) << partial.status().message();
  ExpectGolden("fleet-merged-partial.json", GoldenJsonText(*partial));
}

TEST(ResultsGolden, FleetRunManifest) {
  fleet::Manifest m;
  m.run_id = "20251201T100000Z-3f2a";
  m.fleet_file = "/home/bench/fleet.toml";
  m.fleet_hash = fleet::ContentHash("[[host]]\nlabel = \"a\"\n");
  m.plan = "/home/bench/plans/quick.toml";
  m.plan_hash = fleet::ContentHash("[plan]\niterations = 3\n");
  m.mode = "compare";
  m.updated = "2025-12-01T10:05:00Z";
  m.hosts = {
      {.label = "graviton",
       .destination = "bench@10.0.0.11",
       .outcome = fleet::ManifestOutcome::kCompleted,
       .results = "/home/bench/results/20251201T100000Z-3f2a/graviton",
       .remote_results = "/home/bench/.local/share/pgrig/results/quick-20251201T100012Z",
       .message = ""},
      {.label = "xeon",
       .destination = "bench@10.0.0.12",
       .outcome = fleet::ManifestOutcome::kPartial,
       .results = "/home/bench/results/20251201T100000Z-3f2a/xeon",
       .remote_results = "/home/bench/.local/share/pgrig/results/quick-20251201T100015Z",
       .message = "interrupted after 5 of 9 runs"},
      {.label = "epyc",
       .destination = "10.0.0.13",
       .outcome = fleet::ManifestOutcome::kFailed,
       .results = "",
       .remote_results = "",
       .message = "ssh: connect to host 10.0.0.13 port 22: \"Connection refused\""},
      {.label = "client-1",
       .destination = "10.0.0.21",
       .outcome = fleet::ManifestOutcome::kSkipped,
       .results = "",
       .remote_results = "",
       .message = "not a sut host"},
      {.label = "ampere",
       .destination = "10.0.0.14",
       .outcome = fleet::ManifestOutcome::kPending,
       .results = "",
       .remote_results = "",
       .message = ""},
  };
  ExpectGolden("fleet-run.json", results::ManifestToJson(m));
}

// ---------------------------------------------------------------------------
// Plans as the suite records them (plan.parsed and the cells).

// PlanToJson and the cells of the plan on a 2-CPU machine.
std::string GoldenPlanRecord(const std::string& text, const std::string& path) {
  Result<plan::Plan> p = plan::ParsePlan(text, path);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return "";
  Result<std::vector<plan::Cell>> cells = plan::ExpandPlan(*p, 2);
  EXPECT_TRUE(cells.ok()) << cells.status().message();
  if (!cells.ok()) return "";
  json cj = json::array();
  for (const plan::Cell& c : *cells) cj.push_back(results::CellToJson(*p, c));
  return GoldenJsonText(json{{"parsed", results::PlanToJson(*p)}, {"cells", cj}});
}

// Every key of a plan file set to something other than its default.
constexpr const char* kGoldenInlinePlan = R"([plan]
name = "golden"
description = "every key, none at its default"
size = "fits-ram"
partitions = 4
clients = [1, "cores", "2*cores"]
threads = ["cores/2"]
protocols = ["simple", "extended"]
duration_s = 2.5
warmup_s = 0.5
iterations = 2
rate_tps = 1500
latency_limit_ms = 25
max_tries = 3
checkpoint = false
vacuum = "always"
settings = { work_mem = "64MB", jit = "off" }

[[workload]]
name = "mixed"
scripts = [{ builtin = "tpcb-like", weight = 2 }, { builtin = "select-only", weight = 8 }]
defines = { aid = 5, label = "x", flag = true }

[[workload]]
builtin = "simple-update"
clients = [4]
threads = [2]
protocols = ["prepared"]

[[workload]]
name = "reads"
kind = "lio"
tables = 2
scale = "8MB"
work_unit = 32
update_pct = 5
update_work_unit = 2
sessions = [1, "cores"]

[[workload]]
kind = "fsync"
dir = "wal-test"
seconds_per_test = 0.25
write_sizes = [8192]
writers = [1, 2]

[[variant]]
name = "wal-small"
settings = { wal_buffers = "1MB" }

[[variant]]
name = "wal-big"
settings = { wal_buffers = "64MB", max_wal_size = "8GB" }
)";

TEST(ResultsGolden, PlanRecords) {
  for (const char* name : {"quick", "jit", "lio"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(PGRIG_SOURCE_DIR) + "/plans/" + name + ".toml";
    Result<std::string> text = ReadWholeFile(path);
    ASSERT_TRUE(text.ok()) << text.status().message();
    ExpectGolden(std::string("plan-") + name + ".json", GoldenPlanRecord(*text, path));
  }
  ExpectGolden("plan-inline.json",
               GoldenPlanRecord(kGoldenInlinePlan, "/home/bench/plans/golden.toml"));
}

// ---------------------------------------------------------------------------
// pgrig.suite/2: cell summaries, runs.csv, summary.md and the cell table,
// recomputed from the runs of the suites under tests/data/suites.

// UpdateCellSummaries over `suite`, then its four outputs as golden files
// "suite-<name>.*": the cells (the part UpdateCellSummaries writes; the rest
// of the document is the fixture, unchanged), runs.csv, summary.md and the
// cell table alone.
void ExpectSuiteGoldens(const std::string& name, json suite) {
  results::UpdateCellSummaries(suite);
  ExpectGolden("suite-" + name + ".cells.json", GoldenJsonText(suite["cells"]));
  ExpectGolden("suite-" + name + ".runs.csv", results::RunsCsv(suite));
  ExpectGolden("suite-" + name + ".summary.md", results::SummaryMarkdown(suite));
  ExpectGolden("suite-" + name + ".cell-table.md", results::CellTable(suite));
}

TEST(ResultsGolden, SuiteOfPgbenchCells) {
  ExpectSuiteGoldens("tiny-r1", GoldenFixtureSuite("tiny-r1"));
}

TEST(ResultsGolden, SuiteOfLioCellsAndFsync) {
  ExpectSuiteGoldens("lio-r1", GoldenFixtureSuite("lio-r1"));
}

// tiny-r2, priced, stopped early, with a failed run (an error that needs
// quoting in CSV) and a run whose bottleneck differs.
TEST(ResultsGolden, SuitePricedInterruptedWithAFailedRun) {
  json suite = GoldenFixtureSuite("tiny-r2");
  suite["price"] = {{"usd_per_hour", 0.0864}, {"instance_type", "m6a.large"}, {"from", "golden"}};
  suite["complete"] = false;
  suite["ended_at"] = nullptr;
  suite["stop_reason"] = "interrupted";
  json& failed = suite["runs"][3];
  failed["status"] = "failed";
  failed["error"] = "server closed the connection, \"unexpectedly\"";
  failed["result"] = nullptr;
  failed["observation"] = nullptr;
  failed["bottleneck"] = nullptr;
  suite["runs"][1]["bottleneck"]["kind"] = "client_cpu";
  suite["runs"][1]["bottleneck"]["evidence"] = "client used 95% of its threads' CPU";
  ExpectSuiteGoldens("tiny-r2-priced", suite);
}

// ---------------------------------------------------------------------------
// Reading back: `pgrig report` and `pgrig compare` over the fixture suites
// and over the standalone documents written above.

struct GoldenAnalysed {
  std::unique_ptr<results::Suite> suite;
  std::unique_ptr<report::SuiteStats> stats;
};

// What cli/report_output.cc's LoadAndAnalyze does, with a fixed source name
// (the reader puts it into the header and the warnings; a path of the
// checkout would make them differ between checkouts).
void GoldenAnalyse(const std::string& text, const std::string& source,
                   std::optional<double> usd_per_hour, GoldenAnalysed* out) {
  Result<results::Suite> s = results::ParseSuiteJson(text, source);
  ASSERT_TRUE(s.ok()) << s.status().message();
  out->suite = std::make_unique<results::Suite>(std::move(*s));
  if (usd_per_hour) out->suite->usd_per_hour = usd_per_hour;
  Result<report::SuiteStats> stats = report::Analyze(*out->suite);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  out->stats = std::make_unique<report::SuiteStats>(std::move(*stats));
}

void ExpectReportGoldens(const std::string& name, const GoldenAnalysed& a,
                         const std::vector<std::string>& claims,
                         const std::vector<report::Format>& formats) {
  report::ReportInput in;
  in.suite = a.stats.get();
  in.warnings = report::SuiteWarnings(*a.stats);
  for (const std::string& c : claims) {
    Result<report::ClaimCheck> checked = report::CheckClaim(c, {a.stats.get()});
    ASSERT_TRUE(checked.ok()) << checked.status().message();
    in.claims.push_back(std::move(*checked));
  }
  for (report::Format f : formats) {
    const char* ext = f == report::Format::kText       ? "txt"
                      : f == report::Format::kMarkdown ? "md"
                      : f == report::Format::kCsv      ? "csv"
                      : f == report::Format::kJson     ? "json"
                                                       : "html";
    ExpectGolden("report-" + name + "." + ext, report::RenderReport(in, f));
  }
}

const std::vector<report::Format> kGoldenTableFormats = {
    report::Format::kText, report::Format::kMarkdown, report::Format::kCsv, report::Format::kJson};

TEST(ResultsGolden, ReportOfFixtureSuites) {
  for (const char* name : {"tiny-r1", "tiny-r2", "lio-r1", "lio-r2"}) {
    SCOPED_TRACE(name);
    Result<std::string> text = ReadWholeFile(kGoldenSuitesDir + name + "/suite.json");
    ASSERT_TRUE(text.ok()) << text.status().message();
    GoldenAnalysed a;
    ASSERT_NO_FATAL_FAILURE(
        GoldenAnalyse(*text, std::string(name) + "/suite.json", std::nullopt, &a));
    ExpectReportGoldens(name, a, {}, kGoldenTableFormats);
  }
}

// `pgrig report tiny-r1 --usd-per-hour 0.0864 --claim ...`: per-dollar
// figures and claims.
TEST(ResultsGolden, ReportPricedWithClaims) {
  Result<std::string> text = ReadWholeFile(kGoldenSuitesDir + "tiny-r1/suite.json");
  ASSERT_TRUE(text.ok()) << text.status().message();
  GoldenAnalysed a;
  ASSERT_NO_FATAL_FAILURE(GoldenAnalyse(*text, "tiny-r1/suite.json", 0.0864, &a));
  ExpectReportGoldens("tiny-r1-priced", a,
                      {"200,000,000 transactions per dollar on read-only",
                       "50,000 TPS per dollar on read-only", "1M transactions per dollar"},
                      kGoldenTableFormats);
}

// The standalone documents (pgrig.result/1, pgrig.lio/1, pgrig.fsync/1) as
// `pgrig report FILE` reads them.
TEST(ResultsGolden, ReportOfStandaloneDocuments) {
  const json facts = GoldenFacts();
  const std::string result_doc = GoldenJsonText(
      results::RunResultToJson(GoldenResultInputs(), GoldenRunResult(3000, 100, 1.0), facts));
  micro::LioRunOptions lo;
  lo.work_unit = 16;
  lo.update_pct = 10;
  lo.update_work_unit = 4;
  micro::LioRunResult lr;
  lr.tables = {{.table = 1, .blocks = 256, .index_blocks = 4, .load_s = 0.5},
               {.table = 2, .blocks = 256, .index_blocks = 4, .load_s = 0.25}};
  lr.server_version_num = 170002;
  lr.seed = 99;
  lr.start_wall_s = kGoldenStartWallS;
  lr.end_wall_s = kGoldenStartWallS + 6;
  lr.main = GoldenLioWindow(2, 5.0, 1500, true, true);
  const std::string lio_doc =
      GoldenJsonText(results::LioResultToJson(GoldenMicroInputs({"pgrig lio run"}), lo, lr, facts));
  micro::FsyncOptions fo;
  fo.dir = "/srv/wal";
  fo.write_sizes = {8192};
  fo.writers = {1, 2};
  micro::FsyncResult fr;
  fr.dir = fo.dir;
  fr.filesystem_magic = "ef53";
  fr.start_wall_s = kGoldenStartWallS;
  fr.end_wall_s = kGoldenStartWallS + 8;
  fr.tests = {GoldenFlushTest(micro::SyncMethod::kFdatasync, micro::DirectIo::kOff, 8192, 1, 410,
                              1'200'000),
              GoldenFlushTest(micro::SyncMethod::kFdatasync, micro::DirectIo::kOff, 8192, 2, 700,
                              1'400'000),
              GoldenFlushTest(micro::SyncMethod::kOpenDatasync, micro::DirectIo::kOff, 8192, 1, 430,
                              1'150'000)};
  const std::string fsync_doc = GoldenJsonText(
      results::FsyncResultToJson(GoldenMicroInputs({"pgrig fsync"}), fo, fr,
                                 results::FsyncDocContext{.server_wal_sync_method = "open_datasync",
                                                          .storage = facts["host"]["storage"],
                                                          .facts = facts}));
  const std::vector<report::Format> formats = {report::Format::kText, report::Format::kJson};
  for (const auto& [name, text] : {std::pair{"result", result_doc}, std::pair{"lio", lio_doc},
                                   std::pair{"fsync", fsync_doc}}) {
    SCOPED_TRACE(name);
    GoldenAnalysed a;
    ASSERT_NO_FATAL_FAILURE(GoldenAnalyse(text, std::string(name) + ".json", std::nullopt, &a));
    ExpectReportGoldens(std::string("standalone-") + name, a, {}, formats);
  }
}

// `pgrig compare A B` of the two A/A pairs, with prices and claims for the
// pgbench pair.
TEST(ResultsGolden, CompareFixtureSuites) {
  struct Pair {
    const char* golden;
    const char* base;
    const char* other;
    std::optional<double> base_price, other_price;
    std::vector<std::string> claims;
    std::vector<report::Format> formats;
  };
  const std::vector<Pair> pairs = {
      {"compare-tiny", "tiny-r1", "tiny-r2", 0.0864, 0.0768,
       std::vector<std::string>{"A is 1.1x B on read-only", "B: 60M transactions per dollar"},
       kGoldenTableFormats},
      {"compare-lio", "lio-r1", "lio-r2", std::nullopt, std::nullopt, {}, kGoldenTableFormats},
  };
  for (const Pair& p : pairs) {
    SCOPED_TRACE(p.golden);
    GoldenAnalysed base, other;
    for (auto [name, price, out] :
         {std::tuple{p.base, p.base_price, &base}, std::tuple{p.other, p.other_price, &other}}) {
      Result<std::string> text = ReadWholeFile(kGoldenSuitesDir + name + "/suite.json");
      ASSERT_TRUE(text.ok()) << text.status().message();
      ASSERT_NO_FATAL_FAILURE(GoldenAnalyse(*text, std::string(name) + "/suite.json", price, out));
    }
    const std::vector<const report::SuiteStats*> suites = {base.stats.get(), other.stats.get()};
    Result<report::Comparison> comparison = report::Compare(suites);
    ASSERT_TRUE(comparison.ok()) << comparison.status().message();
    report::CompareInput in;
    in.comparison = &*comparison;
    for (const std::string& c : p.claims) {
      Result<report::ClaimCheck> checked = report::CheckClaim(c, suites);
      ASSERT_TRUE(checked.ok()) << checked.status().message();
      in.claims.push_back(std::move(*checked));
    }
    for (report::Format f : p.formats) {
      const char* ext = f == report::Format::kText       ? "txt"
                        : f == report::Format::kMarkdown ? "md"
                        : f == report::Format::kCsv      ? "csv"
                                                         : "json";
      ExpectGolden(std::string(p.golden) + "." + ext, report::RenderComparison(in, f));
    }
  }
}

}  // namespace
}  // namespace pgrig::cli
