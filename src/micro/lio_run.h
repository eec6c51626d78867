// `pgrig lio run`: logical reads from shared buffers per second, the PGIO
// method driven from the client.
//
// Each session is one thread with one blocking libpq connection.  It
// prepares a range SELECT (and with update_pct an UPDATE) on its table,
// forces index scans (enable_seqscan and enable_bitmapscan off, so each
// range is the same plan: the index leaf pages, then one heap block per
// row), and loops: draw a random first key, run the range, record its
// latency.  The measured window starts when every session has connected,
// warmed up (run ranges for warmup_s) and flushed its statistics; the
// coordinator reads pg_stat_database of our database just before it
// releases the sessions and again after the last one has stopped and
// flushed (pg_stat_force_next_flush(), PostgreSQL 15+), so the counter
// delta covers the window exactly.  The sessions count what they did (ranges,
// rows: one row per block, so rows == heap blocks visited), which
// cross-checks the server's counters.
//
// RunLio() blocks; it joins every thread it starts before returning, also on
// errors and when *stop_requested becomes true (the window then ends early
// and the result says "interrupted").  Call it from one thread.
#ifndef PGRIG_MICRO_LIO_RUN_H_
#define PGRIG_MICRO_LIO_RUN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "micro/lio_load.h"
#include "micro/lio_schema.h"
#include "pg/connection.h"
#include "stats/histogram.h"

namespace pgrig::micro {

// Total sessions of one window (each keeps two 512 KiB histograms).
inline constexpr int kMaxLioSessions = 256;
inline constexpr double kMaxLioDurationS = 24 * 3600;

enum class LioScaling { kOff, kOn };
// Who runs the loop: pgrig's session threads (one round trip per range,
// each range timed) or a PL/pgSQL function per session (PGIO's way: no
// round trips, no per-range latency).  docs/lio.md compares them.
enum class LioDriver { kClient, kServer };
const char* LioDriverName(LioDriver d);  // "client", "server"

struct LioRunOptions {
  pg::ConnectionParams target;
  int sessions_per_table = 1;
  // When set, the main window runs this many sessions in total, spread over
  // the tables in turn (session i on table i mod N), instead of
  // sessions_per_table x tables (`pgrig run` plans: a cell's session count).
  std::optional<int> total_sessions;
  double duration_s = 10;        // the measured window
  double warmup_s = 1;           // per window, not counted
  int work_unit = 255;           // blocks per range SELECT
  int update_pct = 0;            // 0..100: share of ranges that are UPDATEs
  int update_work_unit = 8;      // blocks per range UPDATE
  std::optional<uint64_t> seed;  // nullopt: from the clock
  // kOn: after the main window, one window per total session count in
  // ScalingSteps(max_scaling_sessions), sessions spread over the tables.
  LioScaling scaling = LioScaling::kOff;
  LioDriver driver = LioDriver::kClient;
  int max_scaling_sessions = 2;  // the caller passes 2 x CPUs
  std::function<void(const std::string&)> on_note;
  const std::atomic<bool>* stop_requested = nullptr;
};

// Checks ranges and combinations without touching anything.
Status ValidateLioRun(const LioRunOptions& options);

// 1, 2, 3, ... max when max <= 8; otherwise 1, 2, 4, 8, ... and max.
std::vector<int> ScalingSteps(int max_sessions);

struct LioSessionResult {
  int session = 0;  // 0-based
  int table = 0;    // 1-based
  int64_t ranges = 0;
  int64_t updates = 0;
  int64_t rows = 0;  // rows the SELECTs returned (== heap blocks visited)
  int64_t updated_rows = 0;
  stats::Histogram latency;         // SELECT ranges
  stats::Histogram update_latency;  // UPDATE ranges
};

struct LioWindow {
  int sessions = 0;
  double window_s = 0;  // release of the sessions to the end of the last range
  DbCounters start, end;
  CounterDelta delta;
  std::vector<LioSessionResult> per_session;
  stats::Histogram latency;         // merged
  stats::Histogram update_latency;  // merged
  bool interrupted = false;
  // Sums over the sessions (kept when per_session is dropped).
  int64_t ranges = 0;
  int64_t updates = 0;
  int64_t rows = 0;
  int64_t updated_rows = 0;
};

struct LioRunResult {
  std::vector<LioTableInfo> tables;
  int server_version_num = 0;
  bool exact_counters = true;  // false before PostgreSQL 15 (no forced stats flush)
  uint64_t seed = 0;
  double start_wall_s = 0, end_wall_s = 0;
  LioWindow main;
  std::vector<LioWindow> scaling;
  bool interrupted = false;
  std::vector<std::string> notes;
};

// REQUIRES: ValidateLioRun(options).ok().  Fails before measuring when there
// are no lio tables, the work unit exceeds a table, or a session cannot
// connect; a failure of a session during the window fails the run.
Result<LioRunResult> RunLio(const LioRunOptions& options);

// Counter helpers, also used by the tests.
Result<DbCounters> ReadDbCounters(pg::Connection& conn);
// Makes the session's pending statistics visible now (PostgreSQL 15+; a
// no-op before).
Status FlushSessionStats(pg::Connection& conn);

// Index blocks a range of `work_unit` keys reads besides its heap blocks:
// the descent (root and inner levels) and the leaves the keys span.
double ExpectedIndexBlocksPerRange(int64_t table_blocks, int64_t index_blocks, int work_unit);

}  // namespace pgrig::micro

#endif  // PGRIG_MICRO_LIO_RUN_H_
