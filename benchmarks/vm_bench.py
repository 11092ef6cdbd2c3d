"""VM desktop benchmark: start-up, snapshot, restore and memory of a QEMU/KVM guest, side by side with the
Docker desktop's warm spare on the same tasks.

    python benchmarks/vm_bench.py [--image cua-desktop-base] [--rounds 20] [--memory 2048] [--no-docker]

Each round runs the same small task in both (start an xterm, wait for its window, type a command that writes
a file), then rolls back (restore + residue check, ``pytest_cua.envs.base.roll_back``). Printed: the guest's
start-up (QEMU start until the executor answers with its display), the savevm time, restore() and roll_back
median and worst, QEMU's resident memory after the rounds; for the container: start-up, restore() (warm spare)
and roll_back median and worst, the container's memory (cgroup). Goal: a guest restore within 2 s median.

Needs KVM with hardware virtualisation: without it the benchmark says why and exits 2 (a guest is never
emulated: TCG figures would say nothing about the provider).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_cua.actions import Action  # noqa: E402
from pytest_cua.envs.base import Environment, roll_back  # noqa: E402
from pytest_cua.tasks.task import Task  # noqa: E402

TASK = Task(id="bench", suite="bench", instruction="write a file", extra={
    "start_command": ["xterm", "-T", "bench-term"], "window": "^bench-term$"})


def _stats(values: list[float]) -> str:
    if not values:
        return "(none)"
    return f"median {statistics.median(values) * 1000:8.1f} ms   worst {max(values) * 1000:8.1f} ms   (n={len(values)})"


def rounds(env: Environment, n: int, say: Callable[[str], None]) -> dict[str, list[float]]:
    """``n`` rounds of the task and its roll_back; the restore alone comes from the environment's timings."""
    snap = env.snapshot()
    times: dict[str, list[float]] = {"roll_back": [], "task": []}
    for i in range(n):
        started = time.perf_counter()
        env.begin_task(TASK)
        env.act(Action.from_dict({"type": "type", "text": f"echo round {i} > /root/round.txt\n"}))
        times["task"].append(time.perf_counter() - started)
        started = time.perf_counter()
        roll_back(env, snap)
        times["roll_back"].append(time.perf_counter() - started)
        say(f"  round {i + 1}/{n}: roll_back {times['roll_back'][-1] * 1000:.0f} ms")
    return times


def vm(image: str, n: int, memory: int, say: Callable[[str], None]) -> dict[str, Any]:
    from pytest_cua.envs.vm.environment import VmEnvironment
    from pytest_cua.envs.vm.options import resolve_settings

    env = VmEnvironment(resolve_settings(image=image, memory_mb=memory), run_id=f"bench-{uuid.uuid4().hex[:8]}",
                        worker_id="gw0")
    started = time.perf_counter()
    try:
        env.start()
        startup = time.perf_counter() - started
        times = rounds(env, n, say)
        assert env.guest is not None
        return {"startup": startup, "savevm": env.timings["savevm"], "restore": env.timings["restore"],
                **times, "memory": env.guest.rss_bytes()}
    finally:
        env.close()


def docker(image: str, n: int, say: Callable[[str], None]) -> dict[str, Any]:
    from pytest_cua.envs.docker.environment import DockerEnvironment
    from pytest_cua.envs.docker.options import resolve_settings

    env = DockerEnvironment(resolve_settings(image=image, build="never"), run_id=f"bench-{uuid.uuid4().hex[:8]}",
                            worker_id="gw0")
    started = time.perf_counter()
    try:
        env.start()
        startup = time.perf_counter() - started
        times = rounds(env, n, say)
        assert env.box is not None
        stats = env.box.container.stats(stream=False)
        return {"startup": startup, "restore": env.timings["restore"], **times,
                "memory": int(stats.get("memory_stats", {}).get("usage", 0))}
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", default="cua-desktop-base", help="recipe of both the guest disk and the image")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--memory", type=int, default=2048, help="guest memory in MiB")
    parser.add_argument("--no-docker", action="store_true", help="the guest alone")
    args = parser.parse_args(argv)

    from pytest_cua.envs.vm.preflight import kvm

    found = kvm()
    if not found.ok:
        print(f"vm_bench: no KVM for the guests: {found.detail}; {found.fix}", file=sys.stderr)
        return 2

    def say(line: str) -> None:
        print(line, flush=True)

    say(f"vm: {args.image}, {args.memory} MiB, {args.rounds} rounds")
    v = vm(args.image, args.rounds, args.memory, say)
    d = None if args.no_docker else docker(args.image, args.rounds, lambda line: None)
    print()
    print(f"{'':22}{'vm (savevm/loadvm)':44}{'docker (warm spare)' if d else ''}")
    print(f"{'start-up':22}{v['startup']:8.1f} s{'':34}" + (f"{d['startup']:8.1f} s" if d else ""))
    print(f"{'snapshot':22}{_stats(v['savevm'])}")
    print(f"{'restore()':22}{_stats(v['restore']):44}{_stats(d['restore']) if d else ''}")
    print(f"{'roll_back':22}{_stats(v['roll_back']):44}{_stats(d['roll_back']) if d else ''}")
    print(f"{'memory':22}{v['memory'] / 2**20:8.0f} MiB (QEMU RSS){'':23}"
          + (f"{d['memory'] / 2**20:8.0f} MiB (cgroup)" if d else ""))
    median = statistics.median(v["restore"]) if v["restore"] else float("inf")
    print(f"\ngoal: guest restore within 2 s median: {'met' if median <= 2.0 else 'NOT met'} ({median:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
