#!/usr/bin/env bash
# Builds zeroforge and runs every test suite: the normal build, the Release build of the
# product (warnings-clean at -O3, and it generates the example family), the ASan+UBSan build,
# then (when clang++ is installed) each libFuzzer target over its seed corpus for a few seconds.
# The set-up installs the test-only packages too (Chromium: the report's browser tests run in
# the default and ASan builds, and with CI=true a missing browser fails them instead of
# skipping them).
# The default build's tests include the packages' (tests/package: the Debian package, the
# wheel and pip install, pre-commit), made from the Release build, which they build first; the
# release step below then finds it up to date.
# Usage: ./check.sh            all of them
#        ./check.sh --fast     the normal build only, without the packages' tests
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --test
jobs=$(nproc)
presets=(default release asan)
[ "${1:-}" = "--fast" ] && presets=(default)
for preset in "${presets[@]}"; do
  echo "== $preset build" >&2
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  if [ "$preset" = release ]; then
    # The Release build has no test suites (the same code runs them above); it must build
    # without a warning and do the main job.
    out=$(mktemp -d)
    build-release/bin/zeroforge generate example -o "$out/example" >/dev/null
    test -s "$out/example/manifest.json"
    rm -rf "$out"
    continue
  fi
  if [ "${1:-}" = "--fast" ]; then
    # The packages' tests (label package: the release build, the wheel, the .deb) are left out.
    ctest --preset "$preset" -j "$jobs" -LE package
  else
    ctest --preset "$preset" -j "$jobs"
  fi
done
[ "${1:-}" = "--fast" ] && exit 0
# The fuzz build is a clang build of the engine library and the fuzz targets only.
if command -v clang++ >/dev/null 2>&1; then
  echo "== fuzz build" >&2
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs"
  ctest --preset fuzz  # one fuzzer at a time: each uses a whole core
else
  echo "== fuzz build skipped: clang++ not found (tests/fuzz/README.md)" >&2
fi
