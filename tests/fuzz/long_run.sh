#!/usr/bin/env bash
# The longer, scheduled fuzzing run (tests/fuzz/README.md): every target of the fuzz build for
# SECONDS (default 3600) from its corpus in the repository, then the new inputs that reach code
# the corpus did not are merged into tests/fuzz/corpus/<target>/, for review and commit.
# Failing inputs are left in OUT/<target>/ (crash-*, leak-*, timeout-*, oom-*).
# Usage: tests/fuzz/long_run.sh [SECONDS] [OUT] [TARGET...]
#   (after: cmake --preset fuzz && cmake --build --preset fuzz). TARGETs (e.g. `json template`)
#   pick some targets, so that two runs on two cores can share the list; the default is all.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-3600}
out=${2:-build-fuzz/long-run}
shift $(($# < 2 ? $# : 2))
fuzzers=()
if [ $# -eq 0 ]; then
  fuzzers=(build-fuzz/tests/fuzz/*_fuzz)
else
  for name in "$@"; do
    if [ ! -x "build-fuzz/tests/fuzz/${name}_fuzz" ]; then
      echo "long_run.sh: no fuzz target '$name' in build-fuzz/tests/fuzz" >&2
      exit 2
    fi
    fuzzers+=("build-fuzz/tests/fuzz/${name}_fuzz")
  done
fi
status=0
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer" _fuzz)
  dict=tests/fuzz/json.dict
  [ "$name" = template ] && dict=tests/fuzz/jinja2.dict
  [ -f "tests/fuzz/$name.dict" ] && dict=tests/fuzz/$name.dict
  corpus=tests/fuzz/corpus/$name
  mkdir -p "$out/$name/new" "$corpus"
  echo "== $name: $seconds s" >&2
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -dict="$dict" \
      -artifact_prefix="$out/$name/" -print_final_stats=1 "$out/$name/new" "$corpus"; then
    echo "== $name FAILED: the input is in $out/$name/" >&2
    status=1
  fi
  # Keep only what adds coverage: -merge=1 copies into the first directory the inputs of the
  # others that reach new code.
  "$fuzzer" -merge=1 -timeout=10 -rss_limit_mb=2048 "$corpus" "$out/$name/new" >/dev/null 2>&1
done
git status --short tests/fuzz/corpus >&2
exit $status
