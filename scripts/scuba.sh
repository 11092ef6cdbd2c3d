#!/usr/bin/env bash
# The main job: the SCUBA suite on the embedded org (one org and one Chromium per xdist worker), with Allure
# results of every agent step; it ends by saying where the run's summary and its HTML report are.
# Extra arguments go to pytest, e.g. scripts/scuba.sh --agent oracle -k create_lead
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2 || { echo "scuba.sh: installing failed; 'pytest-cua doctor' says what is missing" >&2; exit 1; }
source scripts/pycache.sh
python3 -m pytest suites/scuba -n 2 --agent replay -p no:cacheprovider \
  --alluredir reports/allure-results --clean-alluredir "$@"
rc=$?
case "$rc" in
  0|1)  # the run finished (1: some task failed or errored): its reports
    echo "scuba.sh: summary of the run: $(pwd)/reports/summary.json"
    if python3 -m pytest_cua.cli report >/dev/null 2>&1; then
      echo "scuba.sh: HTML report (every agent step): $(pwd)/reports/allure-report/index.html"
    else
      echo "scuba.sh: no HTML report: 'pytest-cua report' could not build it from reports/allure-results (run it to see why)"
    fi ;;
  *)  # interrupted, internal or usage error, nothing collected
    echo "scuba.sh: pytest ended with exit code $rc; 'pytest-cua doctor' checks the programs and images runs need" >&2 ;;
esac
exit "$rc"
