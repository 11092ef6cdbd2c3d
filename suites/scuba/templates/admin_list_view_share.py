"""Admin persona: a list view with two columns shared with groups and roles (SCUBA's ``create_list_view_share``).

Ground truth: ``object_name``, ``list_view_name``, ``field1`` and ``field2`` (list view column names as the
metadata writes them: ``ACCOUNT.NAME``, ``OPPORTUNITY.AMOUNT``), ``users`` (public group and role developer
names). SCUBA finds the first list view of that name (SOQL) and reads ``<object>.<DeveloperName>`` from the
metadata: it exists (0.3); its columns are exactly the two fields (0.3); the groups and roles of its
``sharedTo`` are exactly ``users`` (0.4).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Click, Done, Fill, Uncheck

from . import metadata_io as md
from . import shared as s
from .common import first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _users(truth: Mapping[str, Any]) -> list[str]:
    found = truth.get("users")
    if not isinstance(found, list) or not all(isinstance(u, str) for u in found):
        raise ValueError(f"ground truth 'users' must be a list of names, got {found!r}")
    return list(found)


class CreateListViewShare(s.ScubaTemplate):
    """A list view of two columns, visible to the named groups and roles only."""

    name = "create_list_view_share"
    ground_truth_keys = ("field1", "field2", "list_view_name", "object_name", "users")
    objects = ("ListView",)
    milestones = {"list view exists": 0.3, "the two columns": 0.3, "shared with the groups and roles": 0.4}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        obj, label = str(truth.get("object_name", "")), str(truth.get("list_view_name", ""))
        rec = first(sf, f"SELECT Id, DeveloperName, Name, SobjectType FROM ListView WHERE Name = {soql_str(label)} "
                        "ORDER BY CreatedDate, Id")
        view = md.read_one(sf, "ListView", f"{obj}.{rec['DeveloperName']}") if rec else None
        where = f"{obj}.{rec['DeveloperName']}" if rec else f"a list view named {label!r}"
        with milestone("list view exists"):
            assert rec is not None, f"no list view named {label!r}"
            assert view is not None, f"no list view {where} of {obj!r} (the first named {label!r} is of " \
                                     f"{rec.get('SobjectType')!r})"
        with milestone("the two columns"):
            assert view is not None, f"no list view {where}"
            columns = md.texts(view, "columns")
            wanted = [truth.get("field1"), truth.get("field2")]
            assert all(c in columns for c in wanted) and len(columns) == 2, \
                f"the columns are {columns}, expected exactly {wanted}"
        with milestone("shared with the groups and roles"):
            assert view is not None, f"no list view {where}"
            shared = view.find("sharedTo")
            found = md.texts(shared, "group") + md.texts(shared, "role")
            assert set(found) == set(_users(truth)), \
                f"shared with the groups and roles {sorted(found)}, expected {sorted(_users(truth))}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        groups: list[str] = []
        roles: list[str] = []
        for name in _users(truth):
            group = first(sf, f"SELECT Id FROM Group WHERE Type = 'Regular' AND DeveloperName = {soql_str(name)}")
            (groups if group else roles).append(name)
        label = str(truth["list_view_name"])
        developer = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")
        shared: dict[str, Any] = {}
        if groups:
            shared["group"] = groups
        if roles:
            shared["role"] = roles
        md.upsert(sf, "ListView", f"{truth['object_name']}.{developer}", {
            "columns": [truth["field1"], truth["field2"]], "filterScope": "Everything", "label": label,
            "sharedTo": shared})



    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The object's list > List View Controls > New: the name, "Share list view with groups of users" and each
        group or role by name, Save; then List View Controls > Select Fields to Display: exactly the two fields."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = str(truth["object_name"])
        steps: list[Action] = [s.goto(env, f"/lightning/o/{obj}/list"), s.click_button("List View Controls"),
                               Click('role=menuitem[name="New"]'),
                               Fill("label=List Name", str(truth["list_view_name"])),
                               Check("label=Share list view with groups of users")]
        for name in _users(truth):
            found = first(sf, f"SELECT Name FROM Group WHERE Type = 'Regular' AND DeveloperName = {soql_str(name)}") \
                or first(sf, f"SELECT Name FROM UserRole WHERE DeveloperName = {soql_str(name)}")
            steps.append(Check(f"label={found['Name'] if found else name}"))
        steps += [s.click_button("Save"), s.click_button("List View Controls"),
                  Click('role=menuitem[name="Select Fields to Display"]'), Check("label=Select All"),
                  Uncheck("label=Select All")]
        steps += [Check(f"label={s.column_field(env, obj, str(truth[k]))[1]}") for k in ("field1", "field2")]
        return [*steps, s.click_button("Save"), Done()]


TEMPLATES = [CreateListViewShare()]
