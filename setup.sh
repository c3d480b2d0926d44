#!/usr/bin/env bash
# Installs the Debian packages zeroforge builds with, only those that are missing.
# Idempotent; needs root (or sudo) only when something is missing.
# Usage: ./setup.sh          what building and running zeroforge needs (run.sh)
#        ./setup.sh --test   that, and what only the test suites need (check.sh): Chromium,
#                            for the report's browser tests
set -euo pipefail
packages=(g++ cmake ninja-build make nlohmann-json3-dev libboost-program-options-dev libgtest-dev python3)
test_packages=(chromium)
case "${1:-}" in
  "") ;;
  --test) packages+=("${test_packages[@]}") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
