# SPDX-License-Identifier: MIT
# `python -m zeroforge ARGS` and the `zeroforge` console script of a pip install (pyproject.toml):
# the zeroforge executable of this package's own build, install or wheel (_layout.EXECUTABLE),
# run in place of the interpreter, so its output, exit code and signals are the CLI's own.
"""Run the zeroforge command shipped with this package: ``python -m zeroforge --help``."""

import os
import sys
from typing import List, Optional


def executable() -> str:
    """The path of the zeroforge executable this package ships with."""
    from . import _layout
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _layout.EXECUTABLE))


def main(argv: Optional[List[str]] = None) -> None:
    """Replace this process with ``zeroforge ARGV`` (default: the interpreter's arguments)."""
    path = executable()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not os.access(path, os.X_OK):
        sys.stderr.write(f"zeroforge: error: the zeroforge executable of this package is missing: "
                         f"{path} (reinstall the package)\n")
        sys.exit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, ["zeroforge", *arguments])


if __name__ == "__main__":
    main()
