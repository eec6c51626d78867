#include "fleet/line_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pgrig::fleet {
namespace {

struct Pipe {
  int fd = -1;
  std::string pending;  // bytes after the last newline
  std::string* all = nullptr;
  Stream stream = Stream::kOut;
};

void Deliver(Pipe& p, const LineRunOptions& o, bool at_end) {
  size_t start = 0;
  for (size_t nl; (nl = p.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (o.on_line) o.on_line(p.stream, std::string_view(p.pending).substr(start, nl - start));
  }
  p.pending.erase(0, start);
  if (at_end && !p.pending.empty()) {
    if (o.on_line) o.on_line(p.stream, p.pending);
    p.pending.clear();
  }
}

}  // namespace

Result<ProcessResult> RunWithLines(const LineRunOptions& o) {
  if (o.argv.empty()) return InvalidArgument("RunWithLines: empty argv");
  std::vector<char*> argv;
  for (const std::string& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2], err[2], exec_err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(exec_err, O_CLOEXEC) != 0) {
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  int in[2] = {-1, -1};
  if (o.on_stdin && ::pipe2(in, O_CLOEXEC) != 0) {
    for (int fd : {out[0], out[1], err[0], err[1], exec_err[0], exec_err[1]}) ::close(fd);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], err[0], err[1], exec_err[0], exec_err[1], in[0], in[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return Internal(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (in[0] >= 0) {
      ::dup2(in[0], 0);
    } else {
      int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
    }
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execvp(argv[0], argv.data());
    int e = errno;
    (void)!::write(exec_err[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  ::close(exec_err[1]);
  int child_errno = 0;
  ssize_t got = ::read(exec_err[0], &child_errno, sizeof child_errno);
  ::close(exec_err[0]);
  if (in[0] >= 0) ::close(in[0]);
  if (got == sizeof child_errno) {
    ::close(out[0]);
    ::close(err[0]);
    if (in[1] >= 0) ::close(in[1]);
    ::waitpid(pid, nullptr, 0);
    return NotFound("cannot run " + o.argv[0] + ": " + std::strerror(child_errno));
  }

  if (in[1] >= 0) o.on_stdin(in[1]);
  ProcessResult result;
  Pipe pipes[2];
  pipes[0] = Pipe{out[0], {}, &result.out, Stream::kOut};
  pipes[1] = Pipe{err[0], {}, &result.err, Stream::kErr};
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  bool killed = false;
  std::chrono::steady_clock::time_point killed_at;
  char buf[8192];
  while (pipes[0].fd >= 0 || pipes[1].fd >= 0) {
    // A descendant outside the process group may hold the pipes open: stop
    // reading 2 s after the kill.
    if (killed && std::chrono::steady_clock::now() - killed_at > std::chrono::seconds(2)) break;
    bool expired = o.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline;
    bool cancelled = o.cancel != nullptr && o.cancel->load();
    if ((expired || cancelled) && !killed) {
      ::kill(-pid, SIGKILL);
      killed = true;
      killed_at = std::chrono::steady_clock::now();
      result.timed_out = true;
    }
    pollfd fds[2];
    int n = 0;
    for (Pipe& p : pipes) {
      if (p.fd >= 0) fds[n++] = pollfd{p.fd, POLLIN, 0};
    }
    int pr = ::poll(fds, static_cast<nfds_t>(n), 200);
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      Pipe& p = pipes[0].fd == fds[i].fd ? pipes[0] : pipes[1];
      ssize_t r = ::read(p.fd, buf, sizeof buf);
      if (r > 0) {
        p.all->append(buf, static_cast<size_t>(r));
        p.pending.append(buf, static_cast<size_t>(r));
        Deliver(p, o, false);
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        Deliver(p, o, true);
        ::close(p.fd);
        p.fd = -1;
      }
    }
  }
  for (Pipe& p : pipes) {
    if (p.fd >= 0) {
      Deliver(p, o, true);
      ::close(p.fd);
    }
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) {
    result.exit_code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    result.exit_code = -1;
    result.signal = WTERMSIG(st);
  }
  return result;
}

}  // namespace pgrig::fleet
