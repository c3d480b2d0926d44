# SPDX-License-Identifier: MIT
# `python -m zeroforge` (and the console script of a pip install, which calls the same main()):
# the zeroforge executable of the package's own build, run in place of the interpreter, with its
# output and exit code unchanged.
import os
import subprocess
import sys
from pathlib import Path

import zeroforge.__main__ as main

from conftest import CLI


def module(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "zeroforge", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


def test_the_executable_is_the_builds_own():
    assert Path(main.executable()).resolve() == CLI.resolve()


def test_python_m_zeroforge_is_the_cli(cli, tmp_path):
    assert module("--version").stdout == cli("--version").stdout
    for args in (["list", "tiers"], ["validate", "missing.json"], ["render", "--no-such-option"]):
        ran, expected = module(*args, cwd=tmp_path), cli(*args, cwd=tmp_path)
        assert (ran.returncode, ran.stdout, ran.stderr) == (
            expected.returncode, expected.stdout, expected.stderr), args
    assert module("validate", "missing.json", cwd=tmp_path).returncode == 2


def test_a_missing_executable_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(main, "executable", lambda: str(tmp_path / "bin" / "zeroforge"))
    try:
        main.main(["--version"])
    except SystemExit as stop:
        assert stop.code == 2
    else:
        raise AssertionError("main() ran a missing executable")
    assert str(tmp_path / "bin" / "zeroforge") in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "bin")
