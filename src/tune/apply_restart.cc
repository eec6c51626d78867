#include "tune/apply_restart.h"

#include <fmt/format.h>

#include <utility>

#include "common/strings.h"
#include "tune/settings.h"

namespace pgrig::tune {

namespace {

// Closes `conn`, restarts the cluster (restoring `backup` if it will not
// start), reconnects `conn`.
Status RestartAndReconnect(pg::Connection& conn, RestartableServer& server, const Backup& backup) {
  conn = pg::Connection();
  PGRIG_RETURN_IF_ERROR(RestartEmbedded(server, backup));
  auto after = pg::Connect(server.Params());
  if (!after.ok()) {
    return Status(after.status().code(),
                  "the embedded cluster restarted but does not accept connections: " +
                      after.status().message() + "; see `pgrig cluster logs`");
  }
  conn = std::move(after).value();
  return Status::Ok();
}

}  // namespace

Status RestartEmbedded(RestartableServer& server, const Backup& backup) {
  PGRIG_RETURN_IF_ERROR(server.Stop());
  Status started = server.Start();
  if (started.ok()) return Status::Ok();
  Status again = RestoreAutoConfFile(backup, server.DataDir());
  if (again.ok()) again = server.Start();
  if (!again.ok()) {
    return Internal(fmt::format(
        "the embedded cluster did not start with the new settings ({}), and restoring {} failed "
        "too ({}); see `pgrig cluster logs`",
        started.message(), backup.path, again.message()));
  }
  return FailedPrecondition(fmt::format(
      "the embedded cluster did not start with the new settings ({}); the previous configuration "
      "was restored from {} and the cluster is running again",
      started.message(), backup.path));
}

std::vector<std::string> NotLive(const std::vector<const Recommendation*>& changes,
                                 const CurrentSettings& now) {
  std::vector<std::string> wrong;
  for (const auto* c : changes) {
    auto it = now.find(c->name);
    if (it == now.end()) {
      wrong.push_back(
          fmt::format("{} is not a setting of this server (not in pg_settings)", c->name));
      continue;
    }
    const CurrentSetting& cs = it->second;
    auto live = FromPgSettings(cs.name, cs.setting, cs.unit, cs.vartype);
    if (!live.ok() || !LiveValueMatches(*live, c->value)) {
      wrong.push_back(fmt::format("{} is {}", c->name, live.ok() ? live->ToConf() : cs.setting));
    }
  }
  return wrong;
}

Result<ApplyFlowOutcome> ApplyAndRestart(pg::Connection& conn, const TuneReport& report,
                                         const ApplyFlowOptions& options) {
  ApplyFlowOutcome out;
  PGRIG_ASSIGN_OR_RETURN(out.applied, ApplyRecommendations(conn, report, options.apply));
  if (out.applied.pending_restart.empty() || options.restart == nullptr) return out;

  PGRIG_ASSIGN_OR_RETURN(Backup backup, ReadBackup(out.applied.backup_path));
  PGRIG_RETURN_IF_ERROR(RestartAndReconnect(conn, *options.restart, backup));
  // Confirm that the restart-only values (and all the others) are now live.
  PGRIG_ASSIGN_OR_RETURN(CurrentSettings now, ReadCurrentSettings(conn));
  std::vector<std::string> wrong = NotLive(report.Changes(), now);
  if (!wrong.empty()) {
    return Internal(fmt::format(
        "after the restart not every new setting is in effect: {}; the server runs, and "
        "`pgrig tune --rollback --restart` puts the previous configuration (backup {}) back",
        Join(wrong, "; "), backup.path));
  }
  out.restarted = true;
  return out;
}

Result<RollbackFlowOutcome> RollbackAndRestart(pg::Connection& conn,
                                               const ApplyFlowOptions& options) {
  RollbackFlowOutcome out;
  PGRIG_ASSIGN_OR_RETURN(out.rolled_back, Rollback(conn, options.apply));
  if (out.rolled_back.pending_restart.empty() || options.restart == nullptr) return out;
  PGRIG_RETURN_IF_ERROR(RestartAndReconnect(conn, *options.restart, out.rolled_back.restored));
  out.restarted = true;
  return out;
}

}  // namespace pgrig::tune
