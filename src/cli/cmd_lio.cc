// pgrig lio init|run: logical reads per second from shared buffers (the PGIO
// method; src/micro/lio_*.h, docs/lio.md).
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/micro_cli.h"
#include "cli/parse_args.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cli/version.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "common/strings.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "micro/lio_load.h"
#include "micro/lio_run.h"
#include "micro/lio_schema.h"
#include "pg/connection_options.h"
#include "results/lio_json.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kLioCommand{"pgrig lio"};

void Note(const std::string& s) { std::fprintf(stderr, "pgrig lio: %s\n", s.c_str()); }

// Free bytes on the file system that holds `path` (or its nearest existing
// ancestor, for a cluster not made yet).
std::optional<uint64_t> FreeBytesNear(std::string path) {
  std::error_code ec;
  while (!path.empty() && !std::filesystem::exists(path, ec)) {
    path = std::filesystem::path(path).parent_path().string();
  }
  struct statvfs sv {};
  if (path.empty() || statvfs(path.c_str(), &sv) != 0) return std::nullopt;
  return static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
}

Status CheckSpace(const std::string& dir, int tables, int64_t blocks) {
  const double need = 1.2 * tables *
                      static_cast<double>(blocks + micro::EstimatedIndexBlocks(blocks)) *
                      micro::kBlockBytes;
  auto free = FreeBytesNear(dir);
  if (free && need > static_cast<double>(*free)) {
    return ResourceExhausted(fmt::format(
        "{} tables of {} blocks need about {} but {} has {} free; give a smaller --scale", tables,
        blocks, HumanBytes(static_cast<uint64_t>(need)), dir, HumanBytes(*free)));
  }
  return Status::Ok();
}

int DoInit(pg::ConnectionParams params, int tables, const std::string& scale, bool fit) {
  micro::LioInitOptions o{.tables = tables};
  if (!scale.empty() && fit) return Fail(kLioCommand, "give either --scale or --fit, not both");
  if (!scale.empty()) {
    auto b = micro::ParseLioScale(scale);
    if (!b.ok()) return Fail(kLioCommand, b.status().message());
    o.blocks_per_table = *b;
  } else {
    o.blocks_per_table = 1;  // chosen from shared_buffers once connected
  }
  if (Status s = micro::ValidateLioInit(o); !s.ok()) return Fail(kLioCommand, s.message());
  if (!scale.empty() && !params.NamesAServer()) {
    auto c = cluster::Cluster::Open({});
    if (c.ok()) {
      if (Status s = CheckSpace(c->data_dir(), tables, o.blocks_per_table); !s.ok()) {
        return Fail(kLioCommand, s.message());
      }
    }
  }
  auto target = ResolveTarget(params);
  if (!target.ok()) return Fail(kLioCommand, target.status().message());
  auto conn = pg::Connect(target->params);
  if (!conn.ok()) return Fail(kLioCommand, conn.status().message());
  if (fit || scale.empty()) {
    auto sb = micro::SharedBuffersBlocks(*conn);
    if (!sb.ok()) return Fail(kLioCommand, sb.status().message());
    auto b = micro::FitBlocksPerTable(*sb, tables);
    if (!b.ok()) return Fail(kLioCommand, b.status().message());
    o.blocks_per_table = *b;
    Note(fmt::format("--fit: shared_buffers is {} blocks; {} tables of {} blocks use 75% of it",
                     *sb, tables, o.blocks_per_table));
  }
  if (target->embedded && target->cluster) {
    if (Status s = CheckSpace(target->cluster->data_dir(), tables, o.blocks_per_table); !s.ok())
      return Fail(kLioCommand, s.message());
  }
  o.target = target->params;
  o.on_note = Note;
  InterruptScope interrupt;
  o.stop_requested = InterruptScope::flag();
  auto r = micro::InitLio(o);
  if (!r.ok()) return Fail(kLioCommand, r.status().message(), kExitRunFailure);
  for (const auto& t : r->tables) {
    std::printf("%s: %lld blocks (one row per block, checked), index %lld blocks, %.1f s\n",
                micro::LioQualifiedName(t.table).c_str(), static_cast<long long>(t.blocks),
                static_cast<long long>(t.index_blocks), t.load_s);
  }
  std::printf("loaded %zu tables in %.1f s\n", r->tables.size(), r->wall_s);
  return kExitOk;
}

std::string Num(double v) {
  // 3122604.2 -> "3,122,604"
  std::string s = fmt::format("{:.0f}", v);
  std::string out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n > 0 && n % 3 == 0 && *it != '-') out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

void PrintRun(const micro::LioRunOptions& o, const micro::LioRunResult& r) {
  const auto& w = r.main;
  const results::LioWindowFigures f = results::ComputeLioWindowFigures(w, r.tables, o.work_unit);
  std::printf("pgrig lio: %zu tables x %lld blocks, %d sessions, work unit %d, %.1f s window%s\n",
              r.tables.size(), static_cast<long long>(r.tables.front().blocks), w.sessions,
              o.work_unit, w.window_s, r.interrupted ? " (interrupted)" : "");
  std::printf(
      "  logical reads/s   %s total, %s per session  (pg_stat_database blks_hit + blks_read)\n",
      Num(f.lio_per_s).c_str(), Num(f.lio_per_s_per_session).c_str());
  std::printf(
      "  sessions counted  %s blocks/s (rows + index pages); counters / sessions = %s\n",
      Num(f.session_blocks_per_s).c_str(),
      f.counters_over_sessions ? fmt::format("{:.3f}", *f.counters_over_sessions).c_str() : "n/a");
  std::printf("  physical reads/s  %s  (from outside shared_buffers: OS page cache or device)\n",
              Num(f.physical_reads_per_s).c_str());
  std::printf("  ranges/s          %s", Num(f.ranges_per_s).c_str());
  if (w.updates > 0) std::printf(", updates/s %s", Num(f.updates_per_s).c_str());
  std::printf("\n");
  if (w.latency.count() > 0) {
    static constexpr double kPs[] = {50, 90, 99};
    const std::vector<int64_t> p = w.latency.ValuesAtPercentiles(kPs);
    std::printf("  range latency ms  avg %.3f  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
                w.latency.mean() / 1e6, NsToMs(p[0]), NsToMs(p[1]), NsToMs(p[2]),
                NsToMs(w.latency.max()));
  }
  std::printf("  per session: %-8s %-10s %12s %12s %9s %9s\n", "session", "table", "ranges/s",
              "rows/s", "p50 ms", "p99 ms");
  for (const auto& ps : w.per_session) {
    const bool have = ps.latency.count() > 0;
    std::printf("               %-8d %-10s %12s %12s %9.3f %9.3f\n", ps.session + 1,
                micro::LioQualifiedName(ps.table).c_str(),
                Num(micro::PerSecond(ps.ranges, w.window_s)).c_str(),
                Num(micro::PerSecond(ps.rows, w.window_s)).c_str(),
                have ? NsToMs(ps.latency.ValueAtPercentile(50)) : 0.0,
                have ? NsToMs(ps.latency.ValueAtPercentile(99)) : 0.0);
  }
  if (o.scaling == micro::LioScaling::kOn) {
    std::printf("  scaling:     %8s %14s %14s %9s %9s\n", "sessions", "lio/s", "per session",
                "p50 ms", "p99 ms");
    for (const auto& sw : r.scaling) {
      const results::LioWindowFigures row =
          results::ComputeLioWindowFigures(sw, r.tables, o.work_unit);
      std::printf("               %8d %14s %14s %9.3f %9.3f\n", row.sessions,
                  Num(row.lio_per_s).c_str(), Num(row.lio_per_s_per_session).c_str(),
                  row.latency_ms_p50.value_or(0.0), row.latency_ms_p99.value_or(0.0));
    }
  }
  for (const auto& n : r.notes) std::printf("  note: %s\n", n.c_str());
}

int DoRun(pg::ConnectionParams params, micro::LioRunOptions o, const std::string& json_file,
          std::vector<std::string> command_line) {
  if (Status s = micro::ValidateLioRun(o); !s.ok()) return Fail(kLioCommand, s.message());
  if (Status s = CheckJsonDestination(json_file); !s.ok()) return Fail(kLioCommand, s.message());
  auto target = ResolveTarget(params);
  if (!target.ok()) return Fail(kLioCommand, target.status().message());
  auto conn = pg::Connect(target->params);
  if (!conn.ok()) return Fail(kLioCommand, conn.status().message());
  if (auto t = micro::ReadLioTables(*conn); !t.ok()) return Fail(kLioCommand, t.status().message());
  const nlohmann::json facts = json_file.empty() ? nlohmann::json(nullptr) : FactsDocument(*conn);
  results::MicroDocInputs in{.tool_version = kVersion,
                             .command_line = std::move(command_line),
                             .server_version = pg::ServerVersionText(conn->server_version()),
                             .server_version_num = conn->server_version(),
                             .server_target = target->params.Describe(),
                             .embedded = target->embedded};
  o.target = target->params;
  o.on_note = Note;
  InterruptScope interrupt;
  o.stop_requested = InterruptScope::flag();
  auto r = micro::RunLio(o);
  // The documented rule (cli/exit_status.h): a bad value is 1, any other
  // failure once the run has begun (a lost connection too) is 2.
  if (!r.ok()) return Fail(kLioCommand, r.status(), ExitStage::kRun);
  nlohmann::json doc = results::LioResultToJson(in, o, *r, facts);
  PrintRun(o, *r);
  if (!json_file.empty()) {
    Status s = json_file == "-" ? (std::printf("%s\n", doc.dump(2).c_str()), Status::Ok())
                                : WriteFileAtomically(json_file, doc.dump(2) + "\n");
    if (!s.ok()) return Fail(kLioCommand, s.message(), kExitRunFailure);
  }
  return r->interrupted ? kExitRunFailure : kExitOk;
}

}  // namespace

int RunLio(int argc, char** argv) {
  CLI::App app{
      "Logical reads per second from shared buffers (the PGIO method): tables of one row per\n"
      "8 KB block, sessions selecting random ranges of blocks through an index on a scattered\n"
      "key.  See docs/lio.md.",
      "pgrig lio"};
  app.set_help_flag("--help", "print this help and exit");
  app.require_subcommand(1);

  pg::ConnectionParams init_params;
  int tables = 4;
  std::string scale;
  bool fit = false;
  CLI::App* init = app.add_subcommand("init", "create and load the tables (drops earlier ones)");
  init->set_help_flag("--help", "print this help and exit");
  init->add_option("--tables", tables, "number of tables (PGIO's schemas), 1-256 (default 4)");
  init->add_option("--scale", scale,
                   "size of each table: blocks (131072) or kB/MB/GB (1GB); default: --fit")
      ->type_name("SIZE");
  init->add_flag("--fit", fit, "size the tables to take 75% of shared_buffers together");
  pg::AddConnectionOptions(init, &init_params);

  pg::ConnectionParams run_params;
  micro::LioRunOptions o;
  std::string json_file;
  bool scaling = false;
  int64_t seed = -1;
  CLI::App* run = app.add_subcommand("run", "measure logical reads per second");
  run->set_help_flag("--help", "print this help and exit");
  run->add_option("--sessions", o.sessions_per_table, "sessions per table (default 1)");
  run->add_option("--duration", o.duration_s, "measured window in seconds (default 10)");
  run->add_option("--warmup", o.warmup_s, "warm-up per window in seconds, not counted (default 1)");
  run->add_option("--work-unit", o.work_unit, "blocks per range SELECT (default 255)");
  run->add_option("--update-pct", o.update_pct, "percent of ranges that UPDATE (default 0)");
  run->add_option("--update-work-unit", o.update_work_unit, "blocks per range UPDATE (default 8)");
  run->add_option("--seed", seed, "random seed (default: from the clock)");
  std::string driver = "client";
  run->add_option("--driver", driver,
                  "client: pgrig's threads run the ranges (default, each range timed); server: a "
                  "PL/pgSQL loop per session, as PGIO does")
      ->check(CLI::IsMember({"client", "server"}));
  run->add_flag("--scaling", scaling,
                "after the main window, one window per session count 1..2 x CPUs");
  run->add_option("--json", json_file, "write the pgrig.lio/1 document to FILE ('-': stdout)")
      ->type_name("FILE");
  pg::AddConnectionOptions(run, &run_params);

  if (auto code = ParseArgs(app, argc, argv)) return *code;
  if (init->parsed()) return DoInit(init_params, tables, scale, fit);
  if (seed >= 0) o.seed = static_cast<uint64_t>(seed);
  o.driver = driver == "server" ? micro::LioDriver::kServer : micro::LioDriver::kClient;
  if (scaling) {
    o.scaling = micro::LioScaling::kOn;
    o.max_scaling_sessions = 2 * host::UsableCpus();
  }
  return DoRun(run_params, o, json_file,
               pg::RedactedCommandLine(std::vector<std::string>(argv, argv + argc), "pgrig lio"));
}

}  // namespace pgrig::cli
