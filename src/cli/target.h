// Choosing the server a command talks to: the one the user named (-h -p -U
// -d, --db, PG* variables), or else the embedded cluster, started on demand.
#ifndef PGRIG_CLI_TARGET_H_
#define PGRIG_CLI_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"
#include "runner/server_settings.h"
#include "tune/rules.h"

namespace pgrig::cli {

struct Target {
  pg::ConnectionParams params;
  bool embedded = false;
  std::optional<cluster::Cluster> cluster;  // set when embedded
  // What ResolveTarget found of an interrupted run (runner::SettleLeftSettings).
  std::vector<std::string> restored_settings;       // put back just now
  std::optional<runner::LeftSettings> left_in_use;  // changed by a suite still running
  // The session ResolveTarget checked the server over, left open only with
  // TargetOptions::keep_connection (and then not valid() when the server
  // could not be reached): the command may use it rather than connect again.
  pg::Connection conn;
};

struct TargetOptions {
  bool quiet = false;  // no "started the embedded cluster" line, no warnings
  bool restore_left =
      false;  // also restore a named server's left settings (run --restore-settings)
  bool warn_if_suite = true;  // warn when a pgrig run holds the server (runner/suite_lock.h)
  // Set: the embedded cluster of this PostgreSQL build (a `pgrig pg list`
  // name) rather than the one --pg/PGRIG_PG chooses; "" is the installed
  // server's only when neither is set (a plan with builds refuses them).
  std::optional<std::string> build;
  // Keep the checking session open in Target::conn.  Only for a command that
  // takes it for its own first session: an idle session left open holds one
  // of the server's max_connections for as long as the command runs.
  bool keep_connection = false;
};

// When `named` names no server, opens and starts the embedded cluster
// (printing a line to stderr when it had to start it, unless quiet).  Then
// settles what an interrupted run left on the server
// (runner::SettleLeftSettings): the embedded cluster's settings are
// restored (said on stderr); a named server's are restored only when
// `restore_left`, otherwise the command is refused with the command that
// restores them.  Settings of a suite still running are left alone with a
// warning, and so is a server that a suite holds (warn_if_suite).  All of
// it over one session (a new backend costs ~10-25 ms, which a short command
// such as `pgrig init -s 10` would otherwise pay two or three times).
Result<Target> ResolveTarget(const pg::ConnectionParams& named, const TargetOptions& options = {});

// InvalidArgument when a PostgreSQL build is chosen (--pg, $PGRIG_PG) and
// `named` names a server: the build is the embedded cluster's.
Status CheckNoBuildForNamedServer(const pg::ConnectionParams& named);

// `pgrig run --restore-settings` with the options that name `named`'s
// server (passwords removed), for messages.
std::string RestoreSettingsCommand(const pg::ConnectionParams& named);

// How a new embedded cluster is tuned, from the environment:
// $PGRIG_EMBEDDED_PROFILE (default "benchmark"; "none": PostgreSQL's
// defaults, and `profile` is empty) and $PGRIG_EMBEDDED_MEMORY (the memory
// the tuner sizes for, as `pgrig tune --memory` takes it, 256MB to 64TB;
// default this machine's).  InvalidArgument naming the variable when either
// is malformed.
struct EmbeddedTuning {
  std::string profile_name;
  std::optional<tune::Profile> profile;
  std::optional<uint64_t> memory;
};
Result<EmbeddedTuning> EmbeddedTuningFromEnv();

// Starts the embedded cluster, once EmbeddedTuningFromEnv() holds.  A
// cluster this call created gets that tuning, applied and verified, with a
// restart when a setting needs one.  Says so on stderr unless quiet.
Result<cluster::StartAction> StartEmbedded(cluster::Cluster& c, bool quiet);

// Defined in cmd_tune.cc: applies `profile` to the running embedded cluster
// (ALTER SYSTEM, backup, verify), sized for `memory` when given (else this
// machine's), and restarts it when a setting needs it; if it then will not
// start, restores postgresql.auto.conf and starts it again.
Status ApplyTuneProfileToEmbedded(cluster::Cluster& c, tune::Profile profile,
                                  std::optional<uint64_t> memory = std::nullopt);

}  // namespace pgrig::cli

#endif  // PGRIG_CLI_TARGET_H_
