// SPDX-License-Identifier: MIT
// The render limits (engine/src/template/limits.hpp, EnvironmentOptions): each hostile
// template of issue 14 ends at once as an error at its place, never a hang, an exhausted
// machine or a bad_alloc; each limit can be raised; real templates never meet them.
#include <gtest/gtest.h>

#include <chrono>

#include "support/render.hpp"

namespace zf {
namespace {

using test::render;
using test::render_error;

const std::string kValueLimit =
    " bytes or items; one value may hold at most 268435456 (EnvironmentOptions::max_value_size)";

TEST(LimitsTest, HugeValuesAreRefusedBeforeTheyAreBuilt) {
  struct Case {
    std::string source, expected;
  };
  const Case cases[] = {
      {"{{ 'x' * 10**10 }}", "t.j2:1:8: error: str * int would build a value of 10000000000" +
                                 kValueLimit},
      {"{{ [0] * 10**9 }}", "t.j2:1:8: error: list * int would build a value of 1000000000" +
                                kValueLimit},
      {"{{ 10**9 * 'ab' }}", "t.j2:1:10: error: str * int would build a value of 2000000000" +
                                 kValueLimit},
      {"{{ 'a' | center(10**12) }}",
       "t.j2:1:10: error: center would build a value of 1000000000000" + kValueLimit},
      {"{{ 'a\\nb' | indent(10**10) }}",
       "t.j2:1:13: error: indent would build a value of 10000000000" + kValueLimit},
      {"{{ range(100000) | join('x' * 10000) }}",
       "t.j2:1:20: error: join would build a value of 1000000000" + kValueLimit},
      {"{{ [1, 2] | batch(10**10, 0) | list }}",
       "t.j2:1:13: error: batch would build a value of 10000000000" + kValueLimit},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(render_error(c.source), c.expected);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30))
        << "refused before building, not after";
  }
}

TEST(LimitsTest, ConcatenationAndReplaceAreBoundedToo) {
  EnvironmentOptions small;
  small.max_value_size = 100;
  const std::string limit =
      " bytes or items; one value may hold at most 100 (EnvironmentOptions::max_value_size)";
  struct Case {
    std::string source, expected;
  };
  const Case cases[] = {
      {"{{ ('x' * 60) ~ ('y' * 50) }}", "t.j2:1:15: error: ~ would build a value of 110" + limit},
      {"{% set s = 'x' * 60 %}{{ s + s }}",
       "t.j2:1:28: error: str + str would build a value of 120" + limit},
      {"{{ [0] * 60 + [1] * 60 }}",
       "t.j2:1:13: error: list + list would build a value of 120" + limit},
      {"{{ ('x' * 40).replace('x', 'yyy') }}",
       "t.j2:1:14: error: replace would build a value of 102" + limit},
      {"{{ '-'.join(['ab'] * 60) }}", "t.j2:1:7: error: str.join would build a value of 101" + limit},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    EXPECT_EQ(render_error(c.source, {}, small), c.expected);
  }
}

TEST(LimitsTest, LoopsAndOutputHaveABudget) {
  EXPECT_EQ(render_error("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}"
                         "{% endfor %}"),
            "t.j2:1:32: error: this render took more than 10000000 steps (loop iterations and "
            "macro calls; EnvironmentOptions::max_steps)");
  EXPECT_EQ(render_error("{% macro f() %}x{% endmacro %}{% for a in range(100000) %}"
                         "{% for b in range(100) %}{{ f() }}{% endfor %}{% endfor %}"),
            "t.j2:1:62: error: this render took more than 10000000 steps (loop iterations and "
            "macro calls; EnvironmentOptions::max_steps)");
  EXPECT_EQ(render_error("{% for a in range(100000) %}{{ 'x' * 10000 }}{% endfor %}"),
            "t.j2:1:36: error: the output grew past 268435456 bytes "
            "(EnvironmentOptions::max_output_size)");
}

TEST(LimitsTest, EachLimitCanBeRaisedOrLowered) {
  EnvironmentOptions small;
  small.max_value_size = 10;
  small.max_output_size = 20;
  small.max_steps = 5;
  EXPECT_EQ(render("{{ 'x' * 10 }}", {}, small), "xxxxxxxxxx");
  EXPECT_EQ(render_error("{{ 'x' * 11 }}", {}, small),
            "t.j2:1:8: error: str * int would build a value of 11 bytes or items; one value may "
            "hold at most 10 (EnvironmentOptions::max_value_size)");
  EXPECT_EQ(render("{% for i in range(5) %}{{ i }}{% endfor %}", {}, small), "01234");
  EXPECT_EQ(render_error("{% for i in range(6) %}{{ i }}{% endfor %}", {}, small),
            "t.j2:1:4: error: this render took more than 5 steps (loop iterations and macro "
            "calls; EnvironmentOptions::max_steps)");
  EXPECT_EQ(render_error("{{ 'x' * 10 }}{{ 'y' * 10 }}{{ 'z' }}", {}, small),
            "t.j2:1:32: error: the output grew past 20 bytes (EnvironmentOptions::max_output_size)");
  small.max_value_size = 1000;
  EXPECT_EQ(render("{{ ('x' * 999) | length }}", {}, small), "999");
}

}  // namespace
}  // namespace zf
