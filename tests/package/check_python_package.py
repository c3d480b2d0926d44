# SPDX-License-Identifier: MIT
# The ctest `package.python`: the Python package (pyproject.toml, setup.py) as a user installs
# it, offline, with Debian's python3-pip, python3-setuptools, python3-wheel and python3-venv:
#   1. a copy of the source tree (a clone) outside it;
#   2. in a fresh venv (--system-site-packages: Debian's setuptools and wheel build it),
#      `pip wheel --no-build-isolation` of the copy: a platform-tagged wheel whose version is
#      CMake's project version, holding the module, stubs, py.typed, the executable, the
#      templates, presets and plugins, the console script and the metadata, and no absolute path
#      of the build or the source;
#   3. `pip install --no-build-isolation` of the copy in that venv, after which the copy is
#      deleted; and the wheel installed in a second, fresh venv without system packages;
#   4. in each venv, the `zeroforge` command on PATH and `import zeroforge` generate every
#      shipped family, list the presets, tiers and plugins and load the memory plugin, using
#      only files inside the venv (installed_checks.py).
# Both pip runs build in BUILD_DIR (ZEROFORGE_CMAKE_BUILD_DIR, setup.py), the project's Release
# build (the release preset, built by the fixture package.release_build), so the package adds no
# build of its own. Skipped (77) without venv, pip, setuptools or wheel, a failure under CI=true.
#   python3 check_python_package.py SOURCE_DIR BUILD_DIR
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed_checks import check_installation, clean_env, run  # noqa: E402


def skip(why: str) -> int:
    print(f"package.python: {why}", file=sys.stderr)
    return 1 if os.environ.get("CI") == "true" else 77


def cmake_version(source: Path) -> str:
    found = re.search(r"^project\(zeroforge\s+VERSION\s+([0-9.]+)",
                      (source / "CMakeLists.txt").read_text(), re.M)
    assert found, "CMakeLists.txt has no project version"
    return found.group(1)


def copy_source(source: Path, clone: Path) -> None:
    """The source tree without its build directories, git data or Python build leftovers."""
    def ignore(directory: str, names: list) -> set:
        top = Path(directory) == source
        return {n for n in names if n in (".git", "__pycache__") or n.endswith(".egg-info")
                or (top and (n.startswith("build") or n in ("dist", "out")))}
    shutil.copytree(source, clone, ignore=ignore, symlinks=True)


def check_wheel(wheel: Path, version: str, needles: list) -> None:
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    expected = f"zeroforge-{version}-{tag}-{tag}-linux_x86_64.whl"
    if wheel.name != expected:
        raise SystemExit(f"the wheel is {wheel.name}, not {expected} (platform-tagged)")
    with zipfile.ZipFile(wheel) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        dist = f"zeroforge-{version}.dist-info"
        for name in ("zeroforge/__init__.py", "zeroforge/__init__.pyi", "zeroforge/py.typed",
                     "zeroforge/__main__.py", "zeroforge/_layout.py", "zeroforge/bin/zeroforge",
                     "zeroforge/share/zeroforge/templates/deepspeed/config.json.j2",
                     "zeroforge/share/zeroforge/presets/families/example.json",
                     "zeroforge/lib/zeroforge/plugins/memory.so",
                     f"{dist}/METADATA", f"{dist}/entry_points.txt", f"{dist}/RECORD"):
            if name not in infos:
                raise SystemExit(f"the wheel lacks {name}:\n" + "\n".join(sorted(infos)))
        if not [n for n in infos if re.fullmatch(r"zeroforge/_zeroforge\.cpython-.*\.so", n)]:
            raise SystemExit("the wheel has no compiled module")
        if not (infos["zeroforge/bin/zeroforge"].external_attr >> 16) & 0o111:
            raise SystemExit("zeroforge/bin/zeroforge is not executable in the wheel")
        # Only what the package runs: no headers, static library or CMake package.
        extra = [n for n in infos if n.startswith(("zeroforge/include/", "include/"))
                 or n.endswith((".a", ".cmake"))]
        if extra:
            raise SystemExit(f"the wheel holds development files: {extra}")
        layout = archive.read("zeroforge/_layout.py").decode()
        if 'EXECUTABLE = "bin/zeroforge"' not in layout:
            raise SystemExit(f"the wheel's _layout.py is not the wheel's layout:\n{layout}")
        metadata = archive.read(f"{dist}/METADATA").decode()
        for field in (f"Version: {version}", "License: MIT", "Requires-Python: >=3.8",
                      "Classifier: Typing :: Typed", "Project-URL: Documentation"):
            if field not in metadata:
                raise SystemExit(f"METADATA lacks {field!r}:\n{metadata}")
        if "zeroforge = zeroforge.__main__:main" not in archive.read(
                f"{dist}/entry_points.txt").decode():
            raise SystemExit("the wheel has no zeroforge console script")
        for name in infos:
            data = archive.read(name)
            for needle in needles:
                if needle.encode() in data:
                    raise SystemExit(f"the wheel's {name} holds the absolute path {needle}")
    print(f"package.python: {wheel.name}: {len(infos)} files, none with a build or source path")


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_python_package.py SOURCE_DIR BUILD_DIR", file=sys.stderr)
        return 2
    source, build = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    for module in ("venv", "ensurepip", "setuptools", "wheel", "pip"):
        try:
            __import__(module)
        except ImportError:
            return skip(f"{sys.executable} has no {module} (./setup.sh --test installs "
                        "python3-venv, python3-pip, python3-setuptools and python3-wheel)")
    version = cmake_version(source)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as temp:
        temp = Path(temp)
        clone, dist, work = temp / "clone", temp / "dist", temp / "work"
        copy_source(source, clone)
        env = clean_env([], PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                        PIP_NO_CACHE_DIR="1", ZEROFORGE_CMAKE_BUILD_DIR=str(build))
        for name in ("CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER"):
            if name in os.environ:
                env[name] = os.environ[name]
        built = temp / "venv-pip"
        run([sys.executable, "-m", "venv", "--system-site-packages", built], env, temp)
        pip = [built / "bin" / "python", "-m", "pip"]
        run([*pip, "wheel", "--no-build-isolation", "--no-deps", "-w", dist, clone], env, temp)
        wheels = list(dist.glob("*.whl"))
        if len(wheels) != 1:
            raise SystemExit(f"pip wheel made {wheels}")
        check_wheel(wheels[0], version, [str(source), str(build), str(clone), str(temp)])
        run([*pip, "install", "--no-build-isolation", "--no-deps", clone], env, temp)
        shutil.rmtree(clone)
        fresh = temp / "venv-wheel"
        run([sys.executable, "-m", "venv", fresh], env, temp)
        run([fresh / "bin" / "python", "-m", "pip", "install", "--no-deps", wheels[0]], env, temp)
        print(f"package.python: wheel and installs in {time.monotonic() - started:.1f} s")
        for label, venv in (("pip install", built), ("wheel", fresh)):
            venv_env = clean_env([venv / "bin"])
            check_installation(label, venv, venv / "bin" / "zeroforge", venv / "bin" / "python",
                               venv_env, work, source, version)
    print(f"package.python: passed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
