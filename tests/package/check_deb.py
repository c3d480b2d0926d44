# SPDX-License-Identifier: MIT
# The ctest `package.deb`: `cpack -G DEB` in BUILD_DIR, the project's Release build configured
# with the prefix /usr (the release preset; the fixture package.release_build builds it), gives
# zeroforge_VERSION_amd64.deb with the command, the data, the plugins, the CMake package and the
# Python module in Debian's dist-packages, its dependencies declared and no lintian error. It is
# unpacked into a temporary root (dpkg-deb -x), where the command and `import zeroforge` (from
# the root's dist-packages) generate every shipped family, list the presets, tiers and plugins
# and load the memory plugin, with their data found relative to themselves (installed_checks.py).
# Skipped (77) without dpkg-deb, a failure under CI=true; lintian is run where installed
# (./setup.sh --test installs it), and required under CI=true.
#   python3 check_deb.py SOURCE_DIR BUILD_DIR CPACK
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed_checks import check_installation, clean_env, run  # noqa: E402

CONTENTS = (
    "./usr/bin/zeroforge",
    "./usr/share/zeroforge/templates/deepspeed/config.json.j2",
    "./usr/share/zeroforge/presets/families/example.json",
    "./usr/lib/zeroforge/plugins/memory.so",
    "./usr/lib/x86_64-linux-gnu/cmake/zeroforge/zeroforge-config.cmake",
    "./usr/lib/x86_64-linux-gnu/libzeroforge.a",
    "./usr/include/zeroforge/plugin.h",
    "./usr/lib/python3/dist-packages/zeroforge/__init__.py",
    "./usr/lib/python3/dist-packages/zeroforge/py.typed",
    "./usr/share/doc/zeroforge/copyright",
    "./usr/share/doc/zeroforge/changelog.gz",
)


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: check_deb.py SOURCE_DIR BUILD_DIR CPACK", file=sys.stderr)
        return 2
    source, build, cpack = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), sys.argv[3]
    ci = os.environ.get("CI") == "true"
    if not shutil.which("dpkg-deb") or not shutil.which("dpkg-shlibdeps"):
        print("package.deb: dpkg-deb or dpkg-shlibdeps (dpkg-dev) is not installed",
              file=sys.stderr)
        return 1 if ci else 77
    version = re.search(r"^project\(zeroforge\s+VERSION\s+([0-9.]+)",
                        (source / "CMakeLists.txt").read_text(), re.M).group(1)
    cache = (build / "CMakeCache.txt").read_text()
    if not re.search(r"^CMAKE_INSTALL_PREFIX:\w+=/usr$", cache, re.M):
        raise SystemExit(f"{build} is not configured with -DCMAKE_INSTALL_PREFIX=/usr")
    deb = build / f"zeroforge_{version}_amd64.deb"
    if deb.exists():
        deb.unlink()
    env = dict(os.environ)
    run([cpack, "-G", "DEB"], env, build)
    if not deb.is_file():
        raise SystemExit(f"cpack -G DEB did not write {deb.name}: {sorted(build.glob('*.deb'))}")
    control = run(["dpkg-deb", "--field", deb], env, build)
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", control, re.M))
    for field, pattern in (("Package", r"zeroforge"), ("Version", re.escape(version)),
                           ("Architecture", r"amd64"), ("Depends", r".*\blibc6\b.*"),
                           ("Depends", r".*\blibstdc\+\+6\b.*"), ("Depends", r".*\bpython3 \(>= .*")):
        if not re.fullmatch(pattern, fields.get(field, "")):
            raise SystemExit(f"the control field {field} is {fields.get(field)!r}, not "
                             f"{pattern}:\n{control}")
    listing = run(["dpkg-deb", "--contents", deb], env, build)
    paths = {line.split()[-1] for line in listing.splitlines()}
    paths |= {p.split(" -> ")[0] for p in paths}
    missing = [p for p in CONTENTS if p not in paths]
    if missing or not any(re.fullmatch(r"\./usr/lib/python3/dist-packages/zeroforge/"
                                       r"_zeroforge\.cpython-.*\.so", p) for p in paths):
        raise SystemExit(f"the package lacks {missing or 'the compiled module'}:\n{listing}")
    if any("/usr/local" in p or "python_wheel" in p for p in paths):
        raise SystemExit(f"the package installs into /usr/local:\n{listing}")
    lintian = shutil.which("lintian")
    if lintian:
        # --fail-on error: lintian's errors fail the test; its warnings are printed.
        said = subprocess.run([lintian, "--fail-on", "error", "--no-tag-display-limit", deb],
                              capture_output=True, text=True)
        print(said.stdout, end="")
        if said.returncode != 0:
            raise SystemExit(f"lintian reports errors (exit {said.returncode}):\n{said.stdout}"
                             f"{said.stderr}")
    elif ci:
        raise SystemExit("package.deb: lintian is not installed (./setup.sh --test installs it)")
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "root"
        run(["dpkg-deb", "-x", deb, root], env, build)
        site = root / "usr" / "lib" / "python3" / "dist-packages"
        check_installation("deb", root, root / "usr" / "bin" / "zeroforge", Path("/usr/bin/python3"),
                           clean_env([root / "usr" / "bin"], PYTHONPATH=str(site)),
                           Path(temp) / "work", source, version)
    print(f"package.deb: {deb.name} ({deb.stat().st_size // 1024} KiB) unpacks and runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
