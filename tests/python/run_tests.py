# SPDX-License-Identifier: MIT
# The ctest `python.module`: runs the Python module's tests with pytest (Debian's python3-pytest,
# installed by ./setup.sh --test) under the interpreter the module was built for. Without
# pytest the suite is skipped (77), or fails under CI=true, where setup.sh must have installed it.
import os
import sys

try:
    import pytest
except ImportError:
    print(f"python.module: pytest is not installed for {sys.executable} "
          "(./setup.sh --test installs python3-pytest)", file=sys.stderr)
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
