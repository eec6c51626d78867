// Value: the typed value of a pgbench script expression or variable.
//
// pgbench's expression language knows four types: NULL, boolean, 64-bit
// integer and double.  Variables set from outside an expression (-D, \gset,
// \aset, \setshell) arrive as strings and are parsed lazily into a Value
// exactly as pgbench's makeVariableValue() does (ParseValueString below):
// an empty string fails, "null" (any case) is NULL, a prefix of "true",
// "yes", "on" or of "false", "no", "off" (any case; "o" alone is ambiguous and
// fails) is a boolean, a whole-string integer with optional blanks and sign is
// an int, anything else that strtod() accepts whole is a double.
//
// Value is a 16-byte trivially copyable type; copy it freely.  All functions
// here are pure and thread-safe.
#ifndef PGRIG_SCRIPT_VALUE_H_
#define PGRIG_SCRIPT_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pgrig::script {

enum class ValueType : uint8_t { kNull, kBool, kInt, kDouble };

// pgbench's names for the types, used in its error texts:
// "null", "boolean", "int", "double".
const char* ValueTypeName(ValueType type);

class Value {
 public:
  constexpr Value() : type_(ValueType::kNull), i_(0) {}
  static constexpr Value Null() { return Value(); }
  static constexpr Value Bool(bool b) {
    Value v;
    v.type_ = ValueType::kBool;
    v.i_ = b ? 1 : 0;
    return v;
  }
  static constexpr Value Int(int64_t i) {
    Value v;
    v.type_ = ValueType::kInt;
    v.i_ = i;
    return v;
  }
  static constexpr Value Double(double d) {
    Value v;
    v.type_ = ValueType::kDouble;
    v.d_ = d;
    return v;
  }

  ValueType type() const { return type_; }
  bool is_null() const { return type_ == ValueType::kNull; }
  bool is_bool() const { return type_ == ValueType::kBool; }
  bool is_int() const { return type_ == ValueType::kInt; }
  bool is_double() const { return type_ == ValueType::kDouble; }

  // REQUIRES: the matching type.
  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return i_; }
  double double_value() const { return d_; }

  // Exact equality of type and payload (for tests; not pgbench's "=").
  friend bool operator==(const Value& a, const Value& b);

 private:
  ValueType type_;
  union {
    int64_t i_;
    double d_;
  };
};

// pgbench's coercions (coerceToBool / coerceToInt / coerceToDouble).  Errors
// carry pgbench's texts: "cannot coerce double to boolean", "cannot coerce
// boolean to int", "double to int overflow for <%f>" (PostgreSQL's %f:
// "NaN", "Infinity"), ...
Result<bool> CoerceToBool(const Value& v);
Result<int64_t> CoerceToInt(const Value& v);
Result<double> CoerceToDouble(const Value& v);

// pgbench's valueTruth(): NULL is false, int/double non-zero is true.
bool ValueTruth(const Value& v);

// pgbench's makeVariableValue() on the string value of variable `name`,
// with pgbench's error texts: an int-looking string that does not fit is
// "value \"<s>\" is out of range for type bigint" (a lone sign: "invalid
// input syntax for type bigint: \"<s>\""), anything else that does not parse
// "malformed variable \"<name>\" value: \"<s>\"".
Result<Value> ParseVariableValue(std::string_view name, std::string_view s);

// The same without the error text; std::nullopt when it does not parse.
std::optional<Value> ParseValueString(std::string_view s);

// The string pgbench substitutes for a value (getVariable()): int in decimal,
// double with "%.*g" and DBL_DIG (15) digits (non-finite ones as PostgreSQL's
// snprintf spells them: "NaN", "Infinity", "-Infinity"), boolean
// "true"/"false", NULL as "NULL".  Appends to *out.
void AppendValueString(const Value& v, std::string* out);
std::string ValueToString(const Value& v);

// How debug() prints a value: "int 4", "double 15.3938040025900",
// "boolean true", "null", "double NaN".  Doubles as AppendValueString().
std::string DebugString(const Value& v);

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_VALUE_H_
