// Internal to script/expr: the lexer of pgbench's expression language
// (exprscan.l in its EXPR state), used only by the parser (expr_parser.cc).
//
// It turns the text of one \set / \if expression into Tokens: operators,
// keywords (case-insensitive), :variables, function names, integer and
// double constants (pgbench's overflow errors; 9223372036854775808 is its
// own token, so that the parser can accept it after a unary minus).  A
// backslash before the newline continues the expression; a bare newline
// ends it.
//
// A Lexer reads text it does not own, which must outlive it, and writes a
// lexical error into the ExprSyntaxError its caller owns.  One per parse;
// not thread-safe.
#ifndef PGRIG_SCRIPT_EXPR_LEXER_H_
#define PGRIG_SCRIPT_EXPR_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "script/expr.h"

namespace pgrig::script::expr_internal {

enum class Tok : uint8_t {
  kEnd,
  kError,
  kInt,
  kMaxIntPlusOne,
  kDouble,
  kTrue,
  kFalse,
  kNull,
  kVar,
  kFunc,
  kAnd,
  kOr,
  kNot,
  kIs,
  kIsNull,
  kNotNull,
  kCase,
  kWhen,
  kThen,
  kElse,
  kEndKw,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kEq,
  kNe,
  kLe,
  kGe,
  kLt,
  kGt,
  kPipe,
  kAmp,
  kHash,
  kTilde,
  kLs,
  kRs,
  kLParen,
  kRParen,
  kComma,
};

struct Token {
  Tok tok = Tok::kEnd;
  size_t begin = 0;  // byte offsets in the text: [begin, end)
  size_t end = 0;
  int64_t ival = 0;  // kInt
  double dval = 0;   // kDouble
};

class Lexer {
 public:
  Lexer(std::string_view text, ExprSyntaxError* error) : s_(text), error_(error) {}

  // Returns the next token; on a lexical error fills *error_ and returns kError.
  Token Next();

  // The text of `t` (a :variable with its colon, a function name, ...).
  std::string_view Text(const Token& t) const { return s_.substr(t.begin, t.end - t.begin); }

 private:
  Token Fail(std::string message, std::string detail, Token t);
  void SkipBlanks();
  static Tok Keyword(std::string_view w);
  Token Number();

  std::string_view s_;
  size_t pos_ = 0;
  ExprSyntaxError* error_;
};

}  // namespace pgrig::script::expr_internal

#endif  // PGRIG_SCRIPT_EXPR_LEXER_H_
