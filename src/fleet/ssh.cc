#include "fleet/ssh.h"

#include <stdlib.h>

#include "common/fs.h"
#include "common/strings.h"
#include "pg/connection.h"

namespace pgrig::fleet {

SshControlDir::SshControlDir() {
  char tmpl[] = "/tmp/pgrig-ssh-XXXXXX";
  if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
}

SshControlDir::~SshControlDir() {
  if (!path_.empty()) (void)RemoveTree(path_);
}

namespace {

constexpr int kSshFailure = 255;  // ssh's own errors; anything else is the remote command's

std::string Seconds(std::chrono::seconds s) { return std::to_string(s.count()); }

bool Contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

// The last non-empty line of ssh's stderr, redacted.
std::string LastLine(std::string_view err) {
  std::vector<std::string> lines = Split(err, '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string_view t = Trim(*it);
    if (!t.empty()) return RedactLine(t);
  }
  return "no message";
}

std::string MaskAfterEquals(std::string_view word) {
  size_t eq = word.find('=');
  return std::string(word.substr(0, eq + 1)) + "********";
}

}  // namespace

std::vector<std::string> SshTransport::CommonArgs() const {
  std::vector<std::string> a;
  if (options_.config_file) {
    a.push_back("-F");
    a.push_back(*options_.config_file);
  }
  auto opt = [&a](const std::string& kv) {
    a.push_back("-o");
    a.push_back(kv);
  };
  opt("BatchMode=yes");
  opt("StrictHostKeyChecking=yes");
  opt("ConnectTimeout=" + Seconds(options_.connect_timeout));
  opt("ServerAliveInterval=" + Seconds(options_.server_alive_interval));
  opt("ServerAliveCountMax=" + std::to_string(options_.server_alive_count_max));
  if (!options_.control_dir.empty()) {
    opt("ControlMaster=auto");
    // %C: a hash of local host, remote host, port and user (short enough
    // for a Unix socket path, distinct per destination).
    opt("ControlPath=" + options_.control_dir + "/%C");
    opt("ControlPersist=" + Seconds(options_.control_persist));
  }
  return a;
}

std::vector<std::string> SshTransport::SshArgv(const std::string& destination,
                                               const RemoteCommand& command) const {
  std::vector<std::string> argv = {"ssh"};
  std::vector<std::string> common = CommonArgs();
  argv.insert(argv.end(), common.begin(), common.end());
  if (command.stdin_data.empty()) argv.push_back("-n");
  argv.push_back("--");
  argv.push_back(destination);
  argv.push_back(RemoteShellLine(command.argv, command.env));
  return argv;
}

Status SshTransport::CheckSshFailure(const std::string& destination, const std::string& what,
                                     const ProcessResult& r) const {
  if (r.timed_out) {
    return Unavailable(destination + ": " + what +
                       " did not finish in time (timed out); the host "
                       "may be down or overloaded");
  }
  if (r.exit_code != kSshFailure) return Status::Ok();
  const std::string& e = r.err;
  std::string verify =
      "verify the host's key fingerprint (on the host: `ssh-keygen -lf "
      "/etc/ssh/ssh_host_ed25519_key.pub`), then add it with `ssh-keyscan HOST >> "
      "~/.ssh/known_hosts` or by running `ssh " +
      destination + "` once by hand";
  if (Contains(e, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
      Contains(e, "has changed and you have requested strict checking")) {
    return FailedPrecondition(destination +
                              ": the host key has CHANGED since it was recorded in "
                              "known_hosts; pgrig refuses to connect. If the host was reinstalled, "
                              "remove the old key (`ssh-keygen -R HOST`) and " +
                              verify + "; otherwise someone may be intercepting the connection");
  }
  if (Contains(e, "Host key verification failed") || Contains(e, "host key is known for")) {
    return FailedPrecondition(destination +
                              ": the host key is not in known_hosts and pgrig always "
                              "checks host keys (StrictHostKeyChecking=yes); " +
                              verify);
  }
  if (Contains(e, "Permission denied")) {
    return PermissionDenied(destination + ": ssh authentication refused (" + LastLine(e) +
                            "); pgrig runs ssh in batch mode, so the key must work without a "
                            "prompt (ssh-agent or an unencrypted key in your ssh config)");
  }
  return Unavailable(destination + ": " + what + " failed: " + LastLine(e));
}

Result<ProcessResult> SshTransport::Run(const std::string& destination,
                                        const RemoteCommand& command) const {
  ProcessOptions o;
  o.argv = SshArgv(destination, command);
  o.timeout = command.timeout;
  o.stdin_data = command.stdin_data;
  PGRIG_ASSIGN_OR_RETURN(ProcessResult r, runner_.Run(o));
  PGRIG_RETURN_IF_ERROR(CheckSshFailure(destination, "ssh", r));
  return r;
}

Status SshTransport::Scp(const std::string& destination, const std::string& from,
                         const std::string& to, const std::string& what, CopyKind kind,
                         std::chrono::milliseconds timeout) const {
  ProcessOptions o;
  o.argv = {"scp", "-q", "-p"};
  if (kind == CopyKind::kDirectory) o.argv.push_back("-r");
  std::vector<std::string> common = CommonArgs();
  o.argv.insert(o.argv.end(), common.begin(), common.end());
  o.argv.insert(o.argv.end(), {"--", from, to});
  o.timeout = timeout;
  PGRIG_ASSIGN_OR_RETURN(ProcessResult r, runner_.Run(o));
  PGRIG_RETURN_IF_ERROR(CheckSshFailure(destination, "copying " + what, r));
  if (!r.success()) {
    return Unavailable(destination + ": copying " + what + " failed: " + LastLine(r.err));
  }
  return Status::Ok();
}

Status SshTransport::CopyTo(const std::string& destination, const std::string& local_path,
                            const std::string& remote_path, CopyKind kind,
                            std::chrono::milliseconds timeout) const {
  return Scp(destination, local_path, destination + ":" + remote_path,
             local_path + " to " + remote_path, kind, timeout);
}

Status SshTransport::CopyFrom(const std::string& destination, const std::string& remote_path,
                              const std::string& local_path, CopyKind kind,
                              std::chrono::milliseconds timeout) const {
  return Scp(destination, destination + ":" + remote_path, local_path,
             remote_path + " to " + local_path, kind, timeout);
}

void SshTransport::CloseMaster(const std::string& destination) const {
  if (options_.control_dir.empty()) return;
  ProcessOptions o;
  o.argv = {"ssh"};
  std::vector<std::string> common = CommonArgs();
  o.argv.insert(o.argv.end(), common.begin(), common.end());
  o.argv.insert(o.argv.end(), {"-O", "exit", "--", destination});
  o.timeout = std::chrono::seconds(10);
  (void)runner_.Run(o);
}

std::string RemoteShellLine(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env) {
  std::vector<std::string> words;
  if (!env.empty()) {
    words.push_back("env");
    for (const auto& [k, v] : env) words.push_back(ShellQuote(k + "=" + v));
  }
  for (const std::string& a : argv) words.push_back(ShellQuote(a));
  return Join(words, " ");
}

std::string RedactLine(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    size_t start = line.find_first_not_of(" \t'\"", i);
    out.append(line.substr(i, (start == std::string_view::npos ? line.size() : start) - i));
    if (start == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t'\"", start);
    if (end == std::string_view::npos) end = line.size();
    std::string_view word = line.substr(start, end - start);
    std::string lower = ToLower(word);
    size_t uri = lower.find("postgres");
    if (lower.starts_with("password=") || lower.starts_with("pgpassword=") ||
        lower.starts_with("--password=")) {
      out += MaskAfterEquals(word);
    } else if (uri != std::string::npos && (lower.compare(uri, 13, "postgresql://") == 0 ||
                                            lower.compare(uri, 11, "postgres://") == 0)) {
      out.append(word.substr(0, uri));
      out += pg::RedactConninfo(word.substr(uri));
    } else {
      out.append(word);
    }
    i = end;
  }
  return out;
}

std::string PrefixLines(std::string_view label, std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    out += "[";
    out.append(label);
    out += "] ";
    out += RedactLine(text.substr(i, end - i));
    out += "\n";
    i = end + 1;
  }
  return out;
}

void SayPrefixed(std::mutex& mu, const std::function<void(const std::string&)>& sink,
                 std::string_view label, std::string_view text) {
  if (!sink) return;
  std::string line = PrefixLines(label, text);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  std::lock_guard<std::mutex> lock(mu);
  sink(line);
}

}  // namespace pgrig::fleet
