// Choosing the server a command talks to: the one the user named (-h -p -U
// -d, --db, PG* variables), or else the embedded cluster, started on demand.
#ifndef PGRIG_CLI_TARGET_H_
#define PGRIG_CLI_TARGET_H_

#include <optional>
#include <string>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::cli {

struct Target {
  pg::ConnectionParams params;
  bool embedded = false;
  std::optional<cluster::Cluster> cluster;  // set when embedded
};

// When `named` names no server, opens and starts the embedded cluster
// (printing a line to stderr when it had to start it, unless quiet).
Result<Target> ResolveTarget(const pg::ConnectionParams& named, bool quiet);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_TARGET_H_
