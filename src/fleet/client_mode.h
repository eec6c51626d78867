// `pgrig fleet run` in clients mode: every `client` host runs the same
// `pgrig bench` against one server, started together, and the results merge
// into one pgrig.result/1 (merge.h).
//
// Per client host, in parallel: make <work_dir>/<run id> there and run
//   PGRIG_FLEET_START_GATE=<ready timeout> PGRIG bench BENCH... --db SERVER
//       --json <work_dir>/<run id>/result.json
// over ssh with its stdin kept open.  The gate makes the remote bench, once
// its setup is done (setup connection, scale read, vacuum unless -n, facts)
// and every -c connection is open (engine::EngineConfig::start_gate), print
// "pgrig-fleet-ready" and wait for a "go" line on stdin; its -T window starts
// at "go".  When every
// client said ready, the controller starts the Observer on the server's
// connection and writes "go" to every client at once; the start does not
// depend on the hosts' clocks.  If any client fails or is not ready within
// `ready_timeout`, or the run is cancelled first, no client gets "go": every
// stdin is closed, each remote bench refuses to start, and no load runs.
// Every client runs the same -T window (the fleet file's `bench` must give
// -T; validated with CheckClientBench before anything is contacted).
//
// After the window the Observer is stopped, each host's result.json is
// copied back to <results_dir>/<run id>/host-<label>.json, and the merge is
// written atomically to <results_dir>/<run id>/merged.json with the server
// facts (taken once, by the caller's `server_facts`) and the observation.
//
// The server's conninfo is passed to each client on its command line; every
// line shown or recorded is redacted (RedactLine, pg::RedactConninfo): a
// password is never printed, but prefer ~/.pgpass on the clients.
//
// Progress lines come through on_line ("[label] text"), serialised here,
// from several threads.  Nothing here prints.
#ifndef PGRIG_FLEET_CLIENT_MODE_H_
#define PGRIG_FLEET_CLIENT_MODE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "fleet/check.h"
#include "fleet/fleet_file.h"
#include "fleet/run.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {

inline constexpr const char* kFleetStartGateEnv = "PGRIG_FLEET_START_GATE";
inline constexpr const char* kFleetReadyLine = "pgrig-fleet-ready";

// The -T seconds of a fleet's `bench` arguments, read by `pgrig bench`'s own
// parser (workload/bench_options.h).  InvalidArgument with the parser's
// message when pgrig bench would refuse them, and when there is no -T (or
// more than a day), or the arguments name what the fleet sets itself (the
// server: --db, -h, -p, -U, a database operand; --json) or a different kind
// of run (-t, -i, --help).
Result<int> CheckClientBench(const std::vector<std::string>& bench);

// The `tpcc` arguments of a fleet (pgrig tpcc run's), read by that
// command's own definitions (tpcc/run_args.h): its -T window (default 60)
// and --warmup seconds.  InvalidArgument with the parser's message when
// pgrig tpcc run would refuse them, when they name what the fleet sets itself
// (the server: -h, -p, -U, -d, a database operand; --json), or
// --check-warehouses (the controller checks every warehouse).
struct ClientTpcc {
  int duration_s = 0;
  int warmup_s = 0;
};
Result<ClientTpcc> CheckClientTpcc(const std::vector<std::string>& tpcc);

struct ClientRunOptions {
  std::string run_id;
  std::string tool_version;
  std::vector<std::string> command_line;  // the fleet command, for the merged result
  std::chrono::seconds ready_timeout{120};
  std::chrono::seconds copy_timeout{std::chrono::minutes(10)};
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& line)> on_line;  // "[label] text", redacted
  // The server's facts (facts module JSON), taken once before the clients
  // start; may be empty.
  std::function<nlohmann::json()> server_facts;
  bool server_is_local = false;  // the Observer's host figures describe the server
};

struct ClientModeRun {
  std::vector<HostRun> hosts;  // one per fleet host, in order; non-clients skipped
  bool started = false;        // "go" was given
  bool partial = false;        // a client failed or did not complete
  std::string merged_file;     // empty when nothing was merged
  std::string message;         // why the run did not start, or the merge failed
};

// `checks` are CheckFleet's results (same order as fleet.hosts).
ClientModeRun RunClientMode(const Fleet& fleet, const std::vector<HostCheck>& checks,
                            const SshTransport& ssh, const ClientRunOptions& options);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_CLIENT_MODE_H_
