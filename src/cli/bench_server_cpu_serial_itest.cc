// The server's CPU per transaction in `pgrig bench` against the shared
// embedded cluster (issue 16, point 3), and the postmaster it is read from.
// Serial: the meter reads the postmaster's whole process tree, so another
// test's backends coming and going on the shared cluster would keep the
// closing snapshot from settling and add their CPU to the window.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "host/server_cpu.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

using testing::ConnArgs;

class BenchServerCpuITest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = "server_cpu_itest_" + std::to_string(::getpid());
    pg::Connection admin = testing::ConnectShared("postgres");
    ASSERT_TRUE(admin.valid());
    ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db_).ok());
    ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db_).ok());
    params_ = testing::SharedParams(db_);
  }
  void TearDown() override {
    pg::Connection admin = testing::ConnectShared("postgres");
    if (admin.valid()) (void)admin.Exec("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }
  std::string db_;
  pg::ConnectionParams params_;
};

// The located process is the cluster's postmaster: the PID in the first
// line of its postmaster.pid.
TEST_F(BenchServerCpuITest, LocatesTheSharedClustersPostmaster) {
  auto pm = host::LocateLocalPostmaster(params_);
  ASSERT_TRUE(pm.ok()) << pm.status().message();
  pg::Connection c = testing::ConnectShared(db_);
  auto dir = c.QueryValue("show data_directory");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  std::ifstream pid_file(*dir + "/postmaster.pid");
  int pid = 0;
  pid_file >> pid;
  EXPECT_EQ(*pm, pid);
  // And the meter reads its tree: at least the background processes live.
  auto meter = host::ServerCpuMeter::ForProcess(*pm);
  ASSERT_TRUE(meter.ok());
  auto snap = meter->Snapshot();
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  EXPECT_GE(snap->live_children, 3);  // checkpointer, walwriter, our backend...
}

TEST_F(BenchServerCpuITest, SelectOnlyRecordsServerCpuPerTransaction) {
  std::vector<std::string> init = {"init", "-q", "-s", "1"};
  for (auto& a : ConnArgs(params_)) init.push_back(a);
  ProcessResult i = testing::RunPgrig(init);
  ASSERT_EQ(i.exit_code, 0) << i.err;
  const std::string json = "/tmp/pgrig-server-cpu-itest-" + std::to_string(getpid()) + ".json";
  std::vector<std::string> args = {"bench", "-S", "-c", "2", "-T", "2", "--json", json};
  for (auto& a : ConnArgs(params_)) args.push_back(a);
  ProcessResult r = testing::RunPgrig(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("server CPU per transaction = ")) << r.out;
  auto text = ReadWholeFile(json);
  ASSERT_TRUE(text.ok());
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j["server_cpu_unavailable"].is_null()) << j["server_cpu_unavailable"].dump();
  ASSERT_TRUE(j["summary"]["server_cpu_us_per_transaction"].is_number()) << j["summary"].dump();
  const double server_us = j["summary"]["server_cpu_us_per_transaction"].get<double>();
  // A select-only transaction costs the server microseconds to a few hundred
  // on a busy machine; 10 ms each would mean the window or the sum is wrong.
  EXPECT_GT(server_us, 1.0);
  EXPECT_LT(server_us, 10000.0);
  EXPECT_TRUE(j["server_cpu"]["settled"].get<bool>());
  EXPECT_NEAR(
      j["server_cpu"]["cpu_s"].get<double>(),
      j["server_cpu"]["cpu_user_s"].get<double>() + j["server_cpu"]["cpu_system_s"].get<double>(),
      1e-9);
  // Fewer CPU-seconds than the window could hold on every CPU of the host.
  EXPECT_LT(j["server_cpu"]["cpu_s"].get<double>(),
            j["summary"]["duration_s"].get<double>() * sysconf(_SC_NPROCESSORS_ONLN) + 0.5);
  std::remove(json.c_str());
}

}  // namespace
}  // namespace pgrig
