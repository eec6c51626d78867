// The embedded PostgreSQL cluster: a private server that pgrig creates and
// runs itself, so that `pgrig run` works on a fresh machine.
//
// Layout under the home directory ($PGRIG_HOME; see DefaultHome()):
//   <home>/data/             the data directory (0700)
//   <home>/run/              the Unix socket directory (0700); no TCP at all
//   <home>/postgresql.log    the server's log
//   <home>.lock              flock(2) lock serialising start/stop/destroy
//
// A cluster of a PostgreSQL build (`pgrig pg build`; ClusterOptions::build,
// $PGRIG_PG, or the global `--pg NAME`) has the same layout under
// <home>/clusters/NAME/ and runs <home>/pg/NAME/bin: one data directory per
// build, since builds may differ in major version.  Destroying a cluster
// removes what it made (data, socket directory, log), never the builds or
// the other builds' clusters kept beside it.
//
// PostgreSQL refuses to run as root, so when pgrig runs as root the server
// runs as an unprivileged account (the `postgres` system user, or
// $PGRIG_SERVER_USER) that owns the home directory.  The server binaries come
// from $PGRIG_PG_BINDIR, `pg_config --bindir`, or the newest
// /usr/lib/postgresql/<major>/bin.
//
// Everything this module takes from the process environment comes through
// one ClusterEnv value (ClusterEnv::FromProcess() reads it; tests build one),
// so no function here calls getenv itself.
//
// A Cluster object is cheap; it holds paths, not a running server.  Methods
// take the lock themselves, so two pgrig processes may call them at once.
// Not thread-safe within one process (use one Cluster per thread).
#ifndef PGRIG_CLUSTER_CLUSTER_H_
#define PGRIG_CLUSTER_CLUSTER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::cluster {

// The environment the cluster module depends on.  An empty string is an
// unset (or empty) variable.
struct ClusterEnv {
  std::string pgrig_home;     // $PGRIG_HOME: the cluster's home directory
  std::string xdg_data_home;  // $XDG_DATA_HOME
  std::string home;           // $HOME
  std::string server_user;    // $PGRIG_SERVER_USER: the account to run the server as, for root
  std::string pg_bindir;      // $PGRIG_PG_BINDIR: the server binaries to use
  std::string pg_build;       // $PGRIG_PG: a build's name (pgrig pg build), or empty
  uid_t euid = 0;             // the effective user id (0: root)

  // The variables of this process and geteuid().
  static ClusterEnv FromProcess();
};

// Where the embedded cluster lives when $PGRIG_HOME is not set: for root,
// /var/lib/pgrig (root's home is closed to the server account); otherwise
// $XDG_DATA_HOME/pgrig or ~/.local/share/pgrig.
std::string DefaultHome(const ClusterEnv& env);
inline std::string DefaultHome() { return DefaultHome(ClusterEnv::FromProcess()); }

struct ServerAccount {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
  std::string home;
  bool is_self = true;  // the server runs as the current user: no privilege drop
};

// The account the server must run as.  For root: $PGRIG_SERVER_USER or
// "postgres", with an error saying how to create it when missing.
Result<ServerAccount> ChooseServerAccount(const ClusterEnv& env);
inline Result<ServerAccount> ChooseServerAccount() {
  return ChooseServerAccount(ClusterEnv::FromProcess());
}

struct ServerBinaries {
  std::string bindir;
  int major_version = 0;  // from `postgres --version`
  std::string version;    // "15.18"
};

Result<ServerBinaries> FindServerBinaries(const ProcessRunner& runner, const ClusterEnv& env);
inline Result<ServerBinaries> FindServerBinaries(const ProcessRunner& runner) {
  return FindServerBinaries(runner, ClusterEnv::FromProcess());
}

// Memory-derived settings for a machine with `memory_bytes` of RAM.
struct SizedSettings {
  uint64_t shared_buffers_mb;
  uint64_t effective_cache_size_mb;
  uint64_t maintenance_work_mem_mb;
  int max_connections;
};
SizedSettings SizeForMemory(uint64_t memory_bytes);

struct ClusterOptions {
  std::string home;                       // empty: DefaultHome()
  int port = 5432;                        // names the socket file; there is no TCP listener
  const ProcessRunner* runner = nullptr;  // null: a RealProcessRunner
  // Memory to size settings for; 0: this machine's (cgroup-aware).
  uint64_t memory_bytes = 0;
  // The environment; unset: ClusterEnv::FromProcess() when Open() runs.
  std::optional<ClusterEnv> env;
  // The PostgreSQL build to run (a name `pgrig pg list` shows); empty:
  // env->pg_build, and when that is empty too, the installed server.
  std::string build;
};

// The cluster directory of build `name` under the base home (see the
// layout above).
std::string BuildClusterHome(const std::string& base_home, const std::string& name);

struct ClusterStatus {
  bool initialized = false;
  bool running = false;
  // Not running, but postmaster.pid is still there: the server did not shut
  // down cleanly (killed, crashed, or the machine stopped); the next start
  // recovers.  crashed_pid is the pid it names.
  bool crashed = false;
  int crashed_pid = 0;
  int pid = 0;
  std::string version;  // server_version
  std::string data_dir;
  std::string socket_dir;
  std::string socket_path;
  int port = 0;
  std::string log_file;
  std::string bindir;
  std::string build;  // the PostgreSQL build it runs, or "" for the installed server
  std::string account;
  double uptime_s = 0;
  uint64_t size_bytes = 0;
};

// What Start() did, for the caller to report.
enum class StartAction { kAlreadyRunning, kStarted, kInitializedAndStarted };

class Cluster {
 public:
  static Result<Cluster> Open(ClusterOptions options);

  // Creates the cluster if needed and starts it; recovers a stale
  // postmaster.pid.  On failure nothing is left running.
  Result<StartAction> Start();
  // Fast shutdown, then immediate, then SIGKILL of anything left; returns
  // when no process of this cluster remains.
  Status Stop();
  // Stop, then remove the data directory, the socket directory, the log and
  // the lock; the home directory too when nothing else is left in it.
  Status Destroy();
  Result<ClusterStatus> GetStatus() const;
  // The last `lines` lines of the server log.
  Result<std::string> LogTail(int lines) const;

  // How to reach the running cluster.  The database "pgrig" is created by
  // Start().
  pg::ConnectionParams Params(const std::string& dbname = "pgrig") const;

  const std::string& home() const { return home_; }
  // The PostgreSQL build this cluster runs; "" for the installed server.
  const std::string& build() const { return build_; }
  // The other embedded clusters under the same base home (the installed
  // server's and every build's) that are running now: they share the
  // machine with whatever this one measures.
  struct Other {
    std::string build;  // "" for the installed server's
    std::string home;
  };
  std::vector<Other> OthersRunning() const;
  std::string data_dir() const { return home_ + "/data"; }
  std::string socket_dir() const { return home_ + "/run"; }
  std::string log_file() const { return home_ + "/postgresql.log"; }
  std::string lock_file() const { return home_ + ".lock"; }
  const ServerAccount& account() const { return account_; }

  // The postmaster's pid when a server is running on our data directory.
  std::optional<int> RunningPid() const;
  // The status postmaster.pid gives: "starting", "stopping", "ready",
  // "standby", or "" when there is none.
  std::string PostmasterStatus() const;
  // The data directory's system identifier (the first field of
  // global/pg_control, as pg_control_system() shows it), read without a
  // server; nullopt when there is no data directory yet.
  std::optional<std::string> SystemIdentifier() const;

 private:
  Cluster(ClusterOptions options, std::string home, std::string base_home, std::string build,
          ServerAccount account);

  Status PrepareHome();
  Status InitDb(const ServerBinaries& bins);
  Status StartServer(const ServerBinaries& bins);
  Status StopLocked();
  Status RemoveStalePidFile();
  Status CreateDatabase();
  ProcessOptions AsServer(std::vector<std::string> argv) const;

  ClusterOptions options_;  // options_.env is always set after Open()
  std::string home_;
  std::string build_;
  std::string
      base_home_;  // home_ for the installed server's cluster; <base>/clusters/.. for a build
  ServerAccount account_;
  // Not a stored pointer: a Cluster is moved around, and a pointer to its own
  // member would dangle.
  const ProcessRunner& runner() const { return options_.runner ? *options_.runner : real_runner_; }

  RealProcessRunner real_runner_;
};

// Holds an exclusive flock on a file for its lifetime.
class FileLock {
 public:
  static Result<FileLock> Acquire(const std::string& path, int timeout_s);
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace pgrig::cluster

#endif  // PGRIG_CLUSTER_CLUSTER_H_
