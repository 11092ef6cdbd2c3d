"""Leftovers of a crashed run are found by their owner labels and removed; live runs are left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.docker

HOLDER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {helpers!r})
    from desktop_helpers import make_env
    env = make_env({image!r}, **{kwargs!r})
    env.snapshot()
    print(env.run_id, flush=True)
    time.sleep(600)
""")


def test_sweep_removes_what_a_killed_process_held(base_image: str, docker_client: Any, desktop: Any) -> None:
    from pytest_cua.envs.docker.leftovers import sweep

    script = HOLDER.format(helpers=str(Path(__file__).parent), image=base_image, kwargs={})
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=str(Path(__file__).parents[2]))
    try:
        run_id = holder.stdout.readline().strip()  # type: ignore[union-attr]
        assert run_id, "the holder process did not start its environment"
        by_run = {"label": f"pytest-cua.run={run_id}"}
        wait = 0
        while len(docker_client.containers.list(all=True, sparse=True, filters=by_run)) < 2 and wait < 100:
            import time

            time.sleep(0.1)  # the spare starts in the background
            wait += 1
        assert len(docker_client.images.list(filters=by_run)) == 1

        live = sweep(docker_client)  # the holder is alive: nothing of it goes
        assert not [c for c in live.containers if run_id[:16] in c]
    finally:
        os.kill(holder.pid, signal.SIGKILL)  # a crash: no teardown runs
        holder.wait()
    assert docker_client.containers.list(all=True, sparse=True, filters=by_run), "the crash should have left containers"

    report = sweep(docker_client)
    assert len([c for c in report.containers if run_id[:16] in c]) >= 1
    assert docker_client.containers.list(all=True, sparse=True, filters=by_run) == []
    assert docker_client.images.list(filters=by_run) == []
    # this process's own environment is alive and untouched
    desktop.box.container.reload()
    assert desktop.box.container.status == "running"


def test_sweep_command_line(docker_client: Any) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "docker", "sweep"], capture_output=True,
                         text=True, cwd=str(Path(__file__).parents[2]), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "removed" in out.stdout and "of dead runs" in out.stdout


def _hold(base_image: str, run_id: str, worker_id: str) -> subprocess.Popen[str]:
    script = HOLDER.format(helpers=str(Path(__file__).parent), image=base_image,
                           kwargs={"run_id": run_id, "worker_id": worker_id})
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=str(Path(__file__).parents[2]))
    assert holder.stdout is not None and holder.stdout.readline().strip() == run_id
    return holder


def test_provider_sweeps_one_dead_worker_and_leaves_its_siblings(base_image: str, docker_client: Any) -> None:
    """What the xdist controller does when a worker dies: that worker's containers, spare and snapshot go;
    the live worker of the same run keeps its own."""
    import uuid

    from pytest_cua.envs.docker.provider import PROVIDER

    run_id = f"test-{uuid.uuid4().hex[:8]}"
    def held(worker: str) -> tuple[int, int]:
        labels = {"label": [f"pytest-cua.run={run_id}", f"pytest-cua.worker={worker}"]}
        return (len(docker_client.containers.list(all=True, sparse=True, filters=labels)),
                len(docker_client.images.list(filters=labels)))

    live, dead = _hold(base_image, run_id, "gw0"), _hold(base_image, run_id, "gw1")
    try:
        import time

        deadline = time.monotonic() + 60
        while held("gw1")[0] < 2 and time.monotonic() < deadline:
            time.sleep(0.1)  # the spare starts in the background: kill once it is there
        os.kill(dead.pid, signal.SIGKILL)
        dead.wait()
        assert held("gw1") == (2, 1)
        lines = PROVIDER.sweep(run_id, "gw1")
        assert lines and all("gw1" in line for line in lines), lines
        assert held("gw1") == (0, 0)
        assert held("gw0")[0] >= 1 and held("gw0")[1] == 1  # the live sibling is untouched
    finally:
        os.kill(live.pid, signal.SIGKILL)
        live.wait()
        PROVIDER.sweep(run_id, None)
    assert docker_client.containers.list(all=True, sparse=True, filters={"label": f"pytest-cua.run={run_id}"}) == []
