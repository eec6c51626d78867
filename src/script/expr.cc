#include "script/expr.h"

#include <strings.h>

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>

#include "script/pg_format.h"

namespace pgrig::script {

const char* FuncName(Func f) {
  switch (f) {
    case Func::kAdd:
      return "+";
    case Func::kSub:
      return "-";
    case Func::kMul:
      return "*";
    case Func::kDiv:
      return "/";
    case Func::kMod:
      return "mod";
    case Func::kAbs:
      return "abs";
    case Func::kDebug:
      return "debug";
    case Func::kDouble:
      return "double";
    case Func::kExp:
      return "exp";
    case Func::kGreatest:
      return "greatest";
    case Func::kHashFnv1a:
      return "hash_fnv1a";
    case Func::kHashMurmur2:
      return "hash_murmur2";
    case Func::kInt:
      return "int";
    case Func::kLeast:
      return "least";
    case Func::kLn:
      return "ln";
    case Func::kPermute:
      return "permute";
    case Func::kPi:
      return "pi";
    case Func::kPow:
      return "pow";
    case Func::kRandom:
      return "random";
    case Func::kRandomExponential:
      return "random_exponential";
    case Func::kRandomGaussian:
      return "random_gaussian";
    case Func::kRandomZipfian:
      return "random_zipfian";
    case Func::kSqrt:
      return "sqrt";
    case Func::kBitAnd:
      return "&";
    case Func::kBitOr:
      return "|";
    case Func::kBitXor:
      return "#";
    case Func::kLshift:
      return "<<";
    case Func::kRshift:
      return ">>";
    case Func::kEq:
      return "=";
    case Func::kNe:
      return "<>";
    case Func::kLe:
      return "<=";
    case Func::kLt:
      return "<";
    case Func::kAnd:
      return "!and";
    case Func::kOr:
      return "!or";
    case Func::kNot:
      return "!not";
    case Func::kIs:
      return "!is";
    case Func::kCase:
      return "!case_end";
  }
  return "?";
}

// ===========================================================================
// Lexer (pgbench's exprscan.l, EXPR state)
// ===========================================================================
namespace {

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
  size_t begin = 0;
  size_t end = 0;
  int64_t ival = 0;
  double dval = 0;
};

bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 || c == '_';
}
bool IsAlnum(unsigned char c) { return IsAlpha(c) || IsDigit(c); }
bool IsSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

class Lexer {
 public:
  Lexer(std::string_view text, ExprSyntaxError* error) : s_(text), error_(error) {}

  // Returns the next token; on a lexical error fills *error_ and returns kError.
  Token Next() {
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

  std::string_view Text(const Token& t) const { return s_.substr(t.begin, t.end - t.begin); }

  Token Fail(std::string message, std::string detail, Token t) {
    error_->message = std::move(message);
    error_->detail = std::move(detail);
    error_->offset = static_cast<int64_t>(t.end) - 1;
    t.tok = Tok::kError;
    return t;
  }

 private:
  void SkipBlanks() {
    while (pos_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (IsSpace(c)) {
        pos_++;
      } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;  // continuation line
      } else if (c == '\\' && pos_ + 2 < s_.size() && s_[pos_ + 1] == '\r' &&
                 s_[pos_ + 2] == '\n') {
        pos_ += 3;
      } else {
        break;
      }
    }
  }

  static Tok Keyword(std::string_view w) {
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

  Token Number() {
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

  std::string_view s_;
  size_t pos_ = 0;
  ExprSyntaxError* error_;
};

// ===========================================================================
// Parser: precedence climbing over pgbench's bison precedence table.
// ===========================================================================

// Levels, lowest first (exprparse.y): OR, AND, NOT, IS, comparison,
// bitwise (| # & << >> ~), additive, multiplicative, unary.
constexpr int kPrecOr = 1, kPrecAnd = 2, kPrecNot = 3, kPrecIs = 4, kPrecCmp = 5, kPrecBit = 6,
              kPrecAdd = 7, kPrecMul = 8, kPrecUnary = 9;

int BinaryPrec(Tok t) {
  switch (t) {
    case Tok::kOr:
      return kPrecOr;
    case Tok::kAnd:
      return kPrecAnd;
    case Tok::kIs:
    case Tok::kIsNull:
    case Tok::kNotNull:
      return kPrecIs;
    case Tok::kEq:
    case Tok::kNe:
    case Tok::kLe:
    case Tok::kGe:
    case Tok::kLt:
    case Tok::kGt:
      return kPrecCmp;
    case Tok::kPipe:
    case Tok::kAmp:
    case Tok::kHash:
    case Tok::kLs:
    case Tok::kRs:
      return kPrecBit;
    case Tok::kPlus:
    case Tok::kMinus:
      return kPrecAdd;
    case Tok::kStar:
    case Tok::kSlash:
    case Tok::kPercent:
      return kPrecMul;
    default:
      return 0;
  }
}

enum class Arity { kFixed, kVariable, kHash, kPermute };

struct FuncInfo {
  const char* name;
  Func func;
  Arity arity;
  int nargs;
};

constexpr FuncInfo kFunctions[] = {
    {"abs", Func::kAbs, Arity::kFixed, 1},
    {"least", Func::kLeast, Arity::kVariable, 0},
    {"greatest", Func::kGreatest, Arity::kVariable, 0},
    {"debug", Func::kDebug, Arity::kFixed, 1},
    {"pi", Func::kPi, Arity::kFixed, 0},
    {"sqrt", Func::kSqrt, Arity::kFixed, 1},
    {"ln", Func::kLn, Arity::kFixed, 1},
    {"exp", Func::kExp, Arity::kFixed, 1},
    {"int", Func::kInt, Arity::kFixed, 1},
    {"double", Func::kDouble, Arity::kFixed, 1},
    {"random", Func::kRandom, Arity::kFixed, 2},
    {"random_gaussian", Func::kRandomGaussian, Arity::kFixed, 3},
    {"random_exponential", Func::kRandomExponential, Arity::kFixed, 3},
    {"random_zipfian", Func::kRandomZipfian, Arity::kFixed, 3},
    {"pow", Func::kPow, Arity::kFixed, 2},
    {"power", Func::kPow, Arity::kFixed, 2},
    {"mod", Func::kMod, Arity::kFixed, 2},
    {"hash", Func::kHashMurmur2, Arity::kHash, 0},
    {"hash_murmur2", Func::kHashMurmur2, Arity::kHash, 0},
    {"hash_fnv1a", Func::kHashFnv1a, Arity::kHash, 0},
    {"permute", Func::kPermute, Arity::kPermute, 0},
};

class Parser {
 public:
  Parser(std::string_view text, NameTable& names, ExprSyntaxError* error)
      : lex_(text, error), names_(names), error_(error) {}

  bool Parse(Expr* out) {
    if (!Advance()) return false;
    if (!ParseExpr(0, out)) return false;
    if (cur_.tok != Tok::kEnd) return SyntaxError();
    return true;
  }

 private:
  bool Advance() {
    cur_ = lex_.Next();
    return cur_.tok != Tok::kError;
  }

  bool SyntaxError() { return ErrorAt("syntax error", "", cur_); }
  bool ErrorAt(std::string message, std::string detail, const Token& t) {
    error_->message = std::move(message);
    error_->detail = std::move(detail);
    error_->offset = static_cast<int64_t>(t.end) - 1;
    return false;
  }

  static Expr Op(Func f, Expr a, Expr b) {
    std::vector<Expr> args;
    args.reserve(2);
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return Expr::Function(f, std::move(args));
  }
  static Expr Uop(Func f, Expr a) {
    std::vector<Expr> args;
    args.push_back(std::move(a));
    return Expr::Function(f, std::move(args));
  }

  // The parser, Evaluate(), ExprToString() and ~Expr all recurse once per
  // level of the expression tree, about 1 KB of stack per level in a release
  // build and 4-10 KB under ASan.  pgbench's bison parser gives up only at
  // 10000 stack entries ("memory exhausted"), which would overflow an 8 MB
  // stack here, so both nesting and the length of left-deep operator chains
  // ("1+1+...") are capped far above anything a real script writes; the tree
  // depth is then at most kMaxNesting + kMaxOperators.
  static constexpr int kMaxNesting = 256;
  static constexpr int kMaxOperators = 512;

  bool ParseExpr(int min_prec, Expr* out) {
    if (depth_ >= kMaxNesting) return ErrorAt("memory exhausted", "", cur_);
    depth_++;
    const bool ok = ParseExprLevel(min_prec, out);
    depth_--;
    return ok;
  }

  bool ParseExprLevel(int min_prec, Expr* out) {
    Expr left;
    if (!ParseUnary(&left)) return false;
    while (true) {
      const Tok t = cur_.tok;
      const int prec = BinaryPrec(t);
      if (prec == 0 || prec < min_prec) break;
      if (++operators_ > kMaxOperators) return ErrorAt("memory exhausted", "", cur_);
      if (prec == kPrecIs) {
        if (!ParseIsSuffix(&left)) return false;
        if (BinaryPrec(cur_.tok) == kPrecIs) return SyntaxError();  // non-associative
        continue;
      }
      if (!Advance()) return false;
      Expr right;
      if (!ParseExpr(prec + 1, &right)) return false;
      switch (t) {
        case Tok::kOr:
          left = Op(Func::kOr, std::move(left), std::move(right));
          break;
        case Tok::kAnd:
          left = Op(Func::kAnd, std::move(left), std::move(right));
          break;
        case Tok::kEq:
          left = Op(Func::kEq, std::move(left), std::move(right));
          break;
        case Tok::kNe:
          left = Op(Func::kNe, std::move(left), std::move(right));
          break;
        case Tok::kLe:
          left = Op(Func::kLe, std::move(left), std::move(right));
          break;
        case Tok::kLt:
          left = Op(Func::kLt, std::move(left), std::move(right));
          break;
        case Tok::kGe:
          left = Op(Func::kLe, std::move(right), std::move(left));
          break;
        case Tok::kGt:
          left = Op(Func::kLt, std::move(right), std::move(left));
          break;
        case Tok::kPipe:
          left = Op(Func::kBitOr, std::move(left), std::move(right));
          break;
        case Tok::kAmp:
          left = Op(Func::kBitAnd, std::move(left), std::move(right));
          break;
        case Tok::kHash:
          left = Op(Func::kBitXor, std::move(left), std::move(right));
          break;
        case Tok::kLs:
          left = Op(Func::kLshift, std::move(left), std::move(right));
          break;
        case Tok::kRs:
          left = Op(Func::kRshift, std::move(left), std::move(right));
          break;
        case Tok::kPlus:
          left = Op(Func::kAdd, std::move(left), std::move(right));
          break;
        case Tok::kMinus:
          left = Op(Func::kSub, std::move(left), std::move(right));
          break;
        case Tok::kStar:
          left = Op(Func::kMul, std::move(left), std::move(right));
          break;
        case Tok::kSlash:
          left = Op(Func::kDiv, std::move(left), std::move(right));
          break;
        case Tok::kPercent:
          left = Op(Func::kMod, std::move(left), std::move(right));
          break;
        default:
          return SyntaxError();
      }
      if (prec == kPrecCmp && BinaryPrec(cur_.tok) == kPrecCmp) return SyntaxError();
    }
    *out = std::move(left);
    return true;
  }

  // x ISNULL | x NOTNULL | x IS [NOT] NULL|TRUE|FALSE
  bool ParseIsSuffix(Expr* left) {
    const Tok t = cur_.tok;
    if (!Advance()) return false;
    if (t == Tok::kIsNull) {
      *left = Op(Func::kIs, std::move(*left), Expr::Constant(Value::Null()));
      return true;
    }
    if (t == Tok::kNotNull) {
      *left = Uop(Func::kNot, Op(Func::kIs, std::move(*left), Expr::Constant(Value::Null())));
      return true;
    }
    bool negate = false;
    if (cur_.tok == Tok::kNot) {
      negate = true;
      if (!Advance()) return false;
    }
    Value rhs;
    if (cur_.tok == Tok::kNull) {
      rhs = Value::Null();
    } else if (cur_.tok == Tok::kTrue || cur_.tok == Tok::kFalse) {
      rhs = Value::Bool(cur_.tok == Tok::kTrue);
    } else {
      return SyntaxError();
    }
    if (!Advance()) return false;
    Expr is = Op(Func::kIs, std::move(*left), Expr::Constant(rhs));
    *left = negate ? Uop(Func::kNot, std::move(is)) : std::move(is);
    return true;
  }

  bool ParseUnary(Expr* out) {
    const Token t = cur_;
    switch (t.tok) {
      case Tok::kPlus:
        if (!Advance()) return false;
        return ParseExpr(kPrecUnary + 1, out);
      case Tok::kMinus: {
        if (!Advance()) return false;
        if (cur_.tok == Tok::kMaxIntPlusOne) {
          if (!Advance()) return false;
          *out = Expr::Constant(Value::Int(INT64_MIN));
          return true;
        }
        Expr operand;
        if (!ParseExpr(kPrecUnary + 1, &operand)) return false;
        *out = Op(Func::kSub, Expr::Constant(Value::Int(0)), std::move(operand));
        return true;
      }
      case Tok::kTilde: {
        // "~" has the bitwise operators' precedence in pgbench's grammar, so
        // its operand extends over + - * / %.
        if (!Advance()) return false;
        Expr operand;
        if (!ParseExpr(kPrecBit + 1, &operand)) return false;
        *out = Op(Func::kBitXor, Expr::Constant(Value::Int(~int64_t{0})), std::move(operand));
        return true;
      }
      case Tok::kNot: {
        if (!Advance()) return false;
        Expr operand;
        if (!ParseExpr(kPrecNot + 1, &operand)) return false;
        *out = Uop(Func::kNot, std::move(operand));
        return true;
      }
      case Tok::kLParen: {
        if (!Advance()) return false;
        if (!ParseExpr(0, out)) return false;
        if (cur_.tok != Tok::kRParen) return SyntaxError();
        return Advance();
      }
      case Tok::kNull:
        *out = Expr::Constant(Value::Null());
        return Advance();
      case Tok::kTrue:
        *out = Expr::Constant(Value::Bool(true));
        return Advance();
      case Tok::kFalse:
        *out = Expr::Constant(Value::Bool(false));
        return Advance();
      case Tok::kInt:
        *out = Expr::Constant(Value::Int(t.ival));
        return Advance();
      case Tok::kDouble:
        *out = Expr::Constant(Value::Double(t.dval));
        return Advance();
      case Tok::kVar:
        *out = Expr::Variable(names_.Intern(lex_.Text(t).substr(1)));
        return Advance();
      case Tok::kFunc:
        return ParseCall(out);
      case Tok::kCase:
        return ParseCase(out);
      default:
        return SyntaxError();
    }
  }

  bool ParseCall(Expr* out) {
    const Token name_tok = cur_;
    const std::string_view name = lex_.Text(name_tok);
    const FuncInfo* info = nullptr;
    for (const FuncInfo& f : kFunctions) {
      if (name.size() == std::strlen(f.name) &&
          strncasecmp(name.data(), f.name, name.size()) == 0) {
        info = &f;
        break;
      }
    }
    if (info == nullptr) return ErrorAt("unexpected function name", std::string(name), name_tok);
    if (!Advance()) return false;
    if (cur_.tok != Tok::kLParen) return SyntaxError();
    if (!Advance()) return false;
    std::vector<Expr> args;
    if (cur_.tok != Tok::kRParen) {
      while (true) {
        Expr a;
        if (!ParseExpr(0, &a)) return false;
        args.push_back(std::move(a));
        if (cur_.tok == Tok::kComma) {
          if (!Advance()) return false;
          continue;
        }
        break;
      }
      if (cur_.tok != Tok::kRParen) return SyntaxError();
    }
    const Token close = cur_;
    const size_t n = args.size();
    switch (info->arity) {
      case Arity::kVariable:
        if (n == 0) return ErrorAt("at least one argument expected", info->name, close);
        break;
      case Arity::kHash:
        if (n < 1 || n > 2) return ErrorAt("unexpected number of arguments", info->name, close);
        if (n == 1) args.push_back(Expr::Variable(names_.Intern("default_seed")));
        break;
      case Arity::kPermute:
        if (n < 2 || n > 3) return ErrorAt("unexpected number of arguments", info->name, close);
        if (n == 2) args.push_back(Expr::Variable(names_.Intern("default_seed")));
        break;
      case Arity::kFixed:
        if (static_cast<int>(n) != info->nargs) {
          return ErrorAt("unexpected number of arguments", info->name, close);
        }
        break;
    }
    *out = Expr::Function(info->func, std::move(args));
    return Advance();
  }

  bool ParseCase(Expr* out) {
    if (!Advance()) return false;
    if (cur_.tok != Tok::kWhen) return SyntaxError();
    std::vector<Expr> args;
    while (cur_.tok == Tok::kWhen) {
      if (!Advance()) return false;
      Expr cond, value;
      if (!ParseExpr(0, &cond)) return false;
      if (cur_.tok != Tok::kThen) return SyntaxError();
      if (!Advance()) return false;
      if (!ParseExpr(0, &value)) return false;
      args.push_back(std::move(cond));
      args.push_back(std::move(value));
    }
    if (cur_.tok == Tok::kElse) {
      if (!Advance()) return false;
      Expr else_part;
      if (!ParseExpr(0, &else_part)) return false;
      args.push_back(std::move(else_part));
    } else {
      args.push_back(Expr::Constant(Value::Null()));
    }
    if (cur_.tok != Tok::kEndKw) return SyntaxError();
    *out = Expr::Function(Func::kCase, std::move(args));
    return Advance();
  }

  Lexer lex_;
  NameTable& names_;
  ExprSyntaxError* error_;
  Token cur_;
  int depth_ = 0;      // ParseExpr() calls active
  int operators_ = 0;  // binary and IS operators so far
};

}  // namespace

bool ParseExpression(std::string_view text, NameTable& names, Expr* out, ExprSyntaxError* error) {
  Parser parser(text, names, error);
  return parser.Parse(out);
}

Result<Expr> ParseExpression(std::string_view text, NameTable& names) {
  Expr e;
  ExprSyntaxError err;
  if (!ParseExpression(text, names, &e, &err)) {
    std::string m = err.message;
    if (!err.detail.empty()) m += " (" + err.detail + ")";
    m += " at column " + std::to_string(err.offset + 1);
    return InvalidArgument(m);
  }
  return e;
}

// ===========================================================================
// Hashes and permute (pgbench's getHashFnv1a, getHashMurmur2, permute)
// ===========================================================================

int64_t HashFnv1a(int64_t value, uint64_t seed) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ULL;
  uint64_t result = kOffsetBasis ^ seed;
  int64_t v = value;
  for (int i = 0; i < 8; ++i) {
    // pgbench takes the octet as a signed int32 of (val & 0xff), then shifts
    // val arithmetically; both are reproduced here.
    const uint64_t octet = static_cast<uint64_t>(v & 0xff);
    v >>= 8;
    result ^= octet;
    result *= kPrime;
  }
  return static_cast<int64_t>(result);
}

int64_t HashMurmur2(int64_t value, uint64_t seed) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr uint64_t kMulTimes8 = 0x35253c9ade8f4ca8ULL;
  constexpr int kRot = 47;
  uint64_t result = seed ^ kMulTimes8;
  uint64_t k = static_cast<uint64_t>(value);
  k *= kMul;
  k ^= k >> kRot;
  k *= kMul;
  result ^= k;
  result *= kMul;
  result ^= result >> kRot;
  result *= kMul;
  result ^= result >> kRot;
  return static_cast<int64_t>(result);
}

int64_t Permute(int64_t val, int64_t isize, uint64_t seed) {
  if (isize < 2) return 0;
  Prng rng(seed);
  const uint64_t size = static_cast<uint64_t>(isize);
  uint64_t v = static_cast<uint64_t>(val) % size;
  const int masklen = 63 - __builtin_clzll(size);
  const uint64_t mask = (uint64_t{1} << masklen) - 1;
  for (int i = 0; i < 6; i++) {
    // Lower half: odd multiply, xor, rotate within mask.
    uint64_t m = (rng.Next64() & mask) | 1;
    uint64_t r = rng.Next64() & mask;
    if (v <= mask) {
      v = ((v * m) ^ r) & mask;
      v = ((v << 1) & mask) | (v >> (masklen - 1));
    }
    // Upper half, mirrored.
    m = (rng.Next64() & mask) | 1;
    r = rng.Next64() & mask;
    uint64_t t = size - 1 - v;
    if (t <= mask) {
      t = ((t * m) ^ r) & mask;
      t = ((t << 1) & mask) | (t >> (masklen - 1));
      v = size - 1 - t;
    }
    // Random offset over the whole range.
    r = rng.Uint64Range(0, size - 1);
    v = (v + r) % size;
  }
  return static_cast<int64_t>(v);
}

// ===========================================================================
// Evaluator (pgbench's evaluateExpr / evalLazyFunc / evalStandardFunc)
// ===========================================================================
namespace {

constexpr int kMaxFuncArgs = 16;

class Evaluator {
 public:
  explicit Evaluator(EvalContext& ctx) : ctx_(ctx) {}

  bool Eval(const Expr& e, Value* out) {
    switch (e.kind) {
      case ExprKind::kConstant:
        *out = e.constant;
        return true;
      case ExprKind::kVariable: {
        Result<Value> v = ctx_.variables->Get(e.slot);
        if (!v.ok()) return Fail(v.status());
        *out = *v;
        return true;
      }
      case ExprKind::kFunction:
        if (e.func == Func::kAnd || e.func == Func::kOr || e.func == Func::kCase) {
          return EvalLazy(e, out);
        }
        return EvalStandard(e, out);
    }
    return false;
  }

  Status TakeError() { return std::move(error_); }

 private:
  bool Fail(Status s) {
    error_ = std::move(s);
    return false;
  }
  bool Fail(std::string m) { return Fail(InvalidArgument(std::move(m))); }

  bool EvalLazy(const Expr& e, Value* out) {
    if (e.func == Func::kCase) {
      const size_t n = e.args.size();  // when, then, ..., else
      for (size_t i = 0; i + 1 < n; i += 2) {
        Value cond;
        if (!Eval(e.args[i], &cond)) return false;
        if (ValueTruth(cond)) return Eval(e.args[i + 1], out);
      }
      return Eval(e.args[n - 1], out);
    }
    Value a;
    if (!Eval(e.args[0], &a)) return false;
    if (a.is_null()) {
      *out = Value::Null();
      return true;
    }
    Result<bool> ba = CoerceToBool(a);
    if (!ba.ok()) return Fail(ba.status());
    const bool is_and = e.func == Func::kAnd;
    if (*ba != is_and) {  // AND with false, OR with true: short circuit
      *out = Value::Bool(*ba);
      return true;
    }
    Value b;
    if (!Eval(e.args[1], &b)) return false;
    if (b.is_null()) {
      *out = Value::Null();
      return true;
    }
    Result<bool> bb = CoerceToBool(b);
    if (!bb.ok()) return Fail(bb.status());
    *out = Value::Bool(*bb);
    return true;
  }

  bool ToInt(const Value& v, int64_t* out) {
    Result<int64_t> r = CoerceToInt(v);
    if (!r.ok()) return Fail(r.status());
    *out = *r;
    return true;
  }
  bool ToDouble(const Value& v, double* out) {
    Result<double> r = CoerceToDouble(v);
    if (!r.ok()) return Fail(r.status());
    *out = *r;
    return true;
  }

  bool EvalStandard(const Expr& e, Value* out) {
    Value args[kMaxFuncArgs];
    const size_t n = e.args.size();
    bool has_null = false;
    for (size_t i = 0; i < n && i < kMaxFuncArgs; i++) {
      if (!Eval(e.args[i], &args[i])) return false;
      has_null |= args[i].is_null();
    }
    if (n > kMaxFuncArgs) {
      return Fail("too many function arguments, maximum is " + std::to_string(kMaxFuncArgs));
    }
    if (has_null && e.func != Func::kIs && e.func != Func::kDebug) {
      *out = Value::Null();
      return true;
    }
    switch (e.func) {
      case Func::kAdd:
      case Func::kSub:
      case Func::kMul:
      case Func::kDiv:
      case Func::kMod:
      case Func::kEq:
      case Func::kNe:
      case Func::kLe:
      case Func::kLt:
        return Arith(e.func, args[0], args[1], out);
      case Func::kBitAnd:
      case Func::kBitOr:
      case Func::kBitXor:
      case Func::kLshift:
      case Func::kRshift: {
        int64_t l, r;
        if (!ToInt(args[0], &l) || !ToInt(args[1], &r)) return false;
        const uint64_t ul = static_cast<uint64_t>(l), ur = static_cast<uint64_t>(r);
        int64_t res = 0;
        switch (e.func) {
          case Func::kBitAnd:
            res = static_cast<int64_t>(ul & ur);
            break;
          case Func::kBitOr:
            res = static_cast<int64_t>(ul | ur);
            break;
          case Func::kBitXor:
            res = static_cast<int64_t>(ul ^ ur);
            break;
          // Shift counts wrap modulo 64, as the x86/arm64 instructions that
          // pgbench's C shift compiles to do.
          case Func::kLshift:
            res = static_cast<int64_t>(ul << (r & 63));
            break;
          default:
            res = l >> (r & 63);
            break;
        }
        *out = Value::Int(res);
        return true;
      }
      case Func::kNot: {
        Result<bool> b = CoerceToBool(args[0]);
        if (!b.ok()) return Fail(b.status());
        *out = Value::Bool(!*b);
        return true;
      }
      case Func::kPi:
        *out = Value::Double(std::numbers::pi);
        return true;
      case Func::kAbs:
        if (args[0].is_int()) {
          const int64_t i = args[0].int_value();
          *out = Value::Int(i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(i)) : i);
        } else if (args[0].is_double()) {
          const double d = args[0].double_value();
          *out = Value::Double(d < 0.0 ? -d : d);
        } else {
          // pgbench reads a boolean as a double here; keep a defined answer.
          *out = Value::Double(args[0].bool_value() ? 1.0 : 0.0);
        }
        return true;
      case Func::kDebug: {
        std::string line = "debug(script=" + std::to_string(ctx_.script_index) +
                           ",command=" + std::to_string(ctx_.command_index + 1) +
                           "): " + DebugString(args[0]) + "\n";
        if (ctx_.debug_sink != nullptr) {
          ctx_.debug_sink->append(line);
        } else {
          std::fputs(line.c_str(), stderr);
        }
        *out = args[0];
        return true;
      }
      case Func::kDouble:
      case Func::kSqrt:
      case Func::kLn:
      case Func::kExp: {
        double d;
        if (!ToDouble(args[0], &d)) return false;
        if (e.func == Func::kSqrt)
          d = std::sqrt(d);
        else if (e.func == Func::kLn)
          d = std::log(d);
        else if (e.func == Func::kExp)
          d = std::exp(d);
        *out = Value::Double(d);
        return true;
      }
      case Func::kInt: {
        int64_t i;
        if (!ToInt(args[0], &i)) return false;
        *out = Value::Int(i);
        return true;
      }
      case Func::kLeast:
      case Func::kGreatest: {
        bool have_double = false;
        for (size_t i = 0; i < n; i++) have_double |= args[i].is_double();
        const bool least = e.func == Func::kLeast;
        if (have_double) {
          double ext;
          if (!ToDouble(args[0], &ext)) return false;
          for (size_t i = 1; i < n; i++) {
            double d;
            if (!ToDouble(args[i], &d)) return false;
            ext = least ? (d < ext ? d : ext) : (d > ext ? d : ext);
          }
          *out = Value::Double(ext);
        } else {
          int64_t ext;
          if (!ToInt(args[0], &ext)) return false;
          for (size_t i = 1; i < n; i++) {
            int64_t v;
            if (!ToInt(args[i], &v)) return false;
            ext = least ? (v < ext ? v : ext) : (v > ext ? v : ext);
          }
          *out = Value::Int(ext);
        }
        return true;
      }
      case Func::kRandom:
      case Func::kRandomExponential:
      case Func::kRandomGaussian:
      case Func::kRandomZipfian:
        return Random(e.func, args, out);
      case Func::kPow: {
        double l, r;
        if (!ToDouble(args[0], &l) || !ToDouble(args[1], &r)) return false;
        *out = Value::Double(std::pow(l, r));
        return true;
      }
      case Func::kIs: {
        const Value& a = args[0];
        const Value& b = args[1];
        bool same = a.type() == b.type();
        if (same && a.is_bool()) same = a.bool_value() == b.bool_value();
        *out = Value::Bool(same);
        return true;
      }
      case Func::kHashFnv1a:
      case Func::kHashMurmur2: {
        int64_t v, seed;
        if (!ToInt(args[0], &v) || !ToInt(args[1], &seed)) return false;
        *out = Value::Int(e.func == Func::kHashFnv1a ? HashFnv1a(v, static_cast<uint64_t>(seed))
                                                     : HashMurmur2(v, static_cast<uint64_t>(seed)));
        return true;
      }
      case Func::kPermute: {
        int64_t v, size, seed;
        if (!ToInt(args[0], &v) || !ToInt(args[1], &size) || !ToInt(args[2], &seed)) return false;
        if (size <= 0) return Fail("permute size parameter must be greater than zero");
        *out = Value::Int(Permute(v, size, static_cast<uint64_t>(seed)));
        return true;
      }
      default:
        return Fail(Internal(std::string("unexpected function ") + FuncName(e.func)));
    }
  }

  bool Arith(Func f, const Value& lv, const Value& rv, Value* out) {
    if ((lv.is_double() || rv.is_double()) && f != Func::kMod) {
      double l, r;
      if (!ToDouble(lv, &l) || !ToDouble(rv, &r)) return false;
      switch (f) {
        case Func::kAdd:
          *out = Value::Double(l + r);
          break;
        case Func::kSub:
          *out = Value::Double(l - r);
          break;
        case Func::kMul:
          *out = Value::Double(l * r);
          break;
        case Func::kDiv:
          *out = Value::Double(l / r);
          break;
        case Func::kEq:
          *out = Value::Bool(l == r);
          break;
        case Func::kNe:
          *out = Value::Bool(l != r);
          break;
        case Func::kLe:
          *out = Value::Bool(l <= r);
          break;
        default:
          *out = Value::Bool(l < r);
          break;
      }
      return true;
    }
    int64_t l, r, res;
    if (!ToInt(lv, &l) || !ToInt(rv, &r)) return false;
    switch (f) {
      case Func::kAdd:
        if (__builtin_add_overflow(l, r, &res)) return Fail("bigint add out of range");
        *out = Value::Int(res);
        return true;
      case Func::kSub:
        if (__builtin_sub_overflow(l, r, &res)) return Fail("bigint sub out of range");
        *out = Value::Int(res);
        return true;
      case Func::kMul:
        if (__builtin_mul_overflow(l, r, &res)) return Fail("bigint mul out of range");
        *out = Value::Int(res);
        return true;
      case Func::kEq:
        *out = Value::Bool(l == r);
        return true;
      case Func::kNe:
        *out = Value::Bool(l != r);
        return true;
      case Func::kLe:
        *out = Value::Bool(l <= r);
        return true;
      case Func::kLt:
        *out = Value::Bool(l < r);
        return true;
      case Func::kDiv:
      case Func::kMod:
        if (r == 0) return Fail("division by zero");
        if (r == -1) {
          if (f == Func::kMod) {
            *out = Value::Int(0);
            return true;
          }
          if (l == INT64_MIN) return Fail("bigint div out of range");
          *out = Value::Int(-l);
          return true;
        }
        *out = Value::Int(f == Func::kDiv ? l / r : l % r);
        return true;
      default:
        return Fail(Internal("unexpected arithmetic operator"));
    }
  }

  bool Random(Func f, const Value* args, Value* out) {
    int64_t imin, imax, delta;
    if (!ToInt(args[0], &imin) || !ToInt(args[1], &imax)) return false;
    if (imin > imax) return Fail("empty range given to random");
    if (__builtin_sub_overflow(imax, imin, &delta) || __builtin_add_overflow(delta, 1, &delta)) {
      return Fail("random range is too large");
    }
    Prng& rng = *ctx_.rng;
    if (f == Func::kRandom) {
      *out = Value::Int(RandomUniform(rng, imin, imax));
      return true;
    }
    double param;
    if (!ToDouble(args[2], &param)) return false;
    // The messages use PostgreSQL's %f, as pgbench's ("(not NaN)").
    if (f == Func::kRandomGaussian) {
      if (param < kMinGaussianParam) {
        return Fail(
            PgFormat("gaussian parameter must be at least %f (not %f)", kMinGaussianParam, param));
      }
      *out = Value::Int(RandomGaussian(rng, imin, imax, param));
    } else if (f == Func::kRandomZipfian) {
      // NaN passes pgbench's range check and then loops forever in its
      // rejection sampling; here it is out of range.
      if (!(param >= kMinZipfianParam && param <= kMaxZipfianParam)) {
        return Fail(PgFormat("zipfian parameter must be in range [%.3f, %.0f] (not %f)",
                             kMinZipfianParam, kMaxZipfianParam, param));
      }
      *out = Value::Int(RandomZipfian(rng, imin, imax, param));
    } else {
      if (param <= 0.0) {
        return Fail(PgFormat("exponential parameter must be greater than zero (not %f)", param));
      }
      *out = Value::Int(RandomExponential(rng, imin, imax, param));
    }
    return true;
  }

  EvalContext& ctx_;
  Status error_;
};

}  // namespace

Result<Value> Evaluate(const Expr& expr, EvalContext& ctx) {
  Evaluator ev(ctx);
  Value v;
  if (!ev.Eval(expr, &v)) return ev.TakeError();
  return v;
}

// Internal fast path used by the runner: no Result construction on success.
bool EvaluateInto(const Expr& expr, EvalContext& ctx, Value* out, Status* error) {
  Evaluator ev(ctx);
  if (ev.Eval(expr, out)) return true;
  *error = ev.TakeError();
  return false;
}

std::string ExprToString(const Expr& e, const NameTable& names) {
  switch (e.kind) {
    case ExprKind::kConstant:
      if (e.constant.is_null()) return "NULL";
      return ValueToString(e.constant);
    case ExprKind::kVariable:
      return ":" + names.Name(e.slot);
    case ExprKind::kFunction: {
      std::string s = FuncName(e.func);
      s += "(";
      for (size_t i = 0; i < e.args.size(); i++) {
        if (i > 0) s += ", ";
        s += ExprToString(e.args[i], names);
      }
      s += ")";
      return s;
    }
  }
  return "";
}

}  // namespace pgrig::script
