// RunWithLines with real local programs (sh): lines as they come, both
// streams, partial last lines, timeouts and cancellation.
#include "fleet/line_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace pgrig::fleet {
namespace {

TEST(RunWithLines, DeliversLinesOfBothStreamsAsTheyCome) {
  std::vector<std::pair<Stream, std::string>> got;
  std::vector<std::chrono::steady_clock::time_point> when;
  auto start = std::chrono::steady_clock::now();
  LineRunOptions o;
  o.argv = {"sh", "-c", "echo one; echo warn >&2; sleep 1; printf 'two\\nlast'"};
  o.on_line = [&](Stream s, std::string_view line) {
    got.emplace_back(s, std::string(line));
    when.push_back(std::chrono::steady_clock::now());
  };
  auto r = RunWithLines(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "one\ntwo\nlast");
  EXPECT_EQ(r->err, "warn\n");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], std::make_pair(Stream::kOut, std::string("one")));
  EXPECT_THAT(got, ::testing::Contains(std::make_pair(Stream::kErr, std::string("warn"))));
  EXPECT_EQ(got[3], std::make_pair(Stream::kOut, std::string("last")));
  // "one" arrived before the sleep ended: streamed, not collected at the end.
  EXPECT_LT(when[0] - start, std::chrono::milliseconds(800));
}

TEST(RunWithLines, TimeoutKillsTheProcessGroup) {
  LineRunOptions o;
  o.argv = {"sh", "-c", "echo started; sleep 30 & sleep 30"};
  o.timeout = std::chrono::milliseconds(500);
  auto start = std::chrono::steady_clock::now();
  auto r = RunWithLines(o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_NE(r->exit_code, 0);
  EXPECT_EQ(r->out, "started\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunWithLines, CancelStopsIt) {
  std::atomic<bool> cancel{false};
  LineRunOptions o;
  o.argv = {"sleep", "30"};
  o.cancel = &cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto r = RunWithLines(o);
  t.join();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunWithLines, MissingProgramIsAnErrorAndExitCodesPassThrough) {
  LineRunOptions o;
  o.argv = {"/nonexistent/program"};
  auto r = RunWithLines(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("/nonexistent/program"));
  o.argv = {"sh", "-c", "exit 4"};
  auto e = RunWithLines(o);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->exit_code, 4);
}

}  // namespace
}  // namespace pgrig::fleet
