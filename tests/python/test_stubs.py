# SPDX-License-Identifier: MIT
# The stubs (__init__.pyi) say what the module has: the same public functions, each with the
# same parameters in the same order and kind, and every public name (the exception classes
# too); every public function has a docstring help() shows; py.typed marks the package as typed.
import ast
import inspect
from pathlib import Path

import zeroforge

PACKAGE = Path(zeroforge.__file__).parent


def stub_functions():
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            params = [(a.arg, "POSITIONAL_OR_KEYWORD") for a in args.args]
            params += [(a.arg, "KEYWORD_ONLY") for a in args.kwonlyargs]
            if args.kwarg:
                params.append((args.kwarg.arg, "VAR_KEYWORD"))
            out[node.name] = params
    return out


def test_stubs_match_the_functions():
    stubs = stub_functions()
    public = {name for name in zeroforge.__all__ if callable(getattr(zeroforge, name))
              and inspect.isfunction(getattr(zeroforge, name))}
    assert set(stubs) == public
    for name, params in stubs.items():
        signature = inspect.signature(getattr(zeroforge, name))
        assert params == [(p.name, p.kind.name) for p in signature.parameters.values()], name


def test_stubs_name_every_public_name():
    # The exception and result classes too (imported there from _errors and _results, as in
    # __init__.py): a class missing from the stubs is unknown to a type checker.
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    named = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            named |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            named.add(node.name)
        elif isinstance(node, (ast.AnnAssign, ast.Assign)):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            named |= {t.id for t in targets if isinstance(t, ast.Name)}
    assert set(zeroforge.__all__) - named == set()
    assert {"ArgumentTypeError", "ArgumentValueError"} <= named


def test_every_public_name_has_a_docstring_help_shows():
    for name in zeroforge.__all__:
        value = getattr(zeroforge, name)
        if callable(value):
            assert inspect.getdoc(value), name
    assert "render" in zeroforge.__doc__
    assert (PACKAGE / "py.typed").is_file()
