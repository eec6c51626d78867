// PrepareCompareSession's refusals: each is made before any hook, connection
// or write, so nothing exists afterwards that did not exist before.
#include "fleet/compare_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pgrig::fleet {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class CompareSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pgrig-compare-session-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  // Everything under dir_, to show a refusal wrote nothing.
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir_)) ++n;
    return n;
  }

  fs::path dir_;
};

TEST_F(CompareSessionTest, NeitherFleetFileNorResumeIsRefused) {
  auto s = PrepareCompareSession("", "", "0.0.0");
  EXPECT_THAT(s.status().message(), HasSubstr("give the fleet file"));
}

TEST_F(CompareSessionTest, ResumeOfADirectoryWithoutAManifestNamesWhatToGive) {
  auto s = PrepareCompareSession("", (dir_ / "nothing").string(), "0.0.0");
  EXPECT_THAT(s.status().message(), HasSubstr("no fleet run directory there"));
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(CompareSessionTest, ClientsModeFleetIsNotAComparison) {
  const std::string file = Write("clients.toml", R"(
[fleet]
results = "results"
server = "host=127.0.0.1 port=5432"
bench = ["-c", "4", "-T", "5", "-S"]

[[host]]
label = "c1"
ssh = "root@127.0.0.1"
role = "client"
)");
  const size_t before = Entries();
  auto s = PrepareCompareSession(file, "", "0.0.0");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("a clients-mode run cannot be resumed"));
  EXPECT_EQ(Entries(), before);
}

TEST_F(CompareSessionTest, ResumeIdUnderTheResultsDirectoryMustHoldAManifest) {
  const std::string file = Write("fleet.toml", R"(
[fleet]
plan = "quick"
results = "results"

[[host]]
label = "a"
ssh = "root@127.0.0.1"
)");
  auto dir = ResumeDir("20261203T000000Z", file);
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("is a fleet run directory (no "));
}

TEST_F(CompareSessionTest, CollectCompletedKeepsSutHostsInManifestOrder) {
  CompareSession s;
  FleetHost a, b, c;
  a.label = "a";
  a.role = HostRole::kSut;
  b.label = "b";
  b.role = HostRole::kClient;
  c.label = "c";
  c.role = HostRole::kSut;
  s.fleet.hosts = {a, b, c};
  s.manifest.hosts.resize(3);
  s.manifest.hosts[0].label = "c";
  s.manifest.hosts[0].outcome = ManifestOutcome::kCompleted;
  s.manifest.hosts[0].results = "r/c";
  s.manifest.hosts[1].label = "b";
  s.manifest.hosts[1].outcome = ManifestOutcome::kCompleted;
  s.manifest.hosts[2].label = "a";
  s.manifest.hosts[2].outcome = ManifestOutcome::kFailed;
  CompletedResults done = CollectCompleted(s);
  ASSERT_EQ(done.sut_hosts.size(), 2u);
  EXPECT_EQ(done.sut_hosts[0]->label, "c");
  EXPECT_EQ(done.dirs, std::vector<std::string>{"r/c"});
  EXPECT_FALSE(done.all_completed);
}

TEST_F(CompareSessionTest, FailedProvisionsAreRecordedInTheManifest) {
  CompareSession s;
  s.manifest.hosts.resize(2);
  s.manifest.hosts[0].label = "a";
  s.manifest.hosts[1].label = "b";
  LifecycleReport hooks;
  hooks.unavailable["a"] = "provision exited 3";
  hooks.fleet_provision_failed = true;
  RecordHookOutcomes(s, hooks);
  EXPECT_EQ(s.manifest.hosts[0].outcome, ManifestOutcome::kFailed);
  EXPECT_EQ(s.manifest.hosts[0].message, "provision exited 3");
  EXPECT_EQ(s.manifest.hosts[1].outcome, ManifestOutcome::kPending);
  EXPECT_EQ(s.manifest.hosts[1].message, "the fleet provision failed");
}

}  // namespace
}  // namespace pgrig::fleet
