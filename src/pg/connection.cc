#include "pg/connection.h"

#include <cstdlib>
#include <cstring>

#include "common/strings.h"

namespace pgrig::pg {

namespace {

const char* const kServerEnvVars[] = {"PGHOST",     "PGHOSTADDR", "PGPORT",
                                      "PGDATABASE", "PGSERVICE",  "PGUSER"};

bool LooksLikeConninfo(std::string_view s) {
  return s.find('=') != std::string_view::npos || s.starts_with("postgresql://") ||
         s.starts_with("postgres://");
}

std::string ErrorText(PGconn* c) {
  std::string m = c ? PQerrorMessage(c) : "out of memory";
  return std::string(Trim(m));
}

}  // namespace

bool EnvironmentNamesAServer() {
  for (const char* v : kServerEnvVars) {
    const char* val = std::getenv(v);
    if (val && *val) return true;
  }
  return false;
}

bool ConnectionParams::NamesAServer() const {
  return !host.empty() || !port.empty() || !user.empty() || !dbname.empty() ||
         EnvironmentNamesAServer();
}

ConnectionParams::Arrays ConnectionParams::Keywords() const {
  Arrays a;
  auto add = [&a](const std::string& k, const std::string& v) {
    if (v.empty()) return;
    a.storage.push_back(k);
    a.storage.push_back(v);
  };
  // dbname after host, port and user, as psql and pgbench pass them: with
  // expand_dbname, what a conninfo string or URI in dbname says overrides the
  // keywords before it (`-h a "host=b"` connects to b), and the keywords
  // after it (pgrig's own, in extra) override the string.
  add("host", host);
  add("port", port);
  add("user", user);
  add("dbname", dbname);
  add("fallback_application_name", application_name);
  for (const auto& [k, v] : extra) add(k, v);
  for (size_t i = 0; i < a.storage.size(); i += 2) {
    a.keywords.push_back(a.storage[i].c_str());
    a.values.push_back(a.storage[i + 1].c_str());
  }
  a.keywords.push_back(nullptr);
  a.values.push_back(nullptr);
  return a;
}

std::string ConnectionParams::Describe() const {
  // In Keywords() order: a later word overrides an earlier one.
  std::vector<std::string> parts;
  if (!host.empty()) parts.push_back("host=" + host);
  if (!port.empty()) parts.push_back("port=" + port);
  if (!user.empty()) parts.push_back("user=" + user);
  if (!dbname.empty()) {
    parts.push_back(LooksLikeConninfo(dbname) ? RedactConninfo(dbname) : "dbname=" + dbname);
  }
  if (parts.empty()) return "libpq defaults";
  return Join(parts, " ");
}

std::string RedactConninfo(std::string_view s) {
  static constexpr std::string_view kMask = "********";
  std::string out(s);
  if (s.starts_with("postgresql://") || s.starts_with("postgres://")) {
    size_t scheme_end = out.find("://") + 3;
    size_t at = out.find('@', scheme_end);
    size_t slash = out.find('/', scheme_end);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      size_t colon = out.find(':', scheme_end);
      if (colon != std::string::npos && colon < at) {
        out.replace(colon + 1, at - colon - 1, kMask);
      }
    }
    // password=... in the query part.
    size_t q = out.find('?');
    while (q != std::string::npos) {
      size_t key = q + 1;
      size_t eq = out.find('=', key);
      size_t amp = out.find('&', key);
      if (eq != std::string::npos && (amp == std::string::npos || eq < amp) &&
          out.compare(key, eq - key, "password") == 0) {
        size_t end = amp == std::string::npos ? out.size() : amp;
        out.replace(eq + 1, end - eq - 1, kMask);
        amp = out.find('&', eq + 1 + kMask.size());
      }
      q = amp;
    }
    return out;
  }
  // key = value form; values may be single-quoted with backslash escapes.
  std::string result;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) result += s[i++];
    size_t kb = i;
    while (i < s.size() && s[i] != '=' && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::string key(s.substr(kb, i - kb));
    result += key;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) result += s[i++];
    if (i >= s.size() || s[i] != '=') continue;
    result += s[i++];
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) result += s[i++];
    size_t vb = i;
    if (i < s.size() && s[i] == '\'') {
      ++i;
      while (i < s.size() && s[i] != '\'') {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        ++i;
      }
      if (i < s.size()) ++i;
    } else {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        ++i;
      }
    }
    if (key == "password") {
      result += kMask;
    } else {
      result.append(s.substr(vb, i - vb));
    }
  }
  return result;
}

bool IsSerializationFailure(std::string_view s) { return s == "40001"; }
bool IsDeadlock(std::string_view s) { return s == "40P01"; }
bool IsDiskFull(std::string_view s) { return s == "53100"; }
bool IsConnectionFailure(std::string_view s) {
  return s.starts_with("08") || s == "57P01" || s == "57P02" || s == "57P03";
}

int64_t QueryResult::AffectedRows() const {
  if (!res_) return 0;
  const char* t = PQcmdTuples(res_.get());
  if (!t || !*t) return 0;
  return std::strtoll(t, nullptr, 10);
}

Status Connection::ResultStatus(PGresult* r, std::string_view what) {
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_COPY_IN ||
      st == PGRES_EMPTY_QUERY) {
    last_sqlstate_.clear();
    return Status::Ok();
  }
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  std::string msg = r ? std::string(Trim(PQresultErrorMessage(r))) : ErrorText(conn_.get());
  if (msg.empty()) msg = ErrorText(conn_.get());
  StatusCode code = StatusCode::kRuntime;
  if (IsDiskFull(last_sqlstate_)) code = StatusCode::kResourceExhausted;
  if (IsConnectionFailure(last_sqlstate_) || PQstatus(conn_.get()) == CONNECTION_BAD) {
    code = StatusCode::kUnavailable;
  }
  std::string w(what);
  if (w.size() > 120) w = w.substr(0, 117) + "...";
  return Status(code, msg + " (while running: " + w + ")");
}

Result<QueryResult> Connection::Exec(std::string_view sql) {
  std::string q(sql);
  QueryResult res(PQexec(conn_.get(), q.c_str()));
  PGRIG_RETURN_IF_ERROR(ResultStatus(res.raw(), sql));
  return res;
}

Result<QueryResult> Connection::ExecParams(std::string_view sql,
                                           const std::vector<std::string>& params) {
  std::string q(sql);
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  QueryResult res(PQexecParams(conn_.get(), q.c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
  PGRIG_RETURN_IF_ERROR(ResultStatus(res.raw(), sql));
  return res;
}

Result<std::string> Connection::QueryValue(std::string_view sql) {
  PGRIG_ASSIGN_OR_RETURN(QueryResult r, Exec(sql));
  if (r.rows() != 1 || r.cols() != 1) {
    return Internal("expected one value from \"" + std::string(sql) + "\", got " +
                    std::to_string(r.rows()) + " rows");
  }
  return std::string(r.Get(0, 0));
}

Status Connection::CopyBegin(std::string_view copy_sql) {
  std::string q(copy_sql);
  QueryResult res(PQexec(conn_.get(), q.c_str()));
  if (PQresultStatus(res.raw()) != PGRES_COPY_IN) {
    PGRIG_RETURN_IF_ERROR(ResultStatus(res.raw(), copy_sql));
    return Internal("server did not enter COPY mode for: " + q);
  }
  return Status::Ok();
}

Status Connection::CopyPut(std::string_view data) {
  if (PQputCopyData(conn_.get(), data.data(), static_cast<int>(data.size())) != 1) {
    return Unavailable("COPY failed: " + ErrorText(conn_.get()));
  }
  return Status::Ok();
}

Status Connection::CopyEnd() {
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) {
    return Unavailable("COPY failed: " + ErrorText(conn_.get()));
  }
  Status s;
  while (PGresult* r = PQgetResult(conn_.get())) {
    QueryResult res(r);
    Status rs = ResultStatus(r, "COPY");
    if (s.ok() && !rs.ok()) s = rs;
  }
  return s;
}

std::string Connection::Describe() const {
  PGconn* c = conn_.get();
  if (!c) return "not connected";
  std::string out;
  const char* h = PQhost(c);
  out += "host=" + std::string(h ? h : "");
  out += " port=" + std::string(PQport(c) ? PQport(c) : "");
  out += " dbname=" + std::string(PQdb(c) ? PQdb(c) : "");
  out += " user=" + std::string(PQuser(c) ? PQuser(c) : "");
  return out;
}

Status DatabaseNamedTwice(std::string_view operand) {
  return InvalidArgument("both --db and a database name (\"" + std::string(operand) +
                         "\") were given; use one of them");
}

Result<Connection> Connect(const ConnectionParams& params) {
  auto arrays = params.Keywords();
  Connection c(PQconnectdbParams(arrays.keywords.data(), arrays.values.data(), 1));
  if (!c.valid() || PQstatus(c.raw()) != CONNECTION_OK) {
    std::string msg = c.valid() ? std::string(Trim(PQerrorMessage(c.raw()))) : "out of memory";
    return Unavailable("connection to database failed (" + params.Describe() + "): " + msg);
  }
  return c;
}

Connection ConnectOrInvalid(const ConnectionParams& params) {
  auto c = Connect(params);
  return c.ok() ? std::move(c).value() : Connection();
}

std::string QuoteIdent(std::string_view ident) {
  std::string out = "\"";
  for (char ch : ident) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string QuoteLiteral(std::string_view literal) {
  std::string out = "'";
  bool backslash = false;
  for (char ch : literal) {
    if (ch == '\'') out += '\'';
    if (ch == '\\') backslash = true;
    out += ch;
  }
  out += "'";
  if (backslash) {
    std::string e = "E";
    for (char ch : out) {
      if (ch == '\\') e += '\\';
      e += ch;
    }
    return e;
  }
  return out;
}

std::string ServerVersionText(int v) {
  if (v >= 100000) return std::to_string(v / 10000) + "." + std::to_string(v % 10000);
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

bool ServerIsLocal(Connection& conn) {
  auto r = conn.Exec("SELECT inet_server_addr()::text");
  if (!r.ok() || r->rows() != 1) return false;
  if (r->IsNull(0, 0)) return true;
  const std::string a(r->Get(0, 0));
  return a.rfind("127.", 0) == 0 || a.rfind("::1", 0) == 0;
}

std::vector<std::string> RedactedCommandLine(const std::vector<std::string>& argv,
                                             const std::string& program) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const std::string& a : argv) {
    const bool conninfo = a.find('=') != std::string::npos || a.find("://") != std::string::npos;
    out.push_back(conninfo ? RedactConninfo(a) : a);
  }
  if (!out.empty()) out[0] = program;
  return out;
}

}  // namespace pgrig::pg
