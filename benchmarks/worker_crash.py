"""A worker killed mid-task: does every report keep the task, and is the dead worker's Docker left clean?

Runs ``pytest suites/prosoft -n 2 --agent replay`` (or the suite given), waits until worker gw1 is in the
middle of a task (its "started" note is newer than its last record), kills that worker with SIGKILL (its
pid is on its containers' labels), lets the run finish, then prints:

- pytest's outcome line and exit status;
- what summary.json says: tasks, errors by kind, the crashed task's record;
- what of the dead worker is left in Docker after the session (containers and snapshot images labelled
  with the run and the worker): it must be nothing.

    python benchmarks/worker_crash.py [--suite suites/prosoft] [--retry-errors N] [--after 4] [--reports DIR]
                                      [-- extra pytest args]

A quick run: ``--after 0 -- -k "r-count-north or r-mean-amount" --cua-docker-image cua-desktop-office`` (gw1 is
killed in its first task).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def docker_left(run_id: str, worker: str) -> tuple[list[str], list[str]]:
    import docker

    client = docker.from_env()
    labels = [f"pytest-cua.run={run_id}", f"pytest-cua.worker={worker}"]
    containers = [c.name for c in client.containers.list(all=True, filters={"label": labels})]
    images = [", ".join(i.tags) or i.id for i in client.images.list(filters={"label": labels})]
    return containers, images


def worker_pid(run_id: str, worker: str) -> int | None:
    import docker

    client = docker.from_env()
    for c in client.containers.list(filters={"label": [f"pytest-cua.run={run_id}", f"pytest-cua.worker={worker}"]}):
        pid = c.labels.get("pytest-cua.pid")
        if pid:
            return int(pid)
    return None


def in_task(store: Path, worker: str) -> str | None:
    """The test id ``worker`` is running now: a started note with no record newer than it."""
    started = sorted((store / "started").glob("*.json"), key=lambda p: p.stat().st_mtime)
    for path in reversed(started):
        note = json.loads(path.read_text())
        if note.get("worker") != worker:
            continue
        record = store / "records" / path.name
        if not record.exists() or record.stat().st_mtime < path.stat().st_mtime:
            return str(note["nodeid"])
        return None
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="suites/prosoft")
    parser.add_argument("--retry-errors", type=int, default=0)
    parser.add_argument("--after", type=int, default=4, help="kill after this many tests have finished")
    parser.add_argument("--reports", type=Path, default=ROOT / "reports",
                        help="the run's reports folder (--cua-reports; default reports/ of the repository)")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    run_id = f"crash-{int(time.time())}"
    reports = args.reports.resolve()
    store = reports / "runs" / run_id
    command = [sys.executable, "-m", "pytest", args.suite, "-n", "2", "--agent", "replay", "-p", "no:cacheprovider",
               "--cua-run-id", run_id, "--cua-reports", str(reports), "-q",
               *(["--cua-retry-errors", str(args.retry_errors)] if args.retry_errors else []), *args.rest]
    print("running:", " ".join(command), flush=True)
    started = time.monotonic()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed: tuple[int, str] | None = None
    while proc.poll() is None and killed is None:
        time.sleep(0.2)
        done = len(list((store / "records").glob("*.json")))
        nodeid = in_task(store, "gw1") if done >= args.after else None
        pid = worker_pid(run_id, "gw1") if nodeid else None
        if nodeid and pid:
            time.sleep(1.0)  # well inside the task
            os.kill(pid, signal.SIGKILL)
            killed = (pid, nodeid)
            print(f"killed worker gw1 (pid {pid}) at {time.monotonic() - started:.1f} s while it ran {nodeid}",
                  flush=True)
    output, _ = proc.communicate()
    wall = time.monotonic() - started
    tail = [line for line in output.splitlines() if line.strip()][-40:]
    print("\n".join(tail))
    print(f"exit status {proc.returncode}, {wall:.1f} s")
    if killed is None:
        print("the worker was never caught in a task: nothing measured")
        return 2
    summary = json.loads((reports / "summary.json").read_text())
    totals = summary["totals"]
    print(f"summary.json: {totals['tasks']} tasks, {totals['passed']} passed, {totals['failed']} failed, "
          f"{totals['error']} errors, errors by kind {totals.get('errors_by_kind')}, retries {totals.get('retries')}")
    record = next((r for r in summary["tasks"] if r["nodeid"] == killed[1]), None)
    if record is None:
        print(f"the crashed test {killed[1]} is MISSING from summary.json")
    else:
        print(f"crashed test in summary.json: outcome {record['outcome']}, error_kind {record['error_kind']}, "
              f"retries {record.get('retries')}, error {record['error']!r}")
    containers, images = docker_left(run_id, "gw1")
    print(f"left in Docker for run {run_id} worker gw1 after the session: {len(containers)} container(s) "
          f"{containers}, {len(images)} snapshot image(s) {images}")
    return 0 if record is not None and not containers and not images else 1


if __name__ == "__main__":
    sys.exit(main())
