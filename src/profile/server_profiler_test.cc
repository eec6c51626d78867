// ServerProfiler's start-up when perf does not answer or fails at once,
// with stand-in perf programs (the real perf is exercised by
// cli/bench_profile_serial_itest.cc and runner/runner_itest.cc).
#include "profile/server_profiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pgrig::profile {
namespace {

using ::testing::HasSubstr;

class FakePerf : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig-fakeperf-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // An executable shell script at dir_/perf.
  std::string Script(const std::string& body) {
    const std::string path = dir_ + "/perf";
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }
  int PidFromFile() {
    std::ifstream in(dir_ + "/pid");
    int pid = 0;
    in >> pid;
    return pid;
  }

  std::string dir_;
};

TEST_F(FakePerf, APerfThatNeverAnswersIsGivenUpOnAndKilled) {
  const std::string perf = Script("echo $$ > \"$(dirname \"$0\")/pid\"\nexec sleep 30\n");
  ServerProfiler p = ServerProfiler::Start(
      getpid(), {.perf = perf, .temp_dir = dir_, .start_timeout = std::chrono::milliseconds(400)});
  const ProfileMeasure m = p.Finish();
  EXPECT_FALSE(m.profile.has_value());
  EXPECT_THAT(m.unavailable, HasSubstr("perf record did not start sampling within 0.4 s"));
  const int pid = PidFromFile();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(kill(pid, 0), -1);  // killed and reaped
  EXPECT_EQ(errno, ESRCH);
  // Nothing left in the directory but the script and its pid file.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2);
}

TEST_F(FakePerf, APerfThatFailsAtOnceGivesItsFirstLineAsTheReason) {
  const std::string perf =
      Script("echo 'Error:' >&2\necho 'perf_event_open failed: Permission denied' >&2\nexit 255\n");
  ServerProfiler p = ServerProfiler::Start(getpid(), {.perf = perf, .temp_dir = dir_});
  const ProfileMeasure m = p.Finish();
  EXPECT_FALSE(m.profile.has_value());
  EXPECT_THAT(
      m.unavailable,
      HasSubstr("perf record ended before the run: perf_event_open failed: Permission denied"));
}

TEST_F(FakePerf, AMissingPerfNamesDebiansPackage) {
  ServerProfiler p = ServerProfiler::Start(getpid(), {.perf = dir_ + "/no-such-perf"});
  const ProfileMeasure m = p.Finish();
  EXPECT_FALSE(m.profile.has_value());
  EXPECT_THAT(m.unavailable, HasSubstr("linux-perf"));
}

}  // namespace
}  // namespace pgrig::profile
