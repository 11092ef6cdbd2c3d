"""Parity with SCUBA: SCUBA's own evaluator, unchanged from its checkout, scores a release task on the embedded
org through the real Salesforce CLI, next to pytest-cua's template, on the same end states.

``pytest_cua.testing.scuba_parity.ScubaEvaluation`` runs SCUBA's ``MilestoneEvaluator`` in a worker (its data
retrieval shells out to ``sf data query ... --result-format csv``); the org carries SCUBA's seed records as the
suite installs them with ``--scuba-root``. Each selected task is scored by both on three end states: ``noop``
(the seed as it is, the answer empty), ``oracle`` (the template's solver's end state, the answer the truth) and
``partial`` (the oracle's with one ground-truth value changed, ``end_states.py``; for a question, the truth
and more words). Both scores and milestone tables go to ``reports/parity/<task id>.json``
(``$PYTEST_CUA_PARITY_REPORTS``), the counts and every disagreement to ``summary-<worker>.md`` there.

What must hold (``harness.judge``): our oracle scores 1; in every end state SCUBA's evaluation runs (no system
failure) and ours gives the same score (2 decimals) and the same completion, except where DEVIATIONS.md's
parity table lists the task and end state (``known.py`` reads it); a listed end state that agrees is a stale
entry and fails too. Our exact scoring (the record's ``score_scuba``) agrees with SCUBA on every end state,
listed or not, and is a crash where SCUBA's evaluation fails. A disagreement names the task, the end state,
how the partial state was made, and the milestone tables. ``test_near_misses.py`` adds the generated near-miss
end states.

The release comes from ``$PYTEST_CUA_SCUBA_ROOT`` (default ``<repository>/../shared/scuba/release``, see
``tests/scuba/release_root.py``; skipped when absent, a failure when ``CI`` is set).
``PYTEST_CUA_PARITY_TASKS`` picks the tasks: ``sample`` (the default, for CI: the first release task of every
eighth template, 8 of the 60), ``templates`` (the first release task of each of the 60 templates), ``all`` (the
300, 900 end states), or a comma list of task ids and template names (each template name: its first release
task).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterator

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.task import Task
from pytest_cua.testing.scuba_parity import ScubaEvaluation

from suites.scuba import release

from ..org_harness import TEMPLATES, evaluate
from .end_states import partial_end_state, qa_partial_answer
from ..release_root import require_release
from .harness import (RECORDS, exact, first_of_each_template, judge, our_card, ours, theirs, write_report,
                      write_summary)
from .known import STATES, summary_markdown
from .perturb import other_case

DEFAULT_SAMPLE = "sample"


def _selected() -> list[str]:
    wanted = os.environ.get("PYTEST_CUA_PARITY_TASKS") or DEFAULT_SAMPLE
    if wanted.strip() == "all":
        return list(RECORDS)
    if wanted.strip() in ("templates", "sample"):
        names = list(dict.fromkeys(r["query_template_name"] for r in RECORDS.values()))
        wanted = ",".join(names if wanted.strip() == "templates" else names[::8])
    out: list[str] = []
    firsts = first_of_each_template()
    for name in (w.strip() for w in wanted.split(",") if w.strip()):
        if name in RECORDS:
            out.append(name)
        elif name in firsts:
            out.append(firsts[name])
    return out


require_release(release.ZERO_SHOT_FILE, release.METADATA_DIR, release.SEED_DIR)  # skips, or fails under CI


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


SUMMARY: list[dict[str, Any]] = []


@pytest.fixture(scope="module", autouse=True)
def parity_summary() -> Iterator[None]:
    """After the module: ``summary-<worker>.md`` in the reports folder, the counts and every disagreement."""
    yield
    write_summary("summary", summary_markdown(SUMMARY) if SUMMARY else "")


def compare(env: SalesforceEnvironment, task: Task, scuba: ScubaEvaluation, answer: str | None) -> dict[str, Any]:
    """The end state as the org holds it, scored by ours, our exact scoring and SCUBA's evaluator."""
    mine = our_card(env, task, answer)
    result = scuba.evaluate(RECORDS[task.id], answer)
    return {"ours": ours(mine), "exact": exact(env, task, answer), "scuba": theirs(result),
            "tables": f"ours:\n{mine.table()}\n{result.table()}"}


@pytest.mark.parametrize("task_id", _selected())
def test_scuba_scores_the_end_state_as_we_do(task_id: str, release_env: tuple[SalesforceEnvironment, dict[str, Task]],
                                             scuba: ScubaEvaluation) -> None:
    env, tasks = release_env
    task = tasks[task_id]
    template = TEMPLATES.get(task.template or "")
    if template is None and not task.is_question:
        pytest.fail(f"{task_id}: no template {task.template!r} and not a question")
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
            row = compare(env, task, scuba, answer)
            if how is not None:
                row["made"] = how.describe() if answer is None else f"answer {answer!r}"
                row["partial"] = 0 < row["ours"]["score"] < 1
            rows[state] = row
            env.restore(snap)
    finally:
        env.restore(snap)
    problems = [p for state, row in rows.items() if "skipped" not in row for p in judge(task_id, state, row)]
    write_report(task_id, {"task_id": task_id, "template": task.template, **rows})
    SUMMARY.append({"task_id": task_id, "template": task.template, **rows})
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


def _case_selected() -> list[str]:
    wanted = os.environ.get("PYTEST_CUA_PARITY_CASE") or CASE_SAMPLE
    names = list(CASE_KEYS) if wanted.strip() == "all" else [w.strip() for w in wanted.split(",") if w.strip()]
    firsts = first_of_each_template()
    return [firsts[n] for n in names if n in firsts]


@pytest.mark.parametrize("task_id", _case_selected())
def test_a_name_in_another_letter_case_is_scored_as_scuba_does(
        task_id: str, release_env: tuple[SalesforceEnvironment, dict[str, Task]], scuba: ScubaEvaluation) -> None:
    """The oracle's end state with the component's name typed in another letter case (the org stores it as
    typed): SCUBA's evaluator and ours give the same score, unless DEVIATIONS.md's parity table lists the task
    with end state ``case``."""
    env, tasks = release_env
    task = tasks[task_id]
    template = TEMPLATES[task.template or ""]
    key = CASE_KEYS[task.template or ""]
    typed = other_case(str(task.ground_truth[key]))
    snap = env.snapshot()
    try:
        template.solve(dataclasses.replace(task, ground_truth={**task.ground_truth, key: typed}), env)
        row = compare(env, task, scuba, None)
    finally:
        env.restore(snap)
    row["made"] = f"{key}: {task.ground_truth[key]!r} -> {typed!r}"
    problems = judge(task_id, "case", row)
    write_report(f"{task_id}-case", {"task_id": task_id, "case": row})
    assert not problems, "\n\n".join(problems)
