// SPDX-License-Identifier: MIT
// Tests of the builtin global functions (engine/src/template/globals.cpp): range and dict,
// against a table whose expectations come from Python Jinja2 3.1.6, and rendered end to end.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/template/builtin_harness.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using testing::BuiltinHarness;

TEST(GlobalTest, CallsLikePython) {
  BuiltinHarness().check_table(
      FunctionKind::Global,
      {
          {"range stop", "range", nullptr, R"~([5])~", R"~({})~", R"~(range(0, 5))~"},
          {"range start stop", "range", nullptr, R"~([2, 5])~", R"~({})~", R"~(range(2, 5))~"},
          {"range negative step", "range", nullptr, R"~([10, 0, -3])~", R"~({})~",
           R"~(range(10, 0, -3))~"},
          {"range empty", "range", nullptr, R"~([0])~", R"~({})~", R"~(range(0, 0))~"},
          {"range backwards without step", "range", nullptr, R"~([5, 2])~", R"~({})~",
           R"~(range(5, 2))~"},
          {"range of bool", "range", nullptr, R"~([true])~", R"~({})~", R"~(range(0, 1))~"},
          {"range at the limit", "range", nullptr, R"~([99995, 200000, 20000])~", R"~({})~",
           R"~(range(99995, 200000, 20000))~"},
          {"range of float", "range", nullptr, R"~([1.0])~", R"~({})~",
           R"~(!'float' object cannot be interpreted as an integer)~"},
          {"range zero step", "range", nullptr, R"~([0, 5, 0])~", R"~({})~",
           R"~(!range() arg 3 must not be zero)~"},
          {"range no arguments", "range", nullptr, R"~([])~", R"~({})~",
           R"~(!range expected at least 1 argument, got 0)~"},
          {"range four arguments", "range", nullptr, R"~([1, 2, 3, 4])~", R"~({})~",
           R"~(!range expected at most 3 arguments, got 4)~"},
          {"range keyword", "range", nullptr, R"~([])~", R"~({"stop": 4})~",
           R"~(!range() takes no keyword arguments)~"},
          {"range of string", "range", nullptr, R"~(["a"])~", R"~({})~",
           R"~(!'str' object cannot be interpreted as an integer)~"},
          {"range of none", "range", nullptr, R"~([null])~", R"~({})~",
           R"~(!'NoneType' object cannot be interpreted as an integer)~"},
          {"dict keywords", "dict", nullptr, R"~([])~", R"~({"a": 1, "b": 2})~",
           R"~({'a': 1, 'b': 2})~"},
          {"dict keeps keyword order", "dict", nullptr, R"~([])~", R"~({"b": 1, "a": 2})~",
           R"~({'b': 1, 'a': 2})~"},
          {"dict empty", "dict", nullptr, R"~([])~", R"~({})~", R"~({})~"},
          {"dict copy and update", "dict", nullptr, R"~([{"x": 1, "y": 0}])~", R"~({"y": 2})~",
           R"~({'x': 1, 'y': 2})~"},
          {"dict from pairs", "dict", nullptr, R"~([[["k", "v"], "ab"]])~", R"~({})~",
           R"~({'k': 'v', 'a': 'b'})~"},
          {"dict two positional", "dict", nullptr, R"~([1, 2])~", R"~({})~",
           R"~(!dict expected at most 1 argument, got 2)~"},
          {"dict of int", "dict", nullptr, R"~([1])~", R"~({})~",
           R"~(!'int' object is not iterable)~"},
          {"dict element not a sequence", "dict", nullptr, R"~([[1]])~", R"~({})~",
           R"~(!cannot convert dictionary update sequence element #0 to a sequence)~"},
          {"dict element wrong length", "dict", nullptr, R"~([[[1, 2, 3]]])~", R"~({})~",
           R"~(!dictionary update sequence element #0 has length 3; 2 is required)~"},
      });
}

TEST(GlobalTest, DocumentsDeliberateDifferencesFromJinja) {
  BuiltinHarness().check_table(
      FunctionKind::Global, {
                                // Jinja2 only limits ranges in its sandbox; zeroforge always does,
                                // so a typo cannot exhaust memory.
                                {"range past MAX_RANGE", "range", nullptr, "[100001]", "{}",
                                 "!range too big: 100001 items, the limit is 100000"},
                                {"range spanning all of int64", "range", nullptr,
                                 "[-9223372036854775808, 9223372036854775807]", "{}",
                                 "!range too big: 18446744073709551615 items, the limit is 100000"},
                                // zeroforge dicts (like JSON objects) have string keys only.
                                {"dict with an int key", "dict", nullptr, "[[[1, 2]]]", "{}",
                                 "!dict keys must be strings, got int 1"},
                            });
}

TEST(GlobalTest, RangeReachesTheLimitExactly) {
  BuiltinHarness harness;
  Value all = harness.invoke(FunctionKind::Global, "range", Value(), {Value(100000)}, {});
  ASSERT_EQ(all.as_list().size(), 100000u);
  EXPECT_EQ(all.as_list().back(), Value(99999));
  Value top = harness.invoke(FunctionKind::Global, "range", Value(),
                             {Value(INT64_MAX - 2), Value(INT64_MAX)}, {});
  EXPECT_EQ(top.repr(), "range(9223372036854775805, 9223372036854775807)");
  EXPECT_EQ(top.as_list().back(), Value(INT64_MAX - 1));
}

struct RenderCase {
  const char* name;
  const char* source;
  const char* values;
  const char* expected;  // the rendered text, or "!message" for an error
};

TEST(GlobalTest, RendersThroughTemplates) {
  // Expectations from Python Jinja2 3.1.6 with StrictUndefined rendering the same source.
  const std::vector<RenderCase> cases = {
      {"range in a loop", R"~({% for i in range(3) %}{{ i }}{% endfor %})~", R"~({})~", R"~(012)~"},
      {"range with step", R"~({{ range(10, 0, -4)|list }})~", R"~({})~", R"~([10, 6, 2])~"},
      {"range prints as a range", R"~({{ range(3) }} {{ range(1, 9, 2) }} {{ [range(0)] }})~",
       R"~({})~", R"~(range(0, 3) range(1, 9, 2) [range(0, 0)])~"},
      {"range equality", R"~({{ range(0) == range(2, 2) }} {{ range(3) == [0, 1, 2] }})~",
       R"~({})~", R"~(True False)~"},
      {"range slices are ranges", R"~({{ range(10)[::-1] }} {{ range(0, 10, 2)[1:3] }})~",
       R"~({})~", R"~(range(9, -1, -1) range(2, 6, 2))~"},
      {"range attributes", R"~({{ range(1, 9, 2).stop }} {{ range(3)[1] }})~", R"~({})~",
       R"~(9 1)~"},
      {"range order refused", R"~({{ range(3) < range(4) }})~", R"~({})~",
       R"~(!'<' not supported between instances of 'range' and 'range')~"},
      {"range plus refused", R"~({{ range(3) + [1] }})~", R"~({})~",
       R"~(!unsupported operand type(s) for +: 'range' and 'list')~"},
      {"range tojson refused", R"~({{ range(3) | tojson }})~", R"~({})~",
       R"~(!Object of type range is not JSON serializable)~"},
      // Python renders 100001 here: Jinja2 only limits ranges in its sandbox.
      {"range too big", R"~({{ range(100001)|length }})~", R"~({})~",
       R"~(!range too big: 100001 items, the limit is 100000)~"},
      {"dict keywords", R"~({{ dict(b=1, a=2) }})~", R"~({})~", R"~({'b': 1, 'a': 2})~"},
      {"dict tojson", R"~({{ dict(stage=3, offload=none)|tojson }})~", R"~({})~",
       R"~({"offload": null, "stage": 3})~"},
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
