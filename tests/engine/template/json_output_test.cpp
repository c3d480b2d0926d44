// SPDX-License-Identifier: MIT
// .json templates: rendered output is parsed and normalised, and JSON errors point at the
// template line that wrote the bad output.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "zeroforge/diagnostic.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"
#include "zeroforge/output.hpp"
#include "zeroforge/template.hpp"

namespace zf {
namespace {

using nlohmann::ordered_json;

std::string render_json_text(const std::string& source,
                             const ordered_json& values = ordered_json::object()) {
  Environment env;
  auto tpl = env.from_string(source, "c.json.j2");
  EXPECT_TRUE(tpl->is_json());
  return to_json_text(tpl->render_json(Value::from_json(values)));
}

// The what() of the error rendering `source` raises; its code is `output.json` (the reader's
// own `json.syntax` is for files zeroforge reads).
std::string json_error(const std::string& source) {
  try {
    render_json_text(source);
  } catch (const Error& e) {
    EXPECT_EQ(to_diagnostic(e).code, "output.json") << source;
    return e.what();
  }
  return "";
}

TEST(JsonOutputTest, NormalisesLayoutAndKeepsKeyOrder) {
  EXPECT_EQ(render_json_text(R"({"z": 1, "a": {"b": [1,2], "e": {}, "l": []}})"),
            "{\n  \"z\": 1,\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ],\n    \"e\": {},\n "
            "   \"l\": []\n  }\n}\n");
}

TEST(JsonOutputTest, WritesNumbersInAStableForm) {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"5e8", "500000000"},
      {"1e9", "1000000000"},
      {"{{ 5e8 }}", "500000000"},  // Python prints 500000000.0
      {"1.0", "1.0"},
      {"{{ 1e9 | int }}", "1000000000"},
      {"0.0001", "0.0001"},
      {"3e-5", "3e-5"},
      {"1.5e300", "1.5e300"},
      {"-2.5", "-2.5"},
      {"100", "100"},
      {"12345678901234", "12345678901234"},
      {"2.5e3", "2500"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    EXPECT_EQ(render_json_text("{\"v\": " + c.in + "}"), "{\n  \"v\": " + c.out + "\n}\n");
  }
}

TEST(JsonOutputTest, SmallIntegralFloatWithoutExponentStaysAFloat) {
  EXPECT_EQ(render_json_text("{\"v\": {{ 2 / 2 }}, \"w\": 999999.0, \"x\": 1000000.0}"),
            "{\n  \"v\": 1.0,\n  \"w\": 999999.0,\n  \"x\": 1000000\n}\n");
}

TEST(JsonOutputTest, DuplicateKeysAreAnErrorAtTheTemplateLine) {
  EXPECT_EQ(json_error("{\n  \"a\": 1,\n  {{ '\"a\"' }}: 2\n}"),
            "c.json.j2:3:3: error: the rendered output is not valid JSON: duplicate key \"a\" "
            "(output line 3, column 3: '  \"a\": 2')");
}

TEST(JsonOutputTest, SyntaxErrorNamesOutputAndTemplateLines) {
  EXPECT_EQ(json_error("{\n  \"a\": {{ x | default('cpu') }}\n}"),
            "c.json.j2:2:8: error: the rendered output is not valid JSON: expected a JSON value, "
            "found 'c' (output line 2, column 8: '  \"a\": cpu')");
}

TEST(JsonOutputTest, TrailingCommaIsReported) {
  EXPECT_EQ(json_error("{\"a\": 1,}"),
            "c.json.j2:1:1: error: the rendered output is not valid JSON: trailing comma in object "
            "(output line 1, column 9: '{\"a\": 1,}')");
}

TEST(JsonOutputTest, SyntaxErrorInAnIncludedPartialNamesThePartial) {
  test::TempDir dir;
  dir.write("main.json.j2", "{\n  \"a\": 1,\n{% include 'part.j2' %}\n}");
  dir.write("part.j2", "  \"b\": [1,\n  2,]");
  Environment env({.search_path = {dir.path()}});
  try {
    env.load("main.json.j2")->render_json(Value::from_json(ordered_json::object()));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir.path() / "part.j2").string() +
                  ":1:1: error: the rendered output is not valid JSON: trailing comma in array "
                  "(output line 4, column 5: '  2,]')");
  }
}

// Generate renders a thread's configs into one tree (render_json_into): each render gives
// what render_json gives, whatever the tree held, and a render whose output is not JSON
// raises render_json's error and leaves a tree the next render can use.
TEST(JsonOutputTest, RenderingIntoATreeGivesWhatRenderJsonGives) {
  Environment env;
  auto tpl = env.from_string(
      R"({"n": {{ n }}, "items": [{% for i in range(n) %}{{ "," if i }}{"i": {{ i }}}{% endfor %}]
{%- if n is even %}, "even": "{{ "x" * n }}"{% endif %}{% if n == 4 %}, "n": 0{% endif %}})",
      "c.json.j2");
  ordered_json tree;
  for (int n : {3, 5, 2, 0, 6, 4, 1, 3}) {
    SCOPED_TRACE(n);
    const Value values = Value::from_json({{"n", n}});
    if (n == 4) {
      std::string expected, got;
      try {
        tpl->render_json(values);
      } catch (const Error& e) {
        expected = e.what();
      }
      try {
        tpl->render_json_into(values, tree);
      } catch (const Error& e) {
        got = e.what();
      }
      EXPECT_NE(expected.find("duplicate key \"n\""), std::string::npos) << expected;
      EXPECT_EQ(got, expected);
      continue;
    }
    tpl->render_json_into(values, tree);
    EXPECT_EQ(to_json_text(tree), to_json_text(tpl->render_json(values)));
  }
}

}  // namespace
}  // namespace zf
