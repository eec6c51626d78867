// The fleet's transport: the system OpenSSH client (`ssh`, `scp`), never a
// home-made agent.  Hosts are ssh destinations as the user's OpenSSH
// configuration knows them (aliases, users, jump hosts, agent all work).
//
// Every invocation gets BatchMode=yes (never a prompt), ConnectTimeout,
// ServerAliveInterval/CountMax, StrictHostKeyChecking=yes (an unknown or
// changed host key is refused; the error says how to verify and accept it),
// and, when a control directory is given, connection multiplexing
// (ControlMaster=auto, ControlPath in that private directory,
// ControlPersist).  `-F FILE` is passed only when the fleet file names one;
// otherwise ssh reads the user's own configuration.
//
// Remote commands are argv vectors, each word quoted for the remote shell;
// environment variables are passed with `env K=V` in front (ssh's SendEnv
// needs server configuration, this does not).  Commands run through a
// ProcessRunner with a timeout.  Every text that may reach a log goes through
// RedactLine, which masks passwords in conninfo strings and URIs.
//
// A SshTransport holds only options; it is thread-safe when its runner is
// (RealProcessRunner is), so one transport serves hosts run in parallel.
#ifndef PGRIG_FLEET_SSH_H_
#define PGRIG_FLEET_SSH_H_

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/process.h"
#include "common/status.h"

namespace pgrig::fleet {

struct SshOptions {
  std::optional<std::string> config_file;  // `ssh -F`; only when the fleet file names one
  std::chrono::seconds connect_timeout{10};
  std::chrono::seconds server_alive_interval{15};
  int server_alive_count_max = 3;
  // A private (0700) directory for ControlPath sockets; empty: no multiplexing.
  std::string control_dir;
  std::chrono::seconds control_persist{60};
};

// A private (0700) directory under /tmp for ssh's multiplexing sockets
// (SshOptions::control_dir), removed with everything in it when this object
// goes.  path() is empty when the directory could not be made: then use no
// multiplexing.
class SshControlDir {
 public:
  SshControlDir();
  ~SshControlDir();
  SshControlDir(const SshControlDir&) = delete;
  SshControlDir& operator=(const SshControlDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct RemoteCommand {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // set on the remote side with `env`
  std::chrono::milliseconds timeout{std::chrono::minutes(1)};
  std::string stdin_data;
};

enum class CopyKind { kFile, kDirectory };

class SshTransport {
 public:
  SshTransport(const ProcessRunner& runner, SshOptions options)
      : runner_(runner), options_(std::move(options)) {}

  // The options every ssh and scp invocation gets (`-F`, `-o ...`).
  std::vector<std::string> CommonArgs() const;
  // The full argv that runs `command` on `destination`.
  std::vector<std::string> SshArgv(const std::string& destination,
                                   const RemoteCommand& command) const;

  // Runs the command.  Errors only when ssh itself failed (exit 255: the
  // host unreachable, authentication refused, host key unknown or changed;
  // or the timeout expired); the remote command's own exit status is in the
  // result otherwise.
  Result<ProcessResult> Run(const std::string& destination, const RemoteCommand& command) const;

  // scp in either direction; a directory is copied recursively.
  Status CopyTo(const std::string& destination, const std::string& local_path,
                const std::string& remote_path, CopyKind kind,
                std::chrono::milliseconds timeout) const;
  Status CopyFrom(const std::string& destination, const std::string& remote_path,
                  const std::string& local_path, CopyKind kind,
                  std::chrono::milliseconds timeout) const;

  // Ends the multiplexing master for destination (`ssh -O exit`), if any.
  void CloseMaster(const std::string& destination) const;

  // The error for an ssh or scp that ran (by SshArgv, elsewhere): OK unless
  // it timed out or ssh itself failed (exit 255), with host-key advice.
  Status CheckSshFailure(const std::string& destination, const std::string& what,
                         const ProcessResult& r) const;

 private:
  // scp `from` to `to` (one of them on destination); `what` names the copy in errors.
  Status Scp(const std::string& destination, const std::string& from, const std::string& to,
             const std::string& what, CopyKind kind, std::chrono::milliseconds timeout) const;

  const ProcessRunner& runner_;
  SshOptions options_;
};

// The remote shell command line for argv (each word quoted), with `env K=V`
// in front when env is not empty.
std::string RemoteShellLine(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env);

// Masks passwords: `password=...` words, PGPASSWORD=..., and the password of
// postgres:// / postgresql:// URIs anywhere in the line.
std::string RedactLine(std::string_view line);

// Prefixes each line of text with "[label] ", redacted; a final line without
// a newline is kept.
std::string PrefixLines(std::string_view label, std::string_view text);

// PrefixLines(label, text) without its last newline, handed to `sink` under
// `mu` (the hosts' threads share one sink).  Nothing when `sink` is empty.
void SayPrefixed(std::mutex& mu, const std::function<void(const std::string&)>& sink,
                 std::string_view label, std::string_view text);

}  // namespace pgrig::fleet

#endif  // PGRIG_FLEET_SSH_H_
