// expr.h's evaluator: Evaluate() and EvaluateInto() (pgbench's evaluateExpr),
// and pgbench's hash functions and permute().
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <string>
#include <utility>

#include "script/expr.h"
#include "script/pg_format.h"

namespace pgrig::script {

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

  // pgbench's evalStandardFunc: every argument is evaluated first, a NULL
  // argument makes the result NULL (except for IS and debug()), then one
  // function per family computes the value.
  //
  // noinline keeps the code the compiler made of the single function this
  // was: the families inline here and Eval() stays small.  Without it gcc
  // puts all of this into Eval(), whose frame every constant and variable
  // of every expression would then pay for.
  [[gnu::noinline]] bool EvalStandard(const Expr& e, Value* out) {
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
        return EvalArithmetic(e.func, args[0], args[1], out);
      case Func::kBitAnd:
      case Func::kBitOr:
      case Func::kBitXor:
      case Func::kLshift:
      case Func::kRshift:
        return EvalBitwise(e.func, args, out);
      case Func::kNot:
      case Func::kIs:
        return EvalLogic(e.func, args, out);
      case Func::kPi:
      case Func::kAbs:
      case Func::kDouble:
      case Func::kSqrt:
      case Func::kLn:
      case Func::kExp:
      case Func::kInt:
      case Func::kPow:
        return EvalMath(e.func, args, out);
      case Func::kLeast:
      case Func::kGreatest:
        return EvalMinMax(e.func, args, n, out);
      case Func::kRandom:
      case Func::kRandomExponential:
      case Func::kRandomGaussian:
      case Func::kRandomZipfian:
        return EvalRandom(e.func, args, out);
      case Func::kHashFnv1a:
      case Func::kHashMurmur2:
      case Func::kPermute:
        return EvalHash(e.func, args, out);
      case Func::kDebug:
        return EvalDebug(args[0], out);
      default:
        return Fail(Internal(std::string("unexpected function ") + FuncName(e.func)));
    }
  }

  // + - * / % and the comparisons = <> <= < (the parser turns > and >= around).
  bool EvalArithmetic(Func f, const Value& lv, const Value& rv, Value* out) {
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

  // & | # << >>
  bool EvalBitwise(Func f, const Value* args, Value* out) {
    int64_t l, r;
    if (!ToInt(args[0], &l) || !ToInt(args[1], &r)) return false;
    const uint64_t ul = static_cast<uint64_t>(l), ur = static_cast<uint64_t>(r);
    int64_t res = 0;
    switch (f) {
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

  // NOT, and IS (the parser's desugaring of IS [NOT] NULL|TRUE|FALSE).
  bool EvalLogic(Func f, const Value* args, Value* out) {
    if (f == Func::kNot) {
      Result<bool> b = CoerceToBool(args[0]);
      if (!b.ok()) return Fail(b.status());
      *out = Value::Bool(!*b);
      return true;
    }
    const Value& a = args[0];
    const Value& b = args[1];
    bool same = a.type() == b.type();
    if (same && a.is_bool()) same = a.bool_value() == b.bool_value();
    *out = Value::Bool(same);
    return true;
  }

  // pi, abs, int, pow, and double, sqrt, ln, exp.
  bool EvalMath(Func f, const Value* args, Value* out) {
    switch (f) {
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
      case Func::kInt: {
        int64_t i;
        if (!ToInt(args[0], &i)) return false;
        *out = Value::Int(i);
        return true;
      }
      case Func::kPow: {
        double l, r;
        if (!ToDouble(args[0], &l) || !ToDouble(args[1], &r)) return false;
        *out = Value::Double(std::pow(l, r));
        return true;
      }
      default:  // double, sqrt, ln, exp
        break;
    }
    double d;
    if (!ToDouble(args[0], &d)) return false;
    if (f == Func::kSqrt)
      d = std::sqrt(d);
    else if (f == Func::kLn)
      d = std::log(d);
    else if (f == Func::kExp)
      d = std::exp(d);
    *out = Value::Double(d);
    return true;
  }

  // least(), greatest(): double when any argument is a double, else int.
  bool EvalMinMax(Func f, const Value* args, size_t n, Value* out) {
    bool have_double = false;
    for (size_t i = 0; i < n; i++) have_double |= args[i].is_double();
    const bool least = f == Func::kLeast;
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

  // random(), random_exponential(), random_gaussian(), random_zipfian().
  bool EvalRandom(Func f, const Value* args, Value* out) {
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

  // hash_fnv1a(), hash_murmur2() and permute(), the seed made explicit by the
  // parser.
  bool EvalHash(Func f, const Value* args, Value* out) {
    if (f == Func::kPermute) {
      int64_t v, size, seed;
      if (!ToInt(args[0], &v) || !ToInt(args[1], &size) || !ToInt(args[2], &seed)) return false;
      if (size <= 0) return Fail("permute size parameter must be greater than zero");
      *out = Value::Int(Permute(v, size, static_cast<uint64_t>(seed)));
      return true;
    }
    int64_t v, seed;
    if (!ToInt(args[0], &v) || !ToInt(args[1], &seed)) return false;
    *out = Value::Int(f == Func::kHashFnv1a ? HashFnv1a(v, static_cast<uint64_t>(seed))
                                            : HashMurmur2(v, static_cast<uint64_t>(seed)));
    return true;
  }

  // debug(x): prints x in pgbench's form and returns it.
  bool EvalDebug(const Value& arg, Value* out) {
    std::string line = "debug(script=" + std::to_string(ctx_.script_index) +
                       ",command=" + std::to_string(ctx_.command_index + 1) +
                       "): " + DebugString(arg) + "\n";
    if (ctx_.debug_sink != nullptr) {
      ctx_.debug_sink->append(line);
    } else {
      std::fputs(line.c_str(), stderr);
    }
    *out = arg;
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

}  // namespace pgrig::script
