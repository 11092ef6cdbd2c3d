"""Running a ProSoft evaluator kind on artifacts built in a test, without a container: each milestone's label
and whether it held (the unit tests of suites/prosoft/checks share this)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping

from suites.prosoft.templates import KINDS


def milestones(kind: str, truth: Mapping[str, Any], artifacts: Mapping[str, Path], **ctx: Any
               ) -> dict[str, str | None]:
    """Each milestone's label -> None (passed) or its assertion message; ``ctx`` adds fields of the
    evaluation context (``task``, ``env``)."""
    context = SimpleNamespace(artifacts=dict(artifacts), **ctx)
    out: dict[str, str | None] = {}
    for label, check in KINDS[kind](context, truth):  # type: ignore[arg-type]
        try:
            check()
            out[label] = None
        except AssertionError as exc:
            out[label] = str(exc)
    return out


def failed(result: Mapping[str, str | None]) -> list[str]:
    return [label for label, message in result.items() if message is not None]


def truth_of(tasks: Mapping[str, Mapping[str, Any]], task_id: str, kind: str) -> dict[str, Any]:
    """The ground truth of ``kind`` in a task (its step of that kind when the task is a pipeline)."""
    task = tasks[task_id]
    if task["template"] == "pipeline":
        return next(dict(s) for s in task["ground_truth"]["steps"] if s["template"] == kind)
    return dict(task["ground_truth"])


def task_milestones(task: Mapping[str, Any], artifacts: Mapping[str, Path],
                    step: Callable[[dict[str, Any]], dict[str, Any]] = lambda s: s) -> dict[str, str | None]:
    """Every milestone of a task as its template evaluates it (each step of a pipeline in turn); ``step`` may
    adjust a step's ground truth first (an L4's rubric left out where no judge is)."""
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [
        {**task["ground_truth"], "template": task["template"]}]
    out: dict[str, str | None] = {}
    for truth in steps:
        truth = step(dict(truth))
        out.update(milestones(truth["template"], truth, artifacts))
    return out
