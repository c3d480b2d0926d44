# SPDX-License-Identifier: MIT
# The few stand-ins the real consumers need to be imported without a GPU, a cluster or a network:
# modules that are only imported, never used by the code under check (a compiled runtime, a hub
# client), answered by a module whose every attribute is an inert placeholder. The code that is
# checked (parsers, config loaders, launch paths) is always the consumer's own.
import importlib.abc
import importlib.machinery
import sys
import types


class Placeholder:
    """Whatever a stubbed module exports: callable, subclassable, iterable (as empty), usable as
    a path or a string (a hub constant: /nonexistent/ and its qualified name), inert."""

    def __init__(self, name):
        self._name = name

    def __fspath__(self):
        return "/nonexistent/" + self._name

    __str__ = __fspath__

    def __add__(self, other):
        return str(self) + other

    def __radd__(self, other):
        return other + str(self)

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


def stub_missing_modules(*names):
    """Stubs each top-level package of `names` that this interpreter cannot import: a machine
    with the real huggingface_hub or tokenizers (transformers' own environment) uses them, as
    the consumer's code expects their real types in annotations evaluated at import."""
    import importlib.util
    stub_modules(*[name for name in names if importlib.util.find_spec(name) is None])


def package_from_source(name, directory):
    """Makes `name` the package at `directory` without running its __init__ (which imports a
    whole runtime): its submodules load from the source as usual."""
    module = types.ModuleType(name)
    module.__path__ = [directory]
    module.__file__ = None
    sys.modules[name] = module
    return module


def torch_2_names_on_torch_1(site):
    """Runs torch 2.x-only code paths on torch 1.13 (Debian's) for a consumer that only imports
    them: the checked code (argument parsing, config filling) uses none. Package metadata says
    2.4.0 (transformers disables torch below that), and the few torch 2.x names imported at
    start-up are given: LRScheduler and torch.amp.GradScaler (the 1.13 classes under their 2.x
    names), register_pytree_node (1.13's private one), and the torch 2.x modules (stubbed)."""
    import importlib
    import os
    import torch
    import torch.amp
    import torch.cuda.amp
    import torch.optim.lr_scheduler as lr_scheduler
    import torch.utils._pytree as pytree
    info = os.path.join(site, "torch-2.4.0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0\n")
    if not hasattr(lr_scheduler, "LRScheduler"):
        lr_scheduler.LRScheduler = lr_scheduler._LRScheduler
    if not hasattr(torch.amp, "GradScaler"):
        torch.amp.GradScaler = torch.cuda.amp.GradScaler
    if not hasattr(pytree, "register_pytree_node"):
        pytree.register_pytree_node = (
            lambda cls, flatten, unflatten, **kwargs: pytree._register_pytree_node(
                cls, flatten, unflatten))
    missing = []
    for name in ("torch.distributed.tensor", "torch.distributed.device_mesh",
                 "torch.distributed.checkpoint", "torch._dynamo", "torch.compiler", "torch.export"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    stub_modules(*missing)
