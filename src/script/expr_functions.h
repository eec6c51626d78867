// Internal to script/expr: the functions an expression may call, looked up
// by name, with the number of arguments each takes (pgbench's
// PGBENCH_FUNCTIONS table).  The parser (expr_parser.cc) looks names up here;
// FuncName() (expr.h), defined beside the table in expr_functions.cc, goes
// the other way for error texts and ExprToString().
//
// A constant table; the pointers FindFunction() returns stay valid for the
// life of the program.  Thread-safe.
#ifndef PGRIG_SCRIPT_EXPR_FUNCTIONS_H_
#define PGRIG_SCRIPT_EXPR_FUNCTIONS_H_

#include <string_view>

#include "script/expr.h"

namespace pgrig::script::expr_internal {

// How many arguments a function takes, and what the parser adds.
enum class Arity {
  kFixed,     // exactly FuncInfo::nargs
  kVariable,  // at least one (least, greatest)
  kHash,      // 1 or 2; hash(x) becomes hash(x, :default_seed)
  kPermute,   // 2 or 3; permute(v, n) becomes permute(v, n, :default_seed)
};

struct FuncInfo {
  const char* name;  // lower case, as pgbench spells it in error texts
  Func func;
  Arity arity;
  int nargs;  // kFixed only
};

// The function called `name` (case-insensitive, as in pgbench), or nullptr.
const FuncInfo* FindFunction(std::string_view name);

}  // namespace pgrig::script::expr_internal

#endif  // PGRIG_SCRIPT_EXPR_FUNCTIONS_H_
