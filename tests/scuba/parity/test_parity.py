"""Parity with SCUBA: SCUBA's own evaluator, unchanged from its checkout, scores a release task on the embedded
org through the real Salesforce CLI, next to pytest-cua's template, on the same end states.

``pytest_cua.testing.scuba_parity.ScubaEvaluation`` runs SCUBA's ``MilestoneEvaluator`` in a worker (its data
retrieval shells out to ``sf data query ... --result-format csv``); the org carries SCUBA's seed records as the
suite installs them with ``--scuba-root``. Each selected task is scored by both on three end states: ``noop``
(the seed as it is, the answer empty), ``oracle`` (the template's solver's end state, the answer the truth) and
``partial`` (the oracle's with one ground-truth value changed, ``end_states.py``; for a question, the truth
and more words). Both scores and milestone tables go to ``reports/parity/<task id>.json``
(``$PYTEST_CUA_PARITY_REPORTS``), the counts and every disagreement to ``summary-<worker>.md`` there.

What must hold: our oracle scores 1; in every end state SCUBA's evaluation runs (no system failure) and both
give the same score (2 decimals) and the same completion, except where DEVIATIONS.md's parity table lists the
task and end state (``known.py`` reads it); a listed end state that agrees is a stale entry and fails too. A
disagreement names the task, the end state, how the partial state was made, and both milestone tables.

The release comes from ``$PYTEST_CUA_SCUBA_ROOT`` (default /work/shared/scuba/release; skipped when absent).
``PYTEST_CUA_PARITY_TASKS`` picks the tasks: ``templates`` (the default: the first release task of each of the
60 templates), ``all`` (the 300, 900 end states), or a comma list of task ids and template names (each
template name: its first release task).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.tasks.scoring import ScoreCard, record_answer
from pytest_cua.tasks.task import Task
from pytest_cua.testing.scuba_parity import ScubaEvaluation, ScubaResult
from pytest_cua.testing.sfcli import INSTALL_HINT, find_sf
from suites.scuba import release

from ..org_harness import TEMPLATES, evaluate
from .end_states import partial_end_state, qa_partial_answer
from .known import KNOWN, STATES, summary_markdown

ROOT = Path(os.environ.get("PYTEST_CUA_SCUBA_ROOT") or "/work/shared/scuba/release")
REPORTS = Path(os.environ.get("PYTEST_CUA_PARITY_REPORTS") or Path(__file__).resolve().parents[3] / "reports" / "parity")
DEFAULT_SAMPLE = "templates"


def _records() -> list[dict[str, Any]]:
    path = ROOT / release.ZERO_SHOT_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


RECORDS = {r["task_id"]: r for r in _records()}


def _selected() -> list[str]:
    wanted = os.environ.get("PYTEST_CUA_PARITY_TASKS") or DEFAULT_SAMPLE
    if wanted.strip() == "all":
        return list(RECORDS)
    if wanted.strip() == "templates":
        wanted = ",".join(dict.fromkeys(r["query_template_name"] for r in RECORDS.values()))
    out: list[str] = []
    for name in (w.strip() for w in wanted.split(",") if w.strip()):
        if name in RECORDS:
            out.append(name)
        else:
            out += [tid for tid, r in RECORDS.items() if r["query_template_name"] == name][:1]
    return out


pytestmark = pytest.mark.skipif(not RECORDS, reason=f"no SCUBA release at {ROOT} ($PYTEST_CUA_SCUBA_ROOT)")


@pytest.fixture(scope="module")
def release_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SalesforceEnvironment, dict[str, Task]]]:
    """An embedded org prepared as ``--scuba-root`` prepares it (the metadata prerequisites deployed over the
    Metadata API, then the seed), and the release's tasks."""
    server = OrgServer(tmp_path_factory.mktemp("parity-org"), extensions=[])
    tasks = release.load_release(ROOT / release.ZERO_SHOT_FILE, demos=False)
    env = SalesforceEnvironment(server, None)
    report = release.SeedReport()
    release.install_metadata(env.org, ROOT / release.METADATA_DIR, report, tasks)
    release.install_seed(server.org, ROOT / release.SEED_DIR, report)
    release.install_org_defaults(server.org, report)
    release.install_custom_objects(server.org, tasks, report)
    yield env, {t.id: t for t in tasks}
    env.close()


@pytest.fixture(scope="module")
def scuba(release_env: tuple[SalesforceEnvironment, dict[str, Task]],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScubaEvaluation]:
    if find_sf() is None:
        pytest.fail(f"the Salesforce CLI is missing: {INSTALL_HINT}")
    env, _ = release_env
    creds = env.credentials
    with ScubaEvaluation(ROOT, creds, workdir=tmp_path_factory.mktemp("scuba-eval")) as evaluation:
        yield evaluation


def _ours(card: Any) -> dict[str, Any]:
    return {"score": round(card.score, 2), "complete": card.score == 1, "milestones": [
        {"milestone": r.name, "is_success": r.passed, "weight": r.weight} for r in card.results]}


def _theirs(result: ScubaResult) -> dict[str, Any]:
    return {"score": result.score, "complete": result.score == 1, "milestones": result.milestones,
            "failures": result.failures, "seconds": round(result.seconds, 1)}


def _answer(task: Task, state: str) -> str | None:
    """What the agent answered: nothing (noop), the truth (oracle), the truth and more (partial)."""
    if not task.is_question:
        return None
    return {"noop": "", "oracle": str(task.ground_truth.get("answer", ""))}.get(state) or qa_partial_answer(task)


def _others(task: Task) -> dict[str, list[Any]]:
    """For each ground-truth key of ``task``, the values the other release tasks of its template give it."""
    out: dict[str, list[Any]] = {}
    for tid, r in RECORDS.items():
        if tid != task.id and r["query_template_name"] == task.template:
            for key, value in (r.get("ground_truth_dict") or {}).items():
                if value not in out.setdefault(key, []):
                    out[key].append(value)
    return out


def _our_card(env: SalesforceEnvironment, task: Task, answer: str | None) -> ScoreCard:
    """Our score card: the template's evaluator, or for a question without a template module the plugin's
    answer rule (``record_answer``, as ``pytest_cua.fixtures`` scores it)."""
    if task.template in TEMPLATES:
        return evaluate(env, task, answer=answer)
    card = ScoreCard(task.id, task.template)
    record_answer(card, answer, str(task.ground_truth["answer"]))
    return card


SUMMARY: list[dict[str, Any]] = []


@pytest.fixture(scope="module", autouse=True)
def parity_summary() -> Iterator[None]:
    """After the module: ``summary-<worker>.md`` in the reports folder, the counts and every disagreement."""
    yield
    if SUMMARY:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        REPORTS.mkdir(parents=True, exist_ok=True)
        (REPORTS / f"summary-{worker}.md").write_text(summary_markdown(SUMMARY), encoding="utf-8")


@pytest.mark.parametrize("task_id", _selected())
def test_scuba_scores_the_end_state_as_we_do(task_id: str, release_env: tuple[SalesforceEnvironment, dict[str, Task]],
                                             scuba: ScubaEvaluation) -> None:
    env, tasks = release_env
    task = tasks[task_id]
    template = TEMPLATES.get(task.template or "")
    if template is None and not task.is_question:
        pytest.fail(f"{task_id}: no template {task.template!r} and not a question")
    record = RECORDS[task_id]
    snap = env.snapshot()
    rows: dict[str, Any] = {}
    try:
        for state in STATES:
            how = None
            if state == "oracle" and template is not None:
                template.solve(task, env)
            elif state == "partial":
                how = partial_end_state(template, task, env, lambda t: evaluate(env, t).score, _others(task))
                if how is None:
                    rows[state] = {"skipped": "no changed ground truth could be solved"}
                    continue
            answer = _answer(task, state)
            ours = _our_card(env, task, answer)
            theirs = scuba.evaluate(record, answer)
            row = {"ours": _ours(ours), "scuba": _theirs(theirs)}
            row["agree"] = (row["ours"]["score"] == row["scuba"]["score"]
                            and row["ours"]["complete"] == row["scuba"]["complete"])
            if how is not None:
                row["made"] = how.describe() if answer is None else f"answer {answer!r}"
                row["partial"] = 0 < ours.score < 1
            row["tables"] = f"ours:\n{ours.table()}\n{theirs.table()}"
            rows[state] = row
            env.restore(snap)
    finally:
        env.restore(snap)
        REPORTS.mkdir(parents=True, exist_ok=True)
        (REPORTS / f"{task_id}.json").write_text(json.dumps({"task_id": task_id, "template": task.template, **rows},
                                                            indent=1, default=str), encoding="utf-8")
        SUMMARY.append({"task_id": task_id, "template": task.template, **rows})
    problems = []
    for state, row in rows.items():
        if "skipped" in row:
            continue
        if row["scuba"]["failures"] is not None or not row["scuba"]["milestones"]:
            known = KNOWN.get((task_id, state))
            if known is None or not known.scuba_fails:
                problems.append(f"{task_id} [{state}]: SCUBA's evaluation failed: {row['scuba']['failures']}")
            continue
        known = KNOWN.get((task_id, state))
        if row["agree"] and known is not None:
            problems.append(f"{task_id} [{state}]: listed in DEVIATIONS.md ({known.section}) but both score "
                            f"{row['ours']['score']:.2f}: the entry is stale")
        elif not row["agree"] and known is None:
            problems.append(f"{task_id} [{state}]: ours {row['ours']['score']:.2f} vs SCUBA {row['scuba']['score']:.2f}"
                            f"{' (' + row['made'] + ')' if 'made' in row else ''}\n{row['tables']}")
    assert rows["oracle"]["ours"]["score"] == 1, rows["oracle"]["tables"]
    assert rows["noop"]["ours"]["score"] < 1, rows["noop"]["tables"]
    assert not problems, "\n\n".join(problems)


# --- near misses: a metadata name typed in another letter case ----------------------------------------------

#: templates that read a metadata component by the name the task gives, and that key: the near-miss end state
#: is the oracle's with that name typed in another letter case (Salesforce finds a component by any case of
#: its name; SCUBA's evaluator opens the retrieved file under the name it expects)
CASE_KEYS = {
    "create_list_view": "list_name", "create_list_view_share": "list_view_name", "create_app": "app_name",
    "create_matching_rule": "rule_name", "custom_obj_with_tab": "custom_obj_name",
    "update_custom_object_description_and_help_text": "field_name", "create_custom_object_with_lookup": "object_name",
    "create_permission_set_medium": "label_name", "create_permset_group_access_set": "label_name",
    "create_permset_group_assign_user": "group_name", "create_global_value_set": "value_set_name",
    "create_approval_process_jump_start": "approval_process_name", "create_queue_with_members": "queue_name",
    "create_entitlement_process": "process_name", "create_sales_process": "sales_process_name",
    "add_formula_field_with_visibility": "field_name",
}
CASE_SAMPLE = "create_permission_set_medium,create_matching_rule"  # the default: the two SCUBA disagreed on


def other_case(value: str) -> str:
    """The name in another letter case: lower case, or (already lower) capitalised words."""
    return value.lower() if value.lower() != value else "_".join(w[:1].upper() + w[1:] for w in value.split("_"))


def _case_selected() -> list[str]:
    wanted = os.environ.get("PYTEST_CUA_PARITY_CASE") or CASE_SAMPLE
    names = list(CASE_KEYS) if wanted.strip() == "all" else [w.strip() for w in wanted.split(",") if w.strip()]
    firsts = {}
    for tid, r in RECORDS.items():
        firsts.setdefault(r["query_template_name"], tid)
    return [firsts[n] for n in names if n in firsts]


@pytest.mark.parametrize("task_id", _case_selected())
def test_a_name_in_another_letter_case_is_scored_as_scuba_does(
        task_id: str, release_env: tuple[SalesforceEnvironment, dict[str, Task]], scuba: ScubaEvaluation) -> None:
    """The oracle's end state with the component's name typed in another letter case (the org stores it as
    typed): SCUBA's evaluator and ours give the same score, unless DEVIATIONS.md's parity table lists the task
    with end state ``case``."""
    import dataclasses

    env, tasks = release_env
    task = tasks[task_id]
    template = TEMPLATES[task.template or ""]
    key = CASE_KEYS[task.template or ""]
    typed = other_case(str(task.ground_truth[key]))
    snap = env.snapshot()
    try:
        template.solve(dataclasses.replace(task, ground_truth={**task.ground_truth, key: typed}), env)
        ours = _our_card(env, task, None)
        theirs = scuba.evaluate(RECORDS[task_id], None)
    finally:
        env.restore(snap)
    row = {"ours": _ours(ours), "scuba": _theirs(theirs), "made": f"{key}: {task.ground_truth[key]!r} -> {typed!r}",
           "tables": f"ours:\n{ours.table()}\n{theirs.table()}"}
    row["agree"] = row["ours"]["score"] == row["scuba"]["score"]
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / f"{task_id}-case.json").write_text(json.dumps({"task_id": task_id, "case": row}, indent=1,
                                                             default=str), encoding="utf-8")
    known = KNOWN.get((task_id, "case"))
    if theirs.failures is not None:
        assert known is not None and known.scuba_fails, f"{task_id} [case]: SCUBA's evaluation failed: " \
                                                         f"{theirs.failures}\n{row['tables']}"
        return
    if known is not None:
        assert not row["agree"], f"{task_id} [case]: listed in DEVIATIONS.md ({known.section}) but both score " \
                                 f"{row['ours']['score']:.2f}: the entry is stale"
        return
    assert row["agree"], (f"{task_id} [case] ({row['made']}): ours {row['ours']['score']:.2f} vs SCUBA "
                          f"{row['scuba']['score']:.2f}\n{row['tables']}")
