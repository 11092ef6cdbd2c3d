"""What the SCUBA template tests share: the suite's tasks and templates, an org over HTTPS without a browser
(restored to the seed after each test and proven clean), and an evaluator runner that checks the declared
milestones. The fixtures ``org_env`` and ``env`` are in this folder's conftest."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.scoring import ScoreCard, active_card
from pytest_cua.tasks.suite import EvalContext, Template
from pytest_cua.tasks.task import Task, load_task_file
from suites.scuba.release.suite import ScubaSuite
from suites.scuba.templates import discover

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "scuba"
TEMPLATES: dict[str, Template] = discover()


def load_tasks(prefixes: Sequence[str]) -> list[Task]:
    """The suite's own tasks from the task files whose names start with one of ``prefixes``."""
    paths = sorted(p for prefix in prefixes for p in (SUITE / "tasks").glob(f"{prefix}*.json"))
    return [t for p in paths for t in load_task_file(p, suite="scuba", root=SUITE, extension_fields=ScubaSuite.task_fields)]


def evaluate(env: SalesforceEnvironment, task: Task, answer: str | None = None,
             scoring: str | None = None) -> ScoreCard:
    """Run the template's evaluator (under ``scoring``: the SCUBA suite's ``scuba``, SCUBA's rules exactly;
    None: ours); the recorded milestones must be the declared ones, in order."""
    card = ScoreCard(task.id, task.template, scoring=scoring)
    template = TEMPLATES[task.template or ""]
    with active_card(card):
        template.evaluate(EvalContext(task=task, env=env, card=card, answer=answer))
    card.check_complete()
    assert [r.name for r in card.results] == list(template.weights(task.ground_truth)), "not in declared order"  # type: ignore[attr-defined]
    return card


def check_seed_then_oracle(env: SalesforceEnvironment, task: Task) -> Template:
    """The untouched seed scores below 1 (a do-nothing agent would not pass), the oracle solver scores exactly
    1, its work stays inside the template's rollback scope, and the demonstration ends with a terminal action."""
    assert evaluate(env, task).score < 1, "a do-nothing agent would pass"
    template = TEMPLATES[task.template or ""]
    snap = env.snapshot()
    template.solve(task, env)
    card = evaluate(env, task, answer=task.ground_truth.get("answer"))
    assert card.score == 1, card.table()
    env.restore(snap, scope=list(template.objects) or None)
    assert env.residue(snap) == [], "the solver changed objects outside the template's rollback scope"
    actions = template.demonstrate(task, env)
    assert actions and actions[-1].terminal
    return template


def check_partial_credit(env: SalesforceEnvironment, task: Task, work: Callable[[Any, Task], None],
                         expected: float) -> None:
    """Part of the task done by ``work`` earns exactly ``expected``, and every failed milestone says why."""
    work(env.org, task)
    card = evaluate(env, task)
    assert card.score == pytest.approx(expected), card.table()
    assert all(r.detail for r in card.results if not r.passed), "a failed milestone must say why"


def task_of(template: str, truth: Mapping[str, Any], tid: str = "t_1") -> Task:
    return Task(id=tid, suite="scuba", instruction="x", template=template, ground_truth=dict(truth))


def evaluate_truth(env: SalesforceEnvironment, template: str, truth: Mapping[str, Any]) -> ScoreCard:
    """``evaluate`` on a task of ``template`` with ``truth``: the declaration is ``weights(truth)`` (summing to
    1), the milestones are recorded with those weights in that order, and every failed one says why."""
    card = evaluate(env, task_of(template, truth))
    weights = TEMPLATES[template].weights(truth)  # type: ignore[attr-defined]
    assert card.declared == weights, "the declaration is not the template's weights(truth)"
    assert [(r.name, r.weight) for r in card.results] == list(weights.items()), "milestones differ from weights()"
    assert sum(weights.values()) == pytest.approx(1)
    assert all(r.detail for r in card.results if not r.passed), "a failed milestone must say why"
    return card
