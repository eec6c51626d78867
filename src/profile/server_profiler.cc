// ServerProfiler (profile/server_profiler.h).
#include "profile/server_profiler.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/prctl.h>
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
    if (!t.empty() && !t.starts_with("[ perf record:")) return std::string(t);
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

  // System-wide: per-CPU events cost the server little; per-process ones
  // (-p, inherited by every backend) are switched at every context switch
  // and cost a select-only run 20-25% of its throughput here
  // (docs/profiles.md).  The server's samples are picked out afterwards.
  const std::vector<std::string> args = {options.perf,
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
                                         "-o",
                                         "-"};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    const std::string why = std::strerror(errno);
    p.Kill();
    return Unavailable("could not start perf: " + why);
  }
  if (child == 0) {
    setpgid(0, 0);  // Ctrl-C at the terminal is pgrig's to handle, not perf's
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    // The recording (pipe format) on stdout, perf's messages on stderr.
    const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    dup2(p.data_fd_, STDOUT_FILENO);
    dup2(p.log_fd_, STDERR_FILENO);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    execvp(argv[0], argv.data());
    const std::string msg = "perf: could not run \"" + args[0] + "\": " + std::strerror(errno) +
                            (errno == ENOENT ? " (Debian's package is linux-perf)" : "") + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  setpgid(child, child);
  p.perf_pid_ = child;
  // perf fails at once when it cannot attach; otherwise it is sampling
  // well before the run's clients have connected.
  int status = 0;
  if (WaitFor(child, std::chrono::milliseconds(300), status)) {
    p.perf_pid_ = -1;
    const std::string why = FirstLine(ReadAll(p.log_fd_));
    p.unavailable_ = "perf record ended before the run" + (why.empty() ? "" : ": " + why);
    p.Kill();
  }
  return p;
}

ServerProfiler::ServerProfiler(ServerProfiler&& other) noexcept
    : options_(std::move(other.options_)),
      perf_pid_(other.perf_pid_),
      data_fd_(other.data_fd_),
      log_fd_(other.log_fd_),
      unavailable_(std::move(other.unavailable_)),
      window_start_ns_(other.window_start_ns_.load()),
      window_end_ns_(other.window_end_ns_),
      postmaster_pid_(other.postmaster_pid_) {
  other.perf_pid_ = -1;
  other.data_fd_ = -1;
  other.log_fd_ = -1;
}

ServerProfiler::~ServerProfiler() { Kill(); }

void ServerProfiler::Kill() {
  if (perf_pid_ > 0) {
    kill(perf_pid_, SIGKILL);
    int status = 0;
    WaitFor(perf_pid_, std::chrono::milliseconds(5000), status);
    perf_pid_ = -1;
  }
  for (int* fd : {&data_fd_, &log_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void ServerProfiler::MarkWindowStart() { window_start_ns_ = MonotonicNanos(); }

void ServerProfiler::MarkWindowEnd() { window_end_ns_ = MonotonicNanos(); }

ProfileMeasure ServerProfiler::Finish() {
  const int64_t end_ns = window_end_ns_ != 0 ? window_end_ns_ : MonotonicNanos();
  ProfileMeasure m;
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
  std::string data = ReadAll(data_fd_);
  if (start_ns == 0) {
    m.unavailable = "the window's start was not marked";
  } else if (data.empty()) {
    const std::string why = FirstLine(ReadAll(log_fd_));
    m.unavailable = "perf record wrote no data" + (why.empty() ? "" : ": " + why);
  } else {
    ProcessOptions po;
    po.argv = {
        options_.perf,       "script", "-i", "-", "-F", "comm,pid,tid,time,ip,sym,dso", "--ns",
        "--show-task-events"};
    po.stdin_data = std::move(data);
    po.timeout = std::chrono::milliseconds(300000);
    auto r = RealProcessRunner().Run(po);
    if (!r.ok()) {
      m.unavailable = "perf script: " + r.status().message();
    } else if (!r->success()) {
      m.unavailable = "perf script failed" + (r->timed_out ? std::string(" (timed out)") : "") +
                      ": " + FirstLine(r->err);
    } else {
      ProfileBuilder b({.window_start_ns = start_ns,
                        .window_end_ns = end_ns,
                        .frequency_hz = options_.frequency_hz,
                        .root_pid = postmaster_pid_});
      const Status s = ParsePerfScript(
          r->out, "perf script output", [&b](const Sample& x) { b.Add(x); },
          [&b](const TaskEvent& e) { b.AddTask(e); });
      if (!s.ok()) {
        m.unavailable = s.message();
      } else {
        m.profile = b.Finish();
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

std::optional<std::string> HardwareCountersUnavailable() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    close(static_cast<int>(fd));
    return std::nullopt;
  }
  const int e = errno;
  if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV) {
    return std::string(
        "this machine exposes no hardware counters to perf (a virtual machine without a "
        "virtual PMU, or a CPU perf does not know)");
  }
  if (e == EACCES || e == EPERM) {
    return std::string(
        "not allowed to open hardware counters (kernel.perf_event_paranoid; run as root or "
        "with CAP_PERFMON)");
  }
  return std::string("perf_event_open: ") + std::strerror(e);
}

}  // namespace pgrig::profile
