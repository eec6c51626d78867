// The engine's client state machine against a scripted fake server
// (tests/support/fake_backend.h), no PostgreSQL: serialization failures and
// deadlocks retried up to --max-tries (and without a limit under -T), a
// retried pipeline, the -t and -T ends, -R with --latency-limit against a
// slow server, -C.  Every test runs on each of the engine's three I/O paths
// (lean over io_uring, lean over epoll, libpq) and counts exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "support/fake_backend.h"
#include "support/fake_bench.h"

namespace pgrig::engine {
namespace {

using script::QueryMode;
using script::QueryModeName;
using testing::FakeBackend;
using testing::FakeBenchOptions;
using testing::FakeBenchRun;
using testing::FakeReply;
using testing::FakeStatement;
using testing::IoPath;

bool HasPart(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Per-connection counts of statements whose text contains a word, for
// handlers that answer by how often a connection has seen a statement.
class Counter {
 public:
  // The number of earlier calls for this connection (0 the first time).
  int64_t Next(int connection) {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_[connection]++;
  }
  int64_t Total() const {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t n = 0;
    for (const auto& [c, k] : counts_) n += k;
    return n;
  }
  std::vector<int64_t> PerConnection() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<int64_t> v;
    for (const auto& [c, k] : counts_) v.push_back(k);
    return v;
  }

 private:
  mutable std::mutex mu_;
  std::map<int, int64_t> counts_;
};

constexpr const char* kTxnScript = "BEGIN;\nUPDATE t SET v = v + 1;\nEND;\n";

int64_t CountMessages(const FakeBenchRun& run, std::string_view part) {
  return std::count_if(run.messages.begin(), run.messages.end(),
                       [part](const std::string& m) { return HasPart(m, part); });
}

class SessionFlowTest : public ::testing::TestWithParam<IoPath> {};

// 40001 on every try: each transaction is rolled back and retried until
// --max-tries, then counted as a failure; the run completes.
TEST_P(SessionFlowTest, SerializationFailuresRetriedUpToMaxTriesThenFail) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    Counter updates;
    Counter rollbacks;
    auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
      if (HasPart(st.sql, "UPDATE")) {
        updates.Next(st.connection);
        return FakeReply::Error("40001", "could not serialize access due to concurrent update");
      }
      if (st.sql == "ROLLBACK") rollbacks.Next(st.connection);
      return FakeReply::Ok();
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = kTxnScript,
                       .mode = mode,
                       .clients = 2,
                       .transactions = 2,
                       .max_tries = 3,
                       .verbose_errors = true};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    const RunResult& r = run.result;
    EXPECT_EQ(r.stop_reason, StopReason::kCompleted) << r.first_abort_message;
    EXPECT_EQ(r.finished_clients, 2);
    EXPECT_EQ(r.totals.transactions, 0);
    EXPECT_EQ(r.totals.serialization_failures, 4);
    EXPECT_EQ(r.totals.deadlock_failures, 0);
    EXPECT_EQ(r.totals.retried, 4);
    EXPECT_EQ(r.totals.retries, 8);
    ASSERT_EQ(r.scripts.size(), 1u);
    ASSERT_EQ(r.scripts[0].commands.size(), 3u);
    EXPECT_EQ(r.scripts[0].commands[1].retries, 8);
    EXPECT_EQ(r.scripts[0].commands[1].failures, 4);
    EXPECT_EQ(updates.Total(), 12);
    EXPECT_EQ(rollbacks.Total(), 12);  // every try ended in a failed transaction block
    EXPECT_EQ(CountMessages(run, "repeats the transaction after the error (try "), 8);
    EXPECT_EQ(CountMessages(run, "ends the failed transaction (try 3/3)"), 4);
    EXPECT_EQ(CountMessages(run,
                            "got an error in command 1 (SQL) of script 0; ERROR:  could not "
                            "serialize access due to concurrent update"),
              12);
    testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
  }
}

// 40P01 on the first two tries of every transaction: with 3 tries all
// succeed after two retries; with 2 tries all fail as deadlocks.
TEST_P(SessionFlowTest, DeadlocksRetriedThenSucceedOrFail) {
  for (uint32_t max_tries : {3u, 2u}) {
    SCOPED_TRACE(max_tries);
    Counter updates;
    auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
      if (HasPart(st.sql, "UPDATE") && updates.Next(st.connection) % 3 != 2) {
        return FakeReply::Error("40P01", "deadlock detected");
      }
      return FakeReply::Ok();
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = kTxnScript,
                       .mode = QueryMode::kExtended,
                       .clients = 2,
                       .threads = 2,
                       .transactions = 3,
                       .max_tries = max_tries};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    const RunResult& r = run.result;
    EXPECT_EQ(r.stop_reason, StopReason::kCompleted) << r.first_abort_message;
    EXPECT_EQ(r.totals.serialization_failures, 0);
    if (max_tries == 3) {
      EXPECT_EQ(r.totals.transactions, 6);
      EXPECT_EQ(r.totals.deadlock_failures, 0);
      EXPECT_EQ(r.totals.retried, 6);
      EXPECT_EQ(r.totals.retries, 12);
      EXPECT_EQ(r.latency.count(), 6);
    } else {
      // Per connection: UPDATEs 0 and 1 fail (transaction 1 fails after
      // one retry), 2 succeeds (transaction 2, no retry), 3 and 4 fail
      // (transaction 3 fails after one retry).
      EXPECT_EQ(r.totals.deadlock_failures, 4);
      EXPECT_EQ(r.totals.transactions, 2);
      EXPECT_EQ(r.totals.retried, 4);
      EXPECT_EQ(r.totals.retries, 4);  // failed transactions count their retries too
      EXPECT_EQ(r.scripts[0].commands[1].failures, 4);
    }
    testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
  }
}

// A serialization failure outside a transaction block leaves the session
// idle: retried without a ROLLBACK.
TEST_P(SessionFlowTest, SerializationFailureOutsideABlockRetriesWithoutRollback) {
  Counter updates;
  Counter rollbacks;
  auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
    if (st.sql == "ROLLBACK") rollbacks.Next(st.connection);
    if (HasPart(st.sql, "UPDATE") && updates.Next(st.connection) % 2 == 0) {
      return FakeReply::Error("40001", "could not serialize access due to concurrent update");
    }
    return FakeReply::Ok();
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = "UPDATE t SET v = v + 1;\n", .transactions = 5, .max_tries = 2};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted) << run.result.first_abort_message;
  EXPECT_EQ(run.result.totals.transactions, 5);
  EXPECT_EQ(run.result.totals.retries, 5);
  EXPECT_EQ(run.result.totals.failures(), 0);
  EXPECT_EQ(updates.Total(), 10);
  EXPECT_EQ(rollbacks.Total(), 0);
}

// --max-tries 0 (unlimited) under -T: a transaction that always fails is
// retried until the time is up, then dropped, not counted (pgbench);
// transactions that succeed after five retries count their retries.
TEST_P(SessionFlowTest, UnlimitedTriesRetryUntilTheEndOfTheRun) {
  for (int fail_every : {0, 6}) {
    SCOPED_TRACE(fail_every);
    Counter updates;
    auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
      if (HasPart(st.sql, "UPDATE")) {
        const int64_t n = updates.Next(st.connection);
        if (fail_every == 0 || n % fail_every != fail_every - 1) {
          return FakeReply::Error("40001", "could not serialize access due to concurrent update")
              .After(std::chrono::milliseconds(2));
        }
      }
      return FakeReply::Ok();
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{
        .script = kTxnScript, .mode = QueryMode::kPrepared, .duration_s = 1, .max_tries = 0};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    const RunResult& r = run.result;
    EXPECT_EQ(r.stop_reason, StopReason::kCompleted) << r.first_abort_message;
    EXPECT_EQ(r.finished_clients, 1);
    EXPECT_EQ(r.totals.failures(), 0);
    EXPECT_LT(run.wall_s, 3.0);
    if (fail_every == 0) {
      EXPECT_EQ(r.totals.transactions, 0);
      EXPECT_EQ(r.totals.retries, 0);  // only ended transactions count theirs
      EXPECT_GT(r.scripts[0].commands[1].retries, 20);
    } else {
      EXPECT_GT(r.totals.transactions, 5);
      EXPECT_EQ(r.totals.retries, 5 * r.totals.transactions);
      EXPECT_EQ(r.totals.retried, r.totals.transactions);
    }
  }
}

// Unlimited tries bounded by --latency-limit: a transaction that keeps
// failing is retried while it is within the limit, then counted as a
// failure.
TEST_P(SessionFlowTest, LatencyLimitEndsUnlimitedRetries) {
  Counter updates;
  auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
    if (HasPart(st.sql, "UPDATE")) {
      updates.Next(st.connection);
      return FakeReply::Error("40001", "could not serialize access due to concurrent update")
          .After(std::chrono::milliseconds(20));
    }
    return FakeReply::Ok();
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = kTxnScript, .transactions = 3, .latency_limit_us = 50'000, .max_tries = 0};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  const RunResult& r = run.result;
  EXPECT_EQ(r.stop_reason, StopReason::kCompleted) << r.first_abort_message;
  EXPECT_EQ(r.totals.transactions, 0);
  EXPECT_EQ(r.totals.serialization_failures, 3);
  EXPECT_EQ(r.totals.retried, 3);
  // Each try takes at least 20 ms, so the third try ends past the 50 ms
  // limit: at most two retries per transaction (the first try always ends
  // within the limit).  The retries counted are the UPDATEs beyond the first.
  EXPECT_LE(r.totals.retries, 6);
  EXPECT_EQ(r.totals.retries, updates.Total() - 3);
}

// A pipeline whose UPDATE fails with 40001 on the first try: the rest of
// the pipeline is skipped to its sync, rolled back, and the whole script
// retried.
TEST_P(SessionFlowTest, PipelineRetriedAfterSerializationFailure) {
  Counter updates;
  Counter ends;
  auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
    if (HasPart(st.sql, "END")) ends.Next(st.connection);
    if (HasPart(st.sql, "UPDATE") && updates.Next(st.connection) % 2 == 0) {
      return FakeReply::Error("40001", "could not serialize access due to concurrent update");
    }
    return FakeReply::Ok();
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = std::string("\\startpipeline\n") + kTxnScript + "\\endpipeline\n",
                     .mode = QueryMode::kExtended,
                     .transactions = 3,
                     .max_tries = 2};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted) << run.result.first_abort_message;
  EXPECT_EQ(run.result.totals.transactions, 3);
  EXPECT_EQ(run.result.totals.retries, 3);
  EXPECT_EQ(run.result.totals.failures(), 0);
  EXPECT_EQ(updates.Total(), 6);
  EXPECT_EQ(ends.Total(), 3);  // the failed tries' END was skipped
  testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/false);  // pipelines: libpq
}

// -t N: every client runs exactly N transactions, in every mode.
TEST_P(SessionFlowTest, TransactionsPerClientEndsAfterExactlyN) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    Counter selects;
    auto fb = testing::StartFakeBackend([&](const FakeStatement& st) {
      selects.Next(st.connection);
      return FakeReply::Ok({"1"});
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{
        .script = "SELECT 1;\n", .mode = mode, .clients = 3, .threads = 2, .transactions = 7};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted) << run.result.first_abort_message;
    EXPECT_EQ(run.result.finished_clients, 3);
    EXPECT_EQ(run.result.totals.transactions, 21);
    EXPECT_EQ(run.result.latency.count(), 21);
    EXPECT_EQ(fb->connections(), 3);
    EXPECT_EQ(selects.PerConnection(), std::vector<int64_t>(3, 7));
    testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
  }
}

// -T: the run ends on time; a transaction in flight at the end finishes and
// counts, and no new one starts.
// The start gate (fleet clients mode): called once every client is
// connected and before any statement; its time is not part of the run.
TEST_P(SessionFlowTest, StartGateWaitsWithEveryClientConnectedAndKeepsTheWindowWhole) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) {
    return FakeReply::Ok({"1"}).After(std::chrono::milliseconds(20));
  });
  ASSERT_NE(fb, nullptr);
  int connections_at_gate = -1;
  int statements_at_gate = -1;
  FakeBenchOptions o{.script = "SELECT 1;\n", .clients = 4, .threads = 2, .duration_s = 1};
  o.start_gate = [&] {
    connections_at_gate = fb->connections();
    statements_at_gate = fb->statements();
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    return Status::Ok();
  };
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  EXPECT_EQ(connections_at_gate, 4);
  EXPECT_EQ(statements_at_gate, 0);
  EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted);
  // The whole 1 s window after the gate, not 0.3 s of it.  -T counts from
  // before the connections (as pgbench), so connecting and running fill it
  // together; under qemu-user connecting alone took 58 ms once, so the
  // running part is not held to 0.95 s by itself.
  EXPECT_GE(run.result.conn_elapsed_ns + run.result.bench_duration_ns, 950'000'000);
  EXPECT_GE(run.result.bench_duration_ns, 700'000'000);
  EXPECT_LT(run.result.bench_duration_ns, 1'600'000'000);
  EXPECT_LT(run.result.conn_elapsed_ns, 600'000'000);  // the gate is not connection time
  EXPECT_GE(run.wall_s, 1.6);
  EXPECT_GT(run.result.totals.transactions, 4 * 20);
}

// WindowStart::kStartGate (fleet clients mode): the window is all of -T
// from the moment the gate opens; the connections were made before it and
// take nothing from it.
TEST_P(SessionFlowTest, WindowFromTheStartGateIsTheWholeDuration) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) {
    return FakeReply::Ok({"1"}).After(std::chrono::milliseconds(5));
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = "SELECT 1;\n", .clients = 4, .threads = 2, .duration_s = 1};
  int64_t opened_ns = 0;
  o.start_gate = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    opened_ns = MonotonicNanos();
    return Status::Ok();
  };
  o.window_start = engine::EngineConfig::WindowStart::kStartGate;
  const int64_t begin = MonotonicNanos();
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  const int64_t end = MonotonicNanos();
  EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted);
  EXPECT_GE(run.result.bench_duration_ns, 1'000'000'000);
  EXPECT_LT(run.result.bench_duration_ns, 1'600'000'000);  // loose: TSan, a busy CI machine
  // The load ran for -T after the gate opened, and the connections are
  // still counted as connection time, outside the window.
  EXPECT_GE(end - opened_ns, 1'000'000'000);
  EXPECT_GT(run.result.conn_elapsed_ns, 0);
  EXPECT_LT(run.result.conn_elapsed_ns, opened_ns - begin);
}

TEST_P(SessionFlowTest, StartGateErrorEndsTheRunBeforeAnyStatement) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) { return FakeReply::Ok({"1"}); });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = "SELECT 1;\n", .clients = 2, .threads = 2, .duration_s = 5};
  o.start_gate = [] { return Unavailable("no start signal from the fleet controller"); };
  auto run = testing::RunFakeBench(*fb, o, GetParam());
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("no start signal"), std::string::npos)
      << run.status().message();
  EXPECT_EQ(fb->statements(), 0);
}

TEST_P(SessionFlowTest, DurationEndsInTime) {
  {
    auto fb = testing::StartFakeBackend([](const FakeStatement&) {
      return FakeReply::Ok({"1"}).After(std::chrono::milliseconds(20));
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = "SELECT 1;\n", .clients = 2, .duration_s = 1};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted);
    EXPECT_EQ(run.result.finished_clients, 2);
    // -T counts from before the connections: connecting and running fill it.
    EXPECT_GE(run.result.conn_elapsed_ns + run.result.bench_duration_ns, 950'000'000);
    EXPECT_LT(run.result.bench_duration_ns, 1'600'000'000);
    EXPECT_GT(run.result.totals.transactions, 10);
    EXPECT_LE(run.result.totals.transactions, 2 * 51);
    EXPECT_EQ(fb->statements(), run.result.totals.transactions);
  }
  {
    // 600 ms answers: two transactions per client, the second ending after
    // the 1 s mark.
    auto fb = testing::StartFakeBackend([](const FakeStatement&) {
      return FakeReply::Ok({"1"}).After(std::chrono::milliseconds(600));
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = "SELECT 1;\n", .clients = 2, .duration_s = 1};
    const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
    EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted);
    EXPECT_EQ(run.result.totals.transactions, 4);
    EXPECT_EQ(fb->statements(), 4);
    EXPECT_GE(run.result.bench_duration_ns, 1'200'000'000);
    EXPECT_LT(run.result.bench_duration_ns, 1'900'000'000);
  }
}

// -R with --latency-limit against a server slower than the limit: every
// executed transaction is late, the schedule falls behind and the slots
// already too late are skipped (counted, never sent); -t counts both.
TEST_P(SessionFlowTest, SlowAnswersUnderRateAndLatencyLimitAreLateOrSkipped) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) {
    return FakeReply::Ok({"1"}).After(std::chrono::milliseconds(20));
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = "SELECT 1;\n", .transactions = 20, .rate_tps = 100, .latency_limit_us = 5'000};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  const RunResult& r = run.result;
  EXPECT_EQ(r.stop_reason, StopReason::kCompleted) << r.first_abort_message;
  EXPECT_EQ(r.totals.transactions + r.totals.skipped, 20);
  EXPECT_GE(r.totals.skipped, 1);
  EXPECT_GE(r.totals.transactions, 1);
  EXPECT_EQ(r.latency_late, r.totals.transactions);
  EXPECT_EQ(r.lag.count(), r.totals.transactions);
  EXPECT_EQ(fb->statements(), r.totals.transactions);
  EXPECT_GE(r.latency.min(), 20'000'000);
  testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
}

TEST_P(SessionFlowTest, FastAnswersUnderRateAndLatencyLimitAreOnTime) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) { return FakeReply::Ok({"1"}); });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = "SELECT 1;\n", .transactions = 20, .rate_tps = 200, .latency_limit_us = 500'000};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  const RunResult& r = run.result;
  EXPECT_EQ(r.totals.transactions, 20);
  EXPECT_EQ(r.totals.skipped, 0);
  EXPECT_EQ(r.latency_late, 0);
  EXPECT_EQ(r.lag.count(), 20);
  // 20 transactions at 200 tps take about 0.1 s: the schedule was kept.
  EXPECT_GT(r.bench_duration_ns, 20'000'000);
}

// -C: a new connection for every transaction, each closed after it.
TEST_P(SessionFlowTest, ConnectPerTransactionReconnectsEachTime) {
  auto fb = testing::StartFakeBackend([](const FakeStatement& st) {
    // A new connection: this is its first statement.
    return st.number == 0 ? FakeReply::Ok({"1"}) : FakeReply::Error("XX000", "connection reused");
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = "SELECT 1;\n", .clients = 2, .transactions = 5, .connect_per_transaction = true};
  const FakeBenchRun run = testing::RunFakeBenchOrFail(*fb, o, GetParam());
  EXPECT_EQ(run.result.stop_reason, StopReason::kCompleted) << run.result.first_abort_message;
  EXPECT_EQ(run.result.totals.transactions, 10);
  EXPECT_EQ(fb->connections(), 10);
  EXPECT_GT(run.result.conn_total_ns, 0);
  // The engine closed each one: the fake's threads see the end of stream.
  for (int i = 0; i < 100 && fb->closed_connections() < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(fb->closed_connections(), 10);
  testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
}

INSTANTIATE_TEST_SUITE_P(Paths, SessionFlowTest, ::testing::ValuesIn(testing::kAllIoPaths),
                         [](const ::testing::TestParamInfo<IoPath>& i) {
                           return std::string(testing::IoPathName(i.param));
                         });

}  // namespace
}  // namespace pgrig::engine

namespace pgrig::engine {
namespace {

// EngineConfig::untimed_sleeps: \sleep is left out of the latency, and when
// -T ends a client sleeping outside a transaction stops at once.
TEST_P(SessionFlowTest, UntimedSleepsAreLeftOutOfLatencyAndEndWithTheWindow) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) { return FakeReply::Ok(); });
  ASSERT_NE(fb, nullptr);
  const std::string script = "\\sleep 150 ms\nSELECT 1;\n\\sleep 100 ms\n";
  FakeBenchOptions timed{.script = script, .transactions = 2};
  const FakeBenchRun with = testing::RunFakeBenchOrFail(*fb, timed, GetParam());
  EXPECT_EQ(with.result.totals.transactions, 2);
  EXPECT_GE(with.result.latency.min(), 250'000'000);  // pgbench's: the sleeps count
  FakeBenchOptions untimed = timed;
  untimed.untimed_sleeps = true;
  const FakeBenchRun without = testing::RunFakeBenchOrFail(*fb, untimed, GetParam());
  EXPECT_EQ(without.result.totals.transactions, 2);
  EXPECT_LT(without.result.latency.max(), 100'000'000);
  EXPECT_GE(without.wall_s, 0.5);  // the client still slept

  // -T 1 with a 30 s think time: the window ends the sleep, the unfinished
  // script is not counted.
  FakeBenchOptions think{.script = "SELECT 1;\n\\sleep 30 s\n", .duration_s = 1};
  think.untimed_sleeps = true;
  const FakeBenchRun ended = testing::RunFakeBenchOrFail(*fb, think, GetParam());
  EXPECT_EQ(ended.result.stop_reason, StopReason::kCompleted);
  EXPECT_EQ(ended.result.totals.transactions, 0);
  EXPECT_LT(ended.wall_s, 10);
}

}  // namespace
}  // namespace pgrig::engine
