#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks that the C and C++ sources are formatted as .clang-format says, so that a reviewer reads
# the change and not a reflow of it, and a `clang-format -i` never rewrites someone else's lines.
"""Usage: check_format.py SOURCE_DIR

Runs `clang-format --dry-run --Werror` (the program in $CLANG_FORMAT, else `clang-format`) over
every .c, .cpp, .h and .hpp file under engine/, plugins/, python/, bench/ and tests/ (test data,
goldens and fuzz corpora aside: they are inputs, not code). Lists each file that is not
formatted and the command that formats it. Exit 0 when all are, 1 when one is not, 77 (skipped)
when clang-format is missing, except under CI=true, where a missing oracle is a failure (1).
"""
import os
import pathlib
import shutil
import subprocess
import sys

FOLDERS = ("engine", "plugins", "python", "bench", "tests")
SUFFIXES = {".c", ".cpp", ".h", ".hpp"}
# Inputs of tests, not code: their bytes are what a test reads.
SKIPPED = ("tests/data", "tests/golden", "tests/corpus", "tests/fuzz/corpus")


def sources(root):
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if path.suffix in SUFFIXES and path.is_file() and not relative.startswith(SKIPPED):
                yield relative


def main(argv):
    root = pathlib.Path(argv[1]).resolve()
    program = os.environ.get("CLANG_FORMAT") or shutil.which("clang-format")
    if not program:
        print("check_format: clang-format not found (./setup.sh --test installs it)")
        return 1 if os.environ.get("CI") == "true" else 77
    files = list(sources(root))
    unformatted = []
    # A few hundred files a call keeps the command line short and the run to one process each.
    for start in range(0, len(files), 200):
        batch = files[start:start + 200]
        run = subprocess.run([program, "--dry-run", "--Werror", *batch], cwd=root,
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            for line in run.stderr.splitlines():
                name = line.split(":", 1)[0]
                if name in batch and name not in unformatted:
                    unformatted.append(name)
            if not unformatted:  # clang-format itself failed: show why
                print(run.stderr, end="")
                return 1
    if unformatted:
        print(f"check_format: {len(unformatted)} of {len(files)} files are not formatted as "
              ".clang-format says:")
        for name in unformatted:
            print(f"  {name}")
        print("format them with: clang-format -i " + " ".join(unformatted))
        return 1
    print(f"check_format: {len(files)} files formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
