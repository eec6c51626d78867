#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "common/clock.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/status.h"
#include "common/strings.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  PGRIG_ASSIGN_OR_RETURN(int h, Half(x));
  PGRIG_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Status, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "odd: 3");
  EXPECT_EQ(r.status().WithContext("quartering 6").message(), "quartering 6: odd: 3");
}

TEST(Clock, UtcTimestampsInBothForms) {
  // 2026-11-29 22:53:39 UTC, with a fraction that is dropped.
  EXPECT_EQ(IsoTimestampUtc(1795992819.75), "2026-11-29T22:53:39Z");
  EXPECT_EQ(CompactTimestampUtc(1795992819.75), "20261129T225339Z");
  EXPECT_DOUBLE_EQ(NsToMs(1'500'000), 1.5);
}

TEST(Strings, HexIdentifiers) {
  EXPECT_EQ(HexId(0x41), "0x41");
  EXPECT_EQ(HexId(0xd0c), "0xd0c");
  EXPECT_EQ(HexId(0), "0x0");
}

TEST(Strings, ParsesWholeNumbersOnly) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64(" -7 "), -7);
  EXPECT_EQ(ParseInt64("+3"), 3);
  EXPECT_FALSE(ParseInt64("4x"));
  EXPECT_FALSE(ParseInt64(""));
  EXPECT_FALSE(ParseInt64("99999999999999999999"));
  EXPECT_DOUBLE_EQ(*ParseDouble("1.5e3"), 1500.0);
  EXPECT_FALSE(ParseDouble("1.5.3"));
}

TEST(Strings, SplitsJoinsAndFormats) {
  EXPECT_THAT(Split("a,,b", ','), ::testing::ElementsAre("a", "", "b"));
  EXPECT_THAT(SplitWords("  a \t b  "), ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(Join({"x", "y", "z"}, ", "), "x, y, z");
  EXPECT_EQ(HumanBytes(512), "512 bytes");
  EXPECT_EQ(HumanBytes(1536), "1.5 kB");
  EXPECT_EQ(HumanBytes(45ull << 20), "45 MB");
  EXPECT_EQ(ShellQuote("plain-word"), "plain-word");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
}

TEST(Strings, EditDistanceHandComputed) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);  // k->s, e->i, +g
  EXPECT_EQ(EditDistance("r8g.large", "r7g.large"), 1u);
  EXPECT_EQ(EditDistance("r8g.large", "r8g.xlarge"), 1u);
}

TEST(Strings, ClosestNamesPrefersExtensionsThenSmallDistances) {
  const std::vector<std::string> keys = {"iterations", "warmup_s", "duration_s",
                                         "threads",    "clients",  "iterations"};
  // Extends what was typed: first, and reported once.
  EXPECT_EQ(ClosestNames("iteration", keys), std::vector<std::string>{"iterations"});
  // One substitution away, case ignored.
  EXPECT_EQ(ClosestNames("Clientz", keys), std::vector<std::string>{"clients"});
  // Nothing close: no random suggestions.
  EXPECT_TRUE(ClosestNames("completely-different", keys).empty());
  // Closest first, at most `max`.
  std::vector<std::string> two = ClosestNames("treads", {"threads", "treats", "breads", "x"}, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], "breads");  // distance 1 ties broken by name
}

TEST(Fs, WritesAtomicallyAndReadsThroughARoot) {
  char tmpl[] = "/tmp/pgrig-fs-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  ASSERT_TRUE(MakeDirs(dir + "/proc/sys", 0755).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/proc/sys/x", "60\nrest\n", 0600).ok());
  struct stat st;
  ASSERT_EQ(::stat((dir + "/proc/sys/x").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  SysFs root(dir + "/");
  EXPECT_EQ(*root.ReadLine("/proc/sys/x"), "60");
  EXPECT_THAT(root.ListDir("/proc"), ::testing::ElementsAre("sys"));
  auto missing = root.ReadFile("/proc/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/proc/nope"));
  // No temporary file is left beside the target.
  EXPECT_THAT(SysFs(dir).ListDir("/proc/sys"), ::testing::ElementsAre("x"));
  EXPECT_GT(TreeSize(dir), 0u);
  ASSERT_TRUE(RemoveTree(dir).ok());
  EXPECT_FALSE(SysFs("/").Exists(dir));
}

TEST(Fs, ReportsAWriteIntoAMissingDirectory) {
  Status s = WriteFileAtomically("/nonexistent-dir/file", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent-dir/file"));
}

TEST(Process, CapturesOutputExitCodeAndStdin) {
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"sh", "-c", "cat; echo err >&2; exit 3"}, .stdin_data = "hello"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "hello");
  EXPECT_EQ(r->err, "err\n");
}

TEST(Process, ReadsStdinFromADescriptorAndStreamsStdout) {
  // A file of 300 KB, read by the child from offset 0 of our descriptor,
  // its output passed on in chunks, never kept whole.
  char path[] = "/tmp/pgrig-process-stdin-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ::unlink(path);
  std::string data;
  for (int i = 0; i < 30000; ++i) data += "line " + std::to_string(i % 10000) + "\n";
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
  std::string got;
  int chunks = 0;
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"cat"},
                       .stdin_data = "ignored",
                       .stdin_fd = fd,
                       .on_stdout = [&](std::string_view c) {
                         got.append(c);
                         ++chunks;
                       }});
  ::close(fd);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_TRUE(r->out.empty());
  EXPECT_EQ(got, data);
  EXPECT_GT(chunks, 1);
}

// Runs `sh -c script` with a cancel flag set 300 ms in; the result and how
// long the run took.
struct CancelledRun {
  Result<ProcessResult> result;
  std::chrono::steady_clock::duration took;
};
CancelledRun RunCancelledAfter300ms(const std::string& script) {
  std::atomic<bool> cancel{false};
  std::thread t([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"sh", "-c", script}, .cancel = &cancel});
  t.join();
  return {std::move(r), std::chrono::steady_clock::now() - start};
}

TEST(Process, ACancelStopsTheChildsGroupEvenWhenItsOutputGoesElsewhere) {
  // The shell's output goes to /dev/null at once: the pipes close, and the
  // wait must still watch the flag.
  const CancelledRun run = RunCancelledAfter300ms("exec >/dev/null 2>&1; sleep 30 & sleep 30");
  ASSERT_TRUE(run.result.ok());
  EXPECT_TRUE(run.result->cancelled);
  EXPECT_FALSE(run.result->success());
  EXPECT_LT(run.took, std::chrono::seconds(10));
}

TEST(Process, ACancelsKillFollowsAChildThatIgnoresSigtermAfterItsPipesClosed) {
  // The SIGTERM comes while the pipes are open; the shell ignores it, closes
  // them a second later and goes on: the SIGKILL 5 s after the SIGTERM must
  // still come, now from the wait for the child.
  const CancelledRun run =
      RunCancelledAfter300ms("trap '' TERM; sleep 1; exec >/dev/null 2>&1; sleep 30");
  ASSERT_TRUE(run.result.ok());
  EXPECT_TRUE(run.result->cancelled);
  EXPECT_EQ(run.result->signal, SIGKILL);
  EXPECT_LT(run.took, std::chrono::seconds(15));
}

TEST(Process, SetsAndUnsetsEnvironment) {
  ::setenv("PGRIG_TEST_UNSET_ME", "1", 1);
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"sh", "-c", "echo ${PGRIG_TEST_UNSET_ME:-gone} $FOO"},
                       .env = {{"FOO", "bar"}},
                       .unset_env = {"PGRIG_TEST_UNSET_ME"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "gone bar\n");
}

TEST(Process, KillsOnTimeout) {
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"sleep", "30"}, .timeout = std::chrono::milliseconds(200)});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->success());
}

TEST(Process, SaysWhenAProgramIsMissing) {
  RealProcessRunner runner;
  auto r = runner.Run({.argv = {"/no/such/program"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/no/such/program"));
  auto c = RunAndCapture(runner, {.argv = {"sh", "-c", "echo boom >&2; exit 1"}});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("boom"));
}

}  // namespace
}  // namespace pgrig
