// pgrig fleet check FLEET.toml: is every host of a fleet reachable over ssh
// and running this pgrig (copied there when the architecture matches)?
// pgrig fleet run FLEET.toml: compare mode, the plan on each sut host, results
// copied back, then `pgrig compare` over them; or clients mode (every host a
// client, or mode = "clients"): fleet_clients.h.
// The work is in fleet/; this file parses options and prints.
#include <fmt/format.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include "cli/commands.h"
#include "cli/fleet_clients.h"
#include "cli/version.h"
#include "common/fs.h"
#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/run.h"
#include "fleet/ssh.h"
#include "plan/plan.h"
#include "plan/plan_search.h"

namespace pgrig::cli {
namespace {

constexpr const char* kFooter = R"(FLEET.toml names the hosts (ssh destinations as your OpenSSH configuration
knows them), their roles and prices, and the plan; see docs/fleet.md.

ssh runs in batch mode (keys from your agent or configuration, never a
prompt) and always checks host keys: a host whose key is unknown or changed
is refused until you verify and record its key.

Exit codes: 0 every host ready, 1 bad invocation, bad fleet file, or a host
not ready (unreachable, or pgrig missing and not copyable).)";

int Fail(const std::string& message) {
  std::fprintf(stderr, "pgrig fleet: %s\n", message.c_str());
  return kExitBadInvocation;
}

// A private directory for ssh's multiplexing sockets, removed at the end.
class ControlDir {
 public:
  ControlDir() {
    char tmpl[] = "/tmp/pgrig-ssh-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~ControlDir() {
    if (!path_.empty()) (void)RemoveTree(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

int RunCheck(int argc, char** argv) {
  CLI::App app{"Check that every host of a fleet is reachable and runs this pgrig.",
               "pgrig fleet check"};
  app.footer(kFooter);
  std::string file;
  bool no_copy = false;
  app.add_option("FLEET", file, "the fleet file (TOML)")->required();
  app.add_flag("--no-copy", no_copy, "never copy this pgrig to a host; only report");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInvocation;
  }
  auto fleet = fleet::ReadFleetFile(file);
  if (!fleet.ok()) return Fail(fleet.status().message());
  auto local = fleet::DescribeLocalPgrig(kVersion);
  if (!local.ok()) return Fail(local.status().message());

  ControlDir control;
  fleet::SshOptions ssh_options;
  ssh_options.config_file = fleet->ssh_config;
  ssh_options.connect_timeout = fleet->connect_timeout;
  ssh_options.control_dir = control.path();
  RealProcessRunner runner;
  fleet::SshTransport ssh(runner, ssh_options);
  fleet::CheckOptions options;
  options.local = *local;
  options.copy = no_copy ? fleet::CopyPolicy::kNeverCopy : fleet::CopyPolicy::kCopyWhenNeeded;

  std::vector<fleet::HostCheck> checks = fleet::CheckFleet(*fleet, ssh, options);
  int not_ready = 0;
  for (const fleet::HostCheck& c : checks) {
    bool ok = c.state == fleet::HostState::kReady || c.state == fleet::HostState::kCopied;
    if (!ok) ++not_ready;
    std::printf("%s\n", fleet::RedactLine(fmt::format(
                            "{:<16} {:<6} {:<8} {:<13} {}", c.host->label,
                            fleet::HostRoleName(c.host->role), c.arch.empty() ? "-" : c.arch,
                            fleet::HostStateName(c.state), c.message)).c_str());
    ssh.CloseMaster(c.host->destination);
  }
  if (not_ready > 0) {
    std::fprintf(stderr, "pgrig fleet: %d of %zu hosts not ready\n", not_ready, checks.size());
    return kExitBadInvocation;
  }
  std::printf("all %zu hosts ready (pgrig %s)\n", checks.size(), local->version.c_str());
  return kExitOk;
}

std::atomic<bool> g_cancel{false};
void OnSignal(int) { g_cancel = true; }

std::string UtcStamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// pgrig fleet run FLEET.toml: compare mode.
int RunRunSub(int argc, char** argv) {
  CLI::App app{"Run a fleet's plan on each sut host and compare the results; or, with client "
               "hosts, one benchmark from all of them against one server, merged.",
               "pgrig fleet run"};
  app.footer(kFooter);
  std::string file;
  bool no_copy = false, sequential = false;
  app.add_option("FLEET", file, "the fleet file (TOML)")->required();
  app.add_flag("--no-copy", no_copy, "never copy this pgrig to a host");
  app.add_flag("--sequential", sequential, "one host after another (default: as the fleet says)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInvocation;
  }
  // Everything is validated before any connection.
  auto fleet = fleet::ReadFleetFile(file);
  if (!fleet.ok()) return Fail(fleet.status().message());
  if (fleet->mode == fleet::FleetMode::kClients) {
    auto old_int = std::signal(SIGINT, OnSignal);
    auto old_term = std::signal(SIGTERM, OnSignal);
    int rc = RunFleetClients(*fleet, {.file = file, .no_copy = no_copy, .run_id = UtcStamp(),
                                      .cancel = &g_cancel});
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
    return rc;
  }
  auto local = fleet::DescribeLocalPgrig(kVersion);
  if (!local.ok()) return Fail(local.status().message());
  plan::PlanSearch search;
  if (const char* d = std::getenv("PGRIG_DATA_DIR"); d != nullptr && *d != '\0') search.data_dir = d;
  search.exe_dir = std::filesystem::path(local->exe).parent_path().string();
  auto where = plan::LocatePlan(fleet->plan, search);
  if (!where.ok()) return Fail(file + ": plan: " + where.status().message());
  auto parsed = plan::ReadPlanFile(where->path);
  if (!parsed.ok()) return Fail(parsed.status().message());
  const std::string run_id = UtcStamp();
  if (Status st = MakeDirs(fleet->results_dir + "/" + run_id, 0755); !st.ok()) {
    return Fail("results directory " + fleet->results_dir + ": " + st.message());
  }

  ControlDir control;
  fleet::SshOptions ssh_options;
  ssh_options.config_file = fleet->ssh_config;
  ssh_options.connect_timeout = fleet->connect_timeout;
  ssh_options.control_dir = control.path();
  RealProcessRunner runner;
  fleet::SshTransport ssh(runner, ssh_options);
  fleet::CheckOptions check_options;
  check_options.local = *local;
  check_options.copy = no_copy ? fleet::CopyPolicy::kNeverCopy : fleet::CopyPolicy::kCopyWhenNeeded;
  std::vector<fleet::HostCheck> checks = fleet::CheckFleet(*fleet, ssh, check_options);
  for (const fleet::HostCheck& c : checks) {
    std::printf("%s\n", fleet::RedactLine(fmt::format("[{}] check: {} {}", c.host->label,
                                                      fleet::HostStateName(c.state), c.message))
                            .c_str());
  }
  std::fflush(stdout);

  fleet::CompareRunOptions options;
  options.run_id = run_id;
  options.plan_file = where->path;
  options.schedule = sequential || !fleet->parallel ? fleet::Schedule::kSequential
                                                    : fleet::Schedule::kParallel;
  options.cancel = &g_cancel;
  options.on_line = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  auto old_int = std::signal(SIGINT, OnSignal);
  auto old_term = std::signal(SIGTERM, OnSignal);
  std::vector<fleet::HostRun> runs = fleet::RunCompare(*fleet, checks, ssh, options);
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  for (const fleet::HostCheck& c : checks) ssh.CloseMaster(c.host->destination);

  std::vector<std::string> dirs;
  int failed = 0;
  std::printf("\nfleet run %s:\n", run_id.c_str());
  for (const fleet::HostRun& r : runs) {
    if (r.host->role != fleet::HostRole::kSut) continue;
    if (r.outcome != fleet::HostOutcome::kCompleted) ++failed;
    if (r.outcome == fleet::HostOutcome::kCompleted) dirs.push_back(r.local_results);
    std::printf("  %-16s %-10s %s\n", r.host->label.c_str(), fleet::HostOutcomeName(r.outcome),
                fleet::RedactLine(r.message).c_str());
  }
  std::fflush(stdout);
  int rc = failed > 0 ? kExitRunFailure : kExitOk;
  if (dirs.size() >= 2) {
    std::printf("\n");
    std::fflush(stdout);
    std::vector<std::string> args = {"compare"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    std::vector<char*> cargv;
    for (std::string& a : args) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int crc = RunCompare(static_cast<int>(args.size()), cargv.data());
    if (crc != kExitOk && rc == kExitOk) rc = crc;
  } else {
    std::printf("fewer than two hosts completed: nothing to compare\n");
  }
  return g_cancel ? kExitRunFailure : rc;
}

}  // namespace

int RunFleet(int argc, char** argv) {
  std::string sub = argc >= 2 ? argv[1] : "";
  if (sub == "check") return RunCheck(argc - 1, argv + 1);
  if (sub == "run") return RunRunSub(argc - 1, argv + 1);
  if (sub.empty() || sub == "--help" || sub == "-h") {
    std::printf("Usage:\n  pgrig fleet check FLEET.toml [--no-copy]\n"
                "  pgrig fleet run FLEET.toml [--sequential] [--no-copy]\n\n%s\n", kFooter);
    return sub.empty() ? kExitBadInvocation : kExitOk;
  }
  return Fail(fmt::format("unknown subcommand \"{}\"; use \"check\" or \"run\"", sub));
}

}  // namespace pgrig::cli
