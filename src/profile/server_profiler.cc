// ServerProfiler (profile/server_profiler.h).
#include "profile/server_profiler.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/strings.h"
#include "host/server_cpu.h"

namespace pgrig::profile {
namespace {

// perf's first meaningful line of output: its reason for failing.
std::string FirstLine(const std::string& text) {
  for (const std::string& line : Split(text, '\n')) {
    const std::string_view t = Trim(line);
    // perf heads its messages with a line "Error:" or "Warning:" alone.
    if (t.empty() || t.starts_with("[ perf record:") || t == "Error:" || t == "Warning:") continue;
    return std::string(t);
  }
  return "";
}

// Waits up to `timeout` for `pid`; true when it was reaped (status filled).
bool WaitFor(pid_t pid, std::chrono::milliseconds timeout, int& status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // not ours any more
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// A file with no name in `dir` (gone when its last descriptor closes, so
// nothing is left behind even when pgrig is killed); -1 on failure.
int AnonymousFile(const std::string& dir) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string templ = dir + "/pgrig-profile-XXXXXX";
  fd = mkostemp(templ.data(), O_CLOEXEC);
  if (fd >= 0) unlink(templ.c_str());
  return fd;
}

// Everything written to `fd` so far.
std::string ReadAll(int fd) {
  std::string out;
  if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) return out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Moves `fd` to a number above 2 (so the child's dup2 onto stdin, stdout
// and stderr cannot clobber it); -1 on failure.
int AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

// Reads perf's answer on `ack_fd` until "ack\n" (true), EOF or the
// deadline (false).
bool AwaitAck(int ack_fd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string got;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{ack_fd, POLLIN, 0};
    const int pr = poll(&pfd, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) return false;
    char buf[64];
    const ssize_t n = read(ack_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got.append(buf, static_cast<size_t>(n));
    if (got.find("ack\n") != std::string::npos) return true;
    if (got.size() > 4096) return false;
  }
}

// The binary process `pid` runs, read through /proc (the file it started
// from, even if a package upgrade has replaced it since), named by its path.
std::optional<host::ServerBinaryFacts> ScanRunningBinary(const std::string& proc_root, int pid) {
  const std::string exe = proc_root + "/" + std::to_string(pid) + "/exe";
  char target[4096];
  const ssize_t n = readlink(exe.c_str(), target, sizeof target - 1);
  if (n <= 0) return std::nullopt;
  host::ServerBinaryFacts f = host::ScanServerBinary(exe);
  f.path = std::string(target, static_cast<size_t>(n));
  return f;
}

}  // namespace

ServerProfiler ServerProfiler::Unavailable(std::string reason) {
  ServerProfiler p;
  p.unavailable_ = std::move(reason);
  return p;
}

ServerProfiler ServerProfiler::Start(int postmaster_pid, const ProfilerOptions& options) {
  ServerProfiler p;
  p.options_ = options;
  p.postmaster_pid_ = postmaster_pid;
  if (options.frequency_hz <= 0) return Unavailable("the sampling frequency must be positive");
  p.server_binary_ = ScanRunningBinary(options.proc_root, postmaster_pid);
  if (!options.counter_events.empty()) {
    p.counters_ =
        ProcessTreeCounters::Open(postmaster_pid, options.counter_events, options.proc_root);
  }
  std::string tmp = options.temp_dir;
  if (tmp.empty()) {
    const char* env = std::getenv("TMPDIR");
    tmp = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  p.data_fd_ = AnonymousFile(tmp);
  p.log_fd_ = AnonymousFile(tmp);
  if (p.data_fd_ < 0 || p.log_fd_ < 0) {
    const std::string why = std::strerror(errno);
    p.Kill();
    return Unavailable("could not create a file for the recording in " + tmp + ": " + why);
  }

  // perf's control descriptors: it reads commands on ctl[0] and answers on
  // ack[1].  Numbers above 2, inherited by perf only.  ctl is a socket pair
  // so that a command sent after perf died is EPIPE, not SIGPIPE.
  int ctl[2] = {-1, -1};
  int ack[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) != 0 || pipe2(ack, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    for (int fd : {ctl[0], ctl[1], ack[0], ack[1]}) {
      if (fd >= 0) close(fd);
    }
    p.Kill();
    return Unavailable("could not create perf's control pipes: " + why);
  }
  for (int* fd : {&ctl[0], &ctl[1], &ack[0], &ack[1]}) *fd = AboveStdio(*fd);
  p.ctl_fd_ = ctl[1];
  auto close_perf_ends = [&ctl, &ack]() {
    if (ctl[0] >= 0) close(ctl[0]);
    if (ack[1] >= 0) close(ack[1]);
    ctl[0] = ack[1] = -1;
  };
  if (ctl[0] < 0 || ctl[1] < 0 || ack[0] < 0 || ack[1] < 0) {
    close_perf_ends();
    if (ack[0] >= 0) close(ack[0]);
    p.Kill();
    return Unavailable("could not create perf's control pipes");
  }

  // System-wide: per-CPU events cost the server little; per-process ones
  // (-p, inherited by every backend) are switched at every context switch
  // and cost a select-only run 20-25% of its throughput here
  // (docs/profiles.md).  The server's samples are picked out afterwards.
  const std::vector<std::string> args = {
      options.perf,
      "record",
      "-a",
      "-e",
      "cpu-clock",
      "-F",
      std::to_string(options.frequency_hz),
      "-g",
      "-k",
      "CLOCK_MONOTONIC",
      "-N",
      "-B",
      "-q",
      "--control",
      "fd:" + std::to_string(ctl[0]) + "," + std::to_string(ack[1]),
      "-o",
      "-"};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const std::string why = std::strerror(errno);
    close_perf_ends();
    close(ack[0]);
    p.Kill();
    return Unavailable("could not start perf: " + why);
  }
  if (child == 0) {
    setpgid(0, 0);  // Ctrl-C at the terminal is pgrig's to handle, not perf's
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    // The recording (pipe format) on stdout, perf's messages on stderr,
    // its control descriptors kept across exec.
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    dup2(p.data_fd_, STDOUT_FILENO);
    dup2(p.log_fd_, STDERR_FILENO);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    fcntl(ctl[0], F_SETFD, 0);
    fcntl(ack[1], F_SETFD, 0);
    execvp(argv[0], argv.data());
    const std::string msg = "perf: could not run \"" + args[0] + "\": " + std::strerror(errno) +
                            (errno == ENOENT ? " (Debian's package is linux-perf)" : "") + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  setpgid(child, child);
  p.perf_pid_ = child;
  close_perf_ends();
  // perf answers "ping" once it has listed the running processes and
  // enabled its events; it fails at once when it cannot attach (the ack
  // pipe then reaches EOF).
  static constexpr char kPing[] = "ping\n";
  const bool asked = send(p.ctl_fd_, kPing, sizeof kPing - 1, MSG_NOSIGNAL) == sizeof kPing - 1;
  const bool ready = asked && AwaitAck(ack[0], options.start_timeout);
  close(ack[0]);
  if (!ready) {
    int status = 0;
    const bool ended = WaitFor(child, std::chrono::milliseconds(200), status);
    if (ended) p.perf_pid_ = -1;
    const std::string why = FirstLine(ReadAll(p.log_fd_));
    p.unavailable_ =
        (ended ? "perf record ended before the run"
               : fmt::format("perf record did not start sampling within {:g} s",
                             static_cast<double>(options.start_timeout.count()) / 1000)) +
        (why.empty() ? "" : ": " + why);
    p.Kill();
  }
  return p;
}

ServerProfiler::ServerProfiler(ServerProfiler&& other) noexcept
    : options_(std::move(other.options_)),
      perf_pid_(other.perf_pid_),
      data_fd_(other.data_fd_),
      log_fd_(other.log_fd_),
      ctl_fd_(other.ctl_fd_),
      unavailable_(std::move(other.unavailable_)),
      window_start_ns_(other.window_start_ns_.load()),
      window_end_ns_(other.window_end_ns_),
      postmaster_pid_(other.postmaster_pid_),
      server_binary_(std::move(other.server_binary_)),
      counters_(std::move(other.counters_)) {
  other.perf_pid_ = -1;
  other.data_fd_ = -1;
  other.log_fd_ = -1;
  other.ctl_fd_ = -1;
}

ServerProfiler::~ServerProfiler() { Kill(); }

void ServerProfiler::Kill() {
  if (perf_pid_ > 0) {
    kill(perf_pid_, SIGKILL);
    int status = 0;
    WaitFor(perf_pid_, std::chrono::milliseconds(5000), status);
    perf_pid_ = -1;
  }
  for (int* fd : {&data_fd_, &log_fd_, &ctl_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void ServerProfiler::MarkWindowStart() {
  counters_.Enable();
  window_start_ns_ = MonotonicNanos();
}

void ServerProfiler::MarkWindowEnd() {
  window_end_ns_ = MonotonicNanos();
  counters_.Disable();
}

ProfileMeasure ServerProfiler::Finish() {
  const int64_t end_ns = window_end_ns_ != 0 ? window_end_ns_ : MonotonicNanos();
  counters_.Disable();
  ProfileMeasure m;
  m.server_binary = server_binary_;
  CounterMeasure counted = counters_.Read();
  m.hardware_counters = std::move(counted.values);
  m.hardware_counters_unavailable = std::move(counted.unavailable);
  if (window_start_ns_.load() == 0 && m.hardware_counters) {
    m.hardware_counters.reset();
    m.hardware_counters_unavailable = "the window's start was not marked";
  }
  if (perf_pid_ <= 0) {
    m.unavailable = unavailable_.empty() ? "the server was not profiled" : unavailable_;
    Kill();
    return m;
  }
  const int64_t start_ns = window_start_ns_.load();
  kill(perf_pid_, SIGINT);
  int status = 0;
  if (!WaitFor(perf_pid_, std::chrono::milliseconds(10000), status)) {
    m.unavailable = "perf record did not stop within 10 s of SIGINT; it was killed";
    Kill();
    return m;
  }
  perf_pid_ = -1;
  const off_t recorded = lseek(data_fd_, 0, SEEK_END);
  if (start_ns == 0) {
    m.unavailable = "the window's start was not marked";
  } else if (recorded <= 0 || lseek(data_fd_, 0, SEEK_SET) != 0) {
    const std::string why = FirstLine(ReadAll(log_fd_));
    m.unavailable = "perf record wrote no data" + (why.empty() ? "" : ": " + why);
  } else {
    ProfileBuilder b({.window_start_ns = start_ns,
                      .window_end_ns = end_ns,
                      .frequency_hz = options_.frequency_hz,
                      .root_pid = postmaster_pid_});
    // A block perf printed in a layout pgrig does not read costs that
    // block, not the profile; more than 1 in 1000 and the text is not what
    // the reader expects at all.
    PerfScriptSkips skips;
    int64_t records = 0;
    // perf script reads the recording from its file and its text is read
    // as it comes: neither is ever held in memory whole (docs/profiles.md,
    // "Limits").
    PerfScriptStream stream(
        "perf script output",
        [&b, &records](const Sample& x) {
          ++records;
          b.Add(x);
        },
        [&b](const TaskEvent& e) { b.AddTask(e); }, &skips);
    ProcessOptions po;
    po.argv = {
        options_.perf,       "script", "-i", "-", "-F", "comm,pid,tid,time,ip,sym,dso", "--ns",
        "--show-task-events"};
    po.stdin_fd = data_fd_;
    po.on_stdout = [&stream](std::string_view chunk) { stream.Feed(chunk); };
    po.timeout = std::chrono::milliseconds(300000);
    auto r = RealProcessRunner().Run(po);
    if (!r.ok()) {
      m.unavailable = "perf script: " + r.status().message();
    } else if (!r->success()) {
      m.unavailable = "perf script failed" + (r->timed_out ? std::string(" (timed out)") : "") +
                      ": " + FirstLine(r->err);
    } else {
      const Status s = stream.Finish();
      if (!s.ok()) {
        m.unavailable = s.message();
      } else if (skips.records * 1000 > records + skips.records) {
        m.unavailable = "perf script printed " + std::to_string(skips.records) + " of " +
                        std::to_string(records + skips.records) +
                        " records in a layout pgrig does not read; the first, line " +
                        std::to_string(skips.first_line) + ": " + skips.first_what +
                        " (the line: \"" + skips.first_text + "\")";
      } else {
        m.profile = b.Finish();
        m.profile->unreadable_records = skips.records;
        if (skips.records > 0) {
          m.unreadable_first = "line " + std::to_string(skips.first_line) + ": " +
                               skips.first_what + " (the line: \"" + skips.first_text + "\")";
        }
      }
    }
  }
  Kill();  // closes (and so frees) the recording
  return m;
}

ServerProfiler StartProfilerFor(const host::ServerCpuWindow& server_cpu,
                                const ProfilerOptions& options) {
  const std::optional<int> pm = server_cpu.postmaster_pid();
  if (!pm) {
    return ServerProfiler::Unavailable("the server is not one pgrig can profile: " +
                                       server_cpu.unavailable());
  }
  return ServerProfiler::Start(*pm, options);
}

}  // namespace pgrig::profile
