"""Queues and public groups: lists, pages, and one form each that sets the group's fields, its supported
objects (queues) and its members (users, roles, public groups) in one transaction."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, record_form, setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, page_binder, redirect

KINDS = {"Queues": ("Queue", "Queue", "Queues"), "PublicGroups": ("Regular", "Public Group", "Public Groups")}


def _groups(ctx: RequestContext, gtype: str) -> list[dict[str, Any]]:
    return sorted(ctx.org.find("Group", Type=gtype), key=lambda g: str(g.get("Name") or "").lower())


def _members(ctx: RequestContext, group_id: str) -> list[dict[str, Any]]:
    return ctx.org.find("GroupMember", GroupId=group_id)


def member_label(ctx: RequestContext, member_id: str) -> tuple[str, str]:
    """(kind, name) of a group member: User, Role, Role and Subordinates, Public Group or Queue."""
    found = ctx.org.find_record(member_id)
    if found is None:
        return ("Unknown", member_id)
    obj, rec = found
    if obj == "User":
        return ("User", str(rec.get("Name") or rec.get("Username")))
    if obj == "Group":
        gtype = rec.get("Type")
        if gtype in ("Role", "RoleAndSubordinates", "RoleAndSubordinatesInternal"):
            role = ctx.org.get("UserRole", rec.get("RelatedId") or "") or {}
            kind = "Role" if gtype == "Role" else "Role and Subordinates"
            return (kind, str(role.get("Name") or rec.get("DeveloperName")))
        return ("Public Group" if gtype == "Regular" else str(gtype), str(rec.get("Name") or rec.get("DeveloperName")))
    return (obj, member_id)


def member_options(ctx: RequestContext, exclude: str | None,
                   current: set[str] | None = None) -> dict[str, list[tuple[str, str]]]:
    """Candidates per region: users (active ones, and inactive ones already members), roles (their Role
    groups), public groups."""
    users = [(u["Id"], str(u.get("Name"))) for u in ctx.org.records("User")
             if u.get("IsActive") or u["Id"] in (current or set())]
    role_names = {r["Id"]: r.get("Name") for r in ctx.org.records("UserRole")}
    roles = [(g["Id"], str(role_names.get(g.get("RelatedId") or "", g.get("DeveloperName"))))
             for g in ctx.org.find("Group", Type="Role")]
    groups = [(g["Id"], str(g.get("Name"))) for g in _groups(ctx, "Regular") if g["Id"] != exclude]
    key = lambda p: p[1].lower()  # noqa: E731
    return {"Users": sorted(users, key=key), "Roles": sorted(roles, key=key), "Public Groups": sorted(groups, key=key)}


def queue_objects(ctx: RequestContext) -> list[tuple[str, str]]:
    """(API name, label) of the objects a queue can support (QueueSobject.SobjectType values)."""
    f = ctx.org.object("QueueSobject").fields["SobjectType"]
    out = []
    for name in f.values:
        obj = ctx.org.schema.get(name)
        out.append((name, obj.label if obj else name))
    return sorted(out, key=lambda p: p[1].lower())


def group_list(ctx: RequestContext, page: str) -> Response:
    """``/lightning/setup/Queues/home`` and ``/lightning/setup/PublicGroups/home``."""
    gtype, label, plural = KINDS[page]
    rows = []
    for g in _groups(ctx, gtype):
        cells = [g.get("Name") or "", g.get("DeveloperName") or ""]
        if gtype == "Queue":
            cells.append(g.get("Email") or "")
        rows.append({"url": f"/lightning/setup/{page}/{g['Id']}/view", "cells": cells})
    columns = ["Label", f"{label.replace('Public ', '')} Name"] + (["Queue Email"] if gtype == "Queue" else [])
    return setup_render(ctx, "setup/table.html", title=plural, heading=plural, columns=columns, rows=rows,
                        actions=[{"label": "New", "url": f"/lightning/setup/{page}/new"}])


def group_view(ctx: RequestContext, page: str, group_id: str) -> Response:
    """A queue's or public group's page: details, supported objects, members."""
    gtype, label, _ = KINDS[page]
    group = ctx.org.get("Group", group_id)
    if group is None or group.get("Type") != gtype:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    details = [("Label", group.get("Name") or ""), (f"{label.replace('Public ', '')} Name",
                                                    group.get("DeveloperName") or "")]
    sections = []
    if gtype == "Queue":
        details += [("Queue Email", group.get("Email") or ""),
                    ("Send Email to Members", "Yes" if group.get("DoesSendEmailToMembers") else "No")]
        names = dict(queue_objects(ctx))
        objs = sorted(names.get(q.get("SobjectType"), q.get("SobjectType"))  # type: ignore[type-var, arg-type]
                      for q in ctx.org.find("QueueSobject", QueueId=group["Id"]))
        sections.append({"title": "Supported Objects", "columns": ["Object"],
                         "rows": [{"url": None, "cells": [o]} for o in objs]})
    else:
        details.append(("Grant Access Using Hierarchies", "Yes" if group.get("DoesIncludeBosses") else "No"))
    members = sorted((member_label(ctx, m.get("UserOrGroupId") or "") for m in _members(ctx, group["Id"])),
                     key=lambda p: (p[0], p[1].lower()))
    sections.append({"title": "Members", "columns": ["Name", "Type"],
                     "rows": [{"url": None, "cells": [name, kind]} for kind, name in members]})
    return setup_render(ctx, "setup/detail.html", title=f"{label} {group.get('Name')}", kicker=label,
                        heading=group.get("Name") or group.get("DeveloperName"),
                        actions=[{"label": "Edit", "url": f"/lightning/setup/{page}/{group['Id']}/edit"}],
                        post_actions=[{"label": "Delete", "url": f"/lightning/setup/{page}/{group['Id']}/delete"}],
                        details=details, sections=sections)


def group_form(ctx: RequestContext, page: str, group_id: str | None = None) -> Response:
    """New / edit queue or public group, with supported objects and members."""
    gtype, label, plural = KINDS[page]
    group = ctx.org.get("Group", group_id) if group_id else None
    if group_id and (group is None or group.get("Type") != gtype):
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    g = group or {}
    short = label.replace("Public ", "")
    current_objects: set[Any] = {q.get("SobjectType") for q in ctx.org.find("QueueSobject", QueueId=group_id)} if group_id \
        else set()
    current_members: set[Any] = {m.get("UserOrGroupId") for m in _members(ctx, group_id)} if group_id else set()
    vals: dict[str, Any] = {"label": g.get("Name") or "", "name": g.get("DeveloperName") or "",
                            "email": g.get("Email") or "", "send": bool(g.get("DoesSendEmailToMembers")),
                            "bosses": bool(g.get("DoesIncludeBosses", True)), "objects": current_objects,
                            "members": current_members}
    errors = FormErrors()
    options = member_options(ctx, group_id, current_members)
    shown_members = {i for opts in options.values() for i, _ in opts}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {"label": (form.get("label") or "").strip(), "name": (form.get("name") or "").strip(),
                "email": (form.get("email") or "").strip(), "send": form.get("send") is not None,
                "bosses": form.get("bosses") is not None, "objects": set(form.getlist("objects")),
                "members": set(form.getlist("members"))}
        vals["name"] = vals["name"] or api_name(vals["label"])
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", f"{short} Name")
        elif vals["name"] and any((o.get("DeveloperName") or "").lower() == vals["name"].lower() and o["Id"] != group_id
                                  for o in ctx.org.records("Group") if o.get("Type") in ("Queue", "Regular")):
            errors.add(f"The {short.lower()} name {vals['name']} is already in use.", "name", f"{short} Name")
        allowed_objects = {n for n, _ in queue_objects(ctx)} if gtype == "Queue" else set()
        if vals["objects"] - allowed_objects:
            errors.add("Choose supported objects from the list.", "objects", "Supported Objects")
        if vals["members"] - shown_members:
            errors.add("Choose members from the lists.", "members", "Members")
        if not errors:
            data: dict[str, Any] = {"Name": vals["label"], "DeveloperName": vals["name"], "Type": gtype}
            if gtype == "Queue":
                data.update(Email=vals["email"] or None, DoesSendEmailToMembers=vals["send"])
            else:
                data.update(DoesIncludeBosses=vals["bosses"])
            try:
                with ctx.org.transaction():
                    if group is None:
                        gid = ctx.org.create("Group", data, user_id=ctx.user_id)
                    else:
                        gid = group["Id"]
                        ctx.org.update("Group", gid, {k: v for k, v in data.items() if k != "Type"},
                                       user_id=ctx.user_id)
                    if gtype == "Queue":
                        existing = {q.get("SobjectType"): q["Id"] for q in ctx.org.find("QueueSobject", QueueId=gid)}
                        for name in sorted(vals["objects"] - set(existing)):
                            ctx.org.create("QueueSobject", {"QueueId": gid, "SobjectType": name}, user_id=ctx.user_id)
                        for name, qid in existing.items():
                            if name not in vals["objects"]:
                                ctx.org.delete("QueueSobject", qid)
                    existing_m = {m.get("UserOrGroupId"): m["Id"] for m in _members(ctx, gid)}
                    for mid in sorted(vals["members"] - set(existing_m)):
                        ctx.org.create("GroupMember", {"GroupId": gid, "UserOrGroupId": mid}, user_id=ctx.user_id)
                    for mid, rid in existing_m.items():
                        if mid in shown_members and mid not in vals["members"]:
                            ctx.org.delete("GroupMember", rid)  # members the form cannot show are kept
            except OrgError as err:
                where = {"Email": "email", "Name": "label", "DeveloperName": "name"}
                errors.add(err.message, next((where[f] for f in err.fields if f in where), None))
            else:
                return redirect(f"/lightning/setup/{page}/{gid}/view", f'{label} "{vals["label"]}" was saved.')
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "label", "label": "Label", "value": vals["label"], "required": True},
        {"kind": "text", "name": "name", "label": f"{short} Name", "value": vals["name"],
         "help": "Filled from the label when left blank."}]
    groups: list[dict[str, Any]] = []
    if gtype == "Queue":
        inputs += [{"kind": "email", "name": "email", "label": "Queue Email", "value": vals["email"]},
                   {"kind": "checkbox", "name": "send", "label": "Send Email to Members", "value": vals["send"]}]
        # Salesforce's dueling lists: "Available Objects" -> Add -> "Selected Objects"
        objects = queue_objects(ctx)
        inputs.append({"kind": "dual", "name": "objects", "label": "Supported Objects",
                       "available_label": "Available Objects", "selected_label": "Selected Objects",
                       "available": [(n, lbl) for n, lbl in objects if n not in vals["objects"]],
                       "selected": [(n, lbl) for n, lbl in objects if n in vals["objects"]]})
    else:
        inputs.append({"kind": "checkbox", "name": "bosses", "label": "Grant Access Using Hierarchies",
                       "value": vals["bosses"]})
    # the members: "Search" (Users, Roles, Public Groups) filters "Available Members"; Add -> "Selected Members";
    # each member is shown as Salesforce names it ("User: Foo Bar", "Role: CEO", "Group: Support Team")
    prefix = {"Users": "User", "Roles": "Role", "Public Groups": "Group"}
    everyone = [(i, f"{prefix[title]}: {n}", title) for title, opts in options.items() for i, n in opts]
    inputs.append({"kind": "dual", "name": "members", "label": "Queue Members" if gtype == "Queue" else "Members",
                   "available_label": "Available Members", "selected_label": "Selected Members",
                   "available": [(i, n) for i, n, _ in everyone if i not in vals["members"]],
                   "selected": [(i, n) for i, n, _ in everyone if i in vals["members"]],
                   "kinds": {i: k for i, _, k in everyone},
                   "filter": {"label": "Search", "options": [(k, k) for k in options]}})
    heading = f"Edit {label} {g.get('Name')}" if group else f"New {label}"
    return record_form(ctx, errors, heading, f"/lightning/setup/{page}", group_id, inputs=inputs, groups=groups)


def group_delete(ctx: RequestContext, page: str, group_id: str) -> Response:
    """POST: delete a queue or public group (its members and supported objects go with it)."""
    if not csrf_ok(ctx):
        return forbidden(ctx)
    gtype, label, _ = KINDS[page]
    group = ctx.org.get("Group", group_id)
    if group is None or group.get("Type") != gtype:
        return not_found_page(ctx, f"The {label.lower()} does not exist.")
    try:
        ctx.org.delete("Group", group["Id"])
    except OrgError as err:
        return not_found_page(ctx, err.message)
    return redirect(f"/lightning/setup/{page}/home", f'{label} "{group.get("Name")}" was deleted.')


def register(app: OrgApp) -> None:
    """Add the queue and public group routes."""
    for page in KINDS:
        bind = page_binder(page)
        base = f"/lightning/setup/{page}"
        app.add_route(f"{base}/home", bind(group_list), ["GET"], auth="ui", endpoint=f"ui.{page}.list")
        app.add_route(f"{base}/new", bind(group_form), ["GET", "POST"], auth="ui", endpoint=f"ui.{page}.new")
        app.add_route(f"{base}/<group_id>/view", bind(group_view), ["GET"], auth="ui", endpoint=f"ui.{page}.view")
        app.add_route(f"{base}/<group_id>/edit", bind(group_form), ["GET", "POST"], auth="ui",
                      endpoint=f"ui.{page}.edit")
        app.add_route(f"{base}/<group_id>/delete", bind(group_delete), ["POST"], auth="ui",
                      endpoint=f"ui.{page}.delete")
