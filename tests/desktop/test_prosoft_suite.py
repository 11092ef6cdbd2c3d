"""The ProSoft suite end to end in desktop containers on the real dockerd: ``--agent replay`` passes its L1-L3
tasks and ``--agent noop`` none (a task a do-nothing agent passes is broken), with no error outcome; the levels
and applications select tasks with ``-m``. Each run is an inner pytest in a subprocess, two xdist workers.

The suite has over a hundred tasks on heavy programs (a full replay takes tens of minutes on two cores), so by
default the runs take a sample: for every application its first task of each level, and the first pipeline of
each pair of applications (:func:`sample_ids`). ``PYTEST_CUA_PROSOFT_TASKS=all`` runs every task instead;
``scripts/prosoft_figures.sh`` measures the full runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.tasks.task import load_task_file
from suites.prosoft.counts import ROWS
from suites.prosoft.domains import domain_markers
from suites.prosoft.test_prosoft import ProSoftSuite
from tests.tiers import full_or

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "suites" / "prosoft"
PRO_IMAGE = "cua-desktop-arena"
RUN_TIMEOUT_S = 3600


@pytest.fixture(scope="module")
def pro_image(docker_client: Any) -> str:
    """The suite's image, built from its recipe (and its bases) when missing or outdated."""
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe(PRO_IMAGE), client=docker_client, progress=lambda line: None)
    return PRO_IMAGE


def run_suite(tmp_path: Path, *args: str, paths: tuple[str, ...] = ("suites/prosoft",)
              ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    reports = tmp_path / "reports"
    cmd = [sys.executable, "-m", "pytest", *paths, "-n", "2", "-p", "no:cacheprovider",
           "--cua-reports", str(reports), *args]
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True, timeout=RUN_TIMEOUT_S)
    summary_path = reports / "summary.json"
    assert summary_path.exists(), f"no summary.json:\n{(proc.stdout + proc.stderr)[-4000:]}"
    return proc, json.loads(summary_path.read_text())


def all_tasks() -> list[Any]:
    return sorted((t for p in (SUITE / "tasks").glob("*.json")
                   for t in load_task_file(p, suite="prosoft", extension_fields=ProSoftSuite.task_fields)),
                  key=lambda t: t.id)


#: the apps of the suite's extras (counts.ROWS' "(extra)" rows), not sampled in CI
EXTRA_APPS = frozenset(a for row in ROWS if row.paper == "(extra)" for a in row.apps)


def sample_ids(levels: tuple[str, ...] = ("L1", "L2", "L3"), pipelines: int = 1) -> list[str]:
    """Every task of ``levels`` with ``PYTEST_CUA_PROSOFT_TASKS=all`` or in a full run (tests/tiers.py); else a sample that reaches every program
    of the paper and every level: for each program (the suite's extras aside), its first task (by level, then id: an L1 task where it has one) among the
    single-program tasks of ``levels``, then the first task of each level not reached yet, then the first
    ``pipelines`` pipelines (L3)."""
    tasks = [t for t in all_tasks() if t.level in levels]
    if full_or("PYTEST_CUA_PROSOFT_TASKS"):
        return [t.id for t in tasks]
    # the suite's extras (Writer, Impress: no program of the paper) are in the full run; Calc's task proves the
    # LibreOffice path, and their evaluators run on near misses in CI (tests/prosoft/test_near_misses.py)
    tasks = [t for t in tasks if not _apps(t) & EXTRA_APPS]
    chosen: dict[str, Any] = {}
    for t in sorted(tasks, key=lambda t: (t.level, t.id)):  # an L1 task where the program has one: the lightest
        apps = sorted(_apps(t))
        if len(apps) == 1 and not any(apps[0] in _apps(c) for c in chosen.values()):
            chosen[t.id] = t
    for level in levels:
        if not any(c.level == level for c in chosen.values()):
            first = next((t for t in tasks if t.level == level), None)
            if first is not None:
                chosen[first.id] = first
    for t in [t for t in tasks if t.level == "L3" and t.id not in chosen][:max(pipelines - sum(
            1 for c in chosen.values() if c.level == "L3"), 0)]:
        chosen[t.id] = t
    return sorted(chosen)


def test_the_sample_covers_every_application_and_level() -> None:
    """The sample is what CI proves: it must reach every program of the paper and every level of the suite."""
    tasks = {t.id: t for t in all_tasks()}
    chosen = [tasks[i] for i in sample_ids()]
    apps_all = {a for t in tasks.values() if t.level != "L4" for a in _apps(t)} - EXTRA_APPS
    assert {a for t in chosen for a in _apps(t)} == apps_all
    assert {t.level for t in chosen} == {t.level for t in tasks.values()} - {"L4"}


def run_ids(tmp_path: Path, ids: list[str], *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Exactly these tasks, by node id (``-k imagej-8bit`` would also select ``imagej-8bit-blur``)."""
    return run_suite(tmp_path, *args, paths=tuple(f"suites/prosoft/test_prosoft.py::test_task[{i}]" for i in ids))


@pytest.mark.slow
def test_replay_passes_the_l1_to_l3_tasks(pro_image: str, tmp_path: Path) -> None:
    ids = sample_ids()
    proc, summary = run_ids(tmp_path, ids, "--agent", "replay")
    records = {r["id"]: r for r in summary["tasks"]}
    assert sorted(records) == ids
    not_passed = {i: (r["outcome"], r["error"]) for i, r in records.items() if r["outcome"] != "passed"}
    assert not not_passed, f"replay must pass every L1-L3 task: {not_passed}\n{proc.stdout[-3000:]}"
    assert proc.returncode == 0
    levels = summary["groups"]["level"]
    assert {k.split("/")[1] for k in levels} >= {"L1", "L2", "L3"}


def test_noop_passes_no_task_and_reports_the_mean_score(pro_image: str, tmp_path: Path) -> None:
    # the sample's first task of each level (PYTEST_CUA_PROSOFT_TASKS=all: every L1-L3 task); L4 under noop:
    # tests/desktop/test_prosoft_l4.py
    ids = sample_ids()
    if not full_or("PYTEST_CUA_PROSOFT_TASKS"):
        level = {t.id: t.level for t in all_tasks()}
        firsts = {level[i]: i for i in reversed(ids)}
        ids = sorted(firsts.values())
    proc, summary = run_ids(tmp_path, ids, "--agent", "noop")
    totals = summary["totals"]
    passed = [r["id"] for r in summary["tasks"] if r["outcome"] == "passed"]
    assert not passed, f"a do-nothing agent passed these tasks (broken tasks): {passed}"
    assert totals["error"] == 0, [(r["id"], r["error"]) for r in summary["tasks"] if r["outcome"] == "error"]
    assert totals["tasks"] == len(ids) and totals["mean_score"] is not None
    assert f"{totals['mean_score']:.3f}" in proc.stdout


def _count(predicate: Any) -> int:
    return sum(1 for t in all_tasks() if predicate(t))


def _apps(t: Any) -> set[str]:
    return set(t.extra.get("apps") or [])


# one inner collection of the whole suite each (~15 s on a busy machine): a level, a program, a domain, a
# conjunction and a negation; every level, program and domain marker is checked against the task files by
# tests/prosoft/test_counts.py and test_domains.py
@pytest.mark.parametrize("expression, predicate", [
    ("L3", lambda t: t.level == "L3"), ("app_gimp", lambda t: "gimp" in _apps(t)),
    ("L4 and domain_engineering", lambda t: t.level == "L4" and "domain_engineering" in domain_markers(t)),
    ("L3 and app_writer", lambda t: t.level == "L3" and "writer" in _apps(t)),
    ("app_freecad and not L1", lambda t: "freecad" in _apps(t) and t.level != "L1")])
def test_levels_and_applications_select_tasks(expression: str, predicate: Any) -> None:
    """``-m`` on the level and application markers selects exactly the tasks whose files say so."""
    count, total = _count(predicate), len(all_tasks())
    assert count > 0, f"no task matches {expression!r}: the parametrization names a level or program the suite lacks"
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites/prosoft", "--collect-only", "-q", "-p",
                           "no:cacheprovider", "--strict-markers", "-m", expression],
                          cwd=REPO, text=True, capture_output=True, timeout=120)
    assert f"{count}/{total} tests collected" in proc.stdout, proc.stdout[-2000:]


def test_the_suite_has_the_size_the_issue_asks_for() -> None:
    """At least 100 tasks over at least 9 programs: L1 >= 45, L2 >= 35, L3 >= 12 (two programs each), L4 >= 8."""
    tasks = all_tasks()
    levels = {lv: _count(lambda t, lv=lv: t.level == lv) for lv in ("L1", "L2", "L3", "L4")}
    apps = {a for t in tasks for a in _apps(t)}
    assert len(tasks) >= 100 and len(apps) >= 9, (len(tasks), sorted(apps))
    assert levels["L1"] >= 45 and levels["L2"] >= 35 and levels["L3"] >= 12 and levels["L4"] >= 8, levels
    single = [t.id for t in tasks if t.level in ("L1", "L2") and len(_apps(t)) != 1]
    pipes = [t.id for t in tasks if t.level == "L3" and len(_apps(t)) < 2]
    assert not single and not pipes, f"L1/L2 tasks need one program, L3 two or more: {single} {pipes}"
