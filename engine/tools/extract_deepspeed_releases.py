#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# extract_deepspeed_releases: reads, from each DeepSpeed release's own source, what its JSON
# config accepts, and compares that with the release history of the validator's schema data
# (engine/src/deepspeed/deepspeed_schema.json, "releases"). Run by hand with a clone of
# deepspeedai/DeepSpeed; the build never runs it (docs/validate.md, "Adding a DeepSpeed release").
"""Read what each DeepSpeed release accepts in its config, from its source.

Usage:
  extract_deepspeed_releases.py --repo DIR [--oldest 0.12.0] [--release V=REV]... facts [OUT.json]
  extract_deepspeed_releases.py --repo DIR [...] changes|write|check SCHEMA.json

DIR is a git directory of deepspeedai/DeepSpeed (a bare mirror is enough: nothing is checked
out, files are read with git cat-file). The releases are its tags vX.Y.Z from --oldest on, plus
each --release V=REV (a release without a tag, such as 0.19.6 = a commit).

No DeepSpeed, PyTorch or pydantic is imported: the source is parsed with Python's ast module.
Per release it reads
  - the pydantic models (classes derived from DeepSpeedConfigModel): their fields, aliases,
    defaults, bounds, deprecated fields and `extra` ("forbid" = unknown keys are refused);
  - which config sections are built into which model, and the keys DeepSpeedConfig reads with
    `.get`, `[]`, `in` or get_scalar_param, found by following the config dict from
    DeepSpeedConfig._initialize_params through the functions it is passed to;
  - the optimizer names DeepSpeed knows (DEEPSPEED_OPTIMIZERS), the LR schedulers
    (VALID_LR_SCHEDULES) and the keyword parameters of their constructors.

Commands:
  facts    writes every release's facts as JSON (to OUT.json or stdout).
  changes  prints the "releases" block the schema data should hold: the known releases and,
           once per change, what each release added, removed or changed relative to the one
           before it, for the sections and keys the schema describes.
  write    writes that block into SCHEMA.json (its last member), leaving the rest as it is.
  check    exit 1 when the schema data's "releases" block is not `changes`, or when the rest
           of the schema data (the newest release) disagrees with the newest release's source:
           a key read there without a node, another default or kind, a node no release reads.
"""
import argparse
import ast
import json
import re
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import release_history  # noqa: E402  (the comparison with the schema data, next to this file)

# --- reading the repository ------------------------------------------------------------------


class Repo:
    """Files of a git directory at a revision, through one `git cat-file --batch` process."""

    def __init__(self, git_dir):
        self.git_dir = git_dir
        self.cat = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def git(self, *args):
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True,
                              capture_output=True, text=True).stdout

    def tree(self, rev, prefix="deepspeed"):
        """{path: blob id} of the .py files under `prefix` at `rev`."""
        out = {}
        for line in self.git("ls-tree", "-r", rev, prefix).splitlines():
            meta, path = line.split("\t", 1)
            if path.endswith(".py"):
                out[path] = meta.split()[2]
        return out

    def blob(self, blob_id):
        self.cat.stdin.write((blob_id + "\n").encode())
        self.cat.stdin.flush()
        header = self.cat.stdout.readline().decode().split()
        size = int(header[2])
        data = self.cat.stdout.read(size)
        self.cat.stdout.read(1)  # the newline after the object
        return data.decode("utf-8", errors="replace")


# The packages whose modules read the config; others (inference, ops kernels, module_inject)
# are not parsed, except the optimizer modules whose constructors take optimizer.params.
PACKAGES = ("deepspeed/runtime/", "deepspeed/utils/", "deepspeed/comm/", "deepspeed/monitor/",
            "deepspeed/compression/", "deepspeed/elasticity/", "deepspeed/profiling/",
            "deepspeed/nebula/", "deepspeed/datastates/", "deepspeed/autotuning/",
            "deepspeed/compile/config.py", "deepspeed/checkpoint/", "deepspeed/moe/",
            "deepspeed/ops/adam/", "deepspeed/ops/adagrad/", "deepspeed/ops/lamb/",
            "deepspeed/ops/lion/", "deepspeed/pydantic_v1.py", "deepspeed/accelerator/")


def module_name(path):
    name = path[:-3].replace("/", ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


# --- constants and names ---------------------------------------------------------------------


class Unknown:
    """A value the extractor cannot compute (a call, a torch type...): kept as its source text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"Unknown({self.text})"


MISSING = object()  # a field or key with no default


class Module:

    def __init__(self, name, tree, is_package):
        self.name = name
        self.tree = tree
        self.is_package = is_package
        self.assigns = {}  # NAME -> value expression (module level)
        self.defs = {}  # NAME -> FunctionDef / ClassDef
        self.imports = {}  # local NAME -> (module, NAME or None for a module)
        self.star = []  # modules imported with *
        for node in tree.body:
            self._scan(node)

    def _scan(self, node):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.assigns[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            self.assigns[node.target.id] = node.value
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            self.defs[node.name] = node
        elif isinstance(node, ast.ImportFrom):
            base = self.resolve_relative(node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    self.star.append(base)
                else:
                    self.imports[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                self.imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else
                                                                          alias.name.split(".")[0], None)
        elif isinstance(node, (ast.If, ast.Try)):
            for child in node.body + getattr(node, "orelse", []) + [
                    s for h in getattr(node, "handlers", []) for s in h.body
            ]:
                self._scan(child)

    def resolve_relative(self, module, level):
        if level == 0:
            return module
        parts = self.name.split(".")
        if not self.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[:-(level - 1)]
        return ".".join(parts + ([module] if module else []))


class Program:
    """The parsed modules of one release, and name resolution across them."""

    def __init__(self, modules):
        self.modules = modules

    def lookup(self, module, name, depth=0):
        """(module, kind, node) for `name` seen from `module`: kind is 'assign', 'def',
        'module' or None."""
        mod = self.modules.get(module)
        if mod is None or depth > 8:
            return None, None, None
        if name in mod.defs:
            return mod, "def", mod.defs[name]
        if name in mod.assigns:
            return mod, "assign", mod.assigns[name]
        if name in mod.imports:
            source, attr = mod.imports[name]
            if attr is None:
                return source, "module", None
            if source in self.modules and (attr in self.modules[source].defs or attr in self.modules[source].assigns
                                           or attr in self.modules[source].imports or self.modules[source].star):
                found = self.lookup(source, attr, depth + 1)
                if found[1] is not None:
                    return found
            sub = source + "." + attr
            if sub in self.modules:
                return sub, "module", None
            return None, None, None
        for source in mod.star:
            found = self.lookup(source, name, depth + 1)
            if found[1] is not None:
                return found
        return None, None, None

    def const(self, module, expr, depth=0):
        """The value of a constant expression (literals, names bound to literals, pp_int(..),
        sys.maxsize, enum members, simple arithmetic), else Unknown."""
        if depth > 12:
            return Unknown(ast.unparse(expr))
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return [self.const(module, e, depth + 1) for e in expr.elts]
        if isinstance(expr, ast.Dict):
            out = {}
            for k, v in zip(expr.keys, expr.values):
                key = self.const(module, k, depth + 1) if k is not None else None
                if not isinstance(key, str):
                    return Unknown(ast.unparse(expr))
                out[key] = self.const(module, v, depth + 1)
            return out
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            value = self.const(module, expr.operand, depth + 1)
            return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else Unknown(
                ast.unparse(expr))
        if isinstance(expr, ast.BinOp):
            left, right = self.const(module, expr.left, depth + 1), self.const(module, expr.right, depth + 1)
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
                ops = {ast.Mult: lambda a, b: a * b, ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                       ast.Pow: lambda a, b: a**b, ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b}
                if type(expr.op) in ops:
                    return ops[type(expr.op)](left, right)
            return Unknown(ast.unparse(expr))
        if isinstance(expr, ast.Name):
            mod, kind, node = self.lookup(module, expr.id)
            if kind == "assign":
                return self.const(mod.name, node, depth + 1)
            return Unknown(expr.id)
        if isinstance(expr, ast.Attribute):
            text = ast.unparse(expr)
            if text == "sys.maxsize":
                return 9223372036854775807
            if isinstance(expr.value, ast.Name):
                mod, kind, node = self.lookup(module, expr.value.id)
                if kind == "def" and isinstance(node, ast.ClassDef):  # an Enum member
                    for stmt in node.body:
                        if isinstance(stmt, ast.Assign) and any(
                                isinstance(t, ast.Name) and t.id == expr.attr for t in stmt.targets):
                            return self.const(mod.name, stmt.value, depth + 1)
                if kind == "module":
                    found = self.lookup(mod, expr.attr)
                    if found[1] == "assign":
                        return self.const(found[0].name, found[2], depth + 1)
            return Unknown(text)
        if isinstance(expr, ast.Call):
            name = ast.unparse(expr.func)
            if name in ("pp_int", "int", "float") and expr.args:
                value = self.const(module, expr.args[0], depth + 1)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    return int(value) if name != "float" else float(value)
            return Unknown(ast.unparse(expr))
        return Unknown(ast.unparse(expr))


def json_value(value):
    """A JSON-able form of a constant: Unknown values become {"expr": source}."""
    if isinstance(value, Unknown):
        return {"expr": value.text}
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value


# --- pydantic models -------------------------------------------------------------------------


class Model:

    def __init__(self, name, module, node):
        self.name, self.module, self.node = name, module, node
        self.fields = {}  # field name -> facts
        self.extra = None
        self.base_models = []


def keyword(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def find_models(program):
    classes = {}
    for mod in program.modules.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, []).append((mod, node))
    models = {}

    def is_model(mod, node, depth=0):
        if node.name == "DeepSpeedConfigModel":
            return True
        if depth > 10:
            return False
        for base in node.bases:
            base_name = ast.unparse(base).split(".")[-1]
            found = program.lookup(mod.name, base_name)
            if found[1] == "def" and isinstance(found[2], ast.ClassDef) and is_model(found[0], found[2], depth + 1):
                return True
            if base_name in ("DeepSpeedConfigModel", "BaseModel"):  # BaseModel: pydantic's own
                return True
        return False

    for name, defs in classes.items():
        for mod, node in defs:
            if is_model(mod, node):
                models[(mod.name, name)] = Model(name, mod.name, node)
    for model in models.values():
        read_model(program, model, models)
    return models


def read_model(program, model, models):
    node = model.node
    mod = model.module
    for base in node.bases:
        base_name = ast.unparse(base).split(".")[-1]
        found = program.lookup(mod, base_name)
        if found[1] == "def" and (found[0].name, base_name) in models:
            model.base_models.append(models[(found[0].name, base_name)])
    for stmt in node.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "Config":  # pydantic 1
            for inner in stmt.body:
                if isinstance(inner, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "extra"
                                                         for t in inner.targets):
                    model.extra = program.const(mod, inner.value)
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_config"
                                                for t in stmt.targets):  # pydantic 2
            if isinstance(stmt.value, ast.Call):
                extra = keyword(stmt.value, "extra")
                if extra is not None:
                    model.extra = program.const(mod, extra)
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        name = stmt.target.id
        annotation = ast.unparse(stmt.annotation)
        if name.startswith("_") or "ClassVar" in annotation or name == "model_config":
            continue
        field = {"annotation": annotation, "default": MISSING}
        value = stmt.value
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "Field":
            if value.args:
                field["default"] = program.const(mod, value.args[0])
            if keyword(value, "default") is not None:
                field["default"] = program.const(mod, keyword(value, "default"))
            factory = keyword(value, "default_factory")
            if factory is not None:
                field["default"] = Unknown(ast.unparse(factory) + "()")
            for bound in ("ge", "gt", "le", "lt"):
                if keyword(value, bound) is not None:
                    field[bound] = program.const(mod, keyword(value, bound))
            alias = keyword(value, "alias")
            if alias is not None:
                field["alias"] = program.const(mod, alias)
            extra = keyword(value, "json_schema_extra")
            extras = {}
            if isinstance(extra, ast.Dict):
                for k, v in zip(extra.keys, extra.values):
                    extras[program.const(mod, k)] = v
            for kw in value.keywords:  # pydantic 1: extra keyword arguments of Field
                if kw.arg in ("deprecated", "new_param", "deprecated_msg", "set_new_param"):
                    extras[kw.arg] = kw.value
            if "deprecated" in extras and program.const(mod, extras["deprecated"]) is True:
                field["deprecated"] = True
                if "new_param" in extras:
                    field["new_param"] = program.const(mod, extras["new_param"])
        elif value is not None:
            field["default"] = program.const(mod, value)
        model.fields[name] = field


def model_fields(model):
    """Fields with those of the base models first, as pydantic orders them."""
    out = {}
    for base in model.base_models:
        out.update(model_fields(base))
    out.update(model.fields)
    return out


def model_extra(model, depth=0):
    """pydantic's `extra` of a model: its own, else its bases', else pydantic's default."""
    if model.extra is not None:
        return model.extra
    for base in model.base_models:
        extra = model_extra(base, depth + 1)
        if extra is not None:
            return extra
    return "ignore" if depth == 0 else None


# --- following the config dict ---------------------------------------------------------------

TOP = ("path", ())  # the whole config


def path_value(path):
    return ("path", tuple(path))


class Flow:
    """Follows the config dict from DeepSpeedConfig._initialize_params: each function it is
    passed to, each key read from it or from a section taken out of it, and each section
    handed to a pydantic model as keyword arguments. Flow-insensitive: a variable holds the
    union of everything assigned to it."""

    GETTERS = ("get_scalar_param", "get_list_param", "get_dict_param")

    def __init__(self, program, models):
        self.program = program
        self.models_by_name = {}
        for (mod, name), model in models.items():
            self.models_by_name.setdefault(name, []).append(model)
        self.reads = {}  # path -> {key: default or MISSING}
        self.built = {}  # path -> model name
        self.visited = set()
        self.depth = 0

    def read(self, path, key, default=MISSING):
        keys = self.reads.setdefault(path, {})
        if key not in keys or keys[key] is MISSING:
            keys[key] = default

    # A function body, with the abstract values of its parameters.
    def run_function(self, module, func, bindings, cls=None):
        key = (module, id(func), tuple(sorted((k, tuple(sorted(v))) for k, v in bindings.items())))
        if key in self.visited or self.depth > 14:
            return set()
        self.visited.add(key)
        self.depth += 1
        env = {k: set(v) for k, v in bindings.items()}
        returns = set()
        for _ in range(2):  # the second pass sees what later assignments bound
            for stmt in func.body:
                returns |= self.statement(module, stmt, env, cls)
        self.depth -= 1
        return returns

    def statement(self, module, stmt, env, cls):
        returns = set()
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = self.expr(module, stmt.value, env, cls) if stmt.value is not None else set()
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                self.bind(module, target, value, env, cls)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            returns |= self.expr(module, stmt.value, env, cls)
        elif isinstance(stmt, ast.Expr):
            self.expr(module, stmt.value, env, cls)
        elif isinstance(stmt, ast.For):
            items = self.expr(module, stmt.iter, env, cls)
            self.bind(module, stmt.target, items, env, cls)
            for child in stmt.body + stmt.orelse:
                returns |= self.statement(module, child, env, cls)
        elif isinstance(stmt, (ast.If, ast.While)):
            self.expr(module, stmt.test, env, cls)
            for child in stmt.body + stmt.orelse:
                returns |= self.statement(module, child, env, cls)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                self.expr(module, item.context_expr, env, cls)
            for child in stmt.body:
                returns |= self.statement(module, child, env, cls)
        elif isinstance(stmt, ast.Try):
            for child in stmt.body + stmt.orelse + stmt.finalbody + [s for h in stmt.handlers for s in h.body]:
                returns |= self.statement(module, child, env, cls)
        elif isinstance(stmt, ast.Assert):
            self.expr(module, stmt.test, env, cls)
        return returns

    def bind(self, module, target, value, env, cls):
        if isinstance(target, ast.Name):
            env.setdefault(target.id, set()).update(value)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            env.setdefault("self." + target.attr, set()).update(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(module, element, set(), env, cls)

    def key_of(self, module, expr, env, cls):
        """The string keys an expression can be."""
        keys = set()
        for value in self.expr(module, expr, env, cls):
            if value[0] == "const" and isinstance(value[1], str):
                keys.add(value[1])
        if not keys:
            const = self.program.const(module, expr)
            if isinstance(const, str):
                keys.add(const)
        return keys

    def paths(self, values):
        return [v[1] for v in values if v[0] == "path"]

    def expr(self, module, expr, env, cls):
        """The abstract values of an expression: ("path", keys) for the config or a section of
        it, ("const", value) for a constant, ("dict", ((key, values), ...)) for a dict of
        sections; reads and calls on the way are recorded."""
        if expr is None:
            return set()
        if isinstance(expr, ast.Name):
            if expr.id in env:
                return set(env[expr.id])
            const = self.program.const(module, expr)
            return {("const", const)} if isinstance(const, (str, int, float, bool)) else set()
        if isinstance(expr, ast.Constant):
            return {("const", expr.value)} if isinstance(expr.value, (str, int, float, bool, type(None))) else set()
        if isinstance(expr, (ast.List, ast.Tuple)):
            out = set()
            for element in expr.elts:
                out |= {v for v in self.expr(module, element, env, cls) if v[0] == "const"}
            return out
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id == "self":
                return set(env.get("self." + expr.attr, set()))
            self.expr(module, expr.value, env, cls)
            const = self.program.const(module, expr)
            return {("const", const)} if isinstance(const, str) else set()
        if isinstance(expr, ast.Subscript):
            base = self.expr(module, expr.value, env, cls)
            out = set()
            for path in self.paths(base):
                for key in self.key_of(module, expr.slice, env, cls):
                    self.read(path, key)
                    out.add(path_value(path + (key, )))
            self.expr(module, expr.slice, env, cls)
            return out
        if isinstance(expr, ast.Compare):
            left = self.expr(module, expr.left, env, cls)
            for op, right in zip(expr.ops, expr.comparators):
                right_values = self.expr(module, right, env, cls)
                if isinstance(op, (ast.In, ast.NotIn)):
                    for path in self.paths(right_values):
                        for value in left:
                            if value[0] == "const" and isinstance(value[1], str):
                                self.read(path, value[1])
            return set()
        if isinstance(expr, ast.Call):
            return self.call(module, expr, env, cls)
        if isinstance(expr, ast.IfExp):
            self.expr(module, expr.test, env, cls)
            return self.expr(module, expr.body, env, cls) | self.expr(module, expr.orelse, env, cls)
        if isinstance(expr, ast.BoolOp):
            out = set()
            for value in expr.values:
                out |= self.expr(module, value, env, cls)
            return out
        if isinstance(expr, (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.comprehension(module, expr, env, cls)
        if isinstance(expr, ast.Dict):
            entries = []
            for k, v in zip(expr.keys, expr.values):
                values = self.expr(module, v, env, cls)
                if k is not None:
                    for key in self.key_of(module, k, env, cls):
                        entries.append((key, frozenset(values)))
            return {("dict", tuple(entries))} if entries else set()
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, ast.expr):
                self.expr(module, child, env, cls)
        return set()

    def comprehension(self, module, expr, env, cls):
        inner = dict(env)
        loop_keys = []
        for generator in expr.generators:
            items = self.expr(module, generator.iter, inner, cls)
            if isinstance(generator.target, ast.Name):
                inner[generator.target.id] = set(items)
                loop_keys = [(generator.target.id, v) for v in items if v[0] == "const"]
        if isinstance(expr, ast.DictComp) and loop_keys:
            entries = []
            for name, key in loop_keys:
                one = dict(inner)
                one[name] = {key}
                values = self.expr(module, expr.value, one, cls)
                entries.append((key[1], frozenset(values)))
            return {("dict", tuple(entries))}
        if isinstance(expr, ast.DictComp):
            self.expr(module, expr.key, inner, cls)
            self.expr(module, expr.value, inner, cls)
        else:
            self.expr(module, expr.elt, inner, cls)
        return set()

    def call(self, module, call, env, cls):
        func = call.func
        name = ast.unparse(func)
        args = [self.expr(module, a.value if isinstance(a, ast.Starred) else a, env, cls) for a in call.args]
        kwargs = {kw.arg: self.expr(module, kw.value, env, cls) for kw in call.keywords}
        # d.get(KEY, DEFAULT), d.keys(), copy.copy(d), getters
        if isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault"):
            base = self.expr(module, func.value, env, cls)
            out = set()
            for path in self.paths(base):
                if call.args:
                    default = self.default_of(module, call.args[1], env) if len(call.args) > 1 else None
                    for key in self.key_of(module, call.args[0], env, cls):
                        self.read(path, key, default if func.attr == "get" else MISSING)
                        out.add(path_value(path + (key, )))
            return out
        if isinstance(func, ast.Attribute) and func.attr in ("keys", "copy", "items", "values"):
            base = self.expr(module, func.value, env, cls)
            return base if func.attr in ("keys", "copy") else set()
        if name in ("copy.copy", "copy.deepcopy", "dict") and len(call.args) == 1:
            return args[0]
        if name.split(".")[-1] in self.GETTERS and len(call.args) >= 2:
            default = self.default_of(module, call.args[2], env) if len(call.args) > 2 else MISSING
            out = set()
            for path in self.paths(args[0]):
                for key in self.key_of(module, call.args[1], env, cls):
                    self.read(path, key, default)
                    out.add(path_value(path + (key, )))
            return out
        # a pydantic model built from a section: Model(**section)
        model_name = name.split(".")[-1]
        if model_name in self.models_by_name:
            for kw in call.keywords:
                if kw.arg is None:
                    for value in kwargs[None]:
                        self.model_of(value, model_name)
            return set()
        # a function or class the config (or a section) is passed to
        target = self.resolve_call(module, func, cls)
        if target is None:
            return set()
        target_module, target_func, target_cls, skip_self = target
        params = [a.arg for a in target_func.args.args]
        if skip_self:
            params = params[1:]
        bindings = {}
        # Parameter defaults first (get_communication_data_type(param_dict, key=NAME, ...)),
        # then what the call passes.
        defaults = target_func.args.defaults
        positional = [a.arg for a in target_func.args.args]
        for param, default in zip(positional[len(positional) - len(defaults):], defaults):
            const = self.program.const(target_module, default)
            if isinstance(const, (str, int, float, bool, type(None))):
                bindings[param] = frozenset({("const", const)})
        passed = False
        for param, values in list(zip(params, args)) + [(k, v) for k, v in kwargs.items() if k is not None]:
            kept = frozenset(v for v in values if v[0] in ("path", "const"))
            if kept:
                bindings[param] = kept
                passed = passed or any(v[0] == "path" for v in values)
        if not passed:
            return set()
        if skip_self and target_cls is not None:
            for attr, values in env.items():
                if attr.startswith("self.") and target_cls is cls:
                    bindings.setdefault(attr, frozenset(values))
        return self.run_function(target_module, target_func, bindings, target_cls)

    def default_of(self, module, expr, env):
        """A default passed on by a parameter (get_communication_data_type(param_dict,
        comm_type=..., comm_data_type_default=...)) or written as a constant."""
        if isinstance(expr, ast.Name) and expr.id in env:
            consts = [v[1] for v in env[expr.id] if v[0] == "const"]
            if len(consts) == 1:
                return consts[0]
        return self.program.const(module, expr)

    def model_of(self, value, model_name):
        if value[0] == "path":
            self.built.setdefault(value[1], model_name)
        elif value[0] == "dict":
            models = self.models_by_name[model_name]
            fields = model_fields(models[0])
            for key, values in value[1]:
                annotation = fields.get(key, {}).get("annotation", "")
                for candidate in re.findall(r"\w+", annotation):
                    if candidate in self.models_by_name:
                        for v in values:
                            self.model_of(v, candidate)

    def resolve_call(self, module, func, cls):
        """(module, FunctionDef, ClassDef or None, is a method) of a call, or None."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and cls:
            method = self.method(module, cls, func.attr)
            if method:
                return method[0], method[1], method[2], True
            return None
        if isinstance(func, ast.Name):
            mod, kind, node = self.program.lookup(module, func.id)
            if kind == "def":
                if isinstance(node, ast.FunctionDef):
                    return mod.name, node, None, False
                init = self.method(mod.name, node, "__init__")
                if init:
                    return init[0], init[1], init[2], True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            mod, kind, _ = self.program.lookup(module, func.value.id)
            if kind == "module":
                found = self.program.lookup(mod, func.attr)
                if found[1] == "def" and isinstance(found[2], ast.FunctionDef):
                    return found[0].name, found[2], None, False
        return None

    def method(self, module, cls, name, depth=0):
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return module, stmt, cls
        if depth > 6:
            return None
        for base in cls.bases:
            found = self.program.lookup(module, ast.unparse(base).split(".")[-1])
            if found[1] == "def" and isinstance(found[2], ast.ClassDef):
                result = self.method(found[0].name, found[2], name, depth + 1)
                if result:
                    return result
        return None


# --- one release ---------------------------------------------------------------------------


class Extractor:

    def __init__(self, repo):
        self.repo = repo
        self.parsed = {}  # blob id -> ast (files unchanged between releases are parsed once)

    def program(self, rev):
        modules = {}
        for path, blob in self.repo.tree(rev).items():
            if not path.startswith(PACKAGES):
                continue
            if blob not in self.parsed:
                try:
                    self.parsed[blob] = ast.parse(self.repo.blob(blob))
                except SyntaxError:
                    self.parsed[blob] = ast.parse("")
            name = module_name(path)
            modules[name] = Module(name, self.parsed[blob], path.endswith("__init__.py"))
        return Program(modules)

    def release(self, version, rev):
        program = self.program(rev)
        models = find_models(program)
        flow = Flow(program, models)
        config = program.modules["deepspeed.runtime.config"]
        ds_config = config.defs["DeepSpeedConfig"]
        state = {"self._param_dict": frozenset({TOP})}
        for stmt in ds_config.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "_initialize_params":
                flow.run_function(config.name, stmt, {stmt.args.args[1].arg: frozenset({TOP}), **state}, ds_config)
        for stmt in ds_config.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name != "_initialize_params":
                bindings = dict(state)
                if stmt.name == "__init__":  # __init__(self, config, ...): the dict itself
                    bindings[stmt.args.args[1].arg] = frozenset({TOP})
                flow.run_function(config.name, stmt, bindings, ds_config)
        facts = {"version": version, "commit": self.repo.git("rev-parse", rev + "^{commit}").strip()}
        facts["pydantic"] = 2 if "ConfigDict" in ast.unparse(program.modules["deepspeed.runtime.config_utils"].tree) else 1
        facts["read"] = {}
        for path in sorted(flow.reads):
            facts["read"]["/" + "/".join(path)] = {k: json_value(v) if v is not MISSING else {"required": True}
                                                   for k, v in sorted(flow.reads[path].items())}
        facts["models"] = {}
        by_name = {}
        for (mod, name), model in models.items():
            by_name.setdefault(name, model)
        def add_model(path, name, depth=0):
            model = by_name[name]
            fields = model_fields(model)
            out = {"class": name, "extra": json_value(model_extra(model)), "fields": {}}
            for field, f in fields.items():
                entry = {"annotation": f["annotation"]}
                if f["default"] is not MISSING:
                    entry["default"] = json_value(f["default"])
                for k in ("alias", "ge", "gt", "le", "lt", "deprecated", "new_param"):
                    if k in f:
                        entry[k] = json_value(f[k])
                out["fields"][field] = entry
            facts["models"][path] = out
            if depth > 4:
                return
            for field, f in fields.items():
                for candidate in re.findall(r"\w+", f["annotation"]):
                    if candidate in by_name and candidate != name:
                        add_model(path + "/" + f.get("alias", field), candidate, depth + 1)
        for path, name in sorted(flow.built.items()):
            add_model("/" + "/".join(path), name)
        facts["checks"] = {}
        tree = self.repo.tree(rev)
        for name, (path, pattern, _) in release_history.CHECKS.items():
            text = self.repo.blob(tree[path]) if path in tree else ""
            facts["checks"][name] = re.search(pattern, text) is not None
        facts["optimizers"] = self.optimizers(program)
        facts["schedulers"] = self.schedulers(program)
        return facts

    def optimizers(self, program):
        config = "deepspeed.runtime.config"
        names = program.const(config, program.modules[config].assigns["DEEPSPEED_OPTIMIZERS"])
        out = {"deepspeed": sorted(json_value(names))}
        classes = {}
        for module, cls in (("deepspeed.ops.adam.fused_adam", "FusedAdam"), ("deepspeed.ops.adam.cpu_adam",
                                                                             "DeepSpeedCPUAdam"),
                            ("deepspeed.ops.adagrad.cpu_adagrad", "DeepSpeedCPUAdagrad"),
                            ("deepspeed.ops.lamb.fused_lamb", "FusedLamb"), ("deepspeed.ops.lion.fused_lion",
                                                                            "FusedLion"),
                            ("deepspeed.ops.lion.cpu_lion", "DeepSpeedCPULion"),
                            ("deepspeed.runtime.fp16.onebit.adam", "OnebitAdam"),
                            ("deepspeed.runtime.fp16.onebit.zoadam", "ZeroOneAdam"),
                            ("deepspeed.runtime.fp16.onebit.lamb", "OnebitLamb")):
            params = self.init_params(program, module, cls)
            if params is not None:
                classes[cls] = params
        out["classes"] = classes
        return out

    def init_params(self, program, module, cls):
        mod = program.modules.get(module)
        if mod is None or cls not in mod.defs:
            return None
        for stmt in mod.defs[cls].body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                args = stmt.args
                return [a.arg for a in args.args[1:] + args.kwonlyargs]
        return None

    def schedulers(self, program):
        module = "deepspeed.runtime.lr_schedules"
        mod = program.modules[module]
        names = json_value(program.const(module, mod.assigns["VALID_LR_SCHEDULES"]))
        out = {}
        for name in names:
            params = self.init_params(program, module, name)
            required = []
            for stmt in mod.defs[name].body:
                if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                    args = stmt.args.args[1:]
                    defaults = len(stmt.args.defaults)
                    required = [a.arg for a in args[:len(args) - defaults]]
            out[name] = {"params": [p for p in params if p != "optimizer"],
                         "required": [p for p in required if p != "optimizer"]}
        return out


def version_key(version):
    return tuple(int(p) for p in version.split("."))


def releases(repo, oldest, extra):
    out = []
    for tag in repo.git("tag").split():
        m = re.fullmatch(r"v(\d+\.\d+\.\d+)", tag)
        if m and version_key(m.group(1)) >= version_key(oldest):
            out.append((m.group(1), tag))
    for item in extra:
        version, rev = item.split("=", 1)
        out.append((version, rev))
    return sorted(out, key=lambda r: version_key(r[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", required=True, help="git directory of deepspeedai/DeepSpeed")
    parser.add_argument("--oldest", default="0.12.0")
    parser.add_argument("--release", action="append", default=[], metavar="V=REV")
    parser.add_argument("command", choices=["facts", "changes", "check", "write"])
    parser.add_argument("file", nargs="?")
    args = parser.parse_args()
    repo = Repo(args.repo)
    extractor = Extractor(repo)
    all_facts = []
    for version, rev in releases(repo, args.oldest, args.release):
        print(f"reading {version} ({rev})", file=sys.stderr)
        all_facts.append(extractor.release(version, rev))
    if args.command == "facts":
        text = json.dumps(all_facts, indent=1) + "\n"
        if args.file:
            with open(args.file, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        return 0
    with open(args.file) as f:
        schema = json.load(f)
    block = release_history.changes(all_facts, schema)
    if args.command == "changes":
        print(release_history.block_text(block))
        return 0
    if args.command == "write":
        release_history.write(block, args.file)
        return 0
    problems = release_history.base_problems(all_facts, schema)
    for problem in problems:
        print(problem)
    return 1 if release_history.check(block, schema) or problems else 0


if __name__ == "__main__":
    sys.exit(main())
