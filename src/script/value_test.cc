#include "script/value.h"

#include <gtest/gtest.h>

#include <limits>

#include "script/variables.h"

namespace pgrig::script {
namespace {

TEST(ValueTest, ParsesStringsAsPgbench) {
  struct Case {
    const char* s;
    std::optional<Value> v;
  };
  const Case kCases[] = {
      {"null", Value::Null()},
      {"NULL", Value::Null()},
      {"t", Value::Bool(true)},
      {"tr", Value::Bool(true)},
      {"TRUE", Value::Bool(true)},
      {"y", Value::Bool(true)},
      {"yes", Value::Bool(true)},
      {"on", Value::Bool(true)},
      {"f", Value::Bool(false)},
      {"of", Value::Bool(false)},
      {"off", Value::Bool(false)},
      {"n", Value::Bool(false)},
      {"no", Value::Bool(false)},
      {"o", std::nullopt},
      {"", std::nullopt},
      {"bla", std::nullopt},
      {"truex", std::nullopt},
      {"+3", Value::Int(3)},
      {" -7 ", std::nullopt},
      {"  42", Value::Int(42)},
      {"9223372036854775807", Value::Int(INT64_MAX)},
      {"-9223372036854775808", Value::Int(INT64_MIN)},
      {"9223372036854775808", std::nullopt},
      {"+", std::nullopt},
      {"-10.1", Value::Double(-10.1)},
      {"1.0", Value::Double(1.0)},
      {"1e3", Value::Double(1000)},
      {"1.5 ", std::nullopt},
  };
  for (const Case& c : kCases) {
    std::optional<Value> v = ParseValueString(c.s);
    EXPECT_EQ(v.has_value(), c.v.has_value()) << "'" << c.s << "'";
    if (v && c.v) {
      EXPECT_EQ(*v, *c.v) << c.s;
    }
  }
}

TEST(ValueTest, ParseErrorsAsPgbench) {
  EXPECT_EQ(ParseVariableValue("v", "bla").status().message(),
            "malformed variable \"v\" value: \"bla\"");
  EXPECT_EQ(ParseVariableValue("v", "").status().message(), "malformed variable \"v\" value: \"\"");
  // Int-looking text must be an int: strtoint64()'s messages instead.
  EXPECT_EQ(ParseVariableValue("v", "9223372036854775808").status().message(),
            "value \"9223372036854775808\" is out of range for type bigint");
  EXPECT_EQ(ParseVariableValue("v", "-9223372036854775809").status().message(),
            "value \"-9223372036854775809\" is out of range for type bigint");
  EXPECT_EQ(ParseVariableValue("v", "-").status().message(),
            "invalid input syntax for type bigint: \"-\"");
  EXPECT_EQ(*ParseVariableValue("v", "-9223372036854775808"), Value::Int(INT64_MIN));
}

TEST(ValueTest, NonFiniteDoublesAsPostgresPrintsThem) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ValueToString(Value::Double(inf)), "Infinity");
  EXPECT_EQ(DebugString(Value::Double(-inf)), "double -Infinity");
  EXPECT_EQ(DebugString(*ParseValueString("nan")), "double NaN");
  EXPECT_EQ(DebugString(*ParseValueString("-nan")), "double NaN");
  EXPECT_EQ(CoerceToInt(*ParseValueString("nan")).status().message(),
            "double to int overflow for NaN");
  EXPECT_EQ(CoerceToInt(Value::Double(-inf)).status().message(),
            "double to int overflow for -Infinity");
}

TEST(ValueTest, StringFormsAsPgbench) {
  EXPECT_EQ(ValueToString(Value::Int(-5)), "-5");
  EXPECT_EQ(ValueToString(Value::Double(1.0)), "1");
  EXPECT_EQ(ValueToString(Value::Double(0.1)), "0.1");
  EXPECT_EQ(ValueToString(Value::Double(1.0 / 3)), "0.333333333333333");
  EXPECT_EQ(ValueToString(Value::Bool(true)), "true");
  EXPECT_EQ(ValueToString(Value::Null()), "NULL");
  EXPECT_EQ(DebugString(Value::Null()), "null");
  EXPECT_EQ(DebugString(Value::Bool(false)), "boolean false");
}

TEST(ValueTest, Coercions) {
  EXPECT_EQ(*CoerceToInt(Value::Double(7.5)), 8);  // rint(): halves go to even
  EXPECT_EQ(*CoerceToInt(Value::Double(6.5)), 6);
  EXPECT_EQ(*CoerceToDouble(Value::Int(3)), 3.0);
  EXPECT_FALSE(CoerceToBool(Value::Int(1)).ok());
  EXPECT_EQ(CoerceToInt(Value::Null()).status().message(), "cannot coerce null to int");
  EXPECT_TRUE(ValueTruth(Value::Double(0.5)));
  EXPECT_FALSE(ValueTruth(Value::Null()));
}

TEST(VariablesTest, SlotsAndNames) {
  auto names = std::make_shared<NameTable>();
  int a = names->Intern("aid");
  EXPECT_EQ(names->Intern("aid"), a);
  int b = names->Intern("bid");
  Variables vars(names);
  EXPECT_FALSE(vars.IsDefined(a));
  EXPECT_EQ(vars.Get(a).status().message(), "undefined variable \"aid\"");
  EXPECT_EQ(vars.GetString(a), nullptr);
  vars.Set(a, Value::Int(12));
  EXPECT_EQ(*vars.GetString(a), "12");
  vars.SetString(b, "3.5");
  EXPECT_EQ(*vars.Get(b), Value::Double(3.5));
  // Names outside the table still work, through the overflow map.
  ASSERT_TRUE(vars.SetStringByName("gset", "other", "7").ok());
  EXPECT_EQ(*vars.GetByName("other"), Value::Int(7));
  EXPECT_EQ(vars.SetStringByName("gset", "?column?", "1").message(),
            "gset: invalid variable name: \"?column?\"");
  EXPECT_FALSE(IsValidVariableName("1abc"));
  EXPECT_TRUE(IsValidVariableName("_x1"));
  EXPECT_TRUE(IsValidVariableName("\xc3\xa9t\xc3\xa9"));
  Variables copy = vars;  // what every client gets from -D
  EXPECT_EQ(*copy.Get(a), Value::Int(12));
}

}  // namespace
}  // namespace pgrig::script
