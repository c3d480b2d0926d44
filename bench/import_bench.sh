#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The import curve (issues 36 and 38): `zeroforge import` of N configs that differ in one value
# (the learning rate), of N configs that vary in many (stage, precision, offload, batch keys,
# optimizer, scheduler: as a team's checked-in configs do), and of one config with K keys of its
# own, wall time, CPU time (user + sys) and peak RSS, medians of RUNS runs. The inputs are made
# by bench/import_inputs.py.
# Linear means the time per config and per key stays flat along each row.
#
#   bench/import_bench.sh [BUILD_DIR]    default BUILD_DIR: build (configured as Release if absent)
#   env: CONFIGS (counts, "250 1000 3000 10000"), VARIED (counts, "1000 2000 3000"),
#        KEYS (counts, "10000 100000 1000000"); set one empty (KEYS=) to skip that curve,
#        RUNS (3), BENCH_TMP (work dir, /dev/shm), ZEROFORGE (the binary; default BUILD_DIR's)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
runs="${RUNS:-3}"
configs="${CONFIGS-250 1000 3000 10000}"
varied="${VARIED-1000 2000 3000}"
keys="${KEYS-10000 100000 1000000}"
if [[ -z "${ZEROFORGE:-}" ]]; then
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build" --target zeroforge >/dev/null
fi
zeroforge="${ZEROFORGE:-$build/bin/zeroforge}"
[[ -x /usr/bin/time ]] || { echo "import_bench.sh: GNU time (/usr/bin/time) is required" >&2; exit 2; }

work="$(mktemp -d -p "${BENCH_TMP:-/dev/shm}" 2>/dev/null || mktemp -d)"
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# measure LABEL N UNIT INPUT...: RUNS imports of the inputs; one table row.
measure() {
  local label="$1" n="$2" unit="$3"
  shift 3
  local walls=() cpus=() rss=()
  for ((run = 0; run < runs; run++)); do
    # GNU time measures the command alone: wall seconds, user + sys seconds, peak RSS in KiB.
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$zeroforge" import "$@" -o "$work/family.json" \
      >/dev/null 2>"$work/err" || [[ $? == 1 ]] || { cat "$work/err" >&2; exit 2; }
    read -r wall user sys kib <"$work/time"
    walls+=("$wall")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')")
    rss+=("$kib")
  done
  local wall cpu kib
  wall="$(printf '%s\n' "${walls[@]}" | median)"
  cpu="$(printf '%s\n' "${cpus[@]}" | median)"
  kib="$(printf '%s\n' "${rss[@]}" | median)"
  printf '| %s | %s | %s | %s | %.1f | %.1f | %s | %s |\n' "$label" "$n" "$wall" "$cpu" \
    "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" \
    "$(awk -v c="$cpu" -v n="$n" 'BEGIN { print c * 1e6 / n }')" "$unit" \
    "$(wc -c <"$work/family.json" | awk '{ printf "%.1f", $1 / 1048576 }')"
}

echo "== zeroforge import: medians of $runs runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| inputs | N | wall s | cpu s | peak MiB | cpu us per unit | unit | family MiB |"
echo "|---|---|---|---|---|---|---|---|"
for n in $configs; do
  python3 "$root/bench/import_inputs.py" configs "$n" "$work/c$n"
  measure "configs one value apart" "$n" config "$work/c$n"/*.json
  rm -rf "$work/c$n"
done
for n in $varied; do
  python3 "$root/bench/import_inputs.py" varied "$n" "$work/v$n"
  measure "configs varied" "$n" config "$work/v$n"/*.json
  rm -rf "$work/v$n"
done
for k in $keys; do
  python3 "$root/bench/import_inputs.py" keys "$k" "$work/k$k.json"
  measure "one config, keys" "$k" key "$work/k$k.json"
  rm -f "$work/k$k.json"
done
