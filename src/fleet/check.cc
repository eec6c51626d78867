#include "fleet/check.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <thread>

#include "common/enum_names.h"
#include "common/strings.h"

namespace pgrig::fleet {
namespace {

std::string InstallAdvice(const FleetHost& h, const std::string& arch, const LocalPgrig& local) {
  return "install pgrig " + local.version + " on " + h.destination + " (a build for " +
         (arch.empty() ? std::string("its architecture") : arch) +
         ": build it there from source with scripts/setup.sh and cmake, or copy a matching "
         "binary) and set 'pgrig' in its [[host]] to its path";
}

std::string RandomSuffix() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(::getpid());
}

}  // namespace

const char* HostStateName(HostState s) {
  static constexpr const char* kNames[] = {"ready", "copied", "needs install", "unreachable"};
  return NameAt<HostState::kUnreachable>(s, kNames);
}

std::optional<std::string> ParseVersionLine(std::string_view out) {
  std::vector<std::string> words = SplitWords(Trim(out));
  if (words.size() != 2 || words[0] != "pgrig" || words[1].empty()) return std::nullopt;
  return words[1];
}

std::optional<std::string> ParseSha256Line(std::string_view out) {
  std::vector<std::string> words = SplitWords(Trim(out));
  if (words.empty() || words[0].size() != 64) return std::nullopt;
  for (char ch : words[0]) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return std::nullopt;
  }
  return words[0];
}

std::string InstalledCopyPath(const std::string& install_dir, const LocalPgrig& local) {
  return install_dir + "/pgrig-" + local.version + "-" + local.sha256.substr(0, 16);
}

Result<LocalPgrig> DescribeLocalPgrig(const std::string& version, const ProcessRunner& runner) {
  LocalPgrig l;
  l.version = version;
  struct utsname u;
  if (::uname(&u) != 0) return Internal("uname failed");
  l.arch = u.machine;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return Internal("cannot find this executable (/proc/self/exe): " + ec.message());
  l.exe = exe.string();
  auto out = RunAndCapture(runner, ProcessOptions{.argv = {"sha256sum", "--", l.exe},
                                                  .timeout = std::chrono::seconds(60)});
  if (!out.ok()) return out.status().WithContext("the SHA-256 of " + l.exe);
  std::optional<std::string> sha = ParseSha256Line(*out);
  if (!sha) return Internal("sha256sum printed no hash for " + l.exe + ": " + *out);
  l.sha256 = *sha;
  return l;
}

namespace {

// The SHA-256 of the file a host runs as `command` (a path or a name on its
// PATH); nullopt when it cannot be had (no such file, no sha256sum there).
std::optional<std::string> RemoteSha256(const FleetHost& host, const SshTransport& ssh,
                                        const std::string& command, std::chrono::seconds timeout) {
  auto r =
      ssh.Run(host.destination,
              RemoteCommand{
                  .argv = {"sh", "-c", "p=$(command -v -- \"$0\") && sha256sum -- \"$p\"", command},
                  .timeout = timeout});
  if (!r.ok() || !r->success()) return std::nullopt;
  return ParseSha256Line(r->out);
}

// A pgrig of this version in the host's install_dir under a name pgrig
// gives it: pgrig-<version>-<16 hex digits> (a copy, of any build) or
// pgrig-<version> (installed by hand), newest first.
struct InstalledPgrig {
  std::string path;
  std::string sha256;
};

bool IsInstalledName(std::string_view name, const std::string& version) {
  const std::string plain = "pgrig-" + version;
  if (name == plain) return true;
  if (name.size() != plain.size() + 17 || !name.starts_with(plain + "-")) return false;
  for (char ch : name.substr(plain.size() + 1)) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

std::optional<InstalledPgrig> FindInstalledVersion(const FleetHost& host, const SshTransport& ssh,
                                                   const CheckOptions& o) {
  auto listing = ssh.Run(
      host.destination,
      RemoteCommand{.argv = {"sh", "-c", "cd -- \"$0\" 2>/dev/null && ls -1t", host.install_dir},
                    .timeout = o.command_timeout});
  if (!listing.ok() || !listing->success()) return std::nullopt;
  int tried = 0;
  for (const std::string& line : Split(listing->out, '\n')) {
    const std::string name(Trim(line));
    if (!IsInstalledName(name, o.local.version)) continue;
    if (++tried > 3) break;
    const std::string path = host.install_dir + "/" + name;
    // It must run and say this version; its hash says whether it is this build.
    auto probe =
        ssh.Run(host.destination,
                RemoteCommand{
                    .argv = {"sh", "-c",
                             "v=$(\"$0\" --version) && s=$(sha256sum -- \"$0\") && echo \"$v\" && "
                             "echo \"$s\"",
                             path},
                    .timeout = o.command_timeout});
    if (!probe.ok() || !probe->success()) continue;
    std::vector<std::string> lines = Split(std::string(Trim(probe->out)), '\n');
    if (lines.size() != 2 || ParseVersionLine(lines[0]) != o.local.version) continue;
    std::optional<std::string> sha = ParseSha256Line(lines[1]);
    if (sha) return InstalledPgrig{.path = path, .sha256 = *sha};
  }
  return std::nullopt;
}

}  // namespace

HostCheck CheckHost(const FleetHost& host, const SshTransport& ssh, const CheckOptions& o) {
  HostCheck c;
  c.host = &host;
  c.pgrig = host.pgrig;
  auto uname = ssh.Run(host.destination,
                       RemoteCommand{.argv = {"uname", "-m"}, .timeout = o.command_timeout});
  if (!uname.ok()) {
    c.state = HostState::kUnreachable;
    c.message = uname.status().message();
    return c;
  }
  c.arch = std::string(Trim(uname->out));
  if (!uname->success() || c.arch.empty()) {
    c.state = HostState::kUnreachable;
    c.message = "`uname -m` failed on " + host.destination + ": " + RedactLine(Trim(uname->err));
    return c;
  }
  const bool same_arch = c.arch == o.local.arch;

  // The host's pgrig: run through `sh -c` so a missing one is exit 127, not an ssh error.
  auto version =
      ssh.Run(host.destination, RemoteCommand{.argv = {"sh", "-c", "\"$0\" --version", host.pgrig},
                                              .timeout = o.command_timeout});
  if (!version.ok()) {
    c.state = HostState::kUnreachable;
    c.message = version.status().message();
    return c;
  }
  if (version->success()) c.found_version = ParseVersionLine(version->out);
  std::string what = c.found_version
                         ? "pgrig " + *c.found_version + " (this is " + o.local.version + ")"
                         : "no working pgrig at '" + host.pgrig + "'";
  if (c.found_version == o.local.version) {
    // Another architecture's build can only be matched by its version.
    if (!same_arch) {
      c.state = HostState::kReady;
      c.message = "pgrig " + o.local.version + " (" + host.pgrig + ")";
      return c;
    }
    std::optional<std::string> sha = RemoteSha256(host, ssh, host.pgrig, o.command_timeout);
    if (sha == o.local.sha256) {
      c.state = HostState::kReady;
      c.message = "pgrig " + o.local.version + " (" + host.pgrig + "), this build";
      return c;
    }
    what = "pgrig " + o.local.version + " at '" + host.pgrig + "' is another build (sha256 " +
           (sha ? sha->substr(0, 16) : std::string("unknown")) + ", this one " +
           o.local.sha256.substr(0, 16) + ")";
  }
  if (!same_arch) {
    c.state = HostState::kNeedsInstall;
    c.message = what + "; the host is " + c.arch + ", this machine " + o.local.arch +
                ", so pgrig cannot copy itself; " + InstallAdvice(host, c.arch, o.local);
    return c;
  }

  // A copy of this build already there (an earlier check or run made it).
  const std::string& dir = host.install_dir;
  const std::string target = InstalledCopyPath(dir, o.local);
  if (RemoteSha256(host, ssh, target, o.command_timeout) == o.local.sha256) {
    c.state = HostState::kReady;
    c.pgrig = target;
    c.message = what + "; using this build's copy at " + target;
    return c;
  }
  if (o.copy == CopyPolicy::kNeverCopy) {
    // --no-copy uses a pgrig of this version that is already there: the
    // host's own, or one in install_dir (an earlier run's copy of another
    // build, pgrig being rebuilt here since, or one installed by hand).
    if (c.found_version == o.local.version) {
      c.state = HostState::kReady;
      c.message = what + "; used as it is (--no-copy)";
      return c;
    }
    if (std::optional<InstalledPgrig> found = FindInstalledVersion(host, ssh, o)) {
      c.state = HostState::kReady;
      c.pgrig = found->path;
      c.message = what + "; using pgrig " + o.local.version + " at '" + found->path +
                  "' in install_dir" +
                  (found->sha256 == o.local.sha256
                       ? std::string(", this build")
                       : ", another build (sha256 " + found->sha256.substr(0, 16) + ", this one " +
                             o.local.sha256.substr(0, 16) + "), used as it is (--no-copy)");
      return c;
    }
    c.state = HostState::kNeedsInstall;
    c.message = what + "; no copy of this build at " + target + " and no other pgrig " +
                o.local.version + " in " + dir + " (--no-copy); " +
                InstallAdvice(host, c.arch, o.local);
    return c;
  }

  // Copy ourselves: to a temporary name, check it runs, then rename.
  const std::string tmp = target + ".tmp-" + RandomSuffix();
  auto mk = ssh.Run(host.destination,
                    RemoteCommand{.argv = {"mkdir", "-p", dir}, .timeout = o.command_timeout});
  if (!mk.ok() || !mk->success()) {
    c.state = HostState::kNeedsInstall;
    c.message = what + "; could not make " + dir +
                " there: " + (mk.ok() ? RedactLine(Trim(mk->err)) : mk.status().message()) + "; " +
                InstallAdvice(host, c.arch, o.local);
    return c;
  }
  Status copied = ssh.CopyTo(host.destination, o.local.exe, tmp, CopyKind::kFile, o.copy_timeout);
  if (!copied.ok()) {
    c.state = HostState::kNeedsInstall;
    c.message = what + "; copying this pgrig there failed: " + copied.message();
    return c;
  }
  // Checked before the rename: it runs, answers with this version, and
  // arrived whole (the same SHA-256).
  auto check = ssh.Run(
      host.destination,
      RemoteCommand{.argv = {"sh", "-c",
                             "chmod 755 \"$0\" && v=$(\"$0\" --version) && "
                             "s=$(sha256sum -- \"$0\") && mv -f \"$0\" \"$1\" && echo \"$v\" && "
                             "echo \"$s\"",
                             tmp, target},
                    .timeout = o.command_timeout});
  std::optional<std::string> now;
  std::optional<std::string> now_sha;
  if (check.ok() && check->success()) {
    std::vector<std::string> lines = Split(std::string(Trim(check->out)), '\n');
    if (lines.size() == 2) {
      now = ParseVersionLine(lines[0]);
      now_sha = ParseSha256Line(lines[1]);
    }
  }
  if (now != o.local.version || now_sha != o.local.sha256) {
    (void)ssh.Run(host.destination,
                  RemoteCommand{.argv = {"rm", "-f", tmp, target}, .timeout = o.command_timeout});
    c.state = HostState::kNeedsInstall;
    c.message = what +
                (now == o.local.version
                     ? "; the copied pgrig arrived damaged (its SHA-256 differs from this one's); "
                     : "; the copied pgrig does not run there (" +
                           (check.ok() ? RedactLine(Trim(check->err)) : check.status().message()) +
                           "), probably a different C library; ") +
                InstallAdvice(host, c.arch, o.local);
    return c;
  }
  c.state = HostState::kCopied;
  c.pgrig = target;
  c.message = what + "; copied this pgrig to " + target;
  return c;
}

std::vector<HostCheck> CheckFleet(const Fleet& fleet, const SshTransport& ssh,
                                  const CheckOptions& options) {
  std::vector<HostCheck> out(fleet.hosts.size());
  std::vector<std::thread> threads;
  threads.reserve(fleet.hosts.size());
  for (size_t i = 0; i < fleet.hosts.size(); ++i) {
    threads.emplace_back([&, i] { out[i] = CheckHost(fleet.hosts[i], ssh, options); });
  }
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace pgrig::fleet
