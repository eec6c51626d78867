// expr.h's parser: ParseExpression(), precedence climbing over the tokens of
// expr_lexer.h, and ExprToString(), its inverse for display.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "script/expr.h"
#include "script/expr_functions.h"
#include "script/expr_lexer.h"

namespace pgrig::script {

// ===========================================================================
// Parser: precedence climbing over pgbench's bison precedence table.
// ===========================================================================
namespace expr_internal {
namespace {

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
    const FuncInfo* info = FindFunction(name);
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
}  // namespace expr_internal

bool ParseExpression(std::string_view text, NameTable& names, Expr* out, ExprSyntaxError* error) {
  expr_internal::Parser parser(text, names, error);
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
