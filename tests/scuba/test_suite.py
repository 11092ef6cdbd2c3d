"""The SCUBA suite end to end on the embedded org, in real Chromium.

- ``--agent noop`` passes no task (a task a do-nothing agent passes is broken) and the mean milestone score is
  reported; ``--agent oracle`` passes every own task. In CI each run takes a sample (``own_sample``: the noop run
  the first task of each template, the oracle run those and the tasks SCUBA's exact rules score below 1); ``PYTEST_CUA_SCUBA_OWN=all`` runs every own task;
- a handful of tasks across personas pass with ``--agent replay``;
- a task that changes an object outside its template's declared scope is a rollback error (own task and
  release task, whose scope falls back to the record's ``objects``);
- an evaluator that raises is an error outcome naming the template, never a failure.

These tests run whatever tasks the suite has (``suites/scuba/tasks``); each run is one inner pytest in a
subprocess.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

_spec = importlib.util.spec_from_file_location("scuba_suite_copy", Path(__file__).parent / "fixtures" / "suite_copy.py")
assert _spec is not None and _spec.loader is not None
suite_copy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite_copy)

from tests.tiers import full_or  # noqa: E402 - after the repository is on sys.path

pytestmark = pytest.mark.browser

REPLAY_PER_PERSONA = 2 if full_or("PYTEST_CUA_SCUBA_OWN") else 1  # tasks per persona in the replay sample
RUN_TIMEOUT_S = 3600


class Run:
    """An inner pytest run: its exit code, output and summary.json."""

    def __init__(self, args: list[str], cwd: Path, reports: Path) -> None:
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cua-reports", str(reports), *args]
        self.proc = subprocess.run(cmd, cwd=cwd, text=True, capture_output=True, timeout=RUN_TIMEOUT_S)
        self.output = self.proc.stdout + self.proc.stderr
        path = reports / "summary.json"
        assert path.exists(), f"the inner run wrote no summary.json:\n{self.output[-6000:]}"
        self.summary: dict[str, Any] = suite_copy.read_summary(reports)
        self.tasks: dict[str, Mapping[str, Any]] = suite_copy.by_id(self.summary)

    def outcome(self, wanted: str) -> list[str]:
        return sorted(i for i, t in self.tasks.items() if t["outcome"] == wanted)

    def explain(self, ids: list[str]) -> str:
        return "\n".join(f"{i}: {self.tasks[i]['outcome']} {self.tasks[i].get('error_kind') or ''} "
                         f"score={self.tasks[i]['score']} {str(self.tasks[i].get('error') or '')[:300]}" for i in ids)


def own_tasks() -> list[Any]:
    """The suite's own tasks, loaded the way the plugin loads them."""
    from suites.scuba.test_scuba import CUA_SUITE

    CUA_SUITE.bind(REPO / "suites" / "scuba" / "test_scuba.py")
    loaded = CUA_SUITE.load(None)
    assert not loaded.errors, f"task files that do not load: {loaded.errors}"
    return loaded.tasks


def runnable(tasks: list[Any]) -> list[Any]:
    """Tasks whose template has an evaluator (the others are skipped by design)."""
    from suites.scuba.test_scuba import CUA_SUITE

    return [t for t in tasks if CUA_SUITE.template_for(t) is not None]


# --- the suite's own tasks --------------------------------------------------------------------------------

def own_sample(per_template: int, also: frozenset[str] = frozenset(), half: int | None = None) -> list[Any]:
    """The own tasks an inner run takes in CI: the first ``per_template`` of each template (by id; with ``half``,
    of every other template by name from that one, 0 or 1) and the tasks named in ``also``;
    ``PYTEST_CUA_SCUBA_OWN=all`` or a full run (tests/tiers.py) takes every own task (the noop and oracle runs
    then take about 2 minutes more each on two cores)."""
    tasks = sorted(runnable(own_tasks()), key=lambda t: t.id)
    if full_or("PYTEST_CUA_SCUBA_OWN"):
        return tasks
    templates = sorted({task.template or task.id for task in tasks})
    wanted = set(templates if half is None else templates[half::2])
    taken: dict[str, int] = {}
    chosen = []
    for task in tasks:
        key = task.template or task.id
        if (key in wanted and taken.get(key, 0) < per_template) or task.id in also:
            chosen.append(task)
            taken[key] = taken.get(key, 0) + 1
    return chosen


def noop_sample() -> list[Any]:
    """The noop run's tasks: the first of every other template (a template's evaluator is what could accept the
    seeded org); the oracle run takes the other templates, so that CI runs each template's evaluator on one end
    state or the other, and a full run on both."""
    return own_sample(1, half=0)


def oracle_sample() -> list[Any]:
    """The oracle run's tasks: the first of the templates the noop run leaves out and every task whose exact score
    is below 1 (the template's other tasks differ in values only; ``PYTEST_CUA_SCUBA_OWN=all`` runs every one)."""
    return own_sample(1, frozenset(EXACT_BELOW_ONE), half=1)


def _run_of(sample: list[Any], agent: str, reports: Path) -> Run:
    if not sample:
        pytest.skip("the suite has no task with an evaluator yet")
    nodes = [f"suites/scuba/test_scuba.py::test_task[{t.id}]" for t in sample]
    # one process: a second worker's org, browser and login cost more than the tasks it would take (xdist's own
    # paths are tested in tests/core/ and by the model and API-org runs)
    return Run([*nodes, "--agent", agent], REPO, reports)


@pytest.fixture(scope="module")
def noop_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run_of(noop_sample(), "noop", tmp_path_factory.mktemp("noop"))


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run_of(oracle_sample(), "oracle", tmp_path_factory.mktemp("oracle"))


@pytest.mark.slow
def test_noop_passes_no_task(noop_run: Run) -> None:
    passed = noop_run.outcome("passed")
    assert not passed, ("tasks a do-nothing agent passes are broken (their evaluator accepts the seeded org):\n"
                        + noop_run.explain(passed))
    assert sorted(noop_run.tasks) == sorted(t.id for t in noop_sample())


def test_noop_run_has_no_errors(noop_run: Run) -> None:
    errors = noop_run.outcome("error")
    assert not errors, "infrastructure errors under noop:\n" + noop_run.explain(errors)


def test_noop_run_reports_the_mean_milestone_score(noop_run: Run) -> None:
    totals = noop_run.summary["totals"]
    assert totals["mean_score"] is not None and 0.0 <= totals["mean_score"] < 1.0
    assert totals["passed"] == 0 and totals["failed"] == len(noop_sample())
    assert "score" in noop_run.output and f"{totals['mean_score']:.3f}" in noop_run.output


@pytest.mark.slow
def test_oracle_passes_every_own_task(oracle_run: Run) -> None:
    expected = sorted(t.id for t in oracle_sample())
    not_passed = [i for i in expected if oracle_run.tasks.get(i, {}).get("outcome") != "passed"]
    assert not not_passed, "own tasks the oracle does not pass:\n" + oracle_run.explain(
        [i for i in not_passed if i in oracle_run.tasks])
    assert oracle_run.summary["totals"]["success_rate"] == 1.0


#: own tasks whose oracle end state SCUBA's rules, applied exactly (``score_scuba``), score below 1: each is named
#: in DEVIATIONS.md, with the reason SCUBA's check cannot hold there
EXACT_BELOW_ONE = {f"assign_permset_group_to_user_{n}" for n in range(1, 6)} | {
    "create_list_view_5", "create_queue_with_members_5", "escalate_case_change_owner_4", "escalate_case_change_owner_5",
    "update_opportunity_stage_and_activity_1"}


def test_the_oracle_run_carries_scubas_exact_score_beside_ours(oracle_run: Run) -> None:
    """Every record has ``score_scuba`` (SCUBA's rules exactly) beside ``score`` (ours, corrected); they differ
    on the own tasks DEVIATIONS.md lists, and the terminal says so under the table."""
    assert all("score_scuba" in t and t["scoring"] == "corrected" for t in oracle_run.tasks.values())
    differ = {i for i, t in oracle_run.tasks.items() if t["score_scuba"] != t["score"]}
    assert differ == EXACT_BELOW_ONE
    deviations = (REPO / "suites" / "scuba" / "DEVIATIONS.md").read_text(encoding="utf-8")
    assert [i for i in sorted(differ) if i not in deviations] == [], "DEVIATIONS.md names every such task"
    assert f"score_scuba (the table: corrected): mean {oracle_run.summary['totals']['scorings']['scuba']['mean_score']:.3f}" \
        in oracle_run.output


def replay_sample() -> list[Any]:
    """Up to REPLAY_PER_PERSONA tasks per persona that have a demonstration (sorted by id: stable)."""
    from suites.scuba.test_scuba import CUA_SUITE

    chosen: dict[str, list[Any]] = {}
    for task in runnable(own_tasks()):
        template = CUA_SUITE.template_for(task)
        if not (template is not None and template.has("demonstrate")) and task.demonstration_actions is None:
            continue
        bucket = chosen.setdefault(task.persona or "-", [])
        if len(bucket) < REPLAY_PER_PERSONA:
            bucket.append(task)
    return [t for persona in sorted(chosen) for t in chosen[persona]]


def test_replay_passes_a_sample_across_personas(tmp_path: Path) -> None:
    sample = replay_sample()
    if not sample:
        pytest.skip("no own task has a demonstration yet")
    nodes = [f"suites/scuba/test_scuba.py::test_task[{t.id}]" for t in sample]
    run = Run([*nodes, "--agent", "replay"], REPO, tmp_path / "reports")
    ids = sorted(t.id for t in sample)
    assert sorted(run.tasks) == ids
    not_passed = [i for i in ids if run.tasks[i]["outcome"] != "passed"]
    assert not not_passed, "sampled tasks the replay agent does not pass:\n" + run.explain(not_passed)


# --- rollback scope and evaluator crashes (a copy of the suite with probe templates) ----------------------

PROBE_TASKS = [
    {"id": "zz_probe_scope_own", "instruction": "Create the account Probe Scope Ltd.", "persona": "sales",
     "difficulty": "easy", "template": "probe_scope", "ground_truth": {"account_name": "Probe Scope Ltd"}},
    {"id": "zz_probe_in_scope_own", "instruction": "Create the account Probe Clean Ltd.", "persona": "sales",
     "difficulty": "easy", "template": "probe_in_scope", "ground_truth": {"account_name": "Probe Clean Ltd"}},
    {"id": "zz_probe_crash_in", "instruction": "Do nothing.", "persona": "admin", "difficulty": "easy",
     "template": "probe_crash", "ground_truth": {}},
    {"id": "zz_probe_crash_out", "instruction": "Do nothing.", "persona": "admin", "difficulty": "easy",
     "template": "probe_crash_outside", "ground_truth": {}},
]


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("probes")
    suite_copy.copy_suite(base, tasks={"zz_probes.json": PROBE_TASKS})
    selected = "template_probe_scope or template_probe_scope_release or template_probe_in_scope or " \
               "template_probe_crash or template_probe_crash_outside"
    return Run(["suites/scuba", "--scuba-root", str(suite_copy.RELEASE_FIXTURE), "-m", selected,
                "--agent", "oracle"], base, base / "reports")


def test_probe_run_collects_what_it_should(probe_run: Run) -> None:
    assert sorted(probe_run.tasks) == sorted([t["id"] for t in PROBE_TASKS] + ["service_902_001"]), probe_run.output


def test_a_change_outside_the_declared_scope_is_a_rollback_error(probe_run: Run) -> None:
    task = probe_run.tasks["zz_probe_scope_own"]
    assert task["outcome"] == "error" and task["error_kind"] == "rollback", task
    assert "Contact" in task["error"] and "Touched outside the scope" in task["error"]
    assert "Probe Scope Ltd" not in task["error"]  # the declared object was restored


def test_a_release_task_falls_back_to_its_records_objects(probe_run: Run) -> None:
    task = probe_run.tasks["service_902_001"]
    assert task["outcome"] == "error" and task["error_kind"] == "rollback", task
    assert "Contact" in task["error"] and "Marrowgate Studio" not in task["error"]


def test_changes_inside_the_scope_roll_back_cleanly(probe_run: Run) -> None:
    task = probe_run.tasks["zz_probe_in_scope_own"]
    assert task["outcome"] == "passed", task
    assert task["times"]["reset_s"] is not None


def test_an_evaluator_crash_is_an_error_naming_the_template(probe_run: Run) -> None:
    task = probe_run.tasks["zz_probe_crash_in"]
    assert task["outcome"] == "error" and task["error_kind"] == "evaluator", task
    assert "template 'probe_crash'" in task["error"] and "KeyError" in task["error"]
    assert probe_run.summary["totals"]["failed"] == 0  # never counted as the agent's failure


def test_an_evaluator_crash_before_any_milestone_names_the_template(probe_run: Run) -> None:
    task = probe_run.tasks["zz_probe_crash_out"]
    assert task["outcome"] == "error", task
    assert task["error_kind"] == "evaluator" and "template 'probe_crash_outside'" in task["error"], task


def test_scuba_scoring_exact_decides_by_scubas_rules(tmp_path: Path) -> None:
    """``--scuba-scoring exact``: SCUBA's rules decide the outcome, the summary and the gate; the corrected score
    stays in the record (``score_corrected``). A word other than exact or corrected is a usage error."""
    run = Run(["suites/scuba", "--agent", "oracle", "-k", "create_list_view_5 or create_list_view_1",
               "--scuba-scoring", "exact"], REPO, tmp_path / "exact")
    five, one = run.tasks["create_list_view_5"], run.tasks["create_list_view_1"]
    assert (five["outcome"], five["score"], five["scoring"], five["score_corrected"]) == ("failed", 0.5, "scuba", 1.0)
    assert (one["outcome"], one["score"], one["scoring"]) == ("passed", 1.0, "scuba")
    assert "task create_list_view_5 scored 0.50 by scoring 'scuba'" in run.output
    bad = subprocess.run([sys.executable, "-m", "pytest", "suites/scuba", "--scuba-scoring", "strict",
                          "--collect-only", "-q"], cwd=REPO, text=True, capture_output=True, timeout=300)
    assert bad.returncode == 4 and "argument --scuba-scoring: 'strict' is not one of corrected, exact" in bad.stderr
