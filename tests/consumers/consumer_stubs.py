# SPDX-License-Identifier: MIT
# The few stand-ins the real consumers need to be imported without a GPU, a cluster or a network:
# modules that are only imported, never used by the code under check (a compiled runtime, a hub
# client), answered by a module whose every attribute is an inert placeholder. The code that is
# checked (parsers, config loaders, launch paths) is always the consumer's own.
import importlib.abc
import importlib.machinery
import sys
import types


class Placeholder(str):
    """Whatever a stubbed module exports: callable, subclassable, iterable (as empty), a string
    (a path or a URL constant: the stubbed module's qualified name), inert."""

    def __new__(cls, name):
        self = super().__new__(cls, "/nonexistent/" + name)
        self._name = name
        return self

    def __call__(self, *args, **kwargs):
        return Placeholder(self._name + "()")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Placeholder(self._name + "." + name)

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __mro_entries__(self, bases):
        return (object,)

    def __repr__(self):
        return f"<stub {self._name}>"


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Placeholder(self.__name__ + "." + name)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, prefixes):
        self.prefixes = set(prefixes)

    def _claims(self, fullname):
        return any(fullname == p or fullname.startswith(p + ".") for p in self.prefixes)

    def find_spec(self, fullname, path, target=None):
        if self._claims(fullname):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        module.__version__ = "0+stub"
        return module

    def exec_module(self, module):
        pass


def stub_modules(*prefixes):
    """Answers `import P` and `import P.anything` for each prefix with a StubModule."""
    sys.meta_path.insert(0, _StubFinder(prefixes))


def package_from_source(name, directory):
    """Makes `name` the package at `directory` without running its __init__ (which imports a
    whole runtime): its submodules load from the source as usual."""
    module = types.ModuleType(name)
    module.__path__ = [directory]
    module.__file__ = None
    sys.modules[name] = module
    return module
