// SPDX-License-Identifier: MIT
// shortest_floats (plugins/memory/json_floats.cpp): floats re-printed in zeroforge's JSON form,
// strings and integers untouched.
#include "memory/json_floats.hpp"

#include <gtest/gtest.h>

namespace zf::memory {
namespace {

TEST(JsonFloatsTest, RewritesFloatsInZeroforgesForm) {
  struct Case {
    const char* input;
    const char* expected;
  };
  const Case cases[] = {
      {"0.6177009999999999", "0.617701"},  // nlohmann's dump of 617701 / 1e6
      {"[1.0, -2.5, 100.0]", "[1.0, -2.5, 100.0]"},
      {"1e-05", "1e-5"},
      {"0.0001", "0.0001"},
      {"1.5e+300", "1.5e300"},
      {"1e+20", "100000000000000000000.0"},
      {"1e+21", "1e21"},
      {"-0.0", "-0.0"},
      {"{\"a\": 12, \"b\": -7}", "{\"a\": 12, \"b\": -7}"},
      {"{\"1.50\": \"x 0.6177009999999999 \\\" 2.50\"}",
       "{\"1.50\": \"x 0.6177009999999999 \\\" 2.50\"}"},
      {"{\"s\": 7.960696321719403}", "{\"s\": 7.960696321719403}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(shortest_floats(c.input), c.expected);
  }
}

}  // namespace
}  // namespace zf::memory
