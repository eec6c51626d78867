#include "pg/wire.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace pgrig::pg {

// ---------------------------------------------------------------------------
// WireWriter: the messages as libpq's PQsendQuery, PQsendQueryParams and
// PQsendQueryPrepared write them, byte for byte.

void WireWriter::Begin(char type) {
  out_->push_back(type);
  start_ = out_->size();
  out_->append(4, '\0');
}

void WireWriter::End() {
  const auto len = static_cast<uint32_t>(out_->size() - start_);
  char* p = out_->data() + start_;
  p[0] = static_cast<char>(len >> 24);
  p[1] = static_cast<char>(len >> 16);
  p[2] = static_cast<char>(len >> 8);
  p[3] = static_cast<char>(len);
}

void WireWriter::Int32(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  const char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16),
                     static_cast<char>(u >> 8), static_cast<char>(u)};
  out_->append(b, 4);
}

void WireWriter::Int16(int16_t v) {
  const auto u = static_cast<uint16_t>(v);
  const char b[2] = {static_cast<char>(u >> 8), static_cast<char>(u)};
  out_->append(b, 2);
}

void WireWriter::CString(std::string_view s) {
  out_->append(s);
  out_->push_back('\0');
}

void WireWriter::Query(std::string_view sql) {
  Begin('Q');
  CString(sql);
  End();
}

void WireWriter::Parse(std::string_view name, std::string_view sql) {
  // Without parameter types libpq sends none and lets the server infer them.
  Begin('P');
  CString(name);
  CString(sql);
  Int16(0);
  End();
}

void WireWriter::Bind(std::string_view statement, int nparams, const char* const* params) {
  Begin('B');
  CString("");  // unnamed portal
  CString(statement);
  Int16(0);  // every parameter in text format
  Int16(static_cast<int16_t>(nparams));
  for (int i = 0; i < nparams; ++i) {
    if (params[i] == nullptr) {
      Int32(-1);
    } else {
      const size_t n = std::strlen(params[i]);
      Int32(static_cast<int32_t>(n));
      out_->append(params[i], n);
    }
  }
  Int16(1);  // one result format code for all columns: text
  Int16(0);
  End();
}

void WireWriter::DescribePortal() {
  Begin('D');
  out_->push_back('P');
  CString("");
  End();
}

void WireWriter::Execute() {
  Begin('E');
  CString("");
  Int32(0);  // no row limit
  End();
}

void WireWriter::Sync() {
  Begin('S');
  End();
}

// ---------------------------------------------------------------------------
// WireReader

char* WireReader::WriteSpace(size_t want) {
  if (begin_ == end_) begin_ = end_ = 0;
  if (buf_.size() - end_ < want) {
    if (begin_ > 0) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buf_.size() - end_ < want) buf_.resize(std::max(buf_.size() * 2, end_ + want));
  }
  return buf_.data() + end_;
}

void WireReader::Feed(std::string_view bytes) {
  std::memcpy(WriteSpace(bytes.size()), bytes.data(), bytes.size());
  Commit(bytes.size());
}

namespace {

// libpq's sanity checks on a message length (see wire.h).  Returns the
// length as libpq prints it when the stream has lost synchronization:
// libpq reads the length as a signed int, reports the first two checks with
// it as read and a message too large to buffer with the body's length.
std::optional<int64_t> SyncLossLength(char type, uint32_t len) {
  constexpr int64_t kShortLimit = 30000;
  constexpr int64_t kMaxMessage = 0x3fffffff;  // MaxAllocSize, 1 GB - 1
  const int64_t as_read = static_cast<int32_t>(len);
  if (as_read < 4) return as_read;
  if (as_read > kShortLimit) {
    switch (type) {
      case 'T':
      case 'D':
      case 'd':
      case 'V':
      case 'E':
      case 'N':
      case 'A':
        break;
      default:
        return as_read;
    }
  }
  if (as_read > kMaxMessage) return as_read - 4;
  return std::nullopt;
}

}  // namespace

std::optional<WireMessage> WireReader::Next() {
  if (end_ - begin_ < 5) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + begin_);
  const uint32_t len =
      (uint32_t{p[1]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 8) | p[4];
  if (const auto lost = SyncLossLength(static_cast<char>(p[0]), len)) {
    // Not a protocol stream any more; the caller treats type 0 as fatal.
    sync_loss_ = "lost synchronization with server: got message type \"" +
                 std::string(1, static_cast<char>(p[0])) + "\", length " + std::to_string(*lost);
    begin_ = end_;
    return WireMessage{};
  }
  if (end_ - begin_ < 1 + static_cast<size_t>(len)) return std::nullopt;
  WireMessage m{static_cast<char>(p[0]), std::string_view(buf_.data() + begin_ + 5, len - 4)};
  begin_ += 1 + len;
  return m;
}

void WireReader::Compact() {
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (begin_ > 0 && begin_ >= buf_.size() / 2) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
}

// ---------------------------------------------------------------------------
// Error and notice texts

ServerMessageFields ParseServerMessage(std::string_view body) {
  ServerMessageFields f;
  size_t i = 0;
  while (i < body.size() && body[i] != '\0') {
    const char code = body[i++];
    const size_t end = body.find('\0', i);
    const std::string_view value =
        body.substr(i, (end == std::string_view::npos ? body.size() : end) - i);
    i = end == std::string_view::npos ? body.size() : end + 1;
    switch (code) {
      case 'S':
        f.severity = value;
        break;
      case 'C':
        f.sqlstate = value;
        break;
      case 'M':
        f.message = value;
        break;
      case 'D':
        f.detail = value;
        break;
      case 'H':
        f.hint = value;
        break;
      case 'P':
        f.position = value;
        break;
      case 'p':
        f.internal_position = value;
        break;
      case 'q':
        f.internal_query = value;
        break;
      case 'W':
        f.context = value;
        break;
      default:
        break;
    }
  }
  return f;
}

namespace {

bool Present(std::string_view v) { return v.data() != nullptr; }

// A position field as a number; 0 (no cursor) when it is not one.
int PositionValue(std::string_view v) {
  long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n <= 0) return 0;
  return static_cast<int>(std::min<long long>(n, 1'000'000'000));
}

// Bytes in the UTF-8 sequence starting at s[i] (1 for a stray byte), never
// past the end.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = 1;
  if (b >= 0xF0 && b < 0xF8) {
    n = 4;
  } else if (b >= 0xE0) {
    n = b < 0xF0 ? 3 : 1;
  } else if (b >= 0xC0) {
    n = 2;
  }
  return std::min(n, s.size() - i);
}

char32_t Utf8Decode(std::string_view s, size_t i, size_t n) {
  const auto b = [&](size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]));
  };
  switch (n) {
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default:
      return b(0);
  }
}

// Screen columns of a character as terminals show it: two for East Asian
// wide and full-width forms, one for everything else (combining marks and
// control characters count one, as libpq counts them for the caret).
int ColumnWidth(char32_t c) {
  const bool wide = (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
                    (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
                    (c >= 0xFE30 && c <= 0xFE6F) || (c >= 0xFF00 && c <= 0xFF60) ||
                    (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x2FFFD) ||
                    (c >= 0x30000 && c <= 0x3FFFD);
  return wide ? 2 : 1;
}

// "LINE n: <the line holding character `pos`>" and a caret under it, the
// line cut to about 60 columns around the error with "..." marks, as psql
// users know it.  `pos` counts characters from 1.
void AppendCursor(std::string* out, std::string_view query, int pos, bool utf8) {
  constexpr size_t kDisplayColumns = 60;
  constexpr size_t kKeepRight = 10;  // columns kept after the error when cutting
  if (pos <= 0) return;
  const auto loc = static_cast<size_t>(pos - 1);
  std::string text(query.substr(0, query.find('\0')));
  // For each character: its byte offset and its first screen column.
  std::vector<size_t> byte_at;
  std::vector<size_t> col_at;
  size_t off = 0;
  size_t col = 0;
  size_t ch = 0;
  int line = 1;
  size_t line_begin = 0;
  bool found_end = false;
  for (; off < text.size(); ++ch) {
    byte_at.push_back(off);
    col_at.push_back(col);
    const char c = text[off];
    if (c == '\t') {
      text[off] = ' ';
    } else if (c == '\r' || c == '\n') {
      if (ch < loc) {
        // "\r\n" is one line break; a lone "\r" or "\n" is one too.
        if (c == '\r' || ch == 0 || text[byte_at[ch - 1]] != '\r') ++line;
        line_begin = ch + 1;
      } else {
        found_end = true;
        break;
      }
    }
    size_t len = 1;
    if (utf8) {
      len = Utf8Length(text, off);
      col += static_cast<size_t>(ColumnWidth(Utf8Decode(text, off, len)));
    } else {
      ++col;
    }
    off += len;
  }
  if (!found_end) {
    byte_at.push_back(off);
    col_at.push_back(col);
  }
  if (loc > ch) return;  // the position lies beyond the query
  size_t beg = line_begin;
  size_t end = ch;
  bool cut_left = false;
  bool cut_right = false;
  if (col_at[end] - col_at[beg] > kDisplayColumns) {
    if (col_at[beg] + kDisplayColumns >= col_at[loc] + kKeepRight) {
      while (col_at[end] - col_at[beg] > kDisplayColumns) --end;
      cut_right = true;
    } else {
      while (col_at[loc] + kKeepRight < col_at[end]) {
        --end;
        cut_right = true;
      }
      while (col_at[end] - col_at[beg] > kDisplayColumns) {
        ++beg;
        cut_left = true;
      }
    }
  }
  std::string prefix = "LINE " + std::to_string(line) + ": ";
  if (cut_left) prefix += "...";
  out->append(prefix);
  out->append(text, byte_at[beg], byte_at[end] - byte_at[beg]);
  if (cut_right) out->append("...");
  out->push_back('\n');
  out->append(prefix.size() + (col_at[loc] - col_at[beg]), ' ');
  out->append("^\n");
}

}  // namespace

std::string FormatServerMessage(const ServerMessageFields& f, ServerMessageKind kind,
                                std::optional<std::string_view> query, bool multibyte_utf8) {
  std::string out;
  if (Present(f.severity)) {
    out.append(f.severity);
    out.append(":  ");
  }
  out.append(f.message);
  std::string_view cursor_query;
  int cursor_pos = 0;
  if (Present(f.position)) {
    if (query.has_value()) {
      cursor_query = *query;
      cursor_pos = PositionValue(f.position);
    } else {
      out.append(" at character ");
      out.append(f.position);
    }
  } else if (Present(f.internal_position)) {
    if (Present(f.internal_query)) {
      cursor_query = f.internal_query;
      cursor_pos = PositionValue(f.internal_position);
    } else {
      out.append(" at character ");
      out.append(f.internal_position);
    }
  }
  out.push_back('\n');
  if (cursor_pos > 0) AppendCursor(&out, cursor_query, cursor_pos, multibyte_utf8);
  const auto line = [&out](const char* label, std::string_view v) {
    if (!Present(v)) return;
    out.append(label);
    out.append(v);
    out.push_back('\n');
  };
  line("DETAIL:  ", f.detail);
  line("HINT:  ", f.hint);
  line("QUERY:  ", f.internal_query);
  if (kind == ServerMessageKind::kError) line("CONTEXT:  ", f.context);
  return out;
}

}  // namespace pgrig::pg
