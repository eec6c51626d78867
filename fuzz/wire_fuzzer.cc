// wire_fuzzer: libFuzzer target over the backend side of pg/wire.h, the
// bytes a PostgreSQL server sends on the engine's lean protocol path.
//
// Input layout: byte 0 holds flags (bit 0: the client encoding is UTF-8;
// bit 1: the query text is known; bits 2..7: seed of the chunk sizes),
// byte 1 the length L of the query text, then L bytes of query text (fewer
// when the input ends), then the server's byte stream.
//
// The stream goes through WireReader three ways: fed whole, fed in chunks
// (sizes from the seed, through Feed() or WriteSpace()/Commit(), with
// Compact() after each drain, as the engine reads from epoll and io_uring),
// and one byte at a time; the three must give the message sequence an
// independent reading of the framing gives (type byte, big-endian length
// including itself, length < 4 ends the stream with a type-0 message; the
// engine stops at any type-0 message, so the comparison stops there too).
// Every body goes through ParseServerMessage (its fields must be NUL-free
// views into the body), and ErrorResponse/NoticeResponse bodies through
// FormatServerMessage with and without the query, as the engine formats
// them.  The query text also goes through WireWriter, whose messages
// WireReader must read back.  A violated invariant aborts with a message,
// which libFuzzer reports as a crash.
//
// Stateless between inputs; single-threaded.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "pg/wire.h"

namespace pgrig::pg {
namespace {

// A message copied out of the reader (its views die at the next Feed()).
struct Copied {
  char type;
  std::string body;
  bool operator==(const Copied&) const = default;
};

// The framing read independently of WireReader: complete messages up to the
// first incomplete one, or up to and including a bad length.
std::vector<Copied> ReferenceFrames(std::string_view s) {
  std::vector<Copied> out;
  size_t i = 0;
  while (s.size() - i >= 5) {
    const auto b = [&](size_t k) {
      return static_cast<uint32_t>(static_cast<unsigned char>(s[i + k]));
    };
    const uint32_t len = (b(1) << 24) | (b(2) << 16) | (b(3) << 8) | b(4);
    // libpq's checks (pg/wire.h): a length below 4 (as a signed int), over
    // 30000 for a type that is never long, or over 1 GB loses synchronization
    // as soon as the header is in.
    const auto as_read = static_cast<int32_t>(len);
    const bool long_type = std::string_view("TDdVENA").find(s[i]) != std::string_view::npos;
    if (as_read < 4 || (as_read > 30000 && !long_type) || as_read > 0x3fffffff) {
      out.push_back({0, ""});
      break;
    }
    if (s.size() - i - 1 < len) break;
    out.push_back({s[i], std::string(s.substr(i + 5, len - 4))});
    if (s[i] == 0) break;  // no such message type: the reader's callers stop here
    i += 1 + len;
  }
  return out;
}

// Takes every complete message; true once the stream is broken (a type-0
// message: a bad length, or a type byte no server sends).
bool Drain(WireReader& r, std::vector<Copied>* out) {
  while (std::optional<WireMessage> m = r.Next()) {
    out->push_back({m->type, std::string(m->body)});
    if (m->type == 0) return true;
  }
  return false;
}

std::vector<Copied> ReadWhole(std::string_view s) {
  WireReader r;
  std::vector<Copied> out;
  r.Feed(s);
  Drain(r, &out);
  return out;
}

std::vector<Copied> ReadChunked(std::string_view s, uint32_t seed) {
  WireReader r;
  std::vector<Copied> out;
  uint32_t x = seed * 2654435761u + 1;
  size_t i = 0;
  while (i < s.size()) {
    x = x * 1103515245u + 12345u;
    const size_t n = std::min<size_t>(s.size() - i, 1 + ((x >> 16) % 97));
    if ((x >> 8) & 1) {
      r.Feed(s.substr(i, n));
    } else {
      const size_t want = n + ((x >> 12) % 64);
      char* dst = r.WriteSpace(want);
      FUZZ_CHECK(r.WriteRoom() >= want);
      std::copy(s.data() + i, s.data() + i + n, dst);
      r.Commit(n);
    }
    i += n;
    if (Drain(r, &out)) return out;
    r.Compact();
  }
  return out;
}

std::vector<Copied> ReadBytewise(std::string_view s) {
  WireReader r;
  std::vector<Copied> out;
  for (char c : s) {
    r.Feed(std::string_view(&c, 1));
    if (Drain(r, &out)) return out;
    r.Compact();
  }
  return out;
}

bool Within(std::string_view field, std::string_view body) {
  if (field.data() == nullptr) return true;
  return field.data() >= body.data() && field.data() + field.size() <= body.data() + body.size() &&
         field.find('\0') == std::string_view::npos;
}

void CheckServerMessage(const Copied& m, std::optional<std::string_view> query, bool utf8) {
  const std::string_view body = m.body;
  const ServerMessageFields f = ParseServerMessage(body);
  for (std::string_view v : {f.severity, f.sqlstate, f.message, f.detail, f.hint, f.position,
                             f.internal_position, f.internal_query, f.context}) {
    FUZZ_CHECK(Within(v, body));
  }
  if (m.type != 'E' && m.type != 'N') return;
  const ServerMessageKind kind =
      m.type == 'E' ? ServerMessageKind::kError : ServerMessageKind::kNotice;
  for (const std::optional<std::string_view>& q : {query, std::optional<std::string_view>()}) {
    const std::string text = FormatServerMessage(f, kind, q, utf8);
    FUZZ_CHECK(!text.empty() && text.back() == '\n');
    FUZZ_CHECK(text.compare(0, f.severity.size(), f.severity) == 0);
    // Everything the server sent ends up in the text at most once per
    // field, plus a cursor line and its caret line (each at most the query
    // with "LINE n: ..." decorations and padding).
    const size_t q_size = q.has_value() ? q->size() : f.internal_query.size();
    FUZZ_CHECK(text.size() <= 2 * body.size() + 4 * q_size + 256);
  }
}

// WireWriter's messages over the query text must read back as written.
void CheckWriter(std::string_view query) {
  std::string out;
  WireWriter w(&out);
  const std::string param(query.substr(0, query.find('\0')));
  const char* params[] = {param.c_str(), nullptr};
  w.Query(query);
  w.Parse(query.substr(0, 8), query);
  w.Bind("", 2, params);
  w.DescribePortal();
  w.Execute();
  w.Sync();
  const std::vector<Copied> back = ReadWhole(out);
  FUZZ_CHECK(back.size() == 6);
  FUZZ_CHECK(back[0].type == 'Q' && back[0].body == std::string(query) + '\0');
  FUZZ_CHECK(back[1].type == 'P' &&
             back[1].body.size() == 4 + query.substr(0, 8).size() + query.size());
  FUZZ_CHECK(back[2].type == 'B' && back[2].body.size() == 2 + 2 + 2 + 4 + param.size() + 4 + 4);
  FUZZ_CHECK(back[3].type == 'D' && back[4].type == 'E' && back[5].type == 'S' &&
             back[5].body.empty());
}

// One input, as LLVMFuzzerTestOneInput is given it.
int FuzzOne(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const auto flags = static_cast<unsigned char>(in[0]);
  const bool utf8 = (flags & 1) != 0;
  const bool has_query = (flags & 2) != 0;
  const uint32_t seed = flags >> 2;
  const size_t query_len = std::min<size_t>(static_cast<unsigned char>(in[1]), size - 2);
  const std::string_view query = in.substr(2, query_len);
  const std::string_view stream = in.substr(2 + query_len);

  const std::vector<Copied> want = ReferenceFrames(stream);
  FUZZ_CHECK(ReadWhole(stream) == want);
  FUZZ_CHECK(ReadChunked(stream, seed) == want);
  if (stream.size() <= 512) FUZZ_CHECK(ReadBytewise(stream) == want);

  const std::optional<std::string_view> q =
      has_query ? std::optional<std::string_view>(query) : std::nullopt;
  for (const Copied& m : want) CheckServerMessage(m, q, utf8);
  CheckWriter(query);
  return 0;
}

}  // namespace
}  // namespace pgrig::pg

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return pgrig::pg::FuzzOne(data, size);
}
