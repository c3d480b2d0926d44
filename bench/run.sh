#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the render benchmark on both engines in one go and prints a table against the goals:
# per render (template compiled once; issue 2), whole processes (`zeroforge render` vs
# `python3 -c`; issue 2) and the start-up of a validated render of a shipped template, the call
# build pipelines make thousands of times (issue 15: at most 3 ms and 20x Python's).
#
#   bench/run.sh [BUILD_DIR]      default BUILD_DIR: build (configured as Release if absent)
#   env: N (value sets, 10000), RUNS (timed passes per round, 5), ROUNDS (rounds, 5),
#        PROCESS_RUNS (process runs, 20)
# The engines take turns, round after round, and the per-render ratio is the median of the
# rounds' ratios: on a shared machine the speed drifts by tens of percent within seconds, and
# turns expose both engines to the same drift.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
data="$root/bench/data"
n="${N:-10000}"
runs="${RUNS:-5}"
rounds="${ROUNDS:-5}"
process_runs="${PROCESS_RUNS:-20}"

python3 -c 'import jinja2' 2>/dev/null || { echo "run.sh: Python's jinja2 is required" >&2; exit 2; }
# The interpreter itself, not a wrapper such as a pyenv shim, so process timing is fair.
python="$(python3 -c 'import sys; print(sys.executable)')"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if ! build_log="$(cmake --build "$build" --target zeroforge zeroforge_render_bench 2>&1)"; then
  printf '%s\n' "$build_log" >&2
  exit 2
fi
zeroforge="$build/bin/zeroforge"
bench="$build/bin/zeroforge_render_bench"

echo "== per render: $n value sets, template compiled once; $rounds rounds of $runs runs per engine, taking turns"
field() { awk -v key="$2" '$0 ~ "^" key " " { print $NF }' <<<"$1"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
zf_rounds=() zf_json_rounds=() py_rounds=() ratios=()
for ((round = 0; round < rounds; round++)); do
  zf_out="$("$bench" --data "$data" --n "$n" --runs "$runs" 2>/dev/null)"
  py_out="$("$python" "$root/bench/jinja2_render.py" --data "$data" --n "$n" --runs "$runs")"
  zf_rounds+=("$(field "$zf_out" "zeroforge render per-render-us")")
  zf_json_rounds+=("$(field "$zf_out" "zeroforge render_json per-render-us")")
  py_rounds+=("$(field "$py_out" "jinja2 per-render-us")")
  ratios+=("$(awk -v z="${zf_rounds[-1]}" -v p="${py_rounds[-1]}" 'BEGIN { printf "%.2f", p / z }')")
  echo "round $((round + 1)): zeroforge ${zf_rounds[-1]} us, jinja2 ${py_rounds[-1]} us, ${ratios[-1]}x"
done
zf_us="$(printf '%s\n' "${zf_rounds[@]}" | median)"
zf_json_us="$(printf '%s\n' "${zf_json_rounds[@]}" | median)"
py_us="$(printf '%s\n' "${py_rounds[@]}" | median)"
ratio="$(printf '%s\n' "${ratios[@]}" | median)"
if [[ "$(field "$zf_out" "zeroforge checksum")" == "$(field "$py_out" "jinja2 checksum")" ]]; then
  same_text="identical output on all $n value sets"
else
  same_text="OUTPUTS DIFFER (checksums differ): the engines did not render the same text"
fi

# Whole processes: one realistic render each, the Python one doing the equivalent work
# (load, compile, render, parse and re-indent the JSON).
# --no-validate: the Python side does not validate either (and the benchmark template is not a
# config DeepSpeed would accept as is: it puts job_name in every monitor section).
zf_cmd=("$zeroforge" render deepspeed.json.j2 --template-dir "$data" --values "$data/values.json" --no-validate)
py_script='import json, sys, jinja2
env = jinja2.Environment(loader=jinja2.FileSystemLoader(sys.argv[1]), undefined=jinja2.StrictUndefined)
text = env.get_template("deepspeed.json.j2").render(json.load(open(sys.argv[2])))
print(json.dumps(json.loads(text), indent=2))'
py_cmd=("$python" -c "$py_script" "$data" "$data/values.json")

# Median wall time in milliseconds of $process_runs runs (one untimed warm-up run first).
time_process() {
  "$@" >/dev/null
  local samples=() start end
  for ((i = 0; i < process_runs; i++)); do
    start=$EPOCHREALTIME
    "$@" >/dev/null
    end=$EPOCHREALTIME
    samples+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", (e - s) * 1000 }')")
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{ a[NR] = $1 } END {
    print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}
echo "== whole process: median of $process_runs runs"
zf_ms="$(time_process "${zf_cmd[@]}")"
py_ms="$(time_process "${py_cmd[@]}")"
if python3 -c 'import json, sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' \
    "$("${zf_cmd[@]}" 2>/dev/null)" "$("${py_cmd[@]}")"; then
  same_process="same JSON from both processes"
else
  same_process="PROCESS OUTPUTS DIFFER"
fi

# The call pipelines make: a shipped template on a shipped tier, validated (the default). The
# Python side loads the same values files (the template's defaults.json and the tier), merges
# them, renders the template and re-indents the JSON: everything but validating.
ship_cmd=("$zeroforge" render deepspeed/zero3.json.j2 --tier medium)
ship_py_script='import copy, json, sys, jinja2
def merge(target, patch):
    for key, value in patch.items():
        if isinstance(value, dict) and value and isinstance(target.get(key), dict):
            merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target
templates, tier, name = sys.argv[1], sys.argv[2], "deepspeed/zero3.json.j2"
defaults = json.load(open(templates + "/deepspeed/defaults.json"))
values = merge(merge(defaults["values"], defaults["templates"].get(name, {})), json.load(open(tier)))
env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), undefined=jinja2.StrictUndefined)
print(json.dumps(json.loads(env.get_template(name).render(values)), indent=2))'
ship_py_cmd=("$python" -c "$ship_py_script" "$root/templates" "$root/presets/tiers/medium.json")
ship_ms="$(time_process "${ship_cmd[@]}")"
ship_py_ms="$(time_process "${ship_py_cmd[@]}")"
if python3 -c 'import json, sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' \
    "$("${ship_cmd[@]}")" "$("${ship_py_cmd[@]}")"; then
  same_ship="same JSON from both processes"
else
  same_ship="PROCESS OUTPUTS DIFFER"
fi
version_ms="$(time_process "$zeroforge" --version)"

awk -v zf="$zf_us" -v zfj="$zf_json_us" -v py="$py_us" -v ratio="$ratio" -v zfp="$zf_ms" \
    -v pyp="$py_ms" -v ship="$ship_ms" -v shippy="$ship_py_ms" -v version="$version_ms" 'BEGIN {
  printf "\n%-44s %12s %12s %9s %16s\n", "", "zeroforge", "jinja2", "ratio", "goal"
  printf "%-44s %12.2f %12.2f %8.1fx %16s\n", "per render, text (us)", zf, py, ratio, ">= 20x"
  printf "%-44s %12.2f %12.2f %8.1fx %16s\n", "per render, render_json (us)", zfj, py, py / zfj, ""
  printf "%-44s %12.2f %12.2f %8.1fx %16s\n", "whole process (ms)", zfp, pyp, pyp / zfp, ">= 15x"
  printf "%-44s %12.2f %12.2f %8.1fx %16s\n", "render deepspeed/zero3 --tier medium (ms)", ship, shippy,
         shippy / ship, "<= 3 ms, >= 20x"
  printf "%-44s %12.2f %12s %9s %16s\n", "zeroforge --version (ms)", version, "", "", ""
}'
echo "per render: $same_text"
echo "process:    $same_process"
echo "shipped:    $same_ship (zeroforge validates it too)"
