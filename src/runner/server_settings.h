// Server-level settings for a suite's cells, changed safely and put back.
//
// ServerSettings owns the server side for one suite.  Open() backs up
// postgresql.auto.conf (tune::TakeBackup) and writes a marker file,
// <state_dir>/settings-restore-pending.json, before any change (the runner's
// state_dir is the server's own, SettingsStateDir() below); the marker
// lists the original value of every setting touched so far and is rewritten
// (atomically) before each new setting is touched.  Apply() moves the server
// from one cell's settings to the next; RestoreAll() puts every original back
// (ALTER SYSTEM RESET for names that were not in postgresql.auto.conf, SET to
// the old entry for those that were), reloads or restarts, verifies each
// value in pg_settings and removes the marker.  A run killed before that
// leaves the marker; RecoverInterrupted() (and the next Open() on the same
// state_dir) restores from it.  A named server is never restarted: a
// restart-context setting for it is refused before anything changes.
//
// Not thread-safe: a ServerSettings holds one connection, used by one thread.
#ifndef PGRIG_RUNNER_SERVER_SETTINGS_H_
#define PGRIG_RUNNER_SERVER_SETTINGS_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"
#include "tune/apply.h"

namespace pgrig::runner {

struct ServerSettingsOptions {
  std::string state_dir;  // where the backup and a "restore-pending" marker live (the results dir)
  cluster::Cluster* embedded =
      nullptr;  // non-null: pgrig may restart this cluster for postmaster settings
  // A named server is never restarted (restart-context settings on it are an
  // error whatever this says): pgrig has no way to restart a server it does
  // not run.  Kept so that a future "restart command" option has a place.
  bool allow_restart_named = false;
  // How long to wait for reloaded values to show in pg_settings.
  std::chrono::milliseconds verify_timeout{10000};
  // Test seam, as tune::ApplyOptions::fault: called after each step
  // ("marker", "revert:<name>", "backup", "alter:<name>", "checked",
  // "reloaded", "restarted"); a non-OK status is a failure at that point.
  std::function<Status(std::string_view step)> fault;
};

// The marker file in `state_dir` ("<state_dir>/settings-restore-pending.json").
std::string MarkerPath(const std::string& state_dir);

// Stops and starts the embedded cluster so that postmaster-context values take
// effect.  If it will not start, `fallback`'s postgresql.auto.conf (when
// given) is written back and the cluster started with it; that is still an
// error (FailedPrecondition when the cluster runs again).  Same job as
// cli/cmd_tune.cc's own restart, which could call this one.
Status RestartEmbedded(cluster::Cluster& c, const tune::Backup* fallback);

struct ApplyReport {
  std::vector<std::string> changed;  // names set to a wanted value or put back to the original
  bool restarted = false;
  bool reloaded = false;
};

// Changes server-level settings for the cells that need them and restores the
// server's original configuration at the end, after a failure, or on the next
// Open() that finds a marker left by a crashed run.  Uses tune/apply.h
// (ALTER SYSTEM, reload, verify, backup) and restarts the embedded cluster
// when a postmaster-context value changes.
class ServerSettings {
 public:
  // Connects to `target`, restores what a marker in state_dir describes (a
  // crashed run), backs up postgresql.auto.conf and writes the marker.
  static Result<std::unique_ptr<ServerSettings>> Open(const pg::ConnectionParams& target,
                                                      const ServerSettingsOptions& options);
  // Makes exactly `wanted` (server-level) differ from the original state: values
  // from a previous cell not in `wanted` go back to their original values.
  // Returns what changed and whether a restart happened.  On a failure after
  // a change, every original value is restored before the error returns.
  Result<ApplyReport> Apply(const std::map<std::string, std::string>& wanted);
  // Restores and verifies the original values (SHOW each); idempotent; removes the marker.
  Status RestoreAll();
  ~ServerSettings();  // best-effort RestoreAll() if not yet done

  ServerSettings(const ServerSettings&) = delete;
  ServerSettings& operator=(const ServerSettings&) = delete;

  // The settings applied now (name -> value as wanted); empty after RestoreAll().
  const std::map<std::string, std::string>& applied() const { return applied_; }
  const std::string& backup_path() const { return backup_.path; }

  // What the marker records for one touched setting.
  struct Original {
    bool in_auto_conf = false;    // postgresql.auto.conf had an entry for it
    std::string auto_conf_value;  // that entry's value (when in_auto_conf)
    std::string setting;          // pg_settings.setting before the change (verification)
    std::string context;          // pg_settings.context
    // The value seen was a per-database/role one (pg_settings.source), so the
    // configuration's own value cannot be verified by SHOW; the restored
    // postgresql.auto.conf entry is what is checked then.
    bool hidden = false;
  };

 private:
  ServerSettings(pg::ConnectionParams target, ServerSettingsOptions options);
  Status WriteMarker();
  Status Reconnect();
  Status RestoreLocked();

  pg::ConnectionParams target_;
  ServerSettingsOptions options_;
  pg::Connection conn_;
  tune::Backup backup_;
  std::string server_id_;
  std::map<std::string, Original> originals_;   // every name touched since Open()
  std::map<std::string, std::string> applied_;  // name -> wanted value, live now
  bool restored_ = false;
};

// Restores a marker left in `state_dir` by an interrupted run (used by `run
// --resume` and at start).  No marker: OK, nothing done.  A marker of another
// server (system identifier), or of a pgrig process still running, is left
// alone with an error.
Status RecoverInterrupted(const pg::ConnectionParams& target, const ServerSettingsOptions& options);

// --- One record per server ------------------------------------------------
//
// A suite keeps its marker and backups in SettingsStateDir(the server's
// system identifier), not in its results directory, so that whatever ends a
// run (SIGKILL included) every later pgrig command that talks to that server
// finds what is left to restore, and a second suite cannot back up the first
// one's values as "originals".  The directory is <home>.state/servers/<id>/,
// beside the embedded cluster's home (cluster::DefaultHome(), $PGRIG_HOME),
// outside it so that `cluster destroy` keeps a named server's record.

std::string SettingsStateDir(const std::string& server_id);

// What an interrupted run left on a server, as its marker says.
struct LeftSettings {
  std::string marker;              // the marker's path
  std::vector<std::string> names;  // the settings it changed
  int64_t pid = 0;                 // the pgrig process that changed them
  std::string created_at;          // when it opened the record (UTC)
  std::string backup_path;         // its backup of postgresql.auto.conf
  bool writer_alive = false;       // that process still runs: a suite in progress
};

// The marker in `state_dir`, or nullopt when there is none.
Result<std::optional<LeftSettings>> FindLeftSettings(const std::string& state_dir);

// What SettleLeftSettings found and did.
struct SettledSettings {
  std::vector<std::string> restored;   // restored now (the embedded cluster, or `restore`)
  std::optional<LeftSettings> in_use;  // changed by a suite that is still running
};

// For every command about to use `target`: looks up the server's record,
// identifying the server over `conn`, the caller's open connection to
// `target` (not valid(): the server could not be reached, and nothing is
// looked up).  Nothing left, or a server that cannot be identified: nothing
// done.  Left by a run that is gone: restored when
// `embedded` is the target (pgrig runs it) or `restore` is set (`pgrig run
// --restore-settings`); for a named server otherwise FailedPrecondition
// whose message ends with `restore_command`.  Left by a run still going:
// reported in in_use and left alone.  Before restoring, `conn` is closed
// (the server may be restarted): the caller connects again if it needs to.
Result<SettledSettings> SettleLeftSettings(pg::Connection& conn, const pg::ConnectionParams& target,
                                           cluster::Cluster* embedded, bool restore,
                                           const std::string& restore_command);

// The same for the embedded cluster without connecting (`cluster status`):
// its record, found by the system identifier in its pg_control file.
Result<std::optional<LeftSettings>> FindEmbeddedLeftSettings(const cluster::Cluster& c);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_SERVER_SETTINGS_H_
