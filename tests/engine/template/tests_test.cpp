// SPDX-License-Identifier: MIT
// Tests of the builtin tests (engine/src/template/tests.cpp): called through the registry
// against a table whose expectations come from Python Jinja2 3.1.6, and rendered end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/template/builtin_harness.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using testing::BuiltinHarness;

TEST(TestTest, RegistersJinjaNamesAndAliases) {
  BuiltinHarness harness;
  const auto& registry = harness.registry();
  // Every name of Jinja2 3.1.6's TESTS (39, aliases included).
  for (const char* name :
       {"!=",       "<",        "<=",          "==",       ">",           ">=",       "boolean",
        "callable", "defined",  "divisibleby", "eq",       "equalto",     "escaped",  "even",
        "false",    "filter",   "float",       "ge",       "greaterthan", "gt",       "in",
        "integer",  "iterable", "le",          "lessthan", "lower",       "lt",       "mapping",
        "ne",       "none",     "number",      "odd",      "sameas",      "sequence", "string",
        "test",     "true",     "undefined",   "upper"}) {
    SCOPED_TRACE(name);
    EXPECT_NE(registry.find(FunctionKind::Test, name), nullptr);
  }
  EXPECT_EQ(registry.names(FunctionKind::Test).size(), 39u);  // and no others
  const std::pair<const char*, const char*> aliases[] = {
      {"==", "eq"}, {"equalto", "eq"}, {"!=", "ne"},          {"<", "lt"}, {"lessthan", "lt"},
      {"<=", "le"}, {">", "gt"},       {"greaterthan", "gt"}, {">=", "ge"}};
  for (const auto& [alias, target] : aliases) {
    SCOPED_TRACE(alias);
    EXPECT_EQ(registry.find(FunctionKind::Test, alias), registry.find(FunctionKind::Test, target));
  }
}

TEST(TestTest, AnswersLikeJinja) {
  // Rows marked "template literals are distinct objects" document a deliberate difference:
  // Python's `is` depends on object identity, which zeroforge values do not have, so equal
  // floats and ints outside CPython's small-int cache are never "the same".
  BuiltinHarness().check_table(
      FunctionKind::Test,
      {
          {"odd", "odd", R"~(3)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"odd negative", "odd", R"~(-3)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"odd float", "odd", R"~(3.0)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"odd fractional", "odd", R"~(3.5)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"odd bool", "odd", R"~(true)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"even", "even", R"~(4)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"even negative", "even", R"~(-4)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"odd of string formats", "odd", R"~("a")~", R"~([])~", R"~({})~",
           R"~(!not all arguments converted during string formatting)~"},
          {"odd of format string", "odd", R"~("%s")~", R"~([])~", R"~({})~", R"~(False)~"},
          {"odd of none", "odd", R"~(null)~", R"~([])~", R"~({})~",
           R"~(!unsupported operand type(s) for %: 'NoneType' and 'int')~"},
          {"even of undefined", "even", nullptr, R"~([])~", R"~({})~", R"~(!'nope' is undefined)~"},
          {"divisibleby", "divisibleby", R"~(9)~", R"~([3])~", R"~({})~", R"~(True)~"},
          {"divisibleby float", "divisibleby", R"~(9.0)~", R"~([3])~", R"~({})~", R"~(True)~"},
          {"divisibleby negative", "divisibleby", R"~(-9)~", R"~([3])~", R"~({})~", R"~(True)~"},
          {"divisibleby fractional divisor", "divisibleby", R"~(7.5)~", R"~([2.5])~", R"~({})~",
           R"~(True)~"},
          {"not divisibleby", "divisibleby", R"~(10)~", R"~([3])~", R"~({})~", R"~(False)~"},
          {"divisibleby zero", "divisibleby", R"~(9)~", R"~([0])~", R"~({})~",
           R"~(!integer modulo by zero)~"},
          {"divisibleby float zero", "divisibleby", R"~(9.0)~", R"~([0])~", R"~({})~",
           R"~(!float modulo)~"},
          {"divisibleby string", "divisibleby", R"~(9)~", R"~(["3"])~", R"~({})~",
           R"~(!unsupported operand type(s) for %: 'int' and 'str')~"},
          {"defined", "defined", R"~(1)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"defined of none", "defined", R"~(null)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"defined of undefined", "defined", nullptr, R"~([])~", R"~({})~", R"~(False)~"},
          {"undefined of undefined", "undefined", nullptr, R"~([])~", R"~({})~", R"~(True)~"},
          {"undefined of value", "undefined", R"~(0)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"none", "none", R"~(null)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"none of zero", "none", R"~(0)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"none of undefined", "none", nullptr, R"~([])~", R"~({})~", R"~(False)~"},
          {"boolean", "boolean", R"~(false)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"boolean of int", "boolean", R"~(0)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"true", "true", R"~(true)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"true of one", "true", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"false", "false", R"~(false)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"false of zero", "false", R"~(0)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"true of undefined", "true", nullptr, R"~([])~", R"~({})~", R"~(False)~"},
          {"number int", "number", R"~(1)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"number bool", "number", R"~(true)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"number float", "number", R"~(1.5)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"number string", "number", R"~("1")~", R"~([])~", R"~({})~", R"~(False)~"},
          {"integer", "integer", R"~(1)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"integer of bool", "integer", R"~(true)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"integer of float", "integer", R"~(1.0)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"float", "float", R"~(1.0)~", R"~([])~", R"~({})~", R"~(True)~"},
          {"float of int", "float", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"string", "string", R"~("")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"string of int", "string", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"string of undefined", "string", nullptr, R"~([])~", R"~({})~", R"~(False)~"},
          {"mapping", "mapping", R"~({})~", R"~([])~", R"~({})~", R"~(True)~"},
          {"mapping of list", "mapping", R"~([])~", R"~([])~", R"~({})~", R"~(False)~"},
          {"sequence string", "sequence", R"~("ab")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"sequence dict", "sequence", R"~({})~", R"~([])~", R"~({})~", R"~(True)~"},
          {"sequence list", "sequence", R"~([])~", R"~([])~", R"~({})~", R"~(True)~"},
          {"sequence int", "sequence", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"sequence undefined", "sequence", nullptr, R"~([])~", R"~({})~", R"~(False)~"},
          {"iterable string", "iterable", R"~("a")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"iterable dict", "iterable", R"~({})~", R"~([])~", R"~({})~", R"~(True)~"},
          {"iterable int", "iterable", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"iterable none", "iterable", R"~(null)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"iterable undefined", "iterable", nullptr, R"~([])~", R"~({})~",
           R"~(!'nope' is undefined)~"},
          {"callable int", "callable", R"~(1)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"callable undefined", "callable", nullptr, R"~([])~", R"~({})~", R"~(True)~"},
          {"eq", "eq", R"~(1)~", R"~([1.0])~", R"~({})~", R"~(True)~"},
          {"equalto", "equalto", R"~("a")~", R"~(["a"])~", R"~({})~", R"~(True)~"},
          {"eq lists", "eq", R"~([1])~", R"~([[1.0]])~", R"~({})~", R"~(True)~"},
          {"eq mixed", "eq", R"~(1)~", R"~(["1"])~", R"~({})~", R"~(False)~"},
          {"eq undefined", "eq", nullptr, R"~([1])~", R"~({})~", R"~(!'nope' is undefined)~"},
          {"ne", "ne", R"~(1)~", R"~([2])~", R"~({})~", R"~(True)~"},
          {"ne mixed", "ne", R"~(1)~", R"~(["a"])~", R"~({})~", R"~(True)~"},
          {"lt", "lt", R"~(1)~", R"~([2])~", R"~({})~", R"~(True)~"},
          {"lessthan", "lessthan", R"~(2)~", R"~([2])~", R"~({})~", R"~(False)~"},
          {"le", "le", R"~(2)~", R"~([2])~", R"~({})~", R"~(True)~"},
          {"gt", "gt", R"~(3)~", R"~([2])~", R"~({})~", R"~(True)~"},
          {"greaterthan strings", "greaterthan", R"~("b")~", R"~(["a"])~", R"~({})~", R"~(True)~"},
          {"ge", "ge", R"~(2)~", R"~([3])~", R"~({})~", R"~(False)~"},
          {"lt lists", "lt", R"~([1, 2])~", R"~([[1, 3]])~", R"~({})~", R"~(True)~"},
          {"lt mixed", "lt", R"~(1)~", R"~(["a"])~", R"~({})~",
           R"~(!'<' not supported between instances of 'int' and 'str')~"},
          {"ge mixed", "ge", R"~(1)~", R"~(["a"])~", R"~({})~",
           R"~(!'>=' not supported between instances of 'int' and 'str')~"},
          {"gt none", "gt", R"~(null)~", R"~([null])~", R"~({})~",
           R"~(!'>' not supported between instances of 'NoneType' and 'NoneType')~"},
          {"gt inner mixed", "gt", R"~([1])~", R"~([["a"]])~", R"~({})~",
           R"~(!'>' not supported between instances of 'int' and 'str')~"},
          {"le undefined", "le", nullptr, R"~([1])~", R"~({})~", R"~(!'nope' is undefined)~"},
          {"in list", "in", R"~(1)~", R"~([[1, 2]])~", R"~({})~", R"~(True)~"},
          {"in list by equality", "in", R"~(1.0)~", R"~([[1]])~", R"~({})~", R"~(True)~"},
          {"in string", "in", R"~("b")~", R"~(["abc"])~", R"~({})~", R"~(True)~"},
          {"in string empty", "in", R"~("")~", R"~(["x"])~", R"~({})~", R"~(True)~"},
          {"in dict keys", "in", R"~("a")~", R"~([{"a": 1}])~", R"~({})~", R"~(True)~"},
          {"in dict int", "in", R"~(1)~", R"~([{"a": 1}])~", R"~({})~", R"~(False)~"},
          {"in string non-string", "in", R"~(1)~", R"~(["abc"])~", R"~({})~",
           R"~(!'in <string>' requires string as left operand, not int)~"},
          {"in int", "in", R"~(1)~", R"~([5])~", R"~({})~",
           R"~(!argument of type 'int' is not iterable)~"},
          {"in dict unhashable", "in", R"~([1])~", R"~([{"a": 1}])~", R"~({})~",
           R"~(!unhashable type: 'list')~"},
          {"in undefined", "in", nullptr, R"~([[1]])~", R"~({})~", R"~(!'nope' is undefined)~"},
          {"sameas none", "sameas", R"~(null)~", R"~([null])~", R"~({})~", R"~(True)~"},
          {"sameas false", "sameas", R"~(false)~", R"~([false])~", R"~({})~", R"~(True)~"},
          {"sameas zero false", "sameas", R"~(0)~", R"~([false])~", R"~({})~", R"~(False)~"},
          {"sameas small int", "sameas", R"~(1)~", R"~([1])~", R"~({})~", R"~(True)~"},
          {"sameas large int (template literals are distinct objects)", "sameas", R"~(1000)~",
           R"~([1000])~", R"~({})~", R"~(False)~"},
          {"sameas string", "sameas", R"~("a")~", R"~(["a"])~", R"~({})~", R"~(True)~"},
          {"sameas float (template literals are distinct objects)", "sameas", R"~(1.0)~",
           R"~([1.0])~", R"~({})~", R"~(False)~"},
          {"sameas undefined", "sameas", nullptr, R"~([null])~", R"~({})~", R"~(False)~"},
          {"lower", "lower", R"~("abc")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"lower mixed", "lower", R"~("aBc")~", R"~([])~", R"~({})~", R"~(False)~"},
          {"lower digits only", "lower", R"~("123")~", R"~([])~", R"~({})~", R"~(False)~"},
          {"lower with digits", "lower", R"~("a1")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"lower latin-1", "lower", R"~("\u00e9")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"lower of int", "lower", R"~(5)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"lower of none", "lower", R"~(null)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"upper", "upper", R"~("ABC")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"upper with digits", "upper", R"~("A1")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"upper empty", "upper", R"~("")~", R"~([])~", R"~({})~", R"~(False)~"},
          {"upper of bool", "upper", R"~(true)~", R"~([])~", R"~({})~", R"~(False)~"},
          {"upper latin-1", "upper", R"~("\u00c9")~", R"~([])~", R"~({})~", R"~(True)~"},
          {"lower of undefined", "lower", nullptr, R"~([])~", R"~({})~",
           R"~(!'nope' is undefined)~"},
      });
}

TEST(TestTest, OrderingWithNanIsFalse) {
  BuiltinHarness harness;
  Value nan(std::nan(""));
  for (const char* op : {"lt", "le", "gt", "ge"}) {
    SCOPED_TRACE(op);
    EXPECT_FALSE(harness.invoke(FunctionKind::Test, op, nan, {Value(1)}, {}).truthy());
    EXPECT_FALSE(harness.invoke(FunctionKind::Test, op, Value(1), {nan}, {}).truthy());
  }
}

TEST(TestTest, SameasComparesContainersByIdentity) {
  BuiltinHarness harness;
  Value list(ValueList{Value(1)});
  Value copy = list;  // shares the same list
  Value equal(ValueList{Value(1)});
  EXPECT_TRUE(harness.invoke(FunctionKind::Test, "sameas", list, {copy}, {}).truthy());
  EXPECT_FALSE(harness.invoke(FunctionKind::Test, "sameas", list, {equal}, {}).truthy());
}

struct RenderCase {
  const char* name;
  const char* source;
  const char* values;
  const char* expected;  // the rendered text, or "!message" for an error
};

TEST(TestTest, RendersThroughTemplates) {
  // Expectations from Python Jinja2 3.1.6 with StrictUndefined rendering the same source.
  const std::vector<RenderCase> cases = {
      {"defined guards undefined", R"~({% if x is defined %}{{ x }}{% else %}none{% endif %})~",
       R"~({})~", R"~(none)~"},
      {"not defined", R"~({{ x is not defined }})~", R"~({})~", R"~(True)~"},
      {"divisibleby with argument", R"~({{ 9 is divisibleby 3 }} {{ 9 is divisibleby(4) }})~",
       R"~({})~", R"~(True False)~"},
      {"symbolic aliases",
       R"~({{ 2 is gt 1 }} {{ 2 is ge 2 }} {{ 1 is ne 1 }} {{ 'a' is equalto 'a' }})~", R"~({})~",
       R"~(True True False True)~"},
      {"in and sameas",
       R"~({{ 2 is in [1, 2] }} {{ none is sameas none }} {{ 1 is sameas true }})~", R"~({})~",
       R"~(True True False)~"},
      {"type tests",
       R"~({{ 1 is integer }} {{ 1.0 is float }} {{ {} is mapping }} {{ 'x' is string }})~",
       R"~({})~", R"~(True True True True)~"},
      {"select with test name", R"~({{ [1, 2, 3, 4]|select('even')|list }})~", R"~({})~",
       R"~([2, 4])~"},
      {"ordering error", R"~({{ 1 is lt 'a' }})~", R"~({})~",
       R"~(!'<' not supported between instances of 'int' and 'str')~"},
  };
  Environment env;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string out;
    try {
      out = env.from_string(c.source, "case.j2")
                ->render(Value::from_json(nlohmann::ordered_json::parse(c.values)));
    } catch (const Error& e) {
      out = "!" + e.message();
    }
    EXPECT_EQ(out, c.expected);
  }
}

}  // namespace
}  // namespace zf
