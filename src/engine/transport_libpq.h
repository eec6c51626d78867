// LibpqTransport: the Transport (transport.h) over libpq in non-blocking
// mode, and the connection every session opens through libpq.
//
// It owns the session's PGconn (pg::PGconnDeleter) from PQconnectStartParams
// to Close(), registers the socket with the Poller as PQconnectPoll and
// PQflush ask, and reads answers with PQconsumeInput / PQisBusy /
// PQgetResult when the poller says the socket is readable, turning each
// PGresult into a protocol fact for the session.  Every PGresult is owned by
// a pg::PGresultDeleter; the last result of a \gset command is kept
// (KeepResult) until the command ends.  Beyond the Transport interface it
// prepares statements and runs pipelines, which only libpq does here.
//
// Owned by one session; used on its worker's thread only.
#ifndef PGRIG_ENGINE_TRANSPORT_LIBPQ_H_
#define PGRIG_ENGINE_TRANSPORT_LIBPQ_H_

#include <libpq-fe.h>

#include <memory>
#include <string>

#include "engine/poller.h"
#include "engine/transport.h"
#include "pg/connection.h"

namespace pgrig::engine {

// A PGresult's rows through the Rows interface (does not own it).
class PgRows final : public Rows {
 public:
  explicit PgRows(const PGresult* res) : res_(res) {}
  int RowCount() const override { return PQntuples(res_); }
  int FieldCount() const override { return PQnfields(res_); }
  std::string_view FieldName(int field) const override { return PQfname(res_, field); }
  std::string_view Value(int row, int field) const override {
    return std::string_view(PQgetvalue(res_, row, field),
                            static_cast<size_t>(PQgetlength(res_, row, field)));
  }

 private:
  const PGresult* res_;
};

class LibpqTransport final : public Transport {
 public:
  // The session's poller registration; `owner` is what the poller reports.
  LibpqTransport(Poller* poller, PollSlot* slot, void* owner)
      : poller_(poller), slot_(slot), owner_(owner) {}

  // Connecting: starts a non-blocking connection (false: it failed at once;
  // LastError() says why), then PollConnect at each event until *done.
  bool StartConnect(const pg::ConnectionParams& target);
  bool PollConnect(bool* done);
  bool connected() const { return conn_ != nullptr; }
  PGconn* conn() const { return conn_.get(); }

  bool Send(const SqlCommand& command) override;
  bool SendRollback() override;
  void OnEvents(uint32_t events, ResultSink& sink) override;
  TxStatus Status() const override;
  bool Broken() const override;
  std::string LastError() const override;
  void Close() override;

  // PQsendPrepare of one statement, flushed; its answer comes through
  // OnEvents (Awaiting::kPrepare).
  bool SendPrepare(const std::string& name, const std::string& sql, int nparams);

  // Pipelines (\startpipeline, \syncpipeline, \endpipeline).
  bool EnterPipeline() { return PQenterPipelineMode(conn_.get()) != 0; }
  bool PipelineSync() { return PQpipelineSync(conn_.get()) != 0; }
  bool ExitPipeline() { return PQexitPipelineMode(conn_.get()) != 0; }
  // Sends what libpq has buffered; watches for writability while it cannot.
  void Flush();

  // \gset: called from ResultSink::OnResult, keeps that result (replacing
  // one kept before) for the end of the command.
  void KeepResult() { keep_current_ = true; }
  // The kept result, or nullptr; DropKept() frees it.
  const Rows* kept() const { return kept_ ? &kept_rows_ : nullptr; }
  void DropKept() {
    kept_.reset();
    kept_rows_ = PgRows(nullptr);
  }

 private:
  void Watch(uint32_t events);
  void ReadResults(ResultSink& sink);

  Poller* poller_;
  PollSlot* slot_;
  void* owner_;
  std::unique_ptr<PGconn, pg::PGconnDeleter> conn_;
  std::unique_ptr<PGresult, pg::PGresultDeleter> kept_;
  PgRows kept_rows_{nullptr};
  bool keep_current_ = false;
};

}  // namespace pgrig::engine

#endif  // PGRIG_ENGINE_TRANSPORT_LIBPQ_H_
