"""Helpers of the desktop tests (imported by conftest.py and the test modules)."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

FILES = Path(__file__).with_name("files")
BASE_IMAGE = "cua-desktop-base"


def make_env(image: str, *, run_id: str | None = None, worker_id: str = "gw0", **overrides: Any) -> Any:
    """A started DockerEnvironment on ``image`` with a fresh run id unless given (the caller closes it)."""
    from pytest_cua.envs.docker.options import resolve_settings
    from pytest_cua.envs.docker.environment import DockerEnvironment

    settings = resolve_settings(**{"image": image, "build": "never", "memory": "1g", "cpus": 1.0, **overrides})
    env = DockerEnvironment(settings, run_id=run_id or f"test-{uuid.uuid4().hex[:8]}", worker_id=worker_id,
                            artifacts_dir=Path(os.environ.get("TMPDIR", "/tmp")) / "pytest-cua-test-artifacts",
                            files_roots=[FILES])
    try:
        return env.start()
    except BaseException:
        env.close()
        raise


def probe_task(task_id: str = "probe", **extra: Any) -> Any:
    """A task that starts the event-logging probe window (tests/desktop/files/probe.py)."""
    from pytest_cua.tasks.task import Task

    data = {"start_files": [{"src": "probe.py", "dest": "/root/probe.py"}],
            "start_command": ["python3", "/root/probe.py"], "window": "^cua-probe$", "window_timeout_s": 30}
    data.update(extra)
    return Task(id=task_id, suite="desktop-tests", instruction="probe", extra=data)


def events(env: Any, kind: str | None = None, settle_s: float = 0.3) -> list[dict[str, Any]]:
    """The probe's logged events (of one kind), read after a short settle for the X event queue."""
    deadline = time.monotonic() + settle_s
    time.sleep(max(0.0, deadline - time.monotonic()))
    out = env.run(["cat", "/root/events.jsonl"])
    items = [json.loads(line) for line in out["stdout"].splitlines() if line.strip()]
    return [e for e in items if kind is None or e["kind"] == kind]


def wait_for(predicate: Any, timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what() if callable(what) else what}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)
