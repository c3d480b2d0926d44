# SPDX-License-Identifier: MIT
# The module from an installed prefix: `cmake --install` puts the package in the prefix's site
# directory with its stubs and py.typed, and it finds the installed templates, presets and
# plugins relative to itself (nothing of the build tree).
import os
import subprocess
import sys
from pathlib import Path

from conftest import BUILD_DIR

CMAKE = os.environ.get("ZF_CMAKE", "cmake")

SCRIPT = r"""
import json, sys, zeroforge
print(json.dumps({
    "file": zeroforge.__file__,
    "version": zeroforge.__version__,
    "templates": zeroforge.list_templates(),
    "configs": zeroforge.generate("example", "out").configs,
    "estimate": sorted(zeroforge.estimate("llama-2-7b", stage=3, gpu_memory_gib=80)),
    "findings": len(zeroforge.validate({"train_batch_size": 3, "train_micro_batch_size_per_gpu": 2},
                                       world_size=1)),
}))
"""


def test_the_installed_module_works_from_its_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    done = subprocess.run([CMAKE, "--install", str(BUILD_DIR), "--prefix", str(prefix)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    packages = list(prefix.glob("lib/**/zeroforge/__init__.py"))
    assert len(packages) == 1, packages
    package = packages[0].parent
    site = package.parent
    for name in ("__init__.pyi", "py.typed", "_layout.py", "_arguments.py", "_errors.py",
                 "_results.py"):
        assert (package / name).is_file(), name
    assert list(package.glob("_zeroforge*.so"))
    work = tmp_path / "work"
    work.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "ZEROFORGE_DATA_DIR", "ZEROFORGE_PLUGIN_PATH")}
    env["PYTHONPATH"] = str(site)
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=work, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import json
    seen = json.loads(run.stdout)
    assert Path(seen["file"]).resolve() == (package / "__init__.py").resolve()
    assert "deepspeed/config.json.j2" in seen["templates"]
    assert seen["configs"] == 18
    assert seen["findings"] >= 1
    # The memory plugin, found in the prefix's lib/zeroforge/plugins.
    assert seen["estimate"]
    assert (work / "out" / "manifest.json").is_file()
