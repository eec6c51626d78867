// The engine's client state machine against a scripted fake server
// (tests/support/fake_backend.h), no PostgreSQL: SQL errors in each protocol
// mode, a pipeline with an error, the server closing the connection in a
// transaction, malformed messages.  Every test runs on each of the engine's
// three I/O paths (lean over io_uring, lean over epoll, libpq) and expects
// the same pgbench text from all of them.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "pg/connection.h"
#include "support/fake_backend.h"
#include "support/fake_bench.h"

namespace pgrig::engine {
namespace {

using script::QueryMode;
using testing::FakeBackend;
using testing::FakeBenchOptions;
using testing::FakeBenchRun;
using testing::FakeReply;
using testing::FakeStatement;
using testing::IoPath;

using script::QueryModeName;

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::unique_ptr<FakeBackend> StartFake(testing::FakeHandler h) {
  return testing::StartFakeBackend(std::move(h));
}

FakeBenchRun RunBench(const FakeBackend& fb, const FakeBenchOptions& o, IoPath path) {
  return testing::RunFakeBenchOrFail(fb, o, path);
}

// Every client aborted with pgbench's error-level line, nothing counted.
void ExpectAllAborted(const FakeBenchRun& run, int clients) {
  EXPECT_EQ(run.result.stop_reason, StopReason::kAborted);
  EXPECT_EQ(run.result.aborted_clients, clients);
  EXPECT_EQ(run.result.finished_clients, 0);
  EXPECT_EQ(run.result.totals.transactions, 0);
  EXPECT_EQ(run.result.totals.failures(), 0);
}

// A text that came out as "error: <text>" through on_message.
bool Logged(const FakeBenchRun& run, const std::string& text) {
  for (const std::string& m : run.messages) {
    if (m == "error: " + text) return true;
  }
  return false;
}

TEST(FakeBackendTest, SpeaksTheProtocolToLibpq) {
  auto fb = StartFake([](const FakeStatement& st) {
    if (st.sql == "select 'x'") return FakeReply::Ok({"x"});
    return FakeReply::Error("42P01", "relation \"nope\" does not exist", 15);
  });
  ASSERT_NE(fb, nullptr);
  {
    auto con = pg::Connect(fb->Params());
    ASSERT_TRUE(con.ok()) << con.status().message();
    EXPECT_EQ(con->server_version(), 170002);
    auto v = con->QueryValue("select 'x'");
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(*v, "x");
    auto bad = con->Exec("select * from nope");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(con->last_sqlstate(), "42P01");
    EXPECT_TRUE(Contains(bad.status().message(), "relation \"nope\" does not exist"))
        << bad.status().message();
    auto params = con->ExecParams("select 'x'", {});
    ASSERT_TRUE(params.ok()) << params.status().message();
    EXPECT_EQ(params->Get(0, 0), "x");
  }
  EXPECT_EQ(fb->connections(), 1);
  EXPECT_EQ(fb->statements(), 3);
}

int OpenDescriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// The fake stops its threads, closes its descriptors and removes its
// directory, even with a client still connected.
TEST(FakeBackendTest, LeavesNothingBehind) {
  const int before = OpenDescriptors();
  std::string dir;
  {
    auto fb = StartFake([](const FakeStatement&) { return FakeReply::Ok(); });
    ASSERT_NE(fb, nullptr);
    dir = fb->Params().host;
    EXPECT_TRUE(std::filesystem::exists(dir + "/.s.PGSQL." + fb->Params().port));
    auto con = pg::Connect(fb->Params());
    ASSERT_TRUE(con.ok()) << con.status().message();
    auto stays = pg::Connect(fb->Params());
    ASSERT_TRUE(stays.ok()) << stays.status().message();
    *con = pg::Connection();
    EXPECT_EQ(fb->connections(), 2);
    fb.reset();  // with `stays` still connected
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_EQ(OpenDescriptors(), before);
}

class SessionErrorsTest : public ::testing::TestWithParam<IoPath> {};

// A runtime SQL error aborts the client with pgbench's line, in every mode,
// on every path; the statements before it ran, nothing after it did.
TEST_P(SessionErrorsTest, SqlErrorAbortsTheClientInEachMode) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    std::atomic<int> divisions{0};
    std::atomic<int> after{0};
    std::mutex mu;
    std::vector<std::string> statement_names;
    auto fb = StartFake([&](const FakeStatement& st) {
      if (Contains(st.sql, "SELECT 2")) ++after;
      const bool zero = Contains(st.sql, "/ 0") || (st.params.size() == 1 && st.params[0] == "0");
      if (Contains(st.sql, "SELECT 1 /")) {
        std::lock_guard<std::mutex> lock(mu);
        statement_names.push_back(st.statement);
      }
      if (zero) {
        ++divisions;
        return FakeReply::Error("22012", "division by zero");
      }
      return FakeReply::Ok({"1"});
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = "\\set x 0\nSELECT 1;\nSELECT 1 / :x;\nSELECT 2;\n",
                       .mode = mode,
                       .clients = 2,
                       .transactions = 5};
    const FakeBenchRun run = RunBench(*fb, o, GetParam());
    ExpectAllAborted(run, 2);
    const std::string tail = " script 0 aborted in command 2 query 0: ERROR:  division by zero";
    EXPECT_TRUE(run.result.first_abort_message == "client 0" + tail ||
                run.result.first_abort_message == "client 1" + tail)
        << run.result.first_abort_message;
    EXPECT_TRUE(Logged(run, "client 0" + tail));
    EXPECT_TRUE(Logged(run, "client 1" + tail));
    EXPECT_EQ(divisions.load(), 2);
    EXPECT_EQ(after.load(), 0);
    // Prepared: the statement is pgbench's P_<n> (P_0 is "SELECT 1").
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(statement_names,
              std::vector<std::string>(2, mode == QueryMode::kPrepared ? "P_1" : ""));
    testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/true);
  }
}

// An error with a position: libpq's text with the statement and a caret when
// the client sent the text (simple, extended), "at character N" for a
// prepared statement; the lean path must print exactly what libpq prints.
TEST_P(SessionErrorsTest, SyntaxErrorShowsLibpqsCursor) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    std::mutex mu;
    std::string sent;
    auto fb = StartFake([&](const FakeStatement& st) {
      std::lock_guard<std::mutex> lock(mu);
      sent = st.sql;
      return FakeReply::Error("42601", "syntax error at or near \"FRM\"", 10);
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = "SELECT 1 FRM t;\n", .mode = mode, .transactions = 1};
    const FakeBenchRun run = RunBench(*fb, o, GetParam());
    ExpectAllAborted(run, 1);
    std::lock_guard<std::mutex> lock(mu);
    std::string expected =
        "client 0 script 0 aborted in command 0 query 0: ERROR:  syntax error at or near \"FRM\"";
    if (mode == QueryMode::kPrepared) {
      expected += " at character 10";
    } else {
      ASSERT_EQ(sent.substr(0, 12), "SELECT 1 FRM") << sent;
      expected += "\nLINE 1: " + sent + "\n                 ^";
    }
    EXPECT_EQ(run.result.first_abort_message, expected);
  }
}

// A statement that fails to prepare: pgbench logs the server's error and
// goes on; executing it then fails because it does not exist.
TEST_P(SessionErrorsTest, PrepareFailureIsLoggedThenExecuteAborts) {
  auto fb = testing::StartFakeBackend([](const FakeStatement&) { return FakeReply::Ok({"1"}); },
                                      [](const FakeStatement& st) {
                                        if (Contains(st.sql, "FRM"))
                                          return FakeReply::Error(
                                              "42601", "syntax error at or near \"FRM\"", 10);
                                        return FakeReply::Ok();
                                      });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = "SELECT 1;\nSELECT 1 FRM t;\n", .mode = QueryMode::kPrepared, .transactions = 2};
  const FakeBenchRun run = RunBench(*fb, o, GetParam());
  ExpectAllAborted(run, 1);
  EXPECT_EQ(run.result.first_abort_message,
            "client 0 script 0 aborted in command 1 query 0: ERROR:  prepared statement \"P_1\" "
            "does not exist");
  bool logged = false;
  for (const std::string& m : run.messages) {
    logged =
        logged ||
        m.starts_with("error: ERROR:  syntax error at or near \"FRM\"\nLINE 1: SELECT 1 FRM t");
  }
  EXPECT_TRUE(logged);
  EXPECT_EQ(fb->statements(), 1);  // P_0; the Bind of P_1 fails in the fake itself
}

// The error inside a pipeline belongs to \endpipeline (command 4); what
// followed it up to the sync was never executed.
TEST_P(SessionErrorsTest, PipelineWithAnErrorAborts) {
  for (QueryMode mode : {QueryMode::kExtended, QueryMode::kPrepared}) {
    SCOPED_TRACE(QueryModeName(mode));
    std::atomic<int> first{0};
    std::atomic<int> third{0};
    auto fb = StartFake([&](const FakeStatement& st) {
      if (Contains(st.sql, "bad"))
        return FakeReply::Error("42703", "column \"bad\" does not exist");
      if (Contains(st.sql, "SELECT 1")) ++first;
      if (Contains(st.sql, "SELECT 3")) ++third;
      return FakeReply::Ok({"1"});
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{
        .script = "\\startpipeline\nSELECT 1;\nSELECT bad;\nSELECT 3;\n\\endpipeline\n",
        .mode = mode,
        .transactions = 3};
    const FakeBenchRun run = RunBench(*fb, o, GetParam());
    ExpectAllAborted(run, 1);
    EXPECT_EQ(
        run.result.first_abort_message,
        "client 0 script 0 aborted in command 4 query 0: ERROR:  column \"bad\" does not exist");
    EXPECT_EQ(first.load(), 1);
    EXPECT_EQ(third.load(), 0);
    testing::ExpectIoPath(run, GetParam(), o, /*lean_applies=*/false);  // pipelines: libpq
  }
}

TEST_P(SessionErrorsTest, PipelineInSimpleModeIsRefused) {
  auto fb = StartFake([](const FakeStatement&) { return FakeReply::Ok(); });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = "\\startpipeline\nSELECT 1;\n\\endpipeline\n", .transactions = 1};
  const FakeBenchRun run = RunBench(*fb, o, GetParam());
  ExpectAllAborted(run, 1);
  EXPECT_EQ(run.result.first_abort_message,
            "client 0 aborted in command 0 (startpipeline) of script 0; cannot use pipeline mode "
            "with the simple query protocol");
  EXPECT_EQ(fb->statements(), 0);
}

// The ROLLBACK after a serialization failure fails too: the client aborts
// with pgbench's words and the server's message.
TEST_P(SessionErrorsTest, FailedRollbackAborts) {
  auto fb = StartFake([](const FakeStatement& st) {
    if (Contains(st.sql, "UPDATE")) {
      return FakeReply::Error("40001", "could not serialize access due to concurrent update");
    }
    if (st.sql == "ROLLBACK") return FakeReply::Error("XX000", "rollback went wrong");
    return FakeReply::Ok();
  });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{.script = "BEGIN;\nUPDATE t SET v = 1;\nEND;\n",
                     .mode = QueryMode::kExtended,
                     .transactions = 2,
                     .max_tries = 3};
  const FakeBenchRun run = RunBench(*fb, o, GetParam());
  ExpectAllAborted(run, 1);
  EXPECT_EQ(run.result.first_abort_message,
            "client 0 aborted while rolling back the transaction after an error; ERROR:  rollback "
            "went wrong");
  EXPECT_EQ(fb->statements(), 3);  // BEGIN, UPDATE, ROLLBACK
}

// The server goes away in the middle of a transaction, without a word (a
// crashed backend): no hang, every client aborts, on every path and in
// every mode, with pgbench's words (its PQconsumeInput fails at the end of
// the stream: "perhaps the backend died while processing", the text real
// pgbench runs print when a backend dies).  Found by this test in session 5:
// the engine used to print libpq's "server closed the connection
// unexpectedly" as the query's result.
TEST_P(SessionErrorsTest, ServerClosesTheConnectionMidTransaction) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    auto fb = StartFake([](const FakeStatement& st) {
      if (Contains(st.sql, "UPDATE")) return FakeReply::Close();
      return FakeReply::Ok();
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{.script = "BEGIN;\nUPDATE t SET v = 1;\nEND;\n",
                       .mode = mode,
                       .clients = 2,
                       .transactions = 4};
    const FakeBenchRun run = RunBench(*fb, o, GetParam());
    ExpectAllAborted(run, 2);
    const std::string tail =
        " aborted in command 1 (SQL) of script 0; perhaps the backend died while processing";
    EXPECT_TRUE(Logged(run, "client 0" + tail)) << run.result.first_abort_message;
    EXPECT_TRUE(Logged(run, "client 1" + tail));
    EXPECT_EQ(fb->statements(), 4);  // BEGIN and UPDATE per client, no END
  }
}

// The server ends the session with a FATAL (pg_terminate_backend) and
// closes: the client aborts with the server's message.
TEST_P(SessionErrorsTest, ServerTerminatesTheSessionWithAFatalError) {
  for (QueryMode mode : testing::kAllQueryModes) {
    SCOPED_TRACE(QueryModeName(mode));
    std::string fatal;
    for (const auto& [code, value] :
         {std::pair<char, std::string>{'S', "FATAL"},
          {'V', "FATAL"},
          {'C', "57P01"},
          {'M', "terminating connection due to administrator command"}}) {
      fatal += code + value + '\0';
    }
    fatal += '\0';
    auto fb = StartFake([&fatal](const FakeStatement& st) {
      if (Contains(st.sql, "UPDATE")) return FakeReply::Close(FakeBackend::Message('E', fatal));
      return FakeReply::Ok();
    });
    ASSERT_NE(fb, nullptr);
    FakeBenchOptions o{
        .script = "BEGIN;\nUPDATE t SET v = 1;\nEND;\n", .mode = mode, .transactions = 4};
    const FakeBenchRun run = RunBench(*fb, o, GetParam());
    ExpectAllAborted(run, 1);
    EXPECT_TRUE(run.result.first_abort_message.starts_with(
        "client 0 script 0 aborted in command 1 query 0: FATAL:  terminating connection due to "
        "administrator command"))
        << run.result.first_abort_message;
    std::printf("[%s] %s\n", testing::IoPathName(GetParam()),
                run.result.first_abort_message.c_str());
  }
}

struct Malformed {
  const char* name;
  std::string bytes;
  const char* expect;  // part of the abort message
};

// Bytes that are not a valid answer: the client aborts with a message that
// names the problem, the run ends by itself, nothing crashes.
void ExpectMalformedAborts(const Malformed& m, IoPath path) {
  SCOPED_TRACE(m.name);
  auto fb = StartFake([&m](const FakeStatement&) { return FakeReply::Raw(m.bytes); });
  ASSERT_NE(fb, nullptr);
  FakeBenchOptions o{
      .script = "SELECT 1;\n", .transactions = 3, .watchdog = std::chrono::seconds(10)};
  const FakeBenchRun run = RunBench(*fb, o, path);
  ExpectAllAborted(run, 1);
  const std::string prefix = "client 0 script 0 aborted in command 0 query 0: ";
  EXPECT_EQ(run.result.first_abort_message.substr(0, prefix.size()), prefix)
      << run.result.first_abort_message;
  EXPECT_TRUE(Contains(run.result.first_abort_message.substr(prefix.size()), m.expect))
      << run.result.first_abort_message;
  EXPECT_EQ(fb->statements(), 1);
}

TEST_P(SessionErrorsTest, UnknownMessageTypeAborts) {
  ExpectMalformedAborts({"unknown type", FakeBackend::Message('Y', "what"), "Y"}, GetParam());
}

// A length field that cannot be right loses synchronization at once, as
// libpq does ("lost synchronization with server: got message type ...,
// length ...").  Found by this test in session 5: the lean paths reported a
// length below 4 as an unknown message type and waited for ever for a huge
// one.
TEST_P(SessionErrorsTest, MalformedLengthAbortsNamingTheLength) {
  ExpectMalformedAborts({"length below 4", std::string("C\0\0\0\x02", 5), "length"}, GetParam());
  ExpectMalformedAborts({"huge length", std::string("D\x7f\xff\xff\xf0", 5) + "abc", "length"},
                        GetParam());
}

INSTANTIATE_TEST_SUITE_P(Paths, SessionErrorsTest, ::testing::ValuesIn(testing::kAllIoPaths),
                         [](const ::testing::TestParamInfo<IoPath>& i) {
                           return std::string(testing::IoPathName(i.param));
                         });

}  // namespace
}  // namespace pgrig::engine
