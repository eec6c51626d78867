// Server-side delta arithmetic, window totals and the Observation's summary
// and JSON, on constructed snapshots (the queries themselves are exercised
// against the real server in observe_itest.cc).
#include "observe/observe_server.h"

#include <gtest/gtest.h>

#include "observe/observation.h"

namespace pgrig::observe {
namespace {

ServerSnapshot Snap(int64_t ns, int64_t commits, int64_t wal, int64_t ckpt_req,
                    std::optional<int64_t> backend) {
  ServerSnapshot s;
  s.mono_ns = ns;
  s.db = DatabaseCounters{.xact_commit = commits,
                          .xact_rollback = commits / 100,
                          .blks_hit = commits * 10,
                          .blks_read = commits / 10,
                          .tup_returned = commits * 3,
                          .tup_fetched = commits * 2,
                          .tup_inserted = commits,
                          .tup_updated = commits * 3,
                          .tup_deleted = 0,
                          .temp_bytes = 8192,
                          .deadlocks = 1};
  s.bgwriter = BgwriterCounters{.checkpoints_timed = 5,
                                .checkpoints_req = ckpt_req,
                                .buffers_checkpoint = ckpt_req * 1000,
                                .buffers_clean = 7,
                                .buffers_backend = backend};
  s.wal_bytes = wal;
  return s;
}

TEST(ServerDelta, RatesPerSecondOfTheInterval) {
  ServerSnapshot a = Snap(1'000'000'000, 1000, 1 << 20, 2, 100);
  ServerSnapshot b = Snap(3'000'000'000, 5000, 3 << 20, 3, 300);
  b.active_backends = 4;
  b.wait_events = {{"CPU", 3}, {"Lock:transactionid", 1}};
  ServerSample s = ServerDelta(a, b, 2.5);
  EXPECT_DOUBLE_EQ(s.t_s, 2.5);
  EXPECT_DOUBLE_EQ(s.dt_s, 2.0);
  EXPECT_DOUBLE_EQ(*s.xact_commit_per_s, 2000.0);
  EXPECT_DOUBLE_EQ(*s.xact_rollback_per_s, 20.0);
  EXPECT_DOUBLE_EQ(*s.blks_hit_per_s, 20000.0);
  EXPECT_DOUBLE_EQ(*s.blks_read_per_s, 200.0);
  EXPECT_DOUBLE_EQ(*s.tup_updated_per_s, 6000.0);
  EXPECT_DOUBLE_EQ(*s.tup_deleted_per_s, 0.0);
  EXPECT_DOUBLE_EQ(*s.temp_bytes_per_s, 0.0);
  EXPECT_DOUBLE_EQ(*s.deadlocks_per_s, 0.0);
  EXPECT_DOUBLE_EQ(*s.wal_bytes_per_s, 1 << 20);
  EXPECT_EQ(*s.checkpoints_timed, 0);
  EXPECT_EQ(*s.checkpoints_req, 1);
  EXPECT_DOUBLE_EQ(*s.buffers_checkpoint_per_s, 500.0);
  EXPECT_DOUBLE_EQ(*s.buffers_backend_per_s, 100.0);
  EXPECT_EQ(s.active_backends, 4.0);
  EXPECT_EQ(s.wait_polls, 1);
  EXPECT_EQ(s.wait_events.at("Lock:transactionid"), 1);
}

TEST(ServerDelta, MissingPartsStayMissing) {
  ServerSnapshot a = Snap(0, 10, 0, 0, std::nullopt);  // PostgreSQL 17: no buffers_backend
  ServerSnapshot b = Snap(1'000'000'000, 20, 0, 0, std::nullopt);
  b.wal_bytes.reset();  // a standby
  a.db.reset();         // the first query failed
  ServerSample s = ServerDelta(a, b, 1);
  EXPECT_FALSE(s.xact_commit_per_s.has_value());
  EXPECT_FALSE(s.wal_bytes_per_s.has_value());
  EXPECT_FALSE(s.buffers_backend_per_s.has_value());
  EXPECT_TRUE(s.buffers_clean_per_s.has_value());
  EXPECT_FALSE(s.active_backends.has_value());
  // A statistics reset between samples gives 0, not a negative rate.
  ServerSnapshot c = Snap(2'000'000'000, 5, 0, 0, std::nullopt);
  EXPECT_DOUBLE_EQ(*ServerDelta(b, c, 2).xact_commit_per_s, 0.0);
}

TEST(ServerWindow, TotalsFromFirstToLastReading) {
  ServerWindow w;
  EXPECT_FALSE(w.Totals().duration_s.has_value());
  ServerSnapshot first = Snap(0, 1000, 100, 1, 10);
  first.db.reset();  // commits first read at the second snapshot
  w.Add(first);
  w.Add(Snap(1'000'000'000, 1500, 600, 1, 20));
  w.Add(Snap(4'000'000'000, 4000, 9100, 2, 50));
  const ServerTotals t = w.Totals();
  EXPECT_DOUBLE_EQ(*t.duration_s, 4.0);
  ASSERT_TRUE(t.database && t.bgwriter && t.wal_bytes);
  EXPECT_EQ(t.database->xact_commit, 2500);
  EXPECT_EQ(*t.wal_bytes, 9000);
  EXPECT_EQ(t.bgwriter->checkpoints_req, 1);
  EXPECT_EQ(*t.bgwriter->buffers_backend, 40);
  EXPECT_EQ(t.database->deadlocks, 0);
}

TEST(Observation, TimeWeightedMeans) {
  Observation o;
  HostSample a;
  a.dt_s = 1;
  a.cpu_user_pct = 90;
  a.cpu_idle_pct = 10;
  a.run_queue = 4;
  HostSample b;
  b.dt_s = 3;
  b.cpu_user_pct = 10;
  b.cpu_idle_pct = 90;
  b.disk_util_pct = 50;  // only b has a device figure
  o.host = {a, b};
  HostMeans m = o.MeanHost();
  EXPECT_DOUBLE_EQ(m.duration_s, 4.0);
  EXPECT_DOUBLE_EQ(m.cpu_user_pct, 30.0);  // (90*1 + 10*3) / 4
  EXPECT_DOUBLE_EQ(m.cpu_idle_pct, 70.0);
  EXPECT_DOUBLE_EQ(*m.run_queue, 4.0);
  EXPECT_DOUBLE_EQ(*m.disk_util_pct, 50.0);
  EXPECT_FALSE(m.context_switches_per_s.has_value());

  ServerSample s;
  s.active_backends = 3;
  s.wait_polls = 1;
  s.wait_events = {{"CPU", 2}, {"IO:DataFileRead", 1}};
  ServerSample s2;
  s2.active_backends = 1.5;  // over 4 polls
  s2.wait_polls = 4;
  o.server = {s, ServerSample{}, s2};
  EXPECT_DOUBLE_EQ(*o.MeanActiveBackends(), (3.0 + 1.5 * 4) / 5);  // weighted by polls
}

}  // namespace
}  // namespace pgrig::observe
