// The whole tuning flow on a server: apply, restart pgrig's own embedded
// cluster when a setting needs it, put the old configuration back if the
// server will not start, and verify that every value is live afterwards.
//
// apply.h holds the steps on a running server (privileges, validation,
// backup, ALTER SYSTEM, reload, rollback); this file strings them together
// with a restart, which pgrig does only for the embedded cluster it owns
// (another server is restarted by its administrator: the outcome then lists
// what waits for that restart).  `pgrig tune` and the embedded cluster's
// first start both go through here; the cli only parses, calls and prints.
// tune does not depend on cluster (DESIGN's module table): the server to
// restart is a RestartableServer, which the cli binds to cluster::Cluster.
//
// The connection passed in is closed before a restart (the server goes
// away) and, after a successful one, replaced by a new connection to the
// restarted server, so the caller can keep using it.
//
// Not thread-safe: one connection and one cluster, used by one thread.
#ifndef PGRIG_TUNE_APPLY_RESTART_H_
#define PGRIG_TUNE_APPLY_RESTART_H_

#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "pg/connection.h"
#include "tune/apply.h"
#include "tune/recommend.h"

namespace pgrig::tune {

// A server this process may stop and start: pgrig's embedded cluster.
class RestartableServer {
 public:
  virtual ~RestartableServer() = default;
  virtual Status Stop() = 0;
  virtual Status Start() = 0;
  // Where postgresql.auto.conf is written back while the server is down.
  virtual std::string DataDir() const = 0;
  // How to connect once it runs again.
  virtual pg::ConnectionParams Params() const = 0;
};

// The embedded cluster as a RestartableServer; `c` outlives it.
class ClusterServer : public RestartableServer {
 public:
  explicit ClusterServer(cluster::Cluster& c) : c_(c) {}
  Status Stop() override { return c_.Stop(); }
  Status Start() override { return c_.Start().status(); }
  std::string DataDir() const override { return c_.data_dir(); }
  pg::ConnectionParams Params() const override { return c_.Params(); }

 private:
  cluster::Cluster& c_;
};

struct ApplyFlowOptions {
  ApplyOptions apply;  // backup_dir (required), verify timeout, fault seam
  // The server `conn` is connected to, restarted when a setting needs it;
  // null: nothing is restarted (restart-only settings stay in
  // ApplyOutcome::pending_restart for whoever restarts the server).
  RestartableServer* restart = nullptr;
};

struct ApplyFlowOutcome {
  ApplyOutcome applied;
  bool restarted = false;  // the cluster was restarted and every change verified live
};

// Applies the report's changes (ApplyRecommendations), then, when
// `options.restart` is set and a change waits for a restart: restarts the
// cluster (restoring the backup's postgresql.auto.conf and starting again if
// it will not start), reconnects `conn`, and checks that every change is
// live.  An error says which step failed and in what state the server is.
// REQUIRES: conn is connected (to *options.restart when that is set).
Result<ApplyFlowOutcome> ApplyAndRestart(pg::Connection& conn, const TuneReport& report,
                                         const ApplyFlowOptions& options);

struct RollbackFlowOutcome {
  RollbackOutcome rolled_back;
  bool restarted = false;
};

// Rollback(), then the restart of `options.restart` when a restored setting
// waits for one (with the same restore-on-failure as ApplyAndRestart).
Result<RollbackFlowOutcome> RollbackAndRestart(pg::Connection& conn,
                                               const ApplyFlowOptions& options);

// Restarts the server; if it will not start with the new
// configuration, writes `backup`'s postgresql.auto.conf back and starts it
// again, so the cluster is never left down.  Then the error names the
// reason and the backup (FailedPrecondition), or, if even the restored
// configuration does not start, says so (Internal).
Status RestartEmbedded(RestartableServer& server, const Backup& backup);

// The changes whose value is not the live one in `now`, as "name is value"
// (or "name is not a setting of this server"); empty when all are live.
std::vector<std::string> NotLive(const std::vector<const Recommendation*>& changes,
                                 const CurrentSettings& now);

}  // namespace pgrig::tune

#endif  // PGRIG_TUNE_APPLY_RESTART_H_
