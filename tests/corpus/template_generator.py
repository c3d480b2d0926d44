#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The random side of the differential tests: a seeded generator of templates over the language
# zeroforge supports, each rendered by Python's Jinja2 (StrictUndefined), for the test suite
# (DifferentialGeneratorTest) and for longer runs by hand.
"""Generate random templates and render them with Jinja2.

Usage:
    template_generator.py --seed N --count K
        print {"oracle": "Jinja2 x.y.z, MarkupSafe x.y.z", "values": {...},
               "templates": {"name": "source", ...},
               "cases": [{"template": "...", "ok": true, "output": "..."} |
                         {"template": "...", "ok": false, "error": "..."}]}

The same seed always gives the same templates (Python's `random.Random(seed)`), so a
divergence found by a long run is reproduced by its seed and index. Every template renders
with the one values object printed beside the cases, and may import the templates printed
beside them (the caller puts them on its search path).

The grammar covers the whole language: every statement, filters and tests with their
arguments, str and Markup methods, `str.format` specs, Markup's operators, range objects,
namespaces, macros with varargs/kwargs and their attributes, call blocks, loop attributes and
recursive loops, unknown filters and tests (an error when the template compiles, or only when
it runs inside an `if` or a conditional), undefined values inside containers (printed as
`Undefined`), `nan`/`inf` as names, and `import`/`from ... import` of the library templates
printed beside the cases (names they export and names they do not). It leaves out the
documented differences (docs/template-language.md): integers past 64 bits, an imported module
used as a value, Python iterators and bound methods printed as `<generator object ...>`, and
what Jinja2 3.1.2/MarkupSafe 2.1 (CI's, Debian 12) and Jinja2 3.1.6/MarkupSafe 3.0 do
differently, so that any oracle >= 3.1.2 agrees.
"""
import argparse
import copy
import json
import random
import sys
from importlib import metadata

import jinja2

VALUES = {
    "n": 3,
    "m": -2,
    "f": 2.5,
    "big": 1234567,
    "ratio": 0.1234,
    "s": "ab c",
    "t": "Zero",
    "html": "<a href=\"x\">Tom & 'Jerry'</a>",
    "words": "the quick brown-fox jumps over a lazy dog; see https://example.com/a?b=1 or "
             "mail@example.org now",
    "spaces": "  x\ty \n z  ",
    "uni": "\u00dfe \ufb01n \u03a3\u03b1\u03c3 \u0130i",
    "xs": [1, 2, 3],
    "ws": ["b", "a", "c"],
    "mixed": ["B", "a", "C", "b"],
    "pairs": [["a", 1], ["b", 2]],
    "users": [{"name": "ann", "age": 31, "team": "b"},
              {"name": "Bob", "age": 25, "team": "a"},
              {"name": "cid", "age": 31, "team": "b"}],
    "d": {"k": 1, "j": 2},
    "tree": [{"v": 1, "c": [{"v": 2, "c": []}, {"v": 3, "c": [{"v": 4, "c": []}]}]},
             {"v": 5, "c": []}],
    "e": [],
    "flag": True,
    "nothing": None,
}

INT_NAMES = ["n", "m", "big"]
LIST_NAMES = ["xs", "ws", "e"]

# Typed subjects, so that most filters, tests and methods get a value they accept (a random
# subject mostly makes both sides refuse, which tests little).
STR_SUBJECTS = ["s", "t", "html", "words", "spaces", "uni", "'a-b c'", "'<b>x</b> &amp; y'",
                "''", "'Hello World'", "'x\\ty'", "'one\\ntwo\\n'", "'12'", "'0x1F'", "'-3.5e1'"]
MARKUP_SUBJECTS = ["(html | e)", "('<i>x</i>' | safe)", "(s | forceescape)", "(ws | tojson)",
                   "('a&b' | escape)", "('<p>%s</p>' | safe)", "(t | e)"]
LIST_SUBJECTS = ["xs", "ws", "e", "mixed", "users", "pairs", "range(5)", "[3, 1, 2]",
                 "['B', 'a', 'c']", "[1.5, -2, 0]", "(1, 2)", "xs[::-1]", "[none, 0, '']",
                 "['a', 'b', 'a']", "range(1, 9, 2)"]
DICT_SUBJECTS = ["d", "users[0]", "{'b': 1, 'A': 2}", "dict(z=1, y=none)", "{'x': 'a b'}",
                 "{'q': [1, 2]}"]
NUM_SUBJECTS = ["n", "m", "f", "big", "ratio", "0", "-7", "2.675", "1e3", "1000000000000",
                "-0.5", "(xs | length)", "true"]

# Jinja2's generator-returning filters print as `<generator object ...>` where zeroforge gives a
# list (a documented difference): they are always followed by `| list`.
STR_FILTERS = [
    "upper", "lower", "capitalize", "title", "trim", "trim('a ')", "striptags", "wordcount",
    "length", "string", "e", "escape", "forceescape", "safe", "urlencode", "urlize",
    "urlize(12)", "urlize(nofollow=true)", "urlize(target='_blank')", "urlize(rel='x')",
    "wordwrap(%(w)d)", "wordwrap(%(w)d, false)", "wordwrap(%(w)d, wrapstring='|')",
    "wordwrap(%(w)d, break_on_hyphens=false)", "center(%(w)d)", "indent(%(k)d)",
    "indent(%(k)d, true)", "indent(first=true, blank=true)", "indent('> ')",
    "truncate(%(w)d)", "truncate(%(w)d, true)", "truncate(%(w)d, end='~')",
    "truncate(%(w)d, leeway=0)", "replace('a', 'X')", "replace('a', '<', 1)", "list", "first",
    "last", "reverse", "sort | join", "unique | list", "int", "float", "int(base=16)",
    "int(7)", "float('x')", "pprint", "tojson", "count", "min", "max", "default('z')",
    "d('z', true)", "wordcount", "string | length", "items | list",
]
LIST_FILTERS = [
    "length", "count", "first", "last", "list", "sort", "sort(reverse=true)",
    "sort(case_sensitive=true)", "join(',')", "join", "join('<')", "sum", "sum(start=1)",
    "min", "max", "max(case_sensitive=true)", "unique | list", "unique(true) | list",
    "reverse | list", "map('string') | list", "map('upper') | list", "map('int') | list",
    "map('default', 0) | list", "select('odd') | list", "reject('even') | list",
    "select | list", "reject('none') | list", "select('string') | list",
    "select('gt', 1) | list", "select('in', [1, 'a']) | list", "batch(2) | list",
    "batch(2, 'x') | list", "slice(2) | list", "slice(3, 0) | list", "tojson", "tojson(2)",
    "pprint", "string", "e", "join(', ') | e", "first | string",
    "dictsort", "items | list", "sum(attribute='age')", "select('defined') | list",
]
USERS_FILTERS = [
    "sort(attribute='age')", "sort(attribute='age,name')", "join(',', attribute='name')",
    "sum(attribute='age')", "min(attribute='age')", "max(attribute='name')",
    "map(attribute='name') | list", "map(attribute='x', default='-') | list",
    "selectattr('age', 'gt', 26) | list", "rejectattr('team', 'eq', 'a') | list",
    "selectattr('team') | list", "groupby('team')", "groupby('age') | map(attribute='grouper') "
    "| list", "groupby('team') | map(attribute='list') | map('length') | list",
    "unique(attribute='team') | list", "groupby('name', case_sensitive=true) | list",
    "map(attribute='name') | map('upper') | join('/')", "dictsort", "tojson",
]
DICT_FILTERS = [
    "dictsort", "dictsort(reverse=true)", "dictsort(by='value')", "dictsort(true)",
    "items | list", "length", "list", "tojson", "xmlattr", "xmlattr(false)", "urlencode",
    "pprint", "string", "first", "sort", "default('z')", "e", "sum", "max",
    "map('upper') | list", "join('-')",
]
NUM_FILTERS = [
    "abs", "int", "float", "round", "round(1)", "round(2, 'floor')", "round(method='ceil')",
    "filesizeformat", "filesizeformat(true)", "string", "tojson", "e", "safe", "string | length",
    "default(9)", "first", "length", "pprint", "float | string", "int(base=8)", "center(7)",
    "indent", "wordcount", "upper",
]
MARKUP_FILTERS = [
    "upper", "lower", "capitalize", "title", "trim", "center(13)", "truncate(%(w)d)",
    "indent(2)", "string", "reverse", "last", "first", "replace('&', '+')", "wordwrap(5)",
    "striptags", "join('<')", "length", "e", "forceescape", "safe", "tojson", "urlize",
    "list", "format('<')", "sort | join", "wordcount",
]

TESTS = ["defined", "undefined", "number", "string", "sequence", "mapping", "iterable",
         "odd", "even", "none", "boolean", "integer", "float", "callable", "true", "false",
         "lower", "upper", "escaped", "divisibleby(3)", "divisibleby 2", "eq 3", "equalto(3)",
         "ne(1)", "lt 2", "le(2)", "gt 1", "ge(3)", "greaterthan 0", "lessthan(5)", "== 3",
         "!= 'a'", "< 4", "<= 3", "> 0", ">= 1", "in [1, 2, 'a', 'ab c']", "in 'ab cd'",
         "sameas none", "sameas true", "sameas 3", "filter", "test", "in d", "eq 'ab c'"]
TEST_SUBJECTS = ["n", "m", "f", "s", "t", "xs", "d", "nothing", "flag", "e", "(html | e)",
                 "'upper'", "'odd'", "'ABC'", "'k'", "range", "(3)", "1.0", "0", "undefined_x",
                 "range(3)", "'ab c'", "xs[0]", "loop_free"]

STR_METHODS = [
    "upper()", "lower()", "title()", "capitalize()", "swapcase()", "casefold()", "strip()",
    "strip('a ')", "lstrip()", "rstrip('x ')", "startswith('a')", "startswith(('a', 'T'))",
    "endswith('c', 0, 4)", "removeprefix('a')", "removesuffix('c')", "split()",
    "split(' ', 1)", "split('a')", "rsplit(none, 1)", "rsplit('-')", "splitlines()",
    "splitlines(true)", "partition(' ')", "rpartition('o')", "replace('a', 'b')",
    "replace('', '.')", "join(ws)", "join('xy')", "count('a')", "count('')", "find('b')",
    "rfind('b', 1)", "index('a')", "rindex('o')", "center(9, '*')", "center(%(w)d)",
    "ljust(6, '.')", "rjust(%(w)d)", "zfill(6)", "expandtabs(4)", "expandtabs()",
    "isalnum()", "isalpha()", "isascii()", "isdecimal()", "isdigit()", "isidentifier()",
    "islower()", "isnumeric()", "isprintable()", "isspace()", "istitle()", "isupper()",
    "format(1, 2)", "find('')", "split(none)", "nosuch()",
]
# MarkupSafe 2.1 (Debian 12's, which CI runs) and 3.0 (Jinja2 3.1.6's) differ in what some
# Markup methods escape or return (strip's and partition's arguments, casefold, removeprefix;
# docs/template-language.md): the methods below are the ones both versions agree on.
MARKUP_METHODS = [
    "upper()", "lower()", "title()", "capitalize()", "swapcase()", "strip()", "split()",
    "split('&')", "replace('a', '<')", "center(13, '<')",
    "ljust(12, '&')", "rjust(12)", "zfill(12)", "join(['<', 'b'])", "join(ws)", "format('<')",
    "count('&')", "find('<')", "startswith('&')", "isupper()", "striptags()", "unescape()",
    "expandtabs()",
]
FORMAT_CALLS = [
    "'{}-{}'.format(1, 'a')", "'{0}{0}'.format(n)", "'{x}'.format(x=n)", "'{:>6}'.format(s)",
    "'{:08.3f}'.format(f)", "'{:,}'.format(big)", "'{:_x}'.format(big)", "'{:#o}'.format(n)",
    "'{!r}'.format(s)", "'{0[1]}'.format(xs)", "'{0[k]}'.format(d)", "'{:^9}'.format('ab')",
    "'{:*<7.2%%}'.format(ratio)", "'{:+e}'.format(f)", "'{:g}'.format(1e20)", "'{:c}'.format(65)",
    "'{:{w}}'.format(3, w=5)", "'{:{}}'.format('a', 4)", "'{:{f}.{p}}'.format(f, f='>9', p=2)",
    "'{0:{1}}'.format(n, '^5')", "'{:{w}d}'.format(n, w='x')", "'{{}}{}'.format(n)",
    "'{}'.format(xs)", "'{}'.format(d)", "'{!a}'.format(uni)", "'{:=+8}'.format(m)",
    "'{:b}'.format(m)", "'{:.3s}'.format(t)", "'{:%%}'.format(n)", "'{}'.format()",
    "'{0}{}'.format(1, 2)", "'{:{w}{w}}'.format(1, w=2)", "'{:{{}}}'.format(1)",
    "'{:>{w}.{p}f}'.format(f, w=10, p=3)", "'{:{w}}'.format(s, w=-1)",
]
MARKUP_OPS = [
    "(html | e) + '<'", "'<' + (s | e)", "(t | e) * 2", "('<p>%s</p>' | safe) % '<'",
    "('%s+%s' | safe) % ('<', html | e)", "('<b>' | e) ~ '<'", "(html | e) | length",
    "[html | e]", "(html | e) == html", "'&lt;' in (html | e)", "(html | e)[0]",
    "(html | e)[1:5]", "(html | e)[::-1]", "[(html | e)[-1]]", "[(t | e)[:2]]",
    "((html | e)[0]) is escaped", "((t | safe)[1:]) is escaped", "{'k': t | e}",
    "(t | e, s)", "[(html | e).split('&')]", "[(html | e).partition(';')]", "((t | e) + 1)",
    "(html | e) < 'z'", "(t | e).nosuch()",
    "(t | e).upper(1)", "(t | e).zfill('x')", "(t | e).center()", "(t | e).split(1)",
]
RANGE_EXPRS = [
    "range(3) == range(0, 3)", "range(0) == range(2, 2)", "range(3) == [0, 1, 2]",
    "range(10)[::-1]", "range(1, 9, 2)[1:]", "range(5) | list", "range(3) | tojson",
    "range(5) | length", "range(0, 9, 2).step", "range(4)", "range(4)[2]", "3 in range(5)",
    "range(3) | sum", "range(4) | reverse | list", "range(3) | string", "[range(2)]",
    "range(2, 8, 3)", "range(5)[1:4]", "range(5)[-1]", "range(6)[::2]", "range(3) + [1]",
    "range(3) < range(4)", "range(3) * 2", "range(9, 0, -3) | list", "range(1, 4).start",
    "range(0, 10, 3).stop", "range(3)[5]", "range(-2)", "range(2, -2, -1) | join(',')",
    "range(1, 2, 0)", "range(3) | pprint", "range(4) | first", "range(4) | last",
    "range(4) | batch(3) | list", "range(3) is sequence", "range(3) is iterable",
    "range(5)[::-2]", "(range(3) | list) == [0, 1, 2]", "range(3) != range(3)",
]
NAMESPACE_EXPRS = [
    "namespace(a=1).a", "namespace({'a': 2}).a", "namespace(d).k", "namespace(d, k=5).k",
    "namespace().x", "namespace(a=1)", "namespace(pairs).a", "namespace(1)",
    "namespace(a=1) is mapping", "namespace(xs=[1]).xs | length",
    "d | attr('k')", "s | attr('x')", "users[0] | attr('name')", "[d | attr('z')]",
    "[s | attr('x')] | length",
]
# Undefined values inside containers print as `Undefined` (Jinja2's repr of StrictUndefined),
# fail when compared or joined, and are still undefined when taken out again; `nan` and `inf`
# are plain (undefined) names.
UNDEFINED_EXPRS = [
    "[d.z]", "[xs.nope]", "{'a': d.z}", "(d.z, 1)", "[nan]", "[inf, 1]", "[loop_free]",
    "[d.z] | length", "[d.z] == [1]", "[d.z] != []", "[d.z] | pprint", "d.z | pprint",
    "[d.z] ~ ''", "[xs[9]]", "['ab'[5]]", "[e | first]", "[e | max]", "[d['z'], s]",
    "[d.z] + [1]", "[d.z] * 2", "[d.z] | tojson", "[d.z][0] is defined", "[d.z][0].y",
    "[d.z] | first is defined", "[d.z] | join", "[d.z] | list", "[d.z] | string",
    "[d.z] | select('defined') | list", "[d.z] | reject('defined') | list",
    "{'a': d.z} | dictsort", "{'a': d.z} | items | list", "dict(a=d.z)", "[[d.z]]",
    "'%s' % [d.z]", "'{}'.format([d.z])", "[d.z] | batch(1) | list", "[d.z][:1]",
    "[d.z] | sort", "1 in [d.z]", "nan", "nan is defined", "inf | default(1)", "-inf",
    "[users[0].nope, users[5]]", "(xs.nope,)", "[d.z] | e", "[d.z] | count",
    "[d.z] | map('default', 0) | list", "[d.z] | reverse | list", "[range(2).z]",
]
# Names no Jinja2 defines: an error when the template compiles, or when the filter or test runs
# if it stands in an `if` statement or a conditional expression (Jinja2 3.x).
UNKNOWN_FILTERS = ["nosuch", "frob(1)", "upper2", "nosuch(x=1) | upper"]
UNKNOWN_TESTS = ["nosuch", "oddish", "frob(2)", "nosuch 3"]
# The templates a generated template may import (printed beside the cases): what a module
# exports is its top-level macros and names not starting with `_`, also those set inside an
# `if` that ran, not those set in a loop or a block, nor a macro in an `if` that did not run.
TEMPLATES = {
    "lib.j2": "{% macro m(a=1) %}M{{ a }}{% endmacro %}{% macro _p() %}P{% endmacro %}"
              "{% set v = 3 %}{% set _h = 4 %}{% if true %}{% set c = 5 %}{% endif %}"
              "{% for i in [1] %}{% set inloop = 1 %}{% endfor %}"
              "{% if false %}{% macro gone() %}G{% endmacro %}{% endif %}body",
    "ctx.j2": "{% macro show() %}{{ n | default('-') }}{% endmacro %}{% set got = n is defined %}",
}
IMPORT_NAMES = ["m", "v", "c", "nope", "inloop", "gone", "_p", "_h", "show", "got"]
IMPORT_USES = ["{{ %s }}", "{{ %s is defined }}", "{{ %s | default('d') }}", "{{ [%s] }}",
               "{{ %s() }}", "{{ %s(2) }}", "{{ %s is callable }}", "{{ %s ~ '' }}",
               "{%% if %s is defined %%}D{%% endif %%}"]
LOOP_ATTRIBUTES = ["index", "index0", "revindex", "revindex0", "first", "last", "length",
                   "depth", "depth0"]


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def pick(self, items):
        return self.rng.choice(items)

    def fill(self, spec):
        return spec % {"w": self.rng.randint(-1, 14), "k": self.rng.randint(0, 3)} \
            if "%(" in spec else spec

    # ----- expressions -----

    def atom(self):
        r = self.rng.random()
        if r < 0.25:
            return str(self.rng.randint(-3, 9))
        if r < 0.35:
            return repr(self.pick(["", "a", "xy", "a b", "Q", "<&>", "\u00e9t\u00e9"]))
        if r < 0.45:
            return self.pick(["1.5", "0.25", "2.0", "-0.5", "1e3", "0.1"])
        if r < 0.7:
            return self.pick(list(VALUES))
        if r < 0.8:
            return self.pick(["true", "false", "none"])
        if r < 0.9:
            return self.pick(["range(%d)" % self.rng.randint(0, 4),
                              "range(1, %d)" % self.rng.randint(1, 6),
                              "range(%d, 0, -1)" % self.rng.randint(0, 5),
                              "range(0, 9, %d)" % self.rng.randint(1, 4)])
        return "[%s]" % ", ".join(str(self.rng.randint(0, 5))
                                  for _ in range(self.rng.randint(0, 3)))

    def expr(self, depth=0):
        if depth > 2:
            return self.atom()
        r = self.rng.random()
        if r < 0.2:
            return self.atom()
        if r < 0.26:
            # Mostly numbers with numbers, so that a template gets past its first operator.
            op = self.pick(["+", "-", "*", "/", "//", "%", "==", "!=", "<", ">=", "**"])
            left = self.number(depth + 1)
            if op == "**" and left.startswith("-"):
                # Jinja2 writes a folded negative constant into its Python code unparenthesised,
                # so `-3 ** x` computes -(3 ** x) when x is not a constant
                # (docs/template-language.md): left out.
                left = left[1:]
            right = self.number(depth + 1)
            if op == "**":
                # A negative base to a fractional power is a complex number in Python, which
                # zeroforge refuses (a documented difference), and a big exponent leaves 64 bits:
                # small whole exponents only.
                right = self.pick(["0", "1", "2", "3", "n"])
            return "(%s %s %s)" % (left, op, right)
        if r < 0.31:
            op = self.pick(["~", "==", "!=", "and", "or", "in", "not in", "+", "<"])
            return "(%s %s %s)" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if r < 0.5:
            return self.filtered()
        if r < 0.56:
            subject = self.pick(TEST_SUBJECTS + [self.postfix(depth)])
            test = self.pick(UNKNOWN_TESTS if self.rng.random() < 0.05 else TESTS)
            return "(%s is %s%s)" % (subject, self.pick(["", "not "]), test)
        if r < 0.64:
            return self.method_call()
        if r < 0.7:
            return self.pick(MARKUP_OPS)
        if r < 0.75:
            return self.pick(RANGE_EXPRS)
        if r < 0.76:
            return self.pick(NAMESPACE_EXPRS)
        if r < 0.78:
            return self.pick(UNDEFINED_EXPRS)
        if r < 0.84:
            return self.postfix(depth)
        if r < 0.9:
            return "(%s if %s else %s)" % (self.expr(depth + 1), self.expr(depth + 1),
                                           self.expr(depth + 1))
        if r < 0.94:
            # Parenthesised: after `~`, `+` or `*`, Jinja2 reads `not` as a variable name
            # (a documented difference).
            return "(not %s)" % self.expr(depth + 1)
        return "%s(%s)" % (self.pick(["range"]),
                           ", ".join(str(self.rng.randint(-2, 6))
                                     for _ in range(self.rng.randint(1, 3))))

    def filtered(self):
        r = self.rng.random()
        if r < 0.25:
            subject, filters = self.pick(STR_SUBJECTS), STR_FILTERS
        elif r < 0.45:
            subject, filters = self.pick(LIST_SUBJECTS), LIST_FILTERS
        elif r < 0.55:
            subject, filters = "users", USERS_FILTERS
        elif r < 0.67:
            subject, filters = self.pick(DICT_SUBJECTS), DICT_FILTERS
        elif r < 0.8:
            subject, filters = self.pick(NUM_SUBJECTS), NUM_FILTERS
        elif r < 0.92:
            subject, filters = self.pick(MARKUP_SUBJECTS), MARKUP_FILTERS
        else:
            # Any filter on any value: mostly errors on both sides, which must agree too.
            subject = self.pick(STR_SUBJECTS + LIST_SUBJECTS + DICT_SUBJECTS + NUM_SUBJECTS)
            filters = STR_FILTERS + LIST_FILTERS + DICT_FILTERS + NUM_FILTERS
        flt = self.fill(self.pick(filters))
        text = "%s | %s" % (subject, flt)
        if self.rng.random() < 0.04:
            text = "%s | %s" % (subject, self.pick(UNKNOWN_FILTERS))
        if self.rng.random() < 0.25:
            # A second filter on the result, and sometimes a printed container around it,
            # which shows the reprs (Markup('...'), tuples, floats).
            second = self.pick(["string", "length", "tojson", "list", "e", "first", "upper",
                                "pprint", "join('|')"])
            text = "%s | %s" % (text, second)
            if second == "first":
                return text
        if self.rng.random() < 0.15:
            text = "[%s]" % text
        return text

    def method_call(self):
        r = self.rng.random()
        if r < 0.5:
            return "%s.%s" % (self.pick(STR_SUBJECTS), self.fill(self.pick(STR_METHODS)))
        if r < 0.7:
            text = "%s.%s" % (self.pick(MARKUP_SUBJECTS), self.fill(self.pick(MARKUP_METHODS)))
            return "[%s]" % text if self.rng.random() < 0.5 else text
        if r < 0.9:
            return self.pick(FORMAT_CALLS).replace("%%", "%")
        return "%s.%s" % (self.pick(LIST_SUBJECTS + DICT_SUBJECTS),
                          self.pick(["index(2)", "count(1)", "get('k')", "get('z', 0)",
                                     "items() | list", "keys() | list", "values() | list",
                                     "index('a')", "count('a')"]))

    def number(self, depth):
        r = self.rng.random()
        if r < 0.5:
            return str(self.rng.randint(-3, 9))
        if r < 0.65:
            return self.pick(INT_NAMES + ["f", "1.5", "0.5", "ratio"])
        if r < 0.8 and depth < 3:
            return "(%s %s %s)" % (self.number(depth + 1), self.pick(["+", "-", "*"]),
                                   self.number(depth + 1))
        return self.pick(["xs | length", "range(4) | sum", "xs[1]", "loop_free | default(2)",
                          "range(9)[-2]", "xs | first", "d.k", "'7' | int", "f | round",
                          "s.find('c')", "users | sum(attribute='age')"])

    def postfix(self, depth):
        base = self.pick(LIST_NAMES + ["d", "s", "tree", "range(6)", "range(2, 9, 2)", "users",
                                       "pairs", "uni", "(1, 2, 3)"])
        r = self.rng.random()
        if r < 0.3:
            return "%s[%d]" % (base, self.rng.randint(-3, 3))
        if r < 0.55:
            parts = [self.pick(["", str(self.rng.randint(-3, 4))]) for _ in range(2)]
            step = self.pick(["", ":-1", ":2", ":-2"])
            return "%s[%s:%s%s]" % (base, parts[0], parts[1], step)
        if r < 0.7 and not base.startswith("("):
            # (Not on a literal: Jinja2 folds `(1, 2).v` when it compiles the template and fails
            # there even in a branch that never runs, a documented difference.)
            return "%s.%s" % (base, self.pick(["k", "start", "stop", "step", "v", "x", "0",
                                               "name"]))
        return base

    # ----- statements -----

    def body(self, depth, in_loop=False, in_macro=False, recursive=False):
        parts = []
        for _ in range(self.rng.randint(1, 2)):
            parts.append(self.statement(depth, in_loop, in_macro, recursive))
        return "".join(parts)

    def statement(self, depth, in_loop, in_macro, recursive):
        r = self.rng.random()
        if depth > 2 or r < 0.3:
            return self.leaf(in_loop, in_macro, recursive)
        if r < 0.4:
            return "{%% if %s %%}%s{%% elif %s %%}%s{%% else %%}%s{%% endif %%}" % (
                self.expr(1), self.body(depth + 1, in_loop, in_macro, recursive),
                self.expr(2), self.leaf(in_loop, in_macro, recursive),
                self.body(depth + 1, in_loop, in_macro, recursive))
        if r < 0.52:
            return self.for_loop(depth, in_macro)
        if r < 0.6:
            return self.recursive_loop(depth)
        if r < 0.72:
            return self.macro_and_call(depth)
        if r < 0.78:
            return "{%% set %s = %s %%}{{ %s }}" % (self.pick(["a", "b"]), self.expr(1),
                                                    self.pick(["a", "b", "n"]))
        if r < 0.85:
            return self.namespace_statement()
        if r < 0.9:
            return "{%% with w = %s %%}{{ w }}%s{%% endwith %%}" % (
                self.expr(1), self.body(depth + 1, in_loop, in_macro, recursive))
        if r < 0.94:
            return "{%% set cap %%}%s{%% endset %%}{{ cap %s }}" % (
                self.body(depth + 1, in_loop, in_macro, recursive),
                self.pick(["", "| length", "| upper", "is escaped", "| tojson", "| e"]))
        if r < 0.97:
            return self.import_statement()
        return "{%% filter %s %%}%s{%% endfilter %%}" % (
            self.pick(["upper", "lower", "trim", "title", "e", "center(20)", "indent(2)",
                       "replace('a', 'b')", "wordwrap(6)", "striptags", "truncate(9)",
                       "urlize", "length"]),
            self.body(depth + 1, in_loop, in_macro, recursive))

    def import_statement(self):
        context = self.pick(["", " with context", " without context"])
        if self.rng.random() < 0.5:
            names = [self.pick(IMPORT_NAMES) for _ in range(self.rng.randint(1, 2))]
            alias = self.pick(["", " as q"]) if len(names) == 1 else ""
            used = "q" if alias else names[0]
            return "{%% from '%s' import %s%s%s %%}%s" % (
                self.pick(list(TEMPLATES)), ", ".join(names), alias, context,
                self.pick(IMPORT_USES) % used)
        # A module is used through its attributes only: printed, iterated or tested as a
        # mapping it is a TemplateModule in Jinja2 and a dict here (a documented difference).
        attribute = self.pick(IMPORT_NAMES)
        return "{%% import '%s' as lib%s %%}%s" % (
            self.pick(list(TEMPLATES)), context,
            self.pick(IMPORT_USES) % ("lib.%s" % attribute if self.rng.random() < 0.8
                                      else "lib['%s']" % attribute))

    def for_loop(self, depth, in_macro):
        r = self.rng.random()
        if r < 0.15:
            head = "k, v in %s" % self.pick(["d.items()", "pairs", "d | dictsort",
                                             "users | groupby('team')", "[(1, 2), (3, 4)]",
                                             "xs"])
        else:
            target = self.pick(["x", "y"])
            iterable = self.pick(LIST_NAMES + ["range(3)", "s", "d", "range(4, 0, -2)",
                                               "xs[::-1]", "users", "mixed | sort",
                                               "'<a>' | e", "ws | batch(2)",
                                               "users | map(attribute='name')"])
            head = "%s in %s" % (target, iterable)
            if self.rng.random() < 0.2:
                head += " if %s" % self.pick(["x", "y", "loop_free is undefined",
                                              "x is string", "y != 2", self.expr(2)])
        return "{%% for %s %%}%s{%% else %%}E{%% endfor %%}" % (
            head, self.body(depth + 1, True, in_macro, False))

    def namespace_statement(self):
        # A block `set ns.attr` on a dict is left out: Jinja2 3.1.3 and later write into the
        # dict where 3.1.2 and zeroforge refuse (docs/template-language.md, differences).
        return self.pick([
            "{%% set ns = namespace(s='') %%}{%% for x in %s %%}{%% set ns.s %%}{{ ns.s }}{{ x }}"
            "{%% endset %%}{%% endfor %%}{{ ns.s }}" % self.pick(["xs", "ws", "e"]),
            "{%% set ns = namespace(a=%s) %%}{%% set ns.a %s %%}[{{ ns.a }}]{{ %s }}{%% endset %%}"
            "{{ ns.a }}" % (self.expr(1), self.pick(["", "| upper", "| length", "| trim",
                                                      "| replace('[', '(')", "| list"]),
                            self.expr(1)),
            "{% set nope = 1 %}{% set nope.a %}x{% endset %}",
            "{%% set ns = namespace(c=0) %%}{%% for i in %s %%}{%% set ns.c = ns.c + i"
            " %%}{%% endfor %%}{{ ns.c }}" % self.pick(["xs", "range(5)", "e"]),
            "{% set ns = namespace(found=false, at=none) %}{% for u in users %}{% if u.age > 30 "
            "and not ns.found %}{% set ns.found = true %}{% set ns.at = loop.index %}{% endif %}"
            "{% endfor %}{{ ns.found }}{{ ns.at }}",
            "{% set ns = namespace(d) %}{% set ns.k = ns.k * 10 %}{{ ns.k }}{{ d.k }}",
            "{% set ns = namespace(items=[]) %}{% for x in ws %}{% set ns.items = ns.items + "
            "[x | upper] %}{% endfor %}{{ ns.items | join }}",
            "{% set ns = namespace(s='') %}{% for x in xs %}{% set ns.s = ns.s ~ x %}{% endfor %}"
            "{{ ns.s }}",
            "{% set ns = namespace(a=1) %}{{ ns.a }}{{ ns.z | default('-') }}",
            "{% set nope = 1 %}{% set nope.a = 2 %}",
            "{% set ns = namespace(a=1) %}{% with %}{% set ns.a = 2 %}{% endwith %}{{ ns.a }}",
            "{% set ns = namespace(a=[1]) %}{{ ns.a | length }}{{ ns is mapping }}",
        ])

    def leaf(self, in_loop, in_macro, recursive):
        r = self.rng.random()
        if in_loop and r < 0.3:
            attr = self.pick(LOOP_ATTRIBUTES + ["previtem", "nextitem", "cycle('o', 'e')",
                                                 "changed(x)", "cycle(1, 2, 3)", "cycle()",
                                                 "changed(loop.index // 2)", "length > 1",
                                                 "revindex * 2"])
            if attr in ("previtem", "nextitem"):
                return "{{ loop.%s | default('-') }}" % attr
            return "{{ loop.%s }}" % attr
        if in_macro and r < 0.45:
            return self.pick(["{{ varargs }}", "{{ kwargs }}", "{{ caller() }}",
                              "{{ caller(1) }}", "{{ kwargs | length }}",
                              "{{ varargs | join(',') }}", "{{ kwargs | dictsort }}",
                              "{{ varargs | length }}", "{{ caller(1, q=2) }}",
                              "{{ kwargs.z | default(0) }}", "{{ varargs[0] | default(0) }}",
                              "{{ caller() | upper }}", "{{ caller() is escaped }}"])
        if r < 0.5:
            return "[%s]" % self.pick(["a", " ", "\n", "x-y", "<&>"])
        return "{{ %s }}" % self.expr()

    def recursive_loop(self, depth):
        inner = self.pick([
            "{{ x.v }}{{ loop.depth }}({{ loop(x.c) }})",
            "{% if x.c %}[{{ loop(x.c) }}]{% else %}{{ x.v }}{% endif %}",
            "{{ loop.depth0 }}{{ loop.index }}/{{ loop.length }}{{ loop(x.c) }}",
            "{{ x.v }}{% for y in x.c %}{{ y.v }}{% endfor %}{{ loop(x.c) if loop.first }}",
            "{{ x.v if x is mapping else x }}{{ loop(x.c) if x is mapping }}",
            "{{ loop.cycle('a', 'b') }}{{ x.v }}{{ loop.changed(loop.depth) }}{{ loop(x.c) }}",
            "{{ loop.previtem.v | default('-') }}{{ loop.nextitem.v | default('-') }}"
            "{{ loop(x.c) }}",
            "{{ x.v }}{{ loop.revindex }}{{ loop(x.c) | length }}",
            "{{ x.v }}{% set inner = loop(x.c) %}<{{ inner }}>",
            "{{ loop(x.c) | upper }}{{ loop.last }}",
            "{{ x.v }}{{ loop(x.c, 1) }}",
        ])
        cond = self.pick(["", " if x.v != 3", " if loop_free is undefined"])
        source = self.pick(["tree", "tree[1:]", "e", "tree[0].c", "tree | reverse",
                            "tree | sort(attribute='v', reverse=true)"])
        return "{%% for x in %s%s recursive %%}%s{%% else %%}E{%% endfor %%}" % (
            source, cond, inner)

    def macro_and_call(self, depth):
        name = "m%d" % self.rng.randint(0, 99)
        params = self.pick(["", "a", "a, b=2", "a=1", "a, b, c=none", "a, b=[1]",
                            "a='<'", "caller=none"])
        body = self.body(depth + 1, False, True, False)
        definition = "{%% macro %s(%s) %%}%s{%% endmacro %%}" % (name, params, body)
        args = self.pick(["", "1", "1, 2", "1, 2, 3", "b=5", "1, x=4", "a=0, z=1", "*xs",
                          "**d", "1, *[2]", "**{'a': 7}", "*ws, **d", "1, b=2, c=3",
                          "a=1, a=2", "*range(2)", "'<'", "a=none"])
        r = self.rng.random()
        if r < 0.45:
            call_params = self.pick(["", "(p)", "(p, q=0)", "()", "(p=1)", "(*p)"])
            caller_body = self.pick(["C", "{{ p }}", "{{ p | default('-') }}{{ q }}",
                                     "<{{ n }}>", "{{ caller is defined }}", "{{ varargs }}",
                                     "{{ kwargs }}", "{{ p }}{{ caller.name }}",
                                     "{% for z in xs %}{{ z }}{% endfor %}"])
            use = "{%% call%s %s(%s) %%}%s{%% endcall %%}" % (call_params, name, args,
                                                             caller_body)
        elif r < 0.55:
            use = "{{ %s(%s) | upper }}{{ %s(%s) is escaped }}" % (name, args, name, args)
        else:
            use = "{{ %s(%s) }}" % (name, args)
        attrs = ""
        if self.rng.random() < 0.3:
            attrs = "{{ %s.%s }}" % (name, self.pick(["name", "arguments", "catch_kwargs",
                                                     "catch_varargs", "caller", "defaults",
                                                     "x"]))
        return definition + use + attrs

    def template(self):
        return self.body(0)


def render(env, source):
    # A copy each time: Jinja2 runs without a sandbox, and some failing filters change their
    # argument in place before they fail (`list | indent` appends "\n" to the list).
    try:
        return {"ok": True, "output": env.from_string(source).render(copy.deepcopy(VALUES))}
    except Exception as error:  # every failure counts, RecursionError included
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    env = jinja2.Environment(undefined=jinja2.StrictUndefined,
                             loader=jinja2.DictLoader(TEMPLATES))
    cases = []
    for _ in range(args.count):
        source = Generator(rng).template()
        result = render(env, source)
        result["template"] = source
        cases.append(result)
    oracle = "Jinja2 %s, MarkupSafe %s" % (metadata.version("jinja2"), metadata.version("markupsafe"))
    json.dump({"oracle": oracle, "values": VALUES, "templates": TEMPLATES, "cases": cases},
              sys.stdout,
              ensure_ascii=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
