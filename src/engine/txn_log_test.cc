#include "engine/txn_log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/engine.h"

namespace pgrig::engine {
namespace {

std::string ReadAll(FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(TxnLogTest, RawLinesInPgbenchFormat) {
  FILE* f = std::tmpfile();
  TxnLogOptions opts{.enabled = true};
  TxnLog log(f, opts, TxnLogFormat{.throttled = true, .retries = true}, script::Prng(1));
  log.Log(3, 7, 0, TxnOutcome::kSuccess, 1234.4, 56.0, 2, 1700000000'123456);
  log.Log(3, 8, 1, TxnOutcome::kSkipped, 0, 0, 1, 1700000001'000001);
  log.Log(4, 1, 0, TxnOutcome::kSerialization, 0, 0, 3, 1700000002'000000);
  log.Finish(1700000003'000000);
  EXPECT_EQ(ReadAll(f),
            "3 7 1234 0 1700000000 123456 56 1\n"
            "3 8 skipped 1 1700000001 1 0 0\n"
            "4 1 failed 0 1700000002 0 0 2\n");
  std::fclose(f);
}

TEST(TxnLogTest, FailureKindsWithFailuresDetailed) {
  FILE* f = std::tmpfile();
  TxnLog log(f, TxnLogOptions{.enabled = true}, TxnLogFormat{.failures_detailed = true},
             script::Prng(1));
  log.Log(0, 1, 0, TxnOutcome::kDeadlock, 0, 0, 1, 5'000000);
  log.Finish(6'000000);
  EXPECT_EQ(ReadAll(f), "0 1 deadlock 0 5 0\n");
  std::fclose(f);
}

TEST(TxnLogTest, AggregatesCompletedIntervalsOnly) {
  FILE* f = std::tmpfile();
  TxnLogOptions opts{.enabled = true, .aggregate_interval_s = 1};
  TxnLog log(f, opts, TxnLogFormat{}, script::Prng(1));
  log.Start(100'500000);  // rounds down to 100 s
  log.Log(0, 1, 0, TxnOutcome::kSuccess, 1000, 0, 1, 100'600000);
  log.Log(0, 2, 0, TxnOutcome::kSuccess, 3000, 0, 1, 100'900000);
  // the next one is in interval 102: intervals 100 and 101 (empty) are written
  log.Log(0, 3, 0, TxnOutcome::kSuccess, 2000, 0, 1, 102'100000);
  log.Finish(102'200000);  // interval 102 is not complete: not written
  EXPECT_EQ(ReadAll(f),
            "100 2 4000 10000000 1000 3000 0 0 0 0 0 0 0 0 0\n"
            "101 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  std::fclose(f);
}

TEST(TxnLogTest, PathNamesThreadsAsPgbench) {
  TxnLogOptions opts{.enabled = true, .prefix = "/tmp/x", .pid = 42};
  EXPECT_EQ(TxnLog::PathFor(opts, 0), "/tmp/x.42");
  EXPECT_EQ(TxnLog::PathFor(opts, 3), "/tmp/x.42.3");
}

TEST(EngineTest, ClientsSplitOverThreadsAsPgbench) {
  // 10 clients over 4 threads: 3, 3, 2, 2 (pgbench's rounding).
  EXPECT_EQ(ClientsForThread(10, 4, 0), 3);
  EXPECT_EQ(ClientsForThread(10, 4, 1), 3);
  EXPECT_EQ(ClientsForThread(10, 4, 2), 2);
  EXPECT_EQ(ClientsForThread(10, 4, 3), 2);
  int total = 0;
  for (int t = 0; t < 7; ++t) total += ClientsForThread(1000, 7, t);
  EXPECT_EQ(total, 1000);
}

}  // namespace
}  // namespace pgrig::engine
