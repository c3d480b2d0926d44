# SPDX-License-Identifier: MIT
# The build step of `pip install .` / `pip wheel .` (pyproject.toml has the metadata): the
# project's own CMake builds the module, the zeroforge executable and the bundled plugins, and
# installs the install components `python` and `runtime` into the package directory, so that the
# package holds everything it runs (docs/install.md):
#   zeroforge/                      __init__.py, stubs, py.typed, _zeroforge.*.so, __main__.py
#   zeroforge/bin/zeroforge         the executable (the console script and python -m run it)
#   zeroforge/share/zeroforge/      templates/, presets/
#   zeroforge/lib/zeroforge/plugins the bundled plugins
# Environment:
#   ZEROFORGE_CMAKE_BUILD_DIR  an existing CMake build directory to build in and install from
#                              (a build configured for this interpreter: its module's suffix is
#                              checked); default: build-python/cmake in the source tree
#   CMAKE_ARGS                 more configure arguments for a new build (split like a shell)
#   CMAKE_C_COMPILER_LAUNCHER, CMAKE_CXX_COMPILER_LAUNCHER  e.g. ccache; CMake reads them itself
#   CMAKE_BUILD_PARALLEL_LEVEL jobs of the build
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def cmake_version() -> str:
    """project(zeroforge VERSION x.y.z ...) of CMakeLists.txt: the one place of the version."""
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    found = re.search(r"^project\(zeroforge\s+VERSION\s+([0-9][0-9.]*)", text, re.M)
    if not found:
        raise RuntimeError("setup.py: no 'project(zeroforge VERSION ...)' in CMakeLists.txt")
    return found.group(1)


def run(command, **kwargs):
    print("setup.py: " + shlex.join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True, **kwargs)


class CMakeBuild(build_ext):
    """Builds the one extension of the package (and what ships beside it) with CMake."""

    def build_extension(self, ext):
        if self.inplace:
            raise RuntimeError("setup.py: an editable or in-place install is not supported; build "
                               "with ./run.sh and use PYTHONPATH=build/python (docs/python.md)")
        cmake = shutil.which("cmake")
        if not cmake:
            raise RuntimeError("setup.py: cmake is not installed (Debian: cmake ninja-build)")
        given = os.environ.get("ZEROFORGE_CMAKE_BUILD_DIR")
        build = Path(given).resolve() if given else SOURCE / "build-python" / "cmake"
        if not (build / "CMakeCache.txt").is_file():
            if given:
                raise RuntimeError(f"setup.py: ZEROFORGE_CMAKE_BUILD_DIR={given} is not a "
                                   "configured CMake build directory")
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            run([cmake, "-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                 "-DZEROFORGE_BUILD_TESTS=OFF", "-DZEROFORGE_BUILD_BENCH=OFF",
                 f"-DPython_EXECUTABLE={sys.executable}",
                 *shlex.split(os.environ.get("CMAKE_ARGS", ""))])
        # What the package needs: the executable (which depends on the bundled plugins) and the
        # module; not the benchmarks or tests a given build directory may also have.
        run([cmake, "--build", build, "--target", "zeroforge", "zeroforge_python"])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        if not list((build / "python" / "zeroforge").glob("_zeroforge" + suffix)):
            raise RuntimeError(f"setup.py: {build} has no module _zeroforge{suffix} for "
                               f"{sys.executable}: configure it with -DPython_EXECUTABLE="
                               f"{sys.executable} (or leave ZEROFORGE_CMAKE_BUILD_DIR unset)")
        package = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        if package.exists():
            shutil.rmtree(package)
        with tempfile.TemporaryDirectory() as staging:
            # The python component, then the wheel's _layout.py (component python_wheel) over
            # the install one; apart, since cmake --install skips a file as up to date when its
            # modification time is the same, as two files configured at once can have.
            found = {}
            for component, name in (("python", "__init__.py"), ("python_wheel", "_layout.py")):
                prefix = Path(staging) / component
                run([cmake, "--install", build, "--prefix", prefix, "--component", component,
                     "--strip"])
                found[component] = list(prefix.glob(f"**/zeroforge/{name}"))
                if len(found[component]) != 1:
                    raise RuntimeError(f"setup.py: the {component} component installed "
                                       f"{found[component]}")
            shutil.copytree(found["python"][0].parent, package)
            shutil.copy(found["python_wheel"][0], package / "_layout.py")
        run([cmake, "--install", build, "--prefix", package, "--component", "runtime", "--strip"])


setup(
    version=cmake_version(),
    # The package's files all come from CMake's install (CMakeBuild); the extension named here
    # makes the wheel platform-specific.
    packages=[],
    ext_modules=[Extension("zeroforge._zeroforge", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    # Not build/: that is the CMake presets' build directory (CMakePresets.json).
    options={"build": {"build_base": "build-python"}},
)
