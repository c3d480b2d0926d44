#!/usr/bin/env bash
# The main job: builds zeroforge and generates the shipped example into out/ (or $1).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target zeroforge
out=${1:-out}
mkdir -p "$out"
./build/bin/zeroforge render deepspeed/example.json.j2 --values presets/example-values.json \
  -o "$out/example.json"
echo "zeroforge: wrote $(realpath "$out/example.json")"
