// Compatibility of `pgrig bench` with PostgreSQL's own pgbench (the server's
// bin directory, PostgreSQL 15 here).  Every case runs BOTH programs with the
// same script and arguments against the shared embedded test cluster and
// compares what they print; no case compares against a stored copy of
// pgbench's output, so the suite follows whatever pgbench is installed.
//
// What is compared:
//  - exit status;
//  - the "debug(script=S,command=C): <type> <value>" lines of debug(), in
//    order (with several clients: per client, see ClientStreams());
//  - stderr: after replacing the program name ("pgrig bench" -> "pgbench"),
//    every line pgbench prints must appear in pgrig's stderr in the same
//    order (pgrig may say more, never less);
//  - stdout: pgbench's summary lines up to the latency figures, the same
//    way (pgrig adds lines of its own after them);
//  - for error cases, a substring that both stderrs must contain;
//  - with -d, pgbench's trace lines ("client 0 sending ..."), one to one;
//  - pgrig run under the name "pgbench" (a symlink) against pgbench itself,
//    for -i's refusals and for both modes; --help's headings and options.
// Known mismatches are not skipped: the case fails and names what differs.
// None is known at present (against PostgreSQL 15.18); the differences the
// suite found when it was written have been fixed in pgrig.
//
// The cases are tables of structs (parameterised tests named after the
// case), so a failure says which case and shows both outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/process.h"
#include "support/test_cluster.h"

namespace pgrig {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// Running both programs.

using testing::ConnArgs;

struct Both {
  ProcessResult pgbench;
  ProcessResult pgrig;
};

// Runs `pgbench ARGS CONN` and `pgrig bench ARGS CONN`, one after the other.
Both RunBoth(const std::vector<std::string>& args, const std::string& dbname = "pgrig") {
  std::vector<std::string> full = args;
  for (auto& a : ConnArgs(testing::SharedParams(dbname))) full.push_back(a);
  Both b;
  b.pgbench = testing::RunServerTool("pgbench", full);
  full.insert(full.begin(), "bench");
  b.pgrig = testing::RunPgrig(full);
  return b;
}

// A script file that lives as long as the object (same path for both runs,
// so the paths both programs print are the same).
class TempScript {
 public:
  explicit TempScript(const std::string& text) {
    static std::atomic<int> counter{0};
    path_ = "/tmp/pgrig-compat-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter.fetch_add(1)) + ".sql";
    std::ofstream(path_) << text;
  }
  ~TempScript() { std::remove(path_.c_str()); }
  TempScript(const TempScript&) = delete;
  TempScript& operator=(const TempScript&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------
// Comparing outputs.

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// pgrig names itself "pgrig bench" where pgbench says "pgbench" (getopt's
// complaints use pgbench's full path), and its hints name "pgrig init" for
// pgbench's "pgbench -i".
std::string Normalize(const std::string& text) {
  std::string s = ReplaceAll(ReplaceAll(text, "pgrig bench", "pgbench"), "pgrig: ", "pgbench: ");
  s = ReplaceAll(s, "\"pgrig init\"", "\"pgbench -i\"");
  std::string out;
  for (auto& l : Lines(s)) {
    const auto slash = l.find("/pgbench: ");
    if (!l.empty() && l[0] == '/' && slash != std::string::npos) l = l.substr(slash + 1);
    out += l + "\n";
  }
  return out;
}

std::vector<std::string> DebugLines(const std::string& err) {
  std::vector<std::string> out;
  for (auto& l : Lines(err)) {
    if (l.rfind("debug(", 0) == 0) out.push_back(l);
  }
  return out;
}

// The lines of `want` that are missing from `have` when matched in order
// (an empty result means `want` is a subsequence of `have`).
std::vector<std::string> MissingInOrder(const std::vector<std::string>& want,
                                        const std::vector<std::string>& have) {
  std::vector<std::string> missing;
  size_t j = 0;
  for (const auto& w : want) {
    size_t k = j;
    while (k < have.size() && have[k] != w) ++k;
    if (k == have.size()) {
      missing.push_back(w);
    } else {
      j = k + 1;
    }
  }
  return missing;
}

// pgbench's summary on stdout, without the lines that measure time and the
// version line (which names the program).
std::vector<std::string> SummaryLines(const std::string& out) {
  std::vector<std::string> keep;
  for (auto& l : Lines(Normalize(out))) {
    if (l.rfind("pgbench (", 0) == 0 || l.find("latency ") != std::string::npos ||
        l.rfind("initial connection time", 0) == 0 || l.rfind("tps = ", 0) == 0 ||
        l.rfind("rate limit schedule lag", 0) == 0) {
      continue;
    }
    // Per-script blocks: " - 5 transactions (25.0% of total, tps = ...)".
    const auto tps = l.find(", tps = ");
    keep.push_back(tps == std::string::npos ? l : l.substr(0, tps));
  }
  return keep;
}

std::string Show(const Both& b) {
  return "\n--- pgbench exit " + std::to_string(b.pgbench.exit_code) + ", stderr:\n" +
         b.pgbench.err + "--- stdout:\n" + b.pgbench.out + "--- pgrig exit " +
         std::to_string(b.pgrig.exit_code) + ", stderr:\n" + b.pgrig.err + "--- stdout:\n" +
         b.pgrig.out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += "  " + l + "\n";
  return s;
}

// Every line pgbench wrote to stderr, and its summary on stdout, must also
// come from pgrig, in the same order.
void ExpectSameReport(const Both& b) {
  auto missing_err = MissingInOrder(Lines(Normalize(b.pgbench.err)), Lines(Normalize(b.pgrig.err)));
  EXPECT_TRUE(missing_err.empty()) << "pgbench stderr lines that pgrig did not print (in order):\n"
                                   << Join(missing_err) << Show(b);
  auto missing_out = MissingInOrder(SummaryLines(b.pgbench.out), SummaryLines(b.pgrig.out));
  EXPECT_TRUE(missing_out.empty()) << "pgbench summary lines that pgrig did not print (in order):\n"
                                   << Join(missing_out) << Show(b);
}

// Both programs end with `want`.  Each case states the outcome it expects,
// so that both failing alike (no server, no pgbench) fails the case instead
// of passing as "the same".
void ExpectBothExit(const Both& b, int want) {
  EXPECT_EQ(b.pgbench.exit_code, want) << "pgbench itself" << Show(b);
  EXPECT_EQ(b.pgrig.exit_code, want) << Show(b);
}

void ExpectSameDebug(const Both& b) {
  EXPECT_EQ(DebugLines(b.pgrig.err), DebugLines(b.pgbench.err)) << Show(b);
}

// The -D set of PostgreSQL's own expression test, used by every expression case.
const std::vector<std::string> kDefines = {"-Dfoo=-10.1", "-Dbla=false", "-Di=+3", "-Dn=null",
                                           "-Dt=t",       "-Df=of",      "-Dd=1.0"};

std::vector<std::string> ScriptArgs(const TempScript& s, std::vector<std::string> extra) {
  std::vector<std::string> a = {"-n"};
  a.insert(a.end(), extra.begin(), extra.end());
  a.insert(a.end(), {"-f", s.path()});
  return a;
}

// gtest parameter names allow only [A-Za-z0-9_].
template <typename T>
std::string CaseName(const ::testing::TestParamInfo<T>& info) {
  return info.param.name;
}

// ---------------------------------------------------------------------------
// 1. Expression results: one debug() line each, exact text.

struct ExprCase {
  std::string name;
  std::string expr;        // argument of debug()
  std::string setup = "";  // script lines before it
  // What PostgreSQL's tests document for pgbench ("int 4"), checked against
  // pgbench itself as a guard on the case; empty for cases that only compare.
  std::string documented = "";
};

std::ostream& operator<<(std::ostream& os, const ExprCase& c) { return os << c.name; }

const std::vector<ExprCase> kExprCases = {
    // The vectors of PostgreSQL's expression test.
    {"abs", "abs(-4)", "", "int 4"},
    {"greatest_int", "greatest(5,4,3,2)", "", "int 5"},
    {"least_plus", "11 + least(-5,-4,-3,-2)", "", "int 6"},
    {"int_of_double", "int(7.3)", "", "int 7"},
    {"div_or_shift", "17 / (4|1) + ( 4 + (7 >> 2))", "", "int 8"},
    {"unary_tilde_mod", "- (3 * 4 - (-(~ 1) + -(~ 0))) / -1 + 3 % -1", "", "int 9"},
    {"zero_arith", "10 + (0 + 0 * 0 - 0 / 1)", "", "int 10"},
    {"bitwise_precedence", "64 % (((2 + 1 * 2 + (1 # 2) | 4 * (2 & 11)) - (1 << 2)) + 2)", "",
     "int 12"},
    {"pi", "pi() * 4.9", "", "double 15.3"},
    {"case_insensitive_functions", "greatest(4, 2, -1.17) * 4.0 * Ln(Exp(1.0))", "", "double 16"},
    {"double_div_by_zero_inf", "least(-5.18, .0E0, 1.0/0) * -3.3", "", "double 17.094"},
    {"pow_int_int", "pow(-3,3)", "", "double -27"},
    {"pow_double", "pow(2.0,10)", "", "double 1024"},
    {"pow_zero_zero", "pow(0,0)", "", "double 1"},
    {"pow_zero_zero_double", "pow(0.0,0.0)", "", "double 1"},
    {"pow_negative", "pow(-2,-3)", "", "double -0.125"},
    {"power_negative", "power(-5.0,-5.0)", "", "double -0.00032"},
    {"pow_big", "pow(9223372036854775807, 2)", "", "double 8.50705917302346e+37"},
    {"pow_ten_thirty", "pow(10,30)", "", "double 1e+30"},
    {"double_eq_and", "1.0 = 0.0 and 1.0 != 0.0", "", "boolean false"},
    {"eq_or", "0 = 1 Or 1.0 = 1", "", "boolean true"},
    {"case_int", "case when 0 < 1 then 32 else 0 end", "", "int 32"},
    {"case_true", "case when true then 33 else 0 end", "", "int 33"},
    {"case_double", "case when false THEN -1 when 1 = 1 then 13 + 19 + 2.0 end", "", "double 34"},
    {"case_not_false", "CASE WHEN NOT FALSE THEN 3 * 12.3333334 END", "", "double 37.0000002"},
    {"case_else", "case when false then 0 when 1-1 <> 0 then 1 else 38 end", "", "int 38"},
    {"mod_sign", "10 + mod(13 * 7 + 12, 13) - mod(-19 * 11 - 17, 19)", "", "int 39"},
    {"null_propagation", "NULL + NULL * exp(NULL)", "", "null"},
    {"is_not_null", "NOT (:n0 IS NOT NULL OR :d1 IS NULL)", "\\set n0 NULL\n\\set d1 false\n",
     "boolean true"},
    {"isnull_is_true", ":n0 ISNULL AND NOT :n0 IS TRUE AND :n0 IS NOT FALSE", "\\set n0 NULL\n",
     "boolean true"},
    {"defined_null", "CASE WHEN :n IS NULL THEN 46 ELSE NULL END", "", "int 46"},
    {"defined_prefix_booleans", ":n IS NULL AND NOT :f AND :t", "", "boolean true"},
    {"case_truth_of_numbers",
     "CASE WHEN 1 THEN TRUE END AND CASE WHEN 1.0 THEN TRUE END AND CASE WHEN :n THEN NULL ELSE "
     "TRUE END",
     "", "boolean true"},
    {"hash_default_seed", "hash(10) = hash(10, :default_seed)", "", "boolean true"},
    {"lazy_case", "case when :zy = 0 then -1 else (1 / :zy) end", "\\set zy 0\n", "int -1"},
    {"lazy_and", ":zy <> 0 AND 1 / :zy = 1", "\\set zy 0\n", "boolean false"},
    {"lazy_or", ":zy = 0 OR 1 / :zy = 1", "\\set zy 0\n", "boolean true"},
    {"int_min", "-9223372036854775808", "", "int -9223372036854775808"},
    {"int_max_from_min", "-(:min + 1)", "\\set min -9223372036854775808\n",
     "int 9223372036854775807"},
    {"permute_size2", "permute(0,2)+permute(1,2) = 1", "", "boolean true"},
    {"permute_size3", "permute(0,3)+permute(1,3)+permute(2,3) = 3", "", "boolean true"},
    {"permute_size4", "permute(0,4)+permute(1,4)+permute(2,4)+permute(3,4) = 6", "",
     "boolean true"},
    {"permute_size5", "permute(0,5)+permute(1,5)+permute(2,5)+permute(3,5)+permute(4,5) = 10", "",
     "boolean true"},
    {"permute_size1", "permute(:v, 1)", "\\set v 7\n", "int 0"},
    {"permute_seed5431_0", "permute(0, 2, 5431)", "", "int 0"},
    {"permute_seed5431_1", "permute(1, 2, 5431)", "", "int 1"},
    {"permute_seed5433_0", "permute(0, 2, 5433)", "", "int 1"},
    {"permute_seed5433_1", "permute(1, 2, 5433)", "", "int 0"},
    // -D values: strings parsed on use.
    {"define_double", ":foo", "", "double -10.1"},
    {"define_false", ":bla", "", "boolean false"},
    {"define_plus_int", ":i", "", "int 3"},
    {"define_null", ":n", "", "null"},
    {"define_t", ":t", "", "boolean true"},
    {"define_of", ":f", "", "boolean false"},
    {"define_double_one", ":d", "", "double 1"},
    {"define_arith", ":foo * 2 + :i", "", ""},
    // Precedence and associativity.
    {"prec_mul_add", "2 + 3 * 4 - 6 / 4"},
    {"prec_left_assoc_sub", "7 - 3 - 2"},
    {"prec_left_assoc_div", "100 / 7 / 2"},
    {"prec_shift_below_add", "1 << 3 + 1"},
    {"prec_bitwise_same_level", "5 & 3 | 8 # 1"},
    {"prec_unary_minus_mul", "-2 * -3 % 4"},
    {"prec_tilde", "~0 # -1"},
    {"prec_not_or", "NOT true OR true"},
    {"prec_and_or", "true AND false OR true"},
    {"prec_is_true", "1 = 1 IS TRUE"},
    {"prec_compare_arith", "1 + 1 < 3 AND 2 * 2 >= 4"},
    {"prec_not_compare", "NOT 1 > 2"},
    {"prec_notnull", "5 NOTNULL"},
    // Typing and coercion.
    {"int_div_trunc", "-7 / 2"},
    {"int_mod_negative", "7 % -3"},
    {"int_mod_negative_dividend", "-7 % 3"},
    {"mixed_div", "7 / 2.0"},
    {"mixed_add", "1 + 2.5"},
    {"mixed_compare", "3 = 3.0"},
    {"mixed_ne", "3 <> 3.000001"},
    {"int_rounds_half_even_down", "int(2.5)"},
    {"int_rounds_half_even_up", "int(3.5)"},
    {"int_rounds_negative", "int(-7.9)"},
    {"int_rounds_negative_half", "int(-2.5)"},
    {"double_of_int", "double(3)"},
    {"double_of_define", "double(:i)"},
    {"greatest_mixed", "greatest(1, 2.5, 2)"},
    {"least_mixed_int_wins", "least(3, 2, 2.5)"},
    {"abs_double", "abs(-2.5)"},
    {"abs_define", "abs(:foo)"},
    {"mod_int", "mod(-7, 3)"},
    {"bool_literal", "true"},
    {"null_literal", "NULL"},
    {"not_null", "NOT NULL"},
    {"null_and_false", "NULL AND false"},
    {"null_and_true", "NULL AND true"},
    {"null_or_true", "NULL OR true"},
    {"null_or_false", "NULL OR false"},
    {"null_eq", "NULL = 1"},
    {"null_abs", "abs(NULL)"},
    {"is_null_false", "1 IS NULL"},
    {"case_no_else_null", "CASE WHEN false THEN 1 END"},
    {"case_null_condition", "CASE WHEN NULL THEN 1 ELSE 2 END"},
    // Integer edges.
    {"int_max_plus_zero", "9223372036854775807 + 0"},
    {"int_min_mod_minus_one", "-9223372036854775808 % -1"},
    {"int_max_to_double", "9223372036854775807 * 1.0"},
    {"shift_62", "1 << 62"},
    {"shift_right_negative", "-16 >> 2"},
    {"int_big_double_to_int", "int(9.2e18)"},
    // Double formatting (%.15g).
    {"fmt_third", "1.0 / 3"},
    {"fmt_point_three", "0.1 + 0.2"},
    {"fmt_1e15", "1e15"},
    {"fmt_1e16", "1e16"},
    {"fmt_small", "1.5e-7"},
    {"fmt_minus_zero", "-0.0"},
    {"fmt_minus_zero_mul", "0.0 * -1"},
    {"fmt_big_literal", "123456789012345678.0"},
    {"fmt_neg_inf", "-1.0 / 0"},
    {"fmt_nan", "0.0 / 0"},
    {"fmt_sqrt_negative", "sqrt(-1)"},
    {"fmt_ln_zero", "ln(0)"},
    {"fmt_exp_overflow", "exp(1000)"},
    {"fmt_sqrt2", "sqrt(2)"},
    {"fmt_exp1", "exp(1)"},
    {"fmt_dot_five", ".5"},
    {"fmt_exponent_forms", "1E+2 + 1e-2"},
    // Hash functions: deterministic, several seeds.
    {"hash_zero", "hash(0)"},
    {"hash_minus_one", "hash(-1)"},
    {"hash_max_seed0", "hash(9223372036854775807, 0)"},
    {"hash_seed1", "hash(1, 1)"},
    {"hash_seed_minus1", "hash(1, -1)"},
    {"hash_double_arg", "hash(1.5)"},
    {"fnv1a_zero_zero", "hash_fnv1a(0, 0)"},
    {"fnv1a_seed42", "hash_fnv1a(123456789, 42)"},
    {"fnv1a_negative", "hash_fnv1a(-5)"},
    {"fnv1a_min_seed", "hash_fnv1a(-9223372036854775808, 9223372036854775807)"},
    {"murmur2_zero", "hash_murmur2(0)"},
    {"murmur2_one_seed0", "hash_murmur2(1, 0)"},
    {"murmur2_min_seed7", "hash_murmur2(-9223372036854775808, 7)"},
    {"murmur2_seed_minus1", "hash_murmur2(987654321, -1)"},
    {"hash_is_murmur2", "hash(77, 5) = hash_murmur2(77, 5)"},
    // permute: several sizes and seeds.
    {"permute_10_first", "permute(0, 10)"},
    {"permute_10_last", "permute(9, 10)"},
    {"permute_10_seed0", "permute(3, 10, 0)"},
    {"permute_10_seed_minus1", "permute(3, 10, -1)"},
    {"permute_million", "permute(12345, 1000000, 42)"},
    {"permute_huge_size", "permute(5, 9223372036854775807, 3)"},
    {"permute_odd_size", "permute(1000, 1001, 99)"},
    {"permute_below_range", "permute(-1, 10, 1)"},
    {"permute_above_range", "permute(15, 10, 1)"},
    {"permute_size16_sum",
     "permute(0,16)+permute(1,16)+permute(2,16)+permute(3,16)+permute(4,16)+permute(5,16)+"
     "permute(6,16)+permute(7,16)+permute(8,16)+permute(9,16)+permute(10,16)+permute(11,16)+"
     "permute(12,16)+permute(13,16)+permute(14,16)+permute(15,16)",
     "", "int 120"},
    // Automatic variables.
    {"auto_random_seed", ":random_seed"},
    {"auto_default_seed", ":default_seed"},
    {"auto_client_id", ":client_id"},
    {"auto_scale", ":scale"},
    // Random functions under --random-seed=5432 (first draw of client 0).
    {"random_small", "random(1, 10)"},
    {"random_single", "random(7, 7)"},
    {"random_widest", "random(-4611686018427387904, 4611686018427387902)"},
    {"random_big", "random(0, 1000000000000)"},
    {"random_exponential", "random_exponential(1, 100, 2.5)"},
    {"random_exponential_tiny", "random_exponential(1, 1000, 0.001)"},
    {"random_gaussian", "random_gaussian(1, 100, 2.0)"},
    {"random_gaussian_wide", "random_gaussian(-1000, 1000, 10.0)"},
    {"random_zipfian", "random_zipfian(1, 100, 1.5)"},
    {"random_zipfian_low", "random_zipfian(1, 1000000, 1.001)"},
    {"random_zipfian_high", "random_zipfian(1, 10, 1000)"},
    {"random_double_bounds", "random(1.9, 5.1)"},
};

class ExprTest : public ::testing::TestWithParam<ExprCase> {};

TEST_P(ExprTest, SameDebugLine) {
  const ExprCase& c = GetParam();
  TempScript s(c.setup + "\\set r debug(" + c.expr + ")\n");
  std::vector<std::string> extra = {"-t", "1", "-c", "1", "--random-seed=5432"};
  extra.insert(extra.end(), kDefines.begin(), kDefines.end());
  Both b = RunBoth(ScriptArgs(s, extra));
  ExpectBothExit(b, 0);
  ExpectSameDebug(b);
  ExpectSameReport(b);
  auto lines = DebugLines(b.pgbench.err);
  ASSERT_FALSE(lines.empty()) << Show(b);
  if (!c.documented.empty()) {
    EXPECT_THAT(lines.back(), HasSubstr("): " + c.documented)) << "pgbench itself" << Show(b);
  }
}

INSTANTIATE_TEST_SUITE_P(Compat, ExprTest, ::testing::ValuesIn(kExprCases), CaseName<ExprCase>);

// ---------------------------------------------------------------------------
// 2. String variables (-D, \gset, \setshell store strings): how they read as
// numbers, booleans and null.

struct DefineCase {
  std::string name;
  std::string value;  // -Dv=<value>
  int exit_code = 0;  // of both: 2 when the value is not a number, boolean or null
};

std::ostream& operator<<(std::ostream& os, const DefineCase& c) { return os << c.name; }

const std::vector<DefineCase> kDefineCases = {
    {"plus_int", "+3"},
    {"minus_double", "-10.1"},
    {"null_word", "null"},
    {"null_upper", "NULL"},
    {"null_prefix_nu", "nu", 2},
    {"null_prefix_n", "n"},
    {"t", "t"},
    {"true_upper", "TRUE"},
    {"yes", "yes"},
    {"y", "y"},
    {"on", "on"},
    {"of", "of"},
    {"off", "off"},
    {"f", "f"},
    {"no", "no"},
    {"double_one", "1.0"},
    {"exponent", "1e3"},
    {"hex", "0x10"},
    {"spaces", " 7 ", 2},
    {"int_max", "9223372036854775807"},
    {"int_over", "9223372036854775808", 2},
    {"int_min", "-9223372036854775808"},
    {"inf", "inf"},
    {"minus_infinity", "-Infinity"},
    {"nan", "nan"},
    {"two_dots", "1.5.5", 2},
    {"trailing_junk", "12abc", 2},
    {"o_alone", "o", 2},
    {"tr", "tr"},
    {"leading_zeros", "007"},
};

class DefineTest : public ::testing::TestWithParam<DefineCase> {};

TEST_P(DefineTest, SameValueOrSameError) {
  const DefineCase& c = GetParam();
  TempScript s("\\set r debug(:v)\n");
  Both b = RunBoth(ScriptArgs(s, {"-t", "1", "-Dv=" + c.value}));
  ExpectBothExit(b, c.exit_code);
  ExpectSameDebug(b);
  ExpectSameReport(b);
}

INSTANTIATE_TEST_SUITE_P(Compat, DefineTest, ::testing::ValuesIn(kDefineCases),
                         CaseName<DefineCase>);

// ---------------------------------------------------------------------------
// 3. Random streams: several seeds, clients and transactions.  Each client's
// draws are attributed to it by a tag drawn in the same meta-command (one
// meta-command's debug lines are never split, since -j 1 runs every client
// in one thread), so the streams compare per client whatever order the
// programs interleave clients in.

constexpr int64_t kTagBase = -987654000;

std::map<int64_t, std::vector<std::string>> ClientStreams(const std::string& err) {
  std::map<int64_t, std::vector<std::string>> streams;
  int64_t client = -1;
  const std::string tag_prefix = "): int ";
  for (const auto& l : DebugLines(err)) {
    auto pos = l.find(tag_prefix);
    if (pos != std::string::npos) {
      const std::string v = l.substr(pos + tag_prefix.size());
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (*end == '\0' && n <= kTagBase && n > kTagBase - 1000) {
        client = kTagBase - n;
        continue;
      }
    }
    streams[client].push_back(l);
  }
  return streams;
}

// least() evaluates every argument, left to right, in one meta-command.
std::string Tagged(const std::vector<std::string>& draws) {
  std::string e = "least(debug(" + std::to_string(kTagBase) + " - :client_id)";
  for (const auto& d : draws) e += ", debug(" + d + ")";
  return e + ")";
}

struct RandomCase {
  std::string name;
  std::vector<std::vector<std::string>> commands;  // draws per meta-command
  std::vector<std::string> args;                   // -c/-t/--random-seed
};

std::ostream& operator<<(std::ostream& os, const RandomCase& c) { return os << c.name; }

const std::vector<std::vector<std::string>> kMixedDraws = {
    {"random(1, 100000)", "random(-5, 5)", "random(0, 9223372036854775806)"},
    {"random_exponential(1, 1000, 3.0)", "random_gaussian(1, 1000, 4.0)",
     "random_zipfian(1, 1000, 1.07)"},
    {"random_zipfian(1, 50, 2.5)", "random(1.5, 9.5)", "random_exponential(-100, 100, 0.5)"},
    {"permute(random(0, 99), 100, :default_seed)", "hash(random(1, 10))"},
};

const std::vector<RandomCase> kRandomCases = {
    {"seed5432_c1_t3", kMixedDraws, {"-c", "1", "-t", "3", "--random-seed=5432"}},
    {"seed5432_c2_t3", kMixedDraws, {"-c", "2", "-t", "3", "--random-seed=5432"}},
    {"seed0_c3_t2", kMixedDraws, {"-c", "3", "-t", "2", "--random-seed=0"}},
    {"seed1_c2_t4", kMixedDraws, {"-c", "2", "-t", "4", "--random-seed=1"}},
    {"seed_u64max_c2_t2",
     kMixedDraws,
     {"-c", "2", "-t", "2", "--random-seed=18446744073709551615"}},
    {"seed42_c4_j1_t2", kMixedDraws, {"-c", "4", "-j", "1", "-t", "2", "--random-seed=42"}},
    {"seed_env_style_c2", kMixedDraws, {"-c", "2", "-t", "2", "--random-seed=123456789"}},
    {"zipfian_many",
     {{"random_zipfian(1, 10, 1.01)", "random_zipfian(1, 10, 1.01)", "random_zipfian(1, 10, 1.01)",
       "random_zipfian(1, 10, 1.01)", "random_zipfian(1, 10, 1.01)", "random_zipfian(1, 10, 1.01)",
       "random_zipfian(1, 1000000000, 1.2)", "random_zipfian(1, 1000000000, 1.2)",
       "random_zipfian(5, 5, 3.0)"}},
     {"-c", "2", "-t", "3", "--random-seed=77"}},
    {"gaussian_many",
     {{"random_gaussian(1, 10, 2.0)", "random_gaussian(1, 10, 2.0)", "random_gaussian(1, 10, 20.0)",
       "random_gaussian(-1000000000000, 1000000000000, 2.5)"}},
     {"-c", "2", "-t", "3", "--random-seed=78"}},
    {"exponential_many",
     {{"random_exponential(1, 10, 0.1)", "random_exponential(1, 10, 10.0)",
       "random_exponential(1, 1000000000000, 5.0)"}},
     {"-c", "2", "-t", "3", "--random-seed=79"}},
    {"seeds_are_per_client",
     {{":default_seed", ":random_seed", "random(1, 1000000)"}},
     {"-c", "3", "-t", "1", "--random-seed=5"}},
};

class RandomTest : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomTest, SameDrawsPerClient) {
  const RandomCase& c = GetParam();
  std::string text;
  for (size_t i = 0; i < c.commands.size(); i++) {
    text += "\\set r" + std::to_string(i) + " " + Tagged(c.commands[i]) + "\n";
  }
  TempScript s(text);
  Both b = RunBoth(ScriptArgs(s, c.args));
  ExpectBothExit(b, 0);
  auto want = ClientStreams(b.pgbench.err);
  auto have = ClientStreams(b.pgrig.err);
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(have, want) << Show(b);
  ExpectSameReport(b);
}

INSTANTIATE_TEST_SUITE_P(Compat, RandomTest, ::testing::ValuesIn(kRandomCases),
                         CaseName<RandomCase>);

// ---------------------------------------------------------------------------
// 4. Scripts with SQL and meta-commands, errors at parse time (exit 1) and
// at run time (exit 2).  All compare exit, debug lines and the report.

struct ScriptCase {
  std::string name;
  std::string script;
  int exit_code;                       // expected of both
  std::string substring = "";          // both stderrs contain it
  std::vector<std::string> args = {};  // extra options (default -t 1)
};

std::ostream& operator<<(std::ostream& os, const ScriptCase& c) { return os << c.name; }

std::string ManyArgs(int n) {
  std::string s;
  for (int i = 0; i < n; i++) s += " a";
  return s;
}

std::string LeastOf(int n) {
  std::string s = "least(";
  for (int i = 0; i < n; i++) s += (i ? ", " : "") + std::to_string(i);
  return s + ")";
}

const std::vector<ScriptCase> kScriptCases = {
    // Meta-command behaviours that succeed.
    {"setshell_echo_variable",
     "\\set one 1.0\n\\setshell another_one echo :one\n\\set r debug(:another_one)\n", 0},
    {"setshell_literal", "\\setshell v echo 42\n\\set r debug(:v + 1)\n", 0},
    {"setshell_negative", "\\setshell v echo -17\n\\set r debug(:v)\n", 0},
    {"shell_true", "\\shell true\n\\set r debug(1)\n", 0},
    {"shell_colon_escape", "\\setshell v echo ::x\n\\set r debug(1)\n", 2},
    {"sleep_variable_ms", "\\set one 1\n\\sleep :one ms\n\\set r debug(1)\n", 0},
    {"sleep_us", "\\sleep 100 us\n\\set r debug(1)\n", 0},
    {"sleep_zero_s", "\\sleep 0 s\n\\set r debug(1)\n", 0},
    {"sleep_variable_default_unit", "\\set zero 0\n\\sleep :zero\n\\set r debug(1)\n", 0},
    {"sleep_string_variable", "\\sleep :v ms\n\\set r debug(1)\n", 0, "", {"-t", "1", "-Dv=2"}},
    {"gset_no_columns", "SELECT \\gset\n\\set r debug(1)\n", 0},
    {"gset_duplicate_column", "SELECT 0 AS i4, 4 AS i4 \\gset\n\\set r debug(:i4)\n", 0},
    {"gset_compound",
     "\\; \\; SELECT 0 AS i5 \\; SELECT 5 AS i5 \\; \\; \\gset\n\\set r debug(:i5)\n", 0},
    {"gset_prefix", "SELECT 1 AS a, 2.5 AS b \\gset p_\n\\set r debug(:p_a + :p_b)\n", 0},
    {"gset_types",
     "SELECT 7 AS i, 2.5 AS d, true AS b, false AS bf, 'yes' AS y \\gset\n"
     "\\set r debug(:i)\n\\set r debug(:d)\n\\set r debug(:b)\n\\set r debug(:bf)\n"
     "\\set r debug(:y)\n",
     0},
    // pgbench 15 fails to evaluate a variable \gset from SQL NULL, silently.
    {"gset_null", "SELECT NULL AS nn \\gset\n\\set r debug(:nn)\n", 2},
    {"gset_text_is_malformed", "SELECT 'abc' AS s \\gset\n\\set r debug(:s)\n", 2,
     "malformed variable \"s\" value: \"abc\""},
    {"aset_compound", "SELECT 7 AS x \\; SELECT 8 AS y \\aset\n\\set r debug(:x * 10 + :y)\n", 0},
    {"aset_no_rows_leaves_unset",
     "\\set z 3\nSELECT 1 AS z WHERE false \\aset\n\\set r debug(:z)\n", 0},
    {"aset_last_row_wins", "SELECT g AS w FROM generate_series(1, 3) g \\aset\n\\set r debug(:w)\n",
     0},
    {"sql_variable_interpolation", "\\set x 41\nSELECT :x + 1 AS y \\gset\n\\set r debug(:y)\n", 0},
    {"sql_variable_interpolation_extended",
     "\\set x 41\nSELECT :x::int + 1 AS y \\gset\n\\set r debug(:y)\n",
     0,
     "",
     {"-t", "1", "-M", "extended"}},
    {"sql_variable_interpolation_prepared",
     "\\set x 41\nSELECT :x::int + 1 AS y \\gset\n\\set r debug(:y)\n",
     0,
     "",
     {"-t", "2", "-M", "prepared"}},
    {"if_elif_else",
     "\\set a 2\n\\if :a = 1\n\\set r debug(1)\n\\elif :a = 2\n\\set r debug(2)\n\\else\n"
     "\\set r debug(3)\n\\endif\n\\set r debug(4)\n",
     0},
    {"if_null_is_false", "\\if NULL\n\\set r debug(1)\n\\else\n\\set r debug(2)\n\\endif\n", 0},
    {"if_double_truth", "\\if 0.0\n\\set r debug(1)\n\\elif 0.5\n\\set r debug(2)\n\\endif\n", 0},
    {"if_nested",
     "\\if true\n\\if false\n\\set r debug(1)\n\\else\n\\set r debug(2)\n\\endif\n\\else\n"
     "\\set r debug(3)\n\\endif\n",
     0},
    {"if_skips_sql", "\\if false\nSELECT 1/0;\n\\endif\n\\set r debug(5)\n", 0},
    {"pipeline_ok",
     "\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\n\\set r debug(1)\n",
     0,
     "",
     {"-t", "2", "-M", "extended"}},
    {"pipeline_prepared",
     "\\startpipeline\nSELECT :client_id;\n\\endpipeline\n",
     0,
     "",
     {"-t", "2", "-M", "prepared"}},
    {"transaction_block", "BEGIN;\nSELECT 1;\nEND;\n\\set r debug(1)\n", 0, "", {"-t", "3"}},
    {"comments_and_blank_lines",
     "-- comment\n\n\\set r debug(1)\nSELECT 1; -- trailing\n\n-- end\n", 0},
    {"multi_line_sql", "SELECT\n  1\n  AS one\n\\gset\n\\set r debug(:one)\n", 0},
    {"set_continuation", "\\set r debug(1 + \\\n 2)\n", 0},
    {"client_id_per_client",
     "\\set r debug(:client_id * 10 + :scale)\n",
     0,
     "",
     {"-t", "1", "-c", "1", "-s", "7"}},
    // Meta-command and SQL failures.
    {"gset_two_rows", "SELECT 5432 AS fail UNION SELECT 5433 ORDER BY 1 \\gset\n", 2,
     "expected one row, got 2"},
    {"end_of_script_in_transaction", "BEGIN;\nSELECT 1;\n", 2,
     "end of script reached without completing the last transaction"},
    {"pipeline_twice",
     "\\startpipeline\n\\startpipeline\n",
     2,
     "already in pipeline mode",
     {"-t", "1", "-M", "extended"}},
    {"endpipeline_alone",
     "\\endpipeline\n",
     2,
     "not in pipeline mode",
     {"-t", "1", "-M", "extended"}},
    {"gset_in_pipeline",
     "\\startpipeline\nSELECT 1 \\gset\n\\endpipeline\n",
     2,
     "gset is not allowed in pipeline mode",
     {"-t", "1", "-M", "extended"}},
    {"pipeline_simple_protocol", "\\startpipeline\nSELECT 1;\n\\endpipeline\n", 2,
     "cannot use pipeline mode with the simple query protocol"},
    {"pipeline_left_open", "\\startpipeline\nSELECT 1;\n", 2, "", {"-t", "1", "-M", "extended"}},
    // An error inside a pipeline belongs to \\endpipeline, which reads it.
    {"pipeline_error_is_endpipelines",
     "\\startpipeline\nSELECT 1;\nSELECT 1/0;\nSELECT 2;\n\\endpipeline\n",
     2,
     "aborted in command 4 query 0: ERROR:  division by zero",
     {"-t", "1", "-M", "prepared"}},
    {"sql_syntax_error", "SELECT 1 + ;\n", 2, "ERROR:  syntax error"},
    {"sql_undefined_variable_left_in_text", "SELECT :nosuch;\n", 2, ""},
    {"sql_undefined_variable_prepared", "SELECT :nosuch;\n", 0, "", {"-t", "1", "-M", "prepared"}},
    {"sql_division_by_zero", "SELECT 1/0;\n", 2, "division by zero"},
    // Server errors and notices as the lean path formats them (pg/wire.h):
    // the caret line in each query mode, cut long lines, later lines,
    // tabs, wide characters, DETAIL/HINT/CONTEXT, internal queries.
    {"wire_error_caret_simple", "SELECT * FROM no_such_table_pgrig_wire;\n", 2, "LINE 1: "},
    {"wire_error_caret_extended",
     "\\set x 3\nSELECT :x, * FROM no_such_table_pgrig_wire;\n",
     2,
     "LINE 1: ",
     {"-t", "1", "-M", "extended"}},
    {"wire_error_prepared_no_caret",
     "\\set x 3\nSELECT :x, no_such_column_pgrig;\n",
     2,
     "does not exist",
     {"-t", "1", "-M", "prepared"}},
    {"wire_error_long_line_cut_both_sides",
     "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f, 7 AS g, 8 AS h, 9 AS i, "
     "no_such_column_x, 10 AS j, 11 AS k, 12 AS l, 13 AS m, 14 AS n, 15 AS o;\n",
     2, "..."},
    {"wire_error_long_line_cut_right",
     "SELECT no_such_column_x, 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f, 7 AS g, 8 AS h, "
     "9 AS i, 10 AS j;\n",
     2, "..."},
    {"wire_error_later_line_and_tabs", "SELECT 1,\n\t2,\r\n\tno_such_column_y;\n", 2, "LINE 3: "},
    {"wire_error_wide_characters", "SELECT 'été', '日本語', no_such_column_z;\n", 2, "LINE 1: "},
    {"wire_error_detail_hint_context",
     "DO $$ BEGIN RAISE EXCEPTION 'boom' USING DETAIL = 'the detail', HINT = 'the hint'; END $$;\n",
     2, "CONTEXT:  "},
    {"wire_error_internal_query", "DO $$ BEGIN PERFORM no_such_column_q FROM pg_class; END $$;\n",
     2, "QUERY:  "},
    {"wire_error_in_second_query", "SELECT 1 \\; SELECT 1/0;\n", 2,
     "query 1: ERROR:  division by zero"},
    {"wire_notice",
     "DO $$ BEGIN RAISE NOTICE 'hello % times', 3; END $$;\nSELECT 1;\n",
     0,
     "NOTICE:  hello 3 times",
     {"-t", "2"}},
    {"wire_notice_extended",
     "DO $$ BEGIN RAISE NOTICE 'hi' USING DETAIL = 'more'; END $$;\n",
     0,
     "DETAIL:  more",
     {"-t", "1", "-M", "extended"}},
    {"wire_empty_query", ";\n\\set r debug(1)\n", 0},
    {"shell_no_such_command", "\\shell no-such-command\n", 2, "meta-command failed"},
    {"shell_undefined_variable", "\\shell echo ::foo :nosuchvariable\n", 2,
     "undefined variable \":nosuchvariable\""},
    {"shell_missing_command", "\\shell\n", 1, "missing command"},
    {"shell_too_many_args", "\\shell echo" + ManyArgs(255) + "\n", 1,
     "too many arguments in command \"shell\""},
    {"set_syntax_error", "\\set i 1 +\n", 1, "syntax error in command \"set\""},
    {"set_unknown_function", "\\set i noSuchFunction()\n", 1, "unexpected function name"},
    {"set_invalid_variable_name", "\\set . 1\n", 2, "invalid variable name"},
    {"set_division_by_zero", "\\set i 1/0\n", 2, "division by zero"},
    {"set_modulo_by_zero", "\\set i 1 % 0\n", 2, "division by zero"},
    {"set_mod_function_by_zero", "\\set i mod(5, 0)\n", 2, "division by zero"},
    {"set_undefined_variable", "\\set i :nosuchvariable\n", 2,
     "undefined variable \"nosuchvariable\""},
    {"set_unexpected_character", "\\set i ;\n", 1, "unexpected character"},
    {"set_too_many_function_args", "\\set i " + LeastOf(17) + "\n", 2,
     "too many function arguments"},
    {"set_sixteen_function_args", "\\set i debug(" + LeastOf(16) + ")\n", 0},
    {"random_empty_range", "\\set i random(5,3)\n", 2, "empty range given to random"},
    {"random_range_too_large",
     "\\set i random(:minint, :maxint)\n",
     2,
     "random range is too large",
     {"-t", "1", "-Dminint=-9223372036854775808", "-Dmaxint=9223372036854775807"}},
    {"gaussian_parameter", "\\set i random_gaussian(0, 10, 1.0)\n", 2,
     "gaussian parameter must be at least 2.000000 (not 1.000000)"},
    {"zipfian_parameter_low", "\\set i random_zipfian(0, 10, 1)\n", 2,
     "zipfian parameter must be in range [1.001, 1000]"},
    {"zipfian_parameter_high", "\\set i random_zipfian(0, 10, 1000000)\n", 2,
     "zipfian parameter must be in range [1.001, 1000]"},
    {"exponential_parameter", "\\set i random_exponential(1, 10, 0)\n", 2,
     "exponential parameter must be greater than zero"},
    {"malformed_define",
     "\\set i :foo + 1\n",
     2,
     "malformed variable \"foo\" value: \"bla\"",
     {"-t", "1", "-Dfoo=bla"}},
    {"set_no_expression", "\\set i\n", 1, "syntax error"},
    {"set_no_argument", "\\set\n", 1, "missing argument"},
    {"not_of_double", "\\set b NOT 0.0\n", 2, "cannot coerce double to boolean"},
    {"bool_plus_int", "\\set i TRUE + 2\n", 2, "cannot coerce boolean to int"},
    {"case_without_when", "\\set i CASE TRUE THEN 1 ELSE 0 END\n", 1,
     "syntax error in command \"set\""},
    {"random_of_booleans", "\\set b random(FALSE, TRUE)\n", 2, "cannot coerce boolean to int"},
    {"ln_two_args", "\\set d ln(1.0, 2.0))\n", 1, "unexpected number of arguments"},
    {"int_of_huge_double", "\\set i int(1E32)\n", 2, "double to int overflow for 100"},
    {"int_of_nan", "\\set i int(0.0/0)\n", 2, "double to int overflow"},
    {"int_of_big_negative", "\\set i int(-9.3e18)\n", 2, "double to int overflow"},
    {"bigint_add_overflow", "\\set i (1<<62) + (1<<62)\n", 2, "bigint add out of range"},
    {"bigint_sub_overflow", "\\set i 0 - (1<<62) - (1<<62) - (1<<62)\n", 2,
     "bigint sub out of range"},
    {"bigint_mul_overflow", "\\set i 3037000500 * 3037000500\n", 2, "bigint mul out of range"},
    {"bigint_div_overflow", "\\set i -9223372036854775808 / -1\n", 2, "out of range"},
    {"bigint_negate_overflow",
     "\\set i -(:min)\n\\set r debug(:i)\n",
     2,
     "bigint sub out of range",
     {"-t", "1", "-Dmin=-9223372036854775808"}},
    {"random_range_max", "\\set i random(-9223372036854775807, 9223372036854775806)\n", 2,
     "random range is too large"},
    {"random_seed_negative_is_accepted",
     "\\set r debug(:random_seed)\n\\set r debug(random(1, 99999))\n",
     0,
     "",
     {"-t", "1", "--random-seed=-1"}},
    {"comparison_nonassoc", "\\set i 1 < 2 = true\n", 1, "syntax error in command \"set\""},
    {"random_one_arg", "\\set i random(1)\n", 1, "unexpected number of arguments"},
    {"permute_size_zero", "\\set i permute(0, 0)\n", 2,
     "permute size parameter must be greater than zero"},
    {"setshell_not_integer", "\\setshell i echo -n one\n", 2,
     "shell command must return an integer"},
    {"setshell_missing_argument", "\\setshell var\n", 1, "missing argument"},
    {"setshell_no_such_command", "\\setshell var no-such-command\n", 2,
     "could not read result of shell command"},
    {"sleep_undefined_variable", "\\sleep :nosuchvariable\n", 2, "sleep: undefined variable"},
    {"sleep_missing_argument", "\\sleep\n", 1, "missing argument"},
    {"sleep_bad_unit", "\\sleep 1 week\n", 1, "unrecognized time unit, must be us, ms or s"},
    {"sleep_non_integer_variable", "\\sleep :v\n", 2, "", {"-t", "1", "-Dv=abc"}},
    {"unknown_meta_command", "\\nosuchcommand\n", 1, "\"nosuchcommand\""},
    {"empty_script", "", 1, "empty command list for script"},
    {"only_comments_script", "-- nothing\n", 1, "empty command list for script"},
    {"gset_no_rows", "SELECT WHERE FALSE \\gset\n", 2, "expected one row, got 0"},
    {"gset_first_in_script", "\\gset\n", 1, "\\gset must follow an SQL command"},
    {"gset_two_prefixes", "SELECT 1 \\gset a b\n", 1, "too many arguments"},
    {"gset_after_gset", "SELECT 1 AS i \\gset\n\\gset\n", 1, "gset must follow an SQL command"},
    {"gset_unnamed_column", "SELECT 1 \\gset\n", 2, "error storing into variable ?column?"},
    {"if_without_endif", "\\if 1\n", 1, "\\if without matching \\endif"},
    {"elif_without_if", "\\elif 1\n", 1, "\\elif without matching \\if"},
    {"else_without_if", "\\else\n", 1, "\\else without matching \\if"},
    {"endif_without_if", "\\endif\n", 1, "\\endif without matching \\if"},
    {"elif_after_else", "\\if 0\n\\else\n\\elif 0\n\\endif\n", 1, "\\elif after \\else"},
    {"else_after_else", "\\if 1\n\\else\n\\else\n\\endif\n", 1, "\\else after \\else"},
    {"if_no_expression", "\\if\n\\endif\n", 1, "syntax error in command \"if\""},
    {"elif_syntax_error", "\\if 0\n\\elif +\n\\endif\n", 1, "syntax error in command \"elif\""},
    {"else_with_argument", "\\if 0\n\\else BAD\n\\endif\n", 1,
     "unexpected argument in command \"else\""},
    {"endif_with_argument", "\\if 0\n\\else\n\\endif BAD\n", 1,
     "unexpected argument in command \"endif\""},
    {"least_no_args", "\\set i least()\n", 1, "at least one argument expected (least)"},
    {"greatest_no_args", "\\set i greatest()\n", 1, "at least one argument expected (greatest)"},
    {"hash_no_args", "\\set i hash()\n", 1, "unexpected number of arguments (hash)"},
    {"hash_three_args", "\\set i hash(1,2,3)\n", 1, "unexpected number of arguments (hash)"},
    {"bigint_constant_overflow", "\\set i 100000000000000000000\n", 1, "bigint constant overflow"},
    {"double_constant_overflow", "\\set d 1.0E309\n", 1, "double constant overflow"},
    {"double_constant_overflow_dot", "\\set d .1E310\n", 1, "double constant overflow"},
    {"permute_one_arg", "\\set i permute(1)\n", 1, "unexpected number of arguments (permute)"},
    {"permute_four_args", "\\set i permute(1,2,3,4)\n", 1,
     "unexpected number of arguments (permute)"},
    {"error_on_later_line", "\\set a 1\n\\set b 2\n\\set c (1 +\n", 1, "syntax error"},
    {"error_column_in_long_line", "\\set a 1 + 2 + 3 + 4 + 5 * * 6\n", 1, "syntax error"},
    // A backslash-newline continues a meta-command, also right after a word.
    {"continuation_in_expression", "\\set x 1 + \\\n2\n\\set r debug(:x)\n", 0},
    {"continuation_after_operator", "\\set x 1 +\\\n2\n\\set r debug(:x)\n", 0},
    {"continuation_after_set_variable", "\\set x\\\n 3\n\\set r debug(:x)\n", 0},
    {"continuation_after_setshell_variable", "\\setshell var\\\necho 5\n\\set r debug(:var)\n", 0},
    {"continuation_between_shell_words", "\\setshell var \\\n echo \\\n 6\n\\set r debug(:var)\n",
     0},
    {"continuation_after_sleep_amount", "\\sleep 1\\\n ms\n\\set r debug(7)\n", 0},
    {"continuation_crlf", "\\set x 4 \\\r\n+ 1\r\n\\set r debug(:x)\r\n", 0},
    // COPY in a script: pgbench's refusal, the client aborted, exit 2 (the
    // lean path sees CopyInResponse / CopyOutResponse).
    {"copy_to_stdout", "SELECT 1;\nCOPY (SELECT 1) TO STDOUT;\nSELECT 2;\n", 2,
     "COPY is not supported in pgbench, aborting"},
    {"copy_from_stdin",
     "CREATE TEMP TABLE IF NOT EXISTS compat_copy(a int);\nCOPY compat_copy FROM STDIN;\n", 2,
     "COPY is not supported in pgbench, aborting"},
    {"copy_extended",
     "COPY (SELECT 1) TO STDOUT;\n",
     2,
     "COPY is not supported in pgbench, aborting",
     {"-t", "2", "-c", "2", "-M", "extended"}},
    {"copy_libpq_path",
     "COPY (SELECT 1) TO STDOUT;\nSELECT 1 AS one \\gset\n",
     2,
     "COPY is not supported in pgbench, aborting",
     {"-t", "2", "-c", "2"}},
};

class ScriptTest : public ::testing::TestWithParam<ScriptCase> {};

TEST_P(ScriptTest, SameOutcome) {
  const ScriptCase& c = GetParam();
  TempScript s(c.script);
  std::vector<std::string> extra = c.args.empty() ? std::vector<std::string>{"-t", "1"} : c.args;
  bool seeded = false;
  for (const auto& a : extra) seeded = seeded || a.rfind("--random-seed", 0) == 0;
  if (!seeded) extra.push_back("--random-seed=5432");
  Both b = RunBoth(ScriptArgs(s, extra));
  ExpectBothExit(b, c.exit_code);
  ExpectSameDebug(b);
  ExpectSameReport(b);
  if (!c.substring.empty()) {
    EXPECT_THAT(Normalize(b.pgbench.err), HasSubstr(c.substring)) << "pgbench itself" << Show(b);
    EXPECT_THAT(Normalize(b.pgrig.err), HasSubstr(c.substring)) << Show(b);
  }
  if (c.exit_code == 1) {
    // Nothing ran: no summary from either.
    EXPECT_EQ(b.pgrig.out, "") << Show(b);
  }
}

INSTANTIATE_TEST_SUITE_P(Compat, ScriptTest, ::testing::ValuesIn(kScriptCases),
                         CaseName<ScriptCase>);

// ---------------------------------------------------------------------------
// 5. Several weighted scripts: which script runs is drawn from the thread's
// stream; debug() names the script, so the choice sequence is compared.

TEST(CompatMultiScript, SameScriptChoicesUnderFixedSeed) {
  TempScript a("\\set r debug(random(1, 1000))\n");
  TempScript b2("\\set r debug(random(1, 1000) * 2)\n");
  TempScript c3("\\set r debug(random(1, 1000) * 3)\n");
  for (const char* seed : {"--random-seed=5432", "--random-seed=1", "--random-seed=99"}) {
    Both b = RunBoth({"-n", "-t", "20", "-c", "1", seed, "-f", a.path() + "@1", "-f",
                      b2.path() + "@3", "-f", c3.path() + "@5"});
    ExpectBothExit(b, 0);
    ExpectSameDebug(b);
    ExpectSameReport(b);
  }
}

// Prepared statements are named P_0, P_1, ... over the SQL commands of all
// scripts in order; the names reach the user in errors, so the server lists
// them in one.
TEST(CompatMultiScript, SamePreparedStatementNames) {
  TempScript first("\\set x 1\nSELECT 2;\nSELECT 3;\n");
  TempScript second(
      "SELECT 1;\n"
      "SELECT CAST(string_agg(name, ',' ORDER BY name) AS int) FROM pg_prepared_statements;\n");
  Both b = RunBoth({"-n", "-t", "6", "-c", "1", "-M", "prepared", "--random-seed=3", "-f",
                    first.path(), "-f", second.path()});
  ExpectBothExit(b, 2);
  EXPECT_THAT(b.pgbench.err, HasSubstr("\"P_0,P_1,P_2,P_3\"")) << Show(b);
  ExpectSameReport(b);
}

TEST(CompatMultiScript, SameChoicesPerClient) {
  TempScript a("\\set r " + Tagged({"1", "random(1, 1000)"}) + "\n");
  TempScript b2("\\set r " + Tagged({"2", "random(1, 1000)"}) + "\n");
  Both b = RunBoth({"-n", "-t", "10", "-c", "3", "--random-seed=31", "-f", a.path() + "@2", "-f",
                    b2.path() + "@1"});
  ExpectBothExit(b, 0);
  EXPECT_EQ(ClientStreams(b.pgrig.err), ClientStreams(b.pgbench.err)) << Show(b);
}

TEST(CompatMultiScript, BuiltinWithoutTablesFailsAlike) {
  TempScript a("\\set r debug(random(1, 1000))\n");
  Both b = RunBoth({"-n", "-t", "8", "-c", "1", "--random-seed=3", "-b", "select-only@1", "-f",
                    a.path() + "@1"});
  // A builtin script makes both read the scale from pgbench_branches, which
  // the shared database does not have: both refuse before running anything.
  ExpectBothExit(b, 1);
  ExpectSameReport(b);
}

// PGBENCH_RANDOM_SEED seeds both when --random-seed is not given.
TEST(CompatMultiScript, SeedFromEnvironment) {
  TempScript s("\\set r debug(:random_seed)\n\\set r debug(random(1, 1000000))\n");
  std::vector<std::string> args = {"-n", "-t", "2", "-c", "2", "-f", s.path()};
  for (auto& a : ConnArgs(testing::SharedParams())) args.push_back(a);
  const std::map<std::string, std::string> env = {{"PGBENCH_RANDOM_SEED", "8675309"}};
  Both b;
  b.pgbench = testing::RunServerTool("pgbench", args, env);
  args.insert(args.begin(), "bench");
  b.pgrig = testing::RunPgrig(args, env);
  ExpectBothExit(b, 0);
  ExpectSameDebug(b);
  ExpectSameReport(b);
}

// DBNAME may come first: getopt permutes it behind the options.
TEST(CompatOptions, DatabaseNameBeforeOptions) {
  TempScript s("\\set r debug(:client_id + 40)\n");
  const pg::ConnectionParams p = testing::SharedParams();
  std::vector<std::string> args = {p.dbname};
  if (!p.host.empty()) args.insert(args.end(), {"-h", p.host});
  if (!p.port.empty()) args.insert(args.end(), {"-p", p.port});
  if (!p.user.empty()) args.insert(args.end(), {"-U", p.user});
  args.insert(args.end(), {"-n", "-t", "1", "-f", s.path()});
  Both b;
  b.pgbench = testing::RunServerTool("pgbench", args);
  args.insert(args.begin(), "bench");
  b.pgrig = testing::RunPgrig(args);
  ExpectBothExit(b, 0);
  ExpectSameDebug(b);
  ExpectSameReport(b);
}

// ---------------------------------------------------------------------------
// 6. bench/set20.sql, the client-CPU workload: every \set of it evaluated by
// both programs, with a debug() of each variable after it.

TEST(CompatSet20, EveryVariableTheSame) {
  std::ifstream in(std::string(PGRIG_SOURCE_DIR) + "/bench/set20.sql");
  ASSERT_TRUE(in.good());
  std::string text, line;
  int sets = 0;
  while (std::getline(in, line)) {
    if (line.rfind("\\set ", 0) == 0) {
      const std::string name = line.substr(5, line.find(' ', 5) - 5);
      text += line + "\n\\set dbg_" + name + " debug(:" + name + ")\n";
      ++sets;
    }
  }
  EXPECT_EQ(sets, 20);
  TempScript s(text);
  for (const char* seed : {"--random-seed=5432", "--random-seed=7"}) {
    Both b = RunBoth({"-n", "-t", "25", "-c", "2", "-s", "10", seed, "-f", s.path()});
    ExpectBothExit(b, 0);
    // -c 2 -j 1: compare as multisets per command, plus the exact sequence
    // of client 0's block (the first 20 lines of each transaction come
    // from one meta-command sequence).
    auto want = DebugLines(b.pgbench.err);
    auto have = DebugLines(b.pgrig.err);
    EXPECT_EQ(want.size(), 2u * 25u * 20u);
    std::sort(want.begin(), want.end());
    std::sort(have.begin(), have.end());
    EXPECT_EQ(have, want) << Show(b);
    ExpectSameReport(b);
  }
}

// ---------------------------------------------------------------------------
// 7. Option validation: exit 1, nothing on stdout, the same complaint.

struct OptionCase {
  std::string name;
  std::vector<std::string> args;
  std::string substring;
  int exit_code = 1;
};

std::ostream& operator<<(std::ostream& os, const OptionCase& c) { return os << c.name; }

// The -i cases of pgbench's option tests do not apply: `pgrig bench` leaves
// initialization to `pgrig init` and rejects -i outright (see
// InitializeIsRefused below).
const std::vector<OptionCase> kOptionCases = {
    {"bad_option", {"--bad-option"}, "--help\" for more information"},
    {"no_such_file", {"-f", "no-such-file"}, "could not open file \"no-such-file\":"},
    {"no_such_builtin",
     {"-b", "no-such-builtin"},
     "no builtin script found for name \"no-such-builtin\""},
    {"bad_weight", {"--builtin=select-only@one"}, "invalid weight specification: @one"},
    {"clients_not_number", {"-c", "three"}, "invalid value \"three\" for option -c/--clients"},
    {"jobs_not_number", {"-j", "eleven"}, "invalid value \"eleven\" for option -j/--jobs"},
    {"scale_not_number", {"-s", "two"}, "invalid value \"two\" for option -s/--scale"},
    {"transactions_not_number",
     {"-t", "zil"},
     "invalid value \"zil\" for option -t/--transactions"},
    {"time_not_number", {"-T", "ten"}, "invalid value \"ten\" for option -T/--time"},
    {"t_and_T", {"-t", "1000", "-T", "1"}, "specify either"},
    {"bad_define", {"--define", "foobla"}, "invalid variable definition"},
    {"define_empty_value", {"--define", "foo="}, ""},
    {"define_empty_name", {"-D", "=1"}, "invalid variable definition"},
    {"fillfactor_range", {"-F", "1"}, "-F/--fillfactor must be in range"},
    {"bad_query_mode", {"-M", "no-such-mode"}, "invalid query mode"},
    {"progress_zero", {"--progress=0"}, "-P/--progress must be in range"},
    {"rate_zero", {"--rate=0.0"}, "invalid rate limit"},
    {"latency_limit_zero", {"--latency-limit=0.0"}, "invalid latency limit"},
    {"sampling_rate_zero", {"--sampling-rate=0"}, "invalid sampling rate"},
    {"init_option_when_benchmarking", {"-S", "-F", "90"}, "cannot be used in benchmarking"},
    {"ambiguous_builtin", {"-b", "s"}, "ambiguous"},
    {"progress_timestamp_alone", {"--progress-timestamp"}, "allowed only under"},
    {"init_steps_when_benchmarking", {"-I", "dtg"}, "cannot be used in benchmarking mode"},
    {"sampling_without_log",
     {"--sampling-rate=0.01"},
     "log sampling (--sampling-rate) is allowed only when"},
    {"sampling_and_aggregate",
     {"-l", "--sampling-rate=0.1", "--aggregate-interval=3"},
     "cannot be used at the same time"},
    {"aggregate_without_log", {"--aggregate-interval=3"}, "log aggregation is allowed only when"},
    {"prefix_without_log", {"--log-prefix=x"}, "prefix (--log-prefix) is allowed only when"},
    {"aggregate_longer_than_run",
     {"-l", "-T", "1", "--aggregate-interval=3"},
     "must not be higher"},
    {"aggregate_not_dividing_run", {"-l", "-T", "5", "--aggregate-interval=3"}, "multiple"},
    {"random_seed_bad", {"--random-seed=abc"}, "unrecognized random seed option \"abc\""},
    {"clients_zero", {"-c", "0"}, "-c/--clients must be in range"},
    {"jobs_zero", {"-j", "0"}, "-j/--jobs must be in range"},
    {"transactions_zero", {"-t", "0"}, "-t/--transactions must be in range"},
    {"too_many_arguments", {"db1", "db2"}, "too many command-line arguments (first is \"db2\")"},
    {"zero_total_weight", {"-b", "select-only@0"}, "total script weight must not be zero"},
    {"max_tries_unlimited_with_t", {"--max-tries=0"}, "an unlimited number of transaction tries"},
    {"max_tries_negative", {"--max-tries=-1"}, "invalid number of maximum tries"},
    {"builtin_list", {"-b", "list"}, "Available builtin scripts:", 0},
    {"show_script", {"--show-script", "se"}, "select-only: ", 0},
};

class OptionTest : public ::testing::TestWithParam<OptionCase> {};

TEST_P(OptionTest, SameRejection) {
  const OptionCase& c = GetParam();
  // With the shared cluster named, so that an option both accept can never
  // reach some other server (pgrig would use its default embedded cluster).
  Both b = RunBoth(c.args);
  ExpectBothExit(b, c.exit_code);
  EXPECT_EQ(b.pgbench.out, "") << "pgbench itself" << Show(b);
  EXPECT_EQ(b.pgrig.out, "") << Show(b);
  if (!c.substring.empty()) {
    EXPECT_THAT(Normalize(b.pgbench.err), HasSubstr(c.substring)) << "pgbench itself" << Show(b);
    EXPECT_THAT(Normalize(b.pgrig.err), HasSubstr(c.substring)) << Show(b);
  }
  auto missing = MissingInOrder(Lines(Normalize(b.pgbench.err)), Lines(Normalize(b.pgrig.err)));
  EXPECT_TRUE(missing.empty()) << "pgbench stderr lines that pgrig did not print (in order):\n"
                               << Join(missing) << Show(b);
}

INSTANTIATE_TEST_SUITE_P(Compat, OptionTest, ::testing::ValuesIn(kOptionCases),
                         CaseName<OptionCase>);

// pgbench -i initialises; `pgrig bench` refuses and points at `pgrig init`.
TEST(CompatOptions, InitializeIsRefused) {
  ProcessResult r = testing::RunPgrig({"bench", "-i"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("pgrig init"));
  EXPECT_EQ(r.out, "");
}

// ---------------------------------------------------------------------------
// 8. The drop-in: -d, -i's refusals, --help, pgrig run as "pgbench", checks
// before any side effect, --db.

// pgbench -d's trace lines ("pgbench: client 0 sending ..."), after the
// program name is normalised.  "client N receiving" is printed once per
// wait for the socket, which depends on timing: runs of it count as one.
// With `only`, just the lines that start with it (one client's).
std::vector<std::string> TraceLines(const std::string& err, const std::string& only = "") {
  std::vector<std::string> out;
  for (const auto& l : Lines(Normalize(err))) {
    if (!only.empty() && l.rfind(only, 0) != 0) continue;
    if (l.rfind("pgbench: client ", 0) != 0 && l.rfind("pgbench: pghost: ", 0) != 0 &&
        l.find(": shell parameter name: ") == std::string::npos) {
      continue;
    }
    if (!out.empty() && out.back() == l && l.ends_with(" receiving")) continue;
    out.push_back(l);
  }
  return out;
}

// What pgrig traces is what pgbench traces, line for line, in simple and
// extended mode: the connection line, the script choice, each SQL text
// sent, the waits, each executed meta-command with its words (branches only
// when reached by executing), \setshell's value line.  Prepared mode
// differs on purpose: pgrig prepares a script's statements together before
// its first transaction, pgbench each one just before its first use, so
// the "preparing P_n" lines come earlier (the same lines, another order).
TEST(CompatDebug, SameTraceLines) {
  TempScript s(
      "SELECT 1;\n"
      "\\set x 1 + 2\n"
      "\\sleep 1 ms\n"
      "select :x;\n"
      "\\if :x > 1\n"
      "select 'then';\n"
      "\\else\n"
      "select 'else';\n"
      "\\endif\n"
      "\\if :x < 1\n"
      "select 'no';\n"
      "\\elif :x = 3\n"
      "select 'elif';\n"
      "\\endif\n"
      "\\setshell y echo 5\n"
      "\\set r debug(:y)\n");
  for (const char* mode : {"simple", "extended"}) {
    Both b = RunBoth({"-n", "-d", "-t", "2", "-c", "1", "-M", mode, "-f", s.path()});
    ExpectBothExit(b, 0);
    const auto want = TraceLines(b.pgbench.err);
    EXPECT_GT(want.size(), 20u) << "pgbench itself" << Show(b);
    EXPECT_EQ(TraceLines(b.pgrig.err), want) << mode << Show(b);
    ExpectSameDebug(b);
  }
  // Prepared: the same lines but "preparing", in the same order; pgrig
  // prepares every statement of the script, pgbench those it reaches.
  Both b = RunBoth({"-n", "-d", "-t", "1", "-c", "1", "-M", "prepared", "-f", s.path()});
  ExpectBothExit(b, 0);
  auto split = [](const std::vector<std::string>& lines, std::vector<std::string>* preparing) {
    std::vector<std::string> rest;
    for (const auto& l : lines) {
      (l.find(" preparing P_") != std::string::npos ? *preparing : rest).push_back(l);
    }
    return rest;
  };
  std::vector<std::string> want_prep, have_prep;
  const auto want = split(TraceLines(b.pgbench.err), &want_prep);
  const auto have = split(TraceLines(b.pgrig.err), &have_prep);
  EXPECT_EQ(have, want) << Show(b);
  EXPECT_FALSE(want_prep.empty()) << Show(b);
  EXPECT_TRUE(MissingInOrder(want_prep, have_prep).empty()) << Show(b);
}

// Two clients: each client's own trace is pgbench's.
TEST(CompatDebug, SameTracePerClient) {
  TempScript s("\\set a random(1, 10)\nSELECT :a;\n");
  Both b = RunBoth({"-n", "-d", "-t", "3", "-c", "2", "--random-seed=7", "-f", s.path()});
  ExpectBothExit(b, 0);
  for (const char* client : {"pgbench: client 0 ", "pgbench: client 1 "}) {
    const auto want = TraceLines(b.pgbench.err, client);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(TraceLines(b.pgrig.err, client), want) << client << Show(b);
  }
}

// Without -d nothing is traced.
TEST(CompatDebug, NoTraceWithoutDebug) {
  TempScript s("SELECT 1;\n\\set x 2\n");
  Both b = RunBoth({"-n", "-t", "1", "-f", s.path()});
  ExpectBothExit(b, 0);
  EXPECT_TRUE(TraceLines(b.pgrig.err).empty()) << Show(b);
}

// pgbench's limit of 128 scripts, met while parsing: nothing else happens.
TEST(CompatOptions, AtMost128Scripts) {
  std::vector<std::string> args = {"-n", "-t", "1"};
  for (int i = 0; i < 129; ++i) args.insert(args.end(), {"-b", "select-only"});
  Both b = RunBoth(args);
  ExpectBothExit(b, 1);
  EXPECT_THAT(b.pgbench.err, HasSubstr("at most 128 SQL scripts are allowed")) << Show(b);
  EXPECT_EQ(Lines(Normalize(b.pgrig.err)), Lines(Normalize(b.pgbench.err))) << Show(b);
  EXPECT_EQ(b.pgrig.out, "") << Show(b);
}

// A directory holding "pgbench", a symbolic link to this build's pgrig.
class PgbenchLink {
 public:
  PgbenchLink() {
    std::string tmpl = "/tmp/pgrig-compat-link-XXXXXX";
    dir_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
    path_ = dir_ + "/pgbench";
    ok_ = !dir_.empty() && ::symlink(testing::PgrigExe().c_str(), path_.c_str()) == 0;
  }
  ~PgbenchLink() {
    ::unlink(path_.c_str());
    ::rmdir(dir_.c_str());
  }
  PgbenchLink(const PgbenchLink&) = delete;
  PgbenchLink& operator=(const PgbenchLink&) = delete;
  bool ok() const { return ok_; }

  ProcessResult Run(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env = {}) const {
    return testing::RunProgram(path_, args, env, "", std::chrono::minutes(5));
  }

 private:
  std::string dir_;
  std::string path_;
  bool ok_ = false;
};

// The real pgbench and pgrig under the name "pgbench", same arguments.
Both RunBothAsPgbench(const PgbenchLink& link, const std::vector<std::string>& args,
                      const std::string& dbname = "pgrig") {
  std::vector<std::string> full = args;
  for (auto& a : ConnArgs(testing::SharedParams(dbname))) full.push_back(a);
  Both b;
  b.pgbench = testing::RunServerTool("pgbench", full);
  b.pgrig = link.Run(full);
  return b;
}

std::string NormalizeInit(const std::string& text) {
  return Normalize(ReplaceAll(text, "pgrig init", "pgbench"));
}

// pgbench -i refuses the benchmarking options and bad steps with its own
// words; so does pgrig init, directly and run as "pgbench -i".
TEST(CompatInit, SameRefusals) {
  PgbenchLink link;
  ASSERT_TRUE(link.ok());
  TempScript script("SELECT 1;\n");  // pgbench reads -f's file while parsing
  const std::vector<std::vector<std::string>> cases = {
      {"-i", "-S"},
      {"-i", "-c", "2"},
      {"-i", "-t", "3"},
      {"-i", "-T", "3"},
      {"--initialize", "-N"},
      {"-i", "--select-only"},
      {"-i", "-f", script.path()},
      {"-i", "--progress", "1"},
      {"-i", "--max-tries=2"},
      {"-i", "-I", "dta"},
      {"-i", "-I", "a", "-S"},
      {"-i", "-I", "dtx", "-c", "2"},
      {"-i", "-S", "a", "b"},
      {"-i", "--partition-method=hash"},
  };
  for (const auto& args : cases) {
    std::string label;
    for (const auto& a : args) label += a + " ";
    SCOPED_TRACE(label);
    Both b = RunBothAsPgbench(link, args);
    ExpectBothExit(b, 1);
    EXPECT_EQ(b.pgrig.out, "") << label << Show(b);
    // Every line pgbench printed, in order (pgrig adds "try --help" hints
    // to some).
    std::vector<std::string> want = Lines(NormalizeInit(b.pgbench.err));
    std::vector<std::string> have = Lines(NormalizeInit(b.pgrig.err));
    ASSERT_EQ(have.size(), want.size()) << label << Show(b);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(have[i].rfind(want[i], 0), 0u) << label << Show(b);
    }
    // pgrig init itself, without -i.
    std::vector<std::string> init_args = {"init"};
    for (const auto& a : args) {
      if (a != "-i" && a != "--initialize") init_args.push_back(a);
    }
    for (auto& a : ConnArgs(testing::SharedParams())) init_args.push_back(a);
    ProcessResult direct = testing::RunPgrig(init_args);
    EXPECT_EQ(direct.exit_code, 1) << label << direct.err;
    EXPECT_EQ(Lines(NormalizeInit(direct.err)).size(), want.size()) << label << direct.err;
  }
  // The exact texts of issue 14.
  Both b = RunBothAsPgbench(link, {"-i", "-I", "dta"});
  EXPECT_THAT(NormalizeInit(b.pgrig.err),
              HasSubstr("pgbench: error: unrecognized initialization step \"a\"\n"
                        "pgbench: detail: Allowed step characters are: \"dtgGvpf\".\n"));
  b = RunBothAsPgbench(link, {"-i", "-S"});
  EXPECT_EQ(NormalizeInit(b.pgrig.err),
            "pgbench: error: some of the specified options cannot be used in initialization "
            "(-i) mode\n");
}

// Run as "pgbench": -i initialises (here only step d, in a database of its
// own), anything else benchmarks, with pgbench's output.
TEST(CompatLink, RunsAsPgbench) {
  PgbenchLink link;
  ASSERT_TRUE(link.ok());
  TempScript s("\\set r debug(:client_id + 40)\nSELECT 1;\n");
  Both b = RunBothAsPgbench(link, {"-n", "-t", "2", "-c", "1", "-f", s.path()});
  ExpectBothExit(b, 0);
  ExpectSameReport(b);
  EXPECT_EQ(ClientStreams(b.pgrig.err), ClientStreams(b.pgbench.err)) << Show(b);
  EXPECT_THAT(b.pgrig.out, HasSubstr("pgrig bench (pgrig ")) << Show(b);

  const std::string db = "compat_link_" + std::to_string(::getpid());
  pg::Connection admin = testing::ConnectShared("postgres");
  ASSERT_TRUE(admin.valid());
  ASSERT_TRUE(admin.Exec("DROP DATABASE IF EXISTS " + db).ok());
  ASSERT_TRUE(admin.Exec("CREATE DATABASE " + db).ok());
  Both init = RunBothAsPgbench(link, {"-i", "-I", "dt"}, db);
  ExpectBothExit(init, 0);
  for (const char* line : {"dropping old tables...\n", "creating tables...\n", "done in "}) {
    EXPECT_THAT(init.pgbench.err, HasSubstr(line)) << Show(init);
    EXPECT_THAT(init.pgrig.err, HasSubstr(line)) << Show(init);
  }
  auto count = testing::ConnectShared(db).Exec(
      "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench_%'");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(std::string(count->Get(0, 0)), "4");
  (void)admin.Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");

  // --help and -V as pgbench's first option go to bench.
  ProcessResult help = link.Run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Benchmarking options:"));
  ProcessResult version = link.Run({"-V"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("pgrig"));
}

// The headings of pgbench --help, in its order, and every option it lists.
std::vector<std::string> Headings(const std::string& help) {
  std::vector<std::string> out;
  for (const auto& l : Lines(help)) {
    if (!l.empty() && l[0] != ' ' && l.ends_with(":") && l.find("ptions") != std::string::npos) {
      out.push_back(l);
    }
  }
  return out;
}

// "-c, --client=NUM" / "--foreign-keys": the option as pgbench's help
// spells it, up to the description.
std::vector<std::string> OptionSpellings(const std::string& help, const std::string& section) {
  std::vector<std::string> out;
  bool in = section.empty();
  for (const auto& l : Lines(help)) {
    if (!l.empty() && l[0] != ' ') in = section.empty() || l == section;
    if (!in || l.rfind("  -", 0) != 0) continue;
    const std::string opt = l.substr(2, l.find("  ", 2) - 2);
    out.push_back(opt.substr(0, opt.find_first_of("=[")));
  }
  return out;
}

TEST(CompatHelp, BenchHelpHasPgbenchHeadingsAndOptions) {
  ProcessResult pgbench = testing::RunServerTool("pgbench", {"--help"});
  ProcessResult pgrig = testing::RunPgrig({"bench", "--help"});
  ASSERT_EQ(pgbench.exit_code, 0);
  EXPECT_EQ(pgrig.exit_code, 0);
  const auto want = Headings(pgbench.out);
  ASSERT_EQ(want.size(), 4u) << pgbench.out;
  EXPECT_EQ(Headings(pgrig.out), want) << pgrig.out;
  for (const auto& opt : OptionSpellings(pgbench.out, "")) {
    EXPECT_THAT(pgrig.out, HasSubstr("  " + opt)) << opt;
  }
  EXPECT_THAT(pgrig.out, HasSubstr("--db=CONNINFO"));
}

TEST(CompatHelp, InitHelpHasPgbenchInitializationOptions) {
  ProcessResult pgbench = testing::RunServerTool("pgbench", {"--help"});
  ProcessResult pgrig = testing::RunPgrig({"init", "--help"});
  EXPECT_EQ(pgrig.exit_code, 0);
  const auto headings = Headings(pgrig.out);
  ASSERT_FALSE(headings.empty()) << pgrig.out;
  EXPECT_EQ(headings.front(), "Initialization options:");
  EXPECT_EQ(headings.back(), "Common options:");
  for (const auto& opt : OptionSpellings(pgbench.out, "Initialization options:")) {
    EXPECT_THAT(pgrig.out, HasSubstr("  " + opt)) << opt;
  }
  for (const auto& opt : OptionSpellings(pgbench.out, "Common options:")) {
    EXPECT_THAT(pgrig.out, HasSubstr("  " + opt)) << opt;
  }
}

// No server named and PGRIG_HOME a directory that does not exist yet: a
// refused command line must leave it uncreated (no embedded cluster made,
// started or connected to) and fail at once.
ProcessResult RunWithoutServer(const std::vector<std::string>& args, const std::string& home) {
  ProcessOptions o;
  o.argv.push_back(testing::PgrigExe());
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = {{"PGRIG_HOME", home}};
  o.unset_env = {"PGHOST",     "PGHOSTADDR", "PGPORT",       "PGUSER",
                 "PGDATABASE", "PGSERVICE",  "PGSERVICEFILE"};
  o.timeout = std::chrono::minutes(2);
  return testing::RunProcess(o);
}

TEST(CompatSideEffects, RefusedInvocationsTouchNothing) {
  TempScript s("SELECT 1;\n");
  std::vector<std::string> many = {"bench", "-t", "1"};
  for (int i = 0; i < 129; ++i) many.insert(many.end(), {"-f", s.path()});
  const std::vector<std::vector<std::string>> cases = {
      many,
      {"bench", "-c", "three"},
      {"bench", "-f", "/nonexistent/script.sql"},
      {"bench", "-T", "30", "-f", s.path(), "--json", "/nonexistent/dir/x.json"},
      {"bench", "-T", "30", "-f", s.path(), "-l", "--log-prefix", "/nonexistent/dir/log"},
      {"bench", "-t", "1", "-f", s.path(), "--json", "/"},
      {"bench", "--db", "x", "y"},
      {"bench", "-i"},
      {"init", "-S"},
      {"init", "-I", "dta"},
      {"init", "--partition-method=hash"},
      {"init", "-s", "0"},
  };
  for (const auto& args : cases) {
    std::string label;
    for (size_t i = 0; i < std::min<size_t>(args.size(), 8); ++i) label += args[i] + " ";
    const std::string home = testing::MakeTempHome("pgrig-compat-refused");
    ASSERT_FALSE(home.empty());
    const auto start = std::chrono::steady_clock::now();
    ProcessResult r = RunWithoutServer(args, home);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.exit_code, 1) << label << r.err;
    EXPECT_EQ(r.out, "") << label;
    EXPECT_NE(::access(home.c_str(), F_OK), 0) << label << ": created " << home << "\n" << r.err;
    EXPECT_LT(seconds, 5.0) << label;
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("embedded cluster"))) << label << r.err;
    ::rmdir(home.substr(0, home.rfind('/')).c_str());
  }
}

// With a server named, an unwritable --json or log prefix fails before the
// connection, not after the run.
TEST(CompatSideEffects, UnwritableOutputFailsBeforeTheRun) {
  TempScript s("SELECT 1;\n");
  std::vector<std::string> args = {"bench", "-n",     "-T",     "30",
                                   "-f",    s.path(), "--json", "/nonexistent/dir/x.json"};
  for (auto& a : ConnArgs(testing::SharedParams())) args.push_back(a);
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = testing::RunPgrig(args);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(seconds, 5.0);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/dir/x.json"));
  EXPECT_EQ(r.out, "");  // not even the version line: no connection was made
}

// --db takes a conninfo string or a URI, for bench as for init.
TEST(CompatOptions, DbOptionForBenchAndInit) {
  const pg::ConnectionParams p = testing::SharedParams();
  std::string conninfo = "dbname=" + p.dbname;
  if (!p.host.empty()) conninfo += " host=" + p.host;
  if (!p.port.empty()) conninfo += " port=" + p.port;
  if (!p.user.empty()) conninfo += " user=" + p.user;
  TempScript s("\\set r debug(:client_id + 41)\n");
  ProcessResult bench =
      testing::RunPgrig({"bench", "--db", conninfo, "-n", "-t", "1", "-f", s.path()});
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_THAT(bench.err, HasSubstr("): int 41\n"));
  EXPECT_THAT(bench.err, ::testing::Not(HasSubstr("embedded")));
  // init: -I with no step that writes, so that the shared database is left alone.
  ProcessResult init = testing::RunPgrig({"init", "--db", conninfo, "-I", " "});
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_THAT(init.err, HasSubstr("done in"));
}

}  // namespace
}  // namespace pgrig
