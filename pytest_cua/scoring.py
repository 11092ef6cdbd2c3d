"""Milestones, the score card, answer scoring and the checks on weights.

Inside an evaluator::

    with milestone("queue exists", weight=0.3):
        assert queue, f"no queue named {name!r}"

A failed milestone records the assertion message and the evaluation goes on. The score is the sum of the
weights that held; weights of a task sum to 1 (checked). The task passes when the score is 1. Any exception
other than an AssertionError inside an evaluator is an ``EvaluatorCrash``: an error outcome, not a failure.
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
DEFAULT_ANSWER_THRESHOLD = 0.5

_current_card: contextvars.ContextVar["ScoreCard | None"] = contextvars.ContextVar("pytest_cua_card", default=None)


class WeightError(ValueError):
    """Milestone weights that do not sum to 1, or a weight out of (0, 1]: an evaluator bug."""

    error_kind = "evaluator"


class EvaluatorCrash(Exception):
    """An evaluator raised something other than a milestone assertion: an error outcome."""

    error_kind = "evaluator"

    def __init__(self, template: str | None, milestone_name: str | None, exc: BaseException) -> None:
        self.template = template
        self.milestone_name = milestone_name
        self.original = exc
        where = f"template {template!r}" if template else "the evaluator"
        if milestone_name:
            where += f", milestone {milestone_name!r}"
        super().__init__(f"{where} crashed: {type(exc).__name__}: {exc}")


class MilestonesFailed(AssertionError):
    """The agent fell short: raised in the test call with the milestone table as its message."""


@dataclass
class MilestoneResult:
    name: str
    weight: float
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "weight": self.weight, "passed": self.passed, "detail": self.detail}


@dataclass
class ScoreCard:
    """Collects milestone results for one task."""

    task_id: str = ""
    template: str | None = None
    results: list[MilestoneResult] = field(default_factory=list)

    @contextlib.contextmanager
    def milestone(self, name: str, weight: float) -> Iterator[None]:
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= 1:
            raise WeightError(f"milestone {name!r}: weight must be a number in (0, 1], got {weight!r}")
        if any(r.name == name for r in self.results):
            raise WeightError(f"milestone {name!r} is recorded twice")
        try:
            yield
        except AssertionError as exc:
            self.results.append(MilestoneResult(name, float(weight), False, _assertion_text(exc)))
        except Exception as exc:  # an evaluator bug or an unreachable environment: error outcome
            raise EvaluatorCrash(self.template, name, exc) from exc
        else:
            self.results.append(MilestoneResult(name, float(weight), True))

    def record(self, name: str, weight: float, passed: bool, detail: str = "") -> None:
        """Record a milestone decided elsewhere (e.g. an answer score)."""
        with self.milestone(name, weight):
            assert passed, detail or "did not hold"

    @property
    def total_weight(self) -> float:
        return sum(r.weight for r in self.results)

    @property
    def score(self) -> float:
        return round(float(sum(r.weight for r in self.results if r.passed)), 6)

    @property
    def success(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def check_complete(self) -> None:
        """Raise WeightError unless the recorded weights sum to 1."""
        if not self.results:
            raise WeightError("the evaluator recorded no milestone")
        problem = check_weights({r.name: r.weight for r in self.results})
        if problem:
            raise WeightError(problem)

    def table(self) -> str:
        """The milestone table shown for a failing task."""
        rows = [("milestone", "weight", "held", "why")]
        for r in self.results:
            rows.append((r.name, f"{r.weight:.2f}", "yes" if r.passed else "NO", r.detail.splitlines()[0] if r.detail else ""))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = []
        for i, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row[:3])) + "  " + row[3])
            if i == 0:
                lines.append("  ".join("-" * w for w in widths) + "  ---")
        lines.append(f"score {self.score:.2f} of 1.00")
        return "\n".join(line.rstrip() for line in lines)

    def to_list(self) -> list[dict[str, object]]:
        return [r.to_dict() for r in self.results]


@contextlib.contextmanager
def milestone(name: str, weight: float) -> Iterator[None]:
    """A weighted soft assertion on the score card of the task being evaluated."""
    card = _current_card.get()
    if card is None:
        raise RuntimeError("milestone() used outside of a task evaluation (no score card is active)")
    with card.milestone(name, weight):
        yield


@contextlib.contextmanager
def active_card(card: ScoreCard) -> Iterator[ScoreCard]:
    """Make ``card`` the one ``milestone()`` records into."""
    token = _current_card.set(card)
    try:
        yield card
    finally:
        _current_card.reset(token)


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

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the usual QA normalisation)."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def token_f1(prediction: str, truth: str) -> float:
    pred = normalize_answer(prediction).split()
    gold = normalize_answer(truth).split()
    if not pred or not gold:
        return float(pred == gold)
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
    passed: bool
    detail: str


def score_answer(answer: str | None, truth: str, *, threshold: float = DEFAULT_ANSWER_THRESHOLD) -> AnswerScore:
    """SCUBA's rule for question tasks: token F1 counts only when the ground truth occurs in the answer.

    The answer passes when it contains the (normalised) ground truth and its token F1 is at least
    ``threshold``; the F1 is reported either way.
    """
    if not answer:
        return AnswerScore(False, 0.0, False, "the agent gave no answer")
    contains = normalize_answer(truth) in normalize_answer(answer)
    f1 = token_f1(answer, truth)
    if not contains:
        return AnswerScore(False, 0.0, False, f"answer {answer[:200]!r} does not contain {truth!r} (token F1 {f1:.2f})")
    passed = f1 >= threshold
    detail = f"token F1 {f1:.2f} {'>=' if passed else '<'} {threshold:.2f}"
    return AnswerScore(True, f1, passed, detail)
