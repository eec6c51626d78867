// pgrig fsync [PATH]: WAL flush speed of a directory's device for each
// wal_sync_method (src/micro/wal_flush.h, docs/fsync.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/micro_cli.h"
#include "cli/parse_args.h"
#include "cli/server_probe.h"
#include "cli/version.h"
#include "cluster/cluster.h"
#include "common/fs.h"
#include "common/interrupt.h"
#include "common/strings.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "micro/wal_flush.h"
#include "pg/connection_options.h"
#include "results/wal_flush_json.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kFsyncCommand{"pgrig fsync"};

// "8k,16k" or "8192,16384" -> bytes; "1,4" -> counts.
Result<std::vector<int>> ParseList(const std::string& text, const char* what, bool sizes) {
  std::vector<int> out;
  for (const auto& part : Split(text, ',')) {
    std::string p = ToLower(Trim(part));
    int64_t mult = 1;
    if (sizes && !p.empty() && p.back() == 'k') {
      mult = 1024;
      p.pop_back();
    }
    auto v = ParseInt64(p);
    if (!v || *v <= 0 || *v * mult > (1 << 20)) {
      return InvalidArgument(fmt::format("{} \"{}\": \"{}\" is not a positive number{}", what, text,
                                         part, sizes ? " of bytes (8192 or 8k)" : ""));
    }
    out.push_back(static_cast<int>(*v * mult));
  }
  if (out.empty()) return InvalidArgument(fmt::format("{} is empty", what));
  return out;
}

std::string Describe(const nlohmann::json& storage) {
  if (!storage.is_object()) return "device unknown";
  auto get = [&](const char* k) {
    return storage.contains(k) && storage[k].is_string() ? storage[k].get<std::string>()
                                                         : std::string("?");
  };
  std::string rot = "?";
  if (storage.contains("rotational") && storage["rotational"].is_boolean()) {
    rot = storage["rotational"].get<bool>() ? "yes" : "no";
  }
  return fmt::format("{} on {}, device {}, model {}, rotational {}", get("filesystem"),
                     get("source"), get("device"), get("model"), rot);
}

// The server fsync compares with: the one named, or the embedded cluster
// when it is running.  Nothing is started: fsync only reads the server's
// settings.  `error` is set when a named server cannot be reached.
struct FsyncServer {
  std::optional<pg::Connection> conn;
  bool embedded = false;
  std::string data_dir;  // when the server is on this machine and says where
  std::string error;
};

FsyncServer FindServer(const pg::ConnectionParams& params, bool no_server) {
  FsyncServer out;
  if (no_server) return out;
  if (params.NamesAServer()) {
    auto c = pg::Connect(params);
    if (!c.ok()) {
      out.error =
          c.status().message() + " (give a PATH with --no-server to test a directory alone)";
      return out;
    }
    out.conn = std::move(c).value();
    if (pg::ServerIsLocal(*out.conn)) {
      auto d = out.conn->QueryValue("SHOW data_directory");
      if (d.ok()) out.data_dir = *d;
    }
  } else if (auto cl = cluster::Cluster::Open({}); cl.ok()) {
    out.embedded = true;
    if (std::filesystem::is_directory(cl->data_dir())) out.data_dir = cl->data_dir();
    if (cl->RunningPid()) {
      auto c = pg::Connect(cl->Params());
      if (c.ok()) out.conn = std::move(c).value();
    }
  }
  return out;
}

// The table of tests and the best method against the server's.
void PrintFsyncResult(const micro::FsyncResult& r, const results::FsyncDocContext& ctx) {
  std::printf("  %-24s %7s %7s %10s %9s %9s %9s\n", "method", "bytes", "writers", "flushes/s",
              "p50 ms", "p99 ms", "max ms");
  for (const auto& t : r.tests) {
    if (t.unavailable) {
      std::printf("  %-24s %7d %7d  not available: %s\n", t.Label().c_str(), t.write_bytes,
                  t.writers, t.unavailable->c_str());
      continue;
    }
    static constexpr double kPs[] = {50, 99};
    auto v = t.latency.ValuesAtPercentiles(kPs);
    std::printf("  %-24s %7d %7d %10.0f %9.3f %9.3f %9.3f\n", t.Label().c_str(), t.write_bytes,
                t.writers, t.ops_per_s(), static_cast<double>(v[0]) / 1e6,
                static_cast<double>(v[1]) / 1e6, static_cast<double>(t.latency.max()) / 1e6);
  }
  const results::FsyncHeadline h = results::ComputeFsyncHeadline(r, ctx.server_wal_sync_method);
  const micro::BestMethodChoice& c = h.choice;
  if (c.leader && c.runner_up && c.over_runner_up) {
    std::printf("%s leads %s by %.2fx", micro::SyncMethodName(*c.leader),
                micro::SyncMethodName(*c.runner_up), *c.over_runner_up);
    if (c.over_runner_up_interval) {
      std::printf(" [95%% interval %.2f, %.2f]", c.over_runner_up_interval->low,
                  c.over_runner_up_interval->high);
    }
    std::printf(" over %d samples each%s\n",
                static_cast<int>(r.tests.empty() ? 0 : r.tests.front().sample_ops_per_s.size()),
                h.best ? "" : ": no method is significantly best; any of them will do");
  }
  if (h.best && h.best_test != nullptr) {
    std::printf("best: %s, %.0f flushes/s (%d bytes, %d writer)", micro::SyncMethodName(*h.best),
                h.best_test->ops_per_s(), h.best_test->write_bytes, h.best_test->writers);
  }
  if (ctx.server_wal_sync_method) {
    std::printf("%sthe server uses %s", h.best ? "; " : "", ctx.server_wal_sync_method->c_str());
    if (h.server_test != nullptr) {
      std::printf(" (%.0f flushes/s", h.server_test->ops_per_s());
      if (h.best_over_server) std::printf("; best/current %.2fx", *h.best_over_server);
      std::printf(")");
    }
  } else {
    std::printf("%sno server reachable to compare its wal_sync_method", h.best ? "; " : "");
  }
  std::printf("\n");
}

}  // namespace

int RunFsync(int argc, char** argv) {
  CLI::App app{
      "Flushes per second and their latency for each wal_sync_method PostgreSQL offers here\n"
      "(and open_datasync with O_DIRECT), with 8 KB and 16 KB writes, one and several writers,\n"
      "on a 16 MB test file in PATH (default: the server's data directory).  Refuses tmpfs.\n"
      "See docs/fsync.md.",
      "pgrig fsync"};
  app.set_help_flag("--help", "print this help and exit");
  micro::FsyncOptions o;
  std::string dir, sizes = "8192,16384", writers = "1,4", json_file;
  bool allow_tmpfs = false, no_server = false;
  pg::ConnectionParams params;
  app.add_option("PATH", dir, "directory on the device to test (default: the data directory)");
  app.add_option("--seconds", o.seconds_per_test, "seconds per test (default 2, at most 60)");
  app.add_option("--samples", o.samples,
                 "measure each test this many times, in rounds, splitting --seconds (default 5); "
                 "a method is named best only when it is significantly best");
  app.add_option("--sizes", sizes, "write sizes in bytes (default 8192,16384; 8k works)");
  app.add_option("--writers", writers, "writer thread counts (default 1,4)");
  app.add_flag("--allow-tmpfs", allow_tmpfs,
               "measure a tmpfs/ramfs directory anyway (the figures then mean nothing)");
  app.add_flag("--no-server", no_server, "do not ask a server for its data directory or setting");
  app.add_option("--json", json_file, "write the pgrig.fsync/1 document to FILE ('-': stdout)")
      ->type_name("FILE");
  pg::AddConnectionOptions(&app, &params);
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  auto s = ParseList(sizes, "--sizes", true);
  if (!s.ok()) return Fail(kFsyncCommand, s.status().message());
  o.write_sizes = *s;
  auto w = ParseList(writers, "--writers", false);
  if (!w.ok()) return Fail(kFsyncCommand, w.status().message());
  o.writers = *w;
  o.tmpfs = allow_tmpfs ? micro::TmpfsPolicy::kAllow : micro::TmpfsPolicy::kRefuse;
  if (Status st = CheckJsonDestination(json_file); !st.ok())
    return Fail(kFsyncCommand, st.message());
  {
    // Numbers first, so that a bad option is named before any server is asked.
    micro::FsyncOptions probe = o;
    probe.dir = "/";
    probe.tmpfs = micro::TmpfsPolicy::kAllow;
    if (Status st = micro::ValidateFsync(probe);
        !st.ok() && st.code() == StatusCode::kInvalidArgument)
      return Fail(kFsyncCommand, st.message());
  }

  FsyncServer server = FindServer(params, no_server);
  if (!server.error.empty()) return Fail(kFsyncCommand, server.error);
  std::optional<pg::Connection>& conn = server.conn;
  const bool embedded = server.embedded;
  if (dir.empty()) {
    if (server.data_dir.empty()) {
      return Fail(kFsyncCommand,
                  params.NamesAServer() && !no_server
                      ? "the server's data directory is not on this machine or not readable "
                        "(SHOW data_directory needs pg_read_all_settings); give a PATH"
                      : "no data directory to test: the embedded cluster does not exist yet; "
                        "give a PATH or run `pgrig cluster start`");
    }
    dir = server.data_dir;
  }
  o.dir = dir;
  if (Status st = micro::ValidateFsync(o); !st.ok()) return Fail(kFsyncCommand, st.message());

  results::FsyncDocContext ctx;
  results::MicroDocInputs in{.tool_version = kVersion,
                             .command_line = pg::RedactedCommandLine(
                                 std::vector<std::string>(argv, argv + argc), "pgrig fsync")};
  if (conn) {
    auto m = conn->QueryValue("SHOW wal_sync_method");
    if (m.ok()) ctx.server_wal_sync_method = *m;
    in.server_version_num = conn->server_version();
    in.server_version = pg::ServerVersionText(in.server_version_num);
    in.server_target = conn->Describe();
    in.embedded = embedded;
  }
  host::HostFacts hf = host::CollectHostFacts(SysFs("/"), {.storage_path = dir});
  ctx.storage = host::ToJson(hf)["storage"];
  if (!json_file.empty()) {
    std::optional<host::ServerFacts> sf;
    if (conn) sf = ProbeServer(*conn, &hf);
    ctx.facts = host::FactsToJson(hf, sf);
  }
  conn.reset();

  std::printf("pgrig fsync: %s (%s), %g s per test\n", dir.c_str(), Describe(ctx.storage).c_str(),
              o.seconds_per_test);
  std::fflush(stdout);
  InterruptScope interrupt;
  o.stop_requested = InterruptScope::flag();
  auto r = micro::RunFsync(o);
  // A bad path or value is still the invocation's fault (1); else the run failed (2).
  if (!r.ok()) return Fail(kFsyncCommand, r.status(), ExitStage::kRun);
  nlohmann::json doc = results::FsyncResultToJson(in, o, *r, ctx);
  PrintFsyncResult(*r, ctx);
  for (const auto& n : r->notes) std::printf("note: %s\n", n.c_str());
  if (!json_file.empty()) {
    Status st = json_file == "-" ? (std::printf("%s\n", doc.dump(2).c_str()), Status::Ok())
                                 : WriteFileAtomically(json_file, doc.dump(2) + "\n");
    if (!st.ok()) return Fail(kFsyncCommand, st.message(), kExitRunFailure);
  }
  return r->interrupted ? kExitRunFailure : kExitOk;
}

}  // namespace pgrig::cli
