"""An inner-pytest plugin for tests/desktop/test_remote_docker.py: before the episode of the task named by
``PYTEST_CUA_TEST_RESTART_TASK`` it kills the second dockerd (SIGKILL, a crash) and starts it again, so that
task's desktop container is gone while the task is in progress."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "remote_dockerd.sh"


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: pytest.FixtureRequest) -> Any:
    target = os.environ.get("PYTEST_CUA_TEST_RESTART_TASK")
    if fixturedef.argname == "cua_episode" and target and f"[{target}]" in request.node.nodeid:
        for action in ("kill", "start"):
            subprocess.run(["sh", str(SCRIPT), action], check=True, timeout=120)
    yield
