"""Admin persona, permissions: assign a permission set, or a permission set group, to a user.

SCUBA's ``assign_permission_set_to_user``: ground truth ``username`` (full name) and the permission set
(``permission_set``; ``permission_set_name`` / ``permission_set_label`` are read too), one label or a list.
SCUBA's ``assign_permset_group_to_user``: ground truth ``permission_set_group`` (label or API name) and
``user_name``. Both are read from PermissionSetAssignment, as SCUBA's scorers do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua.actions import Action, Check, Done
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import as_list, checked_rows, click_button, click_link, same_text, user_by_name
from .common import first, goto, soql_str

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task

_SET_KEYS = ("permission_set", "permission_set_name", "permission_set_label")


def _sets(truth: Mapping[str, Any]) -> list[str]:
    for key in _SET_KEYS:
        if truth.get(key):
            return as_list(truth[key])
    return []


def _assign_steps(env: Any, page: str, label: str, user: str) -> list[Action]:
    return [goto(env, "/lightning/setup/SetupOneHome/home"), click_link(page), click_link(label),
            click_button("Manage Assignments"), click_button("Add Assignment"), Check(f"label={user}"),
            click_button("Assign")]


class AssignPermissionSet(Template):
    """Every named permission set assigned to the user."""

    name = "assign_permission_set_to_user"
    objects = ("PermissionSetAssignment",)
    milestones = {"permission set assigned": 1.0}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("username", ""))
        with milestone("permission set assigned", 1.0):
            user = user_by_name(sf, name)
            assert user is not None, f"no user named {name!r}"
            wanted = _sets(truth)
            assert wanted, "the ground truth names no permission set"
            have = checked_rows(sf, f"SELECT PermissionSet.Label, PermissionSet.Name FROM PermissionSetAssignment "
                                    f"WHERE AssigneeId = {soql_str(user['Id'])} AND PermissionSetId != null")
            labels = [(r.get("PermissionSet") or {}) for r in have]
            lacking = [w for w in wanted if not any(same_text(w, p.get("Label")) or same_text(w, p.get("Name"))
                                                    for p in labels)]
            assert not lacking, (f"{name} lacks {lacking} (has {sorted(str(p.get('Label')) for p in labels)})")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        user = user_by_name(sf, str(truth["username"]))
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


class AssignPermissionSetGroup(Template):
    """The named permission set group assigned to the user."""

    name = "assign_permset_group_to_user"
    objects = ("PermissionSetAssignment",)
    milestones = {"permission set group assigned": 1.0}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        group = str(truth.get("permission_set_group", ""))
        name = str(truth.get("user_name", ""))
        with milestone("permission set group assigned", 1.0):
            user = user_by_name(sf, name)
            assert user is not None, f"no user named {name!r}"
            have = checked_rows(sf, f"SELECT PermissionSetGroup.MasterLabel, PermissionSetGroup.DeveloperName "
                                    f"FROM PermissionSetAssignment WHERE AssigneeId = {soql_str(user['Id'])} "
                                    f"AND PermissionSetGroupId != null")
            groups = [(r.get("PermissionSetGroup") or {}) for r in have]
            assert any(same_text(group, g.get("MasterLabel")) or same_text(group, g.get("DeveloperName"))
                       for g in groups), (f"{name} is not assigned {group!r} "
                                          f"(groups: {sorted(str(g.get('MasterLabel')) for g in groups)})")

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        user = user_by_name(sf, str(truth["user_name"]))
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
        return [*_assign_steps(env, "Permission Set Groups", shown, str(truth["user_name"])), Done()]


TEMPLATES = [AssignPermissionSet(), AssignPermissionSetGroup()]
