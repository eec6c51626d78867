// pgrig cluster start|stop|status|destroy|logs: the embedded cluster.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/parse_args.h"
#include "cli/target.h"
#include "cluster/cluster.h"
#include "common/strings.h"
#include "runner/server_settings.h"

namespace pgrig::cli {

namespace {

constexpr CommandName kClusterCommand{"pgrig cluster"};

std::string Duration(double s) {
  auto total = static_cast<long>(s);
  if (total < 60) return fmt::format("{} s", total);
  if (total < 3600) return fmt::format("{} min {} s", total / 60, total % 60);
  return fmt::format("{} h {} min", total / 3600, (total % 3600) / 60);
}

}  // namespace

int RunCluster(int argc, char** argv) {
  CLI::App app{
      "Manage the embedded PostgreSQL cluster: a private server pgrig runs under $PGRIG_HOME\n"
      "(default ~/.local/share/pgrig, /var/lib/pgrig for root), on a Unix socket only.\n"
      "Commands that need a server and were not given one start it on demand.",
      "pgrig cluster"};
  app.require_subcommand(1, 1);
  bool json = false;
  int lines = 50;
  auto* start = app.add_subcommand(
      "start",
      "create the cluster if needed and start it; a new cluster is tuned with the\n"
      "$PGRIG_EMBEDDED_PROFILE profile (default benchmark; \"none\" keeps the defaults),\n"
      "sized for $PGRIG_EMBEDDED_MEMORY (default: this machine's memory)");
  auto* stop = app.add_subcommand("stop", "stop the server; nothing is left running");
  auto* status =
      app.add_subcommand("status", "version, data directory, socket, port, uptime, size");
  status->add_flag("--json", json, "print the status as JSON");
  auto* destroy =
      app.add_subcommand("destroy", "stop the server and delete the cluster and its data");
  auto* logs = app.add_subcommand("logs", "print the end of the server log");
  logs->add_option("-n,--lines", lines, "how many lines (default 50)")->check(CLI::PositiveNumber);
  if (auto code = ParseArgs(app, argc, argv)) return *code;

  auto opened = cluster::Cluster::Open({});
  if (!opened.ok()) return Fail(kClusterCommand, opened.status());
  cluster::Cluster& c = *opened;

  if (start->parsed()) {
    auto r = StartEmbedded(c, /*quiet=*/false);
    if (!r.ok()) return Fail(kClusterCommand, r.status());
    const char* what = *r == cluster::StartAction::kAlreadyRunning ? "already running"
                       : *r == cluster::StartAction::kStarted      ? "started"
                                                                   : "created and started";
    std::printf("embedded cluster %s (%s, socket directory %s)\n", what, c.home().c_str(),
                c.socket_dir().c_str());
    return kExitOk;
  }
  if (stop->parsed()) {
    Status s = c.Stop();
    if (!s.ok()) return Fail(kClusterCommand, s);
    std::printf("embedded cluster stopped (%s)\n", c.home().c_str());
    return kExitOk;
  }
  if (destroy->parsed()) {
    Status s = c.Destroy();
    if (!s.ok()) return Fail(kClusterCommand, s);
    std::printf(
        "embedded cluster destroyed (its data, socket directory and log under %s "
        "removed)\n",
        c.home().c_str());
    return kExitOk;
  }
  if (logs->parsed()) {
    auto t = c.LogTail(lines);
    if (!t.ok()) return Fail(kClusterCommand, t.status());
    std::fwrite(t->data(), 1, t->size(), stdout);
    return kExitOk;
  }
  // status
  auto st = c.GetStatus();
  if (!st.ok()) return Fail(kClusterCommand, st.status());
  // What an interrupted run left: restored now when the cluster runs.
  std::vector<std::string> restored;
  auto left = runner::FindEmbeddedLeftSettings(c);
  if (!left.ok()) return Fail(kClusterCommand, left.status());
  if (*left && !(*left)->writer_alive && st->running) {
    pg::Connection conn = pg::ConnectOrInvalid(c.Params());
    auto settled = runner::SettleLeftSettings(conn, c.Params(), &c, /*restore=*/true, "");
    if (!settled.ok()) return Fail(kClusterCommand, settled.status());
    restored = settled->restored;
    left->reset();
    std::fprintf(stderr,
                 "pgrig: restored %s, which an interrupted pgrig run had left changed on the "
                 "embedded cluster\n",
                 Join(restored, ", ").c_str());
  }
  if (json) {
    nlohmann::json j = {
        {"initialized", st->initialized},
        {"running", st->running},
        {"pid", st->running ? nlohmann::json(st->pid) : nlohmann::json()},
        {"server_version", st->version},
        {"data_dir", st->data_dir},
        {"socket_dir", st->socket_dir},
        {"socket_path", st->socket_path},
        {"port", st->port},
        {"log_file", st->log_file},
        {"bindir", st->bindir},
        {"build", st->build.empty() ? nlohmann::json() : nlohmann::json(st->build)},
        {"server_account", st->account},
        {"uptime_s", st->running ? nlohmann::json(st->uptime_s) : nlohmann::json()},
        {"size_bytes", st->size_bytes},
        {"crashed", st->crashed},
        {"settings_restored", restored},
        {"settings_left", *left ? nlohmann::json{{"names", (*left)->names},
                                                 {"pid", (*left)->pid},
                                                 {"since", (*left)->created_at},
                                                 {"run_going", (*left)->writer_alive},
                                                 {"record", (*left)->marker}}
                                : nlohmann::json()}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (st->crashed) {
    std::printf(
        "state:          crashed (postmaster.pid names pid %d, which is gone: the server "
        "did not shut down cleanly; `pgrig cluster logs` shows why, and the next start "
        "recovers)\n",
        st->crashed_pid);
  } else {
    std::printf("state:          %s\n", !st->initialized ? "not created"
                                        : st->running    ? "running"
                                                         : "stopped");
  }
  if (*left) {
    std::printf("settings:       %s changed by %s (pid %lld, since %s)%s\n",
                Join((*left)->names, ", ").c_str(),
                (*left)->writer_alive ? "a pgrig run still going" : "an interrupted pgrig run",
                static_cast<long long>((*left)->pid), (*left)->created_at.c_str(),
                (*left)->writer_alive
                    ? ""
                    : "; the next pgrig command that starts the cluster restores them");
  }
  std::printf("version:        %s\n", st->version.empty() ? "unknown" : st->version.c_str());
  std::printf("build:          %s\n",
              st->build.empty() ? "the installed server" : st->build.c_str());
  std::printf("data directory: %s\n", st->data_dir.c_str());
  std::printf("socket:         %s\n", st->socket_path.c_str());
  std::printf("port:           %d (Unix socket only, no TCP)\n", st->port);
  if (st->running) {
    std::printf("pid:            %d\n", st->pid);
    std::printf("uptime:         %s\n", Duration(st->uptime_s).c_str());
  }
  std::printf("size:           %s\n", st->initialized ? HumanBytes(st->size_bytes).c_str() : "-");
  std::printf("runs as:        %s\n", st->account.c_str());
  std::printf("binaries:       %s\n", st->bindir.empty() ? "not found" : st->bindir.c_str());
  std::printf("log:            %s\n", st->log_file.c_str());
  if (st->running) {
    std::printf("connect with:   psql -h %s -p %d -U postgres pgrig\n", st->socket_dir.c_str(),
                st->port);
  }
  return kExitOk;
}

}  // namespace pgrig::cli
