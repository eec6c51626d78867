#include "script/expr_functions.h"

#include <strings.h>

#include <cstring>

#include "common/enum_names.h"

namespace pgrig::script {

const char* FuncName(Func f) {
  static constexpr const char* kNames[] = {"+",
                                           "-",
                                           "*",
                                           "/",
                                           "mod",
                                           "abs",
                                           "debug",
                                           "double",
                                           "exp",
                                           "greatest",
                                           "hash_fnv1a",
                                           "hash_murmur2",
                                           "int",
                                           "least",
                                           "ln",
                                           "permute",
                                           "pi",
                                           "pow",
                                           "random",
                                           "random_exponential",
                                           "random_gaussian",
                                           "random_zipfian",
                                           "sqrt",
                                           "&",
                                           "|",
                                           "#",
                                           "<<",
                                           ">>",
                                           "=",
                                           "<>",
                                           "<=",
                                           "<",
                                           "!and",
                                           "!or",
                                           "!not",
                                           "!is",
                                           "!case_end"};
  return NameAt<Func::kCase>(f, kNames);
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
