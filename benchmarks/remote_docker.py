"""Desktops on a remote Docker daemon against the local one: the ProSoft suite with two xdist workers.

    python benchmarks/remote_docker.py [--agent replay] [--workers 2] [--fresh] [-k EXPR] [--image IMAGE]
    python benchmarks/remote_docker.py --workers 1 -k r-mean-amount --image cua-desktop-office   # a quick run

The "remote" daemon is the second dockerd of ``scripts/remote_dockerd.sh`` (tcp://127.0.0.1 with --tlsverify,
its own data root; started here when it does not answer, and stopped at the end then). ``--image`` is the
desktop image of the tasks (``--cua-docker-image``; default the suite's own, ``environment_options["image"]``
of ``suites/prosoft/test_prosoft.py``). ``--fresh`` removes that image from the remote daemon first, so the run
includes the one-time image transfer. Printed per daemon: tasks, outcomes, tasks per minute (wall
time of the run), the image transfer (how the image got there and its seconds), and the peak RSS (MB) of each
pytest worker process (VmHWM, sampled from /proc every 0.5 s over the processes below the pytest controller).

The ProSoft templates have no solver, so ``--agent oracle`` cannot run them: the default agent is ``replay``
(the tasks' demonstrations), which drives the desktop the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "remote_dockerd.sh"


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class RssSampler(threading.Thread):
    """Peak RSS of every python process below ``root`` (the xdist workers), by pid."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.peak_mb: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            todo, seen = [self.root], set()
            while todo:
                pid = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                todo += _children(pid)
                if pid == self.root or "python" not in _cmdline(pid):
                    continue
                hwm = _status(pid).get("VmHWM", "0 kB").split()[0]
                self.peak_mb[pid] = max(self.peak_mb.get(pid, 0.0), int(hwm) / 1024)
            self.stop.wait(0.5)


def run_suite(name: str, host_args: list[str], args: argparse.Namespace, reports: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", "-n", str(args.workers),
           "--agent", args.agent, "--cua-reports", str(reports), "--cua-docker-image", args.image, "-q", *host_args]
    if args.k:
        cmd += ["-k", args.k]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = RssSampler(proc.pid)
    sampler.start()
    out, _ = proc.communicate(timeout=3600)
    sampler.stop.set()
    sampler.join()
    wall = time.monotonic() - started
    summary = json.loads((reports / "summary.json").read_text())
    tasks = summary["tasks"]
    ways = sorted({json.dumps(t["environment"].get("image_on_host")) for t in tasks if t.get("environment")})
    outcomes: dict[str, int] = {}
    for t in tasks:
        outcomes[t["outcome"]] = outcomes.get(t["outcome"], 0) + 1
    return {"name": name, "tasks": len(tasks), "outcomes": outcomes, "wall_s": wall,
            "run_wall_s": summary["run"]["wall_s"], "image": [json.loads(w) for w in ways],
            "worker_rss_mb": sorted(round(v) for v in sampler.peak_mb.values()), "exit": proc.returncode,
            "tail": out[-1500:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="replay")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="remove the image (--image) from the remote daemon first")
    parser.add_argument("-k", default="", help="a -k expression to run part of the suite")
    parser.add_argument("--image", default=None, help="the tasks' desktop image (default: the suite's own)")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error("--workers takes 1 or more")
    if args.image is None:
        sys.path.insert(0, str(REPO))
        from suites.prosoft.test_prosoft import CUA_SUITE

        args.image = str(CUA_SUITE.environment_options["image"])

    was_running = subprocess.run(["sh", str(SCRIPT), "status"], capture_output=True).returncode == 0
    subprocess.run(["sh", str(SCRIPT), "start"], check=True)
    try:
        return measure(args)
    finally:
        if not was_running:
            subprocess.run(["sh", str(SCRIPT), "stop"], check=False)


def measure(args: argparse.Namespace) -> int:
    env = dict(line.split("=", 1) for line in subprocess.run(["sh", str(SCRIPT), "env"], capture_output=True,
                                                             text=True, check=True).stdout.split())
    remote_args = ["--cua-docker-hosts", env["DOCKER_HOST"], "--cua-docker-tls-dir", env["DOCKER_CERT_PATH"]]
    if args.fresh:
        sys.path.insert(0, str(REPO))
        from pytest_cua.envs.docker.hosts import DockerHost, connect

        client = connect(DockerHost(env["DOCKER_HOST"], Path(env["DOCKER_CERT_PATH"])))
        try:
            client.images.remove(args.image, force=True)
            client.images.prune()
        except Exception as exc:  # noqa: BLE001 - not there
            print(f"(remote had no {args.image}: {exc})")
        client.close()
    results = []
    with tempfile.TemporaryDirectory(prefix="pytest-cua-remote-bench-") as tmp:
        for name, host_args in (("remote (tcp+TLS)", remote_args), ("local (unix socket)", [])):
            print(f"running the ProSoft suite, desktops on the {name} daemon ...", flush=True)
            results.append(run_suite(name, host_args, args, Path(tmp) / name.split()[0]))
    print()
    print(f"ProSoft suite, --agent {args.agent}, -n {args.workers}, {args.image}, load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    print(f"{'daemon':22} {'tasks':>5} {'outcomes':22} {'wall s':>7} {'tasks/min':>9} {'w/o transfer':>12}  "
          f"{'image on host':34} worker RSS MB")
    for r in results:
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
        image = "; ".join(f"{i['how']} {i['seconds']:.1f} s {i['mb']:.0f} MB" if i else "local" for i in r["image"])
        transfer = sum(i["seconds"] for i in r["image"] if i)
        print(f"{r['name']:22} {r['tasks']:5} {outcomes:22} {r['run_wall_s']:7.1f} "
              f"{r['tasks'] / r['run_wall_s'] * 60:9.1f} {r['tasks'] / (r['run_wall_s'] - transfer) * 60:12.1f}  "
              f"{image:34} {r['worker_rss_mb']}")
    for r in results:
        if r["exit"] not in (0, 1):
            print(f"\n{r['name']}: pytest exited {r['exit']}:\n{r['tail']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
