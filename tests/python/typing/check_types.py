# SPDX-License-Identifier: MIT
# The ctest `python.typing`: the module's type information (py.typed, __init__.pyi and the
# annotated _results.py and _errors.py it imports) as a user's type checker sees it. mypy
# --strict (Debian's python3-mypy, which ./setup.sh --test installs) must accept good.py and
# must report exactly the lines of bad.py whose code ends in an "# error:" comment. Skipped (77) without mypy, a
# failure under CI=true.
#   python3 check_types.py PACKAGE_PARENT   (the directory holding zeroforge/, e.g. build/python)
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_mypy(package_parent: str, program: Path, cache: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, MYPYPATH=package_parent)
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--show-error-codes",
         "--cache-dir", cache, "--python-version", f"{sys.version_info[0]}.{sys.version_info[1]}",
         str(program)], cwd=HERE, env=env, capture_output=True, text=True)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: check_types.py PACKAGE_PARENT", file=sys.stderr)
        return 2
    try:
        import mypy.api  # noqa: F401
    except ImportError:
        print(f"python.typing: mypy is not installed for {sys.executable} "
              "(./setup.sh --test installs python3-mypy)", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 77
    package_parent = sys.argv[1]
    if not (Path(package_parent) / "zeroforge" / "py.typed").is_file():
        print(f"python.typing: no zeroforge/py.typed in {package_parent}", file=sys.stderr)
        return 1
    failed = False
    with tempfile.TemporaryDirectory() as cache:
        good = run_mypy(package_parent, HERE / "good.py", cache)
        if good.returncode != 0:
            print(f"mypy refused good.py (exit {good.returncode}):\n{good.stdout}{good.stderr}")
            failed = True
        bad = run_mypy(package_parent, HERE / "bad.py", cache)
    marked = {number for number, line in
              enumerate((HERE / "bad.py").read_text().splitlines(), start=1)
              if "# error:" in line and not line.lstrip().startswith("#")}
    reported = {int(m.group(1)) for m in re.finditer(r"^bad\.py:(\d+): error:", bad.stdout, re.M)}
    if bad.returncode != 1:
        print(f"mypy exited {bad.returncode} on bad.py, not 1:\n{bad.stdout}{bad.stderr}")
        failed = True
    if reported != marked:
        print(f"bad.py: lines marked but not reported: {sorted(marked - reported)}; reported but "
              f"not marked: {sorted(reported - marked)}\n{bad.stdout}")
        failed = True
    elsewhere = [line for line in bad.stdout.splitlines()
                 if re.match(r"^\S+: error:", line) and not line.startswith("bad.py:")]
    if elsewhere:
        print("mypy reports errors outside bad.py (in the package?):\n" + "\n".join(elsewhere))
        failed = True
    if not failed:
        print(f"python.typing: good.py accepted; bad.py refused on its {len(marked)} marked lines")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
