#include "host/server_cpu.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace pgrig::host {
namespace {

namespace fs = std::filesystem;

double TicksPerSecond() {
  const long t = sysconf(_SC_CLK_TCK);
  return t > 0 ? static_cast<double>(t) : 100.0;
}

bool ReadWhole(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

bool IsDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Live children of `pid`: /proc/<pid>/task/*/children, or (kernels without
// CONFIG_PROC_CHILDREN) every process whose ppid is `pid`.
std::vector<int> Children(const std::string& root, int pid) {
  std::vector<int> kids;
  std::error_code ec;
  const fs::path task = fs::path(root) / std::to_string(pid) / "task";
  bool have_children_file = false;
  for (fs::directory_iterator it(task, ec), end; !ec && it != end; it.increment(ec)) {
    std::string text;
    if (!ReadWhole((it->path() / "children").string(), &text)) continue;
    have_children_file = true;
    std::istringstream in(text);
    int k = 0;
    while (in >> k) kids.push_back(k);
  }
  if (have_children_file) return kids;
  ec.clear();
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!IsDigits(name)) continue;
    auto st = ReadProcStat(root, std::stoi(name));
    if (st.ok() && st->ppid == pid) kids.push_back(std::stoi(name));
  }
  return kids;
}

}  // namespace

std::vector<int> LiveChildrenOf(const std::string& proc_root, int pid) {
  return Children(proc_root, pid);
}

Result<ProcStat> ReadProcStat(const std::string& proc_root, int pid) {
  const std::string path = proc_root + "/" + std::to_string(pid) + "/stat";
  std::string s;
  if (!ReadWhole(path, &s)) return NotFound(path + ": no such process here");
  // comm is in parentheses and may itself hold ')' or spaces: cut at the last ')'.
  const size_t open = s.find('(');
  const size_t close = s.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return InvalidArgument(path + ": not a /proc stat line");
  ProcStat st;
  st.comm = s.substr(open + 1, close - open - 1);
  std::istringstream in(s.substr(close + 1));
  // Fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt cminflt
  // majflt cmajflt utime stime cutime cstime priority nice num_threads
  // itrealvalue starttime.
  std::string skip;
  in >> st.state >> st.ppid;
  for (int i = 0; i < 9; ++i) in >> skip;
  in >> st.utime >> st.stime >> st.cutime >> st.cstime;
  for (int i = 0; i < 4; ++i) in >> skip;
  in >> st.starttime;
  if (!in) return InvalidArgument(path + ": not a /proc stat line");
  return st;
}

Result<ServerCpuMeter> ServerCpuMeter::ForProcess(int pid, ServerCpuOptions options) {
  PGRIG_RETURN_IF_ERROR(ReadProcStat(options.proc_root, pid).status());
  return ServerCpuMeter(pid, std::move(options));
}

Result<ProcStat> ServerCpuMeter::Stat() const { return ReadProcStat(options_.proc_root, pid_); }

Result<ServerCpuSnapshot> ServerCpuMeter::Snapshot() const {
  const std::string& root = options_.proc_root;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    PGRIG_ASSIGN_OR_RETURN(ProcStat parent, ReadProcStat(root, pid_));
    const std::vector<int> kids = Children(root, pid_);
    int64_t user = parent.utime + parent.cutime;
    int64_t sys = parent.stime + parent.cstime;
    int live = 0;
    for (int k : kids) {
      auto st = ReadProcStat(root, k);
      if (!st.ok()) continue;  // gone meanwhile: the re-read below catches it
      ++live;
      user += st->utime + st->cutime;
      sys += st->stime + st->cstime;
    }
    PGRIG_ASSIGN_OR_RETURN(ProcStat again, ReadProcStat(root, pid_));
    if (again.cutime == parent.cutime && again.cstime == parent.cstime) {
      const double tick = TicksPerSecond();
      return ServerCpuSnapshot{.user_s = static_cast<double>(user) / tick,
                               .sys_s = static_cast<double>(sys) / tick,
                               .live_children = live};
    }
  }
  return Unavailable("server CPU: children of process " + std::to_string(pid_) +
                     " kept exiting during " + std::to_string(options_.max_attempts) +
                     " snapshots; retry on a quieter server");
}

Result<ServerCpuMeter::Settled> ServerCpuMeter::Settle(int live_before,
                                                       std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    PGRIG_ASSIGN_OR_RETURN(ServerCpuSnapshot snap, Snapshot());
    if (snap.live_children <= live_before) return Settled{.snapshot = snap, .settled = true};
    if (std::chrono::steady_clock::now() >= deadline)
      return Settled{.snapshot = snap, .settled = false};
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Result<int64_t> BootTicksNow(const std::string& proc_root) {
  std::string text;
  if (!ReadWhole(proc_root + "/uptime", &text))
    return NotFound(proc_root + "/uptime: cannot read the time since boot");
  std::istringstream in(text);
  double up_s = 0;
  if (!(in >> up_s)) return InvalidArgument(proc_root + "/uptime: not a number");
  return static_cast<int64_t>(up_s * TicksPerSecond());
}

}  // namespace pgrig::host
