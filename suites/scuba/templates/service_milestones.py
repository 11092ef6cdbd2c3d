"""Service: the milestones of an entitlement process (SCUBA's ``create_milestone``).

Ground truth: ``milestone_count`` and ``milestone_name_type_list`` (pairs of milestone name and recurrence
type: ``none``, ``recursIndependently``, ``recursChained``). SCUBA reads every MilestoneType
(``SELECT Name, RecurrenceType, Description FROM MilestoneType``); unless the org has at least
``milestone_count`` of them it scores nothing, else each (name, type) pair present exactly is worth
1 / ``milestone_count``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def pairs(truth: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ground truth's (name, recurrence type) pairs, checked against ``milestone_count``."""
    found = truth.get("milestone_name_type_list")
    count = truth.get("milestone_count")
    if not isinstance(found, list) or not all(isinstance(p, list) and len(p) == 2 for p in found):
        raise ValueError(f"ground truth 'milestone_name_type_list' must be a list of [name, type] pairs, "
                         f"got {found!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count != len(found):
        raise ValueError(f"ground truth 'milestone_count' is {count!r}, but 'milestone_name_type_list' has "
                         f"{len(found)} pairs")
    return [(str(n), str(t)) for n, t in found]


class CreateMilestone(s.ScubaTemplate):
    """Each named milestone type with its recurrence type."""

    name = "create_milestone"
    ground_truth_keys = ("milestone_count", "milestone_name_type_list")
    objects = ("MilestoneType",)

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        """SCUBA's equal split over the ground truth's milestones."""
        return s.share(1.0, (f"milestone {n!r} ({t})" for n, t in pairs(truth)))

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        found = s.checked_rows(sf, "SELECT Name, RecurrenceType FROM MilestoneType")
        have = {(r.get("Name"), r.get("RecurrenceType")) for r in found}
        count = int(truth["milestone_count"])
        for name, kind in pairs(truth):
            with milestone(f"milestone {name!r} ({kind})"):
                assert len(found) >= count, (f"the org has {len(found)} milestone types, fewer than the "
                                             f"{count} asked for")
                assert (name, kind) in have, (f"no milestone type {name!r} with recurrence type {kind!r} "
                                              f"(have: {sorted(str(n) for n, t in have if n)})")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf = env.org  # type: ignore[attr-defined]
        for name, kind in pairs(task.ground_truth):
            sf.MilestoneType.create({"Name": name, "RecurrenceType": kind})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        # Setup > Entitlement Management > Milestones (the MilestoneType records), then New for each milestone
        # ("Save & New" between them, as the demonstration does)
        steps: list[Action] = [*s.setup_link(env, "Milestones"), s.click_button("New")]
        milestones = pairs(task.ground_truth)
        for i, (name, kind) in enumerate(milestones):
            steps += [*s.fill_form(env, "MilestoneType", {"Name": name, "RecurrenceType": kind}),
                      s.click_button("Save & New" if i < len(milestones) - 1 else "Save")]
        steps.append(Done())
        return steps


TEMPLATES = [CreateMilestone()]
