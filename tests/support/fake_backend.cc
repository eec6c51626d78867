#include "support/fake_backend.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

namespace pgrig::testing {

namespace {

constexpr const char* kPort = "5432";
constexpr int kPollMs = 50;           // how often blocked threads look at the stop flag
constexpr int kSendTimeoutMs = 5000;  // a client that stops reading
constexpr uint32_t kMaxMessageBytes = 1 << 20;
constexpr uint32_t kProtocol3 = 196608;  // 3.0
constexpr uint32_t kSslRequest = 80877103;
constexpr uint32_t kGssRequest = 80877104;

void PutInt32(std::string* out, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 4);
}

void PutInt16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

uint32_t GetInt32(std::string_view s, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data() + at);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Reads a message body field by field; every read is bounds-checked and a
// short body reads as empty values.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : body_(body) {}
  std::string CString() {
    const size_t end = body_.find('\0', pos_);
    if (end == std::string_view::npos) {
      pos_ = body_.size();
      return {};
    }
    std::string s(body_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  int32_t Int32() {
    if (body_.size() - pos_ < 4) {
      pos_ = body_.size();
      return 0;
    }
    const auto v = static_cast<int32_t>(GetInt32(body_, pos_));
    pos_ += 4;
    return v;
  }
  int Int16() {
    if (body_.size() - pos_ < 2) {
      pos_ = body_.size();
      return 0;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(body_.data() + pos_);
    pos_ += 2;
    return (p[0] << 8) | p[1];
  }
  char Byte() { return pos_ < body_.size() ? body_[pos_++] : '\0'; }
  std::string Bytes(size_t n) {
    n = std::min(n, body_.size() - pos_);
    std::string s(body_.substr(pos_, n));
    pos_ += n;
    return s;
  }

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

std::string FirstWord(std::string_view sql) {
  size_t i = 0;
  while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
  std::string w;
  while (i < sql.size() && std::isalpha(static_cast<unsigned char>(sql[i]))) {
    w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(sql[i]))));
    ++i;
  }
  return w;
}

bool EndsTransaction(const std::string& word) {
  return word == "COMMIT" || word == "END" || word == "ROLLBACK" || word == "ABORT";
}

std::string Tag(const std::string& word, size_t rows) {
  if (word == "SELECT" || word == "WITH" || word == "VALUES")
    return "SELECT " + std::to_string(rows);
  if (word == "INSERT") return "INSERT 0 1";
  if (word == "UPDATE" || word == "DELETE") return word + " 1";
  if (word == "START") return "START TRANSACTION";
  if (word == "END") return "COMMIT";
  if (word == "ABORT") return "ROLLBACK";
  return word.empty() ? "SELECT 0" : word;
}

// One client connection, served on its own thread.
class Session {
 public:
  Session(int fd, int connection, int stop_fd, const std::atomic<bool>* stop,
          const FakeHandler* handler, const FakeHandler* prepare, std::atomic<int64_t>* statements)
      : fd_(fd),
        connection_(connection),
        stop_fd_(stop_fd),
        stop_(stop),
        handler_(handler),
        prepare_(prepare),
        statements_(statements) {}

  void Run() {
    if (!Startup()) return;
    for (;;) {
      if (!Fill(5)) return;
      const char type = in_[0];
      const uint32_t len = GetInt32(in_, 1);
      if (len < 4 || len > kMaxMessageBytes) return;
      if (!Fill(1 + len)) return;
      const std::string body = in_.substr(5, len - 4);
      in_.erase(0, 1 + len);
      if (!Handle(type, body)) return;
    }
  }

 private:
  // Waits until `n` bytes are buffered; false at end of stream or stop.
  bool Fill(size_t n) {
    while (in_.size() < n) {
      if (stop_->load()) return false;
      pollfd p[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      const int r = ::poll(p, 2, kPollMs);
      if (r < 0 && errno != EINTR) return false;
      if (r <= 0) continue;
      if (p[1].revents != 0) return false;
      char buf[8192];
      const ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      in_.append(buf, static_cast<size_t>(got));
    }
    return true;
  }

  bool Flush() {
    size_t sent = 0;
    while (sent < out_.size()) {
      pollfd p = {fd_, POLLOUT, 0};
      const int r = ::poll(&p, 1, kSendTimeoutMs);
      if (r <= 0) return false;
      const ssize_t n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    out_.clear();
    return true;
  }

  // Waits `d`, or less when the fake stops; false when it stopped.
  bool Sleep(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= until) return !stop_->load();
      // Rounded up: a delay is never shorter than asked.
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - now);
      pollfd p = {stop_fd_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), kPollMs)));
      if (r > 0 || stop_->load()) return false;
    }
  }

  void Put(char type, std::string_view body) { out_ += FakeBackend::Message(type, body); }

  void ParameterStatus(std::string_view name, std::string_view value) {
    std::string b(name);
    b.push_back('\0');
    b.append(value);
    b.push_back('\0');
    Put('S', b);
  }

  void ReadyForQuery() { Put('Z', std::string(1, tx_)); }

  void ErrorResponse(const std::string& sqlstate, const std::string& message, int position) {
    std::string b;
    for (const auto& [code, value] : {std::pair<char, std::string>{'S', "ERROR"},
                                      {'V', "ERROR"},
                                      {'C', sqlstate},
                                      {'M', message}}) {
      b.push_back(code);
      b.append(value);
      b.push_back('\0');
    }
    if (position > 0) {
      b.push_back('P');
      b.append(std::to_string(position));
      b.push_back('\0');
    }
    b.push_back('\0');
    Put('E', b);
    if (tx_ == 'T') tx_ = 'E';
  }

  bool Startup() {
    for (;;) {
      if (!Fill(4)) return false;
      const uint32_t len = GetInt32(in_, 0);
      if (len < 8 || len > 10000) return false;
      if (!Fill(len)) return false;
      const uint32_t code = GetInt32(in_, 4);
      in_.erase(0, len);
      if (code == kSslRequest || code == kGssRequest) {
        out_ = "N";  // no encryption: the client goes on in the clear
        if (!Flush()) return false;
        continue;
      }
      if (code != kProtocol3) return false;  // a cancel request, or a protocol we do not speak
      break;
    }
    std::string ok;
    PutInt32(&ok, 0);
    Put('R', ok);  // AuthenticationOk
    ParameterStatus("server_version", "17.2");
    ParameterStatus("server_encoding", "UTF8");
    ParameterStatus("client_encoding", "UTF8");
    ParameterStatus("application_name", "pgrig");
    ParameterStatus("DateStyle", "ISO, MDY");
    ParameterStatus("IntervalStyle", "postgres");
    ParameterStatus("TimeZone", "UTC");
    ParameterStatus("integer_datetimes", "on");
    ParameterStatus("standard_conforming_strings", "on");
    ParameterStatus("is_superuser", "off");
    ParameterStatus("session_authorization", "fake");
    std::string key;
    PutInt32(&key, static_cast<uint32_t>(10000 + connection_));
    PutInt32(&key, 0x5EC12E7u);
    Put('K', key);
    ReadyForQuery();
    return Flush();
  }

  // After the reply's delay: everything but rows and CommandComplete.
  // Returns whether the session goes on, or nullopt when the caller is to
  // write the rows (kOk).
  std::optional<bool> Deliver(const FakeReply& reply, FakeProtocol protocol) {
    if (reply.delay.count() > 0 && !Sleep(reply.delay)) return false;
    switch (reply.kind) {
      case FakeReply::Kind::kClose:
        out_ += reply.raw;
        Flush();
        return false;
      case FakeReply::Kind::kRaw:
        out_ += reply.raw;
        return Flush();
      case FakeReply::Kind::kError:
        ErrorResponse(reply.sqlstate, reply.message, reply.position);
        if (protocol == FakeProtocol::kExtended)
          skipping_ = true;  // the rest up to Sync is ignored
        return true;
      case FakeReply::Kind::kOk:
        break;
    }
    return std::nullopt;
  }

  // Runs one statement through the handler and appends its answer; false
  // when the connection is to be closed.
  bool Execute(FakeStatement st, bool describe) {
    const std::string word = FirstWord(st.sql);
    if (tx_ == 'E' && !EndsTransaction(word)) {
      ErrorResponse(
          "25P02",
          "current transaction is aborted, commands ignored until end of transaction block", 0);
      return true;
    }
    st.connection = connection_;
    st.number = executed_++;
    statements_->fetch_add(1);
    const FakeReply reply = (*handler_)(st);
    if (const std::optional<bool> done = Deliver(reply, st.protocol)) {
      return *done;
    }
    const bool returns_rows =
        !reply.rows.empty() || word == "SELECT" || word == "WITH" || word == "VALUES";
    if (returns_rows && (describe || st.protocol == FakeProtocol::kSimple)) {
      std::string t;
      PutInt16(&t, 1);
      t.append("?column?");
      t.push_back('\0');
      PutInt32(&t, 0);   // table oid
      PutInt16(&t, 0);   // column number
      PutInt32(&t, 25);  // text
      PutInt16(&t, 0xFFFF);
      PutInt32(&t, 0xFFFFFFFFu);
      PutInt16(&t, 0);  // text format
      Put('T', t);
    } else if (describe) {
      Put('n', "");
    }
    for (const std::string& v : reply.rows) {
      std::string d;
      PutInt16(&d, 1);
      PutInt32(&d, static_cast<uint32_t>(v.size()));
      d.append(v);
      Put('D', d);
    }
    std::string tag = reply.tag.empty() ? Tag(word, reply.rows.size()) : reply.tag;
    if (word == "BEGIN" || word == "START") {
      tx_ = 'T';
    } else if (EndsTransaction(word)) {
      if (tx_ == 'E') tag = "ROLLBACK";
      tx_ = 'I';
    }
    tag.push_back('\0');
    Put('C', tag);
    return true;
  }

  bool Handle(char type, const std::string& body) {
    BodyReader r(body);
    switch (type) {
      case 'Q': {
        FakeStatement st;
        st.protocol = FakeProtocol::kSimple;
        st.sql = r.CString();
        if (FirstWord(st.sql).empty()) {
          Put('I', "");
        } else if (!Execute(std::move(st), /*describe=*/false)) {
          return false;
        }
        ReadyForQuery();
        return Flush();
      }
      case 'P': {
        if (skipping_) return true;
        FakeStatement st;
        st.connection = connection_;
        st.protocol = FakeProtocol::kExtended;
        st.statement = r.CString();
        st.sql = r.CString();
        if (!st.statement.empty() && *prepare_) {
          const FakeReply reply = (*prepare_)(st);
          if (const std::optional<bool> done = Deliver(reply, FakeProtocol::kExtended))
            return *done;
        }
        statements_by_name_[st.statement] = st.sql;
        Put('1', "");
        return true;
      }
      case 'B': {
        if (skipping_) return true;
        portal_ = FakeStatement{};
        portal_.protocol = FakeProtocol::kExtended;
        r.CString();  // portal name: always the unnamed one here
        portal_.statement = r.CString();
        const int nformats = r.Int16();
        for (int i = 0; i < nformats; ++i) r.Int16();
        const int nparams = r.Int16();
        for (int i = 0; i < nparams; ++i) {
          const int32_t n = r.Int32();
          if (n < 0) {
            portal_.params.emplace_back(std::nullopt);
          } else {
            portal_.params.emplace_back(r.Bytes(static_cast<size_t>(n)));
          }
        }
        const auto it = statements_by_name_.find(portal_.statement);
        if (it == statements_by_name_.end()) {
          ErrorResponse("26000",
                        portal_.statement.empty()
                            ? "unnamed prepared statement does not exist"
                            : "prepared statement \"" + portal_.statement + "\" does not exist",
                        0);
          skipping_ = true;
          return true;
        }
        portal_.sql = it->second;
        described_ = false;
        Put('2', "");
        return true;
      }
      case 'D': {
        if (skipping_) return true;
        if (r.Byte() == 'S') {
          std::string none;
          PutInt16(&none, 0);
          Put('t', none);
          Put('n', "");
        } else {
          described_ = true;
        }
        return true;
      }
      case 'E': {
        if (skipping_) return true;
        const bool describe = described_;
        described_ = false;
        return Execute(portal_, describe);
      }
      case 'S':
        skipping_ = false;
        described_ = false;
        ReadyForQuery();
        return Flush();
      case 'H':
        return Flush();
      case 'C':
        if (!skipping_) Put('3', "");
        return true;
      case 'X':
        return false;
      default:
        ErrorResponse("08P01",
                      std::string("invalid frontend message type ") +
                          std::to_string(static_cast<unsigned char>(type)),
                      0);
        Flush();
        return false;
    }
  }

  int fd_;
  int connection_;
  int stop_fd_;
  const std::atomic<bool>* stop_;
  const FakeHandler* handler_;
  const FakeHandler* prepare_;
  std::atomic<int64_t>* statements_;
  std::string in_;
  std::string out_;
  char tx_ = 'I';
  bool skipping_ = false;  // extended protocol: after an error, until Sync
  bool described_ = false;
  int64_t executed_ = 0;
  std::map<std::string, std::string> statements_by_name_;
  FakeStatement portal_;
};

}  // namespace

std::string FakeBackend::Message(char type, std::string_view body) {
  std::string m(1, type);
  PutInt32(&m, static_cast<uint32_t>(body.size() + 4));
  m.append(body);
  return m;
}

Result<std::unique_ptr<FakeBackend>> FakeBackend::Start(FakeHandler handler, FakeHandler prepare) {
  char tmpl[] = "/tmp/pgrig-fake-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    return Internal(std::string("could not create a directory for the fake backend: ") +
                    std::strerror(errno));
  }
  const std::string dir = tmpl;
  const std::string path = dir + "/.s.PGSQL." + kPort;
  const auto fail = [&dir](const std::string& what, int fd1, int fd2, int fd3) {
    const std::string err = what + ": " + std::strerror(errno);
    for (int fd : {fd1, fd2, fd3}) {
      if (fd >= 0) ::close(fd);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    return Internal("fake backend: " + err);
  };
  const int lfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0) return fail("socket()", -1, -1, -1);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return fail("socket path too long", lfd, -1, -1);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::bind(lfd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return fail("bind(" + path + ")", lfd, -1, -1);
  }
  if (::listen(lfd, 128) != 0) return fail("listen()", lfd, -1, -1);
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return fail("pipe2()", lfd, -1, -1);
  std::unique_ptr<FakeBackend> fb(
      new FakeBackend(std::move(handler), std::move(prepare), dir, lfd, pipefd[0], pipefd[1]));
  fb->acceptor_ = std::thread([p = fb.get()] { p->AcceptLoop(); });
  return fb;
}

FakeBackend::FakeBackend(FakeHandler handler, FakeHandler prepare, std::string dir, int listen_fd,
                         int stop_read, int stop_write)
    : handler_(std::move(handler)),
      prepare_(std::move(prepare)),
      dir_(std::move(dir)),
      listen_fd_(listen_fd),
      stop_read_(stop_read),
      stop_write_(stop_write) {}

FakeBackend::~FakeBackend() {
  stop_.store(true);
  const char c = 'x';
  [[maybe_unused]] const ssize_t n = ::write(stop_write_, &c, 1);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(threads_mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  ::close(listen_fd_);
  ::close(stop_read_);
  ::close(stop_write_);
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

pg::ConnectionParams FakeBackend::Params() const {
  pg::ConnectionParams p;
  p.host = dir_;
  p.port = kPort;
  p.user = "fake";
  p.dbname = "fake";
  p.extra.emplace_back("connect_timeout", "5");
  return p;
}

void FakeBackend::AcceptLoop() {
  while (!stop_.load()) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {stop_read_, POLLIN, 0}};
    const int r = ::poll(p, 2, kPollMs);
    if (r <= 0 || p[1].revents != 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int connection = connections_.fetch_add(1);
    std::lock_guard<std::mutex> lock(threads_mu_);
    threads_.emplace_back([this, fd, connection] {
      Serve(fd, connection);
      ::close(fd);
      closed_.fetch_add(1);
    });
  }
}

void FakeBackend::Serve(int fd, int connection) {
  Session s(fd, connection, stop_read_, &stop_, &handler_, &prepare_, &statements_);
  s.Run();
}

}  // namespace pgrig::testing
