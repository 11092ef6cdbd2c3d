"""Sales questions answered from the org's records (``qa_sales_lookup``), scored by SCUBA's rule: the answer
earns its token F1 when it contains the ground truth.

A task says where a person finds the answer in an ``evidence`` list (kept in the task's extra fields), used
by the demonstration: ``{"object": "Opportunity", "name": "..."}`` opens that record,
``{"list": "Campaign", "sort": "BudgetedCost", "dir": "desc"}`` opens a list page sorted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence
from urllib.parse import urlencode

from pytest_cua import EvalContext, record_answer
from pytest_cua.actions import Action, Answer

from . import shared as s
from .common import goto

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


class QuestionTemplate(s.ScubaTemplate):
    """A question task: one milestone, the answer (ground truth ``answer``), earning its token F1."""

    objects = ()
    milestones = {"answer": 1.0}
    ground_truth_keys: tuple[str, ...] | None = ("answer",)

    def __init__(self, name: str) -> None:
        self.name = name

    def check(self, ctx: EvalContext) -> None:
        record_answer(ctx.card, ctx.answer, str(ctx.truth.get("answer", "")))

    def solve(self, task: "Task", env: "Environment") -> None:
        """Nothing to change in the org: the oracle answers with the ground truth."""

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        steps: list[Action] = []
        for ev in _evidence(task):
            if "object" in ev:
                rid = s.require_id(env.org, ev["object"], ev["name"], ev.get("field", "Name"))  # type: ignore[attr-defined]
                steps += s.open_record(env, ev["object"], rid)
            elif "list" in ev:
                query = {k: ev[k] for k in ("q", "sort", "dir") if k in ev}
                steps.append(goto(env, f"/lightning/o/{ev['list']}/list" + (f"?{urlencode(query)}" if query else "")))
        return [*steps, Answer(str(task.ground_truth.get("answer", "")))]


def _evidence(task: "Task") -> list[dict[str, Any]]:
    raw = task.extra.get("evidence", [])
    return [dict(e) for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []


TEMPLATES = [QuestionTemplate("qa_sales_lookup")]
