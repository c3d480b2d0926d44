// SPDX-License-Identifier: MIT
// Parser: what parses, and the exact message for each malformed template.
#include <gtest/gtest.h>

#include "support/render.hpp"

namespace zf {
namespace {

using test::render;
using test::render_error;

std::string repeat(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

const std::string kTooDeep =
    "statements and expressions nest deeper than 256 levels (EnvironmentOptions::max_nesting "
    "raises the limit)";

// A hostile template nests without end: each case once crashed the process with a stack
// overflow (issue 14); now the parser stops at EnvironmentOptions::max_nesting (256), which
// statements and expressions share, and names the place. It bounds the parser's own recursion
// (parentheses build no node) and the height of the tree it builds, which every later pass
// walks (issue 22: a chain the parser built in a loop overflowed the renderer).
TEST(ParserTest, NestingIsBoundedNeverAStackOverflow) {
  struct Case {
    std::string name, source, expected;
  };
  const Case cases[] = {
      {"100,000 parentheses", "{{ " + repeat("(", 100000) + "1" + repeat(")", 100000) + " }}",
       "t.j2:1:259: error: " + kTooDeep},
      {"a list 100,000 deep", "{{ " + repeat("[", 100000) + repeat("]", 100000) + " }}",
       "t.j2:1:259: error: " + kTooDeep},
      {"10,000 ifs", repeat("{% if true %}", 10000) + "x" + repeat("{% endif %}", 10000),
       "t.j2:1:3322: error: " + kTooDeep},
      {"not chains", "{{ " + repeat("not ", 100000) + "1 }}", "t.j2:1:1020: error: " + kTooDeep},
      {"unary minus chains", "{{ " + repeat("-", 100000) + "1 }}",
       "t.j2:1:258: error: " + kTooDeep},
      {"conditional chains", "{{ " + repeat("1 if x else ", 100000) + "2 }}",
       "t.j2:1:3064: error: " + kTooDeep},
      {"filter arguments", "{{ " + repeat("x|default(", 100000) + "1" + repeat(")", 100000) + " }}",
       "t.j2:1:2554: error: " + kTooDeep},
      // Built by a loop, not by recursion: the height of the tree stops these.
      {"inline ifs without else", "{{ 1" + repeat(" if x", 100000) + " }}",
       "t.j2:1:1276: error: " + kTooDeep},
      {"parentheses inside ifs",
       repeat("{% if true %}", 200) + "{{ " + repeat("(", 100) + "1" + repeat(")", 100) + " }}" +
           repeat("{% endif %}", 200),
       "t.j2:1:2659: error: " + kTooDeep},
      {"inline ifs inside ifs",
       repeat("{% if true %}", 200) + "{{ 1" + repeat(" if x", 100) + " }}" +
           repeat("{% endif %}", 200),
       "t.j2:1:2876: error: " + kTooDeep},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source, {{"x", 1}}), c.expected);
  }
  // The deepest of both that parses, analyses and renders: 127 loops (128 levels of bodies)
  // around 127 parentheses (128 levels of the parser's recursion); one more of either fails.
  auto nested = [](int loops, int parens) {
    return repeat("{% for x in [1] %}", loops) + "{{ " + repeat("(", parens) + "x" +
           repeat(")", parens) + " }}" + repeat("{% endfor %}", loops);
  };
  EXPECT_EQ(render(nested(127, 127)), "1");
  EXPECT_EQ(render_error(nested(128, 127)), "t.j2:1:2435: error: " + kTooDeep);
  EXPECT_EQ(render_error(nested(127, 128)), "t.j2:1:2418: error: " + kTooDeep);
}

// "a + b + c ..." joined by `sep`, `n` terms of `term`.
std::string chain(const std::string& term, const std::string& sep, int n) {
  std::string out = term;
  for (int i = 1; i < n; ++i) out += sep + term;
  return out;
}

// A long chain of one kind is one level of the tree, as a comparison chain is, so ordinary
// long templates parse and render however long the chain (issue 22: 40,000 terms overflowed
// the stack). The proof: each renders with EnvironmentOptions::max_nesting at 5. Chains that
// nest by their nature (`not not ...`, `- - ...`, `1 if x if x ...`) stop at the limit.
TEST(ParserTest, LongChainsAreOneLevelOfTheTree) {
  constexpr int n = 40000;
  EnvironmentOptions shallow;
  shallow.max_nesting = 5;
  struct Case {
    std::string name, source, expected;
  };
  const Case cases[] = {
      {"+", "{{ " + chain("1", " + ", n) + " }}", "40000"},
      {"-", "{{ " + chain("1", " - ", n) + " }}", "-39998"},
      {"* / // %", "{{ 7 * " + chain("1", " * ", n) + " // 2 / 1 % 2 }}", "1.0"},
      {"**", "{{ " + chain("2", " ** ", 3) + " ** " + chain("1", " ** ", n) + " }}", "16"},
      {"~", "{{ (" + chain("'ab'", " ~ ", n) + ") | length }}", "80000"},
      {"and", "{{ " + chain("x", " and ", n) + " }}", "7"},
      {"or", "{{ " + chain("0", " or ", n) + " or x }}", "7"},
      {"| filter", "{{ -x" + repeat(" | abs", n) + " }}", "7"},
      {"| filter(args)", "{{ 'x'" + repeat(" | replace('x', 'x')", n) + " }}", "x"},
      {"[0]", "{{ 'abc'" + repeat("[0]", n) + " }}", "a"},
      {"[1:]", "{{ 'abc'" + repeat("[1:]", n) + " }}", ""},
      {".method()", "{{ 'a'" + repeat(".upper().lower()", n / 2) + " }}", "a"},
      // A test cannot follow a test directly (Jinja2's grammar), so a filter sits between.
      {"is test", "{{ x" + repeat(" is number | string", n) + " }}", "False"},
      {"is test arg", "{{ x" + repeat(" is divisibleby 1 | int", n) + " }}", "1"},
      {"compare", "{{ " + chain("1", " < ", n) + " }}", "False"},
      {"mixed", "{{ " + chain("x.real | abs + 1", " - ", n) + " }}",
       "t.j2:1:13: error: 'int object' has no attribute 'real'"},
      {".attr", "{{ d" + repeat(".a", n) + " }}",
       "t.j2:1:7: error: 'int object' has no attribute 'a'"},
      {"(1)", "{{ f" + repeat("(1)", n) + " }}",
       "t.j2:1:4: error: undefined function or variable 'f' (the values lack 'f')"},
      {"~ of names and literals", "{{ (" + chain("x", " ~ '-' ~ ", n / 2) + ") | length }}",
       "39999"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const nlohmann::ordered_json values = {{"x", 7}, {"d", {{"a", 1}}}};
    if (c.expected.rfind("t.j2:", 0) == 0) {
      EXPECT_EQ(render_error(c.source, values, shallow), c.expected);
    } else {
      EXPECT_EQ(render(c.source, values, shallow), c.expected);
    }
  }
  // Chains that nest by their nature: refused where they pass the limit, never a crash.
  const Case nesting[] = {
      {"not", "{{ " + repeat("not ", n) + "x }}", "t.j2:1:1020: error: " + kTooDeep},
      {"unary -", "{{ " + repeat("- ", n) + "x }}", "t.j2:1:512: error: " + kTooDeep},
      {"inline if", "{{ 1" + repeat(" if x", n) + " }}", "t.j2:1:1276: error: " + kTooDeep},
      {"else if", "{{ " + repeat("1 if x else ", n) + "2 }}", "t.j2:1:3064: error: " + kTooDeep},
  };
  for (const auto& c : nesting) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source, {{"x", 1}}), c.expected);
  }
}

TEST(ParserTest, ReportsMalformedTemplates) {
  struct Case {
    std::string name, source, expected;
  };
  const Case cases[] = {
      {"unknown statement", "{% frobnicate %}", "t.j2:1:4: error: unknown statement 'frobnicate'"},
      // Jinja2 writes calls and tests as Python calls, which refuse a repeated keyword.
      {"keyword repeated in a call", "{{ range(stop=1, stop=2) }}",
       "t.j2:1:18: error: keyword argument repeated: stop"},
      {"keyword repeated in a test", "{{ 3 is eq(other=1, other=3) }}",
       "t.j2:1:21: error: keyword argument repeated: other"},
      // As in Jinja2, a name after a test (`if` too) is the test's argument.
      {"inline if after a test without parentheses", "{{ n is defined if true else 1 }}",
       "t.j2:1:20: error: expected end of print statement '}}', found name 'true'"},
      {"unclosed if", "{% if x %}\nabc",
       "t.j2:2:4: error: unexpected end of template: expected 'elif', 'else' or 'endif' to close "
       "the 'if' block opened at line 1"},
      {"unclosed for", "{% for x in y %}{{ x }}",
       "t.j2:1:24: error: unexpected end of template: expected 'else' or 'endfor' to close the "
       "'for' block opened at line 1"},
      {"wrong end tag", "{% for x in y %}\n{% endif %}",
       "t.j2:2:4: error: unexpected 'endif': the innermost open block is 'for' (line 1), which "
       "needs 'endfor'"},
      {"stray end tag", "{% endfor %}", "t.j2:1:4: error: unexpected 'endfor': no block is open"},
      {"unknown filter", "{{ x | frobnicate }}", "t.j2:1:8: error: unknown filter 'frobnicate'"},
      {"unknown test", "{{ x is frobnicated }}", "t.j2:1:9: error: unknown test 'frobnicated'"},
      // Inside an `if` an unknown filter fails only when it runs, but a loop, a macro or a
      // filter block starts a new scope (Jinja2 3.x); a syntax error later comes first.
      {"unknown filter in a loop inside an if",
       "{% if x %}{% for y in z %}{{ y | frob }}{% endfor %}{% endif %}",
       "t.j2:1:34: error: unknown filter 'frob'"},
      {"unknown filter in a macro inside a conditional's scope",
       "{{ 1 if x else 2 }}{% if x %}{% macro m(a=1 | frob) %}{% endmacro %}{% endif %}",
       "t.j2:1:47: error: unknown filter 'frob'"},
      {"unknown filter block inside an if", "{% if x %}{% filter frob %}{% endfilter %}{% endif %}",
       "t.j2:1:21: error: unknown filter 'frob'"},
      {"syntax error after an unknown filter", "{{ x | frob }}{{ 1 + }}",
       "t.j2:1:22: error: expected an expression, found end of print statement '}}'"},
      {"private name imported in a branch that never runs",
       "{% if false %}{% from 'lib.j2' import _helper %}{% endif %}",
       "t.j2:1:39: error: names starting with an underline can not be imported"},
      {"missing expression", "{{ }}",
       "t.j2:1:4: error: expected an expression, found end of print statement '}}'"},
      {"dangling operator", "{{ 1 + }}",
       "t.j2:1:8: error: expected an expression, found end of print statement '}}'"},
      {"two expressions", "{{ a b }}",
       "t.j2:1:6: error: expected end of print statement '}}', found name 'b'"},
      {"bad set", "{% set = 1 %}",
       "t.j2:1:8: error: expected a name to assign to in 'set', found '='"},
      {"for without in", "{% for x of y %}{% endfor %}",
       "t.j2:1:10: error: expected 'in' in 'for', found name 'of'"},
      {"unclosed paren", "{{ (1 + 2 }}", "t.j2:1:11: error: unexpected '}', expected ')'"},
      {"unclosed paren in a statement", "{% if (1 + 2 %}{% endif %}",
       "t.j2:1:15: error: unexpected '}', expected ')'"},
      {"mismatched endblock", "{% block a %}{% endblock b %}",
       "t.j2:1:26: error: 'endblock b' does not match 'block a'"},
      {"duplicate block", "{% block a %}{% endblock %}{% block a %}{% endblock %}",
       "t.j2:1:31: error: block 'a' is defined twice"},
      {"extends inside if", "{% if x %}{% extends 'a' %}{% endif %}",
       "t.j2:1:14: error: 'extends' must be at the top level of a template, not inside 'if'"},
      {"call block without a call", "{% call m %}{% endcall %}", "t.j2:1:9: error: expected call"},
      {"call block with a filter after the call", "{% call m() | upper %}{% endcall %}",
       "t.j2:1:9: error: expected call"},
      {"unclosed call block", "{% call m() %}x",
       "t.j2:1:16: error: unexpected end of template: expected 'endcall' to close the 'call' "
       "block opened at line 1"},
      {"caller parameter without a default", "{% macro m(caller) %}{{ caller() }}{% endmacro %}",
       "t.j2:1:4: error: when defining macros or call blocks the special 'caller' argument must "
       "be omitted or be given a default"},
      {"positional after *args", "{{ m(*a, 1) }}",
       "t.j2:1:5: error: invalid syntax for function call expression"},
      {"*args after **kwargs", "{{ m(**a, *b) }}",
       "t.j2:1:5: error: invalid syntax for function call expression"},
      {"keyword after **kwargs", "{{ m(**a, b=1) }}",
       "t.j2:1:5: error: invalid syntax for function call expression"},
      {"macro default order", "{% macro m(a=1, b) %}{% endmacro %}",
       "t.j2:1:17: error: parameter 'b' without a default follows one with a default"},
      {"macro duplicate parameter", "{% macro m(a, b, a=1) %}{% endmacro %}",
       "t.j2:1:18: error: duplicate parameter 'a' in macro 'm'"},
      {"positional after keyword", "{{ x | round(precision=1, 2) }}",
       "t.j2:1:27: error: positional argument follows keyword argument"},
      {"assign to constant", "{% set true = 1 %}", "t.j2:1:8: error: cannot assign to 'true'"},
      {"loop as a for target", "{% for x, loop in y %}{% endfor %}",
       "t.j2:1:11: error: cannot assign to the special loop variable 'loop' inside a 'for'"},
      {"set loop inside a for",
       "{% for x in y %}\n{% if x %}{% set loop = 1 %}{% endif %}{% endfor %}",
       "t.j2:2:18: error: cannot assign to the special loop variable 'loop' inside a 'for'"},
      {"set block loop in a macro inside a for",
       "{% for x in y %}{% macro m() %}{% set loop %}{% endset %}{% endmacro %}{% endfor %}",
       "t.j2:1:39: error: cannot assign to the special loop variable 'loop' inside a 'for'"},
      // Jinja2 assigns an attribute only on a plain name, one level deep; 3.1.2 also refuses
      // one in a tuple (3.1.3 and later accept it: docs/template-language.md, differences).
      {"attribute of an attribute", "{% set zero_optimization.offload_param.device = 'cpu' %}",
       "t.j2:1:39: error: expected end of statement block '%}' after 'set', found '.'"},
      {"attribute of an attribute in a block set",
       "{% set zero_optimization.offload_param.device %}cpu{% endset %}",
       "t.j2:1:39: error: expected end of statement block '%}' after 'set', found '.'"},
      {"subscript in a block set", "{% set zero_optimization['stage'] %}3{% endset %}",
       "t.j2:1:25: error: expected end of statement block '%}' after 'set', found '['"},
      {"attribute named by a number", "{% set zero_optimization.1 %}{% endset %}",
       "t.j2:1:26: error: expected an attribute name, found integer '1'"},
      {"namespace attribute first in a tuple", "{% set zero_optimization.stage, y = 1, 2 %}",
       "t.j2:1:31: error: a namespace attribute is assigned on its own, not in a tuple (use one "
       "'set' per attribute)"},
      {"namespace attribute first in a block set's tuple",
       "{% set zero_optimization.stage, y %}{% endset %}",
       "t.j2:1:31: error: a namespace attribute is assigned on its own, not in a tuple (use one "
       "'set' per attribute)"},
      {"namespace attribute later in a tuple", "{% set y, zero_optimization.stage = 1, 2 %}",
       "t.j2:1:28: error: a namespace attribute is assigned on its own, not in a tuple (use one "
       "'set' per attribute)"},
      {"integer too large", "{{ 99999999999999999999 }}",
       "t.j2:1:4: error: integer literal '99999999999999999999' is out of range (64-bit)"},
      // It was copied into .json output that zeroforge validate and Python's json refused.
      {"invalid UTF-8 in text", "{\"a\": 1,\n \"b\xe9\": 2}",
       "t.j2:2:4: error: invalid UTF-8 (byte 0xe9); templates are UTF-8 text"},
      {"invalid UTF-8 in a string literal", "{{ 'caf\xc3' }}",
       "t.j2:1:8: error: invalid UTF-8 (byte 0xc3); templates are UTF-8 text"},
      {"a lone surrogate escape", "{{ 'a\\ud800' }}",
       "t.j2:1:4: error: a lone surrogate escape in a string is not a character (UTF-8 output "
       "cannot hold it)"},
      {"an escape past U+10FFFF", "{{ '\\U00110000' }}",
       "t.j2:1:4: error: escape past U+10FFFF in string"},
      {"a test of a test", "{{ x is odd is defined }}",
       "t.j2:1:13: error: you cannot chain multiple tests with 'is'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source, {{"x", 1}, {"y", {1}}}), c.expected);
  }
}

TEST(ParserTest, ErrorCarriesTheSourceLineForTheCaret) {
  Environment env;
  try {
    env.from_string("line one\n  {{ 1 + }}", "t.j2");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.source_line(), "  {{ 1 + }}");
    EXPECT_EQ(e.where().line, 2u);
    EXPECT_EQ(e.where().column, 10u);
  }
}

TEST(ParserTest, PrecedenceFollowsJinja) {
  struct Case {
    std::string source, expected;
  };
  const Case cases[] = {
      {"{{ 1 + 2 * 3 }}", "7"},
      {"{{ 2 ** 3 ** 2 }}", "64"},  // Jinja2's ** is left-associative
      {"{{ -2 ** 2 }}", "4"},       // unary minus binds tighter than ** in Jinja2
      {"{{ 'a' ~ 2 * 3 }}", "a6"},  // * binds tighter than ~
      {"{{ (1 + 2) ~ 3 }}", "33"},
      {"{{ not 1 == 2 }}", "True"},
      {"{{ 1 if false else 2 if true else 3 }}", "2"},
      {"{{ 'a' ~ 1 | string }}", "a1"},
      {"{{ -3 | abs }}", "3"},
      {"{{ 1 < 2 < 3 }}", "True"},
      {"{{ 3 > 2 > 2 }}", "False"},
      {"{{ 'x' 'y' }}", "xy"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    EXPECT_EQ(render(c.source), c.expected);
  }
  // ~ binds tighter than +, so this is 1 + '23': a type error, as in Jinja2.
  EXPECT_EQ(render_error("{{ 1 + 2 ~ 3 }}"),
            "t.j2:1:6: error: unsupported operand type(s) for +: 'int' and 'str'");
}

}  // namespace
}  // namespace zf
