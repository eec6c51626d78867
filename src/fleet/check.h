// `pgrig fleet check`: is each host of a fleet ready to run pgrig?
//
// For each host, over the SshTransport: reachable (a command runs), its
// architecture (`uname -m`), and its pgrig (`PGRIG --version`, PGRIG being
// the host's `pgrig` key).  A host is ready when that pgrig is this version
// and, on a host of this machine's architecture, this very build (the same
// SHA-256 of the executable: a fleet's hosts run identical code), or when a
// copy of this build is already in its install_dir (default ~/.pgrig/bin),
// under the content-addressed name `pgrig-<version>-<first 16 hex digits of
// the SHA-256>`: checked by its hash and reused, never copied again.
// With CopyPolicy::kNeverCopy (`--no-copy`), a pgrig of this version that is
// already there is used as it is, saying so: the host's own, or else one in
// install_dir named pgrig-<version>-<16 hex digits> (an earlier run's copy of
// another build, pgrig having been rebuilt here since) or pgrig-<version>
// (installed by hand), the newest that runs and says this version.
// Otherwise, when the host's architecture is this machine's, this machine's
// own (stripped) executable is copied there (to a temporary name, then
// renamed, so a copy never leaves a half-written binary and hosts that share
// a home directory do not trip over each other), checked by running it, and
// used from then on.  Otherwise the result says how to install it.  Hosts are
// checked in parallel (one thread per host, bounded by the fleet's size); one
// host's failure never stops the others.
//
// Nothing here prints: the caller gets one HostCheck per host, in fleet
// order.  Thread-safe as its transport is.
#ifndef PGRIG_FLEET_CHECK_H_
#define PGRIG_FLEET_CHECK_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/fleet_file.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {

struct LocalPgrig {
  std::string version;  // "0.1.0"
  std::string arch;     // `uname -m` of this machine: "x86_64", "aarch64"
  std::string exe;      // this executable (from /proc/self/exe)
  std::string sha256;   // of exe, 64 lowercase hex digits
};

// This process's version (given by the caller), architecture, executable and
// its SHA-256 (`sha256sum`, run through runner).
Result<LocalPgrig> DescribeLocalPgrig(const std::string& version, const ProcessRunner& runner);

// Where a host keeps its copy of this build: "<install_dir>/pgrig-0.1.0-1a2b3c4d5e6f7a8b".
std::string InstalledCopyPath(const std::string& install_dir, const LocalPgrig& local);

// The SHA-256 in `sha256sum`'s output ("<64 hex>  <file>"); nullopt otherwise.
std::optional<std::string> ParseSha256Line(std::string_view out);

enum class CopyPolicy { kCopyWhenNeeded, kNeverCopy };

struct CheckOptions {
  LocalPgrig local;
  CopyPolicy copy = CopyPolicy::kCopyWhenNeeded;
  std::chrono::seconds command_timeout{60};
  std::chrono::seconds copy_timeout{300};
};

enum class HostState {
  kReady,         // pgrig present: this build, or (another architecture) this version
  kCopied,        // our binary was copied and now answers with our version
  kNeedsInstall,  // pgrig missing or different, and we could not copy (other architecture, policy)
  kUnreachable,   // ssh failed: the error says why
};

const char* HostStateName(HostState s);

struct HostCheck {
  const FleetHost* host = nullptr;
  HostState state = HostState::kUnreachable;
  std::string arch;                          // remote `uname -m`
  std::optional<std::string> found_version;  // what the host's pgrig said, if it ran
  std::string pgrig;                         // the command to run pgrig there from now on
  std::string message;                       // why / what to do, for humans (redacted)
};

HostCheck CheckHost(const FleetHost& host, const SshTransport& ssh, const CheckOptions& options);

// Every host in parallel; results in the fleet's order.
std::vector<HostCheck> CheckFleet(const Fleet& fleet, const SshTransport& ssh,
                                  const CheckOptions& options);

// "pgrig 0.1.0\n" -> "0.1.0"; nullopt when the text is not pgrig's answer.
std::optional<std::string> ParseVersionLine(std::string_view out);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_CHECK_H_
