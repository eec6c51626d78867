// Server facts against the real embedded cluster, and `pgrig facts` end to
// end with and without a server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "host/facts_json.h"
#include "host/server_facts.h"
#include "support/test_cluster.h"

namespace pgrig::host {
namespace {

using ::testing::HasSubstr;

QueryFn Over(pg::Connection* c) {
  return [c](std::string_view sql) -> Result<SqlRows> {
    auto r = c->Exec(sql);
    if (!r.ok()) return r.status();
    SqlRows rows;
    for (int i = 0; i < r->rows(); ++i) {
      rows.emplace_back();
      for (int j = 0; j < r->cols(); ++j) {
        if (r->IsNull(i, j))
          rows.back().emplace_back(std::nullopt);
        else
          rows.back().emplace_back(std::string(r->Get(i, j)));
      }
    }
    return rows;
  };
}

TEST(ServerFactsITest, RealServer) {
  pg::Connection conn = pgrig::testing::ConnectShared();
  RealProcessRunner runner;
  ServerFacts f = CollectServerFacts(
      Over(&conn),
      {.location = ServerLocation::kLocal, .memory_bytes = 1ull << 40, .runner = &runner});
  ASSERT_TRUE(f.version_num.has_value());
  EXPECT_EQ(*f.version_num, conn.server_version());
  EXPECT_THAT(*f.version, HasSubstr("PostgreSQL"));
  ASSERT_TRUE(f.shared_buffers_bytes.has_value());
  EXPECT_GT(*f.shared_buffers_bytes, 0u);
  ASSERT_TRUE(f.database_size_bytes.has_value());
  EXPECT_GT(*f.database_size_bytes, 0u);
  EXPECT_EQ(f.fits_in_ram, true);
  bool has_fsync = false;
  for (const auto& s : f.settings) has_fsync |= s.name == "fsync";
  EXPECT_TRUE(has_fsync);
  // Local server: build flags come from the pg_config view or program.
  EXPECT_TRUE(f.build.cflags.has_value());
  EXPECT_TRUE(f.build.configure.has_value());
  // The compiler: pg_config's command, and as version() states it.
  EXPECT_EQ(f.build.cc.value_or(""), "gcc");
  EXPECT_THAT(f.build.compiler.value_or(""), ::testing::StartsWith("gcc ("));
  EXPECT_THAT(*f.version, HasSubstr("compiled by " + f.build.compiler.value_or("?")));
  // The binary's own code says whether it keeps frame pointers.
  EXPECT_THAT(f.build.frame_pointers, ::testing::AnyOf("yes", "no", "partly"))
      << f.build.frame_pointers_detail.value_or("");
  ASSERT_TRUE(f.build.frame_pointers_detail.has_value());
  EXPECT_THAT(*f.build.frame_pointers_detail, HasSubstr(" functions ("));
}

TEST(ServerFactsITest, CommandWithAndWithoutServer) {
  pg::ConnectionParams p = pgrig::testing::SharedParams();
  std::vector<std::string> args = {"facts", "--json", "-h", p.host, "-p", p.port, "-d", p.dbname};
  if (!p.user.empty()) args.insert(args.end(), {"-U", p.user});
  auto with = pgrig::testing::RunPgrig(args);
  ASSERT_EQ(with.exit_code, 0) << with.err;
  auto doc = nlohmann::json::parse(with.out);
  EXPECT_EQ(doc["schema"], kFactsSchema);
  ASSERT_TRUE(doc["server"].is_object());
  EXPECT_TRUE(doc["server"]["version_num"].is_number());
  EXPECT_TRUE(doc["server"]["local"].get<bool>());
  EXPECT_TRUE(doc["host"]["storage"].is_object());  // the server's data directory
  EXPECT_TRUE(doc["server"]["build"]["frame_pointers"].is_string());
  EXPECT_TRUE(doc["server"]["build"]["compiler"].is_string());
  EXPECT_TRUE(doc["server"]["build"]["cc"].is_string());
  EXPECT_TRUE(doc["server"]["build"]["frame_pointers_detail"].is_string());

  auto without = pgrig::testing::RunPgrig({"facts", "--no-server"});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_THAT(without.out, HasSubstr("not connected"));

  auto bad = pgrig::testing::RunPgrig({"facts", "-h", "/nonexistent-socket-dir", "-p", "1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("--no-server"));
}

}  // namespace
}  // namespace pgrig::host
