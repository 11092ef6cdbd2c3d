"""Milestones, the score card, answer scoring and the checks on weights.

Inside an evaluator::

    with milestone("queue exists", weight=0.3):
        assert queue, f"no queue named {name!r}"

Who owns the card: the plugin makes one ``ScoreCard`` per task and hands it to the evaluator as ``ctx.card``
(``pytest_cua.tasks.suite.EvalContext``). Its methods ``milestone``, ``declare``, ``note``, ``record`` and
``record_answer`` record into it directly. The free functions ``milestone``, ``declare`` and ``note`` are a
convenience for evaluator code and the helpers it calls (the suites' templates, the LLM judge): each delegates
to the card bound by ``with active_card(card):``, which the plugin opens around the evaluator with
``ctx.card``; outside it they raise. That binding is a context variable, private to this module and set only
by ``active_card`` (each thread and context sees its own). ``record_answer(card, ...)`` names its card.

A failed milestone records the assertion message and the evaluation goes on. The score is the sum of the
weights that held; weights of a task sum to 1 (checked). The task passes when the score is 1. Any exception
other than an AssertionError inside an evaluator is an ``EvaluatorCrash``: an error outcome, not a failure.

Weights declared once: an evaluator may first ``declare({"queue exists": 0.3, ...})`` the milestones of the
task at hand (they may depend on its ground truth: 0.5/n per entry, a field only when given). From then on
``milestone(name)`` takes its weight from the declaration, a weight passed anyway must equal the declared one,
an undeclared name is a ``WeightError``, and at the end every declared milestone must have been recorded. The
errors name the template and the milestone.

A milestone may earn part of its weight (``record_credit``): a question's answer earns its token F1, as
SCUBA scores it.

A milestone may be *skipped* when it cannot be decided in this run (a rubric item with no judge model given):
raise ``MilestoneSkipped(reason)`` inside it. A skipped milestone keeps its weight in the table, earns nothing
and is never met; a card whose other milestones all held is *partially scored* (``ScoreCard.partially_scored``):
not a pass (``success`` is False), and not a failure either. ``note(text)`` inside a milestone keeps a remark
(a judge's reason) as its detail when it holds.

Other scorings: a suite may score its tasks a second way beside its own (``Suite.scorings``: SCUBA's evaluator's
rules exactly, its bugs included, beside the corrected ones). The plugin then evaluates the template again on a
card whose ``scoring`` names that way; the evaluator and its helpers ask ``current_scoring()`` where the two
differ. Where the other scoring's evaluator would crash (SCUBA's raises on a missing record and scores -1), the
evaluator raises ``ScoringCrash(reason)``: that scoring's score is its crash score and the record says why.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import string
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterator, Mapping

WEIGHT_TOLERANCE = 1e-6

# the card the free functions record into; set only by ``active_card``
_bound_card: contextvars.ContextVar["ScoreCard | None"] = contextvars.ContextVar("pytest_cua_card", default=None)


class WeightError(ValueError):
    """Milestone weights that do not sum to 1, or a weight out of (0, 1]: an evaluator bug."""

    error_kind = "evaluator"


class EvaluatorCrash(Exception):
    """An evaluator raised something other than a milestone assertion: an error outcome."""

    error_kind = "evaluator"

    def __init__(self, template: str | None, milestone_name: str | None, exc: BaseException,
                 scoring: str | None = None) -> None:
        self.template = template
        self.milestone_name = milestone_name
        self.original = exc
        self.scoring = scoring  # evaluated under another scoring of the suite (``current_scoring()``)
        where = f"template {template!r}" if template else "the evaluator"
        if scoring:
            where += f" (scoring {scoring!r})"
        if milestone_name:
            where += f", milestone {milestone_name!r}"
        super().__init__(f"{where} crashed: {type(exc).__name__}: {exc}")


class ScoringCrash(Exception):
    """Raised while evaluating under another scoring (``current_scoring()``) where that scoring's own evaluator
    would crash on this end state: not an evaluator bug, that scoring's verdict (SCUBA's score -1)."""


class MilestonesFailed(AssertionError):
    """The agent fell short: raised in the test call with the milestone table as its message."""


class MilestoneSkipped(Exception):
    """Raised inside a milestone that cannot be decided in this run (``str()`` says why): the milestone is
    recorded as skipped, with its weight, earning nothing."""


@dataclass
class MilestoneResult:
    name: str
    weight: float
    passed: bool
    detail: str = ""
    credit: float | None = None  # the part of the weight earned, when not all or nothing
    skipped: bool = False  # not decided in this run (``detail`` says why): never met, earns nothing

    @property
    def earned(self) -> float:
        if self.skipped:
            return 0.0
        if self.credit is not None:
            return self.weight * self.credit
        return self.weight if self.passed else 0.0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name, "weight": self.weight, "passed": self.passed,
                                  "detail": self.detail}
        if self.credit is not None:
            out["credit"] = self.credit
        if self.skipped:
            out["skipped"] = True
        return out


@dataclass
class ScoreCard:
    """Collects milestone results for one task."""

    task_id: str = ""
    template: str | None = None
    results: list[MilestoneResult] = field(default_factory=list)
    declared: dict[str, float] | None = None  # the milestones declared for this task, with their weights
    scoring: str | None = None  # another scoring of the suite this card is scored by (None: the suite's own)
    _note: str | None = field(default=None, repr=False)  # the remark of the milestone being recorded

    def _where(self) -> str:
        return f"template {self.template!r}" if self.template else "the evaluator"

    def declare(self, weights: Mapping[str, float]) -> None:
        """Declare this task's milestones and weights (once, before any is recorded; they sum to 1)."""
        if self.declared is not None:
            raise WeightError(f"{self._where()}: milestones are declared twice")
        if self.results:
            raise WeightError(f"{self._where()}: milestones are declared after {self.results[0].name!r} was recorded")
        problem = check_weights(weights)
        if problem:
            raise WeightError(f"{self._where()}: declared {problem}")
        self.declared = {str(k): float(v) for k, v in weights.items()}

    def _weight(self, name: str, weight: float | None) -> float:
        """The weight a milestone is recorded with, checked against the declaration."""
        if self.declared is None:
            if weight is None:
                raise WeightError(f"{self._where()}: milestone {name!r} has no weight and none is declared")
            return weight
        if name not in self.declared:
            raise WeightError(f"{self._where()}: milestone {name!r} is not declared "
                              f"(declared: {', '.join(repr(n) for n in self.declared)})")
        want = self.declared[name]
        if weight is not None and (isinstance(weight, bool) or not isinstance(weight, (int, float))
                                   or abs(weight - want) > WEIGHT_TOLERANCE):
            raise WeightError(f"{self._where()}: milestone {name!r} has weight {weight!r}, declared {want:g}")
        return want

    @contextlib.contextmanager
    def milestone(self, name: str, weight: float | None = None) -> Iterator[None]:
        weight = self._weight(name, weight)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= 1:
            raise WeightError(f"milestone {name!r}: weight must be a number in (0, 1], got {weight!r}")
        if any(r.name == name for r in self.results):
            raise WeightError(f"{self._where()}: milestone {name!r} is recorded twice")
        self._note = None
        try:
            yield
        except AssertionError as exc:
            self.results.append(MilestoneResult(name, float(weight), False, _assertion_text(exc)))
        except MilestoneSkipped as exc:
            self.results.append(MilestoneResult(name, float(weight), False, f"skipped: {exc}" if str(exc) else "skipped",
                                                skipped=True))
        except ScoringCrash:
            raise  # the other scoring's evaluator would crash here: its verdict on the whole task
        except Exception as exc:  # an evaluator bug or an unreachable environment: error outcome
            if getattr(exc, "error_kind", None) == "environment":
                raise  # the environment failed under the evaluator (an org out of API requests): its own kind
            raise EvaluatorCrash(self.template, name, exc, scoring=self.scoring) from exc
        else:
            self.results.append(MilestoneResult(name, float(weight), True, self._note or ""))
        finally:
            self._note = None

    def note(self, text: str) -> None:
        """A remark on the milestone being recorded (a judge's reason): its detail when it holds."""
        self._note = str(text)

    def record(self, name: str, weight: float | None, passed: bool, detail: str = "") -> None:
        """Record a milestone decided elsewhere."""
        with self.milestone(name, weight):
            assert passed, detail or "did not hold"

    def record_credit(self, name: str, weight: float | None, credit: float, detail: str = "") -> None:
        """Record a milestone that earns ``credit`` (0..1) of its weight: held only when the credit is 1."""
        if isinstance(credit, bool) or not isinstance(credit, (int, float)) or not 0 <= credit <= 1:
            raise WeightError(f"{self._where()}: milestone {name!r}: credit must be in [0, 1], got {credit!r}")
        self.record(name, weight, credit >= 1, detail)
        self.results[-1].credit = float(credit)

    def record_answer(self, answer: str | None, truth: str, name: str = "answer") -> AnswerScore:
        """Score a question's answer with SCUBA's rule (``score_answer``): one milestone that earns the F1."""
        verdict = score_answer(answer, truth)
        self.record_credit(name, None if self.declared is not None else 1.0, verdict.credit, verdict.detail)
        return verdict

    @property
    def total_weight(self) -> float:
        return sum(r.weight for r in self.results)

    @property
    def score(self) -> float:
        return round(float(sum(r.earned for r in self.results)), 6)

    @property
    def success(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def skipped(self) -> list[MilestoneResult]:
        """The milestones not decided in this run."""
        return [r for r in self.results if r.skipped]

    @property
    def partially_scored(self) -> bool:
        """Every decided milestone held and at least one was skipped: neither a pass nor a failure."""
        return bool(self.skipped) and all(r.passed or r.skipped for r in self.results)

    @property
    def judged_weight(self) -> float:
        """The weight of the milestones that were decided (1 unless some were skipped)."""
        return round(sum(r.weight for r in self.results if not r.skipped), 6)

    def check_complete(self) -> None:
        """Raise WeightError unless the recorded weights sum to 1."""
        if not self.results:
            raise WeightError("the evaluator recorded no milestone")
        if self.declared is not None:
            recorded = {r.name for r in self.results}
            missing = [n for n in self.declared if n not in recorded]
            if missing:
                raise WeightError(f"declared milestones were not recorded: {', '.join(repr(n) for n in missing)}")
        problem = check_weights({r.name: r.weight for r in self.results})
        if problem:
            raise WeightError(problem)

    def table(self) -> str:
        """The milestone table shown for a failing task."""
        rows = [("milestone", "weight", "held", "why")]
        for r in self.results:
            held = "yes" if r.passed else "skip" if r.skipped else f"{r.credit:.2f}" if r.credit else "NO"
            rows.append((r.name, f"{r.weight:.2f}", held, r.detail.splitlines()[0] if r.detail else ""))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = []
        for i, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row[:3])) + "  " + row[3])
            if i == 0:
                lines.append("  ".join("-" * w for w in widths) + "  ---")
        lines.append(f"score {self.score:.2f} of 1.00")
        if self.skipped:
            undecided = f"{len(self.skipped)} milestone(s) of weight {1 - self.judged_weight:.2f} not decided"
            lines.append(f"partially scored: {undecided} (not a pass)" if self.partially_scored
                         else f"{undecided}; failed on the milestones that were decided")
        return "\n".join(line.rstrip() for line in lines)

    def to_list(self) -> list[dict[str, object]]:
        return [r.to_dict() for r in self.results]


def _active() -> ScoreCard:
    card = _bound_card.get()
    if card is None:
        raise RuntimeError("milestone() used outside of a task evaluation (no score card is active)")
    return card


def current_scoring() -> str | None:
    """The scoring the task is being evaluated under (``ScoreCard.scoring``; None: the suite's own, also
    outside an evaluation)."""
    card = _bound_card.get()
    return card.scoring if card is not None else None


@contextlib.contextmanager
def milestone(name: str, weight: float | None = None) -> Iterator[None]:
    """A weighted soft assertion on the score card of the task being evaluated. After ``declare`` the weight
    comes from the declaration (one given anyway must be the declared one)."""
    with _active().milestone(name, weight):
        yield


def note(text: str) -> None:
    """A remark on the milestone being recorded on the active card (kept as its detail when it holds)."""
    _active().note(text)


def declare(weights: Mapping[str, float]) -> None:
    """Declare the milestones (name -> weight, summing to 1) of the task being evaluated."""
    _active().declare(weights)


@contextlib.contextmanager
def active_card(card: ScoreCard) -> Iterator[ScoreCard]:
    """Bind ``card`` as the one the free functions ``milestone``, ``declare`` and ``note`` record into."""
    token = _bound_card.set(card)
    try:
        yield card
    finally:
        _bound_card.reset(token)


def check_weights(weights: Mapping[str, float]) -> str | None:
    """Return a problem description, or None when every weight is in (0, 1] and they sum to 1."""
    for name, w in weights.items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 < w <= 1:
            return f"milestone {name!r}: weight must be a number in (0, 1], got {w!r}"
    total = sum(weights.values())
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        listed = ", ".join(f"{n}={w:g}" for n, w in weights.items())
        return f"milestone weights sum to {total:g}, not 1 ({listed})"
    return None


def _assertion_text(exc: AssertionError) -> str:
    text = str(exc).strip()
    if text:
        return text
    frames = traceback.extract_tb(exc.__traceback__)
    if frames:
        last = frames[-1]
        return f"assertion failed: {last.line} ({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    return "assertion failed"


# --- answers of question tasks ---------------------------------------------------------------------------
# SCUBA's rule (master_evaluator.py, qa_evaluation): the answer earns its token F1 against the ground truth,
# and only when the ground truth occurs in the answer as it is written (case and punctuation included).

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = frozenset(string.punctuation + "\u2018\u2019\u00b4`")


def normalize_answer(text: str) -> str:
    """SCUBA's normalisation: underscores and punctuation become spaces, lower case, no articles, single
    spaces."""
    text = text.replace("_", " ").lower()
    text = "".join(" " if ch in _PUNCT else ch for ch in text)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def token_f1(prediction: str, truth: str) -> float:
    """Token F1 of the normalised texts (0 when they share no token, an empty one included)."""
    pred = normalize_answer(prediction).split()
    gold = normalize_answer(truth).split()
    common = Counter(pred) & Counter(gold)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class AnswerScore:
    contains: bool
    f1: float
    credit: float  # the part of the answer milestone earned: the F1 when the truth is contained, else 0
    passed: bool  # the whole milestone: contained and F1 of 1
    detail: str


def score_answer(answer: str | None, truth: str) -> AnswerScore:
    """SCUBA's rule for question tasks: the answer earns its token F1 when it contains the ground truth
    (a plain, case-sensitive substring test on the texts as given), nothing otherwise."""
    if answer is None or answer == "":
        return AnswerScore(False, 0.0, 0.0, False, "the agent gave no answer")
    contains = truth in answer
    f1 = token_f1(answer, truth)
    if not contains:
        return AnswerScore(False, f1, 0.0, False,
                           f"answer {answer[:200]!r} does not contain {truth!r} (token F1 {f1:.2f})")
    passed = f1 >= 1.0
    detail = "" if passed else f"answer {answer[:200]!r} contains {truth!r}; token F1 {f1:.2f} earns that part"
    return AnswerScore(True, f1, f1, passed, detail)


def record_answer(card: ScoreCard, answer: str | None, truth: str, name: str = "answer") -> AnswerScore:
    """Score a question's answer on ``card`` with SCUBA's rule: one milestone that earns the F1
    (``ScoreCard.record_answer``)."""
    return card.record_answer(answer, truth, name)
