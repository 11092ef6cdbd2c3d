"""Near-miss end states (``perturb.py``) scored by SCUBA's own evaluator and by ours, as ``test_parity.py``
scores its three: ours agrees with SCUBA unless DEVIATIONS.md's parity table lists the task and state (by its
name, ``case:list_name``), our exact scoring (``score_scuba``) agrees with SCUBA on every one.

``PYTEST_CUA_PARITY_NEAR`` picks the states: ``sample`` (the default, for CI: for each family, the first near
miss of one template, ``SAMPLE``, and every near miss of it the parity table lists), ``all`` (every near miss of the first release task of every template: at least 8
per template), or a comma list of template names (their first task's every near miss). A near miss the solver
or the org cannot make is skipped with the reason; ``reports/parity/near/`` keeps each compared state and
``near-summary-<worker>.md`` the counts per family and every disagreement.
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

from ..org_harness import TEMPLATES
from ..release_root import require_release
from .harness import (RECORDS, exact, first_of_each_template, judge, others_of, our_card, ours, theirs,
                      write_report, write_summary)
from .known import KNOWN, near_summary_markdown
from .perturb import NearMiss, near_misses

#: the CI sample: for each family, a template whose first task's near misses of that family are compared
SAMPLE = {
    "case": "create_permission_set_medium", "spaces": "create_lead", "dash": "create_account_hierarchy",
    "again": "update_opportunity_stage_and_activity", "date+1": "create_contract_and_order",
    "date-1": "create_entitlement_record", "date_format": "create_contract_and_order", "number": "create_quote",
    "duplicate": "update_opportunity_stage_and_activity", "wrong_first": "assign_permset_group_to_user",
    "wrong_also": "create_account_and_contact", "other": "create_account_hierarchy", "extra": "create_app",
    "order": "create_global_value_set", "answer": "qa_sales_002",
}


def _task_misses(tid: str) -> list[NearMiss]:
    record = RECORDS[tid]
    return near_misses(record.get("ground_truth_dict") or {}, others_of(tid),
                       question=str(record["query_template_name"]).startswith("qa_"))


def _selected() -> list[Any]:
    wanted = (os.environ.get("PYTEST_CUA_PARITY_NEAR") or "sample").strip()
    firsts = first_of_each_template()
    if wanted == "sample":
        pairs = [(firsts[t], family) for family, t in SAMPLE.items() if t in firsts]
    else:
        names = list(firsts) if wanted == "all" else [w.strip() for w in wanted.split(",") if w.strip()]
        pairs = [(firsts[n], None) for n in names if n in firsts]
    out = []
    for tid, family in pairs:
        taken = 0
        for miss in _task_misses(tid):
            if family is not None and (miss.family != family or (taken and (tid, miss.name) not in KNOWN)):
                continue  # the sample: a family's first near miss, and every one the parity table lists
            out.append(pytest.param(tid, miss, id=f"{tid}-{miss.name}"))
            taken += 1
    return out


require_release(release.ZERO_SHOT_FILE, release.METADATA_DIR, release.SEED_DIR)  # skips, or fails under CI

ROWS: list[dict[str, Any]] = []


@pytest.fixture(scope="module", autouse=True)
def near_summary() -> Iterator[None]:
    """After the module: ``near-summary-<worker>.md``, per family the states compared, made, agreeing (``python
    -m tests.scuba.parity.known reports/parity`` merges the workers')."""
    yield
    write_summary("near-summary", near_summary_markdown(ROWS))


@pytest.mark.parametrize(("task_id", "miss"), _selected())
def test_a_near_miss_is_scored_as_scuba_does(task_id: str, miss: NearMiss, scuba: ScubaEvaluation,
                                             release_env: tuple[SalesforceEnvironment, dict[str, Task]]) -> None:
    env, tasks = release_env
    task = tasks[task_id]
    base = {"task_id": task_id, "template": task.template, "state": miss.name, "family": miss.family,
            "made": miss.what}
    template = TEMPLATES.get(task.template or "")
    snap = env.snapshot()
    try:
        if miss.answer is None:
            assert template is not None, f"{task_id}: no template {task.template!r}"
            try:
                for truth in miss.truths:
                    template.solve(dataclasses.replace(task, ground_truth=truth), env)
            except Exception as exc:  # noqa: BLE001 - a change the solver or the org refuses: no such end state
                ROWS.append({**base, "skipped": f"{type(exc).__name__}: {exc}"})
                write_report(f"near/{task_id}-{miss.name.replace(':', '-')}", ROWS[-1])
                pytest.skip(f"{miss.name}: not made ({type(exc).__name__}: {str(exc)[:200]})")
        mine = our_card(env, task, miss.answer)
        result = scuba.evaluate(RECORDS[task_id], miss.answer)
        row = {**base, "ours": ours(mine), "exact": exact(env, task, miss.answer), "scuba": theirs(result),
               "tables": f"ours:\n{mine.table()}\n{result.table()}"}
    finally:
        env.restore(snap)
    problems = judge(task_id, miss.name, row)
    ROWS.append(row)
    write_report(f"near/{task_id}-{miss.name.replace(':', '-')}", row)
    assert not problems, "\n\n".join(problems)
