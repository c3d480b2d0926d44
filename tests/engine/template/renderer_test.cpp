// SPDX-License-Identifier: MIT
// Renderer: scoping, loops, macros, Python value printing, strict undefined and the
// location of runtime errors.
#include <gtest/gtest.h>

#include "support/cli_runner.hpp"
#include "support/render.hpp"

namespace zf {
namespace {

using nlohmann::ordered_json;
using test::render;
using test::render_error;

TEST(RendererTest, RendersStatementsAndExpressions) {
  struct Case {
    std::string name, source;
    ordered_json values;
    std::string expected;
  };
  const Case cases[] = {
      {"text only", "hello", {}, "hello"},
      {"variable", "{{ stage }}", {{"stage", 3}}, "3"},
      {"nested attribute",
       "{{ zero.offload.device }}",
       {{"zero", {{"offload", {{"device", "cpu"}}}}}},
       "cpu"},
      {"subscript", "{{ d['a-b'] }}", {{"d", {{"a-b", 1}}}}, "1"},
      {"negative index", "{{ xs[-1] }}", {{"xs", {1, 2, 3}}}, "3"},
      {"python printing",
       "{{ none }} {{ true }} {{ 1.0 }} {{ 1e9 }} {{ 5e-5 }} {{ [1, 'a'] }} {{ {'k': none} }}",
       {},
       "None True 1.0 1000000000.0 5e-05 [1, 'a'] {'k': None}"},
      {"division is float",
       "{{ 7 / 2 }} {{ 8 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 2 ** -1 }}",
       {},
       "3.5 4.0 3 -4 2 0.5"},
      {"and/or return operands", "{{ 0 or 'x' }} {{ 1 and [] }} {{ none or 0 }}", {}, "x [] 0"},
      {"in",
       "{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [3] }}",
       {},
       "True True True False"},
      {"if elif else", "{% if s == 0 %}a{% elif s == 3 %}b{% else %}c{% endif %}", {{"s", 3}}, "b"},
      {"for with loop",
       "{% for x in xs %}{{ loop.index }}{{ x }}{% if not loop.last %},{% endif %}{% endfor %}",
       {{"xs", {"a", "b"}}},
       "1a,2b"},
      {"for revindex length first",
       "{% for x in xs %}{{ loop.revindex }}/{{ loop.length }}{{ loop.first }} {% endfor %}",
       {{"xs", {1, 2}}},
       "2/2True 1/2False "},
      {"for else",
       "{% for x in xs %}{{ x }}{% else %}empty{% endfor %}",
       {{"xs", ordered_json::array()}},
       "empty"},
      {"for filter",
       "{% for x in xs if x > 1 %}{{ loop.index }}{{ x }}{% endfor %}",
       {{"xs", {1, 2, 3}}},
       "1223"},
      {"for over items",
       "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
       {{"d", {{"b", 1}, {"a", 2}}}},
       "b=1;a=2;"},
      {"for over dict keys",
       "{% for k in d %}{{ k }}{% endfor %}",
       {{"d", {{"x", 1}, {"y", 2}}}},
       "xy"},
      {"set in loop does not leak",
       "{% set n = 1 %}{% for x in [1, 2] %}{% set n = x %}{% endfor %}{{ n }}",
       {},
       "1"},
      {"set in if leaks", "{% if true %}{% set n = 2 %}{% endif %}{{ n }}", {}, "2"},
      {"block set", "{% set s %}a{{ 1 + 1 }}{% endset %}{{ s }}", {}, "a2"},
      {"block set with filter", "{% set s | upper %}ab{% endset %}{{ s }}", {}, "AB"},
      // The body sees the attribute's old value; the filters apply; the value is a string.
      {"block set of a namespace attribute",
       "{% set ns = namespace(x=1) %}{% set ns.x | upper %}hi {{ ns.x }}{% endset %}[{{ ns.x }}]"
       "{{ ns.x is string }}",
       {},
       "[HI 1]True"},
      {"block set of a namespace attribute outlives the loop",
       "{% set ns = namespace() %}{% for i in [1, 2] %}{% set ns.x %}{{ i }}{% endset %}"
       "{% endfor %}{{ ns.x }}",
       {},
       "2"},
      // The namespace is the one outside the block, even when the body assigns `ns`.
      {"block set of a namespace attribute looks the namespace up outside",
       "{% set ns = namespace() %}{% set ns.x %}{{ ns }}{% set ns = 3 %}{% endset %}{{ ns.x }}",
       {},
       "<Namespace {}>"},
      // Only a read of `loop` makes a loop's loop object; `set loop.x` sets the name outside.
      {"a namespace called loop set inside a loop",
       "{% set loop = namespace() %}{% for i in [1] %}{% set loop.x = 1 %}{% set loop.y %}b"
       "{% endset %}{% endfor %}{{ loop.x }}{{ loop.y }}",
       {},
       "1b"},
      {"tuple set", "{% set a, b = [1, 2] %}{{ b }}{{ a }}", {}, "21"},
      {"macro defaults and keywords",
       "{% macro m(a, b=2, c=a) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, c=5) }}",
       {},
       "121 125"},
      {"macro sees template values",
       "{% macro m() %}{{ stage }}{% endmacro %}{{ m() }}",
       {{"stage", 2}},
       "2"},
      {"macro does not see caller locals",
       "{% macro m() %}{{ x is defined }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}",
       {},
       "False"},
      {"filter block", "{% filter upper %}abc{% endfilter %}", {}, "ABC"},
      {"with", "{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}{{ a is defined }}", {}, "3False"},
      {"inline if without else in a test", "{{ (1 if false) is defined }}", {}, "False"},
      {"inline if without else prints nothing",
       "[{{ 1 if false }}]{{ (1 if false) ~ 'x' }}",
       {},
       "[]x"},
      {"dict methods",
       "{{ d.keys() | list }} {{ d.values() | list }} {{ d.get('z', 0) }} {{ d.get('a') }}",
       {{"d", {{"a", 1}}}},
       "['a'] [1] 0 1"},
      {"string methods",
       "{{ 'a,b'.split(',') }} {{ ' x '.strip() }} {{ 'ab'.upper() }} {{ 'ab'.startswith('a') }}",
       {},
       "['a', 'b'] x AB True"},
      {"slices",
       "{{ [1, 2, 3, 4][1:3] }} {{ 'hello'[::-1] }} {{ [1, 2, 3][-2:] }}",
       {},
       "[2, 3] olleh [2, 3]"},
      {"string repeat and list concat", "{{ 'ab' * 2 }} {{ [1] + [2] }}", {}, "abab [1, 2]"},
      {"unicode string iteration", "{% for c in 'héllo' %}{{ c }}.{% endfor %}", {}, "h.é.l.l.o."},
      {"range and dict globals", "{{ range(3) | list }} {{ dict(a=1) }}", {}, "[0, 1, 2] {'a': 1}"},
      {"default on missing key",
       "{{ d.missing | default('x') }}",
       {{"d", ordered_json::object()}},
       "x"},
      {"is defined on missing key",
       "{{ d.missing is defined }}",
       {{"d", ordered_json::object()}},
       "False"},
      // A global function named without a call is the function itself, as in Jinja2.
      {"global function as a value",
       "{{ range is defined }} {{ dict is callable }} {% set r = range %}{{ r(2) | list }} "
       "{{ range }} {{ namespace }}",
       {},
       "True True [0, 1] <class 'range'> <class 'jinja2.utils.Namespace'>"},
      {"a value shadows a global function", "{{ range }}", {{"range", 3}}, "3"},
      {"filter block giving a string", "{% filter length | string %}abc{% endfilter %}", {}, "3"},
      {"markup index and slice keep the mark",
       "{{ [('<b>' | e)[0]] }} {{ ('<b>x' | e)[1:4] is escaped }}",
       {},
       "[Markup('&')] True"},
      {"repeated filter keyword: the last wins",
       "{{ 'x' | center(width=3, width=5) }}",
       {},
       "  x  "},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render(c.source, c.values.is_null() ? ordered_json::object() : c.values), c.expected);
  }
}

TEST(RendererTest, ReportsRuntimeErrorsAtTheFailingExpression) {
  struct Case {
    std::string name, source;
    ordered_json values;
    std::string expected;
  };
  const Case cases[] = {
      {"undefined variable",
       "a\n  {{ stage }}",
       {},
       "t.j2:2:6: error: undefined variable 'stage' (the values lack 'stage')"},
      {"undefined lists every missing name",
       "{{ stage }}{{ precision }}{% if nodes %}{% endif %}{{ x | default(1) }}",
       {},
       "t.j2:1:4: error: undefined variable 'stage' (the values lack 'nodes', 'precision' and "
       "'stage')"},
      {"undefined attribute",
       "{{ zero.stage }}",
       {{"zero", ordered_json::object()}},
       "t.j2:1:8: error: 'dict object' has no attribute 'stage'"},
      {"undefined element",
       "{{ xs[5] }}",
       {{"xs", {1}}},
       "t.j2:1:6: error: 'list object' has no element 5"},
      {"undefined in if",
       "{% if missing %}x{% endif %}",
       {},
       "t.j2:1:7: error: undefined variable 'missing' (the values lack 'missing')"},
      // A name set in one branch only is read from the values when that branch is not taken.
      {"set in one branch of an if",
       "{% if a %}{% set x = 1 %}{% endif %}{{ x }}",
       {},
       "t.j2:1:7: error: undefined variable 'a' (the values lack 'a' and 'x')"},
      {"set in every branch of an if",
       "{% if a %}{% set x = 1 %}{% elif b %}{% set x = 2 %}{% else %}{% set x = 3 %}{% endif %}"
       "{{ x }}",
       {},
       "t.j2:1:7: error: undefined variable 'a' (the values lack 'a' and 'b')"},
      {"set in the if branch, read in it",
       "{% if a %}{% set x = 1 %}{{ x }}{% endif %}{{ y }}",
       {},
       "t.j2:1:7: error: undefined variable 'a' (the values lack 'a' and 'y')"},
      {"set in the first branch, read by an elif test",
       "{% if a %}{% set x = 1 %}{% elif x %}{% set x = 2 %}{% else %}{% set x = 3 %}{% endif %}",
       {},
       "t.j2:1:7: error: undefined variable 'a' (the values lack 'a' and 'x')"},
      {"attribute of undefined",
       "{{ a.b }}",
       {{"z", 1}},
       "t.j2:1:4: error: undefined variable 'a' (the values lack 'a')"},
      {"division by zero", "{{ 1 / 0 }}", {}, "t.j2:1:6: error: division by zero"},
      {"zero to a negative power",
       "{{ 0 ** -1 }}",
       {},
       "t.j2:1:6: error: 0.0 cannot be raised to a negative power"},
      {"list plus tuple",
       "{{ [1] + (2,) }}",
       {},
       "t.j2:1:8: error: can only concatenate list (not \"tuple\") to list"},
      {"list in a dict", "{{ [1] in {} }}", {}, "t.j2:1:4: error: unhashable type: 'list'"},
      {"unpack an int",
       "{% set a, b = 1 %}",
       {},
       "t.j2:1:4: error: cannot unpack non-iterable int object"},
      {"type error",
       "{{ 'a' - 1 }}",
       {},
       "t.j2:1:8: error: unsupported operand type(s) for -: 'str' and 'int'"},
      {"not callable", "{{ x() }}", {{"x", 1}}, "t.j2:1:4: error: 'int' object is not callable"},
      {"unknown function",
       "{{ nope() }}",
       {},
       "t.j2:1:4: error: undefined function or variable 'nope' (the values lack 'nope')"},
      {"iterate an int",
       "{% for x in 3 %}{% endfor %}",
       {},
       "t.j2:1:13: error: 'int' object is not iterable"},
      {"unpack mismatch",
       "{% for a, b in [[1, 2, 3]] %}{% endfor %}",
       {},
       "t.j2:1:4: error: too many values to unpack (expected 2, got 3)"},
      {"undefined from inline if used in arithmetic",
       "{{ (1 if false) + 1 }}",
       {},
       "t.j2:1:17: error: the inline if-expression evaluated to false and has no 'else'"},
      {"undefined flag of default",
       "{{ x | default(1, flag) }}",
       {{"x", 0}},
       "t.j2:1:19: error: undefined variable 'flag' (the values lack 'flag')"},
      // x starts undefined at the top level, as in Jinja2: the values' x is never read, so
      // the error does not ask for it.
      {"macro run before a later top-level set",
       "{% macro m() %}{{ x }}{% endmacro %}{{ m() }}{% set x = 5 %}",
       {{"x", 1}},
       "t.j2:1:19: error: undefined variable 'x'"},
      {"filter error",
       "{{ 'x' | int(base=99) | round(foo=1) }}",
       {},
       "t.j2:1:25: error: filter 'round' got an unexpected keyword argument 'foo'"},
      {"integer overflow",
       "{{ 9223372036854775807 + 1 }}",
       {},
       "t.j2:1:24: error: integer overflow (zeroforge integers are 64-bit)"},
      {"macro keyword",
       "{% macro m(a) %}{% endmacro %}{{ m(b=1) }}",
       {},
       "t.j2:1:34: error: macro 'm' takes no keyword argument 'b'"},
      {"recursive macro",
       "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
       {},
       // Each call draws the macro's height (4) on max_nesting: 63 calls fit in 256 levels.
       "t.j2:1:19: error: recursion too deep: the includes, imports, parent templates, blocks "
       "and macro calls open here nest their statements and expressions deeper than 256 levels "
       "(at macro; EnvironmentOptions::max_nesting raises the limit)"},
      // Conditions that are comparisons or tests are answered without a bool value in between;
      // their errors point where an expression's would.
      {"comparison in if",
       "{% if 1 < 'a' %}x{% endif %}",
       {},
       "t.j2:1:7: error: '<' not supported between instances of 'int' and 'str'"},
      {"comparison in inline if",
       "{{ 'y' if 2 > 'b' }}",
       {},
       "t.j2:1:11: error: '<' not supported between instances of 'int' and 'str'"},
      {"test in if",
       "{% if nothing is divisibleby 3 %}x{% endif %}",
       {},
       "t.j2:1:18: error: undefined variable 'nothing' (the values lack 'nothing')"},
      {"test in elif",
       "{% if false %}{% elif 'a' is divisibleby 'b' %}{% endif %}",
       {},
       "t.j2:1:30: error: not all arguments converted during string formatting"},
      // Jinja2 gives a complex number here; zeroforge has none and refuses rather than
      // printing nan (docs/template-language.md, differences).
      {"negative base to a fractional power",
       "{{ 1 + (base_learning_rate_scale ** 0.5) }}",
       {{"base_learning_rate_scale", -8}},
       "t.j2:1:34: error: a negative number raised to a fractional power is a complex number, "
       "which zeroforge does not support"},
      {"float power overflow",
       "{{ 10.0 ** 400 }}",
       {},
       "t.j2:1:9: error: the result of ** is too large for a float (Python: OverflowError)"},
      // A list prints an undefined item as `[Undefined]` (Jinja2's StrictUndefined); the item
      // taken out again is as undefined as before.
      {"undefined taken out of a list",
       "{{ [1, gradient_accumulation_steps_override][1] }}",
       {},
       "t.j2:1:45: error: undefined variable 'gradient_accumulation_steps_override' (the values "
       "lack 'gradient_accumulation_steps_override')"},
      // A namespace that holds itself would print forever and never be freed.
      {"namespace stored inside itself",
       "{% set ns = namespace(items=[]) %}\n{% set ns.items = ns.items + [ns] %}",
       {},
       "t.j2:2:4: error: cannot store a namespace inside itself (attribute 'items')"},
      {"namespace attribute on a dict",
       "{% set zero_optimization = {'stage': 3} %}{% set zero_optimization.stage = 2 %}",
       {},
       "t.j2:1:50: error: cannot assign attribute on non-namespace object"},
      {"namespace attribute on an undefined name",
       "{{ 1 }}\n  {% set zero_namespace.stage = 2 %}",
       {},
       "t.j2:2:10: error: undefined variable 'zero_namespace' (the values lack "
       "'zero_namespace')"},
      // The block form refuses what the `=` form refuses, at the same place. Jinja2 3.1.3 and
      // later write a block set's value into a dict silently (3.1.2 refuses, as here).
      {"block set of a namespace attribute on a dict",
       "{% set zero_optimization = {'stage': 3} %}{% set zero_optimization.stage %}2{% endset %}",
       {},
       "t.j2:1:50: error: cannot assign attribute on non-namespace object"},
      {"block set of a namespace attribute on a number",
       "{% set zero_optimization = 3 %}{% set zero_optimization.stage | trim %} 2 {% endset %}",
       {},
       "t.j2:1:39: error: cannot assign attribute on non-namespace object"},
      {"block set of a namespace attribute on an undefined name",
       "{{ 1 }}\n  {% set zero_namespace.stage | trim %}2{% endset %}",
       {},
       "t.j2:2:10: error: undefined variable 'zero_namespace' (the values lack "
       "'zero_namespace')"},
      // The body and the filters run first, as in Jinja2.
      {"block set of a namespace attribute whose body fails",
       "{% set zero_optimization = {} %}{% set zero_optimization.stage %}{{ 1 // 0 }}"
       "{% endset %}",
       {},
       "t.j2:1:71: error: integer division or modulo by zero"},
      {"tuple compared with list",
       "{{ () < [1] }}",
       {},
       "t.j2:1:4: error: '<' not supported between instances of 'tuple' and 'list'"},
      {"filter block giving a number",
       "{% filter length %}abc{% endfilter %}",
       {},
       "t.j2:1:4: error: a filter block must give a string, not int (Jinja2 cannot write it "
       "either: add '| string')"},
      // Inside an `if` or a conditional, an unknown filter or test fails when it runs.
      {"unknown filter in an if that runs",
       "{% if true %}{{ 1 | nosuch }}{% endif %}",
       {},
       "t.j2:1:21: error: unknown filter 'nosuch'"},
      {"unknown test in a conditional that runs",
       "{{ 0 if (2 is frob) else 1 }}",
       {},
       "t.j2:1:15: error: unknown test 'frob'"},
      {"unknown Markup method",
       "{{ ('a' | e).nosuch() }}",
       {},
       "t.j2:1:13: error: 'markupsafe.Markup object' has no attribute 'nosuch'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source, c.values.is_null() ? ordered_json::object() : c.values),
              c.expected);
  }
}

TEST(RendererTest, TemplateIsReusableAcrossRenders) {
  Environment env;
  auto tpl = env.from_string("{{ a }}-{% for x in xs %}{{ x }}{% endfor %}", "t");
  for (int i = 0; i < 3; ++i) {
    ordered_json values = {{"a", i}, {"xs", {i, i + 1}}};
    EXPECT_EQ(tpl->render(Value::from_json(values)),
              std::to_string(i) + "-" + std::to_string(i) + std::to_string(i + 1));
  }
}

TEST(RendererTest, GlobalsLieUnderTheContext) {
  // As Jinja2's template globals under a render's variables: a name the context lacks is
  // looked up in the globals; the context wins where both have it, and so do the template's
  // own sets. Imports with context see both; the missing names are those neither has.
  test::TempDir dir;
  dir.write("mod.j2", "{% macro show() %}{{ a }}{{ b }}{{ c }}{% endmacro %}");
  Environment env({.search_path = {dir.path()}});
  Value globals = Value::from_json({{"a", "g"}, {"b", "g"}, {"c", "g"}});
  Value context = Value::from_json({{"b", "c"}});
  auto tpl = env.from_string(
      "{{ a }}{{ b }}{{ c }}|{% set c = 's' %}{{ c }}|"
      "{% import 'mod.j2' as m with context %}{{ m.show() }}|{{ d | default('none') }}",
      "t.j2");
  // Jinja2 (Template globals) renders the same: gcg|s|gcs|none.
  EXPECT_EQ(tpl->render(context, &globals), "gcg|s|gcs|none");
  Value some_globals = Value::from_json({{"c", "g"}});
  for (const auto& [shared, missing] :
       {std::pair<const Value*, std::string>{nullptr, "'a' and 'c'"}, {&some_globals, "'a'"}}) {
    try {
      tpl->render(context, shared);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "undefined variable 'a' (the values lack " + missing + ")");
    }
  }
}

TEST(RendererTest, UndeclaredVariablesSkipsGuardedAndLocalNames) {
  Environment env;
  auto tpl = env.from_string(
      "{% set local = 1 %}{{ local }}{{ a }}{% for x in xs %}{{ x }}{{ loop.index }}{% endfor %}"
      "{{ opt | default(1) }}{% if other is defined %}{{ other }}{% endif %}{{ range(3) }}"
      "{% macro m(p) %}{{ p }}{{ b }}{% endmacro %}",
      "t");
  EXPECT_EQ(tpl->undeclared_variables(), (std::vector<std::string>{"a", "b", "xs"}));
}

TEST(RendererTest, UndeclaredVariablesCountTheNamespaceOfABlockSet) {
  // As Jinja2's meta: `set ns.attr` reads `ns` where the statement is (the body's own `ns`
  // does not declare it there); a namespace the template made is not read from the values.
  Environment env;
  auto tpl = env.from_string(
      "{% set ns.total %}{% set ns = 1 %}{{ label }}{% endset %}{% set own = namespace() %}"
      "{% set own.x %}{{ own.y }}{% endset %}",
      "t");
  EXPECT_EQ(tpl->undeclared_variables(), (std::vector<std::string>{"label", "ns"}));
}

TEST(RendererTest, UndeclaredVariablesFollowWhereRenderingLooks) {
  // `late` is set at the top level after the macro and the loop that read it run: they read
  // the template's variable, undefined until then, never the values'. `early` is read before
  // its set at the top level itself, and `branch` is set in one branch only: both come from
  // the values when the set has not run.
  Environment env;
  auto tpl = env.from_string(
      "{% macro m() %}{{ late }}{% endmacro %}{% for i in [1] %}{{ late }}{% endfor %}"
      "{{ early }}{% set early = 1 %}{% set late = 2 %}"
      "{% macro n() %}{{ branch }}{% endmacro %}{% if c %}{% set branch = 3 %}{% endif %}",
      "t");
  EXPECT_EQ(tpl->undeclared_variables(), (std::vector<std::string>{"branch", "c", "early"}));
}

// A chain of more than 8 postfix operations and filters is stored flat and applied link by
// link (ast.hpp, Chain); a shorter one nests as before. Both give the same value and the same
// error at the same place, link kind by link kind: each case is rendered with `k` = 3 links
// (nested) and 12 (flat).
TEST(RendererTest, AFlatChainGivesWhatNestedNodesGive) {
  auto times = [](const std::string& text, int k) {
    std::string out;
    for (int i = 0; i < k; ++i) out += text;
    return out;
  };
  // d.a.a... is a dict 12 deep: {"a": {"a": ... {"leaf": "x", "n": 3}}}.
  ordered_json d = {{"leaf", "x"}, {"n", 3}};
  for (int i = 0; i < 12; ++i) d = {{"a", d}};
  const ordered_json values = {{"d", d}, {"s", "abcdefghijklmnopq"}, {"x", -7}};
  struct Case {
    std::string name;
    std::string (*source)(const std::string& links);  // the template around the links
    std::string link;
    std::string nested, flat;  // the output (or the error) with 3 links and with 12
  };
  const std::vector<Case> cases = {
      {"attribute", [](const std::string& l) { return "{{ d" + l + ".leaf }}"; }, ".a",
       "t.j2:1:11: error: 'dict object' has no attribute 'leaf'", "x"},
      {"missing attribute, default",
       [](const std::string& l) { return "{{ d" + l + ".zz | default('none') }}"; }, ".a", "none",
       "none"},
      {"missing attribute, defined",
       [](const std::string& l) { return "{{ d" + l + ".zz is defined }}"; }, ".a", "False",
       "False"},
      {"attribute of a missing one", [](const std::string& l) { return "{{ d" + l + ".zz.b }}"; },
       ".a", "t.j2:1:11: error: 'dict object' has no attribute 'zz'",
       "t.j2:1:29: error: 'dict object' has no attribute 'zz'"},
      {"subscript", [](const std::string& l) { return "{{ s" + l + " }}"; }, "[1:]",
       "defghijklmnopq", "mnopq"},
      {"index", [](const std::string& l) { return "{{ s" + l + " }}"; }, "[0]", "a", "a"},
      {"key", [](const std::string& l) { return "{{ d" + l + "['n'] }}"; }, "['a']",
       "t.j2:1:20: error: 'dict object' has no attribute 'n'", "3"},
      {"filter", [](const std::string& l) { return "{{ x" + l + " }}"; }, " | abs", "7", "7"},
      {"filter with arguments", [](const std::string& l) { return "{{ s" + l + " }}"; },
       " | replace('a', 'b') | replace('b', 'a')", "aacdefghijklmnopq", "aacdefghijklmnopq"},
      {"method call", [](const std::string& l) { return "{{ s" + l + " }}"; }, ".upper()",
       "ABCDEFGHIJKLMNOPQ", "ABCDEFGHIJKLMNOPQ"},
      {"macro call",
       [](const std::string& l) { return "{% macro m() %}mm{% endmacro %}{{ m()" + l + " }}"; },
       "[0]", "m", "m"},
      {"global function", [](const std::string& l) { return "{{ range(3)" + l + " }}"; }, " | list",
       "[0, 1, 2]", "[0, 1, 2]"},
      {"test", [](const std::string& l) { return "{{ x" + l + " }}"; }, " is number | int", "1",
       "1"},
      {"not callable", [](const std::string& l) { return "{{ s" + l + "() }}"; }, "[0]",
       "t.j2:1:11: error: 'str' object is not callable",
       "t.j2:1:38: error: 'str' object is not callable"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (int k : {3, 12}) {
      SCOPED_TRACE(k);
      const std::string source = c.source(times(c.link, k));
      const std::string& expected = k == 3 ? c.nested : c.flat;
      if (expected.rfind("t.j2:", 0) == 0) {
        EXPECT_EQ(render_error(source, values).substr(0, expected.size()), expected);
      } else {
        EXPECT_EQ(render(source, values), expected);
      }
    }
  }
}

}  // namespace
}  // namespace zf
