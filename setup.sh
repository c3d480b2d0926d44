#!/usr/bin/env bash
# Installs the Debian packages zeroforge builds and tests with, only those that are missing.
# Idempotent; needs root (or sudo) only when something is missing.
# Usage: ./setup.sh          what building and running zeroforge needs (run.sh), the Python
#                            module's headers included (python3-dev, pybind11-dev)
#        ./setup.sh --test   that, and what only the test suites need (check.sh): Chromium for
#                            the report's browser tests, python3-jinja2 (the template engine's
#                            oracle in the differential corpus) and python3-yaml (PyYAML, what
#                            accelerate reads its config with: the YAML reader's oracle), and
#                            SLURM (slurmctld, slurmd, munge, slurm-client: the sbatch scripts
#                            run on a real cluster the test starts on localhost), and
#                            python3-pytest (the Python module's tests, tests/python),
#                            python3-jsonschema (the oracle of the JSON Schema zeroforge
#                            exports for editors), and
#                            unicode-data (NameAliases.txt, which the check of the template
#                            engine's generated \N{} name table reads), and the packages' tests
#                            (tests/package): python3-pip, python3-setuptools, python3-wheel and
#                            python3-venv (pip install . and the wheel, offline, in venvs),
#                            python3-mypy (the type stubs' check), pre-commit (the hooks in a
#                            temporary repository), dpkg-dev (cpack -G DEB's dpkg-shlibdeps)
#                            and lintian (the Debian package's check), and clang-format (the
#                            sources' formatting check, tests/style/check_format.py)
set -euo pipefail
packages=(g++ cmake ninja-build make nlohmann-json3-dev libboost-program-options-dev libgtest-dev python3 python3-dev
          pybind11-dev)
test_packages=(chromium python3-yaml python3-jinja2 slurmctld slurmd munge slurm-client
               python3-pytest python3-jsonschema unicode-data
               python3-pip python3-setuptools python3-wheel python3-venv python3-mypy pre-commit
               dpkg-dev lintian clang-format)
case "${1:-}" in
  "") ;;
  --test) packages+=("${test_packages[@]}") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
# The real-consumer check (tests/consumers/README.md) runs torch's own torchrun parser: Debian's
# python3-torch is 177 packages and 608 MiB installed, so only on request, and always for the
# tests in CI (CI=true), where a missing torch fails that check instead of skipping it.
if [ -n "${ZEROFORGE_SETUP_CONSUMERS:-}" ] || { [ "${1:-}" = --test ] && [ "${CI:-}" = true ]; }; then
  packages+=(python3-torch python3-packaging python3-regex python3-filelock python3-tqdm)
fi
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
