// Server facts from a scripted server (a QueryFn answering like PostgreSQL
// 15 or 17 would) and a fake pg_config.
#include "host/server_facts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;

struct FakeServer {
  std::string version = "PostgreSQL 15.8 on x86_64-pc-linux-gnu";
  std::string version_num = "150008";
  std::string db_size = "1048576000";  // 1000 MiB
  bool superuser = true;
  std::vector<std::vector<std::optional<std::string>>> settings = {
      {"shared_buffers", "16384", "8kB", "configuration file"},  // 128 MiB
      {"max_connections", "100", std::nullopt, "configuration file"},
      {"synchronous_commit", "on", std::nullopt, "default"},
      {"jit", "on", std::nullopt, "default"},
      {"data_directory", "/var/lib/postgresql/15/main", std::nullopt, "override"},
  };
  std::vector<std::string> seen;

  QueryFn Fn() {
    return [this](std::string_view sql) -> Result<SqlRows> {
      seen.emplace_back(sql);
      if (sql.find("version()") != std::string_view::npos) {
        return SqlRows{{version, version_num, "bench", db_size}};
      }
      if (sql.find("pg_settings") != std::string_view::npos) return settings;
      if (sql.find("FROM pg_config") != std::string_view::npos) {
        if (!superuser)
          return Status(StatusCode::kPermissionDenied, "permission denied for view pg_config");
        return SqlRows{{"BINDIR", "/usr/lib/postgresql/15/bin"},
                       {"CONFIGURE", "'--prefix=/usr' '--with-llvm'"},
                       {"CFLAGS", "-O2 -g"},
                       {"CC", "gcc"}};
      }
      return Status(StatusCode::kInternal, "unexpected query");
    };
  }
};

class FakeRunner : public ProcessRunner {
 public:
  std::map<std::string, std::string> answers;  // flag -> stdout
  mutable std::vector<std::vector<std::string>> calls;
  Result<ProcessResult> Run(const ProcessOptions& o) const override {
    calls.push_back(o.argv);
    ProcessResult r;
    auto it = answers.find(o.argv.size() > 1 ? o.argv[1] : "");
    if (it == answers.end()) {
      r.exit_code = 1;
      r.err = "unknown option";
    } else {
      r.exit_code = 0;
      r.out = it->second + "\n";
    }
    return r;
  }
};

TEST(ServerFactsTest, VersionSettingsAndFit) {
  FakeServer srv;
  ServerFacts f = CollectServerFacts(
      srv.Fn(), {.location = ServerLocation::kLocal, .memory_bytes = 512ull << 20});
  EXPECT_EQ(f.version, srv.version);
  EXPECT_EQ(f.version_num, 150008);
  EXPECT_EQ(f.database, "bench");
  EXPECT_EQ(f.database_size_bytes, 1048576000u);
  EXPECT_EQ(f.data_directory, "/var/lib/postgresql/15/main");
  EXPECT_EQ(f.shared_buffers_bytes, 128ull << 20);
  EXPECT_EQ(f.fits_in_shared_buffers, false);
  EXPECT_EQ(f.fits_in_ram, false);  // 1000 MiB database, 512 MiB memory
  // Settings come out in the documented order, not the server's.
  ASSERT_EQ(f.settings.size(), 4u);
  EXPECT_EQ(f.settings[0].name, "shared_buffers");
  EXPECT_EQ(f.settings[1].name, "max_connections");
  EXPECT_EQ(f.settings[2].name, "jit");
  EXPECT_EQ(f.settings[3].name, "synchronous_commit");
  // PostgreSQL 15 has no huge_pages_status: said, not guessed.
  bool noted = false;
  for (const auto& n : f.notes) noted |= n.find("huge_pages_status") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(f.build.configure, "'--prefix=/usr' '--with-llvm'");
  EXPECT_EQ(f.build.source, "pg_config view");
  EXPECT_EQ(f.build.cc, "gcc");
  EXPECT_EQ(f.build.arm_atomics, "not_applicable");
}

TEST(ServerFactsTest, CompilerAsTheServerStatesIt) {
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on "
                                "x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) "
                                "12.2.0, 64-bit"),
            "gcc (Debian 12.2.0-14+deb12u1) 12.2.0");
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 17.0 on aarch64-unknown-linux-gnu, compiled by clang "
                                "version 18.1.3 (Fedora 18.1.3-1.fc40), 64-bit"),
            "clang version 18.1.3 (Fedora 18.1.3-1.fc40)");
  // A compiler string with commas of its own keeps them; no word size.
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 16.2, compiled by Visual C++ build 1937, 64-bit"),
            "Visual C++ build 1937");
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 16.2, compiled by cc, x"), "cc, x");
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 16.2 on x86_64-pc-linux-gnu"), std::nullopt);
  EXPECT_EQ(CompilerFromVersion("PostgreSQL 16.2, compiled by , 64-bit"), std::nullopt);
  EXPECT_EQ(CompilerFromVersion(""), std::nullopt);
}

TEST(ServerFactsTest, RemoteServerDoesNotClaimToFitInOurRam) {
  FakeServer srv;
  srv.db_size = "1000";
  ServerFacts f = CollectServerFacts(
      srv.Fn(),
      {.location = ServerLocation::kRemote, .memory_bytes = 1ull << 40, .host_is_arm = true});
  EXPECT_EQ(f.fits_in_shared_buffers, true);
  EXPECT_FALSE(f.fits_in_ram.has_value());
  EXPECT_EQ(f.build.arm_atomics, "not_applicable");
  EXPECT_THAT(*f.build.arm_atomics_detail, HasSubstr("not on this machine"));
  EXPECT_EQ(f.build.frame_pointers, "unknown");
  EXPECT_THAT(*f.build.frame_pointers_detail, HasSubstr("not on this machine"));
}

TEST(ServerFactsTest, NonSuperuserFallsBackToPgConfigOfTheSameVersion) {
  FakeServer srv;
  srv.superuser = false;
  FakeRunner runner;
  runner.answers = {{"--version", "PostgreSQL 15.8 (Debian 15.8-1)"},
                    {"--configure", "'--prefix=/opt/pg'"},
                    {"--cflags", "-O3 -march=armv8.2-a"},
                    {"--bindir", "/opt/pg/bin"}};
  ServerFacts f =
      CollectServerFacts(srv.Fn(), {.location = ServerLocation::kLocal, .runner = &runner});
  EXPECT_EQ(f.build.configure, "'--prefix=/opt/pg'");
  EXPECT_EQ(f.build.cflags, "-O3 -march=armv8.2-a");
  EXPECT_EQ(f.build.bindir, "/opt/pg/bin");
  ASSERT_FALSE(runner.calls.empty());
  EXPECT_EQ(runner.calls[0][0], "pg_config");
}

TEST(ServerFactsTest, PgConfigOfAnotherVersionIsNotTrusted) {
  FakeServer srv;
  srv.superuser = false;
  FakeRunner runner;
  runner.answers = {{"--version", "PostgreSQL 17.2"}, {"--cflags", "-O0"}};
  ServerFacts f =
      CollectServerFacts(srv.Fn(), {.location = ServerLocation::kLocal, .runner = &runner});
  EXPECT_FALSE(f.build.cflags.has_value());
  bool noted = false;
  for (const auto& n : f.notes) noted |= n.find("not the server's version") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ServerFactsTest, FailingServerGivesNotesNotCrashes) {
  QueryFn broken = [](std::string_view) -> Result<SqlRows> {
    return Status(StatusCode::kUnavailable, "server closed the connection unexpectedly");
  };
  ServerFacts f = CollectServerFacts(broken, {});
  EXPECT_FALSE(f.version.has_value());
  EXPECT_TRUE(f.settings.empty());
  EXPECT_FALSE(f.fits_in_shared_buffers.has_value());
  EXPECT_GE(f.notes.size(), 2u);
}

TEST(ServerFactsTest, SettingBytesHonoursUnits) {
  EXPECT_EQ(SettingBytes({"shared_buffers", "16384", "8kB", {}}), 134217728u);
  EXPECT_EQ(SettingBytes({"work_mem", "4096", "kB", {}}), 4194304u);
  EXPECT_EQ(SettingBytes({"max_wal_size", "1024", "MB", {}}), 1073741824u);
  EXPECT_FALSE(SettingBytes({"checkpoint_timeout", "300", "s", {}}).has_value());
  EXPECT_FALSE(SettingBytes({"jit", "on", {}, {}}).has_value());
}

}  // namespace
}  // namespace pgrig::host
