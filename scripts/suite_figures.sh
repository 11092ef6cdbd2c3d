#!/usr/bin/env bash
# Figures of a suite: runs `pytest SUITE -n WORKERS --agent AGENT` for each agent and prints, per run, the
# tasks and their outcomes (in all and per level), the run's wall time, the mean seconds per task (episode wall
# time, reports/summary.json times.wall_s) and the environment reset time per task (times.reset_s: rollback +
# verification after each task). scripts/scuba_figures.sh and scripts/prosoft_figures.sh call it.
#
# Usage: scripts/suite_figures.sh SUITE [-n WORKERS] [--agents "replay oracle"] [-- more pytest args]
# Env:   FIGURES_REPORTS (default: a new folder under /tmp)
set -euo pipefail

cd "$(dirname "$0")/.."
suite="${1:?usage: scripts/suite_figures.sh SUITE [-n WORKERS] [--agents \"A B\"] [-- pytest args]}"
shift
workers=2
agents="replay oracle"
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) workers="$2"; shift 2 ;;
    --agents) agents="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) extra+=("$1"); shift ;;
  esac
done
out="${FIGURES_REPORTS:-$(mktemp -d /tmp/pytest-cua-figures.XXXXXX)}"
python="${PYTHON:-python3}"

for agent in $agents; do
  reports="$out/$agent"
  mkdir -p "$reports"
  start=$(date +%s.%N)
  set +e
  "$python" -m pytest "$suite" -n "$workers" --agent "$agent" --cua-reports "$reports" -q \
    -p no:cacheprovider "${extra[@]}" > "$reports/pytest.log" 2>&1
  code=$?
  set -e
  end=$(date +%s.%N)
  "$python" - "$reports/summary.json" "$agent" "$workers" "$start" "$end" "$code" <<'PY'
import json, statistics, sys
path, agent, workers, start, end, code = sys.argv[1:]
try:
    summary = json.load(open(path))
except OSError:
    print(f"agent {agent}: no summary.json (pytest exit {code}); see {path.rsplit('/', 1)[0]}/pytest.log")
    raise SystemExit(0)
tasks = summary["tasks"]
ran = [t for t in tasks if t["outcome"] != "skipped"]
walls = [t["times"]["wall_s"] for t in ran if isinstance(t["times"].get("wall_s"), (int, float))]
resets = [t["times"]["reset_s"] for t in ran if isinstance(t["times"].get("reset_s"), (int, float))]
totals = summary["totals"]
elapsed = float(end) - float(start)
partial = f"{totals['partial']} partially scored, " if totals.get("partial") else ""
print(f"agent {agent} (-n {workers}): {len(tasks)} tasks: {totals['passed']} passed, {totals['failed']} failed, "
      f"{partial}{totals['error']} errors, {totals['skipped']} skipped; pytest exit {code}")
print(f"  wall time of the run: {elapsed:.1f} s (plugin: {summary['run'].get('wall_s')} s)")
if walls:
    print(f"  mean seconds per task (episode): {statistics.fmean(walls):.2f} s; "
          f"run wall time / tasks: {elapsed / max(len(ran), 1):.2f} s")
if resets:
    print(f"  environment reset per task: mean {1000 * statistics.fmean(resets):.1f} ms, "
          f"max {1000 * max(resets):.1f} ms")
levels = sorted({t.get("level") or "-" for t in tasks})
if len(levels) > 1:
    for level in levels:
        these = [t for t in tasks if (t.get("level") or "-") == level]
        counts = {o: sum(1 for t in these if t["outcome"] == o) for o in ("passed", "failed", "partial", "error", "skipped")}
        print(f"  {level}: {len(these)} tasks: " + ", ".join(f"{n} {o}" for o, n in counts.items() if n))
not_passed = [t["id"] for t in tasks if t["outcome"] in ("failed", "error")]
if not_passed and agent not in ("noop",):
    print(f"  not passed: {' '.join(not_passed[:40])}")
errors = [t for t in tasks if t["outcome"] == "error"]
for t in errors[:10]:
    print(f"  error {t['id']}: {t.get('error_kind')}: {str(t.get('error') or '')[:200]}")
PY
done
echo "reports: $out"
