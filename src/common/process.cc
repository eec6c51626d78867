#include "common/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/strings.h"

extern char** environ;

namespace pgrig {

namespace {

// Writes a message to the parent through the error pipe and exits; only
// async-signal-safe calls are used after fork.
[[noreturn]] void ChildFail(int fd, const char* what) {
  int e = errno;
  (void)!::write(fd, &e, sizeof e);
  (void)!::write(fd, what, std::strlen(what));
  ::_exit(127);
}

// The child's argv and environment as execvpe takes them, built before fork
// so that the child allocates nothing.  The pointers point into the strings
// held here, so an ExecArgs stays where it was built.
class ExecArgs {
 public:
  explicit ExecArgs(const ProcessOptions& o) : argv_strs_(o.argv) {
    std::map<std::string, std::string> env_map;
    for (char** e = environ; *e; ++e) {
      std::string kv(*e);
      auto eq = kv.find('=');
      if (eq != std::string::npos) env_map[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& k : o.unset_env) env_map.erase(k);
    if (o.run_as) {
      env_map["HOME"] = o.run_as->home;
      env_map["USER"] = o.run_as->user;
      env_map["LOGNAME"] = o.run_as->user;
    }
    for (const auto& [k, v] : o.env) env_map[k] = v;
    for (const auto& [k, v] : env_map) env_strs_.push_back(k + "=" + v);
    for (auto& s : env_strs_) envp_.push_back(s.data());
    envp_.push_back(nullptr);
    for (auto& s : argv_strs_) argv_.push_back(s.data());
    argv_.push_back(nullptr);
  }
  ExecArgs(const ExecArgs&) = delete;
  ExecArgs& operator=(const ExecArgs&) = delete;

  char* const* argv() const { return argv_.data(); }
  char* const* envp() const { return envp_.data(); }

 private:
  std::vector<std::string> env_strs_;
  std::vector<char*> envp_;
  std::vector<std::string> argv_strs_;
  std::vector<char*> argv_;
};

// The child's stdin, stdout and stderr, and the pipe that tells the parent
// whether exec failed.  [0] reads, [1] writes; in[1] becomes -1 once the
// parent has closed the child's stdin.
struct ChildPipes {
  int in[2];
  int out[2];
  int err[2];
  int exec[2];
};

// The child, from fork to exec.  It stays in one piece on purpose: after
// fork in a process that may have other threads only async-signal-safe
// calls are allowed (no allocation, no locks), and keeping every step from
// the privilege drop to exec in one short function keeps that reviewable.
[[noreturn]] void ChildExec(const ProcessOptions& o, const ChildPipes& p, const ExecArgs& args) {
  ::setpgid(0, 0);
  ::dup2(o.stdin_fd >= 0 ? o.stdin_fd : p.in[0], 0);
  if (!o.inherit_output) {
    ::dup2(p.out[1], 1);
    ::dup2(p.err[1], 2);
  }
  if (o.run_as) {
    if (::setgroups(0, nullptr) != 0) ChildFail(p.exec[1], "setgroups");
    if (::setgid(o.run_as->gid) != 0) ChildFail(p.exec[1], "setgid");
    if (::setuid(o.run_as->uid) != 0) ChildFail(p.exec[1], "setuid");
  }
  if (!o.working_dir.empty() && ::chdir(o.working_dir.c_str()) != 0) {
    ChildFail(p.exec[1], "chdir");
  }
  ::signal(SIGPIPE, SIG_DFL);
  ::execvpe(args.argv()[0], args.argv(), args.envp());
  ChildFail(p.exec[1], "exec");
}

// Did exec succeed?  The exec pipe closes on exec (EOF) or carries the
// child's errno and the step that failed.  On failure the other pipes are
// closed and the child reaped.
Status AwaitExec(const ProcessOptions& o, pid_t pid, ChildPipes& p) {
  char ebuf[256];
  ssize_t en;
  do {
    en = ::read(p.exec[0], ebuf, sizeof ebuf);
  } while (en < 0 && errno == EINTR);
  ::close(p.exec[0]);
  if (en <= 0) return Status::Ok();
  int child_errno = 0;
  std::memcpy(&child_errno, ebuf, sizeof child_errno);
  std::string what(ebuf + sizeof child_errno, static_cast<size_t>(en) - sizeof child_errno);
  ::close(p.in[1]);
  ::close(p.out[0]);
  ::close(p.err[0]);
  int st;
  ::waitpid(pid, &st, 0);
  StatusCode code = child_errno == ENOENT                           ? StatusCode::kNotFound
                    : child_errno == EACCES || child_errno == EPERM ? StatusCode::kPermissionDenied
                                                                    : StatusCode::kInternal;
  return Status(code, "cannot run " + o.argv[0] + " (" + what + "): " + std::strerror(child_errno));
}

// A cancel's stop of the child's process group: SIGTERM when o.cancel is
// first seen set, SIGKILL 5 s later if the child has not been reaped.  One
// per child, carried from PumpOutput into Reap, so that a child which closes
// its pipes but ignores SIGTERM is still killed.
class CancelStop {
 public:
  void Check(const ProcessOptions& o, pid_t pid, ProcessResult* r) {
    if (o.cancel == nullptr) return;
    if (o.cancel->load() && !r->cancelled) {
      r->cancelled = true;
      ::kill(-pid, SIGTERM);
      kill_at_ = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    }
    if (kill_at_ && std::chrono::steady_clock::now() >= *kill_at_) {
      ::kill(-pid, SIGKILL);
      kill_at_.reset();
    }
  }

 private:
  std::optional<std::chrono::steady_clock::time_point> kill_at_;
};

// Feeds o.stdin_data to the child and collects its stdout and stderr into
// *r until both close, killing the child's process group at the timeout
// (and, with o.cancel, stopping it through `stop`).  Closes the parent's
// ends of the pipes.
void PumpOutput(const ProcessOptions& o, pid_t pid, ChildPipes& p, CancelStop& stop,
                ProcessResult* r) {
  size_t in_off = 0;
  if (o.stdin_data.empty() || o.stdin_fd >= 0) {
    ::close(p.in[1]);
    p.in[1] = -1;
  } else {
    ::fcntl(p.in[1], F_SETFL, O_NONBLOCK);
  }
  auto deadline = std::chrono::steady_clock::now() + o.timeout;
  bool out_open = true, err_open = true;
  while (out_open || err_open || p.in[1] >= 0) {
    pollfd fds[3];
    int n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out_open) {
      out_i = n;
      fds[n++] = {p.out[0], POLLIN, 0};
    }
    if (err_open) {
      err_i = n;
      fds[n++] = {p.err[0], POLLIN, 0};
    }
    if (p.in[1] >= 0) {
      in_i = n;
      fds[n++] = {p.in[1], POLLOUT, 0};
    }
    int wait_ms = -1;
    if (o.timeout.count() > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(-pid, SIGKILL);
        r->timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    if (o.cancel != nullptr) {
      stop.Check(o, pid, r);
      wait_ms = wait_ms < 0 ? 200 : std::min(wait_ms, 200);
    }
    int pr = ::poll(fds, static_cast<nfds_t>(n), wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) break;
    char buf[16384];
    if (out_i >= 0 && fds[out_i].revents) {
      ssize_t k = ::read(p.out[0], buf, sizeof buf);
      if (k > 0 && o.on_stdout) {
        o.on_stdout(std::string_view(buf, static_cast<size_t>(k)));
      } else if (k > 0) {
        r->out.append(buf, static_cast<size_t>(k));
      } else if (k == 0 || errno != EINTR) {
        out_open = false;
      }
    }
    if (err_i >= 0 && fds[err_i].revents) {
      ssize_t k = ::read(p.err[0], buf, sizeof buf);
      if (k > 0)
        r->err.append(buf, static_cast<size_t>(k));
      else if (k == 0 || errno != EINTR)
        err_open = false;
    }
    if (in_i >= 0 && fds[in_i].revents) {
      ssize_t k = ::write(p.in[1], o.stdin_data.data() + in_off, o.stdin_data.size() - in_off);
      if (k > 0) in_off += static_cast<size_t>(k);
      if (k < 0 && errno != EAGAIN && errno != EINTR) in_off = o.stdin_data.size();
      if (in_off >= o.stdin_data.size()) {
        ::close(p.in[1]);
        p.in[1] = -1;
      }
    }
  }
  if (p.in[1] >= 0) ::close(p.in[1]);
  ::close(p.out[0]);
  ::close(p.err[0]);
}

// Waits for the child and records how it ended.  With o.cancel, the wait
// goes on checking it: a child whose output goes elsewhere (a log) closes
// its pipes at once and is still to be stopped.
void Reap(const ProcessOptions& o, pid_t pid, CancelStop& stop, ProcessResult* r) {
  int st = 0;
  if (o.cancel != nullptr) {
    for (;;) {
      const pid_t w = ::waitpid(pid, &st, WNOHANG);
      if (w == pid || (w < 0 && errno != EINTR)) break;
      stop.Check(o, pid, r);
      ::usleep(50000);
    }
  } else {
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(st)) {
    r->exit_code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    r->signal = WTERMSIG(st);
  }
}

}  // namespace

Result<ProcessResult> RealProcessRunner::Run(const ProcessOptions& o) const {
  if (o.argv.empty()) return InvalidArgument("no program to run");
  const ExecArgs args(o);

  ChildPipes p;
  if (::pipe2(p.in, O_CLOEXEC) || ::pipe2(p.out, O_CLOEXEC) || ::pipe2(p.err, O_CLOEXEC) ||
      ::pipe2(p.exec, O_CLOEXEC)) {
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }

  pid_t pid = ::fork();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) ChildExec(o, p, args);
  ::close(p.in[0]);
  ::close(p.out[1]);
  ::close(p.err[1]);
  ::close(p.exec[1]);
  PGRIG_RETURN_IF_ERROR(AwaitExec(o, pid, p));

  ProcessResult r;
  CancelStop stop;
  PumpOutput(o, pid, p, stop, &r);
  Reap(o, pid, stop, &r);
  return r;
}

Result<std::string> RunAndCapture(const ProcessRunner& runner, const ProcessOptions& options) {
  PGRIG_ASSIGN_OR_RETURN(ProcessResult r, runner.Run(options));
  if (r.timed_out) return Unavailable(options.argv[0] + " did not finish in time");
  if (!r.success()) {
    std::string msg(Trim(r.err.empty() ? r.out : r.err));
    return Internal(options.argv[0] + " failed" +
                    (r.signal ? " (signal " + std::to_string(r.signal) + ")"
                              : " (exit code " + std::to_string(r.exit_code) + ")") +
                    (msg.empty() ? "" : ": " + msg));
  }
  return std::move(r.out);
}

}  // namespace pgrig
