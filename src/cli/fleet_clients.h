// `pgrig fleet run` in clients mode (fleet/client_mode.h), called by
// cmd_fleet.cc once the fleet file is read and found to be in clients mode:
// checks the client hosts, takes the server's facts once, runs the clients
// with a synchronized start, prints each host's outcome and the merged
// result.  Prints; returns the exit code (0 all merged, 1 bad invocation or
// not started, 2 a client failed: the merged result is partial).
#ifndef PGRIG_CLI_FLEET_CLIENTS_H_
#define PGRIG_CLI_FLEET_CLIENTS_H_

#include <atomic>
#include <string>
#include <vector>

#include "fleet/fleet_file.h"

namespace pgrig::cli {

struct FleetClientsInvocation {
  std::string file;  // the fleet file, as given
  bool no_copy = false;
  std::string run_id;
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C
};

int RunFleetClients(const fleet::Fleet& fleet, const FleetClientsInvocation& inv);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_FLEET_CLIENTS_H_
