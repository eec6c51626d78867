// The ssh transport against real sshd servers in network namespaces
// (tests/fleet/netns_hosts.h): commands, environment, timeouts, copies both
// ways, multiplexing, and host keys that are unknown or changed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/fs.h"
#include "common/strings.h"
#include "fleet/netns_hosts.h"
#include "fleet/ssh.h"

namespace pgrig::fleet {
namespace {

using pgrig::testing::NetnsHosts;
using ::testing::HasSubstr;

struct Rig {
  std::unique_ptr<NetnsHosts> hosts;
  std::unique_ptr<SshTransport> ssh;
  RealProcessRunner runner;
};

std::unique_ptr<Rig> MakeRig(int count) {
  auto rig = std::make_unique<Rig>();
  auto h = NetnsHosts::Start(count);
  if (!h.ok()) {
    ADD_FAILURE() << h.status().ToString();
    return nullptr;
  }
  rig->hosts = std::move(*h);
  SshOptions o;
  o.config_file = rig->hosts->ssh_config();
  o.connect_timeout = std::chrono::seconds(3);
  o.control_dir = rig->hosts->dir() + "/ctl";
  EXPECT_TRUE(MakeDirs(o.control_dir, 0700).ok());
  rig->ssh = std::make_unique<SshTransport>(rig->runner, o);
  return rig;
}

TEST(SshTransportReal, RunsCommandsWithEnvironmentAndExitCodes) {
  PGRIG_SKIP_WITHOUT_NETNS();
  auto rig = MakeRig(2);
  ASSERT_TRUE(rig);
  for (size_t i = 0; i < 2; ++i) {
    const auto& h = rig->hosts->hosts()[i];
    auto r = rig->ssh->Run(
        h.alias, RemoteCommand{.argv = {"sh", "-c", "echo \"$PGRIG_HOME|$1\"", "sh", "two words"},
                               .env = {{"PGRIG_HOME", "/tmp/h " + h.alias}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Trim(r->out), "/tmp/h " + h.alias + "|two words");
    // The remote side is the host's namespace.
    auto ip = rig->ssh->Run(
        h.alias, RemoteCommand{.argv = {"ip", "-o", "-4", "addr", "show", "dev", "eth0"}});
    ASSERT_TRUE(ip.ok());
    EXPECT_THAT(ip->out, HasSubstr(h.address + "/30"));
  }
  auto fail = rig->ssh->Run("h0", RemoteCommand{.argv = {"sh", "-c", "exit 7"}});
  ASSERT_TRUE(fail.ok());
  EXPECT_EQ(fail->exit_code, 7);
  // Multiplexing: a control socket was left in the private directory.
  auto entries = rig->runner.Run(ProcessOptions{.argv = {"ls", rig->hosts->dir() + "/ctl"}});
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(std::count(entries->out.begin(), entries->out.end(), '\n'), 2) << entries->out;
  rig->ssh->CloseMaster("h0");
  rig->ssh->CloseMaster("h1");
}

TEST(SshTransportReal, TimeoutKillsALongCommand) {
  PGRIG_SKIP_WITHOUT_NETNS();
  auto rig = MakeRig(1);
  ASSERT_TRUE(rig);
  auto start = std::chrono::steady_clock::now();
  auto r = rig->ssh->Run(
      "h0", RemoteCommand{.argv = {"sleep", "30"}, .timeout = std::chrono::seconds(2)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("timed out"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  rig->ssh->CloseMaster("h0");
}

TEST(SshTransportReal, CopiesFilesAndDirectoriesBothWays) {
  PGRIG_SKIP_WITHOUT_NETNS();
  auto rig = MakeRig(1);
  ASSERT_TRUE(rig);
  std::string d = rig->hosts->dir();
  ASSERT_TRUE(WriteFileAtomically(d + "/up.txt", "hello fleet\n").ok());
  ASSERT_TRUE(rig->ssh
                  ->CopyTo("h0", d + "/up.txt", d + "/remote.txt", CopyKind::kFile,
                           std::chrono::seconds(20))
                  .ok());
  auto cat = rig->ssh->Run("h0", RemoteCommand{.argv = {"cat", d + "/remote.txt"}});
  ASSERT_TRUE(cat.ok());
  EXPECT_EQ(cat->out, "hello fleet\n");
  // A results directory made remotely comes back whole.
  auto mk = rig->ssh->Run("h0", RemoteCommand{.argv = {"sh", "-c",
                                                       "mkdir -p \"$0/res/sub\" && "
                                                       "echo a > \"$0/res/a\" && echo b > "
                                                       "\"$0/res/sub/b\"",
                                                       d}});
  ASSERT_TRUE(mk.ok() && mk->success());
  ASSERT_TRUE(
      rig->ssh
          ->CopyFrom("h0", d + "/res", d + "/back", CopyKind::kDirectory, std::chrono::seconds(20))
          .ok());
  EXPECT_EQ(ReadWholeFile(d + "/back/a").value(), "a\n");
  EXPECT_EQ(ReadWholeFile(d + "/back/sub/b").value(), "b\n");
  Status missing =
      rig->ssh->CopyFrom("h0", d + "/nope", d + "/nope", CopyKind::kFile, std::chrono::seconds(20));
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.message(), HasSubstr("h0"));
  rig->ssh->CloseMaster("h0");
}

TEST(SshTransportReal, UnknownOrChangedHostKeyIsRefusedWithAdvice) {
  PGRIG_SKIP_WITHOUT_NETNS();
  auto rig = MakeRig(2);
  ASSERT_TRUE(rig);
  ASSERT_TRUE(rig->hosts->ForgetHostKey(0).ok());
  auto r = rig->ssh->Run("h0", RemoteCommand{.argv = {"true"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("not in known_hosts"));
  EXPECT_THAT(r.status().message(), HasSubstr("ssh-keyscan"));
  // Nothing was added to known_hosts behind the user's back.
  EXPECT_THAT(ReadWholeFile(rig->hosts->known_hosts()).value(),
              ::testing::Not(HasSubstr(rig->hosts->hosts()[0].address + " ")));
  ASSERT_TRUE(rig->hosts->ChangeHostKey(1).ok());
  auto c = rig->ssh->Run("h1", RemoteCommand{.argv = {"true"}});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("CHANGED"));
}

TEST(SshTransportReal, DeadHostIsUnavailableNotAHang) {
  PGRIG_SKIP_WITHOUT_NETNS();
  auto rig = MakeRig(1);
  ASSERT_TRUE(rig);
  rig->hosts->KillHost(0);
  auto r =
      rig->ssh->Run("h0", RemoteCommand{.argv = {"true"}, .timeout = std::chrono::seconds(15)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("h0"));
}

}  // namespace
}  // namespace pgrig::fleet
