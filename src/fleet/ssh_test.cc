// The ssh transport's pure parts and its mapping of ssh failures, with a fake
// ProcessRunner (the real sshd tests are in ssh_itest.cc).
#include "fleet/ssh.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pgrig::fleet {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class FakeRunner : public ProcessRunner {
 public:
  Result<ProcessResult> Run(const ProcessOptions& o) const override {
    last_argv = o.argv;
    last_timeout = o.timeout;
    return result;
  }
  ProcessResult result;
  mutable std::vector<std::string> last_argv;
  mutable std::chrono::milliseconds last_timeout{0};
};

TEST(RedactLine, MasksPasswordsInConninfoUrisAndEnvironment) {
  EXPECT_EQ(RedactLine("server 'host=db password=s3cret user=u' ready"),
            "server 'host=db password=******** user=u' ready");
  EXPECT_EQ(RedactLine("PGPASSWORD=hunter2 pgrig run"), "PGPASSWORD=******** pgrig run");
  EXPECT_EQ(RedactLine("--server=postgresql://bob:pw@db:5432/x done"),
            "--server=postgresql://bob:********@db:5432/x done");
  EXPECT_EQ(RedactLine("nothing secret here"), "nothing secret here");
}

TEST(RemoteShellLine, QuotesEveryWordAndPutsEnvFirst) {
  EXPECT_EQ(RemoteShellLine({"pgrig", "run", "a b", "it's"}, {}), "pgrig run 'a b' 'it'\\''s'");
  EXPECT_EQ(RemoteShellLine({"pgrig", "--version"}, {{"PGRIG_HOME", "/tmp/x y"}}),
            "env 'PGRIG_HOME=/tmp/x y' pgrig --version");
}

TEST(PrefixLines, LabelsEveryLineAndRedacts) {
  EXPECT_EQ(PrefixLines("arm", "one\ntwo password=x\nlast"),
            "[arm] one\n[arm] two password=********\n[arm] last\n");
}

TEST(SshTransport, AlwaysBatchModeStrictHostKeysTimeoutsAndMultiplexing) {
  FakeRunner runner;
  SshOptions o;
  o.control_dir = "/tmp/ctl";
  o.connect_timeout = std::chrono::seconds(7);
  SshTransport t(runner, o);
  std::vector<std::string> argv = t.SshArgv("db1", RemoteCommand{.argv = {"uname", "-m"}});
  EXPECT_EQ(argv.front(), "ssh");
  EXPECT_THAT(argv, Contains("BatchMode=yes"));
  EXPECT_THAT(argv, Contains("StrictHostKeyChecking=yes"));
  EXPECT_THAT(argv, Contains("ConnectTimeout=7"));
  EXPECT_THAT(argv, Contains("ControlMaster=auto"));
  EXPECT_THAT(argv, Contains("ControlPath=/tmp/ctl/%C"));
  EXPECT_THAT(argv, Contains(HasSubstr("ServerAliveInterval=")));
  EXPECT_THAT(argv, Not(Contains("-F")));  // the user's own configuration
  EXPECT_EQ(argv[argv.size() - 2], "db1");
  EXPECT_EQ(argv.back(), "uname -m");

  o.config_file = "/etc/fleet/ssh_config";
  SshTransport with_file(runner, o);
  std::vector<std::string> a2 = with_file.SshArgv("db1", RemoteCommand{.argv = {"true"}});
  EXPECT_EQ(a2[1], "-F");
  EXPECT_EQ(a2[2], "/etc/fleet/ssh_config");
}

TEST(SshTransport, UnknownAndChangedHostKeysAreRefusedWithWhatToDo) {
  FakeRunner runner;
  SshTransport t(runner, SshOptions{});
  runner.result.exit_code = 255;
  runner.result.err =
      "No ED25519 host key is known for 10.0.0.1 and you have requested strict checking.\n"
      "Host key verification failed.\n";
  auto r = t.Run("db1", RemoteCommand{.argv = {"true"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("not in known_hosts"));
  EXPECT_THAT(r.status().message(), HasSubstr("ssh-keyscan"));
  EXPECT_THAT(r.status().message(), HasSubstr("ssh db1"));

  runner.result.err =
      "@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
      "Host key verification failed.\n";
  r = t.Run("db1", RemoteCommand{.argv = {"true"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("CHANGED"));
  EXPECT_THAT(r.status().message(), HasSubstr("ssh-keygen -R"));
}

TEST(SshTransport, RemoteExitCodesAreResultsAndTimeoutsAreErrors) {
  FakeRunner runner;
  SshTransport t(runner, SshOptions{});
  runner.result.exit_code = 3;
  auto r = t.Run("db1", RemoteCommand{.argv = {"false"}, .timeout = std::chrono::seconds(9)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(runner.last_timeout, std::chrono::seconds(9));
  runner.result.exit_code = -1;
  runner.result.timed_out = true;
  r = t.Run("db1", RemoteCommand{.argv = {"sleep", "100"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("timed out"));
  runner.result = ProcessResult{};
  runner.result.exit_code = 255;
  runner.result.err = "ssh: connect to host 10.0.0.9 port 22: Connection timed out\n";
  r = t.Run("db9", RemoteCommand{.argv = {"true"}});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("db9"));
  EXPECT_THAT(r.status().message(), HasSubstr("Connection timed out"));
}

}  // namespace
}  // namespace pgrig::fleet
