// LeanTransport: the Transport (transport.h) that speaks the protocol itself
// (pg/wire.h) on a connection libpq opened.
//
// Adopt() takes the socket of a LibpqTransport's connection once it is open
// (and its statements prepared as they are needed, through libpq); from then
// on the session's commands go out as the bytes PQsendQuery,
// PQsendQueryParams or PQsendQueryPrepared would write, and the answers are
// decoded here: CommandComplete and EmptyQueryResponse are results,
// ErrorResponse an error (its text formatted as libpq would), ReadyForQuery
// the end of the command, rows and acknowledgements are skipped, notices are
// printed to stderr as libpq's default notice processor does.
//
// With epoll it sends with send() and reads with recv() when the Poller says
// the socket is ready; with the Poller's ring it queues the send and a
// receive into a per-connection buffer (kept for the run), so that one loop
// turn's system call carries both.  The PGconn stays libpq's: Close() only
// forgets this transport's state.
//
// Owned by one session; used on its worker's thread only.
#ifndef PGRIG_ENGINE_TRANSPORT_LEAN_H_
#define PGRIG_ENGINE_TRANSPORT_LEAN_H_

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/poller.h"
#include "engine/transport.h"
#include "pg/wire.h"

namespace pgrig::engine {

class LeanTransport final : public Transport {
 public:
  LeanTransport(Poller* poller, PollSlot* slot, void* owner)
      : poller_(poller), slot_(slot), owner_(owner) {}

  // Takes over conn's socket; false (and nothing changed) when the
  // connection needs libpq: SSL or GSS encryption, or a multibyte client
  // encoding other than UTF-8 (the caret under an error position counts
  // characters).
  bool Adopt(PGconn* conn);
  bool active() const { return active_; }

  bool Send(const SqlCommand& command) override;
  bool SendRollback() override;
  void OnEvents(uint32_t events, ResultSink& sink) override;
  TxStatus Status() const override;
  bool Broken() const override;
  std::string LastError() const override { return error_; }
  void Close() override;

  // The ring's completions for this connection.
  void OnRecv(int res, ResultSink& sink);
  void OnSendFailed(int res, ResultSink& sink);

 private:
  // Sends what is pending; false on a socket error (errno set).  A full
  // socket buffer is not an error: the rest goes when the socket is
  // writable.  With the ring: queued, with a receive for the answer.
  bool Flush();
  void ArmRecv();
  void Dispatch(ResultSink& sink);
  // End of stream or a receive error: what came before is read, then the
  // sink hears of the failure unless it already ended the connection.
  void ReadFailed(const std::string& why, ResultSink& sink);
  void ReadAnswer(ResultSink& sink);
  // Starts a new batch of output when everything before was sent.
  void ResetOutputIfSent();
  void Watch(uint32_t events) { poller_->Watch(slot_, sock_, events, owner_); }
  std::string ErrorText(std::string_view body, ErrorKind* kind) const;

  Poller* poller_;
  PollSlot* slot_;
  void* owner_;
  PGconn* conn_ = nullptr;  // libpq's, for Broken()
  bool active_ = false;
  int sock_ = -1;
  bool utf8_ = true;      // client encoding UTF-8 (else single-byte)
  char tx_status_ = 'I';  // the last ReadyForQuery's transaction status
  // The text libpq would show under an error position: the statement it sent
  // as text (simple and extended protocol; not for prepared statements).
  std::optional<std::string_view> query_;
  std::string out_;  // messages written, from out_sent_ on not yet sent
  size_t out_sent_ = 0;
  pg::WireReader in_;
  std::string error_;
  // With the ring: a receive is pending into recv_buf_.
  bool recv_armed_ = false;
  std::unique_ptr<char[]> recv_buf_;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_TRANSPORT_LEAN_H_
