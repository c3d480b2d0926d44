// SPDX-License-Identifier: MIT
// `for ... recursive` and `loop(items)` (render_statements.cpp, loop_object.hpp): depth, the
// condition and `else` at every level, and recursion that never ends, which is a located error
// from the render's depth and step budgets (limits.hpp), never a stack overflow.
#include <gtest/gtest.h>

#include <chrono>

#include "support/render.hpp"

namespace zf {
namespace {

using test::render;
using test::render_error;

const nlohmann::ordered_json kTree = nlohmann::ordered_json::parse(
    R"({"tree": [{"n": "a", "c": [{"n": "b", "c": []}, {"n": "c", "c": [{"n": "d", "c": []}]}]},
                 {"n": "e", "c": []}]})");

TEST(RecursiveLoopTest, WalksATree) {
  EXPECT_EQ(render("{% for x in tree recursive %}{{ x.n }}{{ loop.depth }}{{ loop.depth0 }}"
                   "{% if x.c %}({{ loop(x.c) }}){% endif %}{% endfor %}",
                   kTree),
            "a10(b21c21(d32))e10");
  EXPECT_EQ(render("{% for x in tree if x.n != 'c' recursive %}{{ x.n }}[{{ loop(x.c) }}]"
                   "{% else %}-{% endfor %}",
                   kTree),
            "a[b[-]]e[-]");
  EXPECT_EQ(render("{% for x in [1] recursive %}{{ loop }}{{ loop.index }}/{{ loop.length }}"
                   "{% endfor %}"),
            "<LoopContext 1/1>1/1");
}

TEST(RecursiveLoopTest, EndlessRecursionIsALocatedError) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(render_error("{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}"),
            "t.j2:1:32: error: recursion too deep: the includes, imports, parent templates, "
            "blocks and macro calls open here nest their statements and expressions deeper than "
            "256 levels (at recursive loop; EnvironmentOptions::max_nesting raises the limit)");
  EnvironmentOptions shallow;
  shallow.max_depth = 10;
  EXPECT_EQ(render_error("{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}", {}, shallow),
            "t.j2:1:32: error: recursion too deep: more than 10 nested includes, macro calls or "
            "blocks (at recursive loop)");
  // Each level's statements count against the nesting budget, as a macro's do.
  std::string deep = "{% for x in [1] recursive %}";
  for (int i = 0; i < 40; ++i) deep += "{% if true %}";
  deep += "{{ loop([x]) }}";
  for (int i = 0; i < 40; ++i) deep += "{% endif %}";
  deep += "{% endfor %}";
  EXPECT_EQ(render_error(deep),
            "t.j2:1:552: error: recursion too deep: the includes, imports, parent templates, "
            "blocks and macro calls open here nest their statements and expressions deeper than "
            "256 levels (at recursive loop; EnvironmentOptions::max_nesting raises the limit)");
  // Wide recursion runs out of steps instead.
  EnvironmentOptions small;
  small.max_steps = 1000;
  EXPECT_EQ(render_error("{% for x in range(10) recursive %}{{ loop(range(10)) if loop.depth < 5 }}"
                         "{% endfor %}",
                         {}, small),
            "t.j2:1:4: error: this render took more than 1000 steps (loop iterations and macro "
            "calls; EnvironmentOptions::max_steps)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(RecursiveLoopTest, RefusesMisuse) {
  EXPECT_EQ(render_error("{% for x in [1] %}{{ loop([]) }}{% endfor %}"),
            "t.j2:1:22: error: the loop must have the 'recursive' marker to be called "
            "recursively");
  EXPECT_EQ(render("{% for x in [1, 2] %}{{ loop }} {{ loop['index'] }} {{ loop is mapping }};"
                   "{% endfor %}"),
            "<LoopContext 1/2> 1 False;<LoopContext 2/2> 2 False;");
  EXPECT_EQ(render_error("{% for x in [[1]] recursive %}{{ loop(x, 1) }}{% endfor %}"),
            "t.j2:1:34: error: loop() of a recursive loop takes 1 argument (2 given)");
  EXPECT_EQ(render_error("{% set ns = namespace() %}{% for x in [1] recursive %}"
                         "{% set ns.loop = loop %}{% endfor %}{{ ns.loop([1]) }}"),
            "t.j2:1:96: error: loop() called after its loop has finished");
  EXPECT_EQ(render_error("{% for x in [1] recursive %}{{ loop(5) }}{% endfor %}"),
            "t.j2:1:4: error: 'int' object is not iterable");
}

}  // namespace
}  // namespace zf
