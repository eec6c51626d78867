// `pgrig init` against the real thing: a database initialized by `pgbench -i`
// and one initialized by `pgrig init` (same options) must be the same in
// every way pgbench and a benchmark can see, and pgbench must run on ours.
// Also the failure paths: bad options, an unreachable server, a bad
// tablespace and a disk that fills up, each leaving no tables behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/fs.h"
#include "common/strings.h"
#include "support/test_cluster.h"
#include "workload/pgbench_schema.h"

namespace pgrig::workload {
namespace {

using testing::ConnectShared;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunPgrig;
using testing::RunServerTool;
using testing::SharedParams;

// Every row of `sql`, "a|b|c" per line; NULL prints as "NULL".
std::string Rows(pg::Connection& c, const std::string& sql) {
  auto r = c.Exec(sql);
  if (!r.ok()) {
    ADD_FAILURE() << r.status().message();
    return "";
  }
  std::string out;
  for (int i = 0; i < r->rows(); ++i) {
    for (int j = 0; j < r->cols(); ++j) {
      if (j) out += '|';
      out += r->IsNull(i, j) ? std::string("NULL") : std::string(r->Get(i, j));
    }
    out += '\n';
  }
  return out;
}

void RecreateDatabase(const std::string& name) {
  pg::Connection admin = ConnectShared("postgres");
  ASSERT_TRUE(admin.valid());
  ASSERT_TRUE(admin.Exec("set client_min_messages = warning").ok());
  ASSERT_TRUE(admin.Exec("drop database if exists " + name + " with (force)").ok());
  ASSERT_TRUE(admin.Exec("create database " + name).ok());
}

void DropDatabase(const std::string& name) {
  pg::Connection admin = ConnectShared("postgres");
  if (admin.valid()) (void)admin.Exec("drop database if exists " + name + " with (force)");
}

// -h -p -U naming the shared cluster, as a user would pass them.
std::vector<std::string> ServerArgs() {
  pg::ConnectionParams p = SharedParams();
  return {"-h", p.host, "-p", p.port, "-U", p.user};
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// How many times `what` occurs in `text`.
size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What a database initialized for pgbench looks like, aspect by aspect.
struct Fingerprint {
  std::vector<std::pair<std::string, std::string>> aspects;
};

Fingerprint Take(pg::Connection c) {
  Fingerprint f;
  auto add = [&](const char* name, const std::string& sql) {
    f.aspects.emplace_back(name, Rows(c, sql));
  };
  add("tables",
      "select c.relname, c.relkind, c.relpersistence, "
      "coalesce(array_to_string(c.reloptions, ','), ''), pg_get_partkeydef(c.oid) "
      "from pg_class c where c.relnamespace = 'public'::regnamespace "
      "and c.relkind in ('r', 'p') order by 1");
  add("partition bounds",
      "select c.relname, pg_get_expr(c.relpartbound, c.oid) from pg_class c "
      "where c.relispartition and c.relnamespace = 'public'::regnamespace order by 1");
  add("columns",
      "select table_name, ordinal_position, column_name, data_type, "
      "character_maximum_length, is_nullable from information_schema.columns "
      "where table_schema = 'public' order by 1, 2");
  add("attributes",
      "select a.attrelid::regclass::text, a.attname, format_type(a.atttypid, a.atttypmod), "
      "a.attnotnull from pg_attribute a join pg_class c on c.oid = a.attrelid "
      "where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') "
      "and a.attnum > 0 and not a.attisdropped order by 1, a.attnum");
  add("constraints",
      "select conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid) "
      "from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2");
  add("indexes",
      "select indrelid::regclass::text, indexrelid::regclass::text, "
      "pg_get_indexdef(indexrelid) from pg_index "
      "where indrelid::regclass::text like 'pgbench%' order by 1, 2");
  add("row counts and balances",
      "select 'accounts', count(*), sum(abalance), min(aid), max(aid), count(distinct aid) "
      "from pgbench_accounts union all "
      "select 'branches', count(*), sum(bbalance), min(bid), max(bid), count(distinct bid) "
      "from pgbench_branches union all "
      "select 'tellers', count(*), sum(tbalance), min(tid), max(tid), count(distinct tid) "
      "from pgbench_tellers union all "
      "select 'history', count(*), sum(delta), min(aid), max(aid), 0 from pgbench_history");
  add("accounts per bid",
      "select bid, count(*), min(aid), max(aid) from pgbench_accounts group by bid order by bid");
  add("tellers per bid",
      "select bid, count(*), min(tid), max(tid) from pgbench_tellers group by bid order by bid");
  add("filler",
      "select 'accounts', count(*) filter (where octet_length(filler) = 84 and "
      "filler = ''), count(*) filter (where filler is null) from pgbench_accounts union all "
      "select 'branches', 0, count(*) filter (where filler is null) from pgbench_branches "
      "union all select 'tellers', 0, count(*) filter (where filler is null) "
      "from pgbench_tellers");
  add("rows per partition",
      "select tableoid::regclass::text, count(*) from pgbench_accounts group by 1 order by 1");
  add("statistics",
      "select tablename, attname, inherited from pg_stats where schemaname = 'public' "
      "order by 1, 2, 3");
  // How often each table was analyzed by hand (autovacuum counts apart):
  // once each, also a partition, which pgbench's ANALYZE of the parent
  // analyzes and pgrig analyzes on its own before analyzing the parent alone.
  add("manual analyses",
      "select relname, analyze_count from pg_stat_user_tables where schemaname = 'public' "
      "order by 1");
  // Whether VACUUM ran, from its own counter.  Not relallvisible = relpages:
  // VACUUM leaves a page's visibility bit unset when it cannot get the
  // page's cleanup lock at once, and the background writer or a checkpoint
  // that another test runs meanwhile pins pages (CI failed on that once).
  add("vacuumed heaps",
      "select c.relname, c.relpages > 0, s.vacuum_count > 0 from pg_class c "
      "join pg_stat_user_tables s on s.relid = c.oid "
      "where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' order by 1");
  add("accounts row estimate",
      "select c.relname, abs(c.reltuples - n.n) <= 0.01 * n.n from pg_class c, "
      "(select count(*) n from pgbench_accounts) n "
      "where c.relname = 'pgbench_accounts'");
  return f;
}

Fingerprint Take(const std::string& db) { return Take(ConnectShared(db)); }

void ExpectSame(const Fingerprint& ref, const Fingerprint& ours,
                const std::set<std::string>& may_be_empty = {}) {
  ASSERT_EQ(ref.aspects.size(), ours.aspects.size());
  for (size_t i = 0; i < ref.aspects.size(); ++i) {
    EXPECT_EQ(ref.aspects[i].second, ours.aspects[i].second)
        << "aspect \"" << ref.aspects[i].first << "\" differs (expected: pgbench -i)";
    EXPECT_FALSE(ours.aspects[i].second.empty() && ref.aspects[i].first != "partition bounds" &&
                 !may_be_empty.contains(ref.aspects[i].first))
        << ref.aspects[i].first;
  }
}

// Returns pgrig init's standard error.
std::string CompareWithPgbench(const std::string& tag, const std::vector<std::string>& options,
                               const std::set<std::string>& may_be_empty = {},
                               const std::map<std::string, std::string>& env = {}) {
  const std::string ref_db = "itest_init_ref_" + tag;
  const std::string our_db = "itest_init_pgrig_" + tag;
  RecreateDatabase(ref_db);
  RecreateDatabase(our_db);

  ProcessResult ref =
      RunServerTool("pgbench", Concat(Concat({"-i"}, options), Concat(ServerArgs(), {ref_db})));
  EXPECT_EQ(ref.exit_code, 0) << ref.err;
  ProcessResult ours =
      RunPgrig(Concat(Concat({"init", "-j", "2"}, options), Concat(ServerArgs(), {our_db})), env);
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_THAT(ours.err, HasSubstr("done in "));
  if (ref.exit_code != 0 || ours.exit_code != 0) return ours.err;

  ExpectSame(Take(ref_db), Take(our_db), may_be_empty);

  // pgbench itself runs on what pgrig made (it needs no keys for that).
  ProcessResult run =
      RunServerTool("pgbench", Concat({"-t", "20", "-c", "2"}, Concat(ServerArgs(), {our_db})));
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("number of transactions actually processed: 40/40"));

  DropDatabase(ref_db);
  DropDatabase(our_db);
  return ours.err;
}

std::string ServerWalLevel() {
  pg::Connection c = ConnectShared("postgres");
  auto v = c.QueryValue("show wal_level");
  return v.ok() ? *v : std::string("?");
}

TEST(PgbenchInitITest, SameAsPgbenchDefault) {
  // The default steps build the keys the way the server's wal_level calls
  // for, and say which way and why.
  const std::string err = CompareWithPgbench("plain", {"-s", "3"});
  EXPECT_THAT(err, HasSubstr("note: the primary keys were built"));
  EXPECT_THAT(err, HasSubstr("wal_level = " + ServerWalLevel()));
  if (ServerWalLevel() == "minimal") {
    EXPECT_THAT(err, HasSubstr("primary keys were built right after each table's load"));
  } else {
    EXPECT_THAT(err, HasSubstr("primary keys were built in step p"));
  }
}

// Every key strategy, forced, gives pgbench's result on this server, plain
// and partitioned, and init says which one ran.
struct ForcedStrategy {
  const char* name;
  const char* note;
};
constexpr ForcedStrategy kForced[] = {
    {"during-load", "primary keys were built while loading (forced by PGRIG_INIT_KEYS)"},
    // (Partitioned, the forced note may go on: "; without parallel ...".)
    {"after-each-load",
     "primary keys were built right after each table's load (forced by PGRIG_INIT_KEYS"},
    {"separate-step",
     "primary keys were built in step p, as pgbench does (forced by "
     "PGRIG_INIT_KEYS)"},
};

TEST(PgbenchInitITest, SameAsPgbenchWithEachKeyStrategy) {
  for (const ForcedStrategy& f : kForced) {
    SCOPED_TRACE(f.name);
    const std::string tag = std::string("k") + std::to_string(&f - kForced);
    std::string err = CompareWithPgbench(tag, {"-s", "1"}, {}, {{"PGRIG_INIT_KEYS", f.name}});
    EXPECT_THAT(err, HasSubstr(f.note));
    err = CompareWithPgbench(tag + "p", {"-s", "1", "--partitions", "3"}, {},
                             {{"PGRIG_INIT_KEYS", f.name}});
    EXPECT_THAT(err, HasSubstr(f.note));
  }
  // Hash partitions load through the same per-table task as range ones (the
  // key before or after the COPY; only the rows streamed differ), so one
  // forced strategy is enough for them (SameAsPgbenchHashPartitionsAndForeignKeys
  // has the one pgrig chooses).
  const std::string err =
      CompareWithPgbench("kh", {"-s", "1", "--partitions=2", "--partition-method=hash"}, {},
                         {{"PGRIG_INIT_KEYS", "after-each-load"}});
  EXPECT_THAT(err, HasSubstr(kForced[1].note));
}

TEST(PgbenchInitITest, BadKeyStrategyIsRefusedBeforeConnecting) {
  const std::string db = "itest_init_badkeys";
  RecreateDatabase(db);
  ProcessResult r = RunPgrig(Concat({"init", "-s", "1"}, Concat(ServerArgs(), {db})),
                             {{"PGRIG_INIT_KEYS", "sometimes"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("PGRIG_INIT_KEYS=\"sometimes\" is not a key strategy"));
  EXPECT_THAT(r.err, Not(HasSubstr("dropping")));
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(*c.QueryValue("select count(*) from pg_class where relname like 'pgbench%'"), "0");
  DropDatabase(db);
}

TEST(PgbenchInitITest, SameAsPgbenchWithoutKeys) {
  // No p step: no keys, none built early.
  const std::string err =
      CompareWithPgbench("nokeys", {"-s", "1", "-I", "dtgv"}, {"constraints", "indexes"});
  EXPECT_THAT(err, Not(HasSubstr("note: the primary keys")));
}

TEST(PgbenchInitITest, SameAsPgbenchKeysBeforeVacuumAndForeignKeys) {
  CompareWithPgbench("pvf", {"-s", "2", "-I", "dtgpvf"});
}

TEST(PgbenchInitITest, SameAsPgbenchRangePartitions) {
  CompareWithPgbench("range", {"-s", "3", "--partitions", "4", "-F", "90"});
}

TEST(PgbenchInitITest, SameAsPgbenchHashPartitionsAndForeignKeys) {
  CompareWithPgbench("hash",
                     {"-s", "2", "--partitions=3", "--partition-method=hash", "--foreign-keys"});
}

TEST(PgbenchInitITest, SameAsPgbenchServerSideUnlogged) {
  CompareWithPgbench("serverside", {"-s", "2", "-I", "dtGvp", "--unlogged-tables"});
}

TEST(PgbenchInitITest, RerunOnExistingTablesWithoutCreate) {
  // -I gvp on tables another run made (and with foreign keys in place)
  // takes pgbench's single-transaction path and still ends up identical.
  const std::string db = "itest_init_rerun";
  RecreateDatabase(db);
  ProcessResult first =
      RunPgrig(Concat({"init", "-s", "1", "--foreign-keys"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ProcessResult again =
      RunPgrig(Concat({"init", "-s", "1", "-I", "gv"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*), sum(abalance) from pgbench_accounts"), "100000|0\n");
  EXPECT_EQ(Rows(c, "select count(*) from pgbench_branches"), "1\n");
  DropDatabase(db);
}

TEST(PgbenchInitITest, OneAccountsHeapIsCreatedByItsLoadInsteadOfTruncated) {
  // A new table's file number is its oid; TRUNCATE gives it a new file.
  // Right after step t the load creates pgbench_accounts itself (no old
  // file for its commit to delete); a g step on its own truncates it.
  const std::string db = "itest_init_accounts_created";
  RecreateDatabase(db);
  const std::string same_file =
      "select relname, relfilenode = oid from pg_class where relname in "
      "('pgbench_accounts', 'pgbench_branches') order by 1";
  ProcessResult full = RunPgrig(Concat({"init", "-s", "1"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(full.exit_code, 0) << full.err;
  {
    pg::Connection c = ConnectShared(db);
    EXPECT_EQ(Rows(c, same_file), "pgbench_accounts|t\npgbench_branches|f\n");
    EXPECT_EQ(Rows(c, "select count(*), count(distinct aid) from pgbench_accounts"),
              "100000|100000\n");
  }
  // Steps in two runs; and a space between t and g changes nothing.
  ProcessResult create =
      RunPgrig(Concat({"init", "-s", "1", "-I", "dt"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(create.exit_code, 0) << create.err;
  ProcessResult load = RunPgrig(Concat({"init", "-s", "1", "-I", "g"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(load.exit_code, 0) << load.err;
  {
    pg::Connection c = ConnectShared(db);
    EXPECT_EQ(Rows(c, same_file), "pgbench_accounts|f\npgbench_branches|f\n");
    EXPECT_EQ(Rows(c, "select count(*) from pgbench_accounts"), "100000\n");
  }
  ProcessResult spaced =
      RunPgrig(Concat({"init", "-s", "1", "-I", "dt Gv"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(spaced.exit_code, 0) << spaced.err;
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, same_file), "pgbench_accounts|t\npgbench_branches|f\n");
  EXPECT_EQ(Rows(c, "select count(*), count(distinct aid) from pgbench_accounts"),
            "100000|100000\n");
  DropDatabase(db);
}

TEST(PgbenchInitITest, TablesInTheWayOfStepTAreLeftAlone) {
  // pgbench's step t fails on a table that exists and leaves it; pgrig's
  // too, and it does not claim to have dropped anything.
  const std::string db = "itest_init_in_the_way";
  RecreateDatabase(db);
  {
    pg::Connection c = ConnectShared(db);
    ASSERT_TRUE(
        c.Exec("create table pgbench_accounts(aid int); insert into pgbench_accounts values (42)")
            .ok());
  }
  ProcessResult lone =
      RunPgrig(Concat({"init", "-s", "1", "-I", "tg"}, Concat(ServerArgs(), {db})));
  EXPECT_EQ(lone.exit_code, 1) << lone.err;
  EXPECT_THAT(lone.err, HasSubstr("relation \"pgbench_accounts\" already exists"));
  EXPECT_THAT(lone.err, Not(HasSubstr("dropped")));
  {
    pg::Connection c = ConnectShared(db);
    EXPECT_EQ(Rows(c, "select aid from pgbench_accounts"), "42\n");
    EXPECT_EQ(Rows(c, "select count(*) from pg_class where relname like 'pgbench%'"), "1\n");
    ASSERT_TRUE(c.Exec("drop table pgbench_accounts").ok());
  }
  // All four loaded by a full init, then step t alone: they stay loaded.
  ProcessResult full = RunPgrig(Concat({"init", "-s", "1"}, Concat(ServerArgs(), {db})));
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ProcessResult again =
      RunPgrig(Concat({"init", "-s", "1", "-I", "t"}, Concat(ServerArgs(), {db})));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  EXPECT_THAT(again.err, Not(HasSubstr("dropped")));
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*) from pgbench_accounts"), "100000\n");
  EXPECT_EQ(Rows(c, "select count(*) from pgbench_branches"), "1\n");
  DropDatabase(db);
}

TEST(PgbenchInitITest, ReinitDropsOldTablesInTheBackgroundAndLeavesNoTrash) {
  const std::string db = "itest_init_reinit";
  RecreateDatabase(db);
  const auto args = Concat({"-s", "2", "--partitions", "3"}, Concat(ServerArgs(), {db}));
  ProcessResult first = RunPgrig(Concat({"init"}, args));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // A schema left by an init killed during its background drop (its
  // backend pid no longer exists) is cleaned up by the next step d.
  {
    pg::Connection c = ConnectShared(db);
    ASSERT_TRUE(c.Exec("create schema pgrig_init_trash_999999; "
                       "create table pgrig_init_trash_999999.pgbench_accounts(aid int)")
                    .ok());
  }
  ProcessResult again = RunPgrig(Concat({"init", "-d"}, args));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // The fast path ran: tables moved aside, then dropped in the background.
  EXPECT_THAT(again.err, HasSubstr("alter table pgbench_accounts set schema pgrig_init_trash_"));
  EXPECT_THAT(again.err, HasSubstr("drop schema if exists pgrig_init_trash_999999 cascade"));
  EXPECT_THAT(again.err, Not(HasSubstr("note: the old pgbench tables")));
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*) from pg_namespace where nspname like 'pgrig\\_init\\_trash%'"),
            "0\n");
  EXPECT_EQ(Rows(c, "select count(*), count(distinct aid), sum(abalance) from pgbench_accounts"),
            "200000|200000|0\n");
  EXPECT_EQ(Rows(c,
                 "select count(*) from pg_class where relname like 'pgbench_accounts_%' "
                 "and relkind = 'r'"),
            "3\n");
  DropDatabase(db);
}

TEST(PgbenchInitITest, EverySessionStartsWritebackEarlyOnlyAtWalLevelMinimal) {
  // At minimal the load's commit must fsync the heap, so every connection
  // init opens asks for early writeback; at any other wal_level none does.
  const std::string db = "itest_init_flush";
  RecreateDatabase(db);
  ProcessResult r = RunPgrig(Concat({"init", "-d", "-j", "2", "-s", "2", "--partitions", "2"},
                                    Concat(ServerArgs(), {db})));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t sets = Count(r.err, "set backend_flush_after = 256");
  if (ServerWalLevel() == "minimal") {
    EXPECT_EQ(sets, 2u) << r.err;  // -j 2: two load connections
  } else {
    EXPECT_EQ(sets, 0u) << r.err;
  }
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*), sum(abalance) from pgbench_accounts"), "200000|0\n");
  DropDatabase(db);
}

TEST(PgbenchInitITest, KeyBuildsBesideLoadsFillingTheCoresTakeNoParallelWorkers) {
  // As many partitions loading at once as this machine has cores: every
  // load transaction turns the server's parallel maintenance workers off
  // before its key build, and says so; one load at a time leaves them be.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string db = "itest_init_serial_keys";
  RecreateDatabase(db);
  pg::Connection admin = ConnectShared("postgres");
  auto workers = admin.QueryValue("show max_parallel_maintenance_workers");
  ASSERT_TRUE(workers.ok()) << workers.status().ToString();
  const std::string n = std::to_string(cores);
  const std::string parts = std::to_string(std::max(2, cores));
  ProcessResult all = RunPgrig(Concat({"init", "-d", "-j", n, "-s", "2", "--partitions", parts},
                                      Concat(ServerArgs(), {db})));
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const size_t sets = Count(all.err, "set local max_parallel_maintenance_workers = 0");
  if (cores >= 2 && *workers != "0") {
    EXPECT_EQ(sets, static_cast<size_t>(std::max(2, cores))) << all.err;  // one per partition
    EXPECT_THAT(all.err, HasSubstr("; without parallel maintenance workers, the " + n +
                                   " loads keeping the " + n + " cores busy"));
  } else {
    EXPECT_EQ(sets, 0u) << all.err;
  }
  ProcessResult one = RunPgrig(Concat({"init", "-d", "-j", "1", "-s", "2", "--partitions", parts},
                                      Concat(ServerArgs(), {db})));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(Count(one.err, "max_parallel_maintenance_workers"), 0u) << one.err;
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*), count(distinct aid), sum(abalance) from pgbench_accounts"),
            "200000|200000|0\n");
  EXPECT_EQ(Rows(c,
                 "select count(*) from pg_index i join pg_class t on t.oid = i.indrelid "
                 "where t.relname like 'pgbench\\_accounts\\_%' and i.indisprimary "
                 "and i.indisvalid"),
            parts + "\n");
  DropDatabase(db);
}

// The shared cluster runs at wal_level = minimal (the embedded cluster's
// benchmark profile).  Most servers pgrig is pointed at run PostgreSQL's
// default, replica: a private, untuned cluster checks the automatic choice
// there, and that it gives pgbench's database.
class PgbenchInitReplicaITest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = testing::MakeTempHome("pgrig-init-replica");
    auto c = cluster::Cluster::Open({.home = home_});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cluster_ = std::make_unique<cluster::Cluster>(std::move(c).value());
    auto started = cluster_->Start();
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    auto admin = pg::Connect(cluster_->Params("postgres"));
    ASSERT_TRUE(admin.ok()) << admin.status().ToString();
    ASSERT_EQ(*admin->QueryValue("show wal_level"), "replica");
    for (const char* db : {"ref", "ours"}) {
      ASSERT_TRUE(admin->Exec(std::string("create database ") + db).ok());
    }
  }
  void TearDown() override {
    if (cluster_) (void)cluster_->Destroy();
    // MakeTempHome made <fresh dir>/home; the fresh directory goes too.
    if (!home_.empty()) (void)RemoveTree(std::filesystem::path(home_).parent_path().string());
  }
  std::vector<std::string> Args(const std::string& db) {
    return testing::ConnArgs(cluster_->Params(db));
  }
  pg::Connection Connect(const std::string& db) {
    auto c = pg::Connect(cluster_->Params(db));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : pg::Connection();
  }

  std::string home_;
  std::unique_ptr<cluster::Cluster> cluster_;
};

TEST_F(PgbenchInitReplicaITest, OneTableKeysInStepPPartitionsAfterEachLoadNoEarlyWriteback) {
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"-s", "2"},
        std::vector<std::string>{"-s", "2", "--partitions", "3"}}) {
    const bool partitioned = options.size() > 2;
    SCOPED_TRACE(partitioned ? "partitioned" : "plain");
    ProcessResult ref = RunServerTool("pgbench", Concat(Concat({"-i"}, options), Args("ref")));
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    ProcessResult ours = RunPgrig(Concat(Concat({"init", "-d", "-j", "2"}, options), Args("ours")));
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    EXPECT_THAT(ours.err, HasSubstr("wal_level = replica"));
    if (partitioned) {
      EXPECT_THAT(ours.err, HasSubstr("primary keys were built right after each table's load"));
    } else {
      EXPECT_THAT(ours.err, HasSubstr("primary keys were built in step p, as pgbench does"));
    }
    // Heaps are not synced at commit at replica: no early writeback.
    EXPECT_EQ(Count(ours.err, "backend_flush_after"), 0u);
    ExpectSame(Take(Connect("ref")), Take(Connect("ours")));
  }
}

TEST(PgbenchInitITest, DependentViewBlocksTheDropAsInPgbench) {
  // Step d must not make a dependent object of the user's disappear or
  // dangle: with a view on pgbench_accounts both tools refuse to drop.
  const std::string db = "itest_init_view";
  RecreateDatabase(db);
  const auto args = Concat({"-s", "1"}, Concat(ServerArgs(), {db}));
  ProcessResult first = RunPgrig(Concat({"init"}, args));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  {
    pg::Connection c = ConnectShared(db);
    ASSERT_TRUE(
        c.Exec("create view rich as select aid from pgbench_accounts where abalance > 0").ok());
  }
  ProcessResult ref = RunServerTool("pgbench", Concat({"-i"}, args));
  EXPECT_NE(ref.exit_code, 0);
  ProcessResult ours = RunPgrig(Concat({"init", "-d"}, args));
  EXPECT_EQ(ours.exit_code, 1);
  EXPECT_THAT(ours.err, Not(HasSubstr("set schema")));
  EXPECT_THAT(ref.err, HasSubstr("depends on"));
  EXPECT_THAT(ours.err, HasSubstr("depends on"));
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*) from rich"), "0\n");
  EXPECT_EQ(Rows(c, "select count(*) from public.pgbench_accounts"), "100000\n");
  EXPECT_EQ(Rows(c, "select count(*) from pg_namespace where nspname like 'pgrig\\_init\\_trash%'"),
            "0\n");
  DropDatabase(db);
}

std::vector<std::string> ErrorLines(const ProcessResult& r) {
  std::vector<std::string> out;
  for (const auto& line : Split(r.err, '\n')) {
    if (line.find("error") != std::string::npos) out.push_back(line);
  }
  return out;
}

TEST(PgbenchInitITest, BadOptionsExitOneWithOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"init", "-s", "0"}, {"init", "-F", "5"}, {"init", "--nope"}}) {
    ProcessResult r = RunPgrig(args);
    EXPECT_EQ(r.exit_code, 1) << args[1];
    auto lines = Split(std::string(Trim(r.err)), '\n');
    EXPECT_EQ(lines.size(), 1u) << r.err;
    EXPECT_THAT(r.err, HasSubstr("pgrig init: error: "));
  }
  ProcessResult f = RunPgrig({"init", "-F", "5"});
  EXPECT_THAT(f.err, HasSubstr("-F/--fillfactor must be in range 10..100"));
}

// A bad step letter: pgbench's error, then its detail on a line of its own.
TEST(PgbenchInitITest, BadStepGetsPgbenchsDetailLine) {
  ProcessResult r = RunPgrig({"init", "-I", "dtz"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "pgrig init: error: unrecognized initialization step \"z\"\n"
            "pgrig init: detail: Allowed step characters are: \"dtgGvpf\".\n");
}

TEST(PgbenchInitITest, RefusedConnectionIsOneLineExitOne) {
  const std::string dir = testing::MakeTempHome("pgrig-init-nosrv");
  ProcessResult r = RunPgrig({"init", "-h", dir, "-p", "5999", "-U", "nobody", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(Split(std::string(Trim(r.err)), '\n').size(), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("connection"));
  EXPECT_THAT(r.err, HasSubstr("check that the server is running"));
  ::rmdir(dir.substr(0, dir.rfind('/')).c_str());
}

TEST(PgbenchInitITest, MissingDatabaseIsOneLineExitOne) {
  ProcessResult r = RunPgrig(Concat({"init"}, Concat(ServerArgs(), {"no_such_db_pgrig"})));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(Split(std::string(Trim(r.err)), '\n').size(), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no_such_db_pgrig"));
}

TEST(PgbenchInitITest, BadTablespaceLeavesNoTables) {
  const std::string db = "itest_init_badts";
  RecreateDatabase(db);
  ProcessResult r =
      RunPgrig(Concat({"init", "--tablespace", "no_such_ts"}, Concat(ServerArgs(), {db})));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(ErrorLines(r).size(), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no_such_ts"));
  pg::Connection c = ConnectShared(db);
  EXPECT_EQ(Rows(c, "select count(*) from pg_class where relname like 'pgbench%'"), "0\n");
  DropDatabase(db);
}

// A tablespace on a 24 MB tmpfs: the accounts table (13 MB per scale unit)
// fills it while loading.  Needs root (mount); skipped otherwise.
TEST(PgbenchInitITest, DiskFullDuringLoadLeavesNoTables) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  std::string base = testing::MakeTempHome("pgrig-init-full");
  ASSERT_FALSE(base.empty());
  std::string mnt = base.substr(0, base.rfind('/')) + "/mnt";
  ASSERT_EQ(::mkdir(mnt.c_str(), 0755), 0);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=24m,mode=0755") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  }
  const auto& account = testing::SharedCluster().account();
  std::string dir = mnt + "/ts";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), account.uid, account.gid), 0);

  const std::string db = "itest_init_full";
  RecreateDatabase(db);
  {
    pg::Connection admin = ConnectShared("postgres");
    (void)admin.Exec("set client_min_messages = warning; drop tablespace if exists itest_tiny");
    auto made = admin.Exec("create tablespace itest_tiny location '" + dir + "'");
    ASSERT_TRUE(made.ok()) << made.status().message();
  }
  ProcessResult r = RunPgrig(
      Concat({"init", "-s", "4", "--tablespace", "itest_tiny"}, Concat(ServerArgs(), {db})));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(ErrorLines(r).size(), 1u) << r.err;
  EXPECT_THAT(r.err, HasSubstr("No space left on device"));
  EXPECT_THAT(r.err, HasSubstr("free disk space"));
  EXPECT_THAT(r.err, HasSubstr("were dropped"));
  {
    pg::Connection c = ConnectShared(db);
    EXPECT_EQ(Rows(c, "select count(*) from pg_class where relname like 'pgbench%'"), "0\n");
  }
  DropDatabase(db);
  {
    pg::Connection admin = ConnectShared("postgres");
    auto dropped = admin.Exec("drop tablespace itest_tiny");
    EXPECT_TRUE(dropped.ok()) << dropped.status().message();
  }
  EXPECT_EQ(::umount2(mnt.c_str(), MNT_DETACH), 0);
  ::rmdir(mnt.c_str());
  ::rmdir(base.substr(0, base.rfind('/')).c_str());
}

}  // namespace
}  // namespace pgrig::workload
