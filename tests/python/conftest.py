# SPDX-License-Identifier: MIT
# Fixtures of the Python module's tests: the module under test (build/python, or ZF_PYTHONPATH),
# and the CLI of the same build, whose answers each function is compared with.
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("ZF_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD_DIR = Path(os.environ.get("ZF_BUILD_DIR", SOURCE_DIR / "build"))
CLI = Path(os.environ.get("ZF_CLI", BUILD_DIR / "bin" / "zeroforge"))
if "ZF_PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(BUILD_DIR / "python"))


class Cli:
    """Runs the zeroforge executable of the same build."""

    path = CLI

    def __call__(self, *args, cwd=None, env=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        return subprocess.run([str(CLI), *map(str, args)], cwd=cwd, env=full_env,
                              capture_output=True, text=True, errors="surrogateescape")


@pytest.fixture
def cli():
    return Cli()


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def build_dir():
    return BUILD_DIR


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """The test runs in a fresh directory (paths in messages are then the same as the CLI's)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def tree(root: Path) -> dict:
    """Every file under root, relative path -> bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
