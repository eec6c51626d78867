// The client side of `pgrig fleet run` in clients mode (fleet/client_mode.h),
// shared by `pgrig bench` and `pgrig tpcc run`: with
// PGRIG_FLEET_START_GATE=SECONDS in the environment, once every client is
// connected (the engine's start_gate) the command says kFleetReadyLine on
// stdout, then waits up to SECONDS for a "go" line on stdin; its -T window
// starts at "go" (EngineConfig::WindowStart::kStartGate).  Anything else
// (end of input, another line, the timeout) refuses: no load runs.
#ifndef PGRIG_CLI_FLEET_GATE_H_
#define PGRIG_CLI_FLEET_GATE_H_

#include <optional>

#include "common/status.h"

namespace pgrig::cli {

// The gate's timeout in seconds when the environment asks for one.
std::optional<int> FleetGateFromEnvironment();

// Says ready and waits for "go" (above); OK on "go".
Status WaitForFleetGo(int timeout_s);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_FLEET_GATE_H_
