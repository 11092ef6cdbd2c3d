#!/usr/bin/env bash
# The main job: the SCUBA suite on the embedded org (one org and one Chromium per xdist worker).
# Extra arguments go to pytest, e.g. scripts/scuba.sh --agent oracle -k create_lead
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh >&2 || exit 1
exec python3 -m pytest suites/scuba -n 2 --agent replay -p no:cacheprovider "$@"
