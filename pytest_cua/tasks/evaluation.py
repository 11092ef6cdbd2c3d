"""Evaluating a task after its episode: the template's milestones on a score card, under the suite's own scoring
and under each other scoring the suite declares (``Suite.scorings``: SCUBA's evaluator's rules exactly, beside
the corrected ones), and which of them decides the task (``--cua-scoring``).

An exception an evaluator raises outside a milestone is an ``EvaluatorCrash`` naming the template (an error
outcome, never the agent's failure); ``ScoringCrash`` under another scoring is that scoring's verdict (its
evaluator would crash on this end state) and is kept as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from pytest_cua.tasks.scoring import EvaluatorCrash, ScoreCard, ScoringCrash, WeightError, active_card, record_answer
from pytest_cua.tasks.suite import EvalContext, Scoring, Suite, Template

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks.task import Task


def evaluate_card(template: Template | None, task: "Task", env: "Environment", answer: str | None,
                  artifacts: Mapping[str, Any] | None = None, scoring: str | None = None) -> ScoreCard:
    """The task's score card under ``scoring`` (None: the suite's own): its template's milestones, or for a
    question without a template SCUBA's answer rule. Raises ``EvaluatorCrash`` / ``WeightError`` for an
    evaluator bug and, under another scoring, ``ScoringCrash``."""
    card = ScoreCard(task_id=task.id, template=task.template, scoring=scoring)
    ctx = EvalContext(task=task, env=env, card=card, answer=answer, artifacts=dict(artifacts or {}))
    with active_card(card):
        if template is not None:
            try:
                template.evaluate(ctx)
            except (EvaluatorCrash, WeightError, ScoringCrash):
                raise
            except Exception as exc:  # outside any milestone: still the evaluator's crash, not the agent's
                raise EvaluatorCrash(template.name or task.template, None, exc, scoring=scoring) from exc
        elif task.is_question:
            record_answer(card, answer, str(task.ground_truth["answer"]))  # SCUBA's rule: earns the F1
        else:
            raise WeightError(f"task {task.id!r} has no template and no answer to score")
    try:
        card.check_complete()
    except WeightError as exc:
        raise WeightError(f"template {task.template!r}{_under(scoring)}: {exc}") from None
    return card


def _under(scoring: str | None) -> str:
    return f" (scoring {scoring!r})" if scoring else ""


@dataclass
class OtherScore:
    """The task under another scoring of its suite: its card, or where that scoring's evaluator would crash,
    the reason (and then its ``crash_score``)."""

    name: str
    spec: Scoring
    card: ScoreCard | None
    crash: str | None = None

    @property
    def score(self) -> float:
        if self.card is None:
            return self.spec.crash_score
        return round(self.card.score, self.spec.digits) if self.spec.digits is not None else self.card.score

    @property
    def success(self) -> bool:
        if self.card is None:
            return False
        return self.score >= 1 if self.spec.digits is not None else self.card.success

    def table(self) -> str:
        if self.card is None:
            return f"scoring {self.name!r}: its evaluator would crash on this end state ({self.crash}); " \
                   f"score {self.spec.crash_score:g}"
        return self.card.table()


def other_scores(suite: Suite, template: Template | None, task: "Task", env: "Environment", answer: str | None,
                 artifacts: Mapping[str, Any] | None = None) -> dict[str, OtherScore]:
    """The task under each of the suite's other scorings, by name (an evaluator bug under one is an
    ``EvaluatorCrash`` naming it: an error outcome all the same)."""
    out: dict[str, OtherScore] = {}
    for name, spec in suite.scorings.items():
        try:
            out[name] = OtherScore(name, spec, evaluate_card(template, task, env, answer, artifacts, scoring=name))
        except ScoringCrash as exc:
            out[name] = OtherScore(name, spec, None, str(exc) or type(exc).__name__)
    return out


def scoring_names(suite: Suite) -> tuple[str, ...]:
    """Every scoring the suite's tasks may be decided by: its own first."""
    return (suite.own_scoring, *suite.scorings)


def deciding(suite: Suite, wanted: str | None) -> str | None:
    """The other scoring that decides the suite's tasks under ``--cua-scoring wanted`` (None: its own).
    Raises ValueError naming the suite's scorings for a name it does not have."""
    if not wanted or wanted == suite.own_scoring:
        return None
    if wanted not in suite.scorings:
        raise ValueError(f"--cua-scoring {wanted!r}: suite {suite.name!r} scores by "
                         f"{' or '.join(repr(n) for n in scoring_names(suite))}")
    return wanted
