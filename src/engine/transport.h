// Transport: how a session's SQL reaches the server and how the answers come
// back, behind one interface with two implementations.
//
//   * LibpqTransport (transport_libpq.h): libpq in non-blocking mode.  It
//     always opens the connection and prepares statements (-M prepared), and
//     it alone serves what only libpq does here: pipelines, \gset and \aset,
//     SSL/GSS-encrypted connections, multibyte client encodings other than
//     UTF-8, and -d traces.
//   * LeanTransport (transport_lean.h): takes over a connection libpq opened
//     and speaks the protocol itself (pg/wire.h), writing the messages libpq
//     would write and decoding the answers without building a PGresult.
//
// Both decode what the server says into the same few protocol facts, which
// they report to the session through ResultSink: a statement's result, an
// error, a pipeline sync, a COPY, a message the engine does not speak, the
// end of the command (libpq's last PQgetResult, the protocol's
// ReadyForQuery) and a lost connection.  What a fact means (count it, retry,
// abort, roll back) is decided once, in the session (session.h), for both.
//
// A transport registers its socket with the worker's Poller through the
// PollSlot its session owns, so that the poller hands events back to the
// session, which passes them to the transport reading at the time.  Owned by
// one session, used on its worker's thread only; not thread-safe.
#ifndef PGRIG_ENGINE_TRANSPORT_H_
#define PGRIG_ENGINE_TRANSPORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/config.h"

namespace pgrig::engine {

// What went wrong in a transaction: the retryable errors, anything else.
enum class ErrorKind : uint8_t { kNone, kSerialization, kDeadlock, kOther };
// kSerialization for 40001, kDeadlock for 40P01, else kOther.
ErrorKind ClassifySqlstate(std::string_view sqlstate);

// The connection's transaction status after the last command.
enum class TxStatus : uint8_t { kIdle, kInTransaction, kInError, kUnknown };

// The rows of one statement's result, as \gset and \aset read them.  The
// lean transport never has any (scripts with captures take libpq).
class Rows {
 public:
  virtual int RowCount() const = 0;
  virtual int FieldCount() const = 0;
  virtual std::string_view FieldName(int field) const = 0;
  virtual std::string_view Value(int row, int field) const = 0;

 protected:
  ~Rows() = default;
};

// One SQL command of a script, as the runner prepared it.
struct SqlCommand {
  QueryMode mode = QueryMode::kSimple;
  std::string_view sql;                    // NUL-terminated (the runner's buffer)
  const std::string* statement = nullptr;  // -M prepared: the statement's name
  int nparams = 0;
  const char* const* params = nullptr;
  bool in_pipeline = false;  // libpq buffers it until the pipeline's sync
};

// What the session expects from the server at the moment.
enum class Awaiting : uint8_t { kNothing, kAnswer, kPrepare };

// The session's side of reading: one call per protocol fact.  The bool
// results say whether to go on reading (false: the session aborted or moved
// on to its next command; the transport stops and returns).
class ResultSink {
 public:
  virtual Awaiting awaiting() const = 0;
  virtual void OnReceiving() = 0;  // before libpq reads the answers (-d trace)
  virtual bool OnResult(const Rows& rows) = 0;
  virtual bool OnError(ErrorKind kind, std::string_view text) = 0;
  virtual bool OnPipelineSync() = 0;
  virtual bool OnCopy() = 0;
  virtual bool OnUnexpected(char type) = 0;
  virtual void OnCommandEnd() = 0;
  virtual void OnLost(std::string_view why) = 0;
  // Reading failed (end of stream, a socket error) while an answer was
  // awaited: pgbench's failed PQconsumeInput, "perhaps the backend died".
  virtual void OnReadFailed(std::string_view why) = 0;

 protected:
  ~ResultSink() = default;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends a command (and, outside a pipeline, flushes it).  False when it
  // could not be sent: LastError() says why.
  virtual bool Send(const SqlCommand& command) = 0;
  // Sends ROLLBACK after a failed transaction.
  virtual bool SendRollback() = 0;
  // The socket is ready (`events` as epoll reports them): send what is
  // pending, read what arrived and report the facts to sink.
  virtual void OnEvents(uint32_t events, ResultSink& sink) = 0;

  virtual TxStatus Status() const = 0;
  // libpq considers the connection broken (CONNECTION_BAD).
  virtual bool Broken() const = 0;
  // Why the last operation failed, one line.
  virtual std::string LastError() const = 0;
  // Forgets the connection's state; the libpq transport also closes it.
  virtual void Close() = 0;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_TRANSPORT_H_
