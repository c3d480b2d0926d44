#!/usr/bin/env bash
# The main job: builds zeroforge (and its Python module, build/python) and generates the shipped
# example family into out/ (or $1).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target zeroforge zeroforge_python
out=${1:-out}
./build/bin/zeroforge generate example -o "$out"
echo "zeroforge: configs in $(realpath "$out"), listed in $(realpath "$out/manifest.json")"
