// Choosing the server a command talks to: the one the user named (-h -p -U
// -d, --db, PG* variables), or else the embedded cluster, started on demand.
#ifndef PGRIG_CLI_TARGET_H_
#define PGRIG_CLI_TARGET_H_

#include <optional>
#include <string>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"
#include "tune/rules.h"

namespace pgrig::cli {

struct Target {
  pg::ConnectionParams params;
  bool embedded = false;
  std::optional<cluster::Cluster> cluster;  // set when embedded
};

// When `named` names no server, opens and starts the embedded cluster
// (printing a line to stderr when it had to start it, unless quiet).
Result<Target> ResolveTarget(const pg::ConnectionParams& named, bool quiet);

// Starts the embedded cluster.  A cluster this call created gets the tuner's
// profile for this machine ($PGRIG_EMBEDDED_PROFILE, default "benchmark";
// "none" keeps PostgreSQL's defaults), applied and verified, with a restart
// when a setting needs one.  Says so on stderr unless quiet.
Result<cluster::StartAction> StartEmbedded(cluster::Cluster& c, bool quiet);

// Defined in cmd_tune.cc: applies `profile` to the running embedded cluster
// (ALTER SYSTEM, backup, verify) and restarts it when a setting needs it; if
// it then will not start, restores postgresql.auto.conf and starts it again.
Status ApplyTuneProfileToEmbedded(cluster::Cluster& c, tune::Profile profile);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_TARGET_H_
