#include "engine/transport_lean.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/messages.h"

namespace pgrig::engine {

namespace {

constexpr size_t kRecvBufferBytes = 8192;  // per connection, with the ring
constexpr size_t kReadRoom = 16 * 1024;    // per recv() with epoll

// libpq's default notice processor writes the notice to stderr as is.
void PrintNotice(std::string_view body) {
  const pg::ServerMessageFields f = pg::ParseServerMessage(body);
  const std::string text = pg::FormatServerMessage(f, pg::ServerMessageKind::kNotice, std::nullopt,
                                                   /*multibyte_utf8=*/true);
  std::fputs(text.c_str(), stderr);
}

// Results on this path carry no rows (scripts that capture take libpq).
class NoRows final : public Rows {
 public:
  int RowCount() const override { return 0; }
  int FieldCount() const override { return 0; }
  std::string_view FieldName(int) const override { return {}; }
  std::string_view Value(int, int) const override { return {}; }
};
const NoRows kNoRows{};

std::string ErrnoText(std::string_view what, int errnum) {
  return std::string(what) + std::strerror(errnum);
}

}  // namespace

bool LeanTransport::Adopt(PGconn* conn) {
  if (PQsslInUse(conn) || PQgssEncInUse(conn)) return false;
  const std::string_view enc = pg_encoding_to_char(PQclientEncoding(conn));
  static constexpr std::string_view kOtherMultibyte[] = {
      "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW",  "EUC_JIS_2004", "MULE_INTERNAL", "SJIS",
      "BIG5",   "GBK",    "UHC",    "GB18030", "JOHAB",        "SHIFT_JIS_2004"};
  for (std::string_view m : kOtherMultibyte) {
    if (enc == m) return false;
  }
  conn_ = conn;
  active_ = true;
  sock_ = PQsocket(conn);
  utf8_ = enc == "UTF8";
  tx_status_ = PQtransactionStatus(conn) == PQTRANS_IDLE ? 'I' : 'T';
  out_.clear();
  out_sent_ = 0;
  in_.Clear();
  return true;
}

void LeanTransport::Close() {
  if (recv_armed_) poller_->CancelRecv(owner_);
  active_ = false;
  out_.clear();
  out_sent_ = 0;
  in_.Clear();
}

TxStatus LeanTransport::Status() const {
  switch (tx_status_) {
    case 'I':
      return TxStatus::kIdle;
    case 'T':
      return TxStatus::kInTransaction;
    case 'E':
      return TxStatus::kInError;
    default:
      return TxStatus::kUnknown;
  }
}

bool LeanTransport::Broken() const { return PQstatus(conn_) == CONNECTION_BAD; }

void LeanTransport::ResetOutputIfSent() {
  if (out_sent_ == out_.size()) {
    // Everything before was sent (the server answered it): start afresh.
    out_.clear();
    out_sent_ = 0;
  }
}

// What PQsendQuery, PQsendQueryParams and PQsendQueryPrepared would send.
bool LeanTransport::Send(const SqlCommand& command) {
  ResetOutputIfSent();
  pg::WireWriter w(&out_);
  switch (command.mode) {
    case QueryMode::kSimple:
      w.Query(command.sql);
      query_ = command.sql;
      break;
    case QueryMode::kExtended:
      w.Parse("", command.sql);
      w.Bind("", command.nparams, command.params);
      w.DescribePortal();
      w.Execute();
      w.Sync();
      query_ = command.sql;
      break;
    case QueryMode::kPrepared:
      w.Bind(*command.statement, command.nparams, command.params);
      w.DescribePortal();
      w.Execute();
      w.Sync();
      query_.reset();
      break;
  }
  if (!Flush()) {
    error_ = std::strerror(errno);
    return false;
  }
  return true;
}

bool LeanTransport::SendRollback() {
  ResetOutputIfSent();
  pg::WireWriter(&out_).Query("ROLLBACK");
  query_ = "ROLLBACK";
  if (!Flush()) {
    error_ = std::strerror(errno);
    return false;
  }
  return true;
}

bool LeanTransport::Flush() {
  if (poller_->ring()) {
    // Queued; it goes with the loop turn's single system call.  The buffer
    // stays as it is until the next command, which comes after the answer.
    if (slot_->fd >= 0) poller_->Unwatch(slot_);  // answers come through the ring
    if (out_sent_ < out_.size()) {
      poller_->Send(sock_, out_.data() + out_sent_, out_.size() - out_sent_, owner_);
      out_sent_ = out_.size();
    }
    ArmRecv();
    return true;
  }
  while (out_sent_ < out_.size()) {
    const ssize_t n = ::send(sock_, out_.data() + out_sent_, out_.size() - out_sent_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      if (!slot_->want_write) {
        slot_->want_write = true;
        Watch(EPOLLIN | EPOLLOUT);
      }
      return true;
    }
    out_sent_ += static_cast<size_t>(n);
  }
  out_.clear();
  out_sent_ = 0;
  if (slot_->want_write) {
    slot_->want_write = false;
    Watch(EPOLLIN);
  }
  return true;
}

void LeanTransport::OnEvents(uint32_t events, ResultSink& sink) {
  if (poller_->ring()) {
    // The ring's receives read this socket; epoll must not spin on it.
    if (slot_->fd >= 0) poller_->Unwatch(slot_);
    return;
  }
  if ((events & EPOLLOUT) && slot_->want_write && !Flush()) {
    sink.OnLost(ErrnoText("could not send data to server: ", errno));
    return;
  }
  if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) == 0) return;
  for (;;) {
    char* space = in_.WriteSpace(kReadRoom);
    const size_t room = in_.WriteRoom();
    const ssize_t n = ::recv(sock_, space, room, 0);
    if (n > 0) {
      in_.Commit(static_cast<size_t>(n));
      if (static_cast<size_t>(n) < room) break;  // drained: no second call for EAGAIN
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    ReadFailed(n == 0 ? std::string(msg::kServerClosed)
                      : ErrnoText("could not receive data from server: ", errno),
               sink);
    return;
  }
  Dispatch(sink);
}

void LeanTransport::OnRecv(int res, ResultSink& sink) {
  recv_armed_ = false;
  if (!active_) return;  // closed; the receive was cancelled
  if (res == -EINTR || res == -EAGAIN) {
    ArmRecv();
    return;
  }
  if (res <= 0) {
    ReadFailed(res == 0 ? std::string(msg::kServerClosed)
                        : ErrnoText("could not receive data from server: ", -res),
               sink);
    return;
  }
  in_.Feed(std::string_view(recv_buf_.get(), static_cast<size_t>(res)));
  Dispatch(sink);
  // Still waiting for the rest of an answer: receive again.
  if (active_ && sink.awaiting() == Awaiting::kAnswer) ArmRecv();
}

void LeanTransport::OnSendFailed(int res, ResultSink& sink) {
  sink.OnLost(ErrnoText("could not send data to server: ", -res));
}

void LeanTransport::ArmRecv() {
  if (recv_armed_) return;
  if (!recv_buf_) recv_buf_ = std::make_unique_for_overwrite<char[]>(kRecvBufferBytes);
  poller_->Recv(sock_, recv_buf_.get(), kRecvBufferBytes, owner_);
  recv_armed_ = true;
}

// Whatever arrived before the end is read first (a FATAL, then the close).
void LeanTransport::ReadFailed(const std::string& why, ResultSink& sink) {
  Dispatch(sink);
  if (!active_) return;
  if (sink.awaiting() != Awaiting::kNothing) {
    sink.OnReadFailed(why);
  } else {
    sink.OnLost(why);
  }
}

void LeanTransport::Dispatch(ResultSink& sink) {
  if (sink.awaiting() == Awaiting::kAnswer) {
    ReadAnswer(sink);
    return;
  }
  // While idle: notices, parameter changes, or the server's goodbye.
  while (auto m = in_.Next()) {
    if (m->type == 'N' || m->type == 'E') PrintNotice(m->body);
    if (m->type == '\0') {  // the stream is out of step (pg/wire.h)
      sink.OnLost(in_.SyncLoss());
      return;
    }
  }
  in_.Compact();
}

void LeanTransport::ReadAnswer(ResultSink& sink) {
  while (auto m = in_.Next()) {
    bool go_on = true;
    switch (m->type) {
      case 'C':  // CommandComplete
      case 'I':  // EmptyQueryResponse
        go_on = sink.OnResult(kNoRows);
        break;
      case 'T':
      case 'D':
      case '1':
      case '2':
      case '3':
      case 'n':
      case 's':
      case 'S':
      case 'A':
        break;  // rows and acknowledgements: nothing to keep
      case 'N':
        PrintNotice(m->body);
        break;
      case 'E': {
        ErrorKind kind = ErrorKind::kOther;
        const std::string text = ErrorText(m->body, &kind);
        go_on = sink.OnError(kind, text);
        break;
      }
      case 'Z':  // ReadyForQuery: the command is over
        tx_status_ = m->body.empty() ? '?' : m->body[0];
        in_.Compact();
        sink.OnCommandEnd();
        return;
      case 'G':  // CopyInResponse
      case 'H':  // CopyOutResponse
      case 'W':  // CopyBothResponse
        go_on = sink.OnCopy();
        break;
      case '\0':  // an impossible length: the stream is out of step (pg/wire.h)
        sink.OnLost(in_.SyncLoss());
        return;
      default:
        go_on = sink.OnUnexpected(m->type);
        break;
    }
    if (!go_on) return;
  }
  in_.Compact();
}

std::string LeanTransport::ErrorText(std::string_view body, ErrorKind* kind) const {
  const pg::ServerMessageFields f = pg::ParseServerMessage(body);
  *kind = f.sqlstate.empty() ? ErrorKind::kOther : ClassifySqlstate(f.sqlstate);
  return msg::TrimNewline(
      pg::FormatServerMessage(f, pg::ServerMessageKind::kError, query_, utf8_).c_str());
}

}  // namespace pgrig::engine
