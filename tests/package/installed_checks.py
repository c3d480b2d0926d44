# SPDX-License-Identifier: MIT
# What an installed zeroforge must do on its own, wherever it was installed from (the pip
# install, the wheel, the unpacked Debian package): its `zeroforge` command and its module each
# generate every shipped family, list the shipped presets, tiers and plugins, and load the memory
# plugin (estimate), with every file they use inside the installation `root`. The expected
# families, tiers and plugins are read from the source tree, not from the installation.
import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Sequence

MODULE_SCRIPT = r"""
import json, os, sys, zeroforge
import zeroforge.__main__ as main
out = sys.argv[1]
families = sys.argv[2].split(",")
results = {f: zeroforge.generate(f, os.path.join(out, f)) for f in families}
print(json.dumps({
    "file": zeroforge.__file__,
    "version": zeroforge.__version__,
    "data_dir": zeroforge._data_dir(),
    "plugin_dir": zeroforge._plugin_dir(),
    "executable": main.executable(),
    "generated": {f: [r.exit_code, r.configs] for f, r in results.items()},
    "presets": [p.name for p in zeroforge.list_presets()],
    "tiers": [[t.name, t.file] for t in zeroforge.list_tiers()],
    "plugins": [[p["name"], p["path"]] for p in zeroforge.list_plugins()],
    "templates": zeroforge.list_templates(),
    "estimate": sorted(zeroforge.estimate("llama-2-7b", stage=3, gpu_memory_gib=80)),
}))
"""


def shipped(source: Path) -> Dict[str, List[str]]:
    """The families, tiers and bundled plugins the source tree ships."""
    return {
        "families": sorted(p.stem for p in (source / "presets" / "families").glob("*.json")),
        "tiers": sorted(p.stem for p in (source / "presets" / "tiers").glob("*.json")),
        "plugins": sorted(p.parent.name for p in (source / "plugins").glob("*/CMakeLists.txt")),
    }


def clean_env(path_dirs: Sequence[Path], **extra: str) -> Dict[str, str]:
    """The environment of a user of the installation: none of the build's or tests' variables,
    PATH with `path_dirs` first and the system's directories after."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ZEROFORGE_", "ZF_", "PYTHON", "VIRTUAL_ENV", "LD_PRELOAD"))}
    env["PATH"] = os.pathsep.join([str(d) for d in path_dirs] + ["/usr/bin", "/bin"])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run(command: Sequence[object], env: Dict[str, str], cwd: Path,
        codes: Sequence[int] = (0,)) -> str:
    done = subprocess.run([str(c) for c in command], env=env, cwd=cwd, capture_output=True,
                          text=True)
    if done.returncode not in codes:
        raise SystemExit(f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                         f"{done.stdout}\n{done.stderr}")
    return done.stdout


def inside(path: str, root: Path, what: str) -> None:
    if not Path(path).resolve().is_relative_to(root.resolve()):
        raise SystemExit(f"{what} {path} is not inside the installation {root}")


def check_installation(label: str, root: Path, zeroforge: Path, python: Path,
                       env: Dict[str, str], work: Path, source: Path, version: str) -> None:
    """`zeroforge` (a command) and `python` (importing the installed module) in `env`, run in
    `work`, use nothing outside `root`."""
    expected = shipped(source)
    cwd = work / label
    cwd.mkdir(parents=True)
    said = run([zeroforge, "--version"], env, cwd)
    if said.strip() != f"zeroforge {version}":
        raise SystemExit(f"{label}: zeroforge --version says {said!r}, not version {version}")
    if run([python, "-m", "zeroforge", "--version"], env, cwd) != said:
        raise SystemExit(f"{label}: python -m zeroforge --version differs from zeroforge's")
    listed = run([zeroforge, "list", "presets"], env, cwd)
    names = {line.split()[0] for line in listed.splitlines() if line and not line[0].isspace()}
    if not set(expected["families"]) <= names:
        raise SystemExit(f"{label}: list presets lacks {set(expected['families']) - names}")
    tiers = run([zeroforge, "list", "tiers"], env, cwd)
    for line in tiers.splitlines():
        if line.startswith("built-in "):
            inside(line[len("built-in "):].rstrip(":"), root, f"{label}: the shipped tiers")
    listed_tiers = {line.split()[0] for line in tiers.splitlines() if line.startswith("  ")}
    if not set(expected["tiers"]) <= listed_tiers:
        raise SystemExit(f"{label}: list tiers lacks {set(expected['tiers']) - listed_tiers}")
    plugins = json.loads(run([zeroforge, "list", "plugins", "--format", "json"], env, cwd))
    if sorted(p["name"] for p in plugins["plugins"]) != expected["plugins"] or plugins.get("errors"):
        raise SystemExit(f"{label}: list plugins: {plugins}")
    for plugin in plugins["plugins"]:
        inside(plugin["path"], root, f"{label}: plugin")
    for family in expected["families"]:
        run([zeroforge, "generate", family, "-o", cwd / "cli" / family], env, cwd)
        if not (cwd / "cli" / family / "manifest.json").is_file():
            raise SystemExit(f"{label}: zeroforge generate {family} wrote no manifest")
    estimate = json.loads(run([zeroforge, "estimate", "--model", "llama-2-7b", "--stage", "3",
                               "--gpu-memory-gib", "80", "--format", "json"], env, cwd, (0, 1)))
    if "per_gpu" not in estimate and "model" not in estimate:
        raise SystemExit(f"{label}: the memory plugin's estimate: {estimate}")

    seen = json.loads(run([python, "-c", MODULE_SCRIPT, cwd / "module",
                           ",".join(expected["families"])], env, cwd))
    for key in ("file", "data_dir", "plugin_dir", "executable"):
        inside(seen[key], root, f"{label}: the module's {key}")
    if seen["version"] != version:
        raise SystemExit(f"{label}: zeroforge.__version__ is {seen['version']}, not {version}")
    for family, (code, configs) in seen["generated"].items():
        if code != 0 or configs < 1:
            raise SystemExit(f"{label}: zeroforge.generate({family!r}): exit {code}, {configs}")
        cli = json.loads((cwd / "cli" / family / "manifest.json").read_text())
        mod = json.loads((cwd / "module" / family / "manifest.json").read_text())
        if cli != mod:
            raise SystemExit(f"{label}: the module and the CLI generate {family} differently")
    if not set(expected["families"]) <= set(seen["presets"]):
        raise SystemExit(f"{label}: list_presets(): {seen['presets']}")
    if not set(expected["tiers"]) <= {name for name, _ in seen["tiers"]}:
        raise SystemExit(f"{label}: list_tiers(): {seen['tiers']}")
    if sorted(name for name, _ in seen["plugins"]) != expected["plugins"]:
        raise SystemExit(f"{label}: list_plugins(): {seen['plugins']}")
    for _, path in seen["plugins"]:
        inside(path, root, f"{label}: list_plugins() path")
    if "deepspeed/config.json.j2" not in seen["templates"] or not seen["estimate"]:
        raise SystemExit(f"{label}: list_templates() or estimate(): {seen}")
    print(f"{label}: the command and the module generate {len(expected['families'])} families, "
          f"list {len(expected['tiers'])} tiers and {len(expected['plugins'])} plugins, from {root}")
