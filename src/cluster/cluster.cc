#include "cluster/cluster.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/clock.h"
#include "common/fs.h"
#include "common/strings.h"
#include "pgbuild/builder.h"

namespace pgrig::cluster {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

bool HasServerBinaries(const std::string& dir) {
  return IsExecutable(dir + "/postgres") && IsExecutable(dir + "/initdb") &&
         IsExecutable(dir + "/pg_ctl");
}

// Physical memory, bounded by a cgroup v2 or v1 limit when one is set.
uint64_t EffectiveMemoryBytes() {
  uint64_t phys =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (const char* f :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    auto r = ReadWholeFile(f);
    if (!r.ok()) continue;
    auto v = ParseInt64(Trim(*r));
    if (v && *v > 0 && static_cast<uint64_t>(*v) < phys) phys = static_cast<uint64_t>(*v);
  }
  return phys;
}

// Can `account` search every directory from / down to `path`?
Status CheckReachable(const std::string& path, const ServerAccount& account) {
  if (account.is_self) return Status::Ok();
  fs::path p = fs::absolute(path);
  fs::path cur = "/";
  for (const auto& part : p.relative_path()) {
    struct stat st;
    if (::stat(cur.c_str(), &st) != 0) break;
    bool ok = st.st_uid == account.uid   ? (st.st_mode & S_IXUSR)
              : st.st_gid == account.gid ? (st.st_mode & S_IXGRP)
                                         : (st.st_mode & S_IXOTH);
    if (!ok) {
      return PermissionDenied(fmt::format(
          "the server account '{}' cannot reach {}: {} is mode {:04o} owned by uid {}; set "
          "PGRIG_HOME to a directory that account can reach (the default for root is "
          "/var/lib/pgrig)",
          account.name, path, cur.string(), st.st_mode & 07777, st.st_uid));
    }
    cur /= part;
    if (::stat(cur.c_str(), &st) != 0) break;  // not created yet: MakeDirs will
  }
  return Status::Ok();
}

Status ChownTree(const std::string& path, const ServerAccount& a) {
  if (a.is_self) return Status::Ok();
  if (::chown(path.c_str(), a.uid, a.gid) != 0) {
    return PermissionDenied(
        fmt::format("cannot give {} to account '{}': {}", path, a.name, std::strerror(errno)));
  }
  std::error_code ec;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    ::lchown(it->path().c_str(), a.uid, a.gid);
  }
  return Status::Ok();
}

std::string ReadLink(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  auto c = fs::canonical(path, ec);
  return ec ? path : c.string();
}

// Every process whose working directory is `dir` (the postmaster and its
// children all chdir to the data directory).
std::vector<int> ProcessesInDir(const std::string& dir) {
  std::vector<int> pids;
  std::string want = Canonical(dir);
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (dirent* e = ::readdir(d)) {
    auto pid = ParseInt64(e->d_name);
    if (!pid || *pid <= 0) continue;
    if (ReadLink(fmt::format("/proc/{}/cwd", *pid)) == want) pids.push_back(static_cast<int>(*pid));
  }
  ::closedir(d);
  return pids;
}

// Alive and not a zombie.  A stopped postmaster stays a zombie until its
// parent (init, or whichever subreaper adopted it) reaps it; it holds no
// resources by then.
bool ProcessLives(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  auto stat = ReadWholeFile(fmt::format("/proc/{}/stat", pid));
  if (!stat.ok()) return false;
  size_t paren = stat->rfind(')');
  return paren == std::string::npos || paren + 2 >= stat->size() || (*stat)[paren + 2] != 'Z';
}

std::string LastLines(const std::string& text, int n) {
  if (n <= 0) return "";
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  int count = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++count == n) break;
    --pos;
  }
  return text.substr(pos);
}

}  // namespace

ClusterEnv ClusterEnv::FromProcess() {
  return ClusterEnv{.pgrig_home = GetEnv("PGRIG_HOME"),
                    .xdg_data_home = GetEnv("XDG_DATA_HOME"),
                    .home = GetEnv("HOME"),
                    .server_user = GetEnv("PGRIG_SERVER_USER"),
                    .pg_bindir = GetEnv("PGRIG_PG_BINDIR"),
                    .pg_build = GetEnv("PGRIG_PG"),
                    .euid = ::geteuid()};
}

std::string DefaultHome(const ClusterEnv& env) {
  if (!env.pgrig_home.empty()) return env.pgrig_home;
  if (env.euid == 0) return "/var/lib/pgrig";
  if (!env.xdg_data_home.empty()) return env.xdg_data_home + "/pgrig";
  std::string home = env.home;
  if (home.empty()) {
    if (passwd* pw = ::getpwuid(env.euid)) home = pw->pw_dir;
  }
  return home + "/.local/share/pgrig";
}

Result<ServerAccount> ChooseServerAccount(const ClusterEnv& env) {
  ServerAccount a;
  if (env.euid != 0) {
    a.uid = env.euid;
    a.gid = ::getegid();
    passwd* pw = ::getpwuid(a.uid);
    a.name = pw ? pw->pw_name : std::to_string(a.uid);
    a.home = pw ? pw->pw_dir : env.home;
    a.is_self = true;
    return a;
  }
  std::string name = env.server_user;
  if (name.empty()) name = "postgres";
  passwd* pw = ::getpwnam(name.c_str());
  if (!pw) {
    return FailedPrecondition(fmt::format(
        "PostgreSQL refuses to run as root, and there is no '{}' account to run the embedded "
        "server as; create one (useradd --system --user-group --home-dir /var/lib/postgresql "
        "--shell /bin/bash {}), name another with PGRIG_SERVER_USER, or run pgrig as an ordinary "
        "user",
        name, name));
  }
  if (pw->pw_uid == 0) {
    return FailedPrecondition(fmt::format(
        "the account '{}' is root; PostgreSQL refuses to run as root: name an unprivileged "
        "account with PGRIG_SERVER_USER",
        name));
  }
  a.uid = pw->pw_uid;
  a.gid = pw->pw_gid;
  a.name = pw->pw_name;
  a.home = pw->pw_dir;
  a.is_self = false;
  return a;
}

Result<ServerBinaries> FindServerBinaries(const ProcessRunner& runner, const ClusterEnv& env) {
  std::vector<std::string> tried;
  std::string bindir;
  const std::string& forced = env.pg_bindir;
  if (!forced.empty()) {
    if (!HasServerBinaries(forced)) {
      return NotFound(fmt::format(
          "PGRIG_PG_BINDIR={} does not hold the PostgreSQL server binaries (postgres, initdb, "
          "pg_ctl); point it at a server's bin directory or unset it",
          forced));
    }
    bindir = forced;
  }
  if (bindir.empty()) {
    auto r = runner.Run({.argv = {"pg_config", "--bindir"}});
    if (r.ok() && r->success()) {
      std::string d(Trim(r->out));
      if (HasServerBinaries(d))
        bindir = d;
      else
        tried.push_back("pg_config --bindir (" + d + ")");
    } else {
      tried.push_back("pg_config (not found)");
    }
  }
  if (bindir.empty()) {
    int best = -1;
    for (const auto& e : SysFs("/").ListDir("/usr/lib/postgresql")) {
      auto v = ParseInt64(e);
      std::string d = "/usr/lib/postgresql/" + e + "/bin";
      if (v && *v > best && HasServerBinaries(d)) {
        best = static_cast<int>(*v);
        bindir = d;
      }
    }
    if (bindir.empty()) tried.push_back("/usr/lib/postgresql/*/bin");
  }
  if (bindir.empty()) {
    return NotFound("PostgreSQL server binaries not found (looked at " + Join(tried, ", ") +
                    "); install them (apt-get install postgresql-15) or set PGRIG_PG_BINDIR");
  }
  ServerBinaries b;
  b.bindir = bindir;
  PGRIG_ASSIGN_OR_RETURN(std::string out,
                         RunAndCapture(runner, {.argv = {bindir + "/postgres", "--version"}}));
  // "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
  auto words = SplitWords(Trim(out));
  if (words.size() >= 3) {
    b.version = words[2];
    b.major_version = static_cast<int>(ParseInt64(Split(b.version, '.')[0]).value_or(0));
  }
  if (b.major_version == 0) {
    return Internal("cannot tell the server version from '" + std::string(Trim(out)) + "'");
  }
  return b;
}

SizedSettings SizeForMemory(uint64_t memory_bytes) {
  const uint64_t mb = memory_bytes >> 20;
  SizedSettings s;
  // A quarter of memory for shared_buffers, the usual starting point; capped
  // so that a development machine keeps room for everything else (the tuner
  // decides the real figure).
  s.shared_buffers_mb = std::clamp<uint64_t>(mb / 4, 128, 8192);
  s.effective_cache_size_mb = std::max<uint64_t>(mb * 3 / 4, 256);
  s.maintenance_work_mem_mb = std::clamp<uint64_t>(mb / 16, 64, 2048);
  // The load engine opens up to ~1,000 client connections; each costs a few
  // hundred kB of shared memory, too much for tiny machines.
  s.max_connections = mb >= 4096 ? 1100 : mb >= 1024 ? 300 : 100;
  return s;
}

Result<FileLock> FileLock::Acquire(const std::string& path, int timeout_s) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status(errno == EACCES ? StatusCode::kPermissionDenied : StatusCode::kInternal,
                  fmt::format("cannot create the lock file {}: {}; set PGRIG_HOME to a writable "
                              "directory",
                              path, std::strerror(errno)));
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      ::close(fd);
      return Internal(fmt::format("cannot lock {}: {}", path, std::strerror(e)));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::close(fd);
      return Aborted(fmt::format(
          "another pgrig process has held {} for {} s; wait for it to finish or stop it", path,
          timeout_s));
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string BuildClusterHome(const std::string& base_home, const std::string& name) {
  return base_home + "/clusters/" + name;
}

Cluster::Cluster(ClusterOptions options, std::string home, std::string base_home, std::string build,
                 ServerAccount account)
    : options_(std::move(options)),
      home_(std::move(home)),
      build_(std::move(build)),
      base_home_(std::move(base_home)),
      account_(std::move(account)) {}

Result<Cluster> Cluster::Open(ClusterOptions options) {
  if (!options.env) options.env = ClusterEnv::FromProcess();
  std::string home = options.home.empty() ? DefaultHome(*options.env) : options.home;
  if (home.empty() || home[0] != '/') {
    home = fs::absolute(home.empty() ? "." : home).lexically_normal().string();
  }
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  const std::string base_home = home;
  std::string build = options.build.empty() ? options.env->pg_build : options.build;
  if (!build.empty()) {
    PGRIG_RETURN_IF_ERROR(pgbuild::ValidateBuildName(build));
    if (!options.env->pg_bindir.empty()) {
      return InvalidArgument(fmt::format(
          "PGRIG_PG_BINDIR={} and the build '{}' (--pg or PGRIG_PG) both name the server to run; "
          "use one",
          options.env->pg_bindir, build));
    }
    const std::string bindir = pgbuild::BuildDir(home, build) + "/bin";
    if (!HasServerBinaries(bindir)) {
      return NotFound(fmt::format(
          "there is no PostgreSQL build '{}' in {} ('pgrig pg list' shows the builds, 'pgrig pg "
          "build' makes one)",
          build, pgbuild::BuildsRoot(home)));
    }
    options.env->pg_bindir = bindir;
    home = BuildClusterHome(home, build);
  }
  PGRIG_ASSIGN_OR_RETURN(ServerAccount account, ChooseServerAccount(*options.env));
  return Cluster(std::move(options), std::move(home), base_home, std::move(build),
                 std::move(account));
}

ProcessOptions Cluster::AsServer(std::vector<std::string> argv) const {
  ProcessOptions o;
  o.argv = std::move(argv);
  if (!account_.is_self) {
    o.run_as = RunAs{account_.uid, account_.gid, account_.home, account_.name};
    o.working_dir = home_;
  }
  // The embedded server must not pick up the caller's connection settings.
  o.unset_env = {"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGDATA", "PGOPTIONS"};
  o.env["LC_ALL"] = "C";
  return o;
}

pg::ConnectionParams Cluster::Params(const std::string& dbname) const {
  pg::ConnectionParams p;
  p.host = socket_dir();
  p.port = std::to_string(options_.port);
  p.user = "postgres";
  p.dbname = dbname;
  return p;
}

std::optional<int> Cluster::RunningPid() const {
  auto text = ReadWholeFile(data_dir() + "/postmaster.pid");
  if (!text.ok()) return std::nullopt;
  auto pid = ParseInt64(Split(*text, '\n')[0]);
  if (!pid || *pid <= 0) return std::nullopt;
  // Alive, and a process whose working directory is our data directory: the
  // postmaster chdirs there, so a recycled pid of another program fails this.
  if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) return std::nullopt;
  if (ReadLink(fmt::format("/proc/{}/cwd", *pid)) != Canonical(data_dir())) return std::nullopt;
  return static_cast<int>(*pid);
}

std::string Cluster::PostmasterStatus() const {
  auto text = ReadWholeFile(data_dir() + "/postmaster.pid");
  if (!text.ok()) return "";
  const std::vector<std::string> lines = Split(*text, '\n');
  // Line 8 is the postmaster's status (PM_STATUS_* in pidfile.h), padded.
  return lines.size() >= 8 ? std::string(Trim(lines[7])) : "";
}

std::optional<std::string> Cluster::SystemIdentifier() const {
  auto text = ReadWholeFile(data_dir() + "/global/pg_control");
  uint64_t id = 0;
  if (!text.ok() || text->size() < sizeof(id)) return std::nullopt;
  std::memcpy(&id, text->data(), sizeof(id));  // ControlFileData.system_identifier, host order
  return std::to_string(id);
}

std::vector<Cluster::Other> Cluster::OthersRunning() const {
  std::vector<Other> out;
  auto check = [&](const std::string& build) {
    if (build == build_) return;
    ClusterOptions o = options_;
    o.home = base_home_;
    o.build = build;
    o.env->pg_build.clear();
    o.env->pg_bindir.clear();
    auto other = Cluster::Open(std::move(o));
    if (other.ok() && other->RunningPid()) {
      out.push_back({build, other->home()});
    }
  };
  check("");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(base_home_ + "/clusters", ec)) {
    if (e.is_directory(ec)) check(e.path().filename().string());
  }
  return out;
}

Status Cluster::PrepareHome() {
  if (!build_.empty()) {
    // <base>/clusters stays searchable by the server account; each
    // cluster's own directory below it is private.
    PGRIG_RETURN_IF_ERROR(MakeDirs(fs::path(home_).parent_path().string(), 0755));
  }
  PGRIG_RETURN_IF_ERROR(CheckReachable(home_, account_));
  Status s = MakeDirs(home_, 0700);
  if (!s.ok()) {
    return Status(s.code(), fmt::format("cannot create PGRIG_HOME {} ({}); set PGRIG_HOME to a "
                                        "writable directory",
                                        home_, s.message()));
  }
  if (::access(home_.c_str(), W_OK) != 0) {
    return PermissionDenied(
        fmt::format("PGRIG_HOME {} is not writable ({}); set PGRIG_HOME to a "
                    "writable directory",
                    home_, std::strerror(errno)));
  }
  ::chmod(home_.c_str(), 0700);
  PGRIG_RETURN_IF_ERROR(MakeDirs(socket_dir(), 0700));
  if (!account_.is_self) {
    if (::chown(home_.c_str(), account_.uid, account_.gid) != 0 ||
        ::chown(socket_dir().c_str(), account_.uid, account_.gid) != 0) {
      return PermissionDenied(fmt::format("cannot give {} to the server account '{}': {}", home_,
                                          account_.name, std::strerror(errno)));
    }
  }
  return Status::Ok();
}

Status Cluster::InitDb(const ServerBinaries& bins) {
  // initdb into a scratch directory, configure it, then rename: a crash or a
  // full disk never leaves a half-made data directory behind.
  std::string scratch = home_ + "/data.initdb";
  PGRIG_RETURN_IF_ERROR(RemoveTree(scratch));
  auto o = AsServer({bins.bindir + "/initdb", "-D", scratch, "-U", "postgres", "-A", "trust", "-E",
                     "UTF8", "--locale=C", "--no-instructions"});
  PGRIG_ASSIGN_OR_RETURN(ProcessResult r, runner().Run(o));
  if (!r.success()) {
    (void)RemoveTree(scratch);
    std::string msg(Trim(r.err.empty() ? r.out : r.err));
    return Internal("initdb failed: " + LastLines(msg, 5));
  }
  uint64_t mem = options_.memory_bytes ? options_.memory_bytes : EffectiveMemoryBytes();
  SizedSettings z = SizeForMemory(mem);
  std::string conf = fmt::format(
      "# Written by pgrig for its embedded cluster; `pgrig tune` changes settings\n"
      "# through ALTER SYSTEM (postgresql.auto.conf), not here.\n"
      "listen_addresses = ''\n"
      "unix_socket_directories = '{}'\n"
      "unix_socket_permissions = 0700\n"
      "port = {}\n"
      "max_connections = {}\n"
      "shared_buffers = {}MB\n"
      "effective_cache_size = {}MB\n"
      "maintenance_work_mem = {}MB\n"
      "max_wal_size = 4GB\n"
      "checkpoint_timeout = 15min\n"
      "huge_pages = try\n"
      "log_line_prefix = '%m [%p] '\n"
      "log_timezone = 'UTC'\n"
      "timezone = 'UTC'\n",
      socket_dir(), options_.port, z.max_connections, z.shared_buffers_mb,
      z.effective_cache_size_mb, z.maintenance_work_mem_mb);
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(scratch + "/pgrig.conf", conf, 0600));
  auto main_conf = ReadWholeFile(scratch + "/postgresql.conf");
  if (!main_conf.ok()) return main_conf.status();
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(
      scratch + "/postgresql.conf", *main_conf + "\ninclude_if_exists = 'pgrig.conf'\n", 0600));
  PGRIG_RETURN_IF_ERROR(ChownTree(scratch, account_));
  if (::rename(scratch.c_str(), data_dir().c_str()) != 0) {
    return Internal(
        fmt::format("cannot move {} to {}: {}", scratch, data_dir(), std::strerror(errno)));
  }
  return Status::Ok();
}

Status Cluster::RemoveStalePidFile() {
  std::string pidfile = data_dir() + "/postmaster.pid";
  if (::access(pidfile.c_str(), F_OK) != 0) return Status::Ok();
  if (RunningPid()) return Status::Ok();
  // Any leftover backend of a crashed postmaster still holds shared memory;
  // PostgreSQL refuses to start until it is gone.
  for (int pid : ProcessesInDir(data_dir())) ::kill(pid, SIGKILL);
  ::unlink(pidfile.c_str());
  std::string socket_lock = fmt::format("{}/.s.PGSQL.{}.lock", socket_dir(), options_.port);
  ::unlink(socket_lock.c_str());
  ::unlink(fmt::format("{}/.s.PGSQL.{}", socket_dir(), options_.port).c_str());
  return Status::Ok();
}

Status Cluster::StartServer(const ServerBinaries& bins) {
  PGRIG_RETURN_IF_ERROR(RemoveStalePidFile());
  if (::access(log_file().c_str(), F_OK) != 0) {
    PGRIG_RETURN_IF_ERROR(WriteFileAtomically(log_file(), "", 0600));
    if (!account_.is_self) ::chown(log_file().c_str(), account_.uid, account_.gid);
  }
  auto o = AsServer({bins.bindir + "/pg_ctl", "start", "-D", data_dir(), "-l", log_file(), "-w",
                     "-t", "60", "-s"});
  o.timeout = std::chrono::seconds(90);
  PGRIG_ASSIGN_OR_RETURN(ProcessResult r, runner().Run(o));
  if (r.success() && RunningPid()) return Status::Ok();
  // Leave nothing behind: whatever did start goes.
  (void)StopLocked();
  auto log = ReadWholeFile(log_file());
  std::string tail = log.ok() ? LastLines(*log, 5) : "";
  std::string out(Trim(r.err.empty() ? r.out : r.err));
  return Internal(fmt::format("the embedded PostgreSQL server did not start ({}){}{}; see {}",
                              out.empty() ? "pg_ctl failed" : out,
                              tail.empty() ? "" : "; server log: ", Trim(tail), log_file()));
}

Status Cluster::CreateDatabase() {
  PGRIG_ASSIGN_OR_RETURN(pg::Connection c, pg::Connect(Params("postgres")));
  PGRIG_ASSIGN_OR_RETURN(pg::QueryResult r,
                         c.Exec("SELECT 1 FROM pg_database WHERE datname = 'pgrig'"));
  if (r.rows() == 0) {
    auto cr = c.Exec("CREATE DATABASE pgrig");
    // Another process may have created it between our check and now.
    if (!cr.ok() && c.last_sqlstate() != "42P04") return cr.status();
  }
  return Status::Ok();
}

Result<StartAction> Cluster::Start() {
  PGRIG_RETURN_IF_ERROR(CheckReachable(home_, account_));
  {
    // The lock lives beside the home directory, so make sure the parent exists.
    std::string parent = fs::path(home_).parent_path().string();
    Status s = MakeDirs(parent, 0755);
    if (!s.ok()) {
      return Status(s.code(), s.message() + "; set PGRIG_HOME to a writable directory");
    }
  }
  PGRIG_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(lock_file(), 300));
  PGRIG_RETURN_IF_ERROR(PrepareHome());
  // A server still stopping or starting (a pg_ctl that a killed pgrig left
  // running) is waited for, not taken for one that is up.
  for (int i = 0; i < 600 && RunningPid(); ++i) {
    const std::string status = PostmasterStatus();
    if (status != "stopping" && status != "starting") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (auto pid = RunningPid()) {
    const std::string status = PostmasterStatus();
    if (status == "stopping" || status == "starting") {
      return Unavailable(
          fmt::format("the embedded server (pid {}) has been {} for a minute; see {}", *pid, status,
                      log_file()));
    }
    return StartAction::kAlreadyRunning;
  }
  PGRIG_ASSIGN_OR_RETURN(ServerBinaries bins, FindServerBinaries(runner(), *options_.env));
  StartAction action = StartAction::kStarted;
  if (::access((data_dir() + "/PG_VERSION").c_str(), F_OK) != 0) {
    PGRIG_RETURN_IF_ERROR(RemoveTree(data_dir()));
    PGRIG_RETURN_IF_ERROR(InitDb(bins));
    action = StartAction::kInitializedAndStarted;
  }
  PGRIG_RETURN_IF_ERROR(StartServer(bins));
  Status db = CreateDatabase();
  if (!db.ok()) {
    (void)StopLocked();
    return db.WithContext("the embedded server started but is not usable");
  }
  return action;
}

Status Cluster::StopLocked() {
  auto pid = RunningPid();
  if (pid) {
    auto bins = FindServerBinaries(runner(), *options_.env);
    if (bins.ok()) {
      for (const char* mode : {"fast", "immediate"}) {
        auto o = AsServer({bins->bindir + "/pg_ctl", "stop", "-D", data_dir(), "-m", mode, "-w",
                           "-t", "30", "-s"});
        o.timeout = std::chrono::seconds(45);
        auto r = runner().Run(o);
        if (r.ok() && r->success() && !RunningPid()) break;
      }
    }
    if (RunningPid()) ::kill(*pid, SIGKILL);
    // pg_ctl returns once postmaster.pid is gone, a moment before the
    // postmaster itself exits.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ProcessLives(*pid) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(milliseconds(20));
    }
  }
  // Backends exit on their own once the postmaster is gone; give them a
  // moment, then make sure.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<int> left;
  while (!(left = ProcessesInDir(data_dir())).empty()) {
    if (std::chrono::steady_clock::now() > deadline) {
      for (int p : left) ::kill(p, SIGKILL);
      std::this_thread::sleep_for(milliseconds(200));
      break;
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  left = ProcessesInDir(data_dir());
  if (!left.empty()) {
    return Internal(fmt::format("{} server processes of {} would not stop (first pid {})",
                                left.size(), data_dir(), left[0]));
  }
  return Status::Ok();
}

Status Cluster::Stop() {
  if (::access(home_.c_str(), F_OK) != 0) return Status::Ok();
  PGRIG_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(lock_file(), 300));
  return StopLocked();
}

Status Cluster::Destroy() {
  if (::access(home_.c_str(), F_OK) != 0 && ::access(lock_file().c_str(), F_OK) != 0) {
    return Status::Ok();
  }
  PGRIG_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(lock_file(), 300));
  PGRIG_RETURN_IF_ERROR(StopLocked());
  // Only what the cluster made: the home may also hold the PostgreSQL builds
  // (pg/) and their clusters (clusters/).
  for (const std::string& mine : {data_dir(), home_ + "/data.initdb", socket_dir(), log_file()}) {
    PGRIG_RETURN_IF_ERROR(RemoveTree(mine));
  }
  ::rmdir(home_.c_str());  // fails, and is meant to, when something else is left
  // `pgrig tune --apply` keeps its backups beside the home (so that they
  // survive a failed start); they belong to this cluster too.
  PGRIG_RETURN_IF_ERROR(RemoveTree(home_ + ".tune-backups"));
  ::unlink(lock_file().c_str());
  return Status::Ok();
}

Result<ClusterStatus> Cluster::GetStatus() const {
  ClusterStatus s;
  s.data_dir = data_dir();
  s.socket_dir = socket_dir();
  s.port = options_.port;
  s.socket_path = fmt::format("{}/.s.PGSQL.{}", socket_dir(), options_.port);
  s.log_file = log_file();
  s.account = account_.name;
  s.build = build_;
  s.initialized = ::access((data_dir() + "/PG_VERSION").c_str(), F_OK) == 0;
  auto bins = FindServerBinaries(runner(), *options_.env);
  if (bins.ok()) {
    s.bindir = bins->bindir;
    s.version = bins->version;
  }
  if (s.initialized) s.size_bytes = TreeSize(data_dir());
  if (auto pid = RunningPid()) {
    s.running = true;
    s.pid = *pid;
    // postmaster.pid line 3 is the start time in seconds since the epoch.
    auto text = ReadWholeFile(data_dir() + "/postmaster.pid");
    if (text.ok()) {
      auto lines = Split(*text, '\n');
      if (lines.size() > 2) {
        if (auto t = ParseInt64(lines[2])) s.uptime_s = WallSeconds() - static_cast<double>(*t);
      }
    }
    auto conn = pg::Connect(Params("postgres"));
    if (conn.ok()) {
      auto v = conn->QueryValue("SHOW server_version");
      if (v.ok()) s.version = *v;
    }
  } else if (auto text = ReadWholeFile(data_dir() + "/postmaster.pid"); text.ok()) {
    s.crashed = true;
    s.crashed_pid = static_cast<int>(ParseInt64(Split(*text, '\n')[0]).value_or(0));
  }
  return s;
}

Result<std::string> Cluster::LogTail(int lines) const {
  auto text = ReadWholeFile(log_file());
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound("no server log at " + log_file() +
                      " (the embedded cluster has not been started)");
    }
    return text.status();
  }
  return LastLines(*text, lines);
}

}  // namespace pgrig::cluster
