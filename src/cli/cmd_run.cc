// pgrig run: the main job on a fresh machine.  Starts the embedded cluster
// (unless a server is named), loads pgbench's tables with `pgrig init`, runs
// a short `pgrig bench`, and shows the cluster's status.  It composes the
// other subcommands through their own argument parsers, so it behaves exactly
// like typing them.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/target.h"

namespace pgrig::cli {

namespace {

int Call(CommandFn fn, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return fn(static_cast<int>(args.size()), argv.data());
}

}  // namespace

int RunRun(int argc, char** argv) {
  CLI::App app{
      "The main job: start the embedded PostgreSQL cluster (or use the server named with\n"
      "--db), load pgbench's tables at --scale with `pgrig init`, and run a short\n"
      "`pgrig bench` (tpcb-like, --clients clients, --duration seconds).",
      "pgrig run"};
  int scale = 10;
  int clients = 8;
  int threads = 2;
  int duration = 10;
  std::string db;
  std::string json;
  app.add_option("-s,--scale", scale, "pgbench scale factor to load (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("-c,--clients", clients, "client connections (default 8)")
      ->check(CLI::PositiveNumber);
  app.add_option("-j,--jobs", threads, "worker threads (default 2)")->check(CLI::PositiveNumber);
  app.add_option("-T,--duration", duration, "benchmark seconds (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--db", db, "a server to use instead of the embedded cluster (conninfo or URI)");
  app.add_option("--json", json, "also write the benchmark result as JSON to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInvocation;
  }

  std::vector<std::string> conn;
  if (!db.empty()) {
    conn = {"--db", db};
  } else {
    pg::ConnectionParams none;
    auto t = ResolveTarget(none, /*quiet=*/false);
    if (!t.ok()) {
      std::fprintf(stderr, "pgrig run: %s\n", t.status().message().c_str());
      return kExitBadInvocation;
    }
  }

  std::vector<std::string> init = {"init", "-s", std::to_string(scale)};
  init.insert(init.end(), conn.begin(), conn.end());
  std::printf("== pgrig init -s %d\n", scale);
  std::fflush(stdout);
  if (int rc = Call(RunInit, init); rc != kExitOk) return rc;

  std::vector<std::string> bench = {"bench", "-c", std::to_string(clients), "-j",
                                    std::to_string(threads), "-T", std::to_string(duration),
                                    "-P", std::to_string(duration >= 10 ? 5 : 1)};
  if (!json.empty()) {
    bench.push_back("--json");
    bench.push_back(json);
  }
  bench.insert(bench.end(), conn.begin(), conn.end());
  std::printf("\n== pgrig bench -c %d -j %d -T %d\n", clients, threads, duration);
  std::fflush(stdout);
  if (int rc = Call(RunBench, bench); rc != kExitOk) return rc;

  if (db.empty()) {
    std::printf("\n== pgrig cluster status\n");
    std::fflush(stdout);
    return Call(RunCluster, {"cluster", "status"});
  }
  return kExitOk;
}

}  // namespace pgrig::cli
