// SPDX-License-Identifier: MIT
// JSON compared as DeepSpeed reads it (engine/src/import/json_compare.cpp): any key order,
// numbers by value, and the pointers where two documents differ.
#include "import/json_compare.hpp"

#include <gtest/gtest.h>

namespace zf::importer {
namespace {

using Json = nlohmann::ordered_json;

TEST(JsonCompareTest, NumbersAreEqualByValueAndObjectsInAnyOrder) {
  struct Case {
    const char* a;
    const char* b;
    bool same;
  };
  const Case cases[] = {
      {R"({"sub_group_size": 1e9})", R"({"sub_group_size": 1000000000})", true},
      {R"({"a": 1, "b": {"c": [1, 2.0]}})", R"({"b": {"c": [1.0, 2]}, "a": 1})", true},
      {R"({"x": 18446744073709551615})", R"({"x": 18446744073709551615})", true},
      // 2^63 as unsigned is not int64's -2^63, nor 2^63 - 1.
      {R"({"x": 9223372036854775808})", R"({"x": -9223372036854775808})", false},
      {R"({"x": 9223372036854775808})", R"({"x": 9223372036854775807})", false},
      {R"({"x": 0.1})", R"({"x": 0.10000000000000001})", true},  // the same double
      {R"({"x": 1})", R"({"x": true})", false},
      {R"({"x": "1"})", R"({"x": 1})", false},
      {R"({"x": null})", R"({})", false},
      {R"({"x": [1, 2]})", R"({"x": [2, 1]})", false},
      {R"({"x": {}})", R"({"x": []})", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + c.b);
    const Json a = Json::parse(c.a), b = Json::parse(c.b);
    EXPECT_EQ(same_json(a, b), c.same);
    EXPECT_EQ(same_json(b, a), c.same);
    EXPECT_EQ(json_differences(a, b).empty(), c.same);
  }
}

TEST(JsonCompareTest, DifferencesAreThePointersOfKeysAndValuesInAThenBOrder) {
  const Json a = Json::parse(R"({"a": 1, "b": {"c": 2, "e/f": 1}, "x": [1]})");
  const Json b = Json::parse(R"({"d": 0, "x": [1, 2], "a": 1.0, "b": {"c": 3, "e/f": 1}})");
  EXPECT_EQ(json_differences(a, b), (std::vector<std::string>{"/b/c", "/x", "/d"}));
  const Json c = Json::parse(R"({"b": {"c": 2}, "a": 1, "x": [1], "m~n": 0})");
  EXPECT_EQ(json_differences(a, c), (std::vector<std::string>{"/b/e~1f", "/m~0n"}));
  EXPECT_EQ(json_differences(Json(1), Json("1")), (std::vector<std::string>{""}));
}

}  // namespace
}  // namespace zf::importer
