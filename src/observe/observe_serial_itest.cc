// The Observer against the real embedded cluster: server counters move while
// a small load runs, wait events of blocked and sleeping backends are seen,
// failures of the monitoring connection become notes.  Serial: the Observer
// reads the whole server (every backend's activity and wait events), so
// other tests' work on the shared cluster would slow its queries past the
// 1 s Stop() bound (seen under ctest -j4 and under ASan).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "common/clock.h"
#include "observe/observe.h"
#include "support/test_cluster.h"

namespace pgrig::observe {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

void MustExec(pg::Connection& c, const std::string& sql) {
  auto r = c.Exec(sql);
  ASSERT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
}

ObserveOptions ServerOptions(std::chrono::milliseconds interval) {
  return {.data_directory = pgrig::testing::SharedCluster().data_dir(),
          .server = pgrig::testing::SharedParams(),
          .database = "pgrig",
          .interval = interval};
}

TEST(ObserverITest, SeesTheLoadAndTheWaits) {
  pg::Connection setup = pgrig::testing::ConnectShared();
  MustExec(setup,
           "DROP TABLE IF EXISTS observe_itest_rows, observe_itest_lock;"
           "CREATE TABLE observe_itest_rows (i int); CREATE TABLE observe_itest_lock (i int)");
  // Connections first, so the window holds only the work.
  pg::Connection load = pgrig::testing::ConnectShared();
  pg::Connection sleeper = pgrig::testing::ConnectShared();
  pg::Connection holder = pgrig::testing::ConnectShared();
  pg::Connection waiter = pgrig::testing::ConnectShared();

  ObserveOptions options = ServerOptions(250ms);
  options.wait_interval = 50ms;  // five polls per sample
  auto started = Observer::Start(options);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  std::unique_ptr<Observer> obs = std::move(*started);

  MustExec(holder, "BEGIN; LOCK TABLE observe_itest_lock IN ACCESS EXCLUSIVE MODE");
  std::thread t_sleep([&] { (void)sleeper.Exec("SELECT pg_sleep(1.2)"); });
  std::thread t_wait([&] { (void)waiter.Exec("SELECT count(*) FROM observe_itest_lock"); });
  int inserted = 0;
  const int64_t until = MonotonicNanos() + 1'600'000'000;
  while (MonotonicNanos() < until) {
    MustExec(load, "INSERT INTO observe_itest_rows VALUES (1)");
    ++inserted;
    std::this_thread::sleep_for(5ms);
  }
  MustExec(holder, "COMMIT");
  t_sleep.join();
  t_wait.join();
  std::this_thread::sleep_for(400ms);  // let the backends report their counters

  const int64_t t0 = MonotonicNanos();
  Observation o = obs->Stop();
  EXPECT_LT(static_cast<double>(MonotonicNanos() - t0) * 1e-9, 1.0);
  EXPECT_GT(inserted, 10);

  // About 2 s at 250 ms.
  EXPECT_GE(o.host.size(), 5u);
  EXPECT_GE(o.server.size(), 5u);
  EXPECT_LE(o.server.size(), 10u);
  for (const std::string& n : o.notes) EXPECT_THAT(n, ::testing::Not(HasSubstr("server:"))) << n;

  // Window totals: our inserts (and the commits around them) are counted.
  const ServerTotals& tot = o.server_totals;
  ASSERT_TRUE(tot.database.has_value());
  EXPECT_GT(tot.database->xact_commit, 0);
  EXPECT_GT(tot.database->tup_inserted, 0);
  ASSERT_TRUE(tot.wal_bytes.has_value());
  EXPECT_GT(*tot.wal_bytes, 0);
  ASSERT_TRUE(tot.bgwriter.has_value());
  EXPECT_TRUE(tot.bgwriter->buffers_backend.has_value());  // PostgreSQL 15
  double commits = 0;
  for (const ServerSample& s : o.server) {
    ASSERT_TRUE(s.xact_commit_per_s.has_value());
    ASSERT_TRUE(s.wal_bytes_per_s.has_value());
    ASSERT_TRUE(s.active_backends.has_value());
    commits += *s.xact_commit_per_s * s.dt_s;
    // Each sample's histogram adds up to its active backends over its polls.
    EXPECT_GE(s.wait_polls, 1);
    EXPECT_LE(s.wait_polls, 5);
    int64_t sum = 0;
    for (const auto& [k, v] : s.wait_events) sum += v;
    EXPECT_NEAR(static_cast<double>(sum), *s.active_backends * static_cast<double>(s.wait_polls),
                1e-9);
  }
  EXPECT_NEAR(commits, static_cast<double>(tot.database->xact_commit), 1.0);

  // The sleeping and the blocked backend were seen waiting; the histogram
  // adds up to its denominator.
  EXPECT_TRUE(o.wait_events.count("Timeout:PgSleep"));
  EXPECT_TRUE(o.wait_events.count("Lock:relation"));
  int64_t total = 0;
  for (const auto& [k, v] : o.wait_events) total += v;
  EXPECT_EQ(total, o.wait_samples);
  double active = 0;
  int64_t polls = 0;
  for (const ServerSample& s : o.server) {
    active += *s.active_backends * static_cast<double>(s.wait_polls);
    polls += s.wait_polls;
  }
  EXPECT_NEAR(active, static_cast<double>(o.wait_samples), 1e-6);
  EXPECT_GE(polls, 25);  // about 2 s at 50 ms
  EXPECT_DOUBLE_EQ(o.wait_interval_s, 0.05);

  // Idempotent.
  Observation again = obs->Stop();
  EXPECT_EQ(again.server.size(), o.server.size());
  EXPECT_EQ(again.wait_events, o.wait_events);
  EXPECT_EQ(again.wait_samples, o.wait_samples);
  // The data device was found, or the note says why not (tmpfs /tmp, overlay).
  if (!o.data_device) {
    EXPECT_THAT(o.notes, Contains(HasSubstr("disk:")));
  }

  // Observing cost little: well under 5% of one CPU on this side and the server's.
  EXPECT_GT(o.sampler_cpu_s, 0.0);
  EXPECT_LT(o.sampler_cpu_s, 0.1);
  ASSERT_TRUE(o.sampler_backend_cpu_s.has_value());
  EXPECT_LT(*o.sampler_backend_cpu_s, 0.1);
  Bottleneck b = Diagnose(o, {.cpu_s = 0.1, .duration_s = 2, .threads = 1, .cpus = 2, .tps = 300});
  EXPECT_FALSE(b.evidence.empty());
  MustExec(setup, "DROP TABLE observe_itest_rows, observe_itest_lock");
}

TEST(ObserverITest, UnknownDatabaseIsANote) {
  ObserveOptions opt = ServerOptions(100ms);
  opt.database = "no_such_database_for_pgrig";
  auto obs = Observer::Start(opt);
  ASSERT_TRUE(obs.ok());
  std::this_thread::sleep_for(350ms);
  Observation o = (*obs)->Stop();
  EXPECT_THAT(o.notes, Contains(HasSubstr("\"no_such_database_for_pgrig\" has no row")));
  ASSERT_FALSE(o.server.empty());
  EXPECT_FALSE(o.server.back().xact_commit_per_s.has_value());
  EXPECT_TRUE(o.server.back().wal_bytes_per_s.has_value());  // server-wide figures still come
  EXPECT_FALSE(o.server_totals.database.has_value());
}

TEST(ObserverITest, UnreachableServerObservesTheHostOnly) {
  ObserveOptions opt = ServerOptions(100ms);
  opt.server->port = "1";  // nothing listens there
  auto obs = Observer::Start(opt);
  ASSERT_TRUE(obs.ok()) << obs.status().ToString();
  std::this_thread::sleep_for(250ms);
  Observation o = (*obs)->Stop();
  EXPECT_THAT(o.notes, Contains(HasSubstr("server: not observed")));
  EXPECT_TRUE(o.server.empty());
  EXPECT_FALSE(o.host.empty());
}

TEST(ObserverITest, LostConnectionStopsServerSamplingWithANote) {
  // A name of its own, so that no other test's observer is hit.
  ObserveOptions opt = ServerOptions(100ms);
  opt.server->application_name = "pgrig-itest-lost";
  auto obs = Observer::Start(opt);
  ASSERT_TRUE(obs.ok());
  std::this_thread::sleep_for(250ms);
  pg::Connection admin = pgrig::testing::ConnectShared();
  auto killed = admin.QueryValue(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
      " WHERE application_name = 'pgrig-itest-lost-observer'");
  ASSERT_TRUE(killed.ok()) << killed.status().ToString();
  EXPECT_EQ(*killed, "1");
  std::this_thread::sleep_for(400ms);
  const int64_t t0 = MonotonicNanos();
  Observation o = (*obs)->Stop();
  EXPECT_LT(static_cast<double>(MonotonicNanos() - t0) * 1e-9, 1.0);
  EXPECT_THAT(o.notes, Contains(HasSubstr("monitoring connection was lost")));
  EXPECT_GE(o.host.size(), 5u);  // the host goes on
}

TEST(ObserverITest, StopCancelsAQueryStuckOnTheServer) {
  auto obs = Observer::Start(ServerOptions(100ms));
  ASSERT_TRUE(obs.ok());
  std::this_thread::sleep_for(250ms);
  // Every sample reads pg_stat_database first; holding the view locked makes
  // the next one wait (until its 2 s statement timeout).
  pg::Connection holder = pgrig::testing::ConnectShared();
  MustExec(holder, "BEGIN; LOCK TABLE pg_catalog.pg_stat_database IN ACCESS EXCLUSIVE MODE");
  // A sample starts within 100 ms and blocks; without a cancel it would end
  // at its 2 s statement timeout, about 1.9 s after Stop().
  std::this_thread::sleep_for(150ms);
  const int64_t t0 = MonotonicNanos();
  Observation o = (*obs)->Stop();
  const double stop_s = static_cast<double>(MonotonicNanos() - t0) * 1e-9;
  MustExec(holder, "ROLLBACK");
  EXPECT_GE(stop_s, 0.9);  // it waited for the grace second...
  EXPECT_LT(stop_s, 1.5);  // ...then cancelled instead of waiting for the timeout
  EXPECT_THAT(o.notes, Contains(HasSubstr("was cancelled")));
  EXPECT_FALSE(o.server.empty());
}

TEST(ObserverITest, SessionsHiddenFromAnUnprivilegedRoleAreANote) {
  pg::Connection admin = pgrig::testing::ConnectShared();
  MustExec(admin,
           "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'observe_itest_low')"
           " THEN CREATE ROLE observe_itest_low LOGIN; END IF; END$$");
  ObserveOptions opt = ServerOptions(100ms);
  opt.server->user = "observe_itest_low";
  auto obs = Observer::Start(opt);
  ASSERT_TRUE(obs.ok());
  pg::Connection sleeper = pgrig::testing::ConnectShared();
  MustExec(sleeper, "SELECT pg_sleep(0.4)");
  Observation o = (*obs)->Stop();
  MustExec(admin, "DROP ROLE observe_itest_low");
  EXPECT_THAT(o.notes, Contains(HasSubstr("grant it pg_read_all_stats")));
  EXPECT_EQ(o.wait_events.count("Timeout:PgSleep"), 0u);
  EXPECT_EQ(o.wait_events.count("?"), 0u);
  // What a plain role may read still comes.
  ASSERT_FALSE(o.server.empty());
  EXPECT_TRUE(o.server.back().xact_commit_per_s.has_value());
  EXPECT_TRUE(o.server.back().wal_bytes_per_s.has_value()) << ::testing::PrintToString(o.notes);
}

}  // namespace
}  // namespace pgrig::observe
