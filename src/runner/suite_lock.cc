// SuiteLock (see suite_lock.h): flock beside the embedded cluster's home,
// and a server-side advisory lock.
#include "runner/suite_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::runner {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// The application_name of the lock's connection (at most 63 bytes).
std::string LockAppName(const SuiteHolder& h) {
  return fmt::format("pgrig run pid {}@{}", h.pid, h.host).substr(0, 63);
}

Status HeldBy(const SuiteHolder& h, const std::string& where) {
  return FailedPrecondition(fmt::format(
      "another pgrig run is measuring {}: {}; two suites on one server would each measure about "
      "half of it.  Wait for it to end, or stop it (Ctrl-C: it restores what it changed); nothing "
      "was started or changed",
      where, h.Describe()));
}

SuiteHolder ReadHolderFile(int fd) {
  SuiteHolder h;
  std::string text(4096, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  try {
    const auto j = nlohmann::json::parse(text);
    h.pid = j.value("pid", int64_t{0});
    h.host = j.value("host", "");
    h.command = j.value("command", "");
    h.started_at = j.value("started_at", "");
  } catch (const nlohmann::json::exception&) {
    h.command = "(its record is being written)";
  }
  return h;
}

}  // namespace

std::string SuiteHolder::Describe() const {
  std::string s = fmt::format("pid {} on {}", pid, host.empty() ? "an unknown host" : host);
  if (!command.empty()) s += " (" + command + ")";
  if (!started_at.empty()) s += ", since " + started_at;
  return s;
}

SuiteHolder ThisProcess(const std::vector<std::string>& redacted_command_line) {
  SuiteHolder h;
  h.pid = ::getpid();
  h.host = HostName();
  std::vector<std::string> words;
  for (const std::string& w : redacted_command_line) words.push_back(ShellQuote(w));
  h.command = Join(words, " ");
  h.started_at = IsoTimestampUtc(WallSeconds());
  return h;
}

Result<std::unique_ptr<SuiteLock>> SuiteLock::LockEmbedded(const std::string& home,
                                                           const SuiteHolder& me) {
  std::unique_ptr<SuiteLock> lock(new SuiteLock());
  lock->path_ = home + ".suite.lock";
  // A holder that ends unlinks the file before it lets go: a lock taken on
  // a file no longer at the path is not the lock, so take it again.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int fd = ::open(lock->path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      return Internal(
          fmt::format("cannot open the suite lock {}: {}", lock->path_, std::strerror(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      SuiteHolder holder = ReadHolderFile(fd);
      ::close(fd);
      if (err == EWOULDBLOCK) return HeldBy(holder, "the embedded cluster (" + home + ")");
      return Internal(fmt::format("cannot lock {}: {}", lock->path_, std::strerror(err)));
    }
    struct stat by_fd {
    }, by_path{};
    if (::fstat(fd, &by_fd) == 0 && ::stat(lock->path_.c_str(), &by_path) == 0 &&
        by_fd.st_ino == by_path.st_ino && by_fd.st_dev == by_path.st_dev) {
      lock->fd_ = fd;
      break;
    }
    ::close(fd);
  }
  if (lock->fd_ < 0) return Internal("cannot take the suite lock " + lock->path_);
  const std::string text = nlohmann::json{{"pid", me.pid},
                                          {"host", me.host},
                                          {"command", me.command},
                                          {"started_at", me.started_at}}
                               .dump() +
                           "\n";
  if (::ftruncate(lock->fd_, 0) != 0 ||
      ::pwrite(lock->fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return Internal(
        fmt::format("cannot write the suite lock {}: {}", lock->path_, std::strerror(errno)));
  }
  return lock;
}

Result<std::unique_ptr<SuiteLock>> SuiteLock::LockServer(const pg::ConnectionParams& target,
                                                         const SuiteHolder& me) {
  pg::ConnectionParams p = target;
  p.application_name = LockAppName(me);
  PGRIG_ASSIGN_OR_RETURN(pg::Connection conn, pg::Connect(p));
  PGRIG_ASSIGN_OR_RETURN(std::optional<SuiteHolder> other, SuiteOnServer(conn));
  if (other) return HeldBy(*other, "this server (" + target.Describe() + ")");
  PGRIG_ASSIGN_OR_RETURN(
      std::string got,
      conn.QueryValue(fmt::format("SELECT pg_try_advisory_lock({}, {})", kLockKey1, kLockKey2)));
  if (got != "t") {
    PGRIG_ASSIGN_OR_RETURN(other, SuiteOnServer(conn));
    return HeldBy(other.value_or(SuiteHolder{}), "this server (" + target.Describe() + ")");
  }
  std::unique_ptr<SuiteLock> lock(new SuiteLock());
  lock->conn_ = std::move(conn);
  return lock;
}

SuiteLock::~SuiteLock() {
  conn_ = pg::Connection();  // the server drops the advisory lock with the session
  if (fd_ >= 0) {
    ::unlink(path_.c_str());
    ::close(fd_);
  }
}

Result<std::optional<SuiteHolder>> SuiteOnServer(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(
      pg::QueryResult r,
      conn.Exec(fmt::format(
          "SELECT coalesce(a.application_name, ''), l.pid, coalesce(a.client_addr::text, ''), "
          "coalesce(to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
          "''), coalesce(a.datname::text, '') "
          "FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
          "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = {} AND l.objid = {} "
          "AND l.objsubid = 2 AND l.pid <> pg_backend_pid() LIMIT 1",
          static_cast<uint32_t>(kLockKey1), static_cast<uint32_t>(kLockKey2))));
  if (r.rows() == 0) return std::optional<SuiteHolder>();
  SuiteHolder h;
  const std::string app(r.Get(0, 0));
  // "pgrig run pid 1234@host", as LockAppName wrote it.
  const std::string prefix = "pgrig run pid ";
  if (app.rfind(prefix, 0) == 0) {
    const std::string rest = app.substr(prefix.size());
    const size_t at = rest.find('@');
    h.pid = ParseInt64(rest.substr(0, at)).value_or(0);
    if (at != std::string::npos) h.host = rest.substr(at + 1);
  }
  if (h.host.empty()) h.host = std::string(r.Get(0, 2));
  h.command =
      fmt::format("its lock session is backend {} in database {}", r.Get(0, 1), r.Get(0, 4));
  h.started_at = std::string(r.Get(0, 3));
  return std::optional<SuiteHolder>(std::move(h));
}

}  // namespace pgrig::runner
