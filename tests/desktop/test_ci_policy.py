"""Without a dockerd the desktop tests skip with the reason, except under CI, where they fail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["DOCKER_HOST"] = "unix:///nonexistent/docker.sock"
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rsf", "-q",
                           "tests/desktop/test_environment.py::test_ready_means_display_and_window_manager_answer"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_skips_without_dockerd() -> None:
    out = _run(None)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 skipped" in out.stdout and "no dockerd answers" in out.stdout


def test_fails_without_dockerd_under_ci() -> None:
    out = _run("true")
    assert out.returncode != 0
    assert "CI is set and no dockerd answers" in out.stdout
