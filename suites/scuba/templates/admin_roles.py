"""Admin persona, roles and public groups: extend the role hierarchy; create a public group with members.

SCUBA's ``define_role_hierarchy``: ground truth ``hierarchy``, a list of ``{role_name, parent_role_name,
is_new}`` (``parent_role_name`` null for a top-level role), read as SCUBA's scorer reads it
(``SELECT Name, ParentRole.Name FROM UserRole``).

SCUBA's ``create_public_group``: ground truth ``group_name``, ``users`` (full names) and ``roles`` (role
names); members are GroupMember rows pointing at users or at the roles' groups of type Role.

Scored as SCUBA scores them (milestone_evaluator_admin_new.py): the hierarchy earns 1/n per entry (a new
role: half for the role, half for its parent; an existing one: all for its parent), read from
``SELECT Name, ParentRole.Name FROM UserRole`` (the last role of a name counts); the group earns 0.25 for a
group of the name and 0.75 split evenly over its user and role members.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Done, Fill

from . import shared as s
from .service_queues import add_member_steps
from .common import field, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _entries(truth: Any) -> list[dict[str, Any]]:
    value = truth.get("hierarchy") or []
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def developer_name(label: str) -> str:
    """An API name from a label: "VP of R&D" -> "VP_of_R_D"."""
    out = "".join(ch if ch.isalnum() else "_" for ch in label.strip())
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_") or "Role"


class DefineRoleHierarchy(s.ScubaTemplate):
    """New roles in the hierarchy, and every listed role under its listed parent."""

    name = "define_role_hierarchy"
    ground_truth_keys = ("hierarchy",)
    objects = ("UserRole", "Group")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        entries = _entries(truth)
        out: dict[str, float] = {}
        for e in entries:
            weight = 1 / len(entries)
            if e.get("is_new"):
                out[f"role {e.get('role_name')!r} created"] = weight / 2
            out[f"{e.get('role_name')!r} reports to {e.get('parent_role_name')!r}"] = weight / 2 if e.get("is_new") else weight
        return out

    def check(self, ctx: EvalContext) -> None:
        parents = {r.get("Name"): field(r, "ParentRole.Name")
                   for r in s.checked_rows(ctx.env.org, "SELECT Name, ParentRole.Name FROM UserRole")}
        for e in _entries(ctx.truth):
            role, want = e.get("role_name"), e.get("parent_role_name")
            if e.get("is_new"):
                with milestone(f"role {role!r} created"):
                    assert role in parents, f"no role {role!r}"
            with milestone(f"{role!r} reports to {want!r}"):
                assert role in parents, f"no role {role!r}"
                assert parents[role] == want, f"{role!r} reports to {parents[role]!r}, expected {want!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf = env.org  # type: ignore[attr-defined]
        ids: dict[str, str] = {}
        for e in _entries(task.ground_truth):  # parents come before children in the list
            name = str(e["role_name"])
            parent = e.get("parent_role_name")
            parent_id = None
            if parent:
                parent_id = ids.get(s.norm(parent)) or (s.role_by_name(sf, str(parent)) or {}).get("Id")
                assert parent_id is not None, f"no role {parent!r}"
            if e.get("is_new"):
                ids[s.norm(name)] = sf.UserRole.create({"Name": name, "DeveloperName": developer_name(name),
                                                      "ParentRoleId": parent_id})["id"]
            else:
                role = s.role_by_name(sf, name)
                assert role is not None, f"seed has no role {name!r}"
                ids[s.norm(name)] = role["Id"]
                if role.get("ParentRoleId") != parent_id:
                    sf.UserRole.update(role["Id"], {"ParentRoleId": parent_id})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        sf = env.org  # type: ignore[attr-defined]
        steps: list[Action] = [*s.setup_link(env, "Roles")]
        entries = _entries(task.ground_truth)
        # a "new" role the org already has (the release's seed has some) is edited to its place, not made twice
        creates = [bool(e.get("is_new")) and not s.rows(sf, f"SELECT Id FROM UserRole WHERE Name = "
                                                            f"{soql_str(str(e['role_name']))}") for e in entries]
        on_new_form = False
        for i, e in enumerate(entries):
            name, parent = str(e["role_name"]), e.get("parent_role_name")
            if creates[i]:
                if not on_new_form:
                    steps.append(s.click_button("New Role"))
                steps += [Fill("label=Label", name), Fill("label=Role Name", developer_name(name)),
                          Fill("label=This role reports to", str(parent or ""))]
                # Save & New when the next role is new too (as the demonstration chains them)
                on_new_form = i + 1 < len(entries) and creates[i + 1]
                steps += [s.click_button("Save & New")] if on_new_form else [s.click_button("Save"),
                                                                              s.click_link("Roles")]
            else:
                steps += [s.click_link(name), s.click_button("Edit"), Fill("label=This role reports to", str(parent or "")),
                          s.click_button("Save"), s.click_link("Roles")]
        steps.append(Done())
        return steps


class CreatePublicGroup(s.ScubaTemplate):
    """A public group with user and role members."""

    name = "create_public_group"
    ground_truth_keys = ("group_name", "roles", "users")
    objects = ("Group", "GroupMember")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        members = [f"user {u!r} in the group" for u in s.as_list(truth.get("users"))] + \
            [f"role {r!r} in the group" for r in s.as_list(truth.get("roles"))]
        return {"group exists": 0.25, **s.share(0.75, members)}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        name = str(truth.get("group_name", ""))
        groups = s.checked_rows(sf, f"SELECT Id FROM Group WHERE Name = {soql_str(name)}")
        ids = {m.get("UserOrGroupId") for m in s.checked_rows(
            sf, f"SELECT UserOrGroupId FROM GroupMember WHERE Group.Name = {soql_str(name)}")}
        with milestone("group exists"):
            assert groups, f"no group named {name!r}"
        for user_name in s.as_list(truth.get("users")):
            with milestone(f"user {user_name!r} in the group"):
                users = s.checked_rows(sf, f"SELECT Id, Name FROM User WHERE Name = {soql_str(user_name)}")
                assert users, f"no user named {user_name!r}"
                assert users[-1]["Id"] in ids, f"user {user_name!r} is not a member of {name!r}"
        for role in s.as_list(truth.get("roles")):
            with milestone(f"role {role!r} in the group"):
                found = s.checked_rows(sf, f"SELECT Id, Related.Name FROM Group WHERE Type = 'Role' "
                                           f"AND Related.Name = {soql_str(role)}")
                assert found, f"no role named {role!r}"
                assert found[-1]["Id"] in ids, f"role {role!r} is not a member of {name!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = str(truth["group_name"])
        gid = sf.Group.create({"Name": name, "DeveloperName": developer_name(name), "Type": "Regular"})["id"]
        for user_name in s.as_list(truth.get("users")):
            user = s.user_by_name(sf, user_name)
            assert user is not None, f"no user {user_name!r}"
            sf.GroupMember.create({"GroupId": gid, "UserOrGroupId": user["Id"]})
        for role in s.as_list(truth.get("roles")):
            rgid = s.role_group_id(sf, role)
            assert rgid is not None, f"no role {role!r}"
            sf.GroupMember.create({"GroupId": gid, "UserOrGroupId": rgid})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        name = str(truth["group_name"])
        steps: list[Action] = [*s.setup_link(env, "Public Groups"),
                               s.click_button("New"), Fill("label=Label", name),
                               Fill("label=Group Name", developer_name(name))]
        # the members' dueling lists: "Search" Users / Roles, the member in "Available Members", Add
        sf = env.org  # type: ignore[attr-defined]
        steps += add_member_steps(sf, [str(u) for u in s.as_list(truth.get("users"))], ("Users",), 0)
        steps += add_member_steps(sf, [str(r) for r in s.as_list(truth.get("roles"))], ("Roles",), 0)
        steps += [s.click_button("Save"), Done()]
        return steps


TEMPLATES = [DefineRoleHierarchy(), CreatePublicGroup()]
