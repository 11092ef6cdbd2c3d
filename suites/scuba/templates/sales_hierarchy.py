"""Sales: parent accounts and their subsidiaries (SCUBA's ``create_account_hierarchy``).

Ground truth ``hierarchies``: parent account name -> list of subsidiary names (possibly empty). SCUBA reads
every account (``SELECT Id, Name, ParentId FROM Account``) and gives one equal share to each parent's
existence, each subsidiary's existence and each subsidiary's link to its parent: 1 / (parents +
2 x subsidiaries) each. The first account of a name is the one it checks. Names are compared exactly,
except that dashes (hyphen, en dash, em dash) count as one character (see DEVIATIONS.md: the instruction of
sales_002_001 writes en dashes where its ground truth has hyphens).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence
from urllib.parse import quote

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done

from . import shared as s
from .common import goto

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212-]")


def _name_key(name: Any) -> str:
    return _DASHES.sub("-", str(name))


def hierarchies(truth: Mapping[str, Any]) -> dict[str, list[str]]:
    """The ground truth's parent -> subsidiaries, checked (a malformed ground truth is an evaluator error)."""
    found = truth.get("hierarchies")
    if not isinstance(found, Mapping) or not found:
        raise ValueError(f"ground truth 'hierarchies' must be a non-empty object, got {found!r}")
    out: dict[str, list[str]] = {}
    for parent, subs in found.items():
        if not isinstance(subs, list) or not all(isinstance(x, str) for x in subs):
            raise ValueError(f"ground truth 'hierarchies'[{parent!r}] must be a list of names, got {subs!r}")
        out[str(parent)] = list(subs)
    return out


class CreateAccountHierarchy(s.ScubaTemplate):
    """Every parent account, every subsidiary account, and each subsidiary's Parent Account."""

    name = "create_account_hierarchy"
    ground_truth_keys = ("hierarchies",)
    objects = ("Account",)

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        """The milestones of one task, in order: SCUBA's equal split over a milestone per parent, per
        subsidiary and per link."""
        names: list[str] = []
        for parent, subs in hierarchies(truth).items():
            names.append(f"parent account {parent!r}")
            for sub in subs:
                names += [f"subsidiary account {sub!r} of {parent!r}", f"{sub!r} linked to {parent!r}"]
        return s.share(1.0, names)

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        accounts = s.checked_rows(sf, "SELECT Id, Name, ParentId FROM Account ORDER BY CreatedDate, Id")

        key = str if s.exact() else _name_key  # SCUBA compares names exactly, dashes included

        def account(name: str) -> dict[str, Any] | None:
            return next((a for a in accounts if key(a.get("Name")) == key(name)), None)

        for parent, subs in hierarchies(truth).items():
            top = account(parent)
            with milestone(f"parent account {parent!r}"):
                assert top is not None, f"no account named {parent!r}"
            for sub in subs:
                child = account(sub)
                with milestone(f"subsidiary account {sub!r} of {parent!r}"):
                    assert child is not None, f"no account named {sub!r}"
                with milestone(f"{sub!r} linked to {parent!r}"):
                    assert child is not None and top is not None, \
                        f"{'no account ' + repr(sub) if child is None else 'no parent account ' + repr(parent)}"
                    assert child.get("ParentId") == top["Id"], \
                        f"{sub!r} has Parent Account {child.get('ParentId')!r}, not {parent!r} ({top['Id']})"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf = env.org  # type: ignore[attr-defined]
        for parent, subs in hierarchies(task.ground_truth).items():
            pid = sf.Account.create({"Name": parent})["id"]
            for sub in subs:
                sf.Account.create({"Name": sub, "ParentId": pid})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        steps: list[Action] = []
        for parent, subs in hierarchies(task.ground_truth).items():
            steps += s.new_from_list(env, "Account", {"Name": parent})
            for sub in subs:
                steps += s.new_from_list(env, "Account", {"Name": sub, "ParentId": parent})
        for parent in hierarchies(task.ground_truth):  # verify: the parent's page > View Account Hierarchy
            steps += [goto(env, f"/lightning/o/Account/list?q={quote(parent)}"), s.click_link(parent),
                      s.click_button("View Account Hierarchy")]
        steps.append(Done())
        return steps


TEMPLATES = [CreateAccountHierarchy()]
