// The huge-page probe with a fake process runner: what it asks the server
// binary, how it reads the answer, and that it cleans up.
#include "tune/huge_pages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/fs.h"

namespace pgrig::tune {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

class FakeRunner : public ProcessRunner {
 public:
  Result<ProcessResult> Run(const ProcessOptions& o) const override {
    calls.push_back(o.argv);
    ProcessResult r;
    r.exit_code = 0;
    if (o.argv[0].find("initdb") != std::string::npos) {
      data_dirs.push_back(o.argv[2]);
      if (fail_initdb) {
        r.exit_code = 1;
        r.err = "initdb: error: could not create directory: Permission denied\n";
      }
    } else {
      r.out = answer;
    }
    return r;
  }
  mutable std::vector<std::vector<std::string>> calls;
  mutable std::vector<std::string> data_dirs;
  bool fail_initdb = false;
  std::string answer = "2107\n";
};

// A directory with executable stand-ins for initdb and postgres (never run).
std::string FakeBinDir() {
  char tmpl[] = "/tmp/pgrig-tune-test-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  for (const char* f : {"initdb", "postgres"}) {
    std::string p = dir + "/" + f;
    EXPECT_TRUE(WriteFileAtomically(p, "#!/bin/false\n", 0755).ok());
  }
  return dir;
}

TEST(HugePagesProbe, AsksTheBinaryWithTheCandidateValues) {
  FakeRunner runner;
  std::string bindir = FakeBinDir();
  SettingMap config;
  config["shared_buffers"] = SettingValue::Bytes(4 * kGiB);
  config["max_connections"] = SettingValue::Integer(300);
  config["work_mem"] = SettingValue::Bytes(64 * kMiB);  // not shared memory: not passed
  auto h = ProbeHugePages(config, 15, 2 * kMiB, {.runner = &runner, .bindir = bindir});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_TRUE(h->exact);
  EXPECT_EQ(h->pages, 2107);
  EXPECT_EQ(h->page_size_bytes, 2 * kMiB);
  EXPECT_EQ(h->sysctl, "vm.nr_hugepages = 2107");
  ASSERT_EQ(runner.calls.size(), 2u);
  const auto& ask = runner.calls[1];
  EXPECT_EQ(ask[0], bindir + "/postgres");
  EXPECT_THAT(ask, Contains("shared_memory_size_in_huge_pages"));
  EXPECT_THAT(ask, Contains("shared_buffers=4GB"));
  EXPECT_THAT(ask, Contains("max_connections=300"));
  for (const auto& a : ask) EXPECT_THAT(a, ::testing::Not(HasSubstr("work_mem")));
  // The scratch data directory is the one asked about, and it is gone.
  ASSERT_EQ(runner.data_dirs.size(), 1u);
  EXPECT_THAT(ask, Contains(runner.data_dirs[0]));
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(runner.data_dirs[0]).parent_path()));
  (void)RemoveTree(bindir);
}

TEST(HugePagesProbe, NonDefaultPageSizeGetsTheSysfsLine) {
  FakeRunner runner;
  runner.answer = "3000\n";
  std::string bindir = FakeBinDir();
  SettingMap config;
  config["huge_page_size"] = SettingValue::Bytes(2 * kMiB);
  auto h = ProbeHugePages(config, 16, 512 * kMiB, {.runner = &runner, .bindir = bindir});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->page_size_bytes, 2 * kMiB);
  EXPECT_EQ(h->sysctl, "echo 3000 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
  (void)RemoveTree(bindir);
}

TEST(HugePagesProbe, FailuresAreExplained) {
  FakeRunner runner;
  std::string bindir = FakeBinDir();
  auto old = ProbeHugePages({}, 14, 2 * kMiB, {.runner = &runner, .bindir = bindir});
  EXPECT_EQ(old.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(runner.calls.empty());
  auto nobin = ProbeHugePages({}, 15, 2 * kMiB, {.runner = &runner, .bindir = "/nonexistent"});
  EXPECT_EQ(nobin.status().code(), StatusCode::kNotFound);
  runner.fail_initdb = true;
  auto bad = ProbeHugePages({}, 15, 2 * kMiB, {.runner = &runner, .bindir = bindir});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("Permission denied"));
  runner.fail_initdb = false;
  runner.answer = "garbage";
  EXPECT_FALSE(ProbeHugePages({}, 15, 2 * kMiB, {.runner = &runner, .bindir = bindir}).ok());
  (void)RemoveTree(bindir);
}

}  // namespace
}  // namespace pgrig::tune
