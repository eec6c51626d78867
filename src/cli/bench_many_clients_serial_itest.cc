// `pgrig bench` with a thousand clients from one process, against the shared
// embedded cluster.  It runs alone (files named *_serial_itest.cc get CTest's
// RUN_SERIAL): starting a thousand backends keeps both cores of a small
// machine busy for tens of seconds, which would starve the other tests'
// servers and clients of CPU and make their timing assertions fail.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/fs.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

TEST(BenchManyClientsTest, ThousandClientsFromOneProcess) {
  const std::string db = "bench_many_" + std::to_string(::getpid());
  pg::Connection admin = testing::ConnectShared("postgres");
  ASSERT_TRUE(admin.valid());
  ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db).ok());
  ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db).ok());
  const pg::ConnectionParams p = testing::SharedParams(db);
  const std::vector<std::string> conn = {"-h", p.host, "-p", p.port, "-U", p.user, p.dbname};

  std::vector<std::string> init = {"-i", "-q", "-s", "1"};
  init.insert(init.end(), conn.begin(), conn.end());
  ProcessResult ir = testing::RunServerTool("pgbench", init);
  ASSERT_EQ(ir.exit_code, 0) << ir.err;

  // A count, not a duration: on a small machine the thousand backends take
  // longer to start than a short -T would last, and every client must run.
  const std::string json = "/tmp/pgrig-bench-itest-1000-" + std::to_string(::getpid()) + ".json";
  std::vector<std::string> args = {"bench", "-S", "-c", "1000",   "-j", "2",
                                   "-t",    "3",  "-n", "--json", json};
  args.insert(args.end(), conn.begin(), conn.end());
  ProcessResult r = testing::RunPgrig(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("number of clients: 1000\n"));
  EXPECT_THAT(r.out, HasSubstr("number of transactions actually processed: 3000/3000\n"));
  EXPECT_THAT(r.out, HasSubstr("number of failed transactions: 0 (0.000%)\n"));
  auto text = ReadWholeFile(json);
  ASSERT_TRUE(text.ok());
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["aborted_clients"], 0);
  EXPECT_EQ(j["summary"]["transactions"], 3000);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The sanitizers' shadow memory inflates the resident set (ThreadSanitizer
  // alone to 266 MB); the limit is about the real build.
  EXPECT_LT(j["client"]["max_rss_bytes"].get<int64_t>(), 100LL * 1024 * 1024);
#endif
  std::remove(json.c_str());
  (void)admin.Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
}

}  // namespace
}  // namespace pgrig
