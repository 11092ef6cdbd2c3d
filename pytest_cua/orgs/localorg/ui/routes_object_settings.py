"""Object Settings of permission sets and of muting permission sets: per object, the object permissions (Read,
Create, Edit, Delete, View All Records, Modify All Records, View All Fields) and the field permissions (Read
Access, Edit Access per field), viewed and edited; and a permission set group's "Muting Permission Set in Group"
(the group's one muting permission set, made on first use).

Saves write the ``PermissionSet`` / ``MutingPermissionSet`` component through the Metadata store: that object's
``objectPermissions`` entry and the ``fieldPermissions`` of its fields are replaced, everything else stays.
Field permissions are kept for the fields that have some access (a permission set's retrieve lists those).
Dependencies are applied as Salesforce applies them on save: in a permission set, Create, Edit, Delete, View All
Records and View All Fields need Read, Delete needs Edit, Modify All Records needs all of them, Edit Access needs
Read Access; in a muting permission set the other way round (muting Read mutes everything, Edit mutes Delete and
Modify All Records, Delete and View All Records mute Modify All Records, muting Read Access mutes Edit Access).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import profile_full_name
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, saved, \
    setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, launcher_objects, not_found_page, redirect

#: objectPermissions element -> the label of its checkbox
OBJECT_PERMISSIONS = {"allowRead": "Read", "allowCreate": "Create", "allowEdit": "Edit", "allowDelete": "Delete",
                      "viewAllRecords": "View All Records", "modifyAllRecords": "Modify All Records",
                      "viewAllFields": "View All Fields"}
#: permission -> the permissions it needs (a permission set); muting reverses the arrows
_NEEDS = {"allowCreate": {"allowRead"}, "allowEdit": {"allowRead"}, "allowDelete": {"allowRead", "allowEdit"},
          "viewAllRecords": {"allowRead"}, "viewAllFields": {"allowRead"},
          "modifyAllRecords": {"allowRead", "allowEdit", "allowDelete", "viewAllRecords"}}


#: the holder's kind as its pages name it
KIND_LABELS = {"PermissionSet": "Permission Set", "MutingPermissionSet": "Muting Permission Set",
               "PermissionSetGroup": "Permission Set Group", "Profile": "Profile"}


@dataclass(frozen=True)
class Holder:
    """A permission set, a muting permission set or a profile whose object settings a page shows."""

    type: str          # PermissionSet | MutingPermissionSet | Profile
    full_name: str
    label: str
    base: str          # the holder's page, without /view

    @property
    def muting(self) -> bool:
        return self.type == "MutingPermissionSet"

    @property
    def readonly(self) -> bool:
        """Whether the settings are shown only (a group's are its permission sets' combined)."""
        return False

    @property
    def complete(self) -> bool:
        """Whether a save lists every object and field setting, also those with no access (a profile: a deploy
        of a profile changes only what it names, so an access taken away must be named)."""
        return self.type == "Profile"

    def body(self, store: MetadataStore) -> ET.Element:
        found = store.read(self.type, self.full_name)
        return found if found is not None else X.element(self.type, [X.leaf("label", self.label)])


@dataclass(frozen=True)
class GroupHolder(Holder):
    """A permission set group: its object settings are those of its permission sets combined, less what its
    muting permission set mutes (read-only, as in Salesforce)."""

    sets: tuple[str, ...] = ()
    muted_by: str | None = None

    @property
    def readonly(self) -> bool:
        return True

    def body(self, store: MetadataStore) -> ET.Element:
        objects: dict[str, set[str]] = {}
        fields: dict[str, set[str]] = {}
        for name in self.sets:
            part = store.read("PermissionSet", name)
            for entry in X.children(part, "objectPermissions") if part is not None else []:
                objects.setdefault(str(X.text_of(entry, "object")), set()).update(_on(entry))
            for entry in X.children(part, "fieldPermissions") if part is not None else []:
                fields.setdefault(str(X.text_of(entry, "field")), set()).update(
                    k for k in ("readable", "editable") if X.flag(entry, k))
        muting = store.read("MutingPermissionSet", self.muted_by) if self.muted_by else None
        for entry in X.children(muting, "objectPermissions") if muting is not None else []:
            obj = str(X.text_of(entry, "object"))
            objects[obj] = objects.get(obj, set()) - _on(entry)
        for entry in X.children(muting, "fieldPermissions") if muting is not None else []:
            field = str(X.text_of(entry, "field"))
            fields[field] = fields.get(field, set()) - {k for k in ("readable", "editable") if X.flag(entry, k)}
        return X.element("PermissionSetGroup", [
            X.leaf("label", self.label),
            *(X.element("objectPermissions", [*(X.leaf(k, k in on) for k in sorted(OBJECT_PERMISSIONS)),
                                               X.leaf("object", obj)]) for obj, on in sorted(objects.items()) if on),
            *(X.element("fieldPermissions", [X.leaf("editable", "editable" in on), X.leaf("field", field),
                                              X.leaf("readable", "readable" in on)])
              for field, on in sorted(fields.items()) if on)])


def closure(chosen: set[str], muting: bool) -> set[str]:
    """``chosen`` with the permissions Salesforce adds on save."""
    out = set(chosen)
    changed = True
    while changed:
        changed = False
        for perm, needs in _NEEDS.items():
            if muting:
                add = {perm} if out & needs and perm not in out else set()
            else:
                add = needs - out if perm in out else set()
            if add:
                out |= add
                changed = True
    return out


def permissionable_fields(obj: ObjectSchema) -> list[FieldSchema]:
    """The fields a permission set grants access to: optional, editable, not system fields (not the owner)."""
    return sorted((f for f in obj.fields.values() if f.updateable and not f.required and not f.system
                   and f.name not in ("Id", "OwnerId", obj.name_field)), key=lambda f: f.label.lower())


def _perm_set(ctx: RequestContext, rid: str) -> Holder | None:
    rec = ctx.org.get("PermissionSet", rid)
    if rec is None or rec.get("IsOwnedByProfile"):
        return None
    return Holder("PermissionSet", str(rec["Name"]), str(rec.get("Label") or rec["Name"]),
                  f"/lightning/setup/PermSets/{rec['Id']}")


def _group_holder(ctx: RequestContext, rid: str) -> Holder | None:
    group = ctx.org.get("PermissionSetGroup", rid)
    if group is None:
        return None
    sets = tuple(sorted(str((ctx.org.get("PermissionSet", c.get("PermissionSetId") or "") or {}).get("Name") or "")
                        for c in ctx.org.find("PermissionSetGroupComponent", PermissionSetGroupId=group["Id"])))
    body = metadata_store(ctx).read("PermissionSetGroup", str(group.get("DeveloperName")))
    muted = [m.text for m in X.children(body, "mutingPermissionSets")] if body is not None else []
    return GroupHolder("PermissionSetGroup", str(group.get("DeveloperName")),
                       str(group.get("MasterLabel") or group.get("DeveloperName")),
                       f"/lightning/setup/PermSetGroups/{group['Id']}", sets=tuple(s for s in sets if s),
                       muted_by=muted[0] if muted and muted[0] else None)


def _profile(ctx: RequestContext, rid: str) -> Holder | None:
    rec = ctx.org.get("Profile", rid)
    if rec is None:
        return None
    return Holder("Profile", profile_full_name(str(rec["Name"])), str(rec["Name"]),
                  f"/lightning/setup/EnhancedProfiles/{rec['Id']}")


def _muting_set(ctx: RequestContext, name: str) -> Holder | None:
    body = metadata_store(ctx).read("MutingPermissionSet", name)
    if body is None:
        return None
    return Holder("MutingPermissionSet", name, X.text_of(body, "label") or name, f"/lightning/setup/MutingPermSets/{name}")


def _objects(ctx: RequestContext) -> list[ObjectSchema]:
    return sorted(launcher_objects(ctx.org), key=lambda o: o.label.lower())


def _entry(body: ET.Element, obj: str) -> ET.Element | None:
    return next((p for p in X.children(body, "objectPermissions") if X.text_of(p, "object") == obj), None)


def _on(entry: ET.Element | None) -> set[str]:
    return {k for k in OBJECT_PERMISSIONS if entry is not None and X.flag(entry, k)}


def _field_access(body: ET.Element, obj: str) -> dict[str, tuple[bool, bool]]:
    return {str(X.text_of(p, "field")): (X.flag(p, "readable"), X.flag(p, "editable"))
            for p in X.children(body, "fieldPermissions") if str(X.text_of(p, "field") or "").startswith(f"{obj}.")}


def objects_list(ctx: RequestContext, holder: Holder | None) -> Response:
    """A holder's Object Settings: each object with its permissions that are on (or muted)."""
    if holder is None:
        return not_found_page(ctx, "The permission set does not exist.")
    body = holder.body(metadata_store(ctx))
    rows = [{"url": f"{holder.base}/objects/{o.name}",
             "cells": [o.label_plural, ", ".join(OBJECT_PERMISSIONS[k] for k in OBJECT_PERMISSIONS
                                                 if k in _on(_entry(body, o.name))) or "No Access"]}
            for o in _objects(ctx)]
    return setup_render(ctx, "setup/detail.html", title=f"Object Settings | {holder.label}", heading="Object Settings",
                        kicker=f"{KIND_LABELS[holder.type]} {holder.label}",
                        actions=[{"label": holder.label, "url": f"{holder.base}/view"}], details=[],
                        sections=[{"title": "Objects", "rows": rows,
                                   "columns": ["Object Name", "Muted Permissions" if holder.muting
                                               else "Object Permissions"]}])


def object_view(ctx: RequestContext, holder: Holder | None, obj_name: str) -> Response:
    """One object's settings in a holder: object permissions and field permissions; Edit."""
    obj = ctx.org.schema.get(obj_name)
    if holder is None or obj is None:
        return not_found_page(ctx, "The permission set or the object does not exist.")
    body = holder.body(metadata_store(ctx))
    on = _on(_entry(body, obj.name))
    access = _field_access(body, obj.name)
    word = ("Muted", "Not muted") if holder.muting else ("Enabled", "Disabled")
    rows = [{"url": None, "cells": [f.label, "Yes" if access.get(f"{obj.name}.{f.name}", (False, False))[0] else "No",
                                    "Yes" if access.get(f"{obj.name}.{f.name}", (False, False))[1] else "No"]}
            for f in permissionable_fields(obj)]
    return setup_render(ctx, "setup/detail.html", title=f"{obj.label} | {holder.label}", heading=obj.label_plural,
                        kicker=f"{holder.label} > Object Settings",
                        actions=[*([] if holder.readonly else
                                   [{"label": "Edit", "url": f"{holder.base}/objects/{obj.name}/edit"}]),
                                 {"label": "Object Settings", "url": f"{holder.base}/objects"}],
                        details=[(label, word[0] if k in on else word[1]) for k, label in OBJECT_PERMISSIONS.items()],
                        sections=[{"title": "Field Permissions", "columns": ["Field Name", "Read Access", "Edit Access"],
                                   "rows": rows}])


def object_edit(ctx: RequestContext, holder: Holder | None, obj_name: str) -> Response:
    """Edit one object's settings: the object permission checkboxes and the field permission table (header
    checkboxes "Read Access" and "Edit Access" set a column); Save."""
    obj = ctx.org.schema.get(obj_name)
    if holder is None or obj is None or holder.readonly:
        return not_found_page(ctx, "The permission set or the object does not exist, or its settings are read-only.")
    store = metadata_store(ctx)
    body = holder.body(store)
    fields = permissionable_fields(obj)
    on = _on(_entry(body, obj.name))
    access = _field_access(body, obj.name)
    read = {f.name for f in fields if access.get(f"{obj.name}.{f.name}", (False, False))[0]}
    edit = {f.name for f in fields if access.get(f"{obj.name}.{f.name}", (False, False))[1]}
    errors = FormErrors()
    page = f"{holder.base}/objects/{obj.name}"
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        names = {f.name for f in fields}
        on = closure({k for k in OBJECT_PERMISSIONS if form.get(k) is not None}, holder.muting)
        read, edit = set(form.getlist("read")) & names, set(form.getlist("edit")) & names
        if holder.muting:
            edit |= read
        else:
            read |= edit
        entries = []
        if on or holder.complete:
            entries.append(X.element("objectPermissions", [*(X.leaf(k, k in on) for k in sorted(OBJECT_PERMISSIONS)),
                                                           X.leaf("object", obj.name)]))
        entries += [X.element("fieldPermissions", [X.leaf("editable", f.name in edit),
                                                   X.leaf("field", f"{obj.name}.{f.name}"),
                                                   X.leaf("readable", f.name in read)])
                    for f in fields if f.name in read | edit or holder.complete]
        out = ET.Element(body.tag)
        out.extend(c for c in body if not (c.tag == "objectPermissions" and X.text_of(c, "object") == obj.name
                                           or c.tag == "fieldPermissions"
                                           and str(X.text_of(c, "field") or "").startswith(f"{obj.name}.")))
        out.extend(entries)
        done = saved(errors, lambda: store.write(holder.type, holder.full_name, X.sorted_children(out)), page,
                     f"The {obj.label} settings of {holder.label} were saved.")
        if done is not None:
            return done
    inputs = [{"kind": "checkbox", "name": k, "label": label, "value": k in on} for k, label in OBJECT_PERMISSIONS.items()]
    matrix = {"caption": "Field Permissions",
              "columns": [{"label": "Field Name", "name": "field"},
                          {"label": "Read Access", "name": "read", "all": True,
                           "all_checked": bool(fields) and read >= {f.name for f in fields}},
                          {"label": "Edit Access", "name": "edit", "all": True,
                           "all_checked": bool(fields) and edit >= {f.name for f in fields}}],
              "rows": [{"label": f.label, "cells": [
                  {"name": "read", "value": f.name, "label": f"Read Access for {f.label}", "checked": f.name in read,
                   "col": "read"},
                  {"name": "edit", "value": f.name, "label": f"Edit Access for {f.label}", "checked": f.name in edit,
                   "col": "edit"}]} for f in fields]}
    notes = ["A checked permission is muted: the group's users do not get it."] if holder.muting else []
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title=f"Edit {obj.label} settings",
                        heading=f"{holder.label}: {obj.label_plural}", kicker="Object Settings", errors=errors,
                        notes=notes, action=f"{page}/edit", cancel=page, inputs=inputs, matrix=matrix,
                        buttons=[{"label": "Save", "brand": True}])


# ---------------------------------------------------------------------------------------------------- muting

def _group(ctx: RequestContext, rid: str) -> dict[str, Any] | None:
    return ctx.org.get("PermissionSetGroup", rid)


def group_muting(ctx: RequestContext, rid: str) -> Response:
    """Muting Permission Set in Group: the group's muting permission set, or the form that makes it ("Label",
    "API Name")."""
    group = _group(ctx, rid)
    if group is None:
        return not_found_page(ctx, "The permission set group does not exist.")
    store = metadata_store(ctx)
    gname = str(group.get("DeveloperName"))
    body = store.read("PermissionSetGroup", gname)
    named = X.children(body, "mutingPermissionSets") if body is not None else []
    if named and named[0].text:
        return redirect(f"/lightning/setup/MutingPermSets/{named[0].text}/view")
    errors = FormErrors()
    vals = {"label": "", "name": ""}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals = {k: (ctx.request.form.get(k) or "").strip() for k in vals}
        vals["name"] = vals["name"] or api_name(vals["label"])
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "API Name")
        elif vals["name"] and store.read("MutingPermissionSet", vals["name"]) is not None:
            errors.add(f"The API name {vals['name']} is already in use.", "name", "API Name")
        if not errors and body is not None:
            group_body = X.sorted_children(X.element("PermissionSetGroup", [
                *(c for c in body if c.tag != "mutingPermissionSets"), X.leaf("mutingPermissionSets", vals["name"])]))

            def write() -> None:
                with ctx.org.transaction():
                    store.write("MutingPermissionSet", vals["name"],
                                X.element("MutingPermissionSet", [X.leaf("label", vals["label"])]))
                    store.write("PermissionSetGroup", gname, group_body)
            done = saved(errors, write, f"/lightning/setup/MutingPermSets/{vals['name']}/view",
                         f'Muting permission set "{vals["label"]}" was created in {group.get("MasterLabel")}.')
            if done is not None:
                return done
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Muting Permission Set",
                        heading=f"{group.get('MasterLabel')}: New Muting Permission Set", kicker="Permission Set Group",
                        errors=errors, action=f"/lightning/setup/PermSetGroups/{rid}/muting",
                        cancel=f"/lightning/setup/PermSetGroups/{rid}/view",
                        inputs=[{"kind": "text", "name": "label", "label": "Label", "value": vals["label"],
                                 "required": True},
                                {"kind": "text", "name": "name", "label": "API Name", "value": vals["name"],
                                 "help": "Filled from the label when left blank."}],
                        buttons=[{"label": "Save", "brand": True}])


def muting_view(ctx: RequestContext, name: str) -> Response:
    """A muting permission set: label, API name, the groups it is in; Object Settings."""
    holder = _muting_set(ctx, name)
    if holder is None:
        return not_found_page(ctx, f"There is no muting permission set {name}.")
    store = metadata_store(ctx)
    groups = [g for g in ctx.org.records("PermissionSetGroup")
              if any(m.text == name for m in X.children(store.read("PermissionSetGroup", str(g.get("DeveloperName")))
                                                        or ET.Element("x"), "mutingPermissionSets"))]
    return setup_render(ctx, "setup/detail.html", title=f"Muting Permission Set {holder.label}", heading=holder.label,
                        kicker="Muting Permission Set",
                        actions=[{"label": "Object Settings", "url": f"{holder.base}/objects"}],
                        details=[("Label", holder.label), ("API Name", name)],
                        sections=[{"title": "Permission Set Groups", "columns": ["Label"],
                                   "rows": [{"url": f"/lightning/setup/PermSetGroups/{g['Id']}/view",
                                             "cells": [g.get("MasterLabel")]} for g in groups]}])


def register(app: OrgApp) -> None:
    """Add the object settings and muting routes."""
    add = app.add_route
    both = ["GET", "POST"]
    mu = "/lightning/setup/MutingPermSets/<name>"
    # each holder's Object Settings: (URL prefix with its key, the holder by that key, endpoint prefix, editable)
    holders: list[tuple[str, Callable[[RequestContext, str], Holder | None], str, bool]] = [
        ("/lightning/setup/PermSets/<key>", _perm_set, "ui.ps", True),
        ("/lightning/setup/MutingPermSets/<key>", _muting_set, "ui.muting", True),
        ("/lightning/setup/PermSetGroups/<key>", _group_holder, "ui.psg", False),
        ("/lightning/setup/EnhancedProfiles/<key>", _profile, "ui.profile", True)]
    for prefix, holder, endpoint, editable in holders:
        add(f"{prefix}/objects", lambda ctx, key, h=holder: objects_list(ctx, h(ctx, key)), ["GET"], auth="ui",
            endpoint=f"{endpoint}_objects")
        add(f"{prefix}/objects/<obj>", lambda ctx, key, obj, h=holder: object_view(ctx, h(ctx, key), obj), ["GET"],
            auth="ui", endpoint=f"{endpoint}_object")
        if editable:
            add(f"{prefix}/objects/<obj>/edit", lambda ctx, key, obj, h=holder: object_edit(ctx, h(ctx, key), obj),
                both, auth="ui", endpoint=f"{endpoint}_object_edit")
    add(f"{mu}/view", muting_view, ["GET"], auth="ui", endpoint="ui.muting")
    add("/lightning/setup/PermSetGroups/<rid>/muting", group_muting, both, auth="ui", endpoint="ui.group_muting")
