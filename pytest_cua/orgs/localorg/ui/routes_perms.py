"""Permission sets and permission set groups: lists, pages, new / edit, assignments to users (Manage
Assignments -> Add Assignment -> Assign; Remove Assignments) and a group's component permission sets."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, chosen_ids, record_form, save_links, \
    save_record, setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, page_binder, redirect

# page -> (object, label field, api-name field, assignment field, singular label, plural label)
KINDS = {
    "PermSets": ("PermissionSet", "Label", "Name", "PermissionSetId", "Permission Set", "Permission Sets"),
    "PermSetGroups": ("PermissionSetGroup", "MasterLabel", "DeveloperName", "PermissionSetGroupId",
                      "Permission Set Group", "Permission Set Groups"),
}


def _items(ctx: RequestContext, page: str) -> list[dict[str, Any]]:
    sobject, label_f = KINDS[page][0], KINDS[page][1]
    items = ctx.org.records(sobject)
    if sobject == "PermissionSet":
        items = [p for p in items if not p.get("IsOwnedByProfile") and p.get("Type") in (None, "Regular", "Session")]
    return sorted(items, key=lambda r: str(r.get(label_f) or "").lower())


def _item(ctx: RequestContext, page: str, rid: str) -> dict[str, Any] | None:
    return ctx.org.get(KINDS[page][0], rid)


def perm_list(ctx: RequestContext, page: str) -> Response:
    """``/lightning/setup/PermSets/home`` and ``/lightning/setup/PermSetGroups/home``."""
    sobject, label_f, name_f, _, label, plural = KINDS[page]
    rows = [{"url": f"/lightning/setup/{page}/{r['Id']}/view",
             "cells": [r.get(label_f) or "", r.get(name_f) or "", r.get("Description") or ""]}
            for r in _items(ctx, page)]
    return setup_render(ctx, "setup/table.html", title=plural, heading=plural, rows=rows,
                        columns=[f"{label} Label" if page == "PermSets" else "Label", "API Name", "Description"],
                        # Salesforce: "New" on Permission Sets, "New Permission Set Group" on Permission Set Groups
                        actions=[{"label": "New" if page == "PermSets" else f"New {label}",
                                  "url": f"/lightning/setup/{page}/new"}])


def _assigned(ctx: RequestContext, page: str, rid: str) -> list[dict[str, Any]]:
    return ctx.org.find("PermissionSetAssignment", **{KINDS[page][3]: rid})


def perm_view(ctx: RequestContext, page: str, rid: str) -> Response:
    """A permission set (group): details, components (groups) and assigned users."""
    sobject, label_f, name_f, _, label, _ = KINDS[page]
    item = _item(ctx, page, rid)
    if item is None:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    base = f"/lightning/setup/{page}/{item['Id']}"
    details = [("Label", item.get(label_f) or ""), ("API Name", item.get(name_f) or ""),
               ("Description", item.get("Description") or "")]
    sections = []
    actions = [{"label": "Edit", "url": f"{base}/edit"}, {"label": "Manage Assignments", "url": f"{base}/assignments"}]
    if page == "PermSetGroups":
        details.append(("Status", item.get("Status") or ""))
        actions += [{"label": "Permission Sets in Group", "url": f"{base}/components"},
                    {"label": "Muting Permission Set in Group", "url": f"{base}/muting"},
                    {"label": "Object Settings", "url": f"{base}/objects"}]
        comps = [ctx.org.get("PermissionSet", c.get("PermissionSetId") or "") or {}
                 for c in ctx.org.find("PermissionSetGroupComponent", PermissionSetGroupId=item["Id"])]
        sections.append({"title": "Permission Sets in Group", "columns": ["Label", "API Name"],
                         "actions": [{"label": "Add Permission Set", "url": f"{base}/components/add"}],
                         "rows": [{"url": f"/lightning/setup/PermSets/{p['Id']}/view",
                                   "cells": [p.get("Label"), p.get("Name")]} for p in comps if p]})
    else:
        actions.append({"label": "Object Settings", "url": f"{base}/objects"})
        perms = [(name[len("Permissions"):], "Yes" if item.get(name) else "No") for name in sorted(item)
                 if name.startswith("Permissions")]
        f = ctx.org.object(sobject)
        details += [(f.fields[f"Permissions{n}"].label, v) for n, v in perms]
    users = [ctx.org.get("User", a.get("AssigneeId") or "") or {} for a in _assigned(ctx, page, item["Id"])]
    sections.append({"title": "Assigned Users", "columns": ["Full Name", "Username"],
                     "rows": [{"url": f"/lightning/r/User/{u['Id']}/view", "cells": [u.get("Name"), u.get("Username")]}
                              for u in users if u]})
    return setup_render(ctx, "setup/detail.html", title=f"{label} {item.get(label_f)}", kicker=label,
                        heading=item.get(label_f) or item.get(name_f), actions=actions, details=details,
                        sections=sections)


def perm_form(ctx: RequestContext, page: str, rid: str | None = None) -> Response:
    """New / edit permission set (group): "Label", "API Name", "Description"."""
    sobject, label_f, name_f, _, label, _ = KINDS[page]
    item = _item(ctx, page, rid) if rid else None
    if rid and item is None:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    it = item or {}
    vals = {"label": it.get(label_f) or "", "name": it.get(name_f) or "", "description": it.get("Description") or ""}
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {k: (form.get(k) or "").strip() for k in vals}
        vals["name"] = vals["name"] or api_name(vals["label"])
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "API Name")
        if not errors:
            data = {label_f: vals["label"], name_f: vals["name"], "Description": vals["description"] or None}
            try:
                new_id = save_record(ctx, sobject, item, data)
            except OrgError as err:
                where = {label_f: "label", name_f: "name"}
                message = err.message
                if err.code == "DUPLICATE_VALUE":
                    message = f"The API name {vals['name']} is already in use."
                errors.add(message, next((where[f] for f in err.fields if f in where), None))
            else:
                return redirect(f"/lightning/setup/{page}/{new_id}/view", f'{label} "{vals["label"]}" was saved.')
    heading = f"Edit {label} {it.get(label_f)}" if item else f"New {label}"
    return record_form(
        ctx, errors, heading, f"/lightning/setup/{page}", rid,
        inputs=[{"kind": "text", "name": "label", "label": "Label", "value": vals["label"], "required": True},
                {"kind": "text", "name": "name", "label": "API Name", "value": vals["name"],
                 "help": "Filled from the label when left blank."},
                {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}],
        groups=[])


def assignments(ctx: RequestContext, page: str, rid: str) -> Response:
    """Manage Assignments: the assigned users (checkboxes to remove) and the button "Add Assignment"."""
    sobject, label_f, _, field, label, _ = KINDS[page]
    item = _item(ctx, page, rid)
    if item is None:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    base = f"/lightning/setup/{page}/{item['Id']}/assignments"
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        chosen = set(ctx.request.form.getlist("users"))
        current = {a.get("AssigneeId"): a["Id"] for a in _assigned(ctx, page, item["Id"])}
        if not chosen:
            errors.add("Select at least one user.", "users", "Assigned Users")
        else:
            with ctx.org.transaction():
                for uid in chosen:
                    if uid in current:
                        ctx.org.delete("PermissionSetAssignment", current[uid])
            return redirect(base, f"{len(chosen)} assignment(s) removed.")
    users = sorted((ctx.org.get("User", a.get("AssigneeId") or "") or {} for a in _assigned(ctx, page, item["Id"])),
                   key=lambda u: str(u.get("Name") or "").lower())
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=f"Assigned Users: {item.get(label_f)}",
        heading=f"{item.get(label_f)}: Assigned Users", errors=errors, action=base,
        cancel=f"/lightning/setup/{page}/{item['Id']}/view", submit_label="Remove Assignments",
        inputs=[], extra_actions=[{"label": "Add Assignment", "url": f"{base}/add"}],
        groups=[{"title": "Assigned Users", "name": "users", "region": True,
                 "options": [{"value": u["Id"], "label": u.get("Name"), "checked": False} for u in users if u]}])


def add_assignment(ctx: RequestContext, page: str, rid: str) -> Response:
    """Add Assignment: a checkbox per active user not yet assigned, then "Assign"."""
    sobject, label_f, _, field, label, _ = KINDS[page]
    item = _item(ctx, page, rid)
    if item is None:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    base = f"/lightning/setup/{page}/{item['Id']}/assignments"
    assigned = {a.get("AssigneeId") for a in _assigned(ctx, page, item["Id"])}
    candidates = sorted((u for u in ctx.org.records("User") if u.get("IsActive") and u["Id"] not in assigned),
                        key=lambda u: str(u.get("Name") or "").lower())
    errors = FormErrors()
    chosen: set[str] = set()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        chosen = chosen_ids(ctx, errors, "users", (u["Id"] for u in candidates), label="Users",
                            empty="Select at least one user.",
                            foreign="Some selected users cannot be assigned (already assigned or inactive).")
        if not errors:
            try:
                save_links(ctx, "PermissionSetAssignment", lambda uid: {"AssigneeId": uid, field: item["Id"]}, chosen)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(base, f"{len(chosen)} user(s) assigned to {item.get(label_f)}.")
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=f"Add Assignment: {item.get(label_f)}",
        heading=f"{item.get(label_f)}: Add Assignment", errors=errors, action=f"{base}/add", cancel=base,
        submit_label="Assign", inputs=[],
        groups=[{"title": "Users", "name": "users", "region": True,
                 "options": [{"value": u["Id"], "label": u.get("Name"), "checked": u["Id"] in chosen,
                              "url": f"/lightning/setup/ManageUsers/{u['Id']}/view"} for u in candidates]}])


def components(ctx: RequestContext, page: str, rid: str) -> Response:
    """Permission Sets in Group: a checkbox per permission set (checked = in the group), then "Save"."""
    item = _item(ctx, "PermSetGroups", rid)
    if item is None:
        return not_found_page(ctx, "The permission set group does not exist.")
    sets = _items(ctx, "PermSets")
    current: dict[Any, Any] = {c.get("PermissionSetId"): c["Id"]
               for c in ctx.org.find("PermissionSetGroupComponent", PermissionSetGroupId=item["Id"])}
    chosen = set(current)
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        shown = {p["Id"] for p in sets}
        chosen = chosen_ids(ctx, errors, "sets", shown, label="Permission Sets",
                            foreign="Choose permission sets from the list.")
        if not errors:
            save_links(ctx, "PermissionSetGroupComponent", lambda pid: _component(item, pid), chosen, current,
                       shown=shown)  # components the page does not show are kept
            return redirect(f"/lightning/setup/PermSetGroups/{item['Id']}/view",
                            "The permission sets in the group were saved.")
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200,
        title=f"Permission Sets in Group {item.get('MasterLabel')}",
        heading=f"{item.get('MasterLabel')}: Permission Sets in Group", errors=errors,
        action=f"/lightning/setup/PermSetGroups/{item['Id']}/components",
        cancel=f"/lightning/setup/PermSetGroups/{item['Id']}/view", inputs=[],
        groups=[{"title": "Permission Sets", "name": "sets", "region": True,
                 "options": [{"value": p["Id"], "label": p.get("Label") or p.get("Name"), "checked": p["Id"] in chosen}
                             for p in sets]}])


def _component(group: dict[str, Any], set_id: str) -> dict[str, Any]:
    """The PermissionSetGroupComponent that puts permission set ``set_id`` in ``group``."""
    return {"PermissionSetGroupId": group["Id"], "PermissionSetId": set_id}


LETTERS = [chr(c) for c in range(ord("A"), ord("Z") + 1)]


def _initial(text: str) -> str:
    first = (text or "")[:1].upper()
    return first if first in LETTERS else "Other"


def add_components(ctx: RequestContext, rid: str) -> Response:
    """Add Permission Set: the permission sets not in the group, a checkbox each, filtered by the alphabetical
    index (``?letter=M``: "A" ... "Z", "Other", "All"); "Add" puts the checked ones in the group and lists what was
    added, "Done" goes back to the group."""
    item = _item(ctx, "PermSetGroups", rid)
    if item is None:
        return not_found_page(ctx, "The permission set group does not exist.")
    base = f"/lightning/setup/PermSetGroups/{item['Id']}"
    inside = {c.get("PermissionSetId") for c in ctx.org.find("PermissionSetGroupComponent",
                                                               PermissionSetGroupId=item["Id"])}
    candidates = [p for p in _items(ctx, "PermSets") if p["Id"] not in inside]
    letter = ctx.request.args.get("letter") or "All"
    if letter != "All":
        candidates = [p for p in candidates if _initial(str(p.get("Label") or p.get("Name") or "")) == letter]
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        allowed = (p["Id"] for p in _items(ctx, "PermSets") if p["Id"] not in inside)
        chosen = chosen_ids(ctx, errors, "sets", allowed, label="Permission Sets",
                            empty="Select at least one permission set.",
                            foreign="Choose permission sets that are not in the group yet.")
        if not errors:
            try:
                save_links(ctx, "PermissionSetGroupComponent", lambda pid: _component(item, pid), chosen)
            except OrgError as err:
                errors.add(err.message)
            else:
                added = [ctx.org.get("PermissionSet", pid) or {} for pid in sorted(chosen)]
                names = sorted(str(p.get("Label") or p.get("Name")) for p in added)
                return setup_render(ctx, "setup/detail.html", title=f"Add Permission Set: {item.get('MasterLabel')}",
                                    kicker="Permission Set Group", heading=f"{item.get('MasterLabel')}: Permission Sets Added",
                                    notes=[f"{len(names)} permission set(s) added to the group: {', '.join(names)}."],
                                    actions=[{"label": "Done", "url": f"{base}/view"},
                                             {"label": "Add Permission Set", "url": f"{base}/components/add"}],
                                    sections=[])
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=f"Add Permission Set: {item.get('MasterLabel')}",
        heading=f"{item.get('MasterLabel')}: Add Permission Set", errors=errors,
        action=f"{base}/components/add?letter={letter}", cancel=f"{base}/view", submit_label="Add",
        index={"label": "Alphabetical index", "current": letter,
               "links": [(x, f"{base}/components/add?letter={x}") for x in [*LETTERS, "Other", "All"]]},
        inputs=[], groups=[{"title": "Permission Sets", "name": "sets", "region": True,
                            "options": [{"value": p["Id"], "label": p.get("Label") or p.get("Name"), "checked": False}
                                        for p in candidates]}])


def register(app: OrgApp) -> None:
    """Add the permission set (group) routes."""
    for page in KINDS:
        bind = page_binder(page)
        base = f"/lightning/setup/{page}"
        both = ["GET", "POST"]
        app.add_route(f"{base}/home", bind(perm_list), ["GET"], auth="ui", endpoint=f"ui.{page}.list")
        app.add_route(f"{base}/new", bind(perm_form), both, auth="ui", endpoint=f"ui.{page}.new")
        app.add_route(f"{base}/<rid>/view", bind(perm_view), ["GET"], auth="ui", endpoint=f"ui.{page}.view")
        app.add_route(f"{base}/<rid>/edit", bind(perm_form), both, auth="ui", endpoint=f"ui.{page}.edit")
        app.add_route(f"{base}/<rid>/assignments", bind(assignments), both, auth="ui",
                      endpoint=f"ui.{page}.assignments")
        app.add_route(f"{base}/<rid>/assignments/add", bind(add_assignment), both, auth="ui",
                      endpoint=f"ui.{page}.assign")
    app.add_route("/lightning/setup/PermSetGroups/<rid>/components/add", add_components, ["GET", "POST"], auth="ui",
                  endpoint="ui.PermSetGroups.components_add")
    app.add_route("/lightning/setup/PermSetGroups/<rid>/components",
                  lambda ctx, rid: components(ctx, "PermSetGroups", rid), ["GET", "POST"], auth="ui",
                  endpoint="ui.PermSetGroups.components")
