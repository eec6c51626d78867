// The fleet file: which machines, reached how, doing what (TOML).
//
//   [fleet]
//   plan = "quick"                 # a shipped plan, or a plan file (relative to this file)
//   mode = "compare"               # compare (each sut runs the plan) | clients (many load
//                                  # clients); default: clients when every host is a client
//   ssh_config = "ssh_config"      # optional: `ssh -F`; default: your own OpenSSH configuration
//   connect_timeout = 10           # seconds
//   parallel = true                # compare mode: sut hosts at once (false: one after another)
//   results = "fleet-results"      # where results come back to (relative to this file)
//   server = "host=db ..."         # clients mode: the server every client drives
//   bench = ["-S", "-c", "8", "-T", "30"]  # clients mode: what each client runs (pgrig bench)
//   tpcc = ["-c", "8", "-T", "60"]  # ... or instead: pgrig tpcc run on data tpcc init loaded
//   provision = { command = ["terraform", "apply", "-auto-approve"], timeout = 900 }
//   teardown  = { command = "terraform destroy -auto-approve", timeout = 900 }
//
//   [[host]]
//   label = "graviton"             # names the host in output and results
//   ssh = "ubuntu@db-arm"          # an ssh destination as your OpenSSH configuration knows it
//   role = "sut"                   # sut (runs the plan on itself) | client (load generator)
//   instance = "m7g.xlarge"        # price from the catalog, or usd_per_hour = 0.16
//   pgrig = "pgrig"                # the pgrig command on the host
//   install_dir = ".pgrig/bin"     # where pgrig copies itself there (relative: to the remote home)
//   work_dir = ".pgrig/fleet"      # plan files and results there during a fleet run
//   env = { PGRIG_HOME = "/srv/pgrig" }  # environment of every pgrig command there
//   keep_cluster = false           # compare mode: leave the embedded cluster the run
//                                  # started running (also in [fleet]: every host's default)
//   provision = ...; teardown = ...  # per-host hooks, as above
//
// A hook's command is an argv array (run as is) or a string (run with
// `sh -c`); it runs on this machine, not on the host.  Every error names the
// file, the line and the key, and suggests the closest valid key.  Pure
// parsing: nothing is contacted or written.  Thread-safe (no state).
#ifndef PGRIG_FLEET_FLEET_FILE_H_
#define PGRIG_FLEET_FLEET_FILE_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pgrig::fleet {

enum class HostRole { kSut, kClient };
enum class FleetMode { kCompare, kClients };

const char* HostRoleName(HostRole r);
const char* FleetModeName(FleetMode m);

struct Hook {
  std::vector<std::string> argv;  // a string command becomes {"sh", "-c", command}
  std::chrono::seconds timeout{600};
  int line = 0;  // where it was defined, for messages
};

struct FleetHost {
  std::string label;
  std::string destination;  // `ssh` key
  HostRole role = HostRole::kSut;
  std::optional<std::string> instance;
  std::optional<double> usd_per_hour;
  std::string pgrig = "pgrig";
  // Where pgrig copies itself on the host when needed; relative paths are
  // relative to the remote home.
  std::string install_dir = ".pgrig/bin";
  // Where plan files and results live on the host during a fleet run.
  std::string work_dir = ".pgrig/fleet";
  // Set for every pgrig command run there (e.g. PGRIG_HOME).
  std::map<std::string, std::string> env;
  // Compare mode: leave running the embedded cluster that this host's run
  // started (by default a fleet run stops it at the end; one that was
  // running before is never stopped).  The host's `keep_cluster`, else the
  // fleet's.
  bool keep_cluster = false;
  std::optional<Hook> provision;
  std::optional<Hook> teardown;
  int line = 0;
};

struct Fleet {
  std::string file;  // as given
  std::string plan;  // a shipped plan name, or a plan file's path (resolved); compare mode
  FleetMode mode = FleetMode::kCompare;
  std::optional<std::string> ssh_config;  // resolved against the file's directory
  std::chrono::seconds connect_timeout{10};
  bool parallel = true;
  std::string results_dir;                        // resolved; default <file's dir>/fleet-results
  std::optional<std::string> server;              // clients mode
  std::optional<std::vector<std::string>> bench;  // clients mode: pgrig bench arguments
  std::optional<std::vector<std::string>> tpcc;   // clients mode: or pgrig tpcc run arguments
  std::optional<Hook> provision;
  std::optional<Hook> teardown;
  std::vector<FleetHost> hosts;

  std::vector<const FleetHost*> HostsWithRole(HostRole role) const;
};

Result<Fleet> ParseFleet(const std::string& text, const std::string& path);
Result<Fleet> ReadFleetFile(const std::string& path);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_FLEET_FILE_H_
