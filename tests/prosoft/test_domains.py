"""ProSoft's domain markers (``suites/prosoft/domains.py``): every task of the suite is marked with its programs'
ProSoftArena domains (a pipeline across domains with each), ``-m domain_<name>`` selects them, and an app with no
domain is a collection error naming the task file and the app, never a task left without its marker.

The last test runs two quick tasks (R at L1, Calc at L2) with replay and two trials in desktop containers
(``cua-desktop-office``, built from its recipe when missing; skipped without a dockerd, failed under CI) and
makes the paper's tables from that run: the records carry the markers, Table 2's steps are the demonstrations'.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.results.tables import build_tables, demo_steps, load_run
from pytest_cua.results.tables_markdown import to_markdown

from suites.prosoft.domains import DOMAINS, PROGRAMS, apps_of, domain_markers
from suites.prosoft.templates import TEMPLATES
from suites.prosoft.test_prosoft import ProSoftSuite

ROOT = Path(__file__).resolve().parents[2]
PAPER = {"Illustrator", "Photoshop", "ImageJ", "ChemDraw", "RGui", "Excel", "VSCode", "NVivo", "ArcGIS", "ANSYS",
         "Multisim", "AutoCAD", "SolidWorks"}


def suite_at(folder: Path) -> ProSoftSuite:
    return ProSoftSuite("prosoft", environment="docker", tasks=("tasks/*.json",), templates=TEMPLATES,
                        base_dir=folder)


def test_every_paper_program_has_a_stand_in_and_every_domain_a_program() -> None:
    assert {p.paper for p in PROGRAMS.values()} - {""} == PAPER
    assert {p.domain for p in PROGRAMS.values()} == set(DOMAINS)
    assert PROGRAMS["calc"].domain == "business" and PROGRAMS["r"].domain == "social_sciences"
    assert PROGRAMS["librecad"].paper == "AutoCAD" and PROGRAMS["qgis"].domain == "natural_sciences"


def test_every_task_of_the_suite_carries_its_programs_domains() -> None:
    loaded = suite_at(ROOT / "suites" / "prosoft").load(None)
    assert not loaded.errors, [str(e) for _, e in loaded.errors]
    by_id = {t.id: t for t in loaded.tasks}
    suite = suite_at(ROOT / "suites" / "prosoft")
    for task in loaded.tasks:
        markers = list(suite.markers(task))
        assert markers, f"{task.id} has no domain marker"
        assert markers == [f"domain_{d}" for d in DOMAINS if d in {PROGRAMS[a].domain for a in apps_of(task)}]
    assert domain_markers(by_id["calc-set-cell"]) == ["domain_business"]
    assert domain_markers(by_id["pipe-gimp-writer-figure"]) == ["domain_business", "domain_design"]
    assert {m for t in loaded.tasks for m in domain_markers(t)} >= {"domain_business", "domain_design",
                                                                   "domain_engineering", "domain_natural_sciences",
                                                                   "domain_social_sciences"}


def test_an_app_without_a_domain_is_an_error_of_its_task_file(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    good = {"id": "ok", "instruction": "i", "apps": ["gimp"]}
    (tmp_path / "tasks" / "good.json").write_text(json.dumps([good]))
    (tmp_path / "tasks" / "bad.json").write_text(json.dumps([{"id": "odd", "instruction": "i",
                                                              "apps": ["calc", "matlab"]}]))
    (tmp_path / "tasks" / "none.json").write_text(json.dumps([{"id": "bare", "instruction": "i"}]))
    loaded = suite_at(tmp_path).load(None)
    assert [t.id for t in loaded.tasks] == ["ok"]
    messages = {label: str(error) for label, error in loaded.errors}
    assert messages["tasks/bad.json"].startswith("tasks/bad.json: task 'odd': field 'apps': app 'matlab' has no "
                                                 "domain: add a row for it to suites/prosoft/domains.py")
    assert "names no program" in messages["tasks/none.json"]


SUITE = '''
from suites.prosoft.templates import TEMPLATES
from suites.prosoft.test_prosoft import ProSoftSuite

CUA_SUITE = ProSoftSuite("prosoft", environment="docker", tasks=("tasks/*.json",), templates=TEMPLATES)


def test_task(cua_result):
    cua_result.check()
'''


def test_domain_markers_select_and_an_unknown_app_fails_collection(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(ROOT)
    pytester.makepyfile(test_pro=SUITE)
    (pytester.path / "tasks").mkdir()
    tasks = [{"id": "draw", "instruction": "i", "apps": ["inkscape"]},
             {"id": "chart", "instruction": "i", "apps": ["r", "calc"]}]
    (pytester.path / "tasks" / "a.json").write_text(json.dumps(tasks))

    def selected(expr: str) -> list[str]:
        result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "--strict-markers", "-m", expr)
        return sorted(ln.split("[")[1].rstrip("]") for ln in result.outlines if "::" in ln)

    assert selected("domain_design") == ["draw"]
    assert selected("domain_business and domain_social_sciences") == ["chart"]
    assert selected("domain_engineering") == []  # no task has it: nothing selected, no unknown-marker error
    pytester.makeconftest("def pytest_collection_finish(session):\n"
                          "    print('REGISTERED', sorted(l.split(':')[0] for l in session.config.getini('markers')))\n")
    out = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider", "-s").stdout.str()
    assert "'domain_engineering'" in out and "'app_librecad'" in out  # every domain and app, tasks or not
    (pytester.path / "tasks" / "b.json").write_text(json.dumps([{"id": "sim", "instruction": "i",
                                                                 "apps": ["spice9"]}]))
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert "tasks/b.json: task 'sim': field 'apps': app 'spice9' has no domain" in text
    assert result.ret == pytest.ExitCode.INTERRUPTED


RUN_TASKS = {"r-mean-amount": "L1", "calc-total-row": "L2"}


@pytest.mark.docker
def test_the_tables_of_a_real_replay_run_with_two_trials(tmp_path: Path, docker_client: Any) -> None:
    from pytest_cua.envs.docker.images import build_image
    from pytest_cua.envs.docker.recipes import load_recipe

    build_image(load_recipe("cua-desktop-office"), client=docker_client, progress=lambda line: None)
    reports = tmp_path / "run"
    cmd = [sys.executable, "-m", "pytest", "suites/prosoft", "-p", "no:cacheprovider", "--agent", "replay",
           "-k", " or ".join(RUN_TASKS), "--cua-trials", "2", "--cua-reports", str(reports),
           "--cua-docker-image", "cua-desktop-office", "--cua-docker-build", "never", "-q"]
    proc = subprocess.run(cmd, cwd=ROOT, text=True, capture_output=True, timeout=1800)
    assert (reports / "summary.json").exists(), (proc.stdout + proc.stderr)[-4000:]
    records, run = load_run(reports)
    assert sorted((r["id"], r["trial"], r["outcome"]) for r in records) == sorted(
        (t, n, "passed") for t in RUN_TASKS for n in (1, 2)), (proc.stdout + proc.stderr)[-4000:]
    assert {r["id"]: r["markers"] for r in records if r["trial"] == 1} == {
        "r-mean-amount": ["L1", "app_r", "domain_social_sciences", "easy", "template_r_output"],
        "calc-total-row": ["L2", "app_calc", "domain_business", "medium", "template_calc"]}
    tasks = {t["id"]: t for f in ("r.json", "calc.json")
             for t in json.loads((ROOT / "suites/prosoft/tasks" / f).read_text())["tasks"]}
    expected_steps = {tid: sum(a["type"] not in ("wait", "done") for a in tasks[tid]["demonstration"]["actions"])
                      for tid in RUN_TASKS}
    tables = build_tables(records, run, steps=demo_steps([ROOT / "suites/prosoft/tasks"]))
    for tid, level in RUN_TASKS.items():
        row = tables["task_table"][level]
        assert (row["tasks"], row["demo_steps"]) == (1, expected_steps[tid])
        walls = [r["times"]["wall_s"] for r in records if r["id"] == tid]
        assert row["replay_s"] == pytest.approx(sum(walls) / 2, abs=1e-3)  # the run is its own replay
        assert tables["results"][level]["trial_rates"] == [1.0, 1.0] and tables["results"][level]["se"] == 0.0
    assert sorted(tables["by_domain"]["rows"]) == ["business", "social_sciences"]
    assert sorted(tables["by_program"]["rows"]) == ["calc", "r"]
    text = to_markdown(tables)
    assert "| **all** | 2 | 4 | 4 | 0 | 0 | 0 | 100.0 ± 0.0 |" in text
