// pgrig fleet check FLEET.toml: is every host of a fleet reachable over ssh
// and running this pgrig (copied there when the architecture matches)?
// pgrig fleet run FLEET.toml: compare mode, the plan on each sut host, results
// copied back, then `pgrig compare` over them; or clients mode (every host a
// client, or mode = "clients"): fleet_clients.h.
// The work is in fleet/; this file parses options and prints.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <string>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/fleet_clients.h"
#include "cli/parse_args.h"
#include "cli/report_output.h"
#include "cli/version.h"
#include "common/clock.h"
#include "common/fs.h"
#include "cost/catalog.h"
#include "fleet/check.h"
#include "fleet/compare_session.h"
#include "fleet/fleet_file.h"
#include "fleet/hooks.h"
#include "fleet/instance_check.h"
#include "fleet/manifest.h"
#include "fleet/run.h"
#include "fleet/ssh.h"

namespace pgrig::cli {
namespace {

constexpr const char* kFleetFooter =
    R"(FLEET.toml names the hosts (ssh destinations as your OpenSSH configuration
knows them), their roles and prices, and the plan; see docs/fleet.md.

ssh runs in batch mode (keys from your agent or configuration, never a
prompt) and always checks host keys: a host whose key is unknown or changed
is refused until you verify and record its key.

fleet check exit codes: 0 every host ready, 1 bad invocation, bad fleet file,
or a host not ready (unreachable, or pgrig missing and not copyable).
fleet run exit codes: 0 every sut host completed and every hook succeeded,
1 bad invocation (nothing was run), 2 otherwise.  Ctrl-C once: the remote
runs stop, then the teardown hooks run; Ctrl-C twice: running hooks are
killed and the teardowns not started yet are skipped (run them by hand).)";

constexpr CommandName kFleetCommand{"pgrig fleet"};

int RunCheck(int argc, char** argv) {
  CLI::App app{"Check that every host of a fleet is reachable and runs this pgrig.",
               "pgrig fleet check"};
  app.footer(kFleetFooter);
  std::string file;
  bool no_copy = false;
  app.add_option("FLEET", file, "the fleet file (TOML)")->required();
  app.add_flag("--no-copy", no_copy, "never copy this pgrig to a host; only report");
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  auto fleet = fleet::ReadFleetFile(file);
  if (!fleet.ok()) return Fail(kFleetCommand, fleet.status().message());
  RealProcessRunner runner;
  auto local = fleet::DescribeLocalPgrig(kVersion, runner);
  if (!local.ok()) return Fail(kFleetCommand, local.status().message());
  // As `fleet run` does: every declared instance must be in the catalog
  // before any host is contacted.
  auto catalog = cost::LoadCatalog(
      cost::CatalogSearchFromEnvironment(std::filesystem::path(local->exe).parent_path().string()));
  if (!catalog.ok()) return Fail(kFleetCommand, catalog.status().message());
  if (Status st = fleet::CheckDeclaredInstances(*fleet, catalog->catalog, file); !st.ok()) {
    return Fail(kFleetCommand, st.message());
  }

  fleet::SshControlDir control;
  fleet::SshOptions ssh_options;
  ssh_options.config_file = fleet->ssh_config;
  ssh_options.connect_timeout = fleet->connect_timeout;
  ssh_options.control_dir = control.path();
  fleet::SshTransport ssh(runner, ssh_options);
  fleet::CheckOptions options;
  options.local = *local;
  options.copy = no_copy ? fleet::CopyPolicy::kNeverCopy : fleet::CopyPolicy::kCopyWhenNeeded;

  std::vector<fleet::HostCheck> checks = fleet::CheckFleet(*fleet, ssh, options);
  int not_ready = 0;
  for (const fleet::HostCheck& c : checks) {
    bool ok = c.state == fleet::HostState::kReady || c.state == fleet::HostState::kCopied;
    if (!ok) ++not_ready;
    std::printf("%s\n", fleet::RedactLine(fmt::format("{:<16} {:<6} {:<8} {:<13} {}", c.host->label,
                                                      fleet::HostRoleName(c.host->role),
                                                      c.arch.empty() ? "-" : c.arch,
                                                      fleet::HostStateName(c.state), c.message))
                            .c_str());
  }
  // Each ready host's facts against its declared instance: a warning, as in
  // `fleet run`, since the measurement itself would still be right.
  int instance_warnings = 0;
  for (const fleet::InstanceFinding& w : fleet::CheckInstances(checks, catalog->catalog, ssh)) {
    if (w.warning.empty()) continue;
    ++instance_warnings;
    std::printf(
        "%s\n",
        fleet::RedactLine(fmt::format("[{}] warning: {}", w.host->label, w.warning)).c_str());
  }
  for (const fleet::HostCheck& c : checks) ssh.CloseMaster(c.host->destination);
  // The hooks make and remove machines: a check does not run them.
  std::vector<std::string> hooked;
  if (fleet->provision || fleet->teardown) hooked.push_back("the fleet");
  for (const fleet::FleetHost& h : fleet->hosts) {
    if (h.provision || h.teardown) hooked.push_back(h.label);
  }
  if (!hooked.empty()) {
    std::printf(
        "hooks of %s not run: a check makes and removes no machines; a host that a provision "
        "hook creates can only be checked by `pgrig fleet run`, after its hook\n",
        fmt::format("{}", fmt::join(hooked, ", ")).c_str());
  }
  if (not_ready > 0) {
    std::fprintf(stderr, "pgrig fleet: %d of %zu hosts not ready\n", not_ready, checks.size());
    return kExitBadInvocation;
  }
  std::string tail;
  if (instance_warnings > 0) {
    tail = fmt::format("; {} instance warning{}", instance_warnings,
                       instance_warnings == 1 ? "" : "s");
  }
  std::printf("all %zu hosts ready (pgrig %s)%s\n", checks.size(), local->version.c_str(),
              tail.c_str());
  return kExitOk;
}

// --- fleet run (compare mode): hooks, manifest, --resume -------------------

// First SIGINT/SIGTERM: stop the remote runs, then run the teardowns.
// Second: kill running hooks and skip the teardowns not yet started.
std::atomic<bool> g_cancel{false};
std::atomic<bool> g_abort{false};
void OnSignal(int) {
  if (g_cancel.exchange(true)) {
    g_abort = true;
    constexpr char kMsg[] =
        "\npgrig fleet: second interrupt: killing running hooks; teardowns not started yet are "
        "skipped (run them by hand)\n";
    (void)!::write(2, kMsg, sizeof kMsg - 1);
  } else {
    constexpr char kMsg[] =
        "\npgrig fleet: interrupted: stopping the remote runs, then the teardowns run "
        "(Ctrl-C again to skip them)\n";
    (void)!::write(2, kMsg, sizeof kMsg - 1);
  }
}

void PrintLine(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Prints every hook's outcome and warns about teardowns that did not
// succeed or did not run; true when any hook did not succeed.
bool PrintHookOutcomes(const fleet::LifecycleReport& hooks, const std::string& run_dir) {
  bool trouble = hooks.fleet_provision_failed;
  for (const fleet::HookOutcome& o : hooks.hooks) {
    if (o.status != fleet::HookStatus::kSucceeded) trouble = true;
    std::printf("  hook %-11s %-9s %-10s %s\n", o.label.empty() ? "fleet" : o.label.c_str(),
                fleet::HookKindName(o.kind), fleet::HookStatusName(o.status), o.message.c_str());
    if (o.kind == fleet::HookKind::kTeardown && o.status != fleet::HookStatus::kSucceeded) {
      std::printf(
          "  WARNING: teardown of %s did not succeed: what it should remove may still "
          "exist (log: %s)\n",
          o.label.empty() ? "the fleet" : o.label.c_str(),
          fleet::HookLogFile(run_dir, o.label).c_str());
    }
  }
  for (const std::string& who : hooks.teardowns_skipped) {
    trouble = true;
    std::printf("  WARNING: teardown of %s was NOT run (second interrupt): run it by hand\n",
                who.c_str());
  }
  std::fflush(stdout);
  return trouble;
}

// The summary, the comparison and the exit code once the hooks are done.
int FinishRun(const fleet::CompareSession& s, const fleet::LifecycleReport& hooks) {
  const fleet::CompletedResults done = fleet::CollectCompleted(s);
  bool trouble = hooks.fleet_provision_failed || g_cancel || !done.all_completed;
  std::printf("\nfleet run %s:\n", s.manifest.run_id.c_str());
  for (const fleet::ManifestHost* mh : done.sut_hosts) {
    std::printf("  %-16s %-10s %s\n", mh->label.c_str(), fleet::ManifestOutcomeName(mh->outcome),
                fleet::RedactLine(mh->message.empty() ? "not run" : mh->message).c_str());
  }
  if (PrintHookOutcomes(hooks, s.run_dir)) trouble = true;
  int rc = trouble ? kExitRunFailure : kExitOk;
  if (done.dirs.size() >= 2) {
    std::printf("\n");
    std::fflush(stdout);
    const int crc = CompareSuites(CompareRequest{.dirs = done.dirs});
    if (crc != kExitOk && rc == kExitOk) rc = crc;
  } else {
    std::printf("fewer than two hosts completed: nothing to compare\n");
  }
  if (rc != kExitOk) {
    std::printf("to run the hosts that did not complete again: pgrig fleet run --resume %s\n",
                s.run_dir.c_str());
  }
  return rc;
}

// pgrig fleet run FLEET.toml | --resume RUN: compare mode.
int RunRunSub(int argc, char** argv) {
  CLI::App app{
      "Run a fleet's plan on each sut host and compare the results; or, with client "
      "hosts, one benchmark from all of them against one server, merged.",
      "pgrig fleet run"};
  app.footer(kFleetFooter);
  std::string file, resume;
  bool no_copy = false, sequential = false;
  app.add_option("FLEET", file, "the fleet file (TOML)");
  app.add_option("--resume", resume,
                 "continue a fleet run (its directory, or its id under the fleet's results): "
                 "hosts that completed are not run again");
  app.add_flag("--no-copy", no_copy, "never copy this pgrig to a host");
  app.add_flag("--sequential", sequential, "one host after another (default: as the fleet says)");
  if (auto code = ParseArgs(app, argc, argv)) return *code;
  // Clients mode: one benchmark from every client host, merged, inside the
  // same provision/teardown hooks; no resume (a merged window is one
  // measurement and cannot be continued).
  if (resume.empty() && !file.empty()) {
    auto fleet = fleet::ReadFleetFile(file);
    if (!fleet.ok()) return Fail(kFleetCommand, fleet.status().message());
    if (fleet->mode == fleet::FleetMode::kClients) {
      const std::string run_id = CompactTimestampUtc(WallSeconds());
      fleet::LifecycleOptions lo;
      lo.run_id = run_id;
      lo.results_dir = fleet->results_dir + "/" + run_id;
      lo.parallel_hosts = !sequential && fleet->parallel;
      lo.cancel = &g_cancel;
      lo.abort = &g_abort;
      lo.on_line = PrintLine;
      int rc = kExitRunFailure;
      auto old_int = std::signal(SIGINT, OnSignal);
      auto old_term = std::signal(SIGTERM, OnSignal);
      fleet::LifecycleReport hooks = fleet::RunWithHooks(
          *fleet, lo, [&](const std::map<std::string, std::string>& unavailable) {
            if (!unavailable.empty()) {
              // A window without some of the clients would measure another load.
              for (const auto& [label, why] : unavailable) {
                PrintLine(fmt::format("[{}] not provisioned: {}", label, why));
              }
              PrintLine("clients mode: no load was started (every client must be provisioned)");
              return;
            }
            rc = RunFleetClients(
                *fleet, {.file = file, .no_copy = no_copy, .run_id = run_id, .cancel = &g_cancel});
          });
      std::signal(SIGINT, old_int);
      std::signal(SIGTERM, old_term);
      if (!hooks.hooks.empty()) std::printf("hooks:\n");
      if (PrintHookOutcomes(hooks, lo.results_dir) && rc == kExitOk) rc = kExitRunFailure;
      return rc;
    }
  }
  // Everything is validated before any hook, connection or write.
  auto setup = fleet::PrepareCompareSession(file, resume, kVersion);
  if (!setup.ok()) return Fail(kFleetCommand, setup.status().message());
  fleet::CompareSession& s = *setup;
  if (Status st = MakeDirs(s.run_dir, 0755); !st.ok()) {
    return Fail(kFleetCommand, "results directory " + s.run_dir + ": " + st.message());
  }
  if (Status st = fleet::WriteManifest(s.run_dir, s.manifest); !st.ok()) {
    return Fail(kFleetCommand, "fleet run manifest: " + st.message());
  }
  PrintLine(fmt::format("fleet run {} ({}): results in {}", s.manifest.run_id,
                        s.resuming ? "resumed" : "new", s.run_dir));

  fleet::SshControlDir control;
  fleet::SshOptions ssh_options;
  ssh_options.config_file = s.fleet.ssh_config;
  ssh_options.connect_timeout = s.fleet.connect_timeout;
  ssh_options.control_dir = control.path();
  RealProcessRunner runner;
  fleet::SshTransport ssh(runner, ssh_options);

  fleet::LifecycleOptions lo;
  lo.run_id = s.manifest.run_id;
  lo.results_dir = s.run_dir;
  lo.parallel_hosts = !sequential && s.fleet.parallel;
  for (const fleet::ManifestHost& mh : s.manifest.hosts) {
    if (mh.outcome == fleet::ManifestOutcome::kCompleted) lo.done.insert(mh.label);
  }
  lo.cancel = &g_cancel;
  lo.abort = &g_abort;
  lo.on_line = PrintLine;
  auto old_int = std::signal(SIGINT, OnSignal);
  auto old_term = std::signal(SIGTERM, OnSignal);
  fleet::LifecycleReport hooks =
      fleet::RunWithHooks(s.fleet, lo, [&](const std::map<std::string, std::string>& unavailable) {
        fleet::CheckAndRunHosts(
            s, ssh,
            {.sequential = sequential,
             .copy = no_copy ? fleet::CopyPolicy::kNeverCopy : fleet::CopyPolicy::kCopyWhenNeeded,
             .cancel = &g_cancel,
             .abort = &g_abort,
             .on_line = PrintLine},
            unavailable);
      });
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  fleet::RecordHookOutcomes(s, hooks);
  if (Status w = fleet::WriteManifest(s.run_dir, s.manifest); !w.ok()) {
    PrintLine("warning: cannot update the run's manifest: " + w.message());
  }
  return FinishRun(s, hooks);
}

}  // namespace

int RunFleet(int argc, char** argv) {
  std::string sub = argc >= 2 ? argv[1] : "";
  if (sub == "check") return RunCheck(argc - 1, argv + 1);
  if (sub == "run") return RunRunSub(argc - 1, argv + 1);
  if (sub.empty() || sub == "--help" || sub == "-h") {
    std::printf(
        "Usage:\n  pgrig fleet check FLEET.toml [--no-copy]\n"
        "  pgrig fleet run FLEET.toml [--sequential] [--no-copy]\n"
        "  pgrig fleet run [FLEET.toml] --resume RUN_DIR|RUN_ID\n\n%s\n",
        kFleetFooter);
    return sub.empty() ? kExitBadInvocation : kExitOk;
  }
  return Fail(kFleetCommand,
              fmt::format("unknown subcommand \"{}\"; use \"check\" or \"run\"", sub));
}

}  // namespace pgrig::cli
