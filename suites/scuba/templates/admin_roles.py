"""Admin persona, roles and public groups: extend the role hierarchy; create a public group with members.

SCUBA's ``define_role_hierarchy``: ground truth ``hierarchy``, a list of ``{role_name, parent_role_name,
is_new}`` (``parent_role_name`` null for a top-level role), read as SCUBA's scorer reads it
(``SELECT Name, ParentRole.Name FROM UserRole``).

SCUBA's ``create_public_group``: ground truth ``group_name``, ``users`` (full names) and ``roles`` (role
names); members are GroupMember rows pointing at users or at the roles' groups of type Role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua.actions import Action, Check, Done, Fill
from pytest_cua.scoring import milestone
from pytest_cua.suite import EvalContext, Template

from ._service_admin import (as_list, checked_rows, click_button, click_link, group_members, norm, role_by_name,
                             role_group_id, same_text, user_by_name)
from .common import goto

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.tasks import Task


def _entries(truth: Any) -> list[dict[str, Any]]:
    value = truth.get("hierarchy") or []
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def developer_name(label: str) -> str:
    """An API name from a label: "VP of R&D" -> "VP_of_R_D"."""
    out = "".join(ch if ch.isalnum() else "_" for ch in label.strip())
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_") or "Role"


class DefineRoleHierarchy(Template):
    """New roles in the hierarchy, and every listed role under its listed parent."""

    name = "define_role_hierarchy"
    objects = ("UserRole", "Group")
    milestones = {"new roles exist": 0.4, "reporting lines": 0.6}

    def evaluate(self, ctx: EvalContext) -> None:
        sf = ctx.env.org
        entries = _entries(ctx.truth)
        parents: dict[str, str | None] = {}
        with milestone("new roles exist", 0.4):
            for r in checked_rows(sf, "SELECT Name, ParentRole.Name FROM UserRole"):
                parents[norm(r.get("Name"))] = (r.get("ParentRole") or {}).get("Name")
            assert entries, "the ground truth lists no roles"
            lacking = [e.get("role_name") for e in entries if e.get("is_new") and norm(e.get("role_name")) not in parents]
            assert not lacking, f"roles not created: {lacking}"
        with milestone("reporting lines", 0.6):
            wrong = []
            for e in entries:
                role = norm(e.get("role_name"))
                if role not in parents:
                    wrong.append(f"{e.get('role_name')!r} does not exist")
                    continue
                want, got = e.get("parent_role_name"), parents[role]
                if (want is None) != (got is None) or (want is not None and not same_text(want, got)):
                    wrong.append(f"{e.get('role_name')!r} reports to {got!r}, expected {want!r}")
            assert entries and not wrong, "; ".join(wrong) or "the ground truth lists no roles"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf = env.org  # type: ignore[attr-defined]
        ids: dict[str, str] = {}
        for e in _entries(task.ground_truth):  # parents come before children in the list
            name = str(e["role_name"])
            parent = e.get("parent_role_name")
            parent_id = None
            if parent:
                parent_id = ids.get(norm(parent)) or (role_by_name(sf, str(parent)) or {}).get("Id")
                assert parent_id is not None, f"no role {parent!r}"
            if e.get("is_new"):
                ids[norm(name)] = sf.UserRole.create({"Name": name, "DeveloperName": developer_name(name),
                                                      "ParentRoleId": parent_id})["id"]
            else:
                role = role_by_name(sf, name)
                assert role is not None, f"seed has no role {name!r}"
                ids[norm(name)] = role["Id"]
                if role.get("ParentRoleId") != parent_id:
                    sf.UserRole.update(role["Id"], {"ParentRoleId": parent_id})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        steps: list[Action] = [goto(env, "/lightning/setup/SetupOneHome/home"), click_link("Roles")]
        for e in _entries(task.ground_truth):
            name, parent = str(e["role_name"]), e.get("parent_role_name")
            if e.get("is_new"):
                steps += [click_button("New Role"), Fill("label=Label", name),
                          Fill("label=Role Name", developer_name(name)),
                          Fill("label=This role reports to", str(parent or "")), click_button("Save"),
                          click_link("Roles")]
            else:
                steps += [click_link(name), click_button("Edit"), Fill("label=This role reports to", str(parent or "")),
                          click_button("Save"), click_link("Roles")]
        steps.append(Done())
        return steps


class CreatePublicGroup(Template):
    """A public group with user and role members."""

    name = "create_public_group"
    objects = ("Group", "GroupMember")
    milestones = {"group exists": 0.4, "user members": 0.3, "role members": 0.3}

    def evaluate(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("group_name", ""))
        group: dict[str, Any] | None = None
        users: set[str] = set()
        roles: set[str] = set()
        with milestone("group exists", 0.4):
            found = [g for g in checked_rows(sf, "SELECT Id, Name, DeveloperName FROM Group WHERE Type = 'Regular'")
                     if same_text(g.get("Name"), name)]
            assert found, f"no public group named {name!r}"
            group = found[-1]
            users, roles, _ = group_members(sf, group["Id"])
        with milestone("user members", 0.3):
            assert group is not None, f"no public group {name!r}"
            lacking = [u for u in as_list(truth.get("users")) if not any(same_text(u, x) for x in users)]
            assert not lacking, f"users missing from the group: {lacking} (users in it: {sorted(users)})"
        with milestone("role members", 0.3):
            assert group is not None, f"no public group {name!r}"
            lacking = [r for r in as_list(truth.get("roles")) if not any(same_text(r, x) for x in roles)]
            assert not lacking, f"roles missing from the group: {lacking} (roles in it: {sorted(roles)})"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["group_name"])
        gid = sf.Group.create({"Name": name, "DeveloperName": developer_name(name), "Type": "Regular"})["id"]
        for user_name in as_list(truth.get("users")):
            user = user_by_name(sf, user_name)
            assert user is not None, f"no user {user_name!r}"
            sf.GroupMember.create({"GroupId": gid, "UserOrGroupId": user["Id"]})
        for role in as_list(truth.get("roles")):
            rgid = role_group_id(sf, role)
            assert rgid is not None, f"no role {role!r}"
            sf.GroupMember.create({"GroupId": gid, "UserOrGroupId": rgid})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        name = str(truth["group_name"])
        steps: list[Action] = [goto(env, "/lightning/setup/SetupOneHome/home"), click_link("Public Groups"),
                               click_button("New"), Fill("label=Label", name),
                               Fill("label=Group Name", developer_name(name))]
        steps += [Check(f"label={u}") for u in as_list(truth.get("users"))]
        steps += [Check(f"label={r}") for r in as_list(truth.get("roles"))]
        steps += [click_button("Save"), Done()]
        return steps


TEMPLATES = [DefineRoleHierarchy(), CreatePublicGroup()]
