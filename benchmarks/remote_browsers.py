"""Remote-browser benchmark: SCUBA tasks per minute and memory per pytest worker, with the browsers in
Playwright browser servers (``--cua-browser-endpoint``) against browsers launched in each worker.

    python benchmarks/remote_browsers.py [--workers 4,8,16] [--delay 3] [--servers 2] [--modes remote,in-process]
                                         [--per-worker 2]

Each run is an inner pytest of SCUBA tasks with the browser-style fake model of
``tests/models/fake_model_plugin.py`` thinking ``--delay`` seconds before every answer (as in
``benchmarks/model_bench.py``), at ``-n`` N: ``--per-worker`` x N tasks (default 2; the 16 short tasks of
model_bench, with ``--cua-trials`` when more are needed). Remote: ``--servers`` browser servers (``playwright
launch-server``, each its own process group on loopback) shared by the workers (gwN takes server N mod their
number). A quick run: ``--workers 1 --per-worker 1 --servers 1 --delay 0 --modes remote,in-process,all-remote``.
All remote (``--modes all-remote``): the browsers in those servers and the orgs in ``pytest-cua org serve``
processes, one leased per worker (``--cua-orgs``), so a worker holds no environment at all.

Reported per run: passed tasks, tasks per minute over the wall time and over the span of the episodes
(startup excluded), and the peak resident memory (RSS, sampled every 0.5 s from /proc) per pytest worker
process: the Python process alone, and with its Playwright driver and, in-process, its Chromium processes
(its whole process tree). Figures are printed with the load average (the machine is shared); nothing is
asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "benchmarks", ROOT / "tests" / "browser"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import model_bench  # type: ignore[import-not-found,unused-ignore]  # noqa: E402 - benchmarks/ on sys.path
from remote_servers import BrowserServer  # type: ignore[import-not-found,unused-ignore]  # noqa: E402

from tests.localorg.served import served_orgs  # noqa: E402

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB / 1024
    except (OSError, IndexError, ValueError):
        return 0.0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _tree(pid: int, tree: dict[int, list[int]]) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(tree.get(p, []))
    return out


class MemorySampler:
    """Peak RSS of each xdist worker (a python child of the controller running execnet) and of its tree."""

    def __init__(self, controller: int) -> None:
        self.controller = controller
        self.alone: dict[int, float] = {}
        self.tree: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            tree = _children()
            for pid in _tree(self.controller, tree):
                if pid == self.controller or "python" not in _cmdline(pid).split(" ", 1)[0]:
                    continue
                if "execnet" not in _cmdline(pid) and "-c" not in _cmdline(pid).split():
                    continue
                self.alone[pid] = max(self.alone.get(pid, 0.0), _rss_mb(pid))
                self.tree[pid] = max(self.tree.get(pid, 0.0), sum(_rss_mb(p) for p in _tree(pid, tree)))
            self._stop.wait(0.5)

    def __enter__(self) -> "MemorySampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def tasks_for(workers: int, per_worker: int = 2) -> tuple[list[str], int]:
    wanted = per_worker * workers
    tasks = model_bench.THROUGHPUT_TASKS
    trials = max(1, -(-wanted // len(tasks)))
    return tasks[: -(-wanted // trials)], trials


def run(workers: int, delay: float, endpoints: str | None, keep: Path,
        orgs_file: Path | None = None, per_worker: int = 2) -> dict[str, object]:
    import json
    import subprocess

    tasks, trials = tasks_for(workers, per_worker)
    mode = "all remote" if orgs_file else "remote" if endpoints else "in-process"
    reports = keep / f"n{workers}-{mode.replace(' ', '-')}"
    reports.mkdir(parents=True, exist_ok=True)
    ids = tasks if trials == 1 else [f"{t}-trial{k}" for t in tasks for k in range(1, trials + 1)]
    cmd = [sys.executable, "-m", "pytest", *model_bench.nodeids(ids), "-p", "tests.models.fake_model_plugin",
           "--fake-model", "browser", "--agent", "gpt-5.5", "--fake-model-delay", str(delay), "-p", "no:cacheprovider",
           "--cua-reports", str(reports), "--cua-time-limit", str(model_bench.TIME_LIMIT_S), "-q",
           "-n", str(workers)]
    if trials > 1:
        cmd += ["--cua-trials", str(trials)]
    if endpoints:
        cmd += ["--cua-browser-endpoint", endpoints]
    if orgs_file:
        cmd += ["--cua-orgs", str(orgs_file)]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    before = model_bench.load_average()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with MemorySampler(proc.pid) as memory:
        output, _ = proc.communicate(timeout=1200)
    wall = time.perf_counter() - t0
    (reports / "output.txt").write_text(output)
    summary = json.loads((reports / "summary.json").read_text()) if (reports / "summary.json").exists() else {}
    done = summary.get("tasks", [])
    passed = sum(1 for t in done if t.get("outcome") == "passed")
    inner = model_bench.InnerRun(reports, wall, proc.returncode, output, before, "", summary)
    first, last = model_bench.task_span(inner) if done else (0.0, 0.0)
    span = last - first
    alone = sorted(memory.alone.values())
    trees = sorted(memory.tree.values())
    return {"workers": workers, "mode": mode, "tasks": len(done),
            "passed": passed, "wall_s": wall, "per_min_wall": 60 * len(done) / wall if wall else 0.0,
            "per_min_span": 60 * len(done) / span if span else 0.0,
            "rss_max": alone[-1] if alone else 0.0, "rss_mean": sum(alone) / len(alone) if alone else 0.0,
            "tree_max": trees[-1] if trees else 0.0, "procs": len(alone), "load": f"{before} -> "
            f"{model_bench.load_average()}", "rc": proc.returncode}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="4,8,16")
    parser.add_argument("--delay", type=float, default=3.0, help="the fake model's think time per answer (s)")
    parser.add_argument("--servers", type=int, default=2, help="browser servers for the remote runs")
    parser.add_argument("--keep", type=Path, default=None, help="folder for the inner runs' reports")
    parser.add_argument("--per-worker", type=int, default=2, help="tasks per worker in each run (default 2)")
    parser.add_argument("--modes", default="remote,in-process",
                        help="which runs: remote (browser servers), in-process, all-remote (browser servers and "
                             "orgs served by `pytest-cua org serve` processes, one per worker: --cua-orgs)")
    args = parser.parse_args(argv)
    keep = args.keep or Path(tempfile.mkdtemp(prefix="remote-browsers-"))
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(modes) - {"remote", "in-process", "all-remote"})
    if unknown:
        parser.error(f"--modes: unknown {', '.join(unknown)} (remote, in-process, all-remote)")
    if args.per_worker < 1 or args.servers < 1:
        parser.error("--per-worker and --servers take 1 or more")
    rows = []
    servers = [BrowserServer() for _ in range(args.servers)]
    try:
        endpoints = ",".join(s.url for s in servers)
        for n in [int(w) for w in args.workers.split(",")]:
            for mode in modes:
                if mode == "all-remote":
                    with served_orgs(keep / f"orgs-n{n}", [f"org-{i}" for i in range(n)], ui=True) as (orgs, _):
                        row = run(n, args.delay, endpoints, keep, orgs_file=orgs, per_worker=args.per_worker)
                else:
                    row = run(n, args.delay, endpoints if mode == "remote" else None, keep,
                              per_worker=args.per_worker)
                rows.append(row)
                print(f"  done -n {n} {mode}: {row['passed']}/{row['tasks']} passed in {row['wall_s']:.0f} s "
                      f"({row['load']})", flush=True)
        server_rss = [sum(_rss_mb(p) for p in _tree(s.proc.pid, _children())) for s in servers]
    finally:
        for s in servers:
            s.close()
    print(f"\nSCUBA, fake model thinking {args.delay:g} s per answer; reports in {keep}")
    print(f"{'-n':>3} {'environments':<12} {'tasks':>5} {'pass':>4} {'wall s':>7} {'tasks/min':>9} "
          f"{'(episodes)':>10} {'worker RSS MB max/mean':>23} {'worker tree MB max':>19}")
    for r in rows:
        print(f"{r['workers']:>3} {r['mode']:<12} {r['tasks']:>5} {r['passed']:>4} {r['wall_s']:>7.0f} "
              f"{r['per_min_wall']:>9.1f} {r['per_min_span']:>10.1f} "
              f"{r['rss_max']:>11.0f} / {r['rss_mean']:<9.0f} {r['tree_max']:>19.0f}")
    print("browser servers at the end (RSS MB, with their Chromium): " + ", ".join(f"{m:.0f}" for m in server_rss))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
