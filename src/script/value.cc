#include "script/value.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/enum_names.h"
#include "script/pg_format.h"

namespace pgrig::script {

const char* ValueTypeName(ValueType type) {
  static constexpr const char* kNames[] = {"null", "boolean", "int", "double"};
  return NameAt<ValueType::kDouble>(type, kNames, "none");
}

bool operator==(const Value& a, const Value& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case ValueType::kNull:
      return true;
    case ValueType::kDouble:
      return a.d_ == b.d_ || (std::isnan(a.d_) && std::isnan(b.d_));
    default:
      return a.i_ == b.i_;
  }
}

Result<bool> CoerceToBool(const Value& v) {
  if (v.is_bool()) return v.bool_value();
  return InvalidArgument(std::string("cannot coerce ") + ValueTypeName(v.type()) + " to boolean");
}

Result<int64_t> CoerceToInt(const Value& v) {
  if (v.is_int()) return v.int_value();
  if (v.is_double()) {
    double d = std::rint(v.double_value());
    // FLOAT8_FITS_IN_INT64: [-2^63, 2^63).
    if (std::isnan(d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      // PostgreSQL's snprintf: "... for NaN", as pgbench says.
      return InvalidArgument(PgFormat("double to int overflow for %f", d));
    }
    return static_cast<int64_t>(d);
  }
  return InvalidArgument(std::string("cannot coerce ") + ValueTypeName(v.type()) + " to int");
}

Result<double> CoerceToDouble(const Value& v) {
  if (v.is_double()) return v.double_value();
  if (v.is_int()) return static_cast<double>(v.int_value());
  return InvalidArgument(std::string("cannot coerce ") + ValueTypeName(v.type()) + " to double");
}

bool ValueTruth(const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      return false;
    case ValueType::kBool:
      return v.bool_value();
    case ValueType::kInt:
      return v.int_value() != 0;
    case ValueType::kDouble:
      return v.double_value() != 0.0;
  }
  return false;
}

namespace {

// Case-insensitive "s is a prefix of word" (pg_strncasecmp(s, word, len(s))).
bool IsPrefixOf(std::string_view s, std::string_view word) {
  if (s.size() > word.size()) {
    // pg_strncasecmp compares len(s) bytes; word's NUL terminator differs.
    return false;
  }
  return strncasecmp(std::string(s).c_str(), std::string(word).c_str(), s.size()) == 0;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && IsPrefixOf(a, b);
}

// pgbench's is_an_int(): blanks, optional sign, digits, end.  (Like pgbench,
// a lone sign passes here and then fails the int64 parse.)
bool LooksLikeInt(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) i++;
  if (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) i++;
  return i == s.size();
}

enum class IntParse { kOk, kSyntax, kOutOfRange };

// pgbench's strtoint64(): blanks, sign, digits, blanks; checked overflow.
// Tells a malformed text from one out of range, because pgbench's
// messages differ.
IntParse ParseInt64Strict(std::string_view s, int64_t* out) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return IntParse::kSyntax;
  uint64_t acc = 0;
  const uint64_t limit = neg ? 9223372036854775808ULL : 9223372036854775807ULL;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (acc > (limit - digit) / 10) return IntParse::kOutOfRange;
    acc = acc * 10 + digit;
    i++;
  }
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) i++;
  if (i != s.size()) return IntParse::kSyntax;
  *out = neg ? static_cast<int64_t>(0 - acc) : static_cast<int64_t>(acc);
  return IntParse::kOk;
}

}  // namespace

Result<Value> ParseVariableValue(std::string_view name, std::string_view s) {
  const auto malformed = [&] {
    return InvalidArgument("malformed variable \"" + std::string(name) + "\" value: \"" +
                           std::string(s) + "\"");
  };
  // pgbench fails an empty value without a word; say what is wrong.
  if (s.empty()) return malformed();
  if (EqualsNoCase(s, "null")) return Value::Null();
  // Prefixes of true/yes, "on"; of false/no, "off"/"of" ("o" alone fails).
  if (IsPrefixOf(s, "true") || IsPrefixOf(s, "yes") || EqualsNoCase(s, "on")) {
    return Value::Bool(true);
  }
  if (IsPrefixOf(s, "false") || IsPrefixOf(s, "no") || EqualsNoCase(s, "off") ||
      EqualsNoCase(s, "of")) {
    return Value::Bool(false);
  }
  if (LooksLikeInt(s)) {
    // Whatever looks like an int must be one; pgbench's strtoint64() then
    // names the problem instead of "malformed variable".
    int64_t i = 0;
    switch (ParseInt64Strict(s, &i)) {
      case IntParse::kOk:
        return Value::Int(i);
      case IntParse::kOutOfRange:
        return InvalidArgument("value \"" + std::string(s) + "\" is out of range for type bigint");
      case IntParse::kSyntax:
        return InvalidArgument("invalid input syntax for type bigint: \"" + std::string(s) + "\"");
    }
  }
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(copy.c_str(), &end);
  if (errno != 0 || end == copy.c_str() || *end != '\0') return malformed();
  return Value::Double(d);
}

std::optional<Value> ParseValueString(std::string_view s) {
  Result<Value> v = ParseVariableValue("", s);
  if (!v.ok()) return std::nullopt;
  return *v;
}

void AppendValueString(const Value& v, std::string* out) {
  char buf[64];
  int n = 0;
  switch (v.type()) {
    case ValueType::kNull:
      out->append("NULL");
      return;
    case ValueType::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return;
    case ValueType::kInt: {
      // On every SQL send of an integer variable: to_chars, not printf.
      const auto r = std::to_chars(buf, buf + sizeof(buf), v.int_value());
      n = static_cast<int>(r.ptr - buf);
      break;
    }
    case ValueType::kDouble:
      // pgbench formats with PostgreSQL's snprintf: "NaN", "Infinity",
      // "-Infinity" (glibc would say "nan", "-nan", "inf", "-inf").
      if (const char* word = PgNonFiniteText(v.double_value())) {
        out->append(word);
        return;
      }
      n = std::snprintf(buf, sizeof(buf), "%.*g", DBL_DIG, v.double_value());
      break;
  }
  out->append(buf, static_cast<size_t>(n));
}

std::string ValueToString(const Value& v) {
  std::string s;
  AppendValueString(v, &s);
  return s;
}

std::string DebugString(const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBool:
      return std::string("boolean ") + (v.bool_value() ? "true" : "false");
    case ValueType::kInt:
      return "int " + ValueToString(v);
    case ValueType::kDouble:
      return "double " + ValueToString(v);
  }
  return "";
}

}  // namespace pgrig::script
