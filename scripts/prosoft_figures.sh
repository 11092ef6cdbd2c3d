#!/usr/bin/env bash
# Figures of the ProSoft suite in desktop containers (default agents: replay, then noop; every task, L1-L4);
# see suite_figures.sh. Builds the suite's image first when it is missing or outdated.
# Usage: scripts/prosoft_figures.sh [-n WORKERS] [--agents "replay noop"] [-- more pytest args]
cd "$(dirname "$0")/.."
python3 -m pytest_cua.cli image build cua-desktop-arena >/dev/null || exit 1
agents=(--agents "replay noop")
for arg in "$@"; do [[ "$arg" == --agents ]] && agents=(); done
exec bash scripts/suite_figures.sh suites/prosoft "${agents[@]}" "$@"
