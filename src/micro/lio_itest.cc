// pgrig lio against the real embedded cluster: one row per block after
// init, the blocks one range touches, a short measured run whose counters
// agree with what the sessions counted, and bad inputs refused before any
// side effect.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/strings.h"
#include "micro/lio_load.h"
#include "micro/lio_run.h"
#include "micro/lio_schema.h"
#include "results/lio_json.h"
#include "support/test_cluster.h"

namespace pgrig::micro {
namespace {

constexpr int64_t kBlocks = 2000;

// CTest runs every test as its own process, several at once: each process
// gets its own database, so that one test's init does not pull the tables
// from under another and pg_stat_database counts only this test's reads.
std::string Db() { return "lio_itest_" + std::to_string(::getpid()); }
pg::ConnectionParams Params() { return testing::SharedParams(Db()); }
pg::Connection Connect() { return testing::ConnectShared(Db()); }

class LioTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pg::Connection admin = testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + Db()).ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + Db()).ok());
    LioInitOptions o{.target = Params(), .tables = 2, .blocks_per_table = kBlocks};
    auto r = InitLio(o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->tables.size(), 2u);
  }
  static void TearDownTestSuite() {
    pg::Connection admin = testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + Db() + " WITH (FORCE)");
  }
};

int64_t Value(pg::Connection& c, const std::string& sql) {
  auto v = c.QueryValue(sql);
  EXPECT_TRUE(v.ok()) << sql << ": " << v.status().message();
  return v.ok() ? ParseInt64(*v).value_or(-1) : -1;
}

TEST_F(LioTest, EveryTableHasOneRowPerBlockAndAPermutedKey) {
  pg::Connection c = Connect();
  for (int t = 1; t <= 2; ++t) {
    const std::string q = LioQualifiedName(t);
    EXPECT_EQ(Value(c, "SELECT count(*) FROM " + q), kBlocks);
    EXPECT_EQ(Value(c, "SELECT count(DISTINCT (ctid::text::point)[0]) FROM " + q), kBlocks);
    EXPECT_EQ(Value(c, "SELECT pg_relation_size('" + q + "') / 8192"), kBlocks);
    // k is a permutation of 0..n-1 and scattered: neighbours in k are far apart in id.
    EXPECT_EQ(Value(c, "SELECT count(DISTINCT k) FROM " + q), kBlocks);
    EXPECT_EQ(Value(c, "SELECT min(k) FROM " + q), 0);
    EXPECT_EQ(Value(c, "SELECT max(k) FROM " + q), kBlocks - 1);
    EXPECT_LT(Value(c, "SELECT count(*) FROM " + q + " a JOIN " + q +
                           " b ON b.k = a.k + 1 WHERE abs(b.id - a.id) < 5"),
              kBlocks / 100);
    EXPECT_TRUE(VerifyOneRowPerBlock(c, t, kBlocks).ok());
  }
  auto tables = ReadLioTables(c);
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[0].blocks, kBlocks);
  EXPECT_GT((*tables)[0].index_blocks, 1);
  // The check catches a table that no longer has one row per block.
  EXPECT_FALSE(VerifyOneRowPerBlock(c, 1, kBlocks + 1).ok());
}

// blks_hit + blks_read of one statement, read by a second connection
// after the first flushed its statistics; the observer's own reads are
// taken out by a baseline statement that touches no table block.
int64_t BlocksOf(pg::Connection& session, pg::Connection& observer, const std::string& sql) {
  EXPECT_TRUE(FlushSessionStats(session).ok());
  auto a = ReadDbCounters(observer);
  EXPECT_TRUE(session.Exec(sql).ok()) << sql;
  EXPECT_TRUE(FlushSessionStats(session).ok());
  auto b = ReadDbCounters(observer);
  EXPECT_TRUE(a.ok() && b.ok());
  auto d = Subtract(*a, *b);
  EXPECT_TRUE(d.ok());
  return d.ok() ? d->logical_reads() : -1;
}

TEST_F(LioTest, OneRangeTouchesWorkUnitHeapBlocksPlusTheIndexDescent) {
  if (Connect().server_version() < 150000) GTEST_SKIP() << "needs PostgreSQL 15";
  pg::Connection s = Connect();
  pg::Connection obs = Connect();
  // A generic prepared plan, as the sessions of a run use: no planning per
  // execution (planning an out-of-histogram range probes the index itself).
  ASSERT_TRUE(s.Exec("SET enable_seqscan = off; SET enable_bitmapscan = off; SET jit = off;"
                     " SET plan_cache_mode = force_generic_plan")
                  .ok());
  ASSERT_TRUE(s.Exec(LioWarmSql(1)).ok());
  const int wu = 100;
  ASSERT_TRUE(s.Exec("PREPARE r(bigint) AS " + LioSelectRangeSql(1, wu)).ok());
  const std::string range = "EXECUTE r(500)";
  const std::string empty = "EXECUTE r(5000000)";
  (void)BlocksOf(s, obs, range);  // plan and catalog caches
  (void)BlocksOf(s, obs, empty);
  int64_t best = -1;
  for (int i = 0; i < 3; ++i) {  // the minimum is the statement's own cost
    const int64_t with = BlocksOf(s, obs, range);
    const int64_t without = BlocksOf(s, obs, empty);
    const int64_t diff = with - without;
    if (best < 0 || diff < best) best = diff;
  }
  // wu heap blocks, plus the leaves the keys span (1-2); the descent is in
  // both statements.
  EXPECT_GE(best, wu);
  EXPECT_LE(best, wu + 4);
}

TEST_F(LioTest, ShortRunCountersAgreeWithTheSessions) {
  LioRunOptions o{.target = Params(),
                  .sessions_per_table = 1,
                  .duration_s = 0.7,
                  .warmup_s = 0.2,
                  .work_unit = 50,
                  .seed = 42};
  auto r = RunLio(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const LioWindow& w = r->main;
  EXPECT_EQ(w.sessions, 2);
  ASSERT_EQ(w.per_session.size(), 2u);
  EXPECT_GT(w.ranges, 0);
  // Every range lies inside the key space, so it returns exactly wu rows.
  EXPECT_EQ(w.rows, w.ranges * o.work_unit);
  EXPECT_EQ(w.latency.count(), w.ranges);
  EXPECT_GE(w.window_s, 0.7);
  EXPECT_LT(w.window_s, 5.0);
  EXPECT_FALSE(r->interrupted);
  // The server counted at least the heap blocks the sessions read, and not
  // much more than those plus the index pages.
  const double rows = static_cast<double>(w.rows);
  EXPECT_GE(static_cast<double>(w.delta.logical_reads()), rows);
  EXPECT_LE(static_cast<double>(w.delta.logical_reads()), rows * 1.15 + 2000);
  nlohmann::json doc =
      results::LioResultToJson(results::MicroDocInputs{.tool_version = "t"}, o, *r, nullptr);
  EXPECT_EQ(doc["schema"], "pgrig.lio/1");
  const auto& s = doc["summary"];
  EXPECT_GT(s["lio_per_s"].get<double>(), 0);
  EXPECT_NEAR(s["lio_per_s_per_session"].get<double>() * 2, s["lio_per_s"].get<double>(), 1e-6);
  EXPECT_NEAR(s["counters_over_sessions"].get<double>(), 1.0, 0.1);
  EXPECT_EQ(doc["per_session"].size(), 2u);
  EXPECT_EQ(doc["histogram"]["count"].get<int64_t>(), w.ranges);
  EXPECT_TRUE(doc["scaling"].is_null());
}

TEST_F(LioTest, ServerSideLoopCountsTheSameWay) {
  LioRunOptions o{.target = Params(),
                  .duration_s = 0.7,
                  .warmup_s = 0.2,
                  .work_unit = 50,
                  .update_pct = 10,
                  .update_work_unit = 4,
                  .driver = LioDriver::kServer};
  auto r = RunLio(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const LioWindow& w = r->main;
  EXPECT_GT(w.ranges, 0);
  EXPECT_GT(w.updates, 0);
  EXPECT_EQ(w.rows, w.ranges * o.work_unit);
  EXPECT_EQ(w.updated_rows, w.updates * o.update_work_unit);
  EXPECT_EQ(w.latency.count(), 0);  // no per-range timing on the server side
  EXPECT_GE(w.window_s, 0.7);
  nlohmann::json doc =
      results::LioResultToJson(results::MicroDocInputs{.tool_version = "t"}, o, *r, nullptr);
  EXPECT_EQ(doc["options"]["driver"], "server");
  EXPECT_TRUE(doc["latency_ms"].is_null());
  EXPECT_NEAR(doc["summary"]["counters_over_sessions"].get<double>(), 1.0, 0.1);
}

TEST_F(LioTest, UpdatesKeepOneRowPerBlock) {
  LioRunOptions o{.target = Params(),
                  .duration_s = 0.5,
                  .warmup_s = 0,
                  .work_unit = 20,
                  .update_pct = 50,
                  .update_work_unit = 8,
                  .seed = 7};
  auto r = RunLio(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->main.updates, 0);
  EXPECT_EQ(r->main.updated_rows, r->main.updates * 8);
  EXPECT_GT(r->main.delta.tup_updated, 0);
  pg::Connection c = Connect();
  for (int t = 1; t <= 2; ++t) EXPECT_TRUE(VerifyOneRowPerBlock(c, t, kBlocks).ok());
}

TEST_F(LioTest, WorkUnitLargerThanATableIsRefused) {
  LioRunOptions o{.target = Params(), .duration_s = 1, .work_unit = 5000};
  auto r = RunLio(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("--work-unit 5000"), std::string::npos);
}

TEST(LioCli, BadInputsAreRefusedBeforeAnySideEffect) {
  // MakeTempHome makes /tmp/lio-refused-XXXXXX and names <it>/home, which
  // must never be created; the directory itself is removed at the end.
  const std::string home = testing::MakeTempHome("lio-refused");
  const std::string parent = std::filesystem::path(home).parent_path().string();
  const std::map<std::string, std::string> env{{"PGRIG_HOME", home}};
  const std::vector<std::vector<std::string>> cases = {
      {"lio", "init", "--scale", "0"},
      {"lio", "init", "--scale", "99TB"},
      {"lio", "init", "--scale", "1GB", "--fit"},
      {"lio", "init", "--tables", "0", "--scale", "1MB"},
      {"lio", "run", "--work-unit", "0"},
      {"lio", "run", "--duration", "0"},
      {"lio", "run", "--update-pct", "150"},
      {"lio", "run", "--json", "/nonexistent-dir/x.json"},
      {"fsync", "/nonexistent-dir", "--no-server"},
      {"fsync", "--seconds", "0", "--no-server"},
  };
  for (const auto& args : cases) {
    ProcessResult r = testing::RunPgrig(args, env);
    EXPECT_EQ(r.exit_code, 1) << Join(args, " ") << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << Join(args, " ");
    EXPECT_FALSE(std::filesystem::exists(home)) << Join(args, " ") << " created " << home;
  }
  std::filesystem::remove_all(parent);
}

}  // namespace
}  // namespace pgrig::micro

namespace pgrig::micro {
namespace {

TEST(FsyncCli, WritesItsDocumentAndLeavesNoTestFile) {
  const std::string dir = std::string(PGRIG_BINARY_DIR) + "/fsync_cli_itest";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string out = std::string(PGRIG_BINARY_DIR) + "/fsync_cli_itest.json";
  ProcessResult r = testing::RunPgrig(
      // 0.5 s per test: 5 samples of 0.1 s.  With 0.05 s (10-ms samples) a
      // loaded machine (the ASan stage at -j4) left a sample without a
      // completed flush, and no leader could be named.
      {"fsync", dir, "--seconds", "0.5", "--sizes", "8k", "--writers", "1", "--json", out},
      {{"PGRIG_HOME", testing::SharedHome()}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The leader, and "best" only when significantly best.
  EXPECT_NE(r.out.find(" leads "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 5 samples each"), std::string::npos) << r.out;
  // The shared cluster is running: its setting is compared.
  EXPECT_NE(r.out.find("the server uses"), std::string::npos) << r.out;
  auto text = ReadWholeFile(out);
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["schema"], "pgrig.fsync/1");
  EXPECT_EQ(doc["tests"].size(), 5u);
  EXPECT_FALSE(doc["summary"]["server_wal_sync_method"].is_null());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace pgrig::micro
