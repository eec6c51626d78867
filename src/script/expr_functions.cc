#include "script/expr_functions.h"

#include <strings.h>

#include <cstring>

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

namespace expr_internal {

namespace {

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

}  // namespace

const FuncInfo* FindFunction(std::string_view name) {
  for (const FuncInfo& f : kFunctions) {
    if (name.size() == std::strlen(f.name) && strncasecmp(name.data(), f.name, name.size()) == 0) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace expr_internal

}  // namespace pgrig::script
