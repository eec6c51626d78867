#include "micro/lio_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "common/clock.h"
#include "common/strings.h"

namespace pgrig::micro {

namespace {

constexpr int64_t kNs = 1000000000;
// Longest wait for every session to connect and warm up beyond warmup_s.
constexpr double kReadyTimeoutS = 120;

double Seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

// Shared state of one window: the coordinator and the session threads meet
// at two points (all ready; all done) under one mutex.
struct WindowSync {
  std::mutex mu;
  std::condition_variable cv;
  int ready = 0;
  int done = 0;
  bool go = false;
  std::atomic<bool> abort{false};  // also read by warming sessions without the lock
  int64_t deadline_ns = 0;
  Status first_error;

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    if (first_error.ok()) first_error = s;
    abort = true;
    cv.notify_all();
  }
};

struct SessionPlan {
  int session = 0;
  int table = 0;
  int64_t blocks = 0;
  uint64_t seed = 0;
};

class Session {
 public:
  Session(const LioRunOptions& o, const SessionPlan& p, bool flush_stats, WindowSync* sync)
      : o_(o), p_(p), flush_stats_(flush_stats), sync_(sync), rng_(p.seed) {
    result_.session = p.session;
    result_.table = p.table;
  }

  void Run(int64_t warm_until_ns) {
    Status s = Prepare();
    if (s.ok()) s = Warm(warm_until_ns);
    if (s.ok() && flush_stats_) s = FlushSessionStats(conn_);
    if (!s.ok()) {
      sync_->Fail(s.WithContext(
          fmt::format("lio session {} on {}", p_.session + 1, LioQualifiedName(p_.table))));
      return;
    }
    int64_t deadline = 0;
    {
      std::unique_lock<std::mutex> lock(sync_->mu);
      ++sync_->ready;
      sync_->cv.notify_all();
      sync_->cv.wait(lock, [&] { return sync_->go || sync_->abort; });
      if (sync_->abort) return;
      deadline = sync_->deadline_ns;
    }
    s = Loop(deadline);
    if (s.ok() && flush_stats_) s = FlushSessionStats(conn_);
    if (!s.ok()) {
      sync_->Fail(s.WithContext(fmt::format("lio session {}", p_.session + 1)));
      return;
    }
    std::lock_guard<std::mutex> lock(sync_->mu);
    ++sync_->done;
    sync_->cv.notify_all();
  }

  LioSessionResult& result() { return result_; }

 private:
  Status Prepare() {
    PGRIG_ASSIGN_OR_RETURN(conn_, pg::Connect(o_.target));
    PGRIG_RETURN_IF_ERROR(
        conn_
            .Exec("SET enable_seqscan = off; SET enable_bitmapscan = off; SET jit = off;"
                  " SET plan_cache_mode = force_generic_plan")
            .status());
    if (o_.driver == LioDriver::kServer) return Status::Ok();
    PGRIG_RETURN_IF_ERROR(PrepareOne("lio_select", LioSelectRangeSql(p_.table, o_.work_unit)));
    if (o_.update_pct > 0) {
      PGRIG_RETURN_IF_ERROR(
          PrepareOne("lio_update", LioUpdateRangeSql(p_.table, o_.update_work_unit)));
    }
    return Status::Ok();
  }

  Status PrepareOne(const char* name, const std::string& sql) {
    pg::QueryResult r(PQprepare(conn_.raw(), name, sql.c_str(), 1, nullptr));
    if (PQresultStatus(r.raw()) != PGRES_COMMAND_OK) {
      return RuntimeError(fmt::format("preparing {}: {}", name, PQerrorMessage(conn_.raw())));
    }
    return Status::Ok();
  }

  // One range; adds to the counters only when `count` (the window).
  Status OneRange(bool count) {
    const bool update = o_.update_pct > 0 && static_cast<int>(rng_() % 100) < o_.update_pct;
    const int wu = update ? o_.update_work_unit : o_.work_unit;
    const int64_t first = static_cast<int64_t>(rng_() % static_cast<uint64_t>(p_.blocks - wu + 1));
    const std::string key = std::to_string(first);
    const char* values[1] = {key.c_str()};
    const int64_t t0 = MonotonicNanos();
    pg::QueryResult r(PQexecPrepared(conn_.raw(), update ? "lio_update" : "lio_select", 1, values,
                                     nullptr, nullptr, 0));
    const int64_t t1 = MonotonicNanos();
    const ExecStatusType st = PQresultStatus(r.raw());
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      return RuntimeError(fmt::format("range at key {}: {}", first, PQerrorMessage(conn_.raw())));
    }
    if (!count) return Status::Ok();
    if (update) {
      ++result_.updates;
      result_.updated_rows += r.AffectedRows();
      result_.update_latency.Record(t1 - t0);
    } else {
      ++result_.ranges;
      result_.rows += r.rows() == 1 ? ParseInt64(r.Get(0, 0)).value_or(0) : 0;
      result_.latency.Record(t1 - t0);
    }
    return Status::Ok();
  }

  bool Stopping() const {
    return (o_.stop_requested && o_.stop_requested->load(std::memory_order_relaxed));
  }

  // The server-side loop for `seconds`; adds its counts when `count`.
  Status ServerLoop(double seconds, bool count) {
    const std::vector<std::string> params = {
        std::to_string(o_.work_unit), std::to_string(o_.update_work_unit),
        std::to_string(o_.update_pct), std::to_string(p_.blocks), fmt::format("{:.6f}", seconds)};
    PGRIG_ASSIGN_OR_RETURN(pg::QueryResult r, conn_.ExecParams(LioLoopCallSql(p_.table), params));
    if (r.rows() != 1) return Internal("the lio loop function returned no row");
    if (count) {
      result_.ranges += ParseInt64(r.Get(0, 0)).value_or(0);
      result_.rows += ParseInt64(r.Get(0, 1)).value_or(0);
      result_.updates += ParseInt64(r.Get(0, 2)).value_or(0);
      result_.updated_rows += ParseInt64(r.Get(0, 3)).value_or(0);
    }
    return Status::Ok();
  }

  Status Warm(int64_t until_ns) {
    if (o_.driver == LioDriver::kServer) {
      return ServerLoop(std::max(0.001, Seconds(until_ns - MonotonicNanos())), false);
    }
    // At least one range, so that the plan is cached and the session's
    // catalog caches are warm before the window.
    do {
      PGRIG_RETURN_IF_ERROR(OneRange(false));
    } while (MonotonicNanos() < until_ns && !Stopping() && !sync_->abort);
    return Status::Ok();
  }

  Status Loop(int64_t deadline_ns) {
    if (o_.driver == LioDriver::kServer) {
      // Ctrl-C cannot reach inside the call; the window is bounded by --duration.
      return ServerLoop(std::max(0.0, Seconds(deadline_ns - MonotonicNanos())), true);
    }
    while (MonotonicNanos() < deadline_ns && !Stopping()) {
      PGRIG_RETURN_IF_ERROR(OneRange(true));
    }
    return Status::Ok();
  }

  const LioRunOptions& o_;
  SessionPlan p_;
  bool flush_stats_;
  WindowSync* sync_;
  std::mt19937_64 rng_;
  pg::Connection conn_;
  LioSessionResult result_;
};

Result<LioWindow> RunWindow(const LioRunOptions& o, pg::Connection& coord,
                            const std::vector<LioTableInfo>& tables, int total_sessions, bool exact,
                            uint64_t seed, double duration_s) {
  WindowSync sync;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < total_sessions; ++i) {
    const LioTableInfo& t = tables[static_cast<size_t>(i) % tables.size()];
    SessionPlan p{.session = i,
                  .table = t.table,
                  .blocks = t.blocks,
                  .seed = seed * 1000003 + static_cast<uint64_t>(i)};
    sessions.push_back(std::make_unique<Session>(o, p, exact, &sync));
  }
  const int64_t warm_until = MonotonicNanos() + static_cast<int64_t>(o.warmup_s * kNs);
  std::vector<std::thread> threads;
  threads.reserve(sessions.size());
  for (auto& s : sessions) threads.emplace_back([&s, warm_until] { s->Run(warm_until); });
  auto join_all = [&] {
    for (auto& th : threads) th.join();
  };

  LioWindow w;
  w.sessions = total_sessions;
  Status st;
  {
    std::unique_lock<std::mutex> lock(sync.mu);
    const auto limit = std::chrono::steady_clock::now() +
                       std::chrono::duration<double>(o.warmup_s + kReadyTimeoutS);
    bool all =
        sync.cv.wait_until(lock, limit, [&] { return sync.ready == total_sessions || sync.abort; });
    if (!all) {
      sync.abort = true;
      sync.first_error =
          Unavailable(fmt::format("only {} of {} sessions were connected and warm after {:.0f} s",
                                  sync.ready, total_sessions, o.warmup_s + kReadyTimeoutS));
    }
    if (sync.abort) {
      sync.cv.notify_all();
      st = sync.first_error;
    }
  }
  if (!st.ok()) {
    join_all();
    return st;
  }
  if (!exact) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  auto start = ReadDbCounters(coord);
  if (!start.ok()) {
    sync.Fail(start.status());
    join_all();
    return start.status();
  }
  w.start = *start;
  const int64_t go_ns = MonotonicNanos();
  {
    std::lock_guard<std::mutex> lock(sync.mu);
    sync.deadline_ns = go_ns + static_cast<int64_t>(duration_s * kNs);
    sync.go = true;
    sync.cv.notify_all();
  }
  join_all();
  const int64_t end_ns = MonotonicNanos();
  if (!sync.first_error.ok()) return sync.first_error;
  if (!exact) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  PGRIG_ASSIGN_OR_RETURN(w.end, ReadDbCounters(coord));
  PGRIG_ASSIGN_OR_RETURN(w.delta, Subtract(w.start, w.end));
  w.window_s = Seconds(end_ns - go_ns);
  w.interrupted = o.stop_requested && o.stop_requested->load();
  for (auto& s : sessions) {
    const LioSessionResult& r = s->result();
    w.ranges += r.ranges;
    w.updates += r.updates;
    w.rows += r.rows;
    w.updated_rows += r.updated_rows;
    w.latency.Add(s->result().latency);
    w.update_latency.Add(s->result().update_latency);
    w.per_session.push_back(std::move(s->result()));
  }
  return w;
}

}  // namespace

const char* LioDriverName(LioDriver d) { return d == LioDriver::kServer ? "server" : "client"; }

Status ValidateLioRun(const LioRunOptions& o) {
  if (o.sessions_per_table < 1 || o.sessions_per_table > kMaxLioSessions) {
    return InvalidArgument(fmt::format("--sessions {} is out of range: give 1 to {} per table",
                                       o.sessions_per_table, kMaxLioSessions));
  }
  if (o.total_sessions && (*o.total_sessions < 1 || *o.total_sessions > kMaxLioSessions)) {
    return InvalidArgument(fmt::format("{} sessions is out of range: give 1 to {} in total",
                                       *o.total_sessions, kMaxLioSessions));
  }
  if (!(o.duration_s > 0) || o.duration_s > kMaxLioDurationS) {
    return InvalidArgument(
        fmt::format("--duration {} is out of range: give more than 0 and at most {:.0f} seconds",
                    o.duration_s, kMaxLioDurationS));
  }
  if (!(o.warmup_s >= 0) || o.warmup_s > 3600) {
    return InvalidArgument(
        fmt::format("--warmup {} is out of range: give 0 to 3600 seconds", o.warmup_s));
  }
  if (o.work_unit < 1 || o.work_unit > 1000000) {
    return InvalidArgument(fmt::format(
        "--work-unit {} is out of range: give 1 to 1000000 blocks per range", o.work_unit));
  }
  if (o.update_pct < 0 || o.update_pct > 100) {
    return InvalidArgument(
        fmt::format("--update-pct {} is out of range: give 0 to 100", o.update_pct));
  }
  if (o.update_work_unit < 1 || o.update_work_unit > 1000000) {
    return InvalidArgument(fmt::format(
        "--update-work-unit {} is out of range: give 1 to 1000000 blocks", o.update_work_unit));
  }
  if (o.scaling == LioScaling::kOn &&
      (o.max_scaling_sessions < 1 || o.max_scaling_sessions > kMaxLioSessions)) {
    return InvalidArgument(fmt::format("scaling up to {} sessions is out of range: 1 to {}",
                                       o.max_scaling_sessions, kMaxLioSessions));
  }
  return Status::Ok();
}

std::vector<int> ScalingSteps(int max_sessions) {
  std::vector<int> out;
  if (max_sessions <= 8) {
    for (int i = 1; i <= max_sessions; ++i) out.push_back(i);
    return out;
  }
  for (int i = 1; i < max_sessions; i *= 2) out.push_back(i);
  out.push_back(max_sessions);
  return out;
}

Result<DbCounters> ReadDbCounters(pg::Connection& conn) {
  PGRIG_ASSIGN_OR_RETURN(pg::QueryResult r, conn.Exec(DbCountersSql()));
  if (r.rows() != 1) return Internal("pg_stat_database has no row for this database");
  DbCounters c;
  int64_t* fields[] = {&c.blks_hit,     &c.blks_read,   &c.xact_commit,
                       &c.tup_returned, &c.tup_fetched, &c.tup_updated};
  for (int i = 0; i < 6; ++i) {
    auto v = ParseInt64(r.Get(0, i));
    if (!v) return Internal(fmt::format("pg_stat_database.{} is not an integer", r.ColumnName(i)));
    *fields[i] = *v;
  }
  c.at_s = Seconds(MonotonicNanos());
  return c;
}

Status FlushSessionStats(pg::Connection& conn) {
  if (conn.server_version() < 150000) return Status::Ok();
  // Twice: a flush moves the session's table counters into its pending
  // database entry, which may already have been written in that same
  // flush; the second one writes it (seen on 15.18 as ~10% of a range
  // missing after a single flush).
  PGRIG_RETURN_IF_ERROR(conn.Exec("SELECT pg_stat_force_next_flush()").status());
  return conn.Exec("SELECT pg_stat_force_next_flush()").status();
}

double ExpectedIndexBlocksPerRange(int64_t table_blocks, int64_t index_blocks, int work_unit) {
  if (index_blocks <= 1 || table_blocks <= 0) return 1;
  const double leaves = std::max(1.0, static_cast<double>(index_blocks - 1) * 364.0 / 365.0);
  const double per_leaf = static_cast<double>(table_blocks) / leaves;
  // Levels above the leaves: ceil(log_365(leaves)), at least the root when
  // the root is not itself the leaf.
  const double upper = leaves <= 1 ? 0 : std::ceil(std::log(leaves) / std::log(365.0));
  const double spanned = leaves <= 1 ? 1 : 1 + (work_unit - 1) / per_leaf;
  return upper + spanned;
}

Result<LioRunResult> RunLio(const LioRunOptions& o) {
  PGRIG_RETURN_IF_ERROR(ValidateLioRun(o));
  auto note = [&](const std::string& s) {
    if (o.on_note) o.on_note(s);
  };
  LioRunResult out;
  PGRIG_ASSIGN_OR_RETURN(pg::Connection coord, pg::Connect(o.target));
  out.server_version_num = coord.server_version();
  out.exact_counters = out.server_version_num >= 150000;
  if (!out.exact_counters) {
    out.notes.push_back(
        "PostgreSQL before 15 cannot flush a session's statistics on demand: the counters were "
        "read 1 s after each window edge and may be off by up to 0.5 s of work");
  }
  PGRIG_ASSIGN_OR_RETURN(out.tables, ReadLioTables(coord));
  for (const auto& t : out.tables) {
    const int wu = std::max(o.work_unit, o.update_pct > 0 ? o.update_work_unit : 1);
    if (t.blocks < wu) {
      return InvalidArgument(fmt::format(
          "--work-unit {} is larger than {} ({} blocks); use a smaller work unit or a larger "
          "--scale at init",
          wu, LioQualifiedName(t.table), t.blocks));
    }
  }
  out.seed = o.seed ? *o.seed : static_cast<uint64_t>(MonotonicNanos());
  if (o.driver == LioDriver::kServer) {
    for (const auto& t : out.tables) {
      PGRIG_RETURN_IF_ERROR(coord.Exec(LioLoopFunctionSql(t.table))
                                .status()
                                .WithContext("creating the server-side loop function"));
    }
    out.notes.push_back(
        "server-side loop (PL/pgSQL, PGIO's way): no round trip per range, no per-range "
        "latency; random() in the server draws the ranges, so --seed does not apply");
  }
  // Every table's blocks into shared_buffers before the first window.
  note(fmt::format("warming {} tables through their indexes", out.tables.size()));
  {
    std::vector<Status> errors(out.tables.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < out.tables.size(); ++i) {
      threads.emplace_back([&, i] {
        auto c = pg::Connect(o.target);
        if (!c.ok()) {
          errors[i] = c.status();
          return;
        }
        errors[i] = c->Exec("SET enable_seqscan = off; SET enable_bitmapscan = off; " +
                            LioWarmSql(out.tables[i].table))
                        .status();
        // Published now: a backend that exits publishes its counts when it
        // gets round to it, which could be inside the first window.
        if (errors[i].ok()) errors[i] = FlushSessionStats(*c);
      });
    }
    for (auto& th : threads) th.join();
    for (auto& e : errors) PGRIG_RETURN_IF_ERROR(e);
  }
  for (const auto& t : out.tables) {
    PGRIG_RETURN_IF_ERROR(VerifyOneRowPerBlock(coord, t.table, t.blocks));
  }
  // The checks read every block: publish those counts before any window.
  PGRIG_RETURN_IF_ERROR(FlushSessionStats(coord));

  const int sessions = o.total_sessions
                           ? *o.total_sessions
                           : o.sessions_per_table * static_cast<int>(out.tables.size());
  if (sessions > kMaxLioSessions) {
    return InvalidArgument(fmt::format(
        "{} tables x {} sessions per table = {} sessions, more than {}; use fewer --sessions",
        out.tables.size(), o.sessions_per_table, sessions, kMaxLioSessions));
  }
  if (o.total_sessions) {
    note(fmt::format("{} sessions over {} tables, {} s warm-up, {} s window", sessions,
                     out.tables.size(), o.warmup_s, o.duration_s));
  } else {
    note(fmt::format("{} sessions ({} per table), {} s warm-up, {} s window", sessions,
                     o.sessions_per_table, o.warmup_s, o.duration_s));
  }
  out.start_wall_s = WallSeconds();
  PGRIG_ASSIGN_OR_RETURN(out.main, RunWindow(o, coord, out.tables, sessions, out.exact_counters,
                                             out.seed, o.duration_s));
  out.interrupted = out.main.interrupted;
  if (o.scaling == LioScaling::kOn && !out.interrupted) {
    for (int n : ScalingSteps(o.max_scaling_sessions)) {
      note(fmt::format("scaling: {} sessions", n));
      PGRIG_ASSIGN_OR_RETURN(LioWindow w,
                             RunWindow(o, coord, out.tables, n, out.exact_counters,
                                       out.seed + static_cast<uint64_t>(n), o.duration_s));
      // Per-session detail of the scaling windows is summarised, not kept.
      w.per_session.clear();
      const bool stop = w.interrupted;
      out.scaling.push_back(std::move(w));
      if (stop) {
        out.interrupted = true;
        break;
      }
    }
  }
  out.end_wall_s = WallSeconds();
  // A few reads (catalog pages of other connections) are noise; more than
  // 0.1% of the logical reads means the tables did not stay in shared_buffers.
  if (out.main.delta.blks_read * 1000 > out.main.delta.logical_reads()) {
    out.notes.push_back(fmt::format(
        "{} blocks were read from outside shared_buffers during the window: those came from "
        "the OS page cache or the device (PostgreSQL cannot tell which), so the figure is not "
        "purely a shared-buffers walk; use smaller tables (--fit at init)",
        out.main.delta.blks_read));
  }
  return out;
}

}  // namespace pgrig::micro
