// Running other programs (initdb, pg_ctl, pg_config, pgbench) and waiting for
// them, optionally as another user.
//
// ProcessRunner is an interface so that code which runs programs (cluster,
// host, tune) can be tested with a fake; RealProcessRunner forks and execs.
// Output is captured through pipes; nothing goes through a shell.  A runner is
// stateless and thread-safe.
#ifndef PGRIG_COMMON_PROCESS_H_
#define PGRIG_COMMON_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig {

struct RunAs {
  uid_t uid;
  gid_t gid;
  std::string home;  // becomes $HOME for the child
  std::string user;  // becomes $USER and $LOGNAME
};

struct ProcessOptions {
  std::vector<std::string> argv;           // argv[0] is a path or a name looked up in $PATH
  std::optional<RunAs> run_as;             // drop privileges in the child (needs root)
  std::map<std::string, std::string> env;  // added to (or replacing) the inherited environment
  std::vector<std::string> unset_env;      // removed from the inherited environment
  std::string working_dir;                 // empty: inherit
  std::string stdin_data;
  // >= 0: the child reads this descriptor as its stdin (from its offset;
  // the caller keeps it open and owns it) and stdin_data is not used.
  int stdin_fd = -1;
  // Given: the child's stdout is passed here in chunks as it arrives, not
  // kept in ProcessResult::out (a long output is then never held whole).
  std::function<void(std::string_view)> on_stdout;
  std::chrono::milliseconds timeout{0};  // 0: none; on expiry the child is killed
  // Given: checked at least every 200 ms; when it turns true the child's
  // process group is sent SIGTERM, then SIGKILL 5 s later, and the result
  // says `cancelled` (an InterruptScope's flag: Ctrl-C stops a long make).
  const std::atomic<bool>* cancel = nullptr;
  // Leave the child's stdout/stderr attached to ours instead of capturing.
  bool inherit_output = false;
};

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::string out;
  std::string err;

  bool success() const { return exit_code == 0; }
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Fails only when the program could not be started at all; a program that
  // ran and exited non-zero is a successful Result with that exit code.
  virtual Result<ProcessResult> Run(const ProcessOptions& options) const = 0;
};

class RealProcessRunner : public ProcessRunner {
 public:
  Result<ProcessResult> Run(const ProcessOptions& options) const override;
};

// Convenience: run argv, return stdout when it exits 0, else an error with its
// stderr.
Result<std::string> RunAndCapture(const ProcessRunner& runner, const ProcessOptions& options);

}  // namespace pgrig

#endif  // PGRIG_COMMON_PROCESS_H_
