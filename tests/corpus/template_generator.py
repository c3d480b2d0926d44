#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The random side of the differential tests: a seeded generator of templates over the language
# zeroforge supports, each rendered by Python's Jinja2 (StrictUndefined), for the test suite
# (DifferentialGeneratorTest) and for longer runs by hand.
"""Generate random templates and render them with Jinja2.

Usage:
    template_generator.py --seed N --count K
        print {"values": {...}, "cases": [{"template": "...", "ok": true, "output": "..."} |
                                           {"template": "...", "ok": false, "error": "..."}]}

The same seed always gives the same templates (Python's `random.Random(seed)`), so a
divergence found by a long run is reproduced by its seed and index. Every template renders
with the one values object printed beside the cases.

The grammar keeps to what zeroforge means to match exactly. It leaves out the documented
differences (docs/template-language.md): integers past 64 bits, undefined values inside
printed containers, and filters whose output depends on Python objects zeroforge does not
have.
"""
import argparse
import json
import random
import sys

import jinja2

VALUES = {
    "n": 3,
    "m": -2,
    "f": 2.5,
    "s": "ab c",
    "t": "Zero",
    "xs": [1, 2, 3],
    "ws": ["b", "a", "c"],
    "d": {"k": 1, "j": 2},
    "tree": [{"v": 1, "c": [{"v": 2, "c": []}, {"v": 3, "c": [{"v": 4, "c": []}]}]},
             {"v": 5, "c": []}],
    "e": [],
    "flag": True,
    "nothing": None,
}

INT_NAMES = ["n", "m"]
LIST_NAMES = ["xs", "ws", "e"]
# `reverse` and `unique` give Python iterators, which print as `<generator object ...>`
# (zeroforge gives the list; docs/template-language.md): always listed here.
SCALAR_FILTERS = ["string", "length", "upper", "lower", "trim", "first", "last", "list",
                  "sort", "reverse | list", "unique | list", "join", "sum", "min", "max", "abs", "int",
                  "float", "tojson", "count", "capitalize", "title"]
TESTS = ["defined", "undefined", "number", "string", "sequence", "mapping", "iterable",
         "odd", "even", "none", "boolean", "integer", "float", "callable"]
LOOP_ATTRIBUTES = ["index", "index0", "revindex", "revindex0", "first", "last", "length",
                   "depth", "depth0"]


class Generator:
    def __init__(self, rng):
        self.rng = rng
        self.macros = []  # (name, params, uses varargs, uses kwargs, uses caller)

    def pick(self, items):
        return self.rng.choice(items)

    # ----- expressions -----

    def atom(self):
        r = self.rng.random()
        if r < 0.25:
            return str(self.rng.randint(-3, 9))
        if r < 0.35:
            return repr(self.pick(["", "a", "xy", "a b", "Q"]))
        if r < 0.45:
            return self.pick(["1.5", "0.25", "2.0", "-0.5"])
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
        if r < 0.3:
            return self.atom()
        if r < 0.38:
            # Mostly numbers with numbers, so that a template gets past its first operator.
            op = self.pick(["+", "-", "*", "//", "%", "==", "!=", "<", ">=", "**"])
            left = self.number(depth + 1)
            if op == "**" and left.startswith("-"):
                # Jinja2 writes a folded negative constant into its Python code unparenthesised,
                # so `-3 ** x` computes -(3 ** x) when x is not a constant
                # (docs/template-language.md): left out.
                left = left[1:]
            right = self.number(depth + 1)
            if op == "**":
                # A negative base to a fractional power is a complex number in Python, which
                # zeroforge refuses (a documented difference): whole exponents only.
                right = self.pick(["0", "1", "2", "3", "n"])
            return "(%s %s %s)" % (left, op, right)
        if r < 0.45:
            op = self.pick(["~", "==", "!=", "and", "or", "in", "not in", "+", "<"])
            return "(%s %s %s)" % (self.expr(depth + 1), op, self.expr(depth + 1))
        if r < 0.6:
            flt = self.pick(SCALAR_FILTERS)
            if flt == "join":
                flt = "join(%r)" % self.pick([",", "-", ""])
            return "%s | %s" % (self.postfix(depth), flt)
        if r < 0.7:
            return "(%s is %s%s)" % (self.postfix(depth), self.pick(["", "not "]),
                                     self.pick(TESTS))
        if r < 0.8:
            return self.postfix(depth)
        if r < 0.87:
            return "(%s if %s else %s)" % (self.expr(depth + 1), self.expr(depth + 1),
                                           self.expr(depth + 1))
        if r < 0.93:
            return "not %s" % self.expr(depth + 1)
        return "%s(%s)" % (self.pick(["range"]),
                           ", ".join(str(self.rng.randint(-2, 6))
                                     for _ in range(self.rng.randint(1, 3))))

    def number(self, depth):
        r = self.rng.random()
        if r < 0.5:
            return str(self.rng.randint(-3, 9))
        if r < 0.65:
            return self.pick(INT_NAMES + ["f", "1.5", "0.5"])
        if r < 0.8 and depth < 3:
            return "(%s %s %s)" % (self.number(depth + 1), self.pick(["+", "-", "*"]),
                                   self.number(depth + 1))
        return self.pick(["xs | length", "range(4) | sum", "xs[1]", "loop_free | default(2)",
                          "range(9)[-2]", "xs | first", "d.k"])

    def postfix(self, depth):
        base = self.pick(LIST_NAMES + ["d", "s", "tree", "range(6)", "range(2, 9, 2)"])
        r = self.rng.random()
        if r < 0.3:
            return "%s[%d]" % (base, self.rng.randint(-3, 3))
        if r < 0.55:
            parts = [self.pick(["", str(self.rng.randint(-3, 4))]) for _ in range(2)]
            step = self.pick(["", ":-1", ":2", ":-2"])
            return "%s[%s:%s%s]" % (base, parts[0], parts[1], step)
        if r < 0.7:
            return "%s.%s" % (base, self.pick(["k", "start", "stop", "step", "v", "x"]))
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
        if r < 0.42:
            return "{%% if %s %%}%s{%% else %%}%s{%% endif %%}" % (
                self.expr(1), self.body(depth + 1, in_loop, in_macro, recursive),
                self.body(depth + 1, in_loop, in_macro, recursive))
        if r < 0.55:
            target = self.pick(["x", "y"])
            iterable = self.pick(LIST_NAMES + ["range(3)", "s", "d", "range(4, 0, -2)",
                                               "xs[::-1]"])
            cond = " if %s" % self.expr(2) if self.rng.random() < 0.2 else ""
            return "{%% for %s in %s%s %%}%s{%% else %%}E{%% endfor %%}" % (
                target, iterable, cond, self.body(depth + 1, True, in_macro, False))
        if r < 0.63:
            return self.recursive_loop(depth)
        if r < 0.75:
            return self.macro_and_call(depth)
        if r < 0.82:
            return "{%% set %s = %s %%}{{ %s }}" % (self.pick(["a", "b"]), self.expr(1),
                                                    self.pick(["a", "b", "n"]))
        if r < 0.88:
            return ("{%% set ns = namespace(c=0) %%}{%% for i in %s %%}{%% set ns.c = ns.c + i"
                    " %%}{%% endfor %%}{{ ns.c }}" % self.pick(["xs", "range(5)", "e"]))
        if r < 0.94:
            return "{%% with w = %s %%}{{ w }}%s{%% endwith %%}" % (
                self.expr(1), self.body(depth + 1, in_loop, in_macro, recursive))
        return "{%% filter %s %%}%s{%% endfilter %%}" % (
            self.pick(["upper", "lower", "trim", "title"]),
            self.body(depth + 1, in_loop, in_macro, recursive))

    def leaf(self, in_loop, in_macro, recursive):
        r = self.rng.random()
        if in_loop and r < 0.3:
            attr = self.pick(LOOP_ATTRIBUTES + ["previtem", "nextitem", "cycle('o', 'e')",
                                                 "changed(x)"])
            if attr in ("previtem", "nextitem"):
                return "{{ loop.%s | default('-') }}" % attr
            return "{{ loop.%s }}" % attr
        if in_macro and r < 0.45:
            return self.pick(["{{ varargs }}", "{{ kwargs }}", "{{ caller() }}",
                              "{{ caller(1) }}", "{{ kwargs | length }}",
                              "{{ varargs | join(',') }}"])
        if r < 0.55:
            return "[%s]" % self.pick(["a", " ", "\n", "x-y"])
        return "{{ %s }}" % self.expr()

    def recursive_loop(self, depth):
        inner = self.pick([
            "{{ x.v }}{{ loop.depth }}({{ loop(x.c) }})",
            "{% if x.c %}[{{ loop(x.c) }}]{% else %}{{ x.v }}{% endif %}",
            "{{ loop.depth0 }}{{ loop.index }}/{{ loop.length }}{{ loop(x.c) }}",
            "{{ x.v }}{% for y in x.c %}{{ y.v }}{% endfor %}{{ loop(x.c) if loop.first }}",
            "{{ x.v if x is mapping else x }}{{ loop(x.c) if x is mapping }}",
        ])
        cond = self.pick(["", " if x.v != 3"])
        source = self.pick(["tree", "tree[1:]", "e", "tree[0].c"])
        return "{%% for x in %s%s recursive %%}%s{%% else %%}E{%% endfor %%}" % (
            source, cond, inner)

    def macro_and_call(self, depth):
        name = "m%d" % self.rng.randint(0, 99)
        params = self.pick(["", "a", "a, b=2", "a=1", "a, b, c=none"])
        body = self.body(depth + 1, False, True, False)
        definition = "{%% macro %s(%s) %%}%s{%% endmacro %%}" % (name, params, body)
        args = self.pick(["", "1", "1, 2", "1, 2, 3", "b=5", "1, x=4", "a=0, z=1", "*xs",
                          "**d", "1, *[2]", "**{'a': 7}"])
        if self.rng.random() < 0.5:
            call_params = self.pick(["", "(p)", "(p, q=0)", "()"])
            caller_body = self.pick(["C", "{{ p }}", "{{ p | default('-') }}{{ q }}",
                                     "<{{ n }}>"])
            use = "{%% call%s %s(%s) %%}%s{%% endcall %%}" % (call_params, name, args,
                                                             caller_body)
        else:
            use = "{{ %s(%s) }}" % (name, args)
        attrs = ""
        if self.rng.random() < 0.3:
            attrs = "{{ %s.%s }}" % (name, self.pick(["name", "arguments", "catch_kwargs",
                                                     "catch_varargs", "caller"]))
        return definition + use + attrs

    def template(self):
        return self.body(0)


def render(env, source):
    try:
        return {"ok": True, "output": env.from_string(source).render(VALUES)}
    except Exception as error:  # every failure counts, RecursionError included
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    cases = []
    for _ in range(args.count):
        source = Generator(rng).template()
        result = render(env, source)
        result["template"] = source
        cases.append(result)
    json.dump({"values": VALUES, "cases": cases}, sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
