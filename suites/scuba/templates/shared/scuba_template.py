"""The base class of the SCUBA templates (``ScubaTemplate``: milestones declared once, then checked),
``share``, SCUBA's even split of a weight over a list of members, and the exact scoring's switches.

Two scores: a template judges with the corrections DEVIATIONS.md lists (``score``), and again under the suite's
``scuba`` scoring (``score_scuba``), where ``exact()`` is true and each deviation judges as SCUBA's evaluator
does, bugs included; where SCUBA's evaluator raises (score -1), ``crash_unless`` makes that the exact verdict
and fails the milestone with the reason under ours."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from pytest_cua import EvalContext, Template, declare
from pytest_cua.tasks.scoring import ScoringCrash, current_scoring

#: the SCUBA suite's other scoring (suites/scuba/test_scuba.py): SCUBA's evaluator's rules exactly
EXACT = "scuba"


def exact() -> bool:
    """Is the task being scored by SCUBA's evaluator's rules exactly (``score_scuba``)? Each deliberate
    deviation (DEVIATIONS.md) asks, and judges as SCUBA does when it is."""
    return current_scoring() == EXACT


def crash_unless(condition: object, reason: str) -> None:
    """Where SCUBA's evaluator raises when ``condition`` does not hold (IndexError on a missing record, a
    KeyError on a missing key; SCUBA then scores -1, a "system failure"): under the exact scoring that is the
    verdict (``ScoringCrash``), under ours the milestone fails with the reason."""
    if condition:
        return
    if exact():
        raise ScoringCrash(reason)
    raise AssertionError(reason)


class ScubaTemplate(Template):
    """A SCUBA template whose milestones are declared in one place.

    Fixed weights: set ``milestones = {"name": weight, ...}``. Weights that depend on the ground truth (SCUBA's
    0.5/n per entry, a field only when it is given): override ``weights(truth)``, returning the milestones
    of that task in evaluation order. Implement ``check(ctx)`` with ``milestone(name)`` blocks (no weights:
    they come from the declaration). ``evaluate`` declares, then checks; a subclass cannot override it, so
    every milestone recorded is checked against the declaration (an undeclared name, another weight or a
    declared milestone never recorded is an evaluator error naming the template and the milestone).
    """

    #: every declared ground-truth key is required unless listed here (``Template.ground_truth_optional``)
    ground_truth_optional: tuple[str, ...] | None = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "evaluate" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: implement check(ctx), not evaluate(): ScubaTemplate.evaluate "
                            "declares the milestones before checking them")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        """The milestones of a task with this ground truth, name -> weight (summing to 1), in order."""
        if self.milestones is None:
            raise NotImplementedError(f"template {self.name!r} declares no milestones (set milestones or "
                                      "override weights)")
        return dict(self.milestones)

    def evaluate(self, ctx: EvalContext) -> None:
        declare(self.weights(ctx.truth))
        self.check(ctx)

    def check(self, ctx: EvalContext) -> None:
        raise NotImplementedError(f"template {self.name!r} has no check()")


def share(total: float, names: Iterable[str]) -> dict[str, float]:
    """``total`` split evenly over ``names`` (SCUBA's ``0.75 / n`` per member)."""
    listed = list(names)
    return {n: total / len(listed) for n in listed} if listed else {}
