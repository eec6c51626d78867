// Wire: the few pieces of PostgreSQL's frontend/backend protocol (version 3)
// that the load engine speaks itself on an established connection, in place
// of libpq's per-result path.
//
// libpq still opens the connection, authenticates and prepares statements;
// once it is idle, the engine writes a transaction's messages with
// WireWriter, reads the answer with WireReader, and turns an ErrorResponse
// or NoticeResponse into the text libpq would have produced with
// FormatServerMessage (default verbosity, context shown for errors), so
// that what pgrig prints is what pgbench prints.  Why not libpq for this:
// each result costs a PGresult (allocations, a 2 KB block, copies) and the
// client's CPU per transaction is what pgrig competes on
// (docs/performance.md).
//
// Everything here is pure: byte buffers in, byte buffers or strings out; no
// sockets.  Not thread-safe per object; distinct objects are independent.
#ifndef PGRIG_PG_WIRE_H_
#define PGRIG_PG_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pgrig::pg {

// Appends frontend messages to a buffer.
class WireWriter {
 public:
  explicit WireWriter(std::string* out) : out_(out) {}

  void Query(std::string_view sql);  // 'Q'
  // 'P': an (unnamed when name is empty) statement; the server infers the
  // parameters' types.
  void Parse(std::string_view name, std::string_view sql);
  // 'B': unnamed portal over `statement`, text parameters (nullptr = NULL),
  // text results.
  void Bind(std::string_view statement, int nparams, const char* const* params);
  void DescribePortal();  // 'D' 'P' ""
  void Execute();         // 'E' "" 0
  void Sync();            // 'S'

 private:
  void Begin(char type);
  void End();
  void Int32(int32_t v);
  void Int16(int16_t v);
  void CString(std::string_view s);

  std::string* out_;
  size_t start_ = 0;
};

// One backend message: its type byte and its body (without the length).
struct WireMessage {
  char type = 0;
  std::string_view body;
};

// Splits received bytes into messages.  Feed() appends bytes; Next() returns
// the next complete message, or nullopt when more bytes are needed.  The
// views stay valid until the next Feed() or Compact().
//
// A length field that cannot be right means the stream is out of step; the
// rules are libpq's (pqParseInput3): below 4, or above 30000 for a type that
// is never long (only 'T', 'D', 'd', 'V', 'E', 'N' and 'A' may be), or
// above 1 GB (the server never allocates more for one message).  Then
// Next() returns a message of type 0, the reader drops everything, and
// SyncLoss() says what came, as libpq words it:
//   lost synchronization with server: got message type "D", length 2147483628
class WireReader {
 public:
  // Where recv() should write, at least `want` bytes of room; Commit(n)
  // after it wrote n.
  char* WriteSpace(size_t want);
  size_t WriteRoom() const { return buf_.size() - end_; }
  void Commit(size_t n) { end_ += n; }

  void Feed(std::string_view bytes);
  std::optional<WireMessage> Next();
  // Drops consumed bytes; call when no WireMessage from Next() is in use.
  void Compact();
  bool Empty() const { return begin_ == end_; }
  void Clear() { begin_ = end_ = 0; }
  // After Next() returned type 0: what was wrong.  Empty before that.
  const std::string& SyncLoss() const { return sync_loss_; }

 private:
  std::string buf_;
  std::string sync_loss_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// The fields of an ErrorResponse or NoticeResponse body.
struct ServerMessageFields {
  std::string_view severity;           // 'S' (localized)
  std::string_view sqlstate;           // 'C'
  std::string_view message;            // 'M'
  std::string_view detail;             // 'D'
  std::string_view hint;               // 'H'
  std::string_view position;           // 'P'
  std::string_view internal_position;  // 'p'
  std::string_view internal_query;     // 'q'
  std::string_view context;            // 'W'
};
ServerMessageFields ParseServerMessage(std::string_view body);

enum class ServerMessageKind { kError, kNotice };

// The text libpq builds for an error or notice at its default verbosity:
// "SEVERITY:  message\n", the query line with a caret under the error
// position (when the query text is known: simple and extended protocol, not
// prepared statements), then DETAIL, HINT, QUERY and, for errors, CONTEXT
// lines.  `multibyte_utf8`: the client encoding is UTF-8 (else every byte
// is one character of one column).
std::string FormatServerMessage(const ServerMessageFields& f, ServerMessageKind kind,
                                std::optional<std::string_view> query, bool multibyte_utf8);

}  // namespace pgrig::pg

#endif  // PGRIG_PG_WIRE_H_
