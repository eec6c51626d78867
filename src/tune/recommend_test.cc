// Recommendations against a server's current settings (as pg_settings rows),
// and the four output formats.
#include "tune/recommend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tune/render.h"

namespace pgrig::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TuneInputs Web16() {
  TuneInputs in;
  in.memory_bytes = 16 * kGiB;
  in.cpus = 4;
  in.server_major = 16;
  return in;
}

// A PostgreSQL 16 server with default settings except the ones given.
CurrentSettings Server(std::map<std::string, std::string> changed = {}) {
  CurrentSettings c;
  auto add = [&](std::string name, std::string setting, std::string unit, std::string context,
                 std::string vartype, std::string min = "", std::string max = "",
                 std::vector<std::string> enums = {}) {
    CurrentSetting s{name, setting, unit, context, vartype, min, max, enums, "default", false};
    if (auto it = changed.find(name); it != changed.end()) {
      s.setting = it->second;
      s.source = "configuration file";
    }
    c[name] = s;
  };
  add("max_connections", "100", "", "postmaster", "integer", "1", "262143");
  add("superuser_reserved_connections", "3", "", "postmaster", "integer", "0", "262143");
  add("reserved_connections", "0", "", "postmaster", "integer", "0", "262143");
  add("shared_buffers", "16384", "8kB", "postmaster", "integer", "16", "1073741823");
  add("effective_cache_size", "524288", "8kB", "user", "integer", "1", "2147483647");
  add("work_mem", "4096", "kB", "user", "integer", "64", "2147483647");
  add("maintenance_work_mem", "65536", "kB", "user", "integer", "1024", "2147483647");
  add("autovacuum_work_mem", "-1", "kB", "sighup", "integer", "-1", "2147483647");
  add("wal_buffers", "512", "8kB", "postmaster", "integer", "-1", "262143");
  add("min_wal_size", "80", "MB", "sighup", "integer", "2", "2147483647");
  add("max_wal_size", "1024", "MB", "sighup", "integer", "2", "2147483647");
  add("checkpoint_timeout", "300", "s", "sighup", "integer", "30", "86400");
  add("checkpoint_completion_target", "0.9", "", "sighup", "real", "0", "1");
  add("random_page_cost", "4", "", "user", "real", "0", "1.79769e+308");
  add("effective_io_concurrency", "1", "", "user", "integer", "0", "1000");
  add("maintenance_io_concurrency", "10", "", "user", "integer", "0", "1000");
  add("default_statistics_target", "100", "", "user", "integer", "1", "10000");
  add("max_worker_processes", "8", "", "postmaster", "integer", "0", "262143");
  add("max_parallel_workers", "8", "", "user", "integer", "0", "1024");
  add("max_parallel_workers_per_gather", "2", "", "user", "integer", "0", "1024");
  add("max_parallel_maintenance_workers", "2", "", "user", "integer", "0", "1024");
  add("autovacuum_max_workers", "3", "", "postmaster", "integer", "1", "262143");
  add("max_wal_senders", "10", "", "postmaster", "integer", "0", "262143");
  add("max_locks_per_transaction", "64", "", "postmaster", "integer", "10", "2147483647");
  add("max_prepared_transactions", "0", "", "postmaster", "integer", "0", "262143");
  add("hash_mem_multiplier", "2", "", "user", "real", "1", "1000");
  add("huge_pages", "try", "", "postmaster", "enum", "", "", {"off", "on", "try"});
  add("huge_page_size", "0", "kB", "postmaster", "integer", "0", "2147483647");
  add("jit", "on", "", "user", "bool");
  add("wal_compression", "off", "", "superuser", "enum", "", "",
      {"pglz", "lz4", "zstd", "on", "off"});
  add("wal_level", "replica", "", "postmaster", "enum", "", "", {"minimal", "replica", "logical"});
  add("archive_mode", "off", "", "postmaster", "enum", "", "", {"always", "on", "off"});
  add("synchronous_commit", "on", "", "user", "enum", "", "",
      {"local", "remote_write", "remote_apply", "on", "off"});
  return c;
}

const Recommendation* Rec(const TuneReport& r, const std::string& name) {
  for (const auto& x : r.recommendations) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

TEST(Recommend, CarriesCurrentProposedContextAndRule) {
  auto r = Recommend(Web16(), Profile::kWeb, Server());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Recommendation* sb = Rec(*r, "shared_buffers");
  ASSERT_NE(sb, nullptr);
  EXPECT_EQ(sb->current.value_or(""), "128MB");
  EXPECT_EQ(sb->proposed, "4GB");
  EXPECT_EQ(sb->unit, "8kB");
  EXPECT_EQ(sb->context, "postmaster");
  EXPECT_EQ(sb->apply, Apply::kRestart);
  EXPECT_EQ(sb->rule, "memory.shared_buffers");
  EXPECT_TRUE(sb->changed);
  const Recommendation* wm = Rec(*r, "work_mem");
  EXPECT_EQ(wm->apply, Apply::kReload);
  EXPECT_TRUE(r->NeedsRestart());
  // Already at the recommendation: kept but not a change.
  const Recommendation* cct = Rec(*r, "checkpoint_completion_target");
  ASSERT_NE(cct, nullptr);
  EXPECT_FALSE(cct->changed);
}

TEST(Recommend, ValuesWithinFivePercentAreNotProposed) {
  // 4000MB is 2.4% below 4GB: unchanged.  3800MB is 7.2% below: changed.
  auto near = Recommend(Web16(), Profile::kWeb, Server({{"shared_buffers", "512000"}}));
  ASSERT_TRUE(near.ok());
  EXPECT_FALSE(Rec(*near, "shared_buffers")->changed);
  auto far = Recommend(Web16(), Profile::kWeb, Server({{"shared_buffers", "486400"}}));
  ASSERT_TRUE(far.ok());
  EXPECT_TRUE(Rec(*far, "shared_buffers")->changed);
  for (const auto* c : far->Changes()) EXPECT_TRUE(c->changed);
}

TEST(Recommend, OfflineUsesTheBuiltInContextTable) {
  auto r = Recommend(Web16(), Profile::kWeb, {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_server);
  EXPECT_FALSE(Rec(*r, "shared_buffers")->current.has_value());
  EXPECT_EQ(Rec(*r, "shared_buffers")->apply, Apply::kRestart);
  EXPECT_EQ(Rec(*r, "work_mem")->apply, Apply::kReload);
  EXPECT_EQ(r->Changes().size(), r->recommendations.size());
}

TEST(Recommend, ArchivingServerKeepsItsWalLevel) {
  auto r = Recommend(Web16(), Profile::kBenchmark, Server({{"archive_mode", "on"}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Rec(*r, "wal_level"), nullptr);
  EXPECT_EQ(Rec(*r, "max_wal_senders"), nullptr);
  EXPECT_THAT(r->warnings.back(), HasSubstr("archive_mode"));
}

TEST(Recommend, BuildWithoutLz4GetsPglz) {
  CurrentSettings s = Server();
  s["wal_compression"].enumvals = {"pglz", "on", "off"};
  auto r = Recommend(Web16(), Profile::kWeb, s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Rec(*r, "wal_compression")->proposed, "pglz");
}

TEST(Recommend, OverridesReplaceRulesAndAreChecked) {
  Overrides o;
  o.values["random_page_cost"] = SettingValue::Real(2.0);
  auto r = Recommend(Web16(), Profile::kWeb, Server(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Rec(*r, "random_page_cost")->proposed, "2");
  EXPECT_EQ(Rec(*r, "random_page_cost")->rule, "user.override");

  Overrides unknown;
  unknown.values["no_such_setting"] = SettingValue::Integer(1);
  EXPECT_FALSE(Recommend(Web16(), Profile::kWeb, Server(), unknown).ok());

  Overrides greedy;
  greedy.values["work_mem"] = SettingValue::Bytes(2 * kGiB);
  auto g = Recommend(Web16(), Profile::kWeb, Server(), greedy);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("90%"));

  Overrides inconsistent;
  inconsistent.values["max_parallel_workers"] = SettingValue::Integer(64);
  auto i = Recommend(Web16(), Profile::kWeb, Server(), inconsistent);
  ASSERT_FALSE(i.ok());
  EXPECT_THAT(i.status().message(), HasSubstr("max_worker_processes"));

  EXPECT_FALSE(ParseOverride("work_mem").ok());
  EXPECT_EQ(ParseOverride("Work_Mem=64MB")->first, "work_mem");
}

TEST(Render, FormatsShowOnlyChanges) {
  auto r = Recommend(Web16(), Profile::kWeb, Server());
  ASSERT_TRUE(r.ok());
  std::string table = RenderTable(*r);
  EXPECT_THAT(table, HasSubstr("shared_buffers"));
  EXPECT_THAT(table, HasSubstr("128MB"));
  EXPECT_THAT(table, HasSubstr("4GB"));
  EXPECT_THAT(table, HasSubstr("Worst-case memory"));
  EXPECT_THAT(table, HasSubstr("vm.nr_hugepages"));
  EXPECT_THAT(table, Not(HasSubstr("checkpoint_completion_target")));
  EXPECT_THAT(RenderTable(*r, {.show_unchanged = true}), HasSubstr("checkpoint_completion_target"));

  std::string conf = RenderConf(*r);
  EXPECT_THAT(conf, HasSubstr("shared_buffers = '4GB'"));
  EXPECT_THAT(conf, Not(HasSubstr("checkpoint_completion_target")));

  std::string sql = RenderAlterSystem(*r);
  EXPECT_THAT(sql, HasSubstr("ALTER SYSTEM SET shared_buffers = '4GB';"));
  EXPECT_THAT(sql, HasSubstr("SELECT pg_reload_conf();"));
  EXPECT_THAT(sql, HasSubstr("-- Restart the server for: "));

  auto j = nlohmann::json::parse(Render(*r, Format::kJson));
  EXPECT_EQ(j["schema"], "pgrig.tune/1");
  EXPECT_EQ(j["profile"], "web");
  bool found = false;
  for (const auto& x : j["recommendations"]) {
    if (x["name"] == "shared_buffers") {
      found = true;
      EXPECT_EQ(x["current"], "128MB");
      EXPECT_EQ(x["proposed"], "4GB");
      EXPECT_EQ(x["needs"], "restart");
      EXPECT_EQ(x["context"], "postmaster");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_LE(j["memory_budget"]["total_bytes"].get<uint64_t>(),
            j["memory_budget"]["limit_bytes"].get<uint64_t>());
  EXPECT_FALSE(ParseFormat("yaml").ok());
  EXPECT_EQ(*ParseFormat("alter-system"), Format::kAlterSystem);
}

TEST(Render, BenchmarkBannerIsProminent) {
  auto r = Recommend(Web16(), Profile::kBenchmark, Server());
  ASSERT_TRUE(r.ok());
  std::string table = RenderTable(*r);
  // At the top and at the bottom of the table output.
  EXPECT_EQ(table.rfind("!!!!", 0), 0u);
  EXPECT_NE(table.find("TRADES DURABILITY"), table.rfind("TRADES DURABILITY"));
  EXPECT_THAT(RenderConf(*r), HasSubstr("TRADES DURABILITY"));
  EXPECT_THAT(RenderAlterSystem(*r), HasSubstr("TRADES DURABILITY"));
  EXPECT_TRUE(ToJson(*r)["trades_durability"].get<bool>());
}

// Issue 14, item 14: offline contexts and --set checks.
TEST(Recommend, OfflineContextsAndSetValuesArePostgresOwn) {
  auto r = Recommend(Web16(), Profile::kWeb, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Rec(*r, "work_mem")->context, "user");
  EXPECT_EQ(Rec(*r, "random_page_cost")->context, "user");
  EXPECT_EQ(Rec(*r, "wal_compression")->context, "superuser");
  EXPECT_EQ(Rec(*r, "max_wal_size")->context, "sighup");
  EXPECT_EQ(Rec(*r, "shared_buffers")->context, "postmaster");
  for (const char* bad : {"random_page_cost=-1", "shared_buffers=1kB", "shared_bufers=1GB"}) {
    Overrides o;
    auto kv = ParseOverride(bad);
    ASSERT_TRUE(kv.ok()) << bad;
    o.values[kv->first] = kv->second;
    auto rr = Recommend(Web16(), Profile::kWeb, {}, o);
    EXPECT_FALSE(rr.ok()) << bad;
  }
  Overrides typo;
  typo.values["shared_bufers"] = SettingValue::Bytes(kGiB);
  EXPECT_THAT(Recommend(Web16(), Profile::kWeb, {}, typo).status().message(),
              HasSubstr("did you mean shared_buffers"));
}

// Issue 14, item 15: offline recommendations for 16, 17 and 18.
TEST(Recommend, OfflineForNewerReleases) {
  for (int major : {16, 17, 18}) {
    TuneInputs in = Web16();
    in.server_major = major;
    in.cpus = 32;
    in.memory_bytes = 64 * kGiB;
    auto r = Recommend(in, Profile::kOltp, {});
    ASSERT_TRUE(r.ok()) << major << ": " << r.status().ToString();
    EXPECT_EQ(Rec(*r, "io_workers") != nullptr, major >= 18) << major;
    if (major >= 18) {
      EXPECT_EQ(Rec(*r, "io_workers")->context, "sighup");
      EXPECT_EQ(Rec(*r, "autovacuum_max_workers")->context, "sighup");
      EXPECT_EQ(Rec(*r, "autovacuum_max_workers")->apply, Apply::kReload);
    } else {
      EXPECT_EQ(Rec(*r, "autovacuum_max_workers")->apply, Apply::kRestart);
    }
    Overrides o;
    o.values["vacuum_buffer_usage_limit"] = SettingValue::Bytes(8 * kMiB);
    EXPECT_TRUE(Recommend(in, Profile::kOltp, {}, o).ok()) << major;
    Overrides io;
    io.values["io_method"] = SettingValue::Word("io_uring");
    EXPECT_EQ(Recommend(in, Profile::kOltp, {}, io).ok(), major >= 18) << major;
  }
  TuneInputs nineteen = Web16();
  nineteen.server_major = 19;
  EXPECT_FALSE(Recommend(nineteen, Profile::kOltp, {}).ok());
}

}  // namespace
}  // namespace pgrig::tune
