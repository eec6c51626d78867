// PostgreSQL connections for pgrig: target description, RAII handles and
// blocking helpers for setup work (DDL, COPY, facts queries).
//
// ConnectionParams names a server exactly as psql and pgbench do: -h -p -U
// and a database name that may itself be a conninfo string or URI (libpq's
// expand_dbname), with libpq filling the rest from PG* variables, service
// files and .pgpass.  The load engine drives its own non-blocking
// connections from the same parameters (see Keywords()).
//
// Connection owns a PGconn (PQfinish on destruction); QueryResult owns a
// PGresult (PQclear).  Neither is thread-safe: one thread uses a connection
// at a time, which is libpq's own rule.
#ifndef PGRIG_PG_CONNECTION_H_
#define PGRIG_PG_CONNECTION_H_

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::pg {

struct ConnectionParams {
  std::string host;    // -h: host name, IP or socket directory; empty: libpq default
  std::string port;    // -p
  std::string user;    // -U
  std::string dbname;  // -d or positional; may be "key=value ..." or a URI (--db)
  std::string application_name = "pgrig";
  // Extra key/value pairs (e.g. options, connect_timeout).
  std::vector<std::pair<std::string, std::string>> extra;

  // True when the user named a server in any way (options or PG* environment);
  // only then is the embedded cluster NOT used.
  bool NamesAServer() const;

  // Keyword/value arrays for PQconnectdbParams/PQconnectStartParams, with
  // expand_dbname=1.  Pointers stay valid while *this and the returned
  // storage live.
  struct Arrays {
    std::vector<std::string> storage;
    std::vector<const char*> keywords;
    std::vector<const char*> values;
  };
  Arrays Keywords() const;

  // A printable description with any password removed.
  std::string Describe() const;
};

// True when a PG* environment variable names a server or database.
bool EnvironmentNamesAServer();

// Removes passwords from a conninfo string or URI, for printing and logging.
// "host=x password=secret" -> "host=x password=********";
// "postgresql://u:secret@h/db" -> "postgresql://u:********@h/db".
std::string RedactConninfo(std::string_view conninfo);

struct PGresultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
struct PGconnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};

// SQLSTATE classes that decide what an error means.
bool IsSerializationFailure(std::string_view sqlstate);  // 40001
bool IsDeadlock(std::string_view sqlstate);              // 40P01
inline bool IsRetryable(std::string_view s) { return IsSerializationFailure(s) || IsDeadlock(s); }
bool IsDiskFull(std::string_view sqlstate);           // 53100
bool IsConnectionFailure(std::string_view sqlstate);  // class 08, 57P01..57P03

class QueryResult {
 public:
  QueryResult() = default;
  explicit QueryResult(PGresult* r) : res_(r) {}

  int rows() const { return res_ ? PQntuples(res_.get()) : 0; }
  int cols() const { return res_ ? PQnfields(res_.get()) : 0; }
  std::string_view Get(int row, int col) const {
    return {PQgetvalue(res_.get(), row, col),
            static_cast<size_t>(PQgetlength(res_.get(), row, col))};
  }
  bool IsNull(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::string_view ColumnName(int col) const { return PQfname(res_.get(), col); }
  // Number of rows affected by INSERT/UPDATE/DELETE/COPY, or 0.
  int64_t AffectedRows() const;
  PGresult* raw() const { return res_.get(); }

 private:
  std::unique_ptr<PGresult, PGresultDeleter> res_;
};

class Connection {
 public:
  Connection() = default;
  explicit Connection(PGconn* c) : conn_(c) {}

  bool valid() const { return conn_ != nullptr; }
  PGconn* raw() const { return conn_.get(); }

  // Runs one or more SQL statements (simple protocol); the last result is
  // returned.  Errors carry the server's message and SQLSTATE.
  Result<QueryResult> Exec(std::string_view sql);
  Result<QueryResult> ExecParams(std::string_view sql, const std::vector<std::string>& params);
  // Runs sql and returns the single value of its single row.
  Result<std::string> QueryValue(std::string_view sql);

  // COPY ... FROM STDIN: Begin, Put any number of times, End.
  Status CopyBegin(std::string_view copy_sql);
  Status CopyPut(std::string_view data);
  Status CopyEnd();

  // The SQLSTATE of the last failed command, or empty.
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  int server_version() const { return PQserverVersion(conn_.get()); }
  // "host=... port=... dbname=... user=..." of the live connection, no password.
  std::string Describe() const;

 private:
  Status ResultStatus(PGresult* r, std::string_view what);

  std::unique_ptr<PGconn, PGconnDeleter> conn_;
  std::string last_sqlstate_;
};

// Blocking connect.  The error message is libpq's, with the target described
// (password redacted).
Result<Connection> Connect(const ConnectionParams& params);

// The refusal of a database named both by option (-d, --db) and by operand,
// in every command's words.
Status DatabaseNamedTwice(std::string_view operand);

// Connect, for a check that may do without the server: the session, or a
// Connection that is not valid() when the server cannot be reached (the
// reason is dropped; the caller's own connection later reports it).
Connection ConnectOrInvalid(const ConnectionParams& params);

// Quotes an identifier or literal for SQL text.
std::string QuoteIdent(std::string_view ident);
std::string QuoteLiteral(std::string_view literal);

// True when the server runs on this machine: reached over a Unix socket
// (inet_server_addr() is NULL) or over loopback.  False when it cannot tell.
bool ServerIsLocal(Connection& conn);

// A command line as it may be recorded or printed: every argument that looks
// like a conninfo string or URI has its password redacted, and the first
// element becomes `program` ("pgrig bench").
std::vector<std::string> RedactedCommandLine(const std::vector<std::string>& argv,
                                             const std::string& program);

// server_version_num as PostgreSQL prints it: 150018 -> "15.18",
// 90624 -> "9.6.24".
std::string ServerVersionText(int server_version_num);

}  // namespace pgrig::pg

#endif  // PGRIG_PG_CONNECTION_H_
