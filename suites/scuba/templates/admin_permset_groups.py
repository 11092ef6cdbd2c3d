"""Admin persona, permission set groups: create a group of permission sets, assign it to a user.

SCUBA's ``create_permset_group_access_set``: ground truth ``label_name`` and ``access_set_name``; the group
(found by MasterLabel, SOQL's case-insensitive equality) exists (0.25), and its only component is the
permission set labelled exactly ``access_set_name`` (0.75).

SCUBA's ``create_permset_group_assign_user``: ground truth ``group_name``, ``comma_separated_permissions_list``
(labels joined by ", ") and ``username`` (full name); the group exists (0.3), the labels of its components are
exactly the listed ones (0.4), and it is assigned to one user only, that user (0.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill, SelectOption, Uncheck

from .shared import ScubaTemplate, checked_rows, click_button, click_link, setup_link, user_by_name
from .common import first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


def _group(sf: Any, label: str) -> dict[str, Any] | None:
    found = checked_rows(sf, f"SELECT Id FROM PermissionSetGroup WHERE MasterLabel = {soql_str(label)}")
    return found[0] if found else None


def _component_labels(sf: Any, label: str) -> list[Any]:
    found = checked_rows(sf, "SELECT PermissionSet.Label FROM PermissionSetGroupComponent "
                             f"WHERE PermissionSetGroup.MasterLabel = {soql_str(label)}")
    return [(r.get("PermissionSet") or {}).get("Label") for r in found]


def _full_name(first_name: Any, last_name: Any) -> str:
    """A user's name as SCUBA joins it: "First Last", or the last name alone when there is no first name."""
    return f"{first_name} {last_name}" if first_name else str(last_name)


def _create_group(sf: Any, label: str, set_labels: Sequence[str]) -> str:
    existing = _group(sf, label)
    if existing is not None:  # a seed may hold the group already: its permission sets become the named ones
        gid = str(existing["Id"])
        for row in checked_rows(sf, "SELECT Id FROM PermissionSetGroupComponent "
                                    f"WHERE PermissionSetGroupId = {soql_str(gid)}"):
            sf.PermissionSetGroupComponent.delete(row["Id"])
    else:
        gid = str(sf.PermissionSetGroup.create({"MasterLabel": label, "DeveloperName": _api_name(label)})["id"])
    for set_label in set_labels:
        ps = first(sf, f"SELECT Id FROM PermissionSet WHERE Label = {soql_str(set_label)}")
        assert ps is not None, f"the org has no permission set labelled {set_label!r}"
        sf.PermissionSetGroupComponent.create({"PermissionSetGroupId": gid, "PermissionSetId": ps["Id"]})
    return gid


def _api_name(label: str) -> str:
    text = "".join(c if c.isalnum() else "_" for c in label).strip("_")
    while "__" in text:
        text = text.replace("__", "_")
    return text if text[:1].isalpha() else f"X{text}"


def _index_letter(label: str) -> str:
    """The alphabetical index entry of a permission set's label ("A" ... "Z", "Other")."""
    first_char = label[:1].upper()
    return first_char if "A" <= first_char <= "Z" else "Other"


def _create_steps(env: Any, label: str, set_labels: Sequence[str]) -> list[Action]:
    """New group, Save, then for each permission set: Add Permission Set, its letter in the alphabetical index,
    check it, Add, Done (back to the group)."""
    steps = [*setup_link(env, "Permission Set Groups")]
    if _group(env.org, label) is None:
        steps += [click_button("New Permission Set Group"), Fill("label=Label", label), click_button("Save")]
    else:  # a seed holds the group already: open it, take out the sets not named (Permission Sets in Group)
        have = [str(x) for x in _component_labels(env.org, label)]
        steps.append(click_link(label))
        extra = [x for x in have if x not in set_labels]
        if extra:
            steps += [click_button("Permission Sets in Group"), *[Uncheck(f"label={x}") for x in extra],
                      click_button("Save")]
        set_labels = [x for x in set_labels if x not in have]
    for x in set_labels:
        steps += [click_button("Add Permission Set"), click_link(_index_letter(x)), Check(f"label={x}"),
                  click_button("Add"), click_button("Done")]
    return steps


def assign_from_user(user: str, group: str) -> list[Action]:
    """From the group's Manage Assignments > Add Assignment, the user's page, then its Permission Set Group
    Assignments > Edit Assignments: the group moved from Available to Enabled (Add), Save."""
    return [click_button("Manage Assignments"), click_button("Add Assignment"), click_link(user),
            click_button("Edit Assignments"), SelectOption("label=Available Permission Set Groups", group),
            click_button("Add"), click_button("Save")]


class CreatePermsetGroupAccessSet(ScubaTemplate):
    """A permission set group whose one permission set is the named access set."""

    name = "create_permset_group_access_set"
    ground_truth_keys = ("access_set_name", "label_name")
    objects = ("PermissionSetGroup", "PermissionSetGroupComponent")
    milestones = {"permission set group exists": 0.25, "access set is the group's only permission set": 0.75}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        label, wanted = str(truth.get("label_name", "")), truth.get("access_set_name")
        with milestone("permission set group exists"):
            assert _group(sf, label) is not None, f"no permission set group labelled {label!r}"
        with milestone("access set is the group's only permission set"):
            have = _component_labels(sf, label)
            assert have == [wanted], f"the permission sets of group {label!r} are {have}, expected only {wanted!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        truth = task.ground_truth
        _create_group(env.org, str(truth["label_name"]), [str(truth["access_set_name"])])  # type: ignore[attr-defined]

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        return [*_create_steps(env, str(truth["label_name"]), [str(truth["access_set_name"])]), Done()]


def _listed(truth: Mapping[str, Any]) -> list[str]:
    return str(truth.get("comma_separated_permissions_list", "")).split(", ")


class CreatePermsetGroupAssignUser(ScubaTemplate):
    """A permission set group of the listed permission sets, assigned to the user."""

    name = "create_permset_group_assign_user"
    ground_truth_keys = ("comma_separated_permissions_list", "group_name", "username")
    objects = ("PermissionSetGroup", "PermissionSetGroupComponent", "PermissionSetAssignment")
    milestones = {"permission set group exists": 0.3, "permission sets in the group": 0.4,
                  "group assigned to the user": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        label, user = str(truth.get("group_name", "")), truth.get("username")
        with milestone("permission set group exists"):
            assert _group(sf, label) is not None, f"no permission set group labelled {label!r}"
        with milestone("permission sets in the group"):
            have = _component_labels(sf, label)
            assert set(have) == set(_listed(truth)), \
                f"the permission sets of group {label!r} are {sorted(map(str, have))}, expected {_listed(truth)}"
        with milestone("group assigned to the user"):
            found = checked_rows(sf, "SELECT Assignee.FirstName, Assignee.LastName FROM PermissionSetAssignment "
                                     f"WHERE PermissionSetGroup.MasterLabel = {soql_str(label)}")
            users = [_full_name((r.get("Assignee") or {}).get("FirstName"), (r.get("Assignee") or {}).get("LastName"))
                     for r in found]
            assert users == [user], f"group {label!r} is assigned to {users}, expected only {user!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        user = user_by_name(sf, str(truth["username"]))
        assert user is not None, f"the org has no user {truth['username']!r}"
        gid = _create_group(sf, str(truth["group_name"]), _listed(truth))
        sf.PermissionSetAssignment.create({"AssigneeId": user["Id"], "PermissionSetGroupId": gid})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        truth = task.ground_truth
        return [*_create_steps(env, str(truth["group_name"]), _listed(truth)),
                *assign_from_user(str(truth["username"]), str(truth["group_name"])), Done()]


TEMPLATES = [CreatePermsetGroupAccessSet(), CreatePermsetGroupAssignUser()]
