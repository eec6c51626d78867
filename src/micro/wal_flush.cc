#include "micro/wal_flush.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "common/clock.h"
#include "common/enum_names.h"

namespace pgrig::micro {

namespace {

constexpr int64_t kTmpfsMagic = 0x01021994;
constexpr int64_t kRamfsMagic = 0x858458f6;
constexpr size_t kAlign = 4096;

std::string Errno(int e) { return std::strerror(e); }

// Removes the test file when it goes out of scope, whatever happened.
class FileGuard {
 public:
  explicit FileGuard(std::string path) : path_(std::move(path)) {}
  ~FileGuard() { unlink(path_.c_str()); }
  FileGuard(const FileGuard&) = delete;
  FileGuard& operator=(const FileGuard&) = delete;

 private:
  std::string path_;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&&) = delete;
  Fd(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

std::unique_ptr<char, AlignedFree> AlignedBuffer(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, bytes) != 0) return nullptr;
  std::memset(p, 0x5a, bytes);
  return std::unique_ptr<char, AlignedFree>(static_cast<char*>(p));
}

Status Preallocate(const std::string& path) {
  Fd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    const int e = errno;
    if (e == EACCES || e == EPERM || e == EROFS) {
      return PermissionDenied(
          fmt::format("cannot create {}: {}; give a directory you can write", path, Errno(e)));
    }
    return FailedPrecondition(fmt::format("cannot create {}: {}", path, Errno(e)));
  }
  auto buf = AlignedBuffer(1 << 20);
  if (!buf) return ResourceExhausted("no memory for a 1 MB buffer");
  for (int64_t off = 0; off < kFsyncFileBytes; off += 1 << 20) {
    if (pwrite(fd.get(), buf.get(), 1 << 20, off) != (1 << 20)) {
      const int e = errno;
      return e == ENOSPC ? ResourceExhausted(fmt::format("{}: the file system is full", path))
                         : FailedPrecondition(fmt::format("writing {}: {}", path, Errno(e)));
    }
  }
  if (fsync(fd.get()) != 0)
    return FailedPrecondition(fmt::format("fsync {}: {}", path, Errno(errno)));
  return Status::Ok();
}

int OpenFlags(SyncMethod m, DirectIo d) {
  int flags = O_WRONLY | O_CLOEXEC;
  if (m == SyncMethod::kOpenDatasync) flags |= O_DSYNC;
  if (m == SyncMethod::kOpenSync) flags |= O_SYNC;
  if (d == DirectIo::kOn) flags |= O_DIRECT;
  return flags;
}

struct WriterOutcome {
  int64_t ops = 0;
  stats::Histogram latency;
  Status status;
};

void Writer(int fd, SyncMethod m, int write_bytes, int64_t region_start, int64_t region_bytes,
            int64_t deadline_ns, const std::atomic<bool>* stop, WriterOutcome* out) {
  auto buf = AlignedBuffer(static_cast<size_t>(write_bytes));
  if (!buf) {
    out->status = ResourceExhausted("no memory for the write buffer");
    return;
  }
  int64_t off = 0;
  // Bounded by time and by a count far above what any device does.
  for (int64_t i = 0; i < (int64_t{1} << 32); ++i) {
    if (MonotonicNanos() >= deadline_ns) break;
    if (stop && stop->load(std::memory_order_relaxed)) break;
    const int64_t t0 = MonotonicNanos();
    if (pwrite(fd, buf.get(), static_cast<size_t>(write_bytes), region_start + off) !=
        write_bytes) {
      out->status = FailedPrecondition(fmt::format("write: {}", Errno(errno)));
      return;
    }
    int rc = 0;
    if (m == SyncMethod::kFdatasync) rc = fdatasync(fd);
    if (m == SyncMethod::kFsync) rc = fsync(fd);
    if (rc != 0) {
      out->status = FailedPrecondition(fmt::format("flush: {}", Errno(errno)));
      return;
    }
    out->latency.Record(MonotonicNanos() - t0);
    ++out->ops;
    off += write_bytes;
    if (off + write_bytes > region_bytes) off = 0;
  }
}

// One sample of `t`: its writers for `seconds`; adds to t's totals and
// appends the sample's rate.
Status RunOne(const std::string& path, const FsyncOptions& o, double seconds, FlushTest* t) {
  std::vector<Fd> fds;
  for (int w = 0; w < t->writers; ++w) {
    Fd fd(open(path.c_str(), OpenFlags(t->method, t->direct)));
    if (fd.get() < 0) {
      const int e = errno;
      if (t->direct == DirectIo::kOn && e == EINVAL) {
        t->unavailable = "the file system does not allow O_DIRECT";
        return Status::Ok();
      }
      return FailedPrecondition(fmt::format("opening {} for {}: {}", path, t->Label(), Errno(e)));
    }
    fds.push_back(std::move(fd));
  }
  const int64_t region =
      (kFsyncFileBytes / t->writers) / static_cast<int64_t>(kAlign) * static_cast<int64_t>(kAlign);
  if (region < t->write_bytes) {
    t->unavailable = "too many writers for the 16 MB file at this write size";
    return Status::Ok();
  }
  std::vector<WriterOutcome> outs(static_cast<size_t>(t->writers));
  const int64_t start = MonotonicNanos();
  const int64_t deadline = start + static_cast<int64_t>(seconds * 1e9);
  {
    std::vector<std::thread> threads;
    for (int w = 0; w < t->writers; ++w) {
      threads.emplace_back(Writer, fds[static_cast<size_t>(w)].get(), t->method, t->write_bytes,
                           region * w, region, deadline, o.stop_requested,
                           &outs[static_cast<size_t>(w)]);
    }
    for (auto& th : threads) th.join();
  }
  const double took = static_cast<double>(MonotonicNanos() - start) / 1e9;
  int64_t ops = 0;
  for (auto& w : outs) {
    if (!w.status.ok()) {
      if (t->direct == DirectIo::kOn &&
          w.status.message().find("Invalid argument") != std::string::npos) {
        t->unavailable = "the file system refused an O_DIRECT write";
        return Status::Ok();
      }
      return w.status.WithContext(fmt::format("{} on {}", t->Label(), path));
    }
    ops += w.ops;
    t->latency.Add(w.latency);
  }
  t->ops += ops;
  t->seconds += took;
  if (took > 0) t->sample_ops_per_s.push_back(static_cast<double>(ops) / took);
  return Status::Ok();
}

}  // namespace

constexpr const char* kSyncMethodNames[] = {"fdatasync", "fsync", "open_datasync", "open_sync"};

const char* SyncMethodName(SyncMethod m) {
  return NameAt<SyncMethod::kOpenSync>(m, kSyncMethodNames);
}

std::optional<SyncMethod> ParseSyncMethod(std::string_view name) {
  return ValueAt<SyncMethod::kOpenSync>(name, kSyncMethodNames);
}

std::vector<SyncMethod> PlatformSyncMethods() {
  return {SyncMethod::kOpenDatasync, SyncMethod::kFdatasync, SyncMethod::kFsync,
          SyncMethod::kOpenSync};
}

std::string FlushTest::Label() const {
  return std::string(SyncMethodName(method)) + (direct == DirectIo::kOn ? "+O_DIRECT" : "");
}

bool IsMemoryFileSystem(int64_t f_type) { return f_type == kTmpfsMagic || f_type == kRamfsMagic; }

Status ValidateFsync(const FsyncOptions& o) {
  if (!(o.seconds_per_test > 0) || o.seconds_per_test > kMaxFsyncSeconds) {
    return InvalidArgument(
        fmt::format("--seconds {} is out of range: give more than 0 and at most {:.0f} per test",
                    o.seconds_per_test, kMaxFsyncSeconds));
  }
  if (o.samples < 1 || o.samples > 100 || o.seconds_per_test / o.samples < 0.01) {
    return InvalidArgument(fmt::format(
        "--samples {} is out of range: give 1 to 100, and at most one per 10 ms of --seconds "
        "({})",
        o.samples, o.seconds_per_test));
  }
  if (o.write_sizes.empty() || o.writers.empty()) {
    return InvalidArgument("give at least one write size and one writer count");
  }
  for (int s : o.write_sizes) {
    if (s < 512 || s > (1 << 20) || s % 512 != 0) {
      return InvalidArgument(fmt::format(
          "write size {} is out of range: give a multiple of 512 from 512 to 1048576 bytes", s));
    }
  }
  for (int w : o.writers) {
    if (w < 1 || w > kMaxFsyncWriters) {
      return InvalidArgument(
          fmt::format("{} writers is out of range: give 1 to {}", w, kMaxFsyncWriters));
    }
  }
  if (o.dir.empty()) return InvalidArgument("no directory to test; give a PATH");
  struct stat st {};
  if (stat(o.dir.c_str(), &st) != 0) {
    return NotFound(fmt::format("{}: {}; give an existing directory on the device to test", o.dir,
                                Errno(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument(
        fmt::format("{} is not a directory; give the directory to test in", o.dir));
  }
  if (access(o.dir.c_str(), W_OK | X_OK) != 0) {
    return PermissionDenied(
        fmt::format("cannot write in {}: {}; give a directory you can write", o.dir, Errno(errno)));
  }
  struct statfs sf {};
  if (statfs(o.dir.c_str(), &sf) == 0 && IsMemoryFileSystem(static_cast<int64_t>(sf.f_type)) &&
      o.tmpfs == TmpfsPolicy::kRefuse) {
    return FailedPrecondition(fmt::format(
        "{} is on a memory file system (tmpfs/ramfs): a flush there writes nothing to a device, "
        "so its figures mean nothing; give a directory on the storage to test (or --allow-tmpfs)",
        o.dir));
  }
  return Status::Ok();
}

Result<FsyncResult> RunFsync(const FsyncOptions& o) {
  PGRIG_RETURN_IF_ERROR(ValidateFsync(o));
  FsyncResult r;
  r.dir = o.dir;
  struct statfs sf {};
  if (statfs(o.dir.c_str(), &sf) == 0) {
    r.filesystem_magic = fmt::format("0x{:x}", static_cast<uint64_t>(sf.f_type));
    r.tmpfs = IsMemoryFileSystem(static_cast<int64_t>(sf.f_type));
  }
  if (r.tmpfs) {
    r.notes.push_back("the directory is on tmpfs/ramfs: these figures measure memory, not storage");
  }
  const std::string path = fmt::format("{}/pgrig-fsync.{}.tmp", o.dir, getpid());
  r.start_wall_s = WallSeconds();
  {
    FileGuard guard(path);
    PGRIG_RETURN_IF_ERROR(Preallocate(path));
    std::vector<FlushTest> specs;
    for (SyncMethod m : PlatformSyncMethods()) {
      for (int size : o.write_sizes) {
        for (int writers : o.writers) {
          specs.push_back(FlushTest{.method = m, .write_bytes = size, .writers = writers});
        }
      }
    }
    for (int size : o.write_sizes) {
      for (int writers : o.writers) {
        specs.push_back(FlushTest{.method = SyncMethod::kOpenDatasync,
                                  .direct = DirectIo::kOn,
                                  .write_bytes = size,
                                  .writers = writers});
      }
    }
    // Round after round, every test once per round: a device that drifts
    // (a cache filling, a neighbour) moves every method alike.
    const double per_sample = o.seconds_per_test / o.samples;
    for (int round = 0; round < o.samples && !r.interrupted; ++round) {
      for (auto& t : specs) {
        if (o.stop_requested && o.stop_requested->load()) {
          r.interrupted = true;
          break;
        }
        if (t.unavailable) continue;
        if (o.on_note) {
          o.on_note(fmt::format("{}: {} bytes, {} writer(s), sample {} of {}", t.Label(),
                                t.write_bytes, t.writers, round + 1, o.samples));
        }
        PGRIG_RETURN_IF_ERROR(RunOne(path, o, per_sample, &t));
      }
    }
    for (auto& t : specs) {
      if (t.unavailable || !t.sample_ops_per_s.empty()) r.tests.push_back(std::move(t));
    }
    if (o.stop_requested && o.stop_requested->load()) r.interrupted = true;
  }
  r.end_wall_s = WallSeconds();
  return r;
}

const FlushTest* HeadlineTest(const FsyncResult& r, SyncMethod method) {
  const FlushTest* best = nullptr;
  for (const auto& t : r.tests) {
    if (t.method != method || t.direct == DirectIo::kOn || t.unavailable || t.ops == 0) continue;
    if (!best || t.writers < best->writers ||
        (t.writers == best->writers && t.write_bytes < best->write_bytes)) {
      best = &t;
    }
  }
  return best;
}

double GeometricMeanOpsPerS(const FlushTest& t) {
  if (t.sample_ops_per_s.empty()) return t.ops_per_s();
  double log_sum = 0;
  for (double v : t.sample_ops_per_s) log_sum += std::log(std::max(v, 1e-9));
  return std::exp(log_sum / static_cast<double>(t.sample_ops_per_s.size()));
}

double MedianOpsPerS(const FlushTest& t) {
  if (t.sample_ops_per_s.empty()) return t.ops_per_s();
  std::vector<double> v = t.sample_ops_per_s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

BestMethodChoice ChooseBestMethod(const FsyncResult& r) {
  BestMethodChoice c;
  const FlushTest* top = nullptr;
  for (SyncMethod m : PlatformSyncMethods()) {
    const FlushTest* t = HeadlineTest(r, m);
    if (t && (!top || GeometricMeanOpsPerS(*t) > GeometricMeanOpsPerS(*top))) top = t;
  }
  if (!top) return c;
  c.leader = top->method;
  // The leader is the best only when it beats every other method
  // significantly (a 95% interval of the ratio of geometric means above 1).
  bool significant = true;
  double runner_up_low = 0;
  for (SyncMethod m : PlatformSyncMethods()) {
    const FlushTest* t = HeadlineTest(r, m);
    if (!t || t == top) continue;
    auto ratio = stats::CompareRatio(top->sample_ops_per_s, t->sample_ops_per_s);
    if (!ratio.ok() || !ratio->ratio) {
      significant = false;
      continue;
    }
    // The runner-up is the method the leader is least surely ahead of: the
    // lowest bound of the ratio's interval (the ratio itself without one).
    const double low = ratio->interval ? ratio->interval->low : *ratio->ratio;
    if (!c.runner_up || low < runner_up_low) {
      c.runner_up = m;
      c.over_runner_up = ratio->ratio;
      c.over_runner_up_interval = ratio->interval;
      runner_up_low = low;
    }
    if (ratio->verdict != stats::Verdict::kHigher) significant = false;
  }
  if (significant) c.best = c.leader;
  return c;
}

std::optional<SyncMethod> BestMethod(const FsyncResult& r) { return ChooseBestMethod(r).best; }

}  // namespace pgrig::micro
