// FakeBackend: a scripted stand-in for a PostgreSQL server, for unit tests of
// the load engine's state machine without a server.  Test-only: built into
// pgrig_fake_backend (tests/support), never into the pgrig binary.
//
// It listens on a Unix socket ".s.PGSQL.<port>" in a fresh temporary
// directory, so libpq connects with host=<dir> port=<port>
// (Params()).  Every accepted connection is served on its own thread:
// the startup (SSL/GSS requests refused, AuthenticationOk, the
// ParameterStatus messages libpq and the engine's lean path read,
// BackendKeyData, ReadyForQuery), then simple Query and the extended
// Parse/Bind/Describe/Execute/Sync/Flush messages, including pipelines (many
// Executes before one Sync, skipped after an error up to the Sync).
//
// What a statement answers is decided by the test's Handler, called once per
// executed statement (simple Query, or Execute of a bound portal) with the
// SQL text, the connection's number and the statement's number on that
// connection.  It returns a Reply: rows and CommandComplete, an
// ErrorResponse with a SQLSTATE, the connection closed, or raw bytes sent
// as they are (malformed messages); any of them after a delay.  The fake
// keeps the transaction status as a server would for BEGIN / COMMIT / END /
// ROLLBACK and answers 25P02 itself inside a failed transaction block.
//
// Bounded: every wait polls with a timeout and the stop signal; the
// destructor stops and joins every thread, closes every descriptor and
// removes the directory.  The Handler is called from the connection threads,
// possibly concurrently: it must be thread-safe.  The accessors are
// thread-safe.
#ifndef PGRIG_TESTS_SUPPORT_FAKE_BACKEND_H_
#define PGRIG_TESTS_SUPPORT_FAKE_BACKEND_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "pg/connection.h"

namespace pgrig::testing {

// How a statement reached the fake.
enum class FakeProtocol { kSimple, kExtended };

struct FakeStatement {
  int connection = 0;  // 0-based, in the order connections were accepted
  int64_t number = 0;  // statements executed before this one on this connection
  FakeProtocol protocol = FakeProtocol::kSimple;
  std::string sql;        // the Query text, or the text Parse gave the bound statement
  std::string statement;  // extended: the statement name ("" for unnamed)
  std::vector<std::optional<std::string>> params;  // extended: Bind's values
};

struct FakeReply {
  enum class Kind { kOk, kError, kClose, kRaw };
  Kind kind = Kind::kOk;
  // kOk: rows of one text column "?column?" and the CommandComplete tag
  // (empty: derived from the SQL's first word, "SELECT <rows>", "UPDATE 1").
  std::vector<std::string> rows;
  std::string tag;
  // kError: the ErrorResponse fields (position 0: none).
  std::string sqlstate;
  std::string message;
  int position = 0;
  // kRaw: bytes written instead of an answer; the connection stays open.
  // kClose: bytes written before the connection is closed (e.g. a FATAL).
  std::string raw;
  // Waited before answering (kOk, kError, kClose, kRaw alike).
  std::chrono::milliseconds delay{0};

  static FakeReply Ok(std::vector<std::string> rows = {}) {
    FakeReply r;
    r.rows = std::move(rows);
    return r;
  }
  static FakeReply Error(std::string sqlstate, std::string message, int position = 0) {
    FakeReply r;
    r.kind = Kind::kError;
    r.sqlstate = std::move(sqlstate);
    r.message = std::move(message);
    r.position = position;
    return r;
  }
  static FakeReply Close(std::string last_words = {}) {
    FakeReply r;
    r.kind = Kind::kClose;
    r.raw = std::move(last_words);
    return r;
  }
  static FakeReply Raw(std::string bytes) {
    FakeReply r;
    r.kind = Kind::kRaw;
    r.raw = std::move(bytes);
    return r;
  }
  FakeReply&& After(std::chrono::milliseconds d) && {
    delay = d;
    return std::move(*this);
  }
};

using FakeHandler = std::function<FakeReply(const FakeStatement&)>;

class FakeBackend {
 public:
  // Starts listening.  Fails when the directory or the socket cannot be made.
  // `prepare`, when set, answers each named Parse (libpq's PQprepare) before
  // it is stored: Ok gives ParseComplete, Error leaves the statement
  // undefined (a later Bind gets 26000, as from a server); those calls are
  // not counted in statements().
  static Result<std::unique_ptr<FakeBackend>> Start(FakeHandler handler,
                                                    FakeHandler prepare = nullptr);
  ~FakeBackend();
  FakeBackend(const FakeBackend&) = delete;
  FakeBackend& operator=(const FakeBackend&) = delete;

  // host=<dir> port=<port> user=fake dbname=fake.
  pg::ConnectionParams Params() const;

  int connections() const { return connections_.load(); }    // accepted so far
  int64_t statements() const { return statements_.load(); }  // handler calls so far
  // Connections whose thread has ended (the client closed, or the fake did).
  int closed_connections() const { return closed_.load(); }

  // A protocol message as a backend writes it: type, length, body.
  static std::string Message(char type, std::string_view body);

 private:
  FakeBackend(FakeHandler handler, FakeHandler prepare, std::string dir, int listen_fd,
              int stop_read, int stop_write);
  void AcceptLoop();
  void Serve(int fd, int connection);

  FakeHandler handler_;
  FakeHandler prepare_;
  std::string dir_;
  int listen_fd_;
  int stop_read_;  // readable once the fake stops
  int stop_write_;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int64_t> statements_{0};
  std::atomic<int> closed_{0};
  std::mutex threads_mu_;
  std::vector<std::thread> threads_;  // guarded by threads_mu_
  std::thread acceptor_;
};

}  // namespace pgrig::testing

#endif  // PGRIG_TESTS_SUPPORT_FAKE_BACKEND_H_
