#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per config of `zeroforge generate -j 1` (valgrind's callgrind), the steady
# measure where wall time is noisier than the change being judged: this machine's runs vary by
# 10-20% with the host's load, an idle pause or the removal of a large tree before them.
# SHA-256's portable block function is left out: under valgrind the CPU's SHA instructions
# are hidden, so the portable one runs there and not in real runs.
#
#   bench/generate_instructions.sh [BUILD_DIR] [OTHER_BUILD_DIR]
#       BUILD_DIR: default build; OTHER_BUILD_DIR: a second build to count the same way
#       (an older commit's, say), whose outputs must be byte for byte the same.
#   env: N (configs, 2000; a multiple of 200), BENCH_TMP (work dir, /dev/shm)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${N:-2000}"
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
  { echo "generate_instructions.sh: valgrind is required (apt-get install valgrind)" >&2; exit 2; }
work="$(mktemp -d -p "${BENCH_TMP:-/dev/shm}" 2>/dev/null || mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/generate_family.py" "$n" "$work/family.json"

count() {  # count BUILD_DIR OUT: prints instructions per config, writes the configs to OUT
  local build="$1" out="$2"
  [[ -f "$build/CMakeCache.txt" ]] ||
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target zeroforge >/dev/null
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
    "$build/bin/zeroforge" generate "$work/family.json" -o "$out" -j 1 >/dev/null 2>&1
  callgrind_annotate "$work/callgrind.out" 2>/dev/null | awk -v n="$n" '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
    /compress_portable/ && !sha { gsub(",", "", $1); sha = $1 }
    END { printf "%.0f", (total - sha) / n }'
}

first="$(cd "${1:-$root/build}" 2>/dev/null && pwd || echo "${1:-$root/build}")"
echo "== generate -j 1: $n DeepSpeed configs, instructions per config (callgrind, SHA-256's portable function left out)"
echo "$first: $(count "$first" "$work/a")"
if [[ $# -ge 2 ]]; then
  echo "$2: $(count "$2" "$work/b")"
  diff -r "$work/a" "$work/b" >/dev/null && echo "outputs: byte for byte the same" ||
    { echo "outputs: DIFFER"; exit 1; }
fi
