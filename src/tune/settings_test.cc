#include "tune/settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::tune {
namespace {

using ::testing::HasSubstr;

TEST(SettingValue, ConfTextUsesTheLargestExactUnit) {
  EXPECT_EQ(SettingValue::Bytes(4 * kGiB).ToConf(), "4GB");
  EXPECT_EQ(SettingValue::Bytes(2624 * kMiB).ToConf(), "2624MB");
  EXPECT_EQ(SettingValue::Bytes(15552 * kKiB).ToConf(), "15552kB");
  EXPECT_EQ(SettingValue::Millis(15 * 60000).ToConf(), "15min");
  EXPECT_EQ(SettingValue::Millis(3600000).ToConf(), "1h");
  EXPECT_EQ(SettingValue::Millis(1500).ToConf(), "1500ms");
  EXPECT_EQ(SettingValue::Real(1.1).ToConf(), "1.1");
  EXPECT_EQ(SettingValue::Real(4).ToConf(), "4");
  EXPECT_EQ(SettingValue::Integer(300).ToConf(), "300");
  EXPECT_EQ(SettingValue::Word("lz4").ToConf(), "lz4");
}

TEST(SettingValue, FromPgSettingsConvertsUnits) {
  auto sb = FromPgSettings("shared_buffers", "16384", "8kB", "integer");
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->kind, ValueKind::kBytes);
  EXPECT_EQ(sb->ToConf(), "128MB");
  auto wal = FromPgSettings("max_wal_size", "1024", "MB", "integer");
  EXPECT_EQ(wal->ToConf(), "1GB");
  auto ct = FromPgSettings("checkpoint_timeout", "300", "s", "integer");
  EXPECT_EQ(ct->kind, ValueKind::kMillis);
  EXPECT_EQ(ct->ToConf(), "5min");
  auto av = FromPgSettings("autovacuum_work_mem", "-1", "kB", "integer");
  EXPECT_EQ(av->integer, -1);
  EXPECT_EQ(av->ToConf(), "-1");
  EXPECT_EQ(FromPgSettings("jit", "on", "", "bool")->word, "on");
  EXPECT_DOUBLE_EQ(FromPgSettings("random_page_cost", "4", "", "real")->real, 4.0);
  EXPECT_FALSE(FromPgSettings("work_mem", "lots", "kB", "integer").ok());
}

TEST(SettingValue, InUnitForMinMaxChecks) {
  EXPECT_DOUBLE_EQ(InUnit(SettingValue::Bytes(4 * kGiB), "8kB"), 524288.0);
  EXPECT_DOUBLE_EQ(InUnit(SettingValue::Bytes(4 * kGiB), "MB"), 4096.0);
  EXPECT_DOUBLE_EQ(InUnit(SettingValue::Millis(900000), "s"), 900.0);
  EXPECT_DOUBLE_EQ(InUnit(SettingValue::Integer(7), ""), 7.0);
}

TEST(SettingValue, ParsesUserValuesPerSetting) {
  EXPECT_EQ(ParseUserValue("shared_buffers", "2GB")->integer, static_cast<int64_t>(2 * kGiB));
  // No unit: the setting's own unit, as PostgreSQL reads it.
  EXPECT_EQ(ParseUserValue("shared_buffers", "1000")->integer, 1000 * 8192);
  EXPECT_EQ(ParseUserValue("work_mem", "'64MB'")->integer, static_cast<int64_t>(64 * kMiB));
  EXPECT_EQ(ParseUserValue("checkpoint_timeout", "30min")->integer, 30 * 60000);
  EXPECT_EQ(ParseUserValue("jit", "false")->word, "off");
  EXPECT_EQ(ParseUserValue("huge_pages", "ON")->word, "on");
  EXPECT_DOUBLE_EQ(ParseUserValue("random_page_cost", "1.5")->real, 1.5);
  EXPECT_FALSE(ParseUserValue("max_connections", "1.5").ok());
  EXPECT_FALSE(ParseUserValue("max_connections", "lots").ok());
  EXPECT_FALSE(ParseUserValue("work_mem", "-5MB").ok());
  EXPECT_FALSE(ParseUserValue("checkpoint_timeout", "5GB").ok());
  EXPECT_FALSE(ParseUserValue("jit", "maybe").ok());
}

TEST(SettingValue, ParseSizeNeedsAUnit) {
  EXPECT_EQ(*ParseSize("16GB"), 16 * kGiB);
  EXPECT_EQ(*ParseSize("512MB"), 512 * kMiB);
  EXPECT_EQ(*ParseSize("1.5g"), 3 * kGiB / 2);
  EXPECT_EQ(*ParseSize("2TiB"), 2048 * kGiB);
  EXPECT_THAT(ParseSize("16").status().message(), HasSubstr("16GB"));
  EXPECT_FALSE(ParseSize("lots").ok());
  EXPECT_FALSE(ParseSize("16XB").ok());
}

TEST(Defaults, FollowTheServerVersion) {
  EXPECT_DOUBLE_EQ(GetReal(DefaultSettings(13), "checkpoint_completion_target", 0), 0.5);
  EXPECT_DOUBLE_EQ(GetReal(DefaultSettings(14), "checkpoint_completion_target", 0), 0.9);
  EXPECT_DOUBLE_EQ(GetReal(DefaultSettings(14), "hash_mem_multiplier", 0), 1.0);
  EXPECT_DOUBLE_EQ(GetReal(DefaultSettings(15), "hash_mem_multiplier", 0), 2.0);
  EXPECT_EQ(DefaultSettings(15).count("reserved_connections"), 0u);
  EXPECT_EQ(DefaultSettings(16).count("reserved_connections"), 1u);
  EXPECT_TRUE(NeedsRestartOffline("shared_buffers", 16));
  EXPECT_FALSE(NeedsRestartOffline("work_mem", 16));
}

// Issue 14, item 14: offline --set values are checked as PostgreSQL would.
TEST(SettingRanges, OfflineValuesAreRangeChecked) {
  auto check = [](const char* name, const char* text, int major = 15) {
    auto v = ParseUserValue(name, text);
    if (!v.ok()) return v.status();
    return CheckOfflineValue(name, *v, major);
  };
  EXPECT_THAT(check("random_page_cost", "-1").message(), HasSubstr("outside"));
  EXPECT_THAT(check("shared_buffers", "1kB").message(), HasSubstr("128kB"));
  EXPECT_TRUE(check("shared_buffers", "128kB").ok());
  EXPECT_FALSE(check("effective_io_concurrency", "1001").ok());
  EXPECT_FALSE(check("checkpoint_completion_target", "1.5").ok());
  EXPECT_FALSE(check("checkpoint_timeout", "10s").ok());
  EXPECT_TRUE(check("autovacuum_work_mem", "-1").ok());
  EXPECT_FALSE(check("huge_pages", "maybe").ok());
  EXPECT_TRUE(check("wal_compression", "zstd").ok());
  EXPECT_FALSE(check("wal_compression", "zstd", 14).ok());
  EXPECT_FALSE(check("vacuum_buffer_usage_limit", "64kB", 16).ok());
  EXPECT_TRUE(check("vacuum_buffer_usage_limit", "0", 16).ok());
  EXPECT_TRUE(check("io_combine_limit", "1MB", 18).ok());
  EXPECT_FALSE(check("io_combine_limit", "1MB", 17).ok());
  // Unknown names are refused, with the likely one suggested.
  Status typo = CheckOfflineValue("shared_bufers", SettingValue::Bytes(kGiB), 15);
  EXPECT_THAT(typo.message(), HasSubstr("did you mean shared_buffers"));
  // A setting from a later release names the release.
  Status later = CheckOfflineValue("io_method", SettingValue::Word("worker"), 17);
  EXPECT_THAT(later.message(), HasSubstr("PostgreSQL 18"));
  EXPECT_TRUE(CheckOfflineValue("io_method", SettingValue::Word("io_uring"), 18).ok());
}

// Issue 14, item 14: contexts are PostgreSQL's, not "sighup" for everything.
TEST(SettingRanges, OfflineContextsArePostgresOwn) {
  EXPECT_EQ(OfflineContext("shared_buffers", 15), "postmaster");
  EXPECT_EQ(OfflineContext("work_mem", 15), "user");
  EXPECT_EQ(OfflineContext("random_page_cost", 15), "user");
  EXPECT_EQ(OfflineContext("effective_io_concurrency", 15), "user");
  EXPECT_EQ(OfflineContext("wal_compression", 15), "superuser");
  EXPECT_EQ(OfflineContext("checkpoint_timeout", 15), "sighup");
  EXPECT_EQ(OfflineContext("autovacuum_work_mem", 15), "sighup");
  EXPECT_EQ(OfflineContext("autovacuum_max_workers", 17), "postmaster");
  EXPECT_EQ(OfflineContext("autovacuum_max_workers", 18), "sighup");
  EXPECT_EQ(OfflineContext("io_workers", 18), "sighup");
  EXPECT_EQ(OfflineContext("io_method", 18), "postmaster");
}

// Issue 14, item 14: --memory 16777216TB overflowed into "below 256MB".
TEST(SettingValue, ParseSizeRefusesSizesTooLargeToHold) {
  auto r = ParseSize("16777216TB");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("too large"));
  EXPECT_FALSE(ParseSize("1e300GB").ok());
  EXPECT_EQ(*ParseSize("64TB"), 64 * 1024 * kGiB);
}

}  // namespace
}  // namespace pgrig::tune
