"""The parity test's third end state: the oracle's, with one milestone undone.

``partial_end_state`` finds it for any release task without knowing its template: the template's oracle solver
runs on the task with one ground-truth value changed, and the end state is scored against the task's real
ground truth. The changes of a value: a word added to a text, a number moved by one, the last entry of a list
or of a comma-separated list dropped, a flag flipped; then the values other tasks of the template give the key
(another user, another sharing level: values the org takes where an invented one is refused). The first
change, from the last ground-truth key to the first, that leaves a score strictly between 0 and 1 is the
partial end state: every milestone but those reading that value holds. Where none does (a task of one
milestone, or one whose every key also finds the record), the first change solved with a score below 1 is kept
(an end state wrong in one value), and failing that there is none (a change no milestone reads leaves the
oracle's score: that is not a partial state).

Question tasks have no org state to undo: their partial answer is the truth followed by other words (SCUBA's
score is then the F1 of the tokens, less than 1, since the truth is contained).

The org is left in the partial end state; the caller restores it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterator, Mapping

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.suite import Template
from pytest_cua.tasks.task import Task

MAX_TRIES = 16
QA_EXTRA = "as far as the records show"


@dataclasses.dataclass
class PartialState:
    """How the partial end state was made: the key changed, its value before and after, our score of it."""

    key: str
    before: Any
    after: Any
    score: float
    answer: str | None = None

    @property
    def partial(self) -> bool:
        return 0 < self.score < 1

    def describe(self) -> str:
        return f"{self.key}: {self.before!r} -> {self.after!r} (ours {self.score:.2f})"


def qa_partial_answer(task: Task) -> str:
    """The truth followed by other words: contained (SCUBA's rule), so scored the F1 of the tokens."""
    return f"{task.ground_truth.get('answer', '')} {QA_EXTRA}"


def changed(value: Any) -> Iterator[Any]:
    """Other values for one ground-truth value, the least disruptive first."""
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, (int, float)):
        yield value + 1
    elif isinstance(value, str):
        parts = [p for p in value.split(",")]
        if len(parts) > 1:
            yield ",".join(parts[:-1])
        if value.strip():
            yield value + " Changed"
    elif isinstance(value, list) and value:
        if len(value) > 1:
            yield value[:-1]
        for inner in changed(value[-1]):
            yield value[:-1] + [inner]
    elif isinstance(value, Mapping) and value:
        last = list(value)[-1]
        if len(value) > 1:
            yield {k: v for k, v in value.items() if k != last}
        for inner in changed(value[last]):
            yield {**value, last: inner}


def partial_end_state(template: Template | None, task: Task, env: SalesforceEnvironment,
                      score: Callable[[Task], float],
                      others: Mapping[str, list[Any]] | None = None) -> PartialState | None:
    """Leave the org in the task's partial end state (see the module's docstring) and say how it was made;
    ``score(task)`` is our evaluator's score of the org as it is; ``others``: for each ground-truth key, the
    values other tasks of the template give it, tried after the changes of ``changed`` (another user, another
    sharing level: values the org takes). None when no change could be solved."""
    if task.is_question or template is None:
        answer = qa_partial_answer(task)
        return PartialState("answer", task.ground_truth.get("answer"), answer, float("nan"), answer=answer)
    snap = env.snapshot()
    fallback: tuple[str, Any, Any] | None = None
    tries = 0
    for key in reversed(list(task.ground_truth)):
        mine = task.ground_truth[key]
        candidates = [*changed(mine), *(v for v in (others or {}).get(key, []) if v != mine)]
        for value in candidates:
            if tries >= MAX_TRIES:
                break
            tries += 1
            other = dataclasses.replace(task, ground_truth={**task.ground_truth, key: value})
            try:
                template.solve(other, env)
                got = score(task)
            except Exception:  # noqa: BLE001 - a changed value the solver or the org cannot take: the next one
                env.restore(snap)
                continue
            if 0 < got < 1:
                return PartialState(key, task.ground_truth[key], value, got)
            env.restore(snap)
            if fallback is None and got < 1:
                fallback = (key, task.ground_truth[key], value)
            break  # one value per key: the next key
    if fallback is None:
        return None
    key, before, after = fallback
    template.solve(dataclasses.replace(task, ground_truth={**task.ground_truth, key: after}), env)
    return PartialState(key, before, after, score(task))
