// SPDX-License-Identifier: MIT
// Call blocks, `caller`, macro `varargs`/`kwargs`, `*args`/`**kwargs` in calls and the macro
// attributes (render_calls.cpp, macro_specials.cpp): what each renders, and each error's exact
// text and place. Agreement with Jinja2 itself is checked by the differential corpus
// (tests/corpus/template/call-*, macro-*).
#include <gtest/gtest.h>

#include "support/render.hpp"

namespace zf {
namespace {

using test::render;
using test::render_error;

struct Case {
  const char* name;
  std::string source;
  std::string expected;
};

TEST(CallBlockTest, RendersTheBodyWhereTheMacroCallsCaller) {
  const Case cases[] = {
      {"basic",
       "{% macro m(t) %}[{{ t }}:{{ caller() }}]{% endmacro %}{% call m(1) %}b{% endcall %}",
       "[1:b]"},
      {"arguments",
       "{% macro m() %}{{ caller(1) }}{{ caller(2, 'x') }}{% endmacro %}"
       "{% call(a, b='-') m() %}{{ a }}{{ b }};{% endcall %}",
       "1-;2x;"},
      {"body sees the caller's scope, not the macro's",
       "{% macro m() %}{% set v = 'macro' %}{{ caller() }}{% endmacro %}"
       "{% for v in ['loop'] %}{% call m() %}{{ v }}{% endcall %}{% endfor %}",
       "loop"},
      {"nested",
       "{% macro w(t) %}<{{ t }}>{{ caller() }}</{{ t }}>{% endmacro %}"
       "{% call w('a') %}{% call w('b') %}x{% endcall %}{% endcall %}",
       "<a><b>x</b></a>"},
      {"caller's attributes",
       "{% macro m() %}{{ caller.name }} {{ caller.arguments }} {{ caller }}{% endmacro %}"
       "{% call(a) m() %}{% endcall %}",
       "None ('a',) <Macro anonymous>"},
      {"kwargs sees caller after the keywords written",
       "{% macro m() %}{{ kwargs | list }}{% endmacro %}{% call m(x=1, **{'y': 2}) %}{% endcall %}",
       "['x', 'caller', 'y']"},
      {"explicit caller parameter with a default",
       "{% macro m(caller=none) %}{{ caller() if caller else '-' }}{% endmacro %}"
       "{{ m() }}{% call m() %}c{% endcall %}",
       "-c"},
      {"a callee at the end of a long chain (stored flat)",
       "{% macro m() %}<{{ caller() }}>{% endmacro %}"
       "{% call {'a': {'b': {'c': {'d': {'e': {'f': {'g': {'h': {'i': m}}}}}}}}}"
       ".a.b.c.d.e.f.g.h.i() %}y{% endcall %}",
       "<y>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render(c.source), c.expected);
  }
}

TEST(CallBlockTest, ReportsMisuseAtItsPlace) {
  const Case cases[] = {
      {"caller outside a call block", "{% macro m() %}{{ caller() }}{% endmacro %}{{ m() }}",
       "t.j2:1:19: error: undefined variable 'caller' (no caller defined: macro 'm' was not "
       "called from a call block)"},
      {"a macro that does not read caller",
       "{% macro m() %}x{% endmacro %}{% call m() %}b{% endcall %}",
       "t.j2:1:39: error: macro 'm' was invoked with two values for the special caller argument "
       "(it does not use 'caller')"},
      {"too many arguments to caller",
       "{% macro m() %}{{ caller(1, 2) }}{% endmacro %}{% call(a) m() %}{% endcall %}",
       "t.j2:1:19: error: macro 'caller' takes not more than 1 argument(s)"},
      {"caller passed twice",
       "{% macro m() %}{{ caller() }}{% endmacro %}"
       "{% call m(caller=1) %}{% endcall %}",
       "t.j2:1:52: error: got multiple values for keyword argument 'caller'"},
      {"calling something that is not a macro", "{% call range(3) %}{% endcall %}",
       "t.j2:1:9: error: 'range' is not a macro: only a macro can be called from a call block"},
      {"caller kept in a namespace",
       "{% set ns = namespace() %}{% macro k() %}{% set ns.c = caller %}{% endmacro %}"
       "{% for i in [1] %}{% call k() %}{{ i }}{% endcall %}{% endfor %}{{ ns.c() }}",
       "t.j2:1:45: error: cannot store a macro in a namespace (attribute 'c'): it would outlive "
       "the scope it was defined in"},
      {"a macro kept in a namespace, inside a list",
       "{% set ns = namespace() %}{% for i in [1] %}{% macro m() %}{{ i }}{% endmacro %}"
       "{% set ns.m = [namespace(f=m)] %}{% endfor %}{{ ns.m[0].f() }}",
       "t.j2:1:84: error: cannot store a macro in a namespace (attribute 'm'): it would outlive "
       "the scope it was defined in"},
      {"a long chain that does not end in a call",
       "{% macro m() %}{{ caller() }}{% endmacro %}"
       "{% call {'a': {'b': {'c': {'d': {'e': {'f': {'g': {'h': m}}}}}}}}.a.b.c.d.e.f.g.h().x %}"
       "{% endcall %}",
       "t.j2:1:52: error: expected call"},
      {"an undefined callee", "{% call nope() %}{% endcall %}",
       "t.j2:1:9: error: undefined variable 'nope' (the values lack 'nope')"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source), c.expected);
  }
}

TEST(MacroArgumentsTest, VarargsAndKwargsCatchWhatTheParametersDoNot) {
  const Case cases[] = {
      {"varargs", "{% macro m(a) %}{{ a }}{{ varargs }}{% endmacro %}{{ m(1) }} {{ m(1, 2, 3) }}",
       "1() 1(2, 3)"},
      {"kwargs", "{% macro m(a=0) %}{{ a }}{{ kwargs }}{% endmacro %}{{ m(x=1, a=2) }}",
       "2{'x': 1}"},
      {"a keyword naming a parameter filled by position goes to kwargs",
       "{% macro m(a) %}{{ a }}{{ kwargs }}{% endmacro %}{{ m(1, a=2) }}", "1{'a': 2}"},
      {"a parameter called varargs is ordinary",
       "{% macro m(varargs) %}{{ varargs }}{% endmacro %}{{ m(3) }}", "3"},
      {"assigned before it is read, varargs is ordinary",
       "{% macro m() %}{% set varargs = 5 %}{{ varargs }}{% endmacro %}{{ m() }}", "5"},
      // Jinja2's NSRef is not a name read: `set caller.x` in a body sets the namespace outside.
      {"caller, kwargs and varargs as namespaces the body sets",
       "{% set caller = namespace() %}{% set kwargs = namespace() %}{% set varargs = namespace() %}"
       "{% macro m() %}{% set caller.x = 1 %}{% set kwargs.x %}2{% endset %}"
       "{% set varargs.x | int %}3{% endset %}{% endmacro %}{{ m() }}"
       "{{ caller.x }}{{ kwargs.x }}{{ varargs.x }}",
       "123"},
      // Jinja2 visits a block set's filter before its body: the filter's read counts.
      {"a block set's filter reads kwargs before the body assigns it",
       "{% macro m() %}{% set x | default(kwargs) %}{% set kwargs = 1 %}{% endset %}[{{ x }}]"
       "{% endmacro %}{{ m(a=1) }}",
       "[]"},
      {"a nested macro's read counts for the outer macro",
       "{% macro o() %}{% macro i() %}{{ varargs }}{% endmacro %}{{ i(1) }}{% endmacro %}{{ o(9) "
       "}}",
       "(1,)"},
      {"*args and **kwargs",
       "{% macro m(a, b, c=3) %}{{ a }}{{ b }}{{ c }}{% endmacro %}"
       "{{ m(*[1, 2]) }} {{ m(0, *'xy') }} {{ m(*[1], **{'b': 5}) }} {{ m(b=1, *[2]) }}",
       "123 0xy 153 213"},
      {"*args into filters and functions",
       "{{ '%s-%s' | format(*[1, 2]) }} {{ range(*[1, 3]) | list }} {{ dict(b=2, **{'a': 1}) }}",
       "1-2 [1, 2] {'b': 2, 'a': 1}"},
      {"attributes",
       "{% macro m(a, b=2) %}{{ varargs }}{{ kwargs }}{{ caller }}{% endmacro %}{% macro p() %}"
       "{% endmacro %}{{ m.name }} {{ m.arguments }} {{ m.catch_varargs }} {{ m.catch_kwargs }} "
       "{{ m.caller }} {{ p.arguments }} {{ p.catch_varargs }} {{ m }}",
       "m ('a', 'b') True True True () False <Macro 'm'>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render(c.source), c.expected);
  }
}

TEST(MacroArgumentsTest, RefusesWhatJinja2Refuses) {
  const Case cases[] = {
      {"extra positional", "{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}",
       "t.j2:1:34: error: macro 'm' takes not more than 1 argument(s)"},
      {"a keyword error before a positional one",
       "{% macro m(a) %}{% endmacro %}{{ m(1, 2, b=3) }}",
       "t.j2:1:34: error: macro 'm' takes no keyword argument 'b'"},
      {"extra keyword", "{% macro m(a) %}{% endmacro %}{{ m(b=2) }}",
       "t.j2:1:34: error: macro 'm' takes no keyword argument 'b'"},
      {"a keyword for a parameter filled by position",
       "{% macro m(a) %}{% endmacro %}{{ m(1, a=2) }}",
       "t.j2:1:34: error: macro 'm' takes no keyword argument 'a'"},
      {"a parameter called varargs still refuses extras",
       "{% macro m(varargs) %}{{ varargs }}{% endmacro %}{{ m(3, 4) }}",
       "t.j2:1:53: error: macro 'm' takes not more than 1 argument(s)"},
      {"* of a number", "{% macro m(a) %}{% endmacro %}{{ m(*1) }}",
       "t.j2:1:37: error: argument after * must be an iterable, not int"},
      {"** of a list", "{% macro m(a) %}{% endmacro %}{{ m(**[1]) }}",
       "t.j2:1:38: error: argument after ** must be a mapping, not list"},
      {"a keyword twice", "{% macro m(a) %}{{ kwargs }}{% endmacro %}{{ m(1, b=1, **{'b': 2}) }}",
       "t.j2:1:58: error: got multiple values for keyword argument 'b'"},
      {"a missing attribute", "{% macro m() %}{% endmacro %}{{ m.defaults }}",
       "t.j2:1:34: error: 'function object' has no attribute 'defaults'"},
      {"tojson", "{% macro m() %}{% endmacro %}{{ m | tojson }}",
       "t.j2:1:37: error: Object of type Macro is not JSON serializable"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(render_error(c.source), c.expected);
  }
}

}  // namespace
}  // namespace zf
