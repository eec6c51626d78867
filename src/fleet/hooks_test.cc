// Provisioning hooks without sshd: real `sh` commands writing marker files,
// their environment, log, redaction, timeout (process group killed), and the
// order and teardown rule of RunWithHooks.
#include "fleet/hooks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace pgrig::fleet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class HooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/pgrig-hooks-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { (void)RemoveTree(dir_); }

  // A hook that appends `word` to the marker file.
  Hook Mark(const std::string& word, const std::string& extra = "") const {
    return Hook{.argv = {"sh", "-c", "echo " + word + " >> " + dir_ + "/marks" + extra},
                .timeout = std::chrono::seconds(10),
                .line = 1};
  }
  bool AppendLine(const std::string& word) const {
    std::ofstream out(dir_ + "/marks", std::ios::app);
    out << word << '\n';
    return out.good();
  }
  std::vector<std::string> Marks() const {
    auto text = ReadWholeFile(dir_ + "/marks");
    std::vector<std::string> out;
    if (!text.ok()) return out;
    for (const std::string& l : Split(*text, '\n')) {
      if (!l.empty()) out.push_back(l);
    }
    return out;
  }
  Fleet TwoHosts() const {
    Fleet f;
    f.file = dir_ + "/fleet.toml";
    f.provision = Mark("fleet-provision");
    f.teardown = Mark("fleet-teardown");
    for (std::string l : {"a", "b"}) {
      FleetHost h;
      h.label = l;
      h.destination = "dest-" + l;
      h.provision = Mark(l + "-provision");
      h.teardown = Mark(l + "-teardown");
      f.hosts.push_back(h);
    }
    return f;
  }
  LifecycleOptions Options(bool parallel) {
    LifecycleOptions o;
    o.run_id = "RUN1";
    o.results_dir = dir_ + "/run";
    o.parallel_hosts = parallel;
    o.on_line = [this](const std::string& l) { lines_.push_back(l); };
    return o;
  }

  std::string dir_;
  std::vector<std::string> lines_;
};

TEST_F(HooksTest, EnvironmentLogAndPrefixedLines) {
  Hook h{.argv = {"sh", "-c",
                  "echo $PGRIG_FLEET_HOOK $PGRIG_FLEET_LABEL $PGRIG_FLEET_DESTINATION "
                  "$PGRIG_FLEET_RUN_ID $PGRIG_FLEET_RESULTS; echo to-stderr >&2"},
         .timeout = std::chrono::seconds(10)};
  HookContext ctx{.kind = HookKind::kTeardown,
                  .label = "box",
                  .destination = "u@h",
                  .run_id = "R7",
                  .results_dir = dir_,
                  .fleet_file = "f.toml"};
  HookRunOptions o{.log_file = HookLogFile(dir_, "box"),
                   .abort = nullptr,
                   .on_line = [&](const std::string& l) { lines_.push_back(l); }};
  HookOutcome out = RunHook(h, ctx, o);
  EXPECT_EQ(out.status, HookStatus::kSucceeded) << out.message;
  std::string expect = "teardown box u@h R7 " + dir_;
  EXPECT_THAT(lines_, ::testing::Contains("[box] teardown: " + expect));
  EXPECT_THAT(lines_, ::testing::Contains("[box] teardown: to-stderr"));
  auto log = ReadWholeFile(dir_ + "/hooks/box.log");
  ASSERT_TRUE(log.ok());
  EXPECT_THAT(*log, HasSubstr("teardown: " + expect + "\n"));
  EXPECT_THAT(*log, HasSubstr("teardown: succeeded in "));
}

TEST_F(HooksTest, SecretsAreRedactedInLinesAndLog) {
  ::setenv("PGRIG_HOOKS_TEST_SECRET", "hunter2hunter2", 1);
  Hook h{.argv = {"sh", "-c", "echo key=$PGRIG_HOOKS_TEST_SECRET; echo host=db password=swordfish"},
         .timeout = std::chrono::seconds(10)};
  HookContext ctx{.label = "x", .run_id = "R", .results_dir = dir_};
  HookOutcome out = RunHook(h, ctx,
                            {.log_file = HookLogFile(dir_, "x"),
                             .on_line = [&](const std::string& l) { lines_.push_back(l); }});
  ::unsetenv("PGRIG_HOOKS_TEST_SECRET");
  EXPECT_EQ(out.status, HookStatus::kSucceeded);
  auto log = ReadWholeFile(dir_ + "/hooks/x.log");
  ASSERT_TRUE(log.ok());
  EXPECT_THAT(*log, HasSubstr("key=***"));
  EXPECT_THAT(*log, Not(HasSubstr("hunter2")));
  EXPECT_THAT(*log, Not(HasSubstr("swordfish")));
  for (const std::string& l : lines_) {
    EXPECT_THAT(l, Not(HasSubstr("hunter2")));
    EXPECT_THAT(l, Not(HasSubstr("swordfish")));
  }
}

bool Alive(pid_t pid) {
  auto stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return false;
  size_t close = stat->rfind(')');
  return close != std::string::npos && stat->substr(close + 2, 1) != "Z";
}

TEST_F(HooksTest, TimeoutKillsTheProcessGroup) {
  // The shell starts a background child, then waits: both must die.
  Hook h{.argv = {"sh", "-c", "sleep 47 & echo $! > " + dir_ + "/child; sleep 48"},
         .timeout = std::chrono::seconds(1)};
  auto start = std::chrono::steady_clock::now();
  HookOutcome out = RunHook(h, {.label = "slow", .results_dir = dir_}, {});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(6));
  EXPECT_EQ(out.status, HookStatus::kTimedOut);
  EXPECT_THAT(out.message, HasSubstr("timed out after 1 s"));
  auto child = ReadWholeFile(dir_ + "/child");
  ASSERT_TRUE(child.ok());
  pid_t pid = static_cast<pid_t>(std::stol(*child));
  for (int i = 0; i < 50 && Alive(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(Alive(pid)) << "the hook's background child survived the timeout";
}

TEST_F(HooksTest, AbortKillsARunningHook) {
  std::atomic<bool> abort{false};
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    abort = true;
  });
  Hook h{.argv = {"sleep", "30"}, .timeout = std::chrono::seconds(60)};
  HookOutcome out = RunHook(h, {.results_dir = dir_}, {.abort = &abort});
  t.join();
  EXPECT_EQ(out.status, HookStatus::kAborted);
  EXPECT_THAT(out.message, HasSubstr("second Ctrl-C"));
}

TEST_F(HooksTest, OrderOneHostAfterAnother) {
  Fleet f = TwoHosts();
  LifecycleReport r = RunWithHooks(f, Options(false), [&](const auto& unavailable) {
    EXPECT_TRUE(unavailable.empty());
    (void)AppendLine("body");
  });
  EXPECT_TRUE(r.body_ran);
  EXPECT_THAT(Marks(), ElementsAre("fleet-provision", "a-provision", "b-provision", "body",
                                   "a-teardown", "b-teardown", "fleet-teardown"));
  EXPECT_EQ(r.hooks.size(), 6u);
  EXPECT_THAT(lines_, ::testing::Contains(HasSubstr("[a] provision: running ")));
}

TEST_F(HooksTest, OrderHostsAtOnce) {
  Fleet f = TwoHosts();
  LifecycleReport r =
      RunWithHooks(f, Options(true), [&](const auto&) { (void)AppendLine("body"); });
  std::vector<std::string> m = Marks();
  ASSERT_EQ(m.size(), 7u);
  EXPECT_EQ(m[0], "fleet-provision");
  EXPECT_THAT(std::vector<std::string>(m.begin() + 1, m.begin() + 3),
              ::testing::UnorderedElementsAre("a-provision", "b-provision"));
  EXPECT_EQ(m[3], "body");
  EXPECT_THAT(std::vector<std::string>(m.begin() + 4, m.begin() + 6),
              ::testing::UnorderedElementsAre("a-teardown", "b-teardown"));
  EXPECT_EQ(m[6], "fleet-teardown");
}

TEST_F(HooksTest, FailedHostProvisionMakesItUnavailableAndItsTeardownStillRuns) {
  Fleet f = TwoHosts();
  f.hosts[1].provision = Mark("b-provision", "; exit 4");
  std::map<std::string, std::string> seen;
  LifecycleReport r = RunWithHooks(f, Options(false), [&](const auto& unavailable) {
    seen = unavailable;
    (void)AppendLine("body");
  });
  ASSERT_EQ(seen.count("b"), 1u);
  EXPECT_THAT(seen["b"], HasSubstr("exited with 4"));
  EXPECT_EQ(seen.count("a"), 0u);
  EXPECT_THAT(Marks(), ElementsAre("fleet-provision", "a-provision", "b-provision", "body",
                                   "a-teardown", "b-teardown", "fleet-teardown"));
}

TEST_F(HooksTest, FailedFleetProvisionRunsOnlyTheFleetTeardown) {
  Fleet f = TwoHosts();
  f.provision = Mark("fleet-provision", "; exit 1");
  bool called = false;
  LifecycleReport r = RunWithHooks(f, Options(true), [&](const auto&) { called = true; });
  EXPECT_FALSE(called);
  EXPECT_TRUE(r.fleet_provision_failed);
  EXPECT_THAT(Marks(), ElementsAre("fleet-provision", "fleet-teardown"));
}

TEST_F(HooksTest, InterruptDuringTheBodyStillRunsEveryTeardown) {
  Fleet f = TwoHosts();
  std::atomic<bool> cancel{false}, abort{false};
  LifecycleOptions o = Options(true);
  o.cancel = &cancel;
  o.abort = &abort;
  LifecycleReport r = RunWithHooks(f, o, [&](const auto&) {
    (void)AppendLine("body");
    cancel = true;  // Ctrl-C while the hosts run
  });
  std::vector<std::string> m = Marks();
  ASSERT_EQ(m.size(), 7u);
  EXPECT_EQ(m.back(), "fleet-teardown");
  EXPECT_TRUE(r.teardowns_skipped.empty());
}

TEST_F(HooksTest, InterruptBeforeHostProvisionsSkipsThemAndTheirTeardowns) {
  Fleet f = TwoHosts();
  f.hosts[1].provision.reset();  // b has only a teardown: its turn comes, so it runs
  std::atomic<bool> cancel{false};
  LifecycleOptions o = Options(false);
  o.cancel = &cancel;
  f.provision = Hook{.argv = {"sh", "-c", "echo fleet-provision >> " + dir_ + "/marks"},
                     .timeout = std::chrono::seconds(10)};
  cancel = true;  // Ctrl-C during the fleet provision: it finishes, nothing new starts
  bool called = false;
  RunWithHooks(f, o, [&](const auto&) { called = true; });
  EXPECT_FALSE(called);
  EXPECT_THAT(Marks(), ElementsAre("fleet-provision", "b-teardown", "fleet-teardown"));
}

TEST_F(HooksTest, SecondInterruptSkipsTeardownsAndSaysWhich) {
  Fleet f = TwoHosts();
  std::atomic<bool> cancel{false}, abort{false};
  LifecycleOptions o = Options(false);
  o.cancel = &cancel;
  o.abort = &abort;
  LifecycleReport r = RunWithHooks(f, o, [&](const auto&) {
    cancel = true;
    abort = true;
  });
  EXPECT_THAT(r.teardowns_skipped, ::testing::UnorderedElementsAre("a", "b", "fleet"));
  EXPECT_THAT(Marks(), ElementsAre("fleet-provision", "a-provision", "b-provision"));
}

}  // namespace
}  // namespace pgrig::fleet
