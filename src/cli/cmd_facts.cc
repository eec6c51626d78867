// pgrig facts: describe this machine (and the server, when there is one),
// or compare two facts documents with --diff.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/server_probe.h"
#include "cli/target.h"
#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/strings.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "host/server_facts.h"
#include "pg/connection.h"
#include "pg/connection_options.h"
#include "results/json_read.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kFactsCommand{"pgrig facts"};

Result<nlohmann::json> LoadFacts(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  PGRIG_ASSIGN_OR_RETURN(nlohmann::json doc, results::ParseJson(*text, path));
  auto facts = host::ExtractFacts(doc);
  if (!facts.ok()) return facts.status().WithContext(path);
  return facts;
}

Status WriteOut(const std::string& file, const std::string& text) {
  if (file.empty() || file == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  return WriteFileAtomically(file, text);
}

int RunDiff(const std::string& a_path, const std::string& b_path, bool json,
            const std::string& json_file) {
  auto a = LoadFacts(a_path);
  if (!a.ok()) return Fail(kFactsCommand, a.status().message());
  auto b = LoadFacts(b_path);
  if (!b.ok()) return Fail(kFactsCommand, b.status().message());
  auto diffs = host::DiffFacts(*a, *b);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : diffs) out.push_back({{"key", d.key}, {"a", d.a}, {"b", d.b}});
    Status s = WriteOut(json_file, out.dump(2) + "\n");
    return s.ok() ? kExitOk : Fail(kFactsCommand, s.message());
  }
  if (diffs.empty()) {
    std::printf("No differences between %s and %s.\n", a_path.c_str(), b_path.c_str());
    return kExitOk;
  }
  std::printf("%zu differences, most relevant first (A = %s, B = %s):\n", diffs.size(),
              a_path.c_str(), b_path.c_str());
  for (const auto& d : diffs) {
    std::printf("  %s\n      A: %s\n      B: %s\n", d.key.c_str(), d.a.c_str(), d.b.c_str());
  }
  return kExitOk;
}

}  // namespace

int RunFacts(int argc, char** argv) {
  CLI::App app{
      "Describe this machine and the PostgreSQL server: CPU (core or microarchitecture, chip,\n"
      "counts, caches, flags), memory and container limits, huge pages, THP, kernel, NUMA,\n"
      "virtualization, storage under the data directory; with a server, its version, key\n"
      "settings and build.  With no server named (-h/-p/-U/-d or PG* variables) the embedded\n"
      "cluster is described when it is running.  Missing facts are shown as \"unknown\".",
      "pgrig facts"};
  app.set_help_flag("--help", "print this help and exit");
  std::string json_file;
  bool no_server = false;
  std::string sysroot = "/";
  std::string data_dir;
  std::vector<std::string> diff;
  pg::ConnectionParams params;
  std::string positional_db;
  auto* json_opt =
      app.add_option("--json", json_file,
                     "print the facts as JSON (to FILE when given, else to standard output)")
          ->expected(0, 1)
          ->type_name("[FILE]");
  app.add_option("--sysroot", sysroot,
                 "read /proc and /sys under DIR instead of / (a tree copied from another machine)")
      ->type_name("DIR");
  app.add_option("--data-dir", data_dir,
                 "describe the storage under this directory (default: the server's data directory)")
      ->type_name("DIR");
  app.add_option("--diff", diff,
                 "compare two facts documents or results files: --diff A.json B.json")
      ->expected(2)
      ->type_name("A.json B.json");
  pg::AddConnectionOptions(&app, &params, &positional_db);
  app.add_flag("--no-server", no_server, "describe the host only, even when a server is reachable");
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  bool json = json_opt->count() > 0;
  if (Status s = pg::UseDatabaseOperand(&params, positional_db); !s.ok()) {
    return Fail(kFactsCommand, s.message());
  }

  if (!diff.empty()) return RunDiff(diff[0], diff[1], json, json_file);

  SysFs fs(sysroot);
  if (sysroot != "/" && !fs.Exists("/proc") && !fs.Exists("/sys")) {
    return Fail(
        kFactsCommand,
        "--sysroot " + sysroot + " has neither proc/ nor sys/; give the directory that holds them");
  }
  host::HostFacts hf = host::CollectHostFacts(fs, {.storage_path = data_dir});

  // The server: the one named, else the embedded cluster when it is already
  // running.  A server cannot be described for a tree from another machine.
  std::optional<host::ServerFacts> sf;
  std::optional<pg::Connection> conn;
  bool live = sysroot == "/";
  if (Status s = CheckNoBuildForNamedServer(params); !s.ok()) return Fail(kFactsCommand, s);
  if (!no_server && live) {
    const std::string build = cluster::ClusterEnv::FromProcess().pg_build;
    auto cl = params.NamesAServer() ? Result<cluster::Cluster>(NotFound("named"))
                                    : cluster::Cluster::Open({});
    if (!params.NamesAServer() && !cl.ok() && !build.empty()) {
      return Fail(kFactsCommand, cl.status());
    }
    if (params.NamesAServer()) {
      auto c = pg::Connect(params);
      if (!c.ok()) {
        return Fail(kFactsCommand,
                    c.status().message() + "\n(use --no-server to describe the host alone)");
      }
      conn = std::move(c).value();
    } else if (cl.ok() && cl->RunningPid()) {
      auto c = pg::Connect(cl->Params());
      if (c.ok())
        conn = std::move(c).value();
      else
        hf.notes.push_back("server: the embedded cluster is running but " + c.status().message());
    } else {
      hf.notes.push_back(
          build.empty()
              ? "server: none named and the embedded cluster is not running; pass -h/-p/-U/-d or "
                "run `pgrig cluster start` to include server facts"
              : "server: the embedded cluster of build " + build +
                    " is not running; run `pgrig cluster start --pg " + build +
                    "` to include server facts");
    }
  }
  if (conn) {
    // With --data-dir the storage facts are already there; otherwise the
    // probe describes the device under the server's data directory.
    sf = ProbeServer(*conn, &hf);
  }

  if (json) {
    nlohmann::json doc = host::FactsToJson(hf, sf);
    Status s = WriteOut(json_file, doc.dump(2) + "\n");
    return s.ok() ? kExitOk : Fail(kFactsCommand, s.message());
  }
  std::string text = host::FormatFacts(hf, sf);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace pgrig::cli
