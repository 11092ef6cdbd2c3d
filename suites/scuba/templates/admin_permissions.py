"""Admin persona, permissions: assign a permission set, or a permission set group, to a user.

SCUBA's ``assign_permission_set_to_user``: ground truth ``username`` (full name) and the permission set
(``permission_set``; ``permission_set_name`` / ``permission_set_label`` are read too), one label or a list.
SCUBA's ``assign_permset_group_to_user``: ground truth ``permission_set_group`` (label or API name) and
``user_name``. Both are read from PermissionSetAssignment, as SCUBA's scorers do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done

from . import shared as s
from .admin_permset_groups import assign_from_user
from .common import field, first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

_SET_KEYS = ("permission_set", "permission_set_name", "permission_set_label")


def _sets(truth: Mapping[str, Any]) -> list[str]:
    for key in _SET_KEYS:
        if truth.get(key):
            return s.as_list(truth[key])
    return []


def _assign_steps(env: Any, page: str, label: str, user: str) -> list[Action]:
    return [*s.setup_link(env, page), s.click_link(label),
            s.click_button("Manage Assignments"), s.click_button("Add Assignment"), Check(f"label={user}"),
            s.click_button("Assign")]


class AssignPermissionSet(s.ScubaTemplate):
    """Every named permission set assigned to the user."""

    name = "assign_permission_set_to_user"
    ground_truth_keys = ("permission_set", "username")
    objects = ("PermissionSetAssignment",)
    milestones = {"permission set assigned": 1.0}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("username", ""))
        with milestone("permission set assigned"):
            user = s.user_by_name(sf, name)
            assert user is not None, f"no user named {name!r}"
            wanted = _sets(truth)
            assert wanted, "the ground truth names no permission set"
            have = s.checked_rows(sf, f"SELECT PermissionSet.Label, PermissionSet.Name FROM PermissionSetAssignment "
                                    f"WHERE AssigneeId = {soql_str(user['Id'])} AND PermissionSetId != null")
            labels = [(r.get("PermissionSet") or {}) for r in have]
            lacking = [w for w in wanted if not any(s.same_text(w, p.get("Label")) or s.same_text(w, p.get("Name"))
                                                    for p in labels)]
            assert not lacking, (f"{name} lacks {lacking} (has {sorted(str(p.get('Label')) for p in labels)})")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        user = s.user_by_name(sf, str(truth["username"]))
        assert user is not None, f"seed has no user {truth['username']!r}"
        for label in _sets(truth):
            ps = first(sf, f"SELECT Id FROM PermissionSet WHERE Label = {soql_str(label)} OR Name = {soql_str(label)}")
            assert ps is not None, f"seed has no permission set {label!r}"
            sf.PermissionSetAssignment.create({"AssigneeId": user["Id"], "PermissionSetId": ps["Id"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        steps: list[Action] = []
        for label in _sets(truth):
            steps += _assign_steps(env, "Permission Sets", label, str(truth["username"]))
        steps.append(Done())
        return steps


class AssignPermissionSetGroup(s.ScubaTemplate):
    """The named permission set group (by its label) assigned to the user (first and last name).

    Deliberate deviation (DEVIATIONS.md): SCUBA checks the first assignment of the group, which is another
    user's when the group was assigned before; any assignment of the group to the user counts here."""

    name = "assign_permset_group_to_user"
    ground_truth_keys = ("permission_set_group", "user_name")
    objects = ("PermissionSetAssignment",)
    milestones = {"permission set group assigned": 1.0}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        group = str(truth.get("permission_set_group", ""))
        name = str(truth.get("user_name", ""))
        with milestone("permission set group assigned"):
            have = s.checked_rows(sf, "SELECT PermissionSetGroup.DeveloperName, Assignee.FirstName, Assignee.LastName "
                                      "FROM PermissionSetAssignment WHERE PermissionSetGroup.MasterLabel = "
                                      f"{soql_str(group)}")
            if not have and not s.exact():  # an own task may name the group by its API name; SCUBA's by label
                have = s.checked_rows(sf, "SELECT PermissionSetGroup.DeveloperName, Assignee.FirstName, "
                                          "Assignee.LastName FROM PermissionSetAssignment "
                                          f"WHERE PermissionSetGroup.DeveloperName = {soql_str(group)}")
            assert have, f"{group!r} is assigned to nobody"
            assignees = [(field(a, "Assignee.FirstName"), field(a, "Assignee.LastName")) for a in have]
            if s.exact():  # SCUBA: the first assignment of the group only
                assignees = assignees[:1]
            assert tuple(name.split(" ")) in assignees, \
                f"{group!r} is assigned to {[' '.join(map(str, a)) for a in assignees]}, not to {name!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        user = s.user_by_name(sf, str(truth["user_name"]))
        label = str(truth["permission_set_group"])
        psg = first(sf, f"SELECT Id FROM PermissionSetGroup WHERE MasterLabel = {soql_str(label)} "
                        f"OR DeveloperName = {soql_str(label)}")
        assert user is not None and psg is not None, "seed lacks the user or the permission set group"
        sf.PermissionSetAssignment.create({"AssigneeId": user["Id"], "PermissionSetGroupId": psg["Id"]})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        label = str(truth["permission_set_group"])
        psg = first(sf, f"SELECT MasterLabel FROM PermissionSetGroup WHERE MasterLabel = {soql_str(label)} "
                        f"OR DeveloperName = {soql_str(label)}")
        shown = str(psg["MasterLabel"]) if psg else label
        # Salesforce's way: the group > Manage Assignments > Add Assignment > the user's page > Permission Set Group
        # Assignments > Edit Assignments > Add > Save
        return [*s.setup_link(env, "Permission Set Groups"),
                s.click_link(shown), *assign_from_user(str(truth["user_name"]), shown), Done()]


TEMPLATES = [AssignPermissionSet(), AssignPermissionSetGroup()]
