#!/usr/bin/env bash
# CI's time and steadiness on this machine: the README's test command (.ci/run, CI=true) on fresh clean clones of
# a commit, N times in a row, the runs named in --hog beside a CPU hog (one busy process per core: stress-ng when
# installed, else `sha256sum /dev/zero`). Prints one line per run (wall time, pytest's own time, its final
# line) and keeps each run's log. Exit status: the number of runs that failed.
#
# Usage: benchmarks/ci_steadiness.sh [--runs N] [--hog I,J] [--rev REV] [--out DIR]
#   defaults: 3 runs, the 3rd beside the hog, HEAD of this checkout, logs under /tmp/ci-steadiness
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs=3 hog=",3," rev=HEAD out=/tmp/ci-steadiness
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --hog) hog=",$2,"; shift 2 ;;
    --rev) rev="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "ci_steadiness.sh: unknown argument '$1' (usage: [--runs N] [--hog I,J] [--rev REV] [--out DIR])" >&2
       exit 2 ;;
  esac
done
commit="$(git -C "$repo" rev-parse --short "$rev")" || exit 2
mkdir -p "$out"
cores="$(nproc)"
failed=0
hog_pids=()
stop_hog() { [ ${#hog_pids[@]} -gt 0 ] && kill "${hog_pids[@]}" 2>/dev/null; wait "${hog_pids[@]}" 2>/dev/null; hog_pids=(); }
trap stop_hog EXIT
echo "ci_steadiness: commit $commit, $runs run(s), hog in run(s) ${hog//,/ }, $cores cores, logs in $out"
for i in $(seq 1 "$runs"); do
  clone="$out/clone-$i"
  rm -rf "$clone"
  git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$commit" || exit 2
  label="run $i"
  if [[ "$hog" == *",$i,"* ]]; then
    label="run $i (CPU hog: $cores busy processes)"
    for _ in $(seq 1 "$cores"); do
      if command -v stress-ng >/dev/null; then stress-ng --cpu 1 --quiet & else sha256sum /dev/zero & fi
      hog_pids+=($!)
    done
  fi
  started=$(date +%s)
  # the clone has no ../shared beside it: name SCUBA's release (the tests that need it fail under CI without it)
  (cd "$clone" && env -u PYTHONPATH CI=true PYTEST_CUA_SCUBA_ROOT="${PYTEST_CUA_SCUBA_ROOT:-$repo/../shared/scuba/release}" \
     bash .ci/run > "$out/run-$i.log" 2>&1)
  rc=$?
  seconds=$(( $(date +%s) - started ))
  stop_hog
  [ "$rc" -ne 0 ] && failed=$((failed + 1))
  final="$(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$out/run-$i.log" | tail -1)"
  printf '%s: rc %s, %d min %02d s; %s\n' "$label" "$rc" $((seconds / 60)) $((seconds % 60)) "${final:-no pytest summary}"
  grep -E '^(FAILED|ERROR) ' "$out/run-$i.log" | sed 's/^/    /'
  rm -rf "$clone"
done
exit "$failed"
