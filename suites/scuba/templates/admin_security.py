"""Admin persona: a permission set with object and field permissions, and a muting permission set in a
permission set group (SCUBA's ``create_permission_set_medium`` and ``create_muting_permission_set``).

``create_permission_set_medium`` (``label_name``, ``object_name``, ``permissions``: ``allowRead, allowCreate``):
SCUBA reads the permission set ``Label_With_Underscores``. It exists (0.25); the object permissions on the
object that are on are exactly the listed ones (0.25); every field permission on a field whose name starts with
the object's is readable (0.25) and editable (0.25; SCUBA leaves out the fields nobody can edit:
``CleanStatus``, ``ExpectedRevenue``, ...). There must be at least one such field permission, except on
``Address`` (its fields have no permissions of their own, so SCUBA passes both there).

``create_muting_permission_set`` (``permission_set_group``, ``object``, ``object_permissions``,
``field_permission_type1``, ``field``): SCUBA reads the group (``Name_With_Underscores``) and the muting
permission set it names. The group names one (0.4); the muted object permissions on the object (those that are
on) are exactly the listed ones (0.3); the muting permission set has one field permission, and none on
``field`` turns ``field_permission_type1`` off (0.3, as SCUBA compares them: ``field`` against the permission's
``Object.Field``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence
from xml.etree import ElementTree as ET

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill

from . import metadata_io as md
from . import shared as s

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

OBJECT_PERMISSIONS = ("allowCreate", "allowDelete", "allowEdit", "allowRead", "modifyAllRecords", "viewAllFields",
                      "viewAllRecords")
# the checkbox of each object permission on the Object Settings pages
_PERMISSION_LABELS = {"allowRead": "Read", "allowCreate": "Create", "allowEdit": "Edit", "allowDelete": "Delete",
                      "viewAllRecords": "View All Records", "modifyAllRecords": "Modify All Records",
                      "viewAllFields": "View All Fields"}
# fields SCUBA leaves out of the "editable" check: nobody can edit them
_NOT_EDITABLE = ("CleanStatus", "ExpectedRevenue", "ClosedDate", "Days_to_close__c", "IsClosedOnCreate")


def _object_permissions(body: ET.Element | None, obj: Any) -> ET.Element | None:
    return next((p for p in md.items(body, "objectPermissions") if md.text(p, "object") == obj), None)


def _permissionable_fields(sf: Any, obj: str) -> list[str]:
    """The fields of ``obj`` a permission set can grant (optional, not system fields), as ``Object.Field``."""
    fields = getattr(sf, obj).describe()["fields"]
    return [f"{obj}.{f['name']}" for f in fields if f.get("nillable") and f.get("updateable")
            and f["name"] not in ("OwnerId",)]


class CreatePermissionSetMedium(s.ScubaTemplate):
    """A permission set with object permissions on one object and read and edit on all of its fields."""

    name = "create_permission_set_medium"
    ground_truth_keys = ("label_name", "object_name", "permissions")
    objects = ("PermissionSet",)
    milestones = {"permission set exists": 0.25, "object permissions": 0.25, "read on all fields": 0.25,
                  "edit on all fields": 0.25}

    def check(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        name = "_".join(str(truth.get("label_name", "")).split(" "))
        obj = str(truth.get("object_name", ""))
        body = md.read_exact(ctx.env.org, "PermissionSet", name)  # by its file, as SCUBA opens it
        with milestone("permission set exists"):
            assert body is not None, f"no permission set {name!r}"
        with milestone("object permissions"):
            on = md.flags(_object_permissions(body, obj), OBJECT_PERMISSIONS)
            wanted = str(truth.get("permissions", "")).split(", ")
            assert set(on) == set(wanted), f"the permissions on {obj} are {sorted(on)}, expected {sorted(wanted)}"
        perms = [p for p in md.items(body, "fieldPermissions") if (md.text(p, "field") or "").startswith(obj)]
        with milestone("read on all fields"):
            unread = [md.text(p, "field") for p in perms if md.text(p, "readable") != "true"]
            assert obj == "Address" or perms, f"the permission set {name!r} has no field permissions on {obj}"
            assert not unread, f"not readable: {unread}"
        with milestone("edit on all fields"):
            editable = [p for p in perms if md.text(p, "field") not in {f"{obj}.{f}" for f in _NOT_EDITABLE}]
            unedited = [md.text(p, "field") for p in editable if md.text(p, "editable") != "true"]
            assert obj == "Address" or editable, f"the permission set {name!r} has no field permissions on {obj}"
            assert not unedited, f"not editable: {unedited}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        label, obj = str(truth["label_name"]), str(truth["object_name"])
        wanted = str(truth["permissions"]).split(", ")
        body: dict[str, Any] = {
            "hasActivationRequired": False, "label": label,
            "objectPermissions": {**{p: p in wanted for p in OBJECT_PERMISSIONS}, "object": obj}}
        if obj != "Address":
            body["fieldPermissions"] = [{"editable": True, "field": f, "readable": True}
                                        for f in _permissionable_fields(sf, obj)]
        md.upsert(sf, "PermissionSet", "_".join(label.split(" ")), body)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Permission Sets > New (the label; the API name follows it), then Object Settings > the object >
        Edit: the listed object permissions, Read Access and Edit Access for every field."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        obj = str(truth["object_name"])
        plural = sf.restful(f"sobjects/{obj}/describe").get("labelPlural", obj)
        steps: list[Action] = [*s.setup_link(env, "Permission Sets"), s.click_button("New"),
                               Fill("label=Label", str(truth["label_name"])), s.click_button("Save"),
                               s.click_button("Object Settings"), s.click_link(plural), s.click_button("Edit")]
        steps += [Check(f"label={_PERMISSION_LABELS[p]}") for p in str(truth["permissions"]).split(", ")]
        if _permissionable_fields(sf, obj):
            steps += [Check("label=Read Access"), Check("label=Edit Access")]
        return [*steps, s.click_button("Save"), Done()]


def _group_name(truth: Mapping[str, Any]) -> str:
    return str(truth.get("permission_set_group", "")).replace(" ", "_")


class CreateMutingPermissionSet(s.ScubaTemplate):
    """A muting permission set in a permission set group: object permissions and a field permission muted."""

    name = "create_muting_permission_set"
    ground_truth_keys = ("field", "field_permission_type1", "object", "object_permissions", "permission_set_group")
    objects = ("PermissionSetGroup", "PermissionSetGroupComponent")
    milestones = {"muting permission set in the group": 0.4, "muted object permissions": 0.3,
                  "muted field permission": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        group = md.read_one(sf, "PermissionSetGroup", _group_name(truth))
        if s.exact():  # SCUBA reads [0] of the retrieved groups: IndexError without the group
            s.crash_unless(group is not None, f"no permission set group {_group_name(truth)!r} (SCUBA: IndexError)")
        named = md.texts(group, "mutingPermissionSets")
        # SCUBA matches a muting permission set only when the group names exactly one
        muting = md.read_one(sf, "MutingPermissionSet", named[0]) if len(named) == 1 else None
        with milestone("muting permission set in the group"):
            assert group is not None, f"no permission set group {_group_name(truth)!r}"
            assert named, f"the permission set group {_group_name(truth)!r} has no muting permission set"
        with milestone("muted object permissions"):
            obj = truth.get("object")
            on = [k for p in md.items(muting, "objectPermissions") if md.text(p, "object") == obj
                  for k in (c.tag for c in p) if k.startswith(("allow", "view", "modify")) and md.text(p, k) == "true"]
            wanted = str(truth.get("object_permissions", "")).split(", ")
            assert set(on) == set(wanted), f"the muted permissions on {obj} are {sorted(set(on))}, " \
                                           f"expected {sorted(wanted)}"
        with milestone("muted field permission"):
            fields = md.items(muting, "fieldPermissions")
            kind, fld = truth.get("field_permission_type1"), truth.get("field")
            off = [p for p in fields if md.text(p, "field") == fld and md.text(p, str(kind)) == "false"]
            assert not off, f"{kind} is not muted on {fld}"
            assert len(fields) == 1, \
                f"the muting permission set has {len(fields)} field permissions " \
                f"({[md.text(p, 'field') for p in fields]}), expected one, on {fld}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        group_name = _group_name(truth)
        group = md.read_one(sf, "PermissionSetGroup", group_name)
        if group is None:
            raise AssertionError(f"the org has no permission set group {group_name!r}")
        muting = f"{group_name}_Muted"[:80]
        obj = str(truth["object"])
        wanted = str(truth["object_permissions"]).split(", ")
        kinds = [k.strip() for k in str(truth["field_permission_type1"]).split(",")]
        md.upsert(sf, "MutingPermissionSet", muting, {
            "fieldPermissions": {"editable": "editable" in kinds, "field": f"{obj}.{truth['field']}",
                                 "readable": "readable" in kinds},
            "label": f"{truth['permission_set_group']} Muted",
            "objectPermissions": {**{p: p in wanted for p in OBJECT_PERMISSIONS}, "object": obj}})
        body: dict[str, Any] = {}
        for child in group:
            if child.tag in ("fullName", "mutingPermissionSets"):
                continue
            body.setdefault(child.tag, []).append(child.text or "")
        body["mutingPermissionSets"] = [muting]
        md.upsert(sf, "PermissionSetGroup", group_name, {k: v[0] if len(v) == 1 and k != "permissionSets" else v
                                                         for k, v in body.items()})

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Setup > Permission Set Groups > the group > Muting Permission Set in Group (made with a label), Object
        Settings > the object > Edit: the muted object permissions and the field's muted access."""
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        group = md.read_one(sf, "PermissionSetGroup", _group_name(truth))
        label = md.text(group, "label") or str(truth["permission_set_group"])
        obj, field = str(truth["object"]), str(truth["field"])
        described = sf.restful(f"sobjects/{obj}/describe")
        field_label = next((f["label"] for f in described["fields"] if f["name"] == field), field)
        steps: list[Action] = [*s.setup_link(env, "Permission Set Groups"), s.click_link(label),
                               s.click_button("Muting Permission Set in Group")]
        if not md.texts(group, "mutingPermissionSets"):
            steps += [Fill("label=Label", f"{label} Muted"), s.click_button("Save")]
        steps += [s.click_button("Object Settings"), s.click_link(described.get("labelPlural", obj)),
                  s.click_button("Edit")]
        steps += [Check(f"label={_PERMISSION_LABELS[p]}") for p in str(truth["object_permissions"]).split(", ")]
        kinds = [k.strip() for k in str(truth["field_permission_type1"]).split(",")]
        steps.append(Check(f"label={'Read Access' if 'readable' in kinds else 'Edit Access'} for {field_label}"))
        return [*steps, s.click_button("Save"), Done()]


TEMPLATES = [CreatePermissionSetMedium(), CreateMutingPermissionSet()]
