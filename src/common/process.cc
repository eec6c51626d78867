#include "common/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace

Result<ProcessResult> RealProcessRunner::Run(const ProcessOptions& o) const {
  if (o.argv.empty()) return InvalidArgument("no program to run");

  // Build the environment and argv before fork: no allocation in the child.
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
  std::vector<std::string> env_strs;
  for (const auto& [k, v] : env_map) env_strs.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strs) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = o.argv;
  std::vector<char*> argv;
  for (auto& s : argv_copy) argv.push_back(s.data());
  argv.push_back(nullptr);

  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(out_pipe, O_CLOEXEC) || ::pipe2(err_pipe, O_CLOEXEC) ||
      ::pipe2(exec_pipe, O_CLOEXEC)) {
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }

  pid_t pid = ::fork();
  if (pid < 0) return Internal(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    if (!o.inherit_output) {
      ::dup2(out_pipe[1], 1);
      ::dup2(err_pipe[1], 2);
    }
    if (o.run_as) {
      if (::setgroups(0, nullptr) != 0) ChildFail(exec_pipe[1], "setgroups");
      if (::setgid(o.run_as->gid) != 0) ChildFail(exec_pipe[1], "setgid");
      if (::setuid(o.run_as->uid) != 0) ChildFail(exec_pipe[1], "setuid");
    }
    if (!o.working_dir.empty() && ::chdir(o.working_dir.c_str()) != 0) {
      ChildFail(exec_pipe[1], "chdir");
    }
    ::signal(SIGPIPE, SIG_DFL);
    ::execvpe(argv[0], argv.data(), envp.data());
    ChildFail(exec_pipe[1], "exec");
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);

  // Did exec succeed?  The pipe closes on exec (EOF) or carries errno.
  char ebuf[256];
  ssize_t en;
  do {
    en = ::read(exec_pipe[0], ebuf, sizeof ebuf);
  } while (en < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (en > 0) {
    int child_errno = 0;
    std::memcpy(&child_errno, ebuf, sizeof child_errno);
    std::string what(ebuf + sizeof child_errno, static_cast<size_t>(en) - sizeof child_errno);
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    int st;
    ::waitpid(pid, &st, 0);
    StatusCode code = child_errno == ENOENT ? StatusCode::kNotFound
                      : child_errno == EACCES || child_errno == EPERM
                          ? StatusCode::kPermissionDenied
                          : StatusCode::kInternal;
    return Status(code,
                  "cannot run " + o.argv[0] + " (" + what + "): " + std::strerror(child_errno));
  }

  ProcessResult r;
  size_t in_off = 0;
  if (o.stdin_data.empty()) {
    ::close(in_pipe[1]);
    in_pipe[1] = -1;
  } else {
    ::fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  }
  auto deadline = std::chrono::steady_clock::now() + o.timeout;
  bool out_open = true, err_open = true;
  while (out_open || err_open || in_pipe[1] >= 0) {
    pollfd fds[3];
    int n = 0;
    int out_i = -1, err_i = -1, in_i = -1;
    if (out_open) {
      out_i = n;
      fds[n++] = {out_pipe[0], POLLIN, 0};
    }
    if (err_open) {
      err_i = n;
      fds[n++] = {err_pipe[0], POLLIN, 0};
    }
    if (in_pipe[1] >= 0) {
      in_i = n;
      fds[n++] = {in_pipe[1], POLLOUT, 0};
    }
    int wait_ms = -1;
    if (o.timeout.count() > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(-pid, SIGKILL);
        r.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    int pr = ::poll(fds, static_cast<nfds_t>(n), wait_ms);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) break;
    char buf[16384];
    if (out_i >= 0 && fds[out_i].revents) {
      ssize_t k = ::read(out_pipe[0], buf, sizeof buf);
      if (k > 0)
        r.out.append(buf, static_cast<size_t>(k));
      else if (k == 0 || errno != EINTR)
        out_open = false;
    }
    if (err_i >= 0 && fds[err_i].revents) {
      ssize_t k = ::read(err_pipe[0], buf, sizeof buf);
      if (k > 0)
        r.err.append(buf, static_cast<size_t>(k));
      else if (k == 0 || errno != EINTR)
        err_open = false;
    }
    if (in_i >= 0 && fds[in_i].revents) {
      ssize_t k = ::write(in_pipe[1], o.stdin_data.data() + in_off, o.stdin_data.size() - in_off);
      if (k > 0) in_off += static_cast<size_t>(k);
      if (k < 0 && errno != EAGAIN && errno != EINTR) in_off = o.stdin_data.size();
      if (in_off >= o.stdin_data.size()) {
        ::close(in_pipe[1]);
        in_pipe[1] = -1;
      }
    }
  }
  if (in_pipe[1] >= 0) ::close(in_pipe[1]);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) {
    r.exit_code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    r.signal = WTERMSIG(st);
  }
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
