// expr_fuzzer: libFuzzer target over the expression parser and evaluator
// (\set / \if expressions) and pgbench's string-variable parsing.
//
// Input: an expression, optionally followed by a NUL byte and a string that
// becomes the value of variable :s (as -D, \gset or \setshell would set it),
// so the fuzzer reaches ParseValueString() both directly and through an
// evaluation.  Variables :i :d :b :n :big :min :zero hold typed values and
// :foo :bla :ii :sn :t :f :dd :bad hold the strings of pgbench's own tests.
// The random functions draw from a Prng with a fixed seed, so every run of an
// input is the same; the target evaluates twice from the same seed, through
// both Evaluate() and EvaluateInto(), and checks that the results agree.
// debug() writes to a string, not to stderr.
//
// Checked invariants (abort = crash report): a parse error's offset lies in
// [-1, length]; a parse failure has a message; evaluation is deterministic;
// an evaluation error has a message; ParseValueString() round-trips ints,
// booleans and NULL through AppendValueString().
//
// Stateless between inputs; single-threaded.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "fuzz_check.h"
#include "script/expr.h"
#include "script/prng.h"
#include "script/value.h"
#include "script/variables.h"

namespace {

using pgrig::script::Value;
using pgrig::script::ValueType;

// Same type and payload; NaN equals NaN here (bit-identical determinism).
bool SameValue(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_double()) {
    const double x = a.double_value();
    const double y = b.double_value();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a == b;
}

void CheckValueString(std::string_view s) {
  const std::optional<Value> v = pgrig::script::ParseValueString(s);
  if (!v) return;
  const std::string again = pgrig::script::ValueToString(*v);
  FUZZ_CHECK(!again.empty());
  const std::optional<Value> w = pgrig::script::ParseValueString(again);
  FUZZ_CHECK(w.has_value());
  switch (v->type()) {
    case ValueType::kNull:
    case ValueType::kBool:
    case ValueType::kInt:
      FUZZ_CHECK(SameValue(*v, *w));
      break;
    case ValueType::kDouble:  // "%.15g" may print 1.0 as "1", an int
      FUZZ_CHECK(w->is_double() || w->is_int());
      break;
  }
  (void)pgrig::script::DebugString(*v);
}

struct Outcome {
  bool ok = false;
  Value value;
  std::string error;
  std::string debug;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  const std::string_view s_value = nul == std::string_view::npos ? "12" : input.substr(nul + 1);
  CheckValueString(s_value);

  auto names = std::make_shared<pgrig::script::NameTable>();
  static constexpr const char* kTyped[] = {"i",   "d",   "b",    "n",
                                           "big", "min", "zero", "default_seed"};
  static constexpr const char* kStrings[] = {"foo", "bla", "ii", "sn", "t", "f", "dd", "bad", "s"};
  for (const char* n : kTyped) names->Intern(n);
  for (const char* n : kStrings) names->Intern(n);

  pgrig::script::Expr expr;
  pgrig::script::ExprSyntaxError syntax;
  if (!pgrig::script::ParseExpression(text, *names, &expr, &syntax)) {
    FUZZ_CHECK(!syntax.message.empty());
    FUZZ_CHECK(syntax.offset >= -1 && syntax.offset <= static_cast<int64_t>(text.size()));
    return 0;
  }
  FUZZ_CHECK(!pgrig::script::ExprToString(expr, *names).empty());

  Outcome outcomes[2];
  for (int round = 0; round < 2; round++) {
    pgrig::script::Variables vars(names);
    auto set = [&](const char* name, Value v) { FUZZ_CHECK(vars.SetByName("fuzz", name, v).ok()); };
    set("i", Value::Int(7));
    set("d", Value::Double(2.5));
    set("b", Value::Bool(true));
    set("n", Value::Null());
    set("big", Value::Int(std::numeric_limits<int64_t>::max()));
    set("min", Value::Int(std::numeric_limits<int64_t>::min()));
    set("zero", Value::Int(0));
    set("default_seed", Value::Int(5432));
    auto set_string = [&](const char* name, std::string_view v) {
      FUZZ_CHECK(vars.SetStringByName("fuzz", name, v).ok());
    };
    set_string("foo", "-10.1");
    set_string("bla", "false");
    set_string("ii", "+3");
    set_string("sn", "null");
    set_string("t", "t");
    set_string("f", "of");
    set_string("dd", "1.0");
    set_string("bad", "bla");
    set_string("s", s_value);

    pgrig::script::Prng rng(5432);
    Outcome& o = outcomes[round];
    pgrig::script::EvalContext ctx;
    ctx.variables = &vars;
    ctx.rng = &rng;
    ctx.debug_sink = &o.debug;
    if (round == 0) {
      pgrig::Result<Value> r = pgrig::script::Evaluate(expr, ctx);
      o.ok = r.ok();
      if (r.ok()) {
        o.value = *r;
      } else {
        o.error = r.status().message();
      }
    } else {
      pgrig::Status st;
      o.ok = pgrig::script::EvaluateInto(expr, ctx, &o.value, &st);
      if (!o.ok) o.error = st.message();
    }
    if (!o.ok) FUZZ_CHECK(!o.error.empty());
    if (o.ok) {
      FUZZ_CHECK(!pgrig::script::ValueToString(o.value).empty());
      (void)pgrig::script::DebugString(o.value);
      (void)pgrig::script::ValueTruth(o.value);
      (void)pgrig::script::CoerceToBool(o.value);
      (void)pgrig::script::CoerceToInt(o.value);
      (void)pgrig::script::CoerceToDouble(o.value);
    }
  }
  FUZZ_CHECK(outcomes[0].ok == outcomes[1].ok);
  FUZZ_CHECK(outcomes[0].error == outcomes[1].error);
  FUZZ_CHECK(outcomes[0].debug == outcomes[1].debug);
  if (outcomes[0].ok) FUZZ_CHECK(SameValue(outcomes[0].value, outcomes[1].value));
  return 0;
}
