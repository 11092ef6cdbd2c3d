"""Docker desktop environment benchmark: restore times, and the executor connection's latency.

    python benchmarks/docker_bench.py [--image cua-desktop-base] [--restores 20] [--no-spare-restores 5]

Each round runs a small task (start an xterm, wait for its window, type a command that writes a file, then
wait ``--task-seconds`` as an agent would think), then rolls back (restore + residue check). Printed: median and
slowest of restore() alone and of the whole roll_back, with and without the warm spare, and the per-request
latency of the executor connection (through the Docker API) against a plain ``docker exec``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_cua.actions import Action  # noqa: E402
from pytest_cua.envs.docker.client import ExecutorError  # noqa: E402
from pytest_cua.envs.docker.options import resolve_settings  # noqa: E402
from pytest_cua.envs.base import roll_back  # noqa: E402
from pytest_cua.envs.docker.environment import DockerEnvironment  # noqa: E402
from pytest_cua.tasks.task import Task  # noqa: E402

TASK = Task(id="bench", suite="bench", instruction="write a file", extra={
    "start_command": ["xterm", "-T", "bench-term"], "window": "^bench-term$"})


def _stats(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:8.2f} ms   slowest {max(values) * 1000:8.1f} ms   "
            f"(n={len(values)})")


def _timed(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def restores(image: str, rounds: int, spare: bool, say: Callable[[str], None],
             task_seconds: float = 0.0) -> dict[str, list[float]]:
    """Run ``rounds`` task + roll_back rounds; return the timings."""
    settings = resolve_settings(image=image, spare=spare, build="never")
    env = DockerEnvironment(settings, run_id=f"bench-{uuid.uuid4().hex[:8]}", worker_id="gw0").start()
    times: dict[str, list[float]] = {"restore": [], "roll_back": [], "task": []}
    try:
        snap = env.snapshot()
        for i in range(rounds):
            started = time.perf_counter()
            env.begin_task(TASK)
            env.act(Action.from_dict({"type": "type", "text": f"echo round {i} > /root/round.txt\n"}))
            deadline = time.monotonic() + 30
            while env.run(["test", "-f", "/root/round.txt"])["returncode"] != 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(task_seconds)  # the agent's thinking time: the spare starts meanwhile
            times["task"].append(time.perf_counter() - started)
            started = time.perf_counter()
            roll_back(env, snap)
            times["roll_back"].append(time.perf_counter() - started)
            times["restore"].append(env.timings["restore"][-1])
            say(f"  round {i + 1:2}/{rounds}: restore {times['restore'][-1] * 1000:7.1f} ms, "
                f"roll_back {times['roll_back'][-1] * 1000:7.1f} ms")
        times["spare_start"] = list(env.timings["spare_start"])
        if env.spare_failures:
            say(f"  spare failures: {env.spare_failures}")
    finally:
        env.close()
    return times


def _round_trip(client: Any) -> None:
    """One request the executor answers at once, without work (an unknown op): the transport alone."""
    try:
        client.request("nop")
    except ExecutorError:
        pass


def latency(image: str, n: int) -> dict[str, list[float]]:
    """Per-request latency of the executor connection (a relay exec'd through the Docker API): the bare round
    trip, ping, a screenshot with a window on screen, a click; against ``docker exec true``."""
    settings = resolve_settings(image=image, spare=False, build="never")
    env = DockerEnvironment(settings, run_id=f"bench-{uuid.uuid4().hex[:8]}", worker_id="gw0").start()
    try:
        env.begin_task(TASK)  # an xterm on screen: the screenshot is not a blank frame
        client = env.box.client
        name = env.box.container.name
        return {
            "round trip (transport only)": _timed(lambda: _round_trip(client), n * 10),
            "ping (runs xdpyinfo, wmctrl)": _timed(lambda: client.request("ping"), n),
            "docker exec true": _timed(lambda: subprocess.run(["docker", "exec", name, "true"], check=True), n),
            "screenshot (1280x800 PNG, base64)": _timed(client.screenshot, n),
            "click action": _timed(lambda: client.request(
                "act", action={"type": "click", "target": {"x": 640, "y": 400}}), n),
        }
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="cua-desktop-base")
    parser.add_argument("--restores", type=int, default=20)
    parser.add_argument("--no-spare-restores", type=int, default=5)
    parser.add_argument("--task-seconds", type=float, default=5.0,
                        help="simulated agent time per task (a real episode takes minutes); 0 = back to back")
    parser.add_argument("--latency-requests", type=int, default=20)
    args = parser.parse_args(argv)
    say = lambda line: print(line, flush=True)  # noqa: E731
    say(f"image {args.image}")
    say(f"with warm spare, {args.restores} rounds, {args.task_seconds:g} s per task:")
    warm = restores(args.image, args.restores, True, say, args.task_seconds)
    results = [("restore() with spare", warm["restore"]), ("roll_back with spare (restore + residue)",
                                                            warm["roll_back"]),
               ("spare container start (background)", warm["spare_start"])]
    if args.no_spare_restores:
        say(f"without spare, {args.no_spare_restores} rounds:")
        cold = restores(args.image, args.no_spare_restores, False, say)
        results += [("restore() without spare", cold["restore"]),
                    ("roll_back without spare", cold["roll_back"])]
    if args.latency_requests:
        results += list(latency(args.image, args.latency_requests).items())
    say("")
    width = max(len(name) for name, _ in results)
    for name, values in results:
        if values:
            say(f"{name:<{width}}  {_stats(values)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
