#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generate benchmark (issues 3 and 15): the same N DeepSpeed configs written by `zeroforge
# generate` from a family of axes and from a family of N explicit `include` entries, by a
# Python Jinja2 script (render, json.loads, json.dumps indent 2, write), and by the floor
# (nlohmann parse + dump + write of the same texts, bench/generate_floor.cpp); wall time
# (median of RUNS), the ratios, and peak memory at N/10 and N to show it is flat in N.
#
#   bench/generate_bench.sh [BUILD_DIR]    default BUILD_DIR: build (configured as Release if absent)
#   env: N (configs, 10000; a multiple of 2000), RUNS (3), BENCH_TMP (work dir, /dev/shm)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
n="${N:-10000}"
runs="${RUNS:-3}"
python3 -c 'import jinja2' 2>/dev/null || { echo "generate_bench.sh: Python's jinja2 is required" >&2; exit 2; }
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target zeroforge zeroforge_generate_floor >/dev/null
zeroforge="$build/bin/zeroforge"
floor="$build/bin/zeroforge_generate_floor"

# On tmpfs when there is one: the disk's latency is the same for every contestant and only adds noise.
work="$(mktemp -d -p "${BENCH_TMP:-/dev/shm}" 2>/dev/null || mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/generate_family.py" "$n" "$work/family.json"
python3 "$root/bench/generate_family.py" "$((n / 10))" "$work/family-small.json"
python3 "$root/bench/generate_family.py" --include "$n" "$work/family-include.json"

seconds() {  # seconds COMMAND...: wall time of one run
  local start=$EPOCHREALTIME
  "$@" >/dev/null
  awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f", e - s }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
peak_kib() {  # peak_kib COMMAND...: maximum resident set size of one run, KiB
  # GNU time measures the command alone. Python's RUSAGE_CHILDREN would also count the forked
  # Python image before exec (about 14 MB), which hid anything smaller.
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
  else
    python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "(includes the forked Python image)")
PY
  fi
}

zf_cmd() { "$zeroforge" generate "$1" -o "$2" "${@:3}"; }
# The Python module's generate, timed inside the interpreter (its start-up is not the library's
# cost); only when the build has the module.
pymod="$build/python"
has_pymod=0
PYTHONPATH="$pymod" python3 -c 'import zeroforge' 2>/dev/null && has_pymod=1
pymod_seconds() {
  PYTHONPATH="$pymod" python3 - "$1" "$2" <<'PY'
import sys, time, zeroforge
start = time.perf_counter()
zeroforge.generate(sys.argv[1], sys.argv[2])
print(f"{time.perf_counter() - start:.3f}")
PY
}
py_cmd() { python3 "$root/bench/generate_jinja2.py" "$1" "$root/templates" "$root/presets" "$2"; }

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
zf=() zf1=() zfn=() zi=() zi1=() py=() fl=() pm=()
# Each output is removed just before its own run: removing a tree of N files leaves kernel
# work (freeing inodes and pages) that slows whatever runs next, so every contestant follows
# one such removal. All of them removed at the start of a round made the round's first run
# (the Python module's) pay for eight, and the floor, run long after, for none. (A pause
# after the removal is no cure: the first run after an idle moment is slower still.)
clear_out() { rm -rf "$1"; }
for ((i = 0; i < runs; i++)); do
  if ((has_pymod)); then
    clear_out "$work/pm"
    pm+=("$(pymod_seconds "$work/family.json" "$work/pm")")
  fi
  clear_out "$work/zf"
  zf+=("$(seconds zf_cmd "$work/family.json" "$work/zf")")
  clear_out "$work/zf1"
  zf1+=("$(seconds zf_cmd "$work/family.json" "$work/zf1" -j 1)")
  clear_out "$work/zi"
  zi+=("$(seconds zf_cmd "$work/family-include.json" "$work/zi")")
  clear_out "$work/zi1"
  zi1+=("$(seconds zf_cmd "$work/family-include.json" "$work/zi1" -j 1)")
  clear_out "$work/zfn"
  zfn+=("$(seconds zf_cmd "$work/family.json" "$work/zfn" --no-validate)")
  clear_out "$work/py"
  py+=("$(seconds py_cmd "$work/family.json" "$work/py")")
  clear_out "$work/floor"
  fl+=("$("$floor" "$work/zf" "$work/floor" | awk '{ print $3 }')")
done
zf_s="$(printf '%s\n' "${zf[@]}" | median)"
zf1_s="$(printf '%s\n' "${zf1[@]}" | median)"
zfn_s="$(printf '%s\n' "${zfn[@]}" | median)"
zi_s="$(printf '%s\n' "${zi[@]}" | median)"
zi1_s="$(printf '%s\n' "${zi1[@]}" | median)"
py_s="$(printf '%s\n' "${py[@]}" | median)"
fl_s="$(printf '%s\n' "${fl[@]}" | median)"
pm_s="$( ((has_pymod)) && printf '%s\n' "${pm[@]}" | median || echo 0)"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# The same configs? Compare every file as JSON values (Jinja2 prints 5e8 as 500000000.0).
same="$(python3 - "$work/zf" "$work/py" <<'PY'
import json, os, sys
a, b = sys.argv[1], sys.argv[2]
files = [os.path.relpath(os.path.join(d, f), a) for d, _, fs in os.walk(a) for f in fs if f != "manifest.json"]
bad = [f for f in files if json.load(open(os.path.join(a, f))) != json.load(open(os.path.join(b, f)))]
print(f"{len(files)} configs, {len(bad)} differ" + (f" (e.g. {bad[0]})" if bad else ""))
PY
)"
# The include family makes the same files (its manifest names another family).
same_include="$(diff -r -x manifest.json "$work/zf" "$work/zi" >/dev/null && echo "identical to the axes family's" || echo "DIFFER from the axes family's")"

mem_small="$(rm -rf "$work/m"; peak_kib "$zeroforge" generate "$work/family-small.json" -o "$work/m")"
mem_large="$(rm -rf "$work/m"; peak_kib "$zeroforge" generate "$work/family.json" -o "$work/m")"

echo "== generate: $n DeepSpeed configs, median of $runs runs (wall seconds; zeroforge on $(nproc) threads unless -j 1); load $load_before before, $load_after after"
awk -v zf="$zf_s" -v zf1="$zf1_s" -v zfn="$zfn_s" -v zi="$zi_s" -v zi1="$zi1_s" -v py="$py_s" -v fl="$fl_s" -v pm="$pm_s" -v n="$n" 'BEGIN {
  printf "%-44s %9s %11s %11s %11s\n", "", "seconds", "us/config", "vs jinja2", "vs floor"
  row("zeroforge generate (validated)", zf)
  row("zeroforge generate -j 1 (one thread)", zf1)
  row("zeroforge generate --no-validate", zfn)
  row("zeroforge generate, include entries", zi)
  row("zeroforge generate -j 1, include entries", zi1)
  if (pm > 0) row("python module zeroforge.generate", pm)
  row("python jinja2 (render, loads, dumps, write)", py)
  row("floor (nlohmann parse + dump + write)", fl)
  printf "goal: zeroforge <= 0.15 x jinja2 (%.3f s); -j 1 <= 1.0 x floor (%.3f s); %d threads <= 0.6 x floor (%.3f s)\n", 0.15 * py, fl, '"$(nproc)"', 0.6 * fl
  if (pm > 0) printf "python module vs the CLI: %.3fx (goal: within 5%%)\n", pm / zf
}
function row(name, s) { printf "%-44s %9.3f %11.1f %10.3fx %10.3fx\n", name, s, s / n * 1e6, s / py, s / fl }'
echo "outputs: $same; the include family's files are $same_include"
echo "peak memory of zeroforge generate: $((n / 10)) configs ${mem_small} KiB, $n configs ${mem_large} KiB"
