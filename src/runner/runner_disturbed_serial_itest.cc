// A suite measured while other programs load the host is marked disturbed
// (observe/bottleneck.h AssessDisturbance): the runs' "disturbed", runs.csv,
// summary.md.  Serial: it loads every CPU on purpose.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/fs.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

// One busy-looping child per CPU, killed (and reaped) when this goes.
struct CpuHogs {
  std::vector<pid_t> pids;
  explicit CpuHogs(int n) {
    for (int i = 0; i < n; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::alarm(120);  // never outlives the test by long, whatever happens
        volatile uint64_t spins = 0;
        for (;;) {
          spins = spins + 1;
        }
      }
      if (pid > 0) pids.push_back(pid);
    }
  }
  ~CpuHogs() {
    for (pid_t p : pids) ::kill(p, SIGKILL);
    for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  }
};

TEST(DisturbedSuiteTest, RunsBesideCpuHogsAreMarkedDisturbed) {
  const std::string dir = testing::MakeTempHome("pgrig-disturbed");
  std::filesystem::create_directories(dir);
  const std::string plan = dir + "/tiny.toml";
  std::ofstream(plan) << "[plan]\nname = \"tiny\"\nscale = 1\nclients = [2]\nthreads = [1]\n"
                         "duration_s = 3\nwarmup_s = 0\niterations = 1\n\n[[workload]]\n"
                         "name = \"read\"\nbuiltin = \"select-only\"\n";
  std::vector<std::string> args = {"run", plan, "--out", dir + "/out"};
  for (const std::string& a : testing::FreshDatabase("run_disturbed")) args.push_back(a);
  ProcessResult r;
  {
    CpuHogs hogs(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    r = testing::RunPgrig(args);
  }
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto text = ReadWholeFile(dir + "/out/suite.json");
  ASSERT_TRUE(text.ok());
  const nlohmann::json s = nlohmann::json::parse(*text);
  ASSERT_EQ(s["runs"].size(), 1u);
  const nlohmann::json& run = s["runs"][0];
  // Every host sample says how much of the CPU was neither client nor server.
  for (const auto& h : run["observation"]["host"]) EXPECT_TRUE(h["cpu_other_pct"].is_number());
  ASSERT_TRUE(run["disturbed"].is_object()) << run["observation"]["host_mean"].dump();
  EXPECT_GE(run["disturbed"]["other_cpu_pct"].get<double>(), 10.0);
  EXPECT_THAT(run["bottleneck"].dump(), HasSubstr("other processes"));
  EXPECT_THAT(ReadWholeFile(dir + "/out/summary.md").value(), HasSubstr("## Disturbed runs"));
  const std::string csv = ReadWholeFile(dir + "/out/runs.csv").value();
  EXPECT_THAT(csv, HasSubstr(",disturbed_other_cpu_pct,nopm\n"));
  const std::string row = csv.substr(csv.find('\n') + 1);
  // The disturbed figure, the column before the (empty) nopm: not empty.
  const std::string before_nopm = row.substr(0, row.rfind(','));
  EXPECT_FALSE(before_nopm.substr(before_nopm.rfind(',') + 1).empty()) << csv;
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path(), ec);
}

}  // namespace
}  // namespace pgrig
