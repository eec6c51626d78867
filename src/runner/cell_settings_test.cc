// Unit tests: splitting and validating a plan's settings against a
// pg_settings-like table, value parsing as PostgreSQL does it, and the libpq
// options string.  The real server is in cell_settings_itest.cc.
#include "runner/cell_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "runner/setting_value.h"

namespace pgrig::runner {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

tune::CurrentSetting Row(std::string name, std::string context, std::string vartype,
                         std::string unit = "", std::string min = "", std::string max = "",
                         std::vector<std::string> enumvals = {}, std::string setting = "") {
  tune::CurrentSetting s;
  s.name = std::move(name);
  s.context = std::move(context);
  s.vartype = std::move(vartype);
  s.unit = std::move(unit);
  s.min_val = std::move(min);
  s.max_val = std::move(max);
  s.enumvals = std::move(enumvals);
  s.setting = std::move(setting);
  return s;
}

// Rows as PostgreSQL 15 shows them.
tune::CurrentSettings Table() {
  tune::CurrentSettings t;
  for (auto r : {
           Row("jit", "user", "bool"),
           Row("jit_above_cost", "user", "real", "", "-1", "1.79769e+308"),
           Row("work_mem", "user", "integer", "kB", "64", "2147483647"),
           Row("application_name", "user", "string"),
           Row("search_path", "user", "string"),
           Row("synchronous_commit", "user", "enum", "", "", "",
               {"local", "remote_write", "remote_apply", "on", "off"}),
           Row("session_replication_role", "superuser", "enum", "", "", "",
               {"origin", "replica", "local"}),
           Row("shared_buffers", "postmaster", "integer", "8kB", "16", "1073741823"),
           Row("max_connections", "postmaster", "integer", "", "1", "262143"),
           Row("checkpoint_completion_target", "sighup", "real", "", "0", "1"),
           Row("checkpoint_timeout", "sighup", "integer", "s", "30", "86400"),
           Row("max_wal_size", "sighup", "integer", "MB", "2", "2147483647"),
           Row("log_connections", "superuser-backend", "bool"),
           Row("post_auth_delay", "backend", "integer", "s", "0", "2147"),
           Row("data_checksums", "internal", "bool"),
       }) {
    t.emplace(r.name, r);
  }
  return t;
}

TEST(CellSettingsSplit, ClassifiesByContext) {
  auto s = SplitAndValidate(Table(), {{"jit", "off"},
                                      {"jit_above_cost", "1000"},
                                      {"work_mem", "8MB"},
                                      {"session_replication_role", "origin"},
                                      {"shared_buffers", "1GB"},
                                      {"checkpoint_completion_target", "0.9"},
                                      {"log_connections", "on"},
                                      {"post_auth_delay", "0"}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->per_connection,
            (std::map<std::string, std::string>{{"jit", "off"},
                                                {"jit_above_cost", "1000"},
                                                {"session_replication_role", "origin"},
                                                {"work_mem", "8MB"}}));
  EXPECT_EQ(s->server, (std::map<std::string, std::string>{{"checkpoint_completion_target", "0.9"},
                                                           {"log_connections", "on"},
                                                           {"post_auth_delay", "0"},
                                                           {"shared_buffers", "1GB"}}));
}

TEST(CellSettingsSplit, NamesAreCaseInsensitiveAndBooleansNormalised) {
  auto s = SplitAndValidate(Table(), {{"JIT", "TRUE"}, {"synchronous_commit", "false"}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->per_connection.at("jit"), "on");
  EXPECT_EQ(s->per_connection.at("synchronous_commit"), "false");  // PostgreSQL takes it as is
  EXPECT_TRUE(s->server.empty());
}

TEST(CellSettingsSplit, UnknownNameSuggestsTheClosest) {
  auto s = SplitAndValidate(Table(), {{"shared_buffer", "1GB"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              AllOf(HasSubstr("'shared_buffer'"), HasSubstr("did you mean 'shared_buffers'?")));

  auto far = SplitAndValidate(Table(), {{"zzzzzzzzzzzzzzzzzzzzzz", "1"}});
  ASSERT_FALSE(far.ok());
  EXPECT_THAT(far.status().message(),
              AllOf(HasSubstr("zzzz"), ::testing::Not(HasSubstr("did you mean"))));

  auto ext = SplitAndValidate(Table(), {{"pg_stat_statements.track", "all"}});
  ASSERT_FALSE(ext.ok());
  EXPECT_THAT(ext.status().message(), HasSubstr("extension that is not loaded"));
}

TEST(CellSettingsSplit, BadValuesNameSettingValueAndWhatIsAllowed) {
  struct Case {
    const char* name;
    const char* value;
    std::vector<std::string> expect;
  };
  for (const Case& c : std::vector<Case>{
           {"work_mem", "32kB", {"work_mem", "'32kB'", "64 to 2147483647"}},
           {"jit", "maybe", {"jit", "'maybe'", "on or off"}},
           {"synchronous_commit", "fast", {"synchronous_commit", "'fast'", "local, remote_write"}},
           {"checkpoint_completion_target",
            "1.5",
            {"checkpoint_completion_target", "'1.5'", "0 to 1"}},
           {"checkpoint_timeout", "2d", {"checkpoint_timeout", "'2d'", "30 to 86400"}},
           {"checkpoint_timeout", "10", {"checkpoint_timeout", "'10'", "30 to 86400"}},
           {"work_mem", "4XB", {"work_mem", "'XB'", "B, kB, MB, GB or TB"}},
           {"work_mem", "4mb", {"work_mem", "'mb'", "case matters"}},
           {"checkpoint_timeout", "5 fortnights", {"checkpoint_timeout", "us, ms, s, min, h or d"}},
           {"max_connections", "10MB", {"max_connections", "plain number"}},
           {"max_connections", "many", {"max_connections", "'many'", "must be a number"}},
           {"shared_buffers", "64kB", {"shared_buffers", "'64kB'", "16 to 1073741823"}},
           {"data_checksums", "on", {"data_checksums", "cannot be changed"}},
       }) {
    auto s = SplitAndValidate(Table(), {{c.name, c.value}});
    ASSERT_FALSE(s.ok()) << c.name << "=" << c.value;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    for (const auto& e : c.expect) {
      EXPECT_THAT(s.status().message(), HasSubstr(e)) << c.name << "=" << c.value;
    }
  }
}

TEST(CellSettingsSplit, ValuesInEveryUnitPostgresqlTakes) {
  for (auto [name, value] :
       std::vector<std::pair<std::string, std::string>>{{"work_mem", "64"},
                                                        {"work_mem", "1GB"},
                                                        {"work_mem", "65536B"},
                                                        {"shared_buffers", "16"},
                                                        {"shared_buffers", "128kB"},
                                                        {"shared_buffers", "2 GB"},
                                                        {"checkpoint_timeout", "1d"},
                                                        {"checkpoint_timeout", "30000ms"},
                                                        {"checkpoint_timeout", "30000000us"},
                                                        {"jit_above_cost", "-1"},
                                                        {"jit_above_cost", "1e5"},
                                                        {"synchronous_commit", "REMOTE_APPLY"}}) {
    auto s = SplitAndValidate(Table(), {{name, value}});
    EXPECT_TRUE(s.ok()) << name << "=" << value << ": " << s.status().ToString();
  }
}

TEST(CellSettingsValue, CanonicalValuesMatchWhatPgSettingsShows) {
  auto t = Table();
  auto wm = ParseSettingValue(t.at("work_mem"), "4MB");
  ASSERT_TRUE(wm.ok());
  EXPECT_EQ(wm->value, tune::SettingValue::Bytes(4 * tune::kMiB));
  auto sb = ParseSettingValue(t.at("shared_buffers"), "100");  // pages
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->value, tune::SettingValue::Bytes(100 * 8192));
  auto ct = ParseSettingValue(t.at("checkpoint_timeout"), "5min");
  ASSERT_TRUE(ct.ok());
  EXPECT_EQ(ct->value, tune::SettingValue::Millis(300000));
  // PostgreSQL rounds to the setting's unit: 1.4s -> 1 s.
  auto rounded = ParseSettingValue(t.at("checkpoint_timeout"), "1400ms");
  ASSERT_TRUE(rounded.ok());
  EXPECT_EQ(rounded->value, tune::SettingValue::Millis(1000));

  tune::CurrentSetting live = t.at("checkpoint_timeout");
  live.setting = "300";
  EXPECT_TRUE(LiveMatches(live, *ct, false));
  live.setting = "301";
  EXPECT_FALSE(LiveMatches(live, *ct, false));

  tune::CurrentSetting tz = Row("TimeZone", "user", "string", "", "", "", {}, "UTC");
  auto utc = ParseSettingValue(tz, "utc");
  ASSERT_TRUE(utc.ok());
  EXPECT_FALSE(LiveMatches(tz, *utc, false));
  EXPECT_TRUE(LiveMatches(tz, *utc, true));  // the server rewrote what pgrig wrote
}

TEST(CellSettingsOptions, EscapesSpacesAndBackslashes) {
  EXPECT_EQ(ConnectionOptions({}), "");
  EXPECT_EQ(ConnectionOptions({{"jit", "off"}}), "-c jit=off");
  EXPECT_EQ(ConnectionOptions({{"jit", "off"}, {"search_path", "a, b"}}),
            "-c jit=off -c search_path=a,\\ b");
  EXPECT_EQ(ConnectionOptions({{"application_name", "x\\y z"}}), "-c application_name=x\\\\y\\ z");
  EXPECT_EQ(ConnectionOptions({{"application_name", "tab\there"}}),
            "-c application_name=tab\\\there");
}

TEST(CellSettingsOptions, AddsToOptionsAlreadyGiven) {
  pg::ConnectionParams p;
  p.extra.emplace_back("options", "-c statement_timeout=0");
  auto q = WithConnectionSettings(p, {{"jit", "off"}});
  ASSERT_EQ(q.extra.size(), 1u);
  EXPECT_EQ(q.extra[0].second, "-c statement_timeout=0 -c jit=off");

  ::setenv("PGOPTIONS", "-c geqo=off", 1);
  auto r = WithConnectionSettings(pg::ConnectionParams{}, {{"jit", "on"}});
  ::unsetenv("PGOPTIONS");
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0], (std::pair<std::string, std::string>{"options", "-c geqo=off -c jit=on"}));

  auto none = WithConnectionSettings(pg::ConnectionParams{}, {});
  EXPECT_TRUE(none.extra.empty());
}

}  // namespace
}  // namespace pgrig::runner
