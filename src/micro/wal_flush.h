// `pgrig fsync`: how many flushes per second, and at what latency, the
// device under a directory does for each of PostgreSQL's wal_sync_method
// choices, as pg_test_fsync measures them, with pgrig's histograms.
//
// For every (method, write size, writer count) the test preallocates a
// 16 MB file (as a WAL segment is), then each writer thread, with its own
// descriptor, writes its part of the file sequentially, one write of
// write_bytes and the method's flush per operation, wrapping at the end of
// its part, for seconds_per_test.  Methods (Linux): fdatasync and fsync
// (write, then the call), open_datasync (O_DSYNC) and open_sync (O_SYNC);
// plus open_datasync with O_DIRECT, which PostgreSQL uses for WAL when
// wal_level is minimal, reported as "not allowed here" when the file
// system refuses O_DIRECT.  fsync_writethrough exists only on macOS and
// Windows.
//
// A directory on tmpfs or ramfs is refused unless TmpfsPolicy::kAllow: a
// flush there costs nothing and says nothing about storage.  The test
// file (DIR/pgrig-fsync.<pid>.tmp) is removed before RunFsync() returns, on
// success, failure and when *stop_requested turns true (SIGINT).
//
// RunFsync() blocks and joins its threads before returning; call it from one
// thread.
#ifndef PGRIG_MICRO_WAL_FLUSH_H_
#define PGRIG_MICRO_WAL_FLUSH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "stats/histogram.h"
#include "stats/summary.h"

namespace pgrig::micro {

enum class SyncMethod { kFdatasync, kFsync, kOpenDatasync, kOpenSync };
// PostgreSQL's names: "fdatasync", "fsync", "open_datasync", "open_sync".
const char* SyncMethodName(SyncMethod m);
std::optional<SyncMethod> ParseSyncMethod(std::string_view name);
// The methods PostgreSQL offers on this platform, in its documentation order.
std::vector<SyncMethod> PlatformSyncMethods();

enum class TmpfsPolicy { kRefuse, kAllow };
enum class DirectIo { kOff, kOn };

inline constexpr int64_t kFsyncFileBytes = 16 * 1024 * 1024;
inline constexpr double kMaxFsyncSeconds = 60;
inline constexpr int kMaxFsyncWriters = 64;

struct FsyncOptions {
  std::string dir;
  double seconds_per_test = 2;
  std::vector<int> write_sizes = {8192, 16384};
  std::vector<int> writers = {1, 4};
  // Each test is measured `samples` times, seconds_per_test / samples each,
  // in rounds (every test once per round), for an interval per method.
  int samples = 5;
  TmpfsPolicy tmpfs = TmpfsPolicy::kRefuse;
  std::function<void(const std::string&)> on_note;
  const std::atomic<bool>* stop_requested = nullptr;
};

struct FlushTest {
  SyncMethod method = SyncMethod::kFdatasync;
  DirectIo direct = DirectIo::kOff;
  int write_bytes = 8192;
  int writers = 1;
  int64_t ops = 0;
  double seconds = 0;
  stats::Histogram latency;                // write + flush, per operation, all samples
  std::vector<double> sample_ops_per_s;    // one per sample, in order
  std::optional<std::string> unavailable;  // why this combination could not run
  double ops_per_s() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
  std::string Label() const;  // "open_datasync+O_DIRECT"
};

struct FsyncResult {
  std::string dir;
  std::string filesystem_magic;  // statfs f_type in hex
  bool tmpfs = false;
  std::vector<FlushTest> tests;
  bool interrupted = false;
  double start_wall_s = 0, end_wall_s = 0;
  std::vector<std::string> notes;
};

// File-system type checks, without creating anything: dir exists, is a
// directory, is writable; tmpfs per policy.  The messages name the path.
Status ValidateFsync(const FsyncOptions& options);

// True when the statfs f_type is tmpfs or ramfs.
bool IsMemoryFileSystem(int64_t f_type);

Result<FsyncResult> RunFsync(const FsyncOptions& options);

// The median and the geometric mean of a test's samples' flushes per second
// (its overall rate when it has no samples).
double MedianOpsPerS(const FlushTest& t);
double GeometricMeanOpsPerS(const FlushTest& t);

// Which of PostgreSQL's methods (no O_DIRECT variant) is best, on the
// headline tests (HeadlineTest: single writer, smallest size): the leader
// has the highest geometric mean (the ratio CompareRatio reports is of
// geometric means, so the leader's is never below 1); it is the best only
// when its samples beat every
// other method's significantly (stats::CompareRatio, 95%, verdict higher).
struct BestMethodChoice {
  std::optional<SyncMethod> leader;
  std::optional<SyncMethod> best;  // the leader, when significantly best; else none
  // The method the leader is least surely ahead of (the lowest bound of the
  // ratio's interval).
  std::optional<SyncMethod> runner_up;
  std::optional<double> over_runner_up;  // leader / runner-up, geometric means
  std::optional<stats::Interval> over_runner_up_interval;
};
BestMethodChoice ChooseBestMethod(const FsyncResult& r);
// ChooseBestMethod(r).best.
std::optional<SyncMethod> BestMethod(const FsyncResult& r);
// The single-writer, smallest-size test of `method` without O_DIRECT.
const FlushTest* HeadlineTest(const FsyncResult& r, SyncMethod method);

}  // namespace pgrig::micro

#endif  // PGRIG_MICRO_WAL_FLUSH_H_
