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
    env = make_env({image!r})
    env.snapshot()
    print(env.run_id, flush=True)
    time.sleep(600)
""")


def test_sweep_removes_what_a_killed_process_held(base_image: str, docker_client: Any, desktop: Any) -> None:
    from pytest_cua.desktop.leftovers import sweep

    script = HOLDER.format(helpers=str(Path(__file__).parent), image=base_image)
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=str(Path(__file__).parents[2]))
    try:
        run_id = holder.stdout.readline().strip()  # type: ignore[union-attr]
        assert run_id, "the holder process did not start its environment"
        by_run = {"label": f"pytest-cua.run={run_id}"}
        wait = 0
        while len(docker_client.containers.list(all=True, filters=by_run)) < 2 and wait < 100:
            import time

            time.sleep(0.1)  # the spare starts in the background
            wait += 1
        assert len(docker_client.images.list(filters=by_run)) == 1

        live = sweep(docker_client)  # the holder is alive: nothing of it goes
        assert not [c for c in live.containers if run_id[:16] in c]
    finally:
        os.kill(holder.pid, signal.SIGKILL)  # a crash: no teardown runs
        holder.wait()
    assert docker_client.containers.list(all=True, filters=by_run), "the crash should have left containers"

    report = sweep(docker_client)
    assert len([c for c in report.containers if run_id[:16] in c]) >= 1
    assert docker_client.containers.list(all=True, filters=by_run) == []
    assert docker_client.images.list(filters=by_run) == []
    # this process's own environment is alive and untouched
    desktop.box.container.reload()
    assert desktop.box.container.status == "running"


def test_sweep_command_line(docker_client: Any) -> None:
    out = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "docker", "sweep"], capture_output=True,
                         text=True, cwd=str(Path(__file__).parents[2]), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "removed" in out.stdout and "of dead runs" in out.stdout
