"""The comparison of two runs as data: each task's change, each group's paired figures, the gate's verdict.

``Comparison`` is what ``pytest_cua.results.compare.comparison.compare`` returns; ``to_dict()`` is its JSON form
(``comparison.json``, and what the HTML report reads).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Change = Literal["both_pass", "both_fail", "to_fail", "to_pass", "flaky", "error", "only_base", "only_new"]
Status = Literal["pass", "fail", "flaky", "error"]
CHANGES: tuple[Change, ...] = ("both_pass", "both_fail", "to_fail", "to_pass", "flaky", "error", "only_base",
                               "only_new")


@dataclass
class RunInfo:
    """One run's identity: its id, agent, the most trials of any task, and how many tasks it ran."""

    run_id: str | None
    agent: str | None
    trials: int
    tasks: int
    scoring: str | None = None  # the suite scoring that decided its outcomes (records' ``scoring``), if any
    scorings: dict[str, float | None] = field(default_factory=dict)  # its other scorings: name -> mean score


@dataclass
class Side:
    """One task's trials in one run."""

    trials: int
    passed: int
    failed: int
    errors: int
    success: float | None  # passed / (passed + failed)
    score: float | None  # mean score of the passed and failed trials
    status: Status
    cost_usd: float
    steps: float  # mean over the trials that ran


@dataclass
class MilestoneChange:
    name: str
    base: bool | None  # None: the milestone is absent on that side
    new: bool | None


@dataclass
class TaskChange:
    key: str
    suite: str | None
    id: str
    persona: str | None
    difficulty: str | None
    level: str | None
    template: str | None
    base: Side | None
    new: Side | None
    change: Change
    milestones_changed: list[MilestoneChange] = field(default_factory=list)


@dataclass
class Group:
    """The paired comparison of one group of tasks (``overall``, or one suite, persona, ...)."""

    tasks: int
    base_success: float | None
    new_success: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    test: Literal["mcnemar", "sign-flip"]
    base_score: float | None
    new_score: float | None
    score_diff: float | None
    score_ci_low: float | None
    score_ci_high: float | None
    flips_to_fail: int
    flips_to_pass: int


@dataclass
class Gate:
    ok: bool
    reasons: list[str]
    line: str


@dataclass
class Comparison:
    """The result of :func:`compare`; ``to_dict()`` is its JSON form (the HTML report reads it)."""

    base: RunInfo
    new: RunInfo
    alpha: float
    max_drop: float
    quarantine_flaky: bool
    tasks: list[TaskChange]
    counts: dict[str, int]
    flaky: list[str]
    overall: Group
    groups: dict[str, dict[str, Group]]
    errors: dict[str, int]
    gate: Gate

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
