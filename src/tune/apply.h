// Applying recommendations to a live server, safely, and rolling back.
//
// The mechanism is ALTER SYSTEM (postgresql.auto.conf), not a conf.d
// include: it works over any connection, remote or local, needs no file
// access and no change to postgresql.conf, PostgreSQL itself checks each
// value as it is written, and postgresql.auto.conf is read last, so the
// values win over postgresql.conf.  docs/tune.md explains the choice.
//
// ApplyRecommendations() runs, in order:
//   1. privileges: superuser, or on PostgreSQL 15+ ALTER SYSTEM granted on
//      every parameter (else PermissionDenied, nothing changed);
//   2. validation against pg_settings (min_val/max_val, enumvals, booleans);
//   3. a backup of postgresql.auto.conf's entries (and its text when the
//      role may read it), written to <backup_dir>/<system id>/<UTC time>.json;
//   4. ALTER SYSTEM SET for each change;
//   5. the candidate file checked through pg_file_settings: any new error
//      and the backup is restored;
//   6. pg_reload_conf(), then pg_settings polled until every reload-context
//      value took effect and every restart-context one shows pending_restart.
// A failure in steps 4–6 restores the backup (and reloads) before returning
// the error, so the server is left as it was.  Restarting is the caller's
// business (pgrig restarts only its own embedded cluster); if that restart
// fails, RestoreAutoConfFile() puts the old file back with the server down.
//
// Rollback() restores the newest backup of this server and marks it used,
// so a second rollback goes one step further back.
//
// Not thread-safe: one connection, used by one thread.
#ifndef PGRIG_TUNE_APPLY_H_
#define PGRIG_TUNE_APPLY_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"
#include "tune/recommend.h"

namespace pgrig::tune {

struct Backup {
  std::string path;        // the local file it was read from or written to
  std::string created_at;  // UTC, ISO 8601
  std::string server_id;   // pg_control_system().system_identifier
  std::string data_directory;
  std::string server_version;
  // postgresql.auto.conf entries in file order (name, value as written).
  std::vector<std::pair<std::string, std::string>> entries;
  std::optional<std::string> auto_conf_text;  // the raw file, when readable
};

struct ApplyOptions {
  std::string backup_dir;  // required; a subdirectory per server is made in it
  std::chrono::milliseconds verify_timeout{10000};
  // Test seam: called after each step ("backup", "alter:<name>", "checked",
  // "reloaded"); a non-OK status is treated as a failure at that point.
  std::function<Status(std::string_view step)> fault;
};

struct ApplyOutcome {
  std::string backup_path;
  std::vector<std::string> applied;          // every setting written
  std::vector<std::string> took_effect;      // reload-context values now live
  std::vector<std::string> pending_restart;  // restart-context values waiting
  std::vector<std::string> overridden;       // "work_mem: set per database/role (source ...)"
};

// The server's identity for backups.
Result<std::string> ServerId(pg::Connection& conn);

// Step 1 and 2, for --dry-run too.  `changes` are the recommendations to apply.
Status CheckPrivileges(pg::Connection& conn, const std::vector<const Recommendation*>& changes);
Status Validate(const std::vector<const Recommendation*>& changes, const CurrentSettings& current);

Result<Backup> TakeBackup(pg::Connection& conn, const std::string& backup_dir);

Result<ApplyOutcome> ApplyRecommendations(pg::Connection& conn, const TuneReport& report,
                                          const ApplyOptions& options);

struct RollbackOutcome {
  Backup restored;
  std::vector<std::string> pending_restart;
};
Result<RollbackOutcome> Rollback(pg::Connection& conn, const ApplyOptions& options);

// The newest unused backup for `server_id` under `backup_dir`.
Result<Backup> LatestBackup(const std::string& backup_dir, const std::string& server_id);
Result<Backup> ReadBackup(const std::string& path);

// Writes the backup's postgresql.auto.conf into `data_dir` while the server
// is down, owned like the data directory, mode 0600.
Status RestoreAutoConfFile(const Backup& backup, const std::string& data_dir);

// True when a value read back from pg_settings is the one written (sizes
// may be rounded to the setting's unit).
bool LiveValueMatches(const SettingValue& live, const SettingValue& want);

// The text of a postgresql.auto.conf holding `entries` (what ALTER SYSTEM writes).
std::string AutoConfText(const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_APPLY_H_
