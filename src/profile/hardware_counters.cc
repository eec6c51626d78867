// ProcessTreeCounters (profile/hardware_counters.h).
#include "profile/hardware_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "host/server_cpu.h"

namespace pgrig::profile {
namespace {

// Opens one counting event on `pid` (any CPU), disabled, inherited by the
// children it forks from now on; -1 with errno on failure.
int OpenCounter(const CounterEvent& e, int pid, bool kernel) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = e.type;
  attr.config = e.config;
  attr.disabled = 1;
  attr.inherit = 1;
  attr.exclude_hv = 1;
  attr.exclude_kernel = kernel ? 0 : 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// The event does not exist on this machine's PMU (or there is no PMU).
bool NotSupported(int err) { return err == ENOENT || err == EOPNOTSUPP || err == ENODEV; }
bool NotAllowed(int err) { return err == EACCES || err == EPERM; }

}  // namespace

std::vector<CounterEvent> HardwareEvents() {
  return {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
          {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
          {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
          {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
          {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
          {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES}};
}

std::string CounterOpenError(int err) {
  if (NotSupported(err)) {
    return "this machine exposes no hardware counters to perf_event_open (a virtual machine "
           "without a virtual PMU, or a CPU the kernel does not know)";
  }
  if (NotAllowed(err)) {
    return "not allowed to open hardware counters on the server's processes "
           "(kernel.perf_event_paranoid; run as root or with CAP_PERFMON)";
  }
  if (err == ESRCH) return "the server's postmaster is gone";
  return std::string("perf_event_open: ") + std::strerror(err);
}

std::optional<double> CounterValues::Count(const std::string& event) const {
  for (const CounterReading& r : readings) {
    if (r.event == event) return r.count;
  }
  return std::nullopt;
}

namespace {
std::optional<double> Ratio(const std::optional<double>& num, const std::optional<double>& den,
                            double scale) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return scale * *num / *den;
}
}  // namespace

std::optional<double> CounterValues::Ipc() const {
  return Ratio(Count("instructions"), Count("cycles"), 1.0);
}
std::optional<double> CounterValues::CacheMissPct() const {
  return Ratio(Count("cache-misses"), Count("cache-references"), 100.0);
}
std::optional<double> CounterValues::BranchMissPct() const {
  return Ratio(Count("branch-misses"), Count("branches"), 100.0);
}

ProcessTreeCounters ProcessTreeCounters::Unavailable(std::string reason) {
  ProcessTreeCounters c;
  c.unavailable_ = std::move(reason);
  return c;
}

ProcessTreeCounters ProcessTreeCounters::Open(int root_pid, const std::vector<CounterEvent>& events,
                                              const std::string& proc_root) {
  ProcessTreeCounters c;
  if (root_pid <= 0) return Unavailable("no server process to count");
  if (events.empty()) return Unavailable("no events asked for");
  c.events_ = events;
  c.fds_.resize(events.size());
  // The children first: one forked after this list is counted through the
  // root's inherited counter, and must not be opened a second time.
  const std::vector<int> children = host::LiveChildrenOf(proc_root, root_pid);

  // The root decides what this machine supports and allows: kernel time
  // included where perf_event_paranoid lets us, user space only otherwise.
  int first_error = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    int fd = OpenCounter(events[i], root_pid, c.kernel_);
    if (fd < 0 && NotAllowed(errno) && c.kernel_) {
      c.kernel_ = false;
      fd = OpenCounter(events[i], root_pid, false);
    }
    if (fd < 0) {
      const int err = errno;
      if (first_error == 0) first_error = err;
      if (NotSupported(err)) continue;  // this event only; the others may exist
      c.Close();
      return Unavailable(CounterOpenError(err));
    }
    c.fds_[i].push_back(fd);
  }
  bool any = false;
  for (const auto& v : c.fds_) any = any || !v.empty();
  if (!any) {
    c.Close();
    return Unavailable(CounterOpenError(first_error));
  }
  c.processes_ = 1;
  for (int pid : children) {
    bool opened = false;
    for (size_t i = 0; i < events.size(); ++i) {
      if (c.fds_[i].empty()) continue;  // not supported here
      const int fd = OpenCounter(events[i], pid, c.kernel_);
      if (fd < 0) break;  // exited since it was listed (ESRCH), or not ours to count
      c.fds_[i].push_back(fd);
      opened = true;
    }
    if (opened) ++c.processes_;
  }
  return c;
}

ProcessTreeCounters::ProcessTreeCounters(ProcessTreeCounters&& other) noexcept
    : events_(std::move(other.events_)),
      fds_(std::move(other.fds_)),
      kernel_(other.kernel_),
      processes_(other.processes_),
      unavailable_(std::move(other.unavailable_)) {
  other.fds_.clear();
}

ProcessTreeCounters& ProcessTreeCounters::operator=(ProcessTreeCounters&& other) noexcept {
  if (this != &other) {
    Close();
    events_ = std::move(other.events_);
    fds_ = std::move(other.fds_);
    kernel_ = other.kernel_;
    processes_ = other.processes_;
    unavailable_ = std::move(other.unavailable_);
    other.fds_.clear();
  }
  return *this;
}

ProcessTreeCounters::~ProcessTreeCounters() { Close(); }

void ProcessTreeCounters::Close() {
  for (auto& v : fds_) {
    for (int fd : v) close(fd);
    v.clear();
  }
}

void ProcessTreeCounters::Enable() {
  for (const auto& v : fds_) {
    for (int fd : v) ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
}

void ProcessTreeCounters::Disable() {
  for (const auto& v : fds_) {
    for (int fd : v) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  }
}

CounterMeasure ProcessTreeCounters::Read() const {
  CounterMeasure m;
  if (!unavailable_.empty() || fds_.empty()) {
    m.unavailable = unavailable_.empty() ? "no counters were opened" : unavailable_;
    return m;
  }
  CounterValues v;
  v.kernel = kernel_;
  v.processes = processes_;
  for (size_t i = 0; i < events_.size(); ++i) {
    CounterReading r{.event = events_[i].name};
    uint64_t value = 0, enabled = 0, running = 0;
    for (int fd : fds_[i]) {
      uint64_t buf[3] = {0, 0, 0};
      if (read(fd, buf, sizeof buf) != static_cast<ssize_t>(sizeof buf)) continue;
      value += buf[0];
      enabled += buf[1];
      running += buf[2];
    }
    // Never scheduled while enabled (or never enabled): no count, not zero.
    if (!fds_[i].empty() && running > 0 && enabled > 0) {
      const double scale =
          running < enabled ? static_cast<double>(enabled) / static_cast<double>(running) : 1.0;
      r.count = static_cast<double>(value) * scale;
      r.running_pct = 100.0 * static_cast<double>(running) / static_cast<double>(enabled);
    }
    v.readings.push_back(std::move(r));
  }
  m.values = std::move(v);
  return m;
}

}  // namespace pgrig::profile
