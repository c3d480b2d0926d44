#!/usr/bin/env bash
# Builds zeroforge and runs every test suite: the normal build, then the ASan+UBSan build.
# Usage: ./check.sh            both builds
#        ./check.sh --fast     the normal build only
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
jobs=$(nproc)
presets=(default asan)
[ "${1:-}" = "--fast" ] && presets=(default)
for preset in "${presets[@]}"; do
  echo "== $preset build" >&2
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
