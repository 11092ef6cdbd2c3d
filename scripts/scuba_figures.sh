#!/usr/bin/env bash
# Figures of the SCUBA suite on the embedded org (default agents: replay, then oracle); see suite_figures.sh.
# Usage: scripts/scuba_figures.sh [-n WORKERS] [--agents "replay oracle"] [-- more pytest args]
cd "$(dirname "$0")/.."
agents=(--agents "replay oracle")
for arg in "$@"; do [[ "$arg" == --agents ]] && agents=(); done
exec bash scripts/suite_figures.sh suites/scuba "${agents[@]}" "$@"
