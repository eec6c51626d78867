// How a failed host is described: its command's end and its last error
// lines, never its last progress line.
#include "fleet/host_failure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

namespace pgrig::fleet {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kStart =
    "[run 1/3 · iteration 1/3 · cell 1/1] read/simple/default/c2/j1: start (elapsed 0:01 · left "
    "~0:15)";
constexpr const char* kEnded =
    "[run 1/3 · iteration 1/3 · cell 1/1] read/simple/default/c2/j1: 812.4 tps";
constexpr const char* kFailed =
    "[run 2/3 · iteration 2/3 · cell 1/1] read/simple/default/c2/j1: failed: the run was aborted: "
    "client 1 aborted in command 1 (SQL) of script 0; perhaps the backend died while processing";

TEST(HostFailure, ProgressLines) {
  EXPECT_TRUE(IsProgressLine(kStart));
  EXPECT_TRUE(IsProgressLine(kEnded));
  EXPECT_TRUE(IsProgressLine("progress: 5.0 s, 1234.5 tps, lat 1.6 ms stddev 0.4, 0 failed"));
  EXPECT_FALSE(IsProgressLine(kFailed));
  EXPECT_FALSE(IsProgressLine("pgrig run: cannot connect to the server"));
  EXPECT_FALSE(IsProgressLine("WARNING:  terminating connection due to immediate shutdown"));
}

TEST(HostFailure, KeepsTheErrorLinesAfterTheLastProgressLine) {
  ErrorTail tail;
  tail.Add(Stream::kErr, "server: PostgreSQL 15.18 (embedded cluster)");
  tail.Add(Stream::kErr, kStart);
  tail.Add(Stream::kErr, "WARNING:  terminating connection due to immediate shutdown command");
  tail.Add(Stream::kErr, "WARNING:  terminating connection due to immediate shutdown command");
  tail.Add(Stream::kOut, "| cell | runs | tps median |");  // stdout: not an error line
  tail.Add(Stream::kErr, kFailed);
  tail.Add(Stream::kErr, "  ");
  ASSERT_EQ(tail.lines().size(), 2u);
  ProcessResult r;
  r.exit_code = 2;
  const std::string why = DescribeHostFailure("h0", "pgrig run", r, Status::Ok(), tail);
  EXPECT_THAT(why, ::testing::StartsWith("pgrig run exited with status 2; last error lines: "
                                         "WARNING:  terminating connection due to immediate "
                                         "shutdown command | [run 2/3"));
  EXPECT_THAT(why, HasSubstr("failed: the run was aborted"));
  EXPECT_THAT(why, Not(HasSubstr(": start (")));
  EXPECT_THAT(why, Not(HasSubstr("server: PostgreSQL")));  // before the progress line
  EXPECT_THAT(why, Not(HasSubstr("| cell |")));
}

TEST(HostFailure, KeepsTheLastFewRedacted) {
  ErrorTail tail(2);
  tail.Add(Stream::kErr, "one");
  tail.Add(Stream::kErr, "two password=hunter22");
  tail.Add(Stream::kErr, "three " + std::string(400, 'x'));
  ASSERT_EQ(tail.lines().size(), 2u);
  EXPECT_EQ(tail.lines()[0], "two password=********");
  EXPECT_EQ(tail.lines()[1].size(), 303u);  // 300 characters and "..."
}

TEST(HostFailure, SaysHowTheCommandEnded) {
  ErrorTail none;
  ProcessResult ok;
  ok.exit_code = 0;
  EXPECT_EQ(DescribeHostFailure("h0", "pgrig run", ok, Status::Ok(), none), "");

  ProcessResult lost;
  lost.exit_code = 255;
  ErrorTail ssh_said;
  ssh_said.Add(Stream::kErr, kStart);
  ssh_said.Add(Stream::kErr, "Connection to 10.213.0.6 closed by remote host.");
  EXPECT_EQ(
      DescribeHostFailure("h1", "pgrig run", lost, Unavailable("h1: the run failed"), ssh_said),
      "h1: ssh exited with status 255 (the connection was lost, or pgrig run was killed "
      "there or exited with 255); last error lines: Connection to 10.213.0.6 closed by "
      "remote host.");

  ProcessResult killed;
  killed.exit_code = -1;
  killed.signal = SIGKILL;
  ErrorTail quiet;
  quiet.Add(Stream::kErr, kStart);
  EXPECT_EQ(DescribeHostFailure("h1", "pgrig bench", killed, Status::Ok(), quiet),
            "h1: ssh was killed by signal 9 (Killed) here, so how pgrig bench ended is unknown; "
            "no error lines after its last progress line");

  // ssh's own refusals and the timeout keep CheckSshFailure's words.
  ProcessResult refused;
  refused.exit_code = 255;
  EXPECT_EQ(DescribeHostFailure("h1", "pgrig run", refused,
                                FailedPrecondition("h1: the host key has CHANGED"), none),
            "h1: the host key has CHANGED");
  ProcessResult late;
  late.exit_code = -1;
  late.signal = SIGKILL;
  late.timed_out = true;
  EXPECT_EQ(DescribeHostFailure("h1", "pgrig run", late, Unavailable("h1: timed out"), none),
            "h1: timed out");
}

}  // namespace
}  // namespace pgrig::fleet
