// SPDX-License-Identifier: MIT
// The render limits (engine/src/template/limits.hpp, EnvironmentOptions): each hostile
// template of issue 14 ends at once as an error at its place, never a hang, an exhausted
// machine or a bad_alloc; each limit can be raised; real templates never meet them.
#include <gtest/gtest.h>

#include <chrono>

#include "support/cli_runner.hpp"
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
      {"{{ 'x' * 10**10 }}",
       "t.j2:1:8: error: str * int would build a value of 10000000000" + kValueLimit},
      {"{{ [0] * 10**9 }}",
       "t.j2:1:8: error: list * int would build a value of 1000000000" + kValueLimit},
      {"{{ 10**9 * 'ab' }}",
       "t.j2:1:10: error: str * int would build a value of 2000000000" + kValueLimit},
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
      {"{{ '-'.join(['ab'] * 60) }}",
       "t.j2:1:7: error: str.join would build a value of 101" + limit},
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
  EXPECT_EQ(
      render_error("{{ 'x' * 10 }}{{ 'y' * 10 }}{{ 'z' }}", {}, small),
      "t.j2:1:32: error: the output grew past 20 bytes (EnvironmentOptions::max_output_size)");
  small.max_value_size = 1000;
  EXPECT_EQ(render("{{ ('x' * 999) | length }}", {}, small), "999");
}

std::string repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// `n` ifs around `body`: a tree of n levels more than `body`'s.
std::string ifs(int n, const std::string& body) {
  return repeat("{% if x %}", n) + body + repeat("{% endif %}", n);
}

// Rendering nests the trees it enters, so includes, imports, parent templates, blocks and
// macro calls each draw their tree's height on the budget the parser held each tree under
// (EnvironmentOptions::max_nesting): templates that each parse cannot together take the
// renderer past the stack (issue 22). The error names the place that went too deep.
TEST(LimitsTest, IncludesImportsParentsBlocksAndMacroCallsDrawOnTheNestingBudget) {
  test::TempDir dir;
  dir.write("deep.j2", ifs(20, "{{ x }}"));  // 22 levels: 20 ifs, the print, the name
  dir.write("child.j2", "{% extends 'deep.j2' %}");
  dir.write("parent.j2", ifs(10, "{% block b %}{% endblock %}"));
  dir.write("overrides.j2",
            "{% extends 'parent.j2' %}{% block b %}" + ifs(18, "{{ x }}") + "{% endblock %}");
  EnvironmentOptions options;
  options.search_path = {dir.path()};
  options.max_nesting = 30;
  Environment env(options);
  auto render_with = [&](const std::string& source) -> std::string {
    try {
      return env.from_string(source, "t.j2")->render(Value::from_json({{"x", 1}}));
    } catch (const Error& error) {
      return error.what();
    }
  };
  auto at = [&](const std::string& file, const std::string& where) {
    return (dir.path() / file).string() + ":1:" + where + ": ";
  };
  const std::string too_deep =
      "error: recursion too deep: the includes, imports, parent templates, blocks and macro "
      "calls open here nest their statements and expressions deeper than 30 levels (at ";
  const std::string raise = "; EnvironmentOptions::max_nesting raises the limit)";
  struct Case {
    std::string name, source, expected;
  };
  // t.j2's height and the heights of what it enters, summed: 6 ifs around an include (its
  // name one level more) are 8 levels, and deep.j2's 22 make 30; 7 ifs make 31.
  const Case cases[] = {
      {"include at the budget", ifs(6, "{% include 'deep.j2' %}"), "1"},
      {"include past it", ifs(7, "{% include 'deep.j2' %}"),
       "t.j2:1:74: " + too_deep + "include" + raise},
      {"import past it", ifs(7, "{% import 'deep.j2' as m %}"),
       "t.j2:1:74: " + too_deep + "import" + raise},
      {"parent template past it", ifs(7, "{% include 'child.j2' %}"),
       at("child.j2", "4") + too_deep + "extends" + raise},
      // parent.j2's 11 levels replace overrides.j2's 21 when it runs (2 + 11), and its block
      // enters the override's 21: 34.
      {"overriding block past it", "{% include 'overrides.j2' %}",
       at("parent.j2", "104") + too_deep + "block" + raise},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_with(c.source), c.expected);
  }
  // Macro calls, with the default budget: each call of this macro draws its 6 levels, so 41
  // nested calls fit in 256 and the 42nd is refused where it is made.
  const std::string countdown =
      "{% macro m(k) %}{% if k %}{{ m(k - 1) }}{% endif %}{% endmacro %}{{ m(";
  EXPECT_EQ(test::render(countdown + "40) }}"), "");
  EXPECT_EQ(test::render_error(countdown + "41) }}"),
            "t.j2:1:30: error: recursion too deep: the includes, imports, parent templates, "
            "blocks and macro calls open here nest their statements and expressions deeper than "
            "256 levels (at macro; EnvironmentOptions::max_nesting raises the limit)");
}

// The analysis (undeclared_variables) follows includes as a render would and stops where a
// render would stop: it lists the names of the templates a render can reach, and a chain of
// includes of any length costs it a bounded stack.
TEST(LimitsTest, TheAnalysisFollowsIncludesWithinTheSameBudget) {
  test::TempDir dir;
  for (int i = 0; i < 300; ++i) {
    dir.write("t" + std::to_string(i) + ".j2",
              ifs(10, "{{ v" + std::to_string(i) + " }}{% include 't" + std::to_string(i + 1) +
                          ".j2' ignore missing %}"));
  }
  EnvironmentOptions options;
  options.search_path = {dir.path()};
  options.max_nesting = 30;  // t0 (12 levels) and t1 (12 more) fit, t2 would not
  Environment env(options);
  auto first = env.load("t0.j2");
  EXPECT_EQ(first->undeclared_variables(), (std::vector<std::string>{"v0", "v1", "x"}));
  try {
    first->render(Value::from_json({{"x", 1}, {"v0", 0}, {"v1", 1}}));
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              (dir.path() / "t1.j2").string() +
                  ":1:112: error: recursion too deep: the includes, imports, parent templates, "
                  "blocks and macro calls open here nest their statements and expressions deeper "
                  "than 30 levels (at include; EnvironmentOptions::max_nesting raises the limit)");
  }
}

}  // namespace
}  // namespace zf
