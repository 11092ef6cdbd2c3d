#!/usr/bin/env bash
# The project's tests: installs what they need (package, Chromium, dockerd, desktop images; all cached),
# runs the static checks (ruff, mypy: configured in pyproject.toml), then runs pytest over tests/. A failing
# static check fails the script with that tool's exit code, before pytest runs. pytest's "no tests collected"
# (exit 5) is not a failure of this script; every other non-zero exit is passed on.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --docker || exit 1
source scripts/pycache.sh
python3 -m ruff check pytest_cua tests suites benchmarks && python3 -m mypy pytest_cua
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "test.sh: static checks failed (exit $rc)"
  exit "$rc"
fi
# arguments go to pytest; paths among them (tests/core, tests/x.py::name) replace the default tests/
paths=(tests)
for arg in "$@"; do
  if [ -e "${arg%%::*}" ]; then paths=(); break; fi
done
# --dist loadscope: a module's tests stay on one worker, so a module-scoped fixture (an inner run, served orgs,
# a desktop container) is made once, not once per worker; modules with a slow test are collected first
# (tests/conftest.py), so the long ones start early and the quick ones fill in around them. Three workers on two
# cores: many tests wait on a container, a browser or an inner run (CI-like runs: 1129 s of pytest with three,
# 1195 s with two and a little more to test, the CPU 96% busy)
python3 -m pytest "${paths[@]}" -n 3 --dist loadscope -p no:cacheprovider --durations=40 "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "test.sh: pytest collected no tests (exit 5)"
  rc=0
fi
exit "$rc"
