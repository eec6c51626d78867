// One suite at a time per server.
//
// Two suites measuring one server at once each see about half of it and
// neither knows; one may even reload the tables under the other.  A
// `pgrig run` (a fleet host's too) therefore holds, for its whole life:
//   - for the embedded cluster, flock(2) on <home>.suite.lock beside the
//     cluster's home, taken before the cluster is started; the file holds
//     the holder (pid, host, command, start time) as JSON;
//   - on every server, the advisory lock pg_try_advisory_lock(kLockKey1,
//     kLockKey2) on a connection of its own whose application_name names
//     the holder ("pgrig run pid 1234@host").  Advisory locks belong to a
//     database; pg_locks shows every database's, so a second suite in another
//     database of the same server is refused as well.
// The kernel drops the flock and the server the advisory lock when the
// holder dies, SIGKILL included: nothing is left to clean up by hand.
//
// Not thread-safe; one SuiteLock per suite.
#ifndef PGRIG_RUNNER_SUITE_LOCK_H_
#define PGRIG_RUNNER_SUITE_LOCK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::runner {

inline constexpr int32_t kLockKey1 = 0x70677267;  // "pgrg"
inline constexpr int32_t kLockKey2 = 1;           // suites

// Who holds a server's suite lock.
struct SuiteHolder {
  int64_t pid = 0;
  std::string host;        // the holder's machine (its host name, or the client address)
  std::string command;     // its command line (passwords removed), when known
  std::string started_at;  // UTC
  // "pid 1234 on box (pgrig run quick --out r1), since 2026-12-03T22:51:06Z"
  std::string Describe() const;
};

// This process, as a holder.
SuiteHolder ThisProcess(const std::vector<std::string>& redacted_command_line);

class SuiteLock {
 public:
  // The embedded cluster whose home is `home`: takes <home>.suite.lock.
  // Held by another process: FailedPrecondition naming it, nothing changed.
  static Result<std::unique_ptr<SuiteLock>> LockEmbedded(const std::string& home,
                                                         const SuiteHolder& me);
  // Any server: the advisory lock on a connection of its own, held until
  // this object is destroyed.  A lock already held: as above.
  static Result<std::unique_ptr<SuiteLock>> LockServer(const pg::ConnectionParams& target,
                                                       const SuiteHolder& me);
  ~SuiteLock();
  SuiteLock(const SuiteLock&) = delete;
  SuiteLock& operator=(const SuiteLock&) = delete;

 private:
  SuiteLock() = default;
  int fd_ = -1;
  std::string path_;
  pg::Connection conn_;
};

// The suite holding `conn`'s server, if any (for `bench` and `init`, which
// warn): the advisory lock as pg_locks shows it, in any database.
Result<std::optional<SuiteHolder>> SuiteOnServer(pg::Connection& conn);

}  // namespace pgrig::runner

#endif  // PGRIG_RUNNER_SUITE_LOCK_H_
