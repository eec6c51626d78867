// Expressions of pgbench's \set, \if and \elif: AST, parser and evaluator.
//
// The grammar and precedence are pgbench's (exprparse.y), lowest first:
//   OR;  AND;  NOT (prefix);  IS [NOT] NULL|TRUE|FALSE, ISNULL, NOTNULL;
//   = <> != < <= > >=  (non-associative);  | # &  (bitwise, one level, left);
//   << >> (left);  + - (left);  * / % (left);  unary - ~ (prefix);
//   primaries: integer, double, TRUE/FALSE/NULL, :variable, function(args),
//   CASE WHEN .. THEN .. [ELSE ..] END, ( expr ).
// Note that bitwise operators bind looser than + - (as in pgbench, unlike C).
// Keywords and function names are case-insensitive.
//
// As in pgbench, the parser desugars: "-x" is 0 - x, "~x" is x # -1 (xor with
// all bits), "a > b" is b < a, "IS NULL" / "IS TRUE" are the "is" operator,
// "IS NOT ..." and NOTNULL are "not (is ...)", and hash(x) is
// hash(x, :default_seed), so the evaluator sees a small set of operators.
//
// Evaluation follows pgbench's evaluateExpr(): integer arithmetic is checked
// ("bigint add out of range", ...), int division or modulo by zero is
// "division by zero", double division by zero is +-inf or NaN, AND / OR /
// CASE are lazy, NULL propagates through arithmetic and comparisons.
//
// An Expr is immutable after parsing and may be shared read-only between
// threads; EvalContext is per client.
#ifndef PGRIG_SCRIPT_EXPR_H_
#define PGRIG_SCRIPT_EXPR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "script/prng.h"
#include "script/value.h"
#include "script/variables.h"

namespace pgrig::script {

// The operators and functions the evaluator knows (pgbench's PgBenchFunction).
enum class Func : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,  // + - * / (mod and % share kMod)
  kAbs,
  kDebug,
  kDouble,
  kExp,
  kGreatest,
  kHashFnv1a,
  kHashMurmur2,
  kInt,
  kLeast,
  kLn,
  kPermute,
  kPi,
  kPow,
  kRandom,
  kRandomExponential,
  kRandomGaussian,
  kRandomZipfian,
  kSqrt,
  kBitAnd,
  kBitOr,
  kBitXor,
  kLshift,
  kRshift,
  kEq,
  kNe,
  kLe,
  kLt,
  kAnd,
  kOr,
  kNot,
  kIs,
  kCase,  // kCase args: when1, then1, ..., else
};

// pgbench's name for a Func, as it appears in error texts ("random", "+", ...).
const char* FuncName(Func f);

enum class ExprKind : uint8_t { kConstant, kVariable, kFunction };

struct Expr {
  ExprKind kind = ExprKind::kConstant;
  Func func = Func::kAdd;  // kFunction
  int slot = -1;           // kVariable: slot in the NameTable
  Value constant;          // kConstant
  std::vector<Expr> args;  // kFunction

  static Expr Constant(Value v) {
    Expr e;
    e.kind = ExprKind::kConstant;
    e.constant = v;
    return e;
  }
  static Expr Variable(int slot) {
    Expr e;
    e.kind = ExprKind::kVariable;
    e.slot = slot;
    return e;
  }
  static Expr Function(Func f, std::vector<Expr> a) {
    Expr e;
    e.kind = ExprKind::kFunction;
    e.func = f;
    e.args = std::move(a);
    return e;
  }
};

// A parse failure, with pgbench's parts: message ("syntax error",
// "unexpected character", "unexpected function name", "unexpected number of
// arguments", "bigint constant overflow", ...), an optional detail printed in
// parentheses (the character, the function name) and the byte offset in the
// parsed text where the error was found (pgbench's caret position).
struct ExprSyntaxError {
  std::string message;
  std::string detail;
  int64_t offset = 0;  // may be -1 when the error is at the very start
};

// Parses a whole expression; `text` may continue over lines with a backslash
// before the newline, as in pgbench.  Variable names are interned in `names`.
// On failure returns false and fills *error.
bool ParseExpression(std::string_view text, NameTable& names, Expr* out, ExprSyntaxError* error);
// Convenience wrapper: errors as "message (detail) at column N".
Result<Expr> ParseExpression(std::string_view text, NameTable& names);

// What an evaluation may touch: the client's variables and random stream,
// and where debug() writes.  Cheap to build per evaluation.
struct EvalContext {
  Variables* variables = nullptr;  // REQUIRES: non-null
  Prng* rng = nullptr;             // the client's function stream (cs_func_rs)
  int script_index = 0;            // for debug(): "debug(script=S,command=C): ..."
  int command_index = 0;
  // When non-null, debug() appends its line (with '\n') here instead of
  // writing it to stderr.
  std::string* debug_sink = nullptr;
};

// Evaluates `expr`.  Errors carry pgbench's texts ("division by zero",
// "undefined variable \"x\"", "empty range given to random", ...).
Result<Value> Evaluate(const Expr& expr, EvalContext& ctx);
// The same without building a Result: true and *out on success, false and
// *error on failure.  For the hot path.
bool EvaluateInto(const Expr& expr, EvalContext& ctx, Value* out, Status* error);

// pgbench's hash functions and permute(), exact.
int64_t HashFnv1a(int64_t value, uint64_t seed);
int64_t HashMurmur2(int64_t value, uint64_t seed);
// permute(val, size, seed); REQUIRES size > 0 (the evaluator checks).
int64_t Permute(int64_t val, int64_t size, uint64_t seed);

// Renders an expression back to text (for --show-script and debugging).
std::string ExprToString(const Expr& expr, const NameTable& names);

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_EXPR_H_
