#include "cli/fleet_clients.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/exit_status.h"
#include "cli/server_probe.h"
#include "cli/version.h"
#include "common/fs.h"
#include "fleet/check.h"
#include "fleet/client_mode.h"
#include "fleet/ssh.h"
#include "host/facts_json.h"
#include "host/host_facts.h"
#include "pg/connection.h"

namespace pgrig::cli {
namespace {

constexpr CommandName kFleetClientsCommand{"pgrig fleet"};

// The shared Fail (exit_status.h), after RedactLine: a fleet's messages
// carry server strings that may hold a password.
int FailRedacted(const std::string& message, int code = kExitBadInvocation) {
  return Fail(kFleetClientsCommand, fleet::RedactLine(message), code);
}

void Print(const std::string& line) {
  std::printf("%s\n", fleet::RedactLine(line).c_str());
  std::fflush(stdout);
}

}  // namespace

int RunFleetClients(const fleet::Fleet& fl, const FleetClientsInvocation& inv) {
  if (Status st = MakeDirs(fl.results_dir + "/" + inv.run_id, 0755); !st.ok()) {
    return FailRedacted("results directory " + fl.results_dir + ": " + st.message());
  }
  // The server is reached once here, before any host: facts, and whether it
  // is local (then the observation's host figures describe it).
  pg::ConnectionParams params{.dbname = *fl.server, .application_name = "pgrig-fleet"};
  auto con = pg::Connect(params);
  if (!con.ok()) {
    return FailRedacted(inv.file + ": server " + pg::RedactConninfo(*fl.server) + ": " +
                        con.status().message());
  }
  const bool local = pg::ServerIsLocal(*con);
  RealProcessRunner runner;
  auto local_pgrig = fleet::DescribeLocalPgrig(kVersion, runner);
  if (!local_pgrig.ok()) return FailRedacted(local_pgrig.status().message());

  fleet::SshControlDir control;
  fleet::SshOptions ssh_options;
  ssh_options.config_file = fl.ssh_config;
  ssh_options.connect_timeout = fl.connect_timeout;
  ssh_options.control_dir = control.path();
  fleet::SshTransport ssh(runner, ssh_options);
  fleet::CheckOptions check_options;
  check_options.local = *local_pgrig;
  check_options.copy =
      inv.no_copy ? fleet::CopyPolicy::kNeverCopy : fleet::CopyPolicy::kCopyWhenNeeded;
  std::vector<fleet::HostCheck> checks = fleet::CheckFleet(fl, ssh, check_options);
  for (const fleet::HostCheck& c : checks) {
    Print(
        fmt::format("[{}] check: {} {}", c.host->label, fleet::HostStateName(c.state), c.message));
  }

  fleet::ClientRunOptions o;
  o.run_id = inv.run_id;
  o.tool_version = kVersion;
  o.command_line = {"pgrig", "fleet", "run", inv.file};
  o.cancel = inv.cancel;
  o.server_is_local = local;
  o.on_line = [](const std::string& line) { Print(line); };
  o.server_facts = [&]() -> nlohmann::json {
    nlohmann::json facts = FactsDocument(*con);
    // This machine's facts describe the server only when it runs here.
    if (!local) facts["host"] = nullptr;
    return facts;
  };
  fleet::ClientModeRun run = fleet::RunClientMode(fl, checks, ssh, o);
  *con = pg::Connection();
  for (const fleet::HostCheck& c : checks) ssh.CloseMaster(c.host->destination);

  std::printf("\nfleet run %s (clients):\n", inv.run_id.c_str());
  for (const fleet::HostRun& r : run.hosts) {
    if (r.host->role != fleet::HostRole::kClient) continue;
    Print(fmt::format("  {:<16} {:<10} {}", r.host->label, fleet::HostOutcomeName(r.outcome),
                      r.message));
  }
  if (!run.started) return FailRedacted(run.message);
  if (run.merged_file.empty()) return FailRedacted(run.message, kExitRunFailure);
  Print(fmt::format("merged result{}: {}", run.partial ? " (PARTIAL: a client failed)" : "",
                    run.merged_file));
  Print("  pgrig report " + run.merged_file);
  return run.partial || (inv.cancel != nullptr && inv.cancel->load()) ? kExitRunFailure : kExitOk;
}

}  // namespace pgrig::cli
