#!/usr/bin/env bash
# ProSoftArena's tables of the ProSoft suite: runs it with each agent (default: replay, then noop) through
# scripts/prosoft_figures.sh (outcomes per level, run times), then writes each run's tables with
# `pytest-cua report --tables` (Table 2's steps from the task files' demonstrations and seconds from the replay
# run; success per level, program, domain and observation setting as mean ± SE over trials; tokens and cost):
# FOLDER/AGENT/tables.md and tables.json.
#
# Usage: scripts/prosoft_tables.sh [-n WORKERS] [--trials K] [--agents "replay noop"] [-- more pytest args]
#   e.g. scripts/prosoft_tables.sh --trials 3 -- -k "r-mean-amount or calc-total-row"
# Env:   FIGURES_REPORTS (default: a new folder under /tmp)
set -euo pipefail

cd "$(dirname "$0")/.."
workers=2
trials=1
agents="replay noop"
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) workers="$2"; shift 2 ;;
    --trials) trials="$2"; shift 2 ;;
    --agents) agents="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) extra+=("$1"); shift ;;
  esac
done
out="${FIGURES_REPORTS:-$(mktemp -d /tmp/pytest-cua-tables.XXXXXX)}"
python="${PYTHON:-python3}"

FIGURES_REPORTS="$out" bash scripts/prosoft_figures.sh -n "$workers" --agents "$agents" -- \
  --cua-trials "$trials" "${extra[@]}"

replay=()
[[ -f "$out/replay/summary.json" ]] && replay=(--replay "$out/replay")
for agent in $agents; do
  [[ -f "$out/$agent/summary.json" ]] || { echo "agent $agent: no summary.json, no tables"; continue; }
  "$python" -m pytest_cua.cli report --tables "$out/$agent" --demos suites/prosoft/tasks "${replay[@]}" \
    --markdown "$out/$agent/tables.md" --json "$out/$agent/tables.json"
done
echo "tables: $out/*/tables.md"
