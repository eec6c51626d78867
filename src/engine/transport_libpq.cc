#include "engine/transport_libpq.h"

#include <sys/epoll.h>

#include "engine/messages.h"

namespace pgrig::engine {

ErrorKind ClassifySqlstate(std::string_view sqlstate) {
  if (pg::IsSerializationFailure(sqlstate)) return ErrorKind::kSerialization;
  if (pg::IsDeadlock(sqlstate)) return ErrorKind::kDeadlock;
  return ErrorKind::kOther;
}

namespace {

using ResultPtr = std::unique_ptr<PGresult, pg::PGresultDeleter>;

ErrorKind Classify(const PGresult* res) {
  const char* sqlstate = PQresultErrorField(res, PG_DIAG_SQLSTATE);
  return sqlstate == nullptr ? ErrorKind::kOther : ClassifySqlstate(sqlstate);
}

}  // namespace

void LibpqTransport::Watch(uint32_t events) {
  poller_->Watch(slot_, conn_ ? PQsocket(conn_.get()) : -1, events, owner_);
}

bool LibpqTransport::StartConnect(const pg::ConnectionParams& target) {
  auto arrays = target.Keywords();
  arrays.keywords.push_back(nullptr);
  arrays.values.push_back(nullptr);
  conn_.reset(PQconnectStartParams(arrays.keywords.data(), arrays.values.data(), 1));
  if (conn_ == nullptr || PQstatus(conn_.get()) == CONNECTION_BAD) return false;
  slot_->fd = -1;
  slot_->mask = 0;
  // libpq: behave as if the last poll said PGRES_POLLING_WRITING.
  Watch(EPOLLOUT);
  return slot_->fd >= 0;
}

bool LibpqTransport::PollConnect(bool* done) {
  *done = false;
  switch (PQconnectPoll(conn_.get())) {
    case PGRES_POLLING_READING:
      Watch(EPOLLIN);
      return slot_->fd >= 0;
    case PGRES_POLLING_WRITING:
      Watch(EPOLLOUT);
      return slot_->fd >= 0;
    case PGRES_POLLING_OK:
      PQsetnonblocking(conn_.get(), 1);
      Watch(EPOLLIN);
      *done = true;
      return true;
    default:
      return false;
  }
}

void LibpqTransport::Close() {
  DropKept();
  if (conn_ != nullptr) {
    poller_->Unwatch(slot_);
    conn_.reset();
  }
  slot_->want_write = false;
}

std::string LibpqTransport::LastError() const {
  return conn_ ? msg::TrimNewline(PQerrorMessage(conn_.get())) : std::string("out of memory");
}

TxStatus LibpqTransport::Status() const {
  switch (PQtransactionStatus(conn_.get())) {
    case PQTRANS_IDLE:
      return TxStatus::kIdle;
    case PQTRANS_INTRANS:
      return TxStatus::kInTransaction;
    case PQTRANS_INERROR:
      return TxStatus::kInError;
    default:
      return TxStatus::kUnknown;
  }
}

bool LibpqTransport::Broken() const { return PQstatus(conn_.get()) == CONNECTION_BAD; }

bool LibpqTransport::Send(const SqlCommand& command) {
  PGconn* conn = conn_.get();
  int ok = 0;
  switch (command.mode) {
    case QueryMode::kSimple:
      ok = PQsendQuery(conn, command.sql.data());
      break;
    case QueryMode::kExtended:
      ok = PQsendQueryParams(conn, command.sql.data(), command.nparams, nullptr, command.params,
                             nullptr, nullptr, 0);
      break;
    case QueryMode::kPrepared:
      ok = PQsendQueryPrepared(conn, command.statement->c_str(), command.nparams, command.params,
                               nullptr, nullptr, 0);
      break;
  }
  if (!ok) return false;
  // In pipeline mode libpq buffers until a sync or a flush; send now so the
  // server can start (pgbench relies on libpq's own flushing too).
  if (!command.in_pipeline) Flush();
  return true;
}

bool LibpqTransport::SendRollback() {
  if (PQsendQuery(conn_.get(), "ROLLBACK") == 0) return false;
  Flush();
  return true;
}

bool LibpqTransport::SendPrepare(const std::string& name, const std::string& sql, int nparams) {
  if (!PQsendPrepare(conn_.get(), name.c_str(), sql.c_str(), nparams, nullptr)) return false;
  Flush();
  if (slot_->fd < 0) Watch(EPOLLIN);  // the ring's lean transport had taken it out
  return true;
}

void LibpqTransport::Flush() {
  const int r = PQflush(conn_.get());
  if (r == 1) {
    if (!slot_->want_write) {
      slot_->want_write = true;
      Watch(EPOLLIN | EPOLLOUT);
    }
  } else if (slot_->want_write) {
    slot_->want_write = false;
    Watch(EPOLLIN);
  }
}

void LibpqTransport::OnEvents(uint32_t events, ResultSink& sink) {
  if ((events & EPOLLOUT) && slot_->want_write) Flush();
  if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) == 0) return;
  const bool awaiting = sink.awaiting() != Awaiting::kNothing;
  // When an answer is awaited, PQgetResult reports a failure to read as the
  // command's result.
  if (!PQconsumeInput(conn_.get())) {
    if (awaiting) {
      sink.OnReadFailed(LastError());
    } else {
      sink.OnLost(LastError());
    }
    return;
  }
  if (!awaiting) {
    // Unsolicited input (a notice) while idle: libpq has consumed it.
    if (Broken()) sink.OnLost(LastError());
    return;
  }
  sink.OnReceiving();
  ReadResults(sink);
}

// Turns each PGresult into a fact.  In pipeline mode a null result only ends
// one query's results (the next's follow); otherwise it ends the command.
void LibpqTransport::ReadResults(ResultSink& sink) {
  PGconn* conn = conn_.get();
  const bool pipeline = PQpipelineStatus(conn) != PQ_PIPELINE_OFF;
  while (!PQisBusy(conn)) {
    ResultPtr res(PQgetResult(conn));
    if (res == nullptr) {
      if (pipeline) continue;
      sink.OnCommandEnd();
      return;
    }
    bool go_on = true;
    const ExecStatusType st = PQresultStatus(res.get());
    switch (st) {
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
      case PGRES_EMPTY_QUERY: {
        keep_current_ = false;
        go_on = sink.OnResult(PgRows(res.get()));
        if (keep_current_) {
          keep_current_ = false;
          kept_ = std::move(res);
          kept_rows_ = PgRows(kept_.get());
        }
        break;
      }
      case PGRES_PIPELINE_SYNC:
        go_on = sink.OnPipelineSync();
        break;
      case PGRES_COPY_IN:
      case PGRES_COPY_OUT:
      case PGRES_COPY_BOTH:
        go_on = sink.OnCopy();
        break;
      case PGRES_PIPELINE_ABORTED:
        if (pipeline) {
          go_on = sink.OnResult(PgRows(res.get()));  // what follows an error up to the sync
          break;
        }
        [[fallthrough]];
      default: {
        const ErrorKind kind = (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR)
                                   ? Classify(res.get())
                                   : ErrorKind::kOther;
        go_on = sink.OnError(kind, msg::TrimNewline(PQresultErrorMessage(res.get())));
        break;
      }
    }
    if (!go_on) return;
  }
}

}  // namespace pgrig::engine
