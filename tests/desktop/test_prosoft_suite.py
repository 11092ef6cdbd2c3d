"""The ProSoft suite end to end in desktop containers on the real dockerd: ``--agent replay`` passes every
task and ``--agent noop`` none (a task a do-nothing agent passes is broken), with no error outcome; the levels
and applications select tasks with ``-m``. Each run is an inner pytest in a subprocess, two xdist workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.tasks import load_task_file

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "suites" / "prosoft"
OFFICE_IMAGE = "cua-desktop-office"
RUN_TIMEOUT_S = 1800


@pytest.fixture(scope="module")
def office_image(docker_client: Any) -> str:
    """The office image, built from its recipe when missing or outdated (about ten minutes the first time)."""
    from pytest_cua.desktop.images import build_image
    from pytest_cua.desktop.recipes import load_recipe

    build_image(load_recipe(OFFICE_IMAGE), client=docker_client, progress=lambda line: None)
    return OFFICE_IMAGE


def run_suite(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-n", "2", "-p", "no:cacheprovider",
           "--cua-reports", str(reports), *args]
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=RUN_TIMEOUT_S)
    summary_path = reports / "summary.json"
    assert summary_path.exists(), f"no summary.json:\n{(proc.stdout + proc.stderr)[-4000:]}"
    return proc, json.loads(summary_path.read_text())


def all_task_ids() -> list[str]:
    return sorted(t.id for p in (SUITE / "tasks").glob("*.json") for t in load_task_file(p, suite="prosoft"))


def test_replay_passes_every_task(office_image: str, tmp_path: Path) -> None:
    proc, summary = run_suite(tmp_path, "--agent", "replay")
    records = {r["id"]: r for r in summary["tasks"]}
    assert sorted(records) == all_task_ids()
    not_passed = {i: (r["outcome"], r["error"]) for i, r in records.items() if r["outcome"] != "passed"}
    assert not not_passed, f"replay must pass every task: {not_passed}\n{proc.stdout[-3000:]}"
    assert proc.returncode == 0
    levels = summary["groups"]["level"]
    assert {k.split("/")[1] for k in levels} >= {"L1", "L2", "L3"}


def test_noop_passes_no_task_and_reports_the_mean_score(office_image: str, tmp_path: Path) -> None:
    proc, summary = run_suite(tmp_path, "--agent", "noop")
    totals = summary["totals"]
    passed = [r["id"] for r in summary["tasks"] if r["outcome"] == "passed"]
    assert not passed, f"a do-nothing agent passed these tasks (broken tasks): {passed}"
    assert totals["error"] == 0, [(r["id"], r["error"]) for r in summary["tasks"] if r["outcome"] == "error"]
    assert totals["failed"] == len(all_task_ids()) and totals["mean_score"] is not None
    assert f"{totals['mean_score']:.3f}" in proc.stdout


@pytest.mark.parametrize("expression, count", [("L1", 9), ("L2", 9), ("L3", 4), ("app_calc", 9), ("app_r", 10),
                                               ("app_inkscape", 2), ("L3 and app_writer", 2)])
def test_levels_and_applications_select_tasks(expression: str, count: int) -> None:
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites/prosoft", "--collect-only", "-q", "-p",
                           "no:cacheprovider", "--strict-markers", "-m", expression],
                          cwd=REPO, text=True, capture_output=True, timeout=120)
    assert f"{count}/22 tests collected" in proc.stdout, proc.stdout[-2000:]
