"""The ProSoft L4 (open creation) tasks end to end in desktop containers, with a fake judge model on loopback.

Each run is an inner pytest of ``suites/prosoft`` in a subprocess. The L4 tasks use LibreOffice, Inkscape and R
only, so they run on ``cua-desktop-office`` (built from its recipe when missing; the suite's own image is the
larger ``cua-desktop-pro``). The judge is a ``FakeModelServer`` in this process speaking the OpenAI chat
completions protocol; it answers every rubric item with the verdict the test chose and records what it was
sent (the rendering of the saved file, made in the container before the rollback).

- ``--agent replay --cua-judge M``: passes when the judge says pass; fails when it says fail, with the judge's
  reason in the milestone table of the report;
- ``--agent replay`` without ``--cua-judge``: partially scored (outcome ``partial``, shown as PARTIAL), never
  passed;
- ``--agent noop`` on every L4 task: each fails its constraints (no rubric needed to see it).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image

from pytest_cua.tasks.task import load_task_file
from pytest_cua.testing.fake_models import FakeModelServer, JudgePolicy
from suites.prosoft.test_prosoft import ProSoftSuite
from tests.tiers import full

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
IMAGE = "cua-desktop-office"
TASK = "writer-l4-letterhead"
JUDGE = "openai-compatible:fake-judge"
KEY = "sk-fake-judge-0123456789abcdef"
RUN_TIMEOUT_S = 1800
JUDGE_PLUGIN = ("-p", "pytest_cua.episode.judge")  # the options' module: harmless once pytest_cua.plugin registers them


@pytest.fixture(scope="module")
def office_image(docker_client: Any) -> str:
    """The image the L4 tasks need, built from its recipe only when missing or outdated."""
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe(IMAGE), client=docker_client, progress=lambda line: None)
    return IMAGE


def l4_ids() -> list[str]:
    tasks = load_task_file(REPO / "suites" / "prosoft" / "tasks" / "l4.json", suite="prosoft",
                           extension_fields=ProSoftSuite.task_fields)
    return sorted(t.id for t in tasks)


def run(tmp_path: Path, image: str, *args: str, select: list[str]) -> tuple[subprocess.CompletedProcess[str],
                                                                           dict[str, dict[str, Any]]]:
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", *JUDGE_PLUGIN,
           "--cua-reports", str(reports), "--cua-docker-image", image, "--cua-docker-build", "never",
           "-k", " or ".join(select), "-v", *args]
    env = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}, "OPENAI_COMPATIBLE_API_KEY": KEY}
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=RUN_TIMEOUT_S, env=env)
    path = reports / "summary.json"
    assert path.exists(), f"no summary.json:\n{(proc.stdout + proc.stderr)[-4000:]}"
    records = {r["id"]: r for r in json.loads(path.read_text())["tasks"]}
    assert set(records) == set(select), f"ran {sorted(records)}, expected {select}"
    return proc, records


@pytest.fixture
def judge_server() -> Iterator[tuple[FakeModelServer, JudgePolicy]]:
    policy = JudgePolicy(True, reason="seen on the rendered page")
    with FakeModelServer(policy, api_key=KEY) as server:
        yield server, policy


def explain(proc: subprocess.CompletedProcess[str], record: dict[str, Any]) -> str:
    rows = "\n".join(f"{m['name']}: {m['passed']} {m.get('detail')}" for m in record["milestones"])
    return f"{record['outcome']} {record.get('error')}\n{rows}\n{(proc.stdout + proc.stderr)[-3000:]}"


@pytest.mark.parametrize("verdict", [True, False], ids=["judge-pass", "judge-fail"])
def test_replay_with_judge(office_image: str, tmp_path: Path, verdict: bool,
                           judge_server: tuple[FakeModelServer, JudgePolicy]) -> None:
    server, policy = judge_server
    policy.verdict = verdict
    proc, records = run(tmp_path, office_image, "--agent", "replay", "--cua-judge", JUDGE, "--cua-judge-url",
                        server.openai_base_url, select=[TASK])
    record = records[TASK]
    assert record["outcome"] == ("passed" if verdict else "failed"), explain(proc, record)
    rubric = [m for m in record["milestones"] if m["name"].startswith("rubric: ")]
    constraints = [m for m in record["milestones"] if not m["name"].startswith("rubric: ")]
    assert len(rubric) == 3 and all(m["passed"] for m in constraints), explain(proc, record)
    word = "met" if verdict else "not met"
    assert [m["detail"] for m in rubric] == [f"judge {JUDGE}: seen on the rendered page: item {i} {word}"
                                             for i in (1, 2, 3)]
    assert record["judge"]["model"] == JUDGE and record["judge"]["usage"]["requests"] == 1
    # one call for the task, with the rendering of the saved A4 letterhead (portrait), not a screenshot
    assert len(server.requests) == 1 and not server.violations, server.violations
    with Image.open(io.BytesIO(server.requests[0].last_image or b"")) as page:
        assert page.height > page.width, f"the judge was sent a {page.size} image, not the A4 page"
    assert "Harbor Light Studio" in server.requests[0].text  # the task's instruction
    if verdict:
        assert proc.returncode == 0, proc.stdout[-3000:]
    else:
        assert proc.returncode != 0
        assert "seen on the rendered page: item 1 not met" in proc.stdout  # the reason in the report's table


def test_replay_without_judge_is_partially_scored(office_image: str, tmp_path: Path) -> None:
    proc, records = run(tmp_path, office_image, "--agent", "replay", select=[TASK])
    record = records[TASK]
    assert record["outcome"] == "partial" and not record["success"], explain(proc, record)
    assert f"test_task[{TASK}] PARTIAL" in proc.stdout and "1 partial" in proc.stdout
    assert proc.returncode != 0, "a partially scored task is not a pass"
    assert record["unscored"]["why"] == ["skipped: no --cua-judge given"] and len(record["unscored"]["milestones"]) == 3
    assert 0 < record["score"] < 1
    assert "partially scored (not a pass): 1 task(s)" in proc.stdout


@pytest.mark.slow
def test_noop_fails_every_l4_task_on_its_constraints(office_image: str, tmp_path: Path) -> None:
    ids = l4_ids()
    assert len(ids) >= 8
    if not full():  # CI: every 4th L4 task (a full run, tests/tiers.py: every one)
        ids = ids[::4]
    proc, records = run(tmp_path, office_image, "--agent", "noop", select=ids)  # one container: five tasks
    for tid, record in sorted(records.items()):
        assert record["outcome"] == "failed", f"{tid}: {explain(proc, record)}"
        missed = [m for m in record["milestones"] if not m["passed"] and not m.get("skipped")]
        assert missed, f"{tid}: noop missed no constraint"
