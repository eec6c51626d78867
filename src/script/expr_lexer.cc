#include "script/expr_lexer.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pgrig::script::expr_internal {

namespace {

bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 || c == '_';
}
bool IsAlnum(unsigned char c) { return IsAlpha(c) || IsDigit(c); }
bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

Token Lexer::Next() {
  SkipBlanks();
  Token t;
  t.begin = pos_;
  if (pos_ >= s_.size()) {
    t.tok = Tok::kEnd;
    t.begin = t.end = s_.size();
    return t;
  }
  const unsigned char c = static_cast<unsigned char>(s_[pos_]);
  if (c == '\n') {
    t.tok = Tok::kEnd;
    t.end = pos_ + 1;
    return t;
  }
  auto two = [&](char a, char b) {
    return pos_ + 1 < s_.size() && s_[pos_] == a && s_[pos_ + 1] == b;
  };
  auto op = [&](Tok tok, size_t len) {
    t.tok = tok;
    pos_ += len;
    t.end = pos_;
    return t;
  };
  if (two('<', '>') || two('!', '=')) return op(Tok::kNe, 2);
  if (two('<', '=')) return op(Tok::kLe, 2);
  if (two('>', '=')) return op(Tok::kGe, 2);
  if (two('<', '<')) return op(Tok::kLs, 2);
  if (two('>', '>')) return op(Tok::kRs, 2);
  switch (c) {
    case '+':
      return op(Tok::kPlus, 1);
    case '-':
      return op(Tok::kMinus, 1);
    case '*':
      return op(Tok::kStar, 1);
    case '/':
      return op(Tok::kSlash, 1);
    case '%':
      return op(Tok::kPercent, 1);
    case '=':
      return op(Tok::kEq, 1);
    case '<':
      return op(Tok::kLt, 1);
    case '>':
      return op(Tok::kGt, 1);
    case '|':
      return op(Tok::kPipe, 1);
    case '&':
      return op(Tok::kAmp, 1);
    case '#':
      return op(Tok::kHash, 1);
    case '~':
      return op(Tok::kTilde, 1);
    case '(':
      return op(Tok::kLParen, 1);
    case ')':
      return op(Tok::kRParen, 1);
    case ',':
      return op(Tok::kComma, 1);
    default:
      break;
  }
  if (c == ':' && pos_ + 1 < s_.size() && IsAlnum(static_cast<unsigned char>(s_[pos_ + 1]))) {
    size_t e = pos_ + 1;
    while (e < s_.size() && IsAlnum(static_cast<unsigned char>(s_[e]))) e++;
    t.tok = Tok::kVar;
    t.begin = pos_;
    pos_ = e;
    t.end = e;
    return t;
  }
  if (IsDigit(c) ||
      (c == '.' && pos_ + 1 < s_.size() && IsDigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
    return Number();
  }
  if (IsAlpha(c)) {
    size_t e = pos_;
    while (e < s_.size() && IsAlnum(static_cast<unsigned char>(s_[e]))) e++;
    std::string_view word = s_.substr(pos_, e - pos_);
    pos_ = e;
    t.end = e;
    t.tok = Keyword(word);
    return t;
  }
  // Anything else is an error: report the one offending byte.
  pos_++;
  t.end = pos_;
  return Fail("unexpected character", std::string(1, static_cast<char>(c)), t);
}

Token Lexer::Fail(std::string message, std::string detail, Token t) {
  error_->message = std::move(message);
  error_->detail = std::move(detail);
  error_->offset = static_cast<int64_t>(t.end) - 1;
  t.tok = Tok::kError;
  return t;
}

void Lexer::SkipBlanks() {
  while (pos_ < s_.size()) {
    unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (IsSpace(c)) {
      pos_++;
    } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
      pos_ += 2;  // continuation line
    } else if (c == '\\' && pos_ + 2 < s_.size() && s_[pos_ + 1] == '\r' && s_[pos_ + 2] == '\n') {
      pos_ += 3;
    } else {
      break;
    }
  }
}

Tok Lexer::Keyword(std::string_view w) {
  struct KW {
    const char* name;
    Tok tok;
  };
  static constexpr KW kKeywords[] = {
      {"and", Tok::kAnd},   {"or", Tok::kOr},         {"not", Tok::kNot},
      {"is", Tok::kIs},     {"isnull", Tok::kIsNull}, {"notnull", Tok::kNotNull},
      {"case", Tok::kCase}, {"when", Tok::kWhen},     {"then", Tok::kThen},
      {"else", Tok::kElse}, {"end", Tok::kEndKw},     {"null", Tok::kNull},
      {"true", Tok::kTrue}, {"false", Tok::kFalse},
  };
  for (const KW& kw : kKeywords) {
    if (w.size() == std::strlen(kw.name) && strncasecmp(w.data(), kw.name, w.size()) == 0) {
      return kw.tok;
    }
  }
  return Tok::kFunc;
}

Token Lexer::Number() {
  Token t;
  t.begin = pos_;
  size_t e = pos_;
  bool is_double = false;
  while (e < s_.size() && IsDigit(static_cast<unsigned char>(s_[e]))) e++;
  if (e < s_.size() && s_[e] == '.') {
    is_double = true;
    e++;
    while (e < s_.size() && IsDigit(static_cast<unsigned char>(s_[e]))) e++;
  }
  if (e < s_.size() && (s_[e] == 'e' || s_[e] == 'E')) {
    size_t x = e + 1;
    if (x < s_.size() && (s_[x] == '+' || s_[x] == '-')) x++;
    if (x < s_.size() && IsDigit(static_cast<unsigned char>(s_[x]))) {
      while (x < s_.size() && IsDigit(static_cast<unsigned char>(s_[x]))) x++;
      e = x;
      is_double = true;
    }
  }
  pos_ = e;
  t.end = e;
  std::string text(s_.substr(t.begin, e - t.begin));
  if (!is_double) {
    if (text == "9223372036854775808") {
      t.tok = Tok::kMaxIntPlusOne;
      return t;
    }
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0) return Fail("bigint constant overflow", text, t);
    t.tok = Tok::kInt;
    t.ival = v;
    return t;
  }
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (errno != 0) return Fail("double constant overflow", text, t);
  t.tok = Tok::kDouble;
  t.dval = d;
  return t;
}

}  // namespace pgrig::script::expr_internal
