"""Setup > Roles: the role hierarchy as a nested list, a role's page (its users and subordinate roles) and the
new / edit role form ("Label", "Role Name", "This role reports to", "Role Name as displayed on reports")."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors, resolve_lookup
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, record_form, save_record, setup_render, \
    valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect


def _role_tree(ctx: RequestContext) -> list[dict[str, Any]]:
    roles = ctx.org.records("UserRole")
    ids = {r["Id"] for r in roles}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for r in roles:
        parent = r.get("ParentRoleId") if r.get("ParentRoleId") in ids else None
        children.setdefault(parent, []).append(r)

    def build(parent: str | None, depth: int) -> list[dict[str, Any]]:
        if depth > 50:
            return []
        return [{"id": r["Id"], "name": r.get("Name"), "children": build(r["Id"], depth + 1)}
                for r in sorted(children.get(parent, []), key=lambda r: str(r.get("Name") or "").lower())]
    return build(None, 0)


def roles(ctx: RequestContext) -> Response:
    """``/lightning/setup/Roles/home``: the role hierarchy as a nested list."""
    return setup_render(ctx, "setup/roles.html", title="Roles", tree=_role_tree(ctx))


def role_view(ctx: RequestContext, role_id: str) -> Response:
    """A role: details, its users and sub-roles."""
    role = ctx.org.get("UserRole", role_id)
    if role is None:
        return not_found_page(ctx, "The role does not exist.")
    parent = ctx.org.get("UserRole", role.get("ParentRoleId") or "")
    members = [u for u in ctx.org.records("User") if u.get("UserRoleId") == role["Id"]]
    subs = [r for r in ctx.org.records("UserRole") if r.get("ParentRoleId") == role["Id"]]
    return setup_render(
        ctx, "setup/detail.html", title=f"Role {role.get('Name')}", kicker="Role", heading=role.get("Name"),
        actions=[{"label": "Edit", "url": f"/lightning/setup/Roles/{role['Id']}/edit"},
                 {"label": "Add Role", "url": f"/lightning/setup/Roles/new?parent={role['Id']}"}],
        details=[("Label", role.get("Name")), ("Role Name", role.get("DeveloperName") or ""),
                 ("This role reports to", parent.get("Name") if parent else ""),
                 ("Role Name as displayed on reports", role.get("RollupDescription") or "")],
        sections=[{"title": "Users in this Role", "columns": ["Full Name", "Username"],
                   "rows": [{"url": f"/lightning/r/User/{u['Id']}/view", "cells": [u.get("Name"), u.get("Username")]}
                            for u in members]},
                  {"title": "Subordinate Roles", "columns": ["Label"],
                   "rows": [{"url": f"/lightning/setup/Roles/{r['Id']}/view", "cells": [r.get("Name")]}
                            for r in subs]}])


def role_form(ctx: RequestContext, role_id: str | None = None) -> Response:
    """New / edit role: "Label", "Role Name", "This role reports to", "Role Name as displayed on reports"."""
    role = ctx.org.get("UserRole", role_id) if role_id else None
    if role_id and role is None:
        return not_found_page(ctx, "The role does not exist.")
    errors = FormErrors()
    parent = ctx.org.get("UserRole", (role or {}).get("ParentRoleId") or ctx.request.args.get("parent") or "")
    vals = {"label": (role or {}).get("Name") or "", "name": (role or {}).get("DeveloperName") or "",
            "parent": parent.get("Name") if parent else "", "rollup": (role or {}).get("RollupDescription") or ""}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {k: (form.get(k) or "").strip() for k in vals}
        vals["name"] = vals["name"] or api_name(str(vals["label"]))
        data: dict[str, Any] = {"Name": vals["label"], "DeveloperName": vals["name"],
                                "RollupDescription": vals["rollup"] or None, "ParentRoleId": None}
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "Role Name")
        if vals["name"] and any(r.get("DeveloperName", "").lower() == vals["name"].lower() and r["Id"] != role_id
                                for r in ctx.org.records("UserRole") if r.get("DeveloperName")):
            errors.add(f"A role with the role name {vals['name']} already exists.", "name", "Role Name")
        if vals["parent"]:
            try:
                data["ParentRoleId"] = resolve_lookup(ctx.org, ctx.org.object("UserRole").fields["ParentRoleId"],
                                                      vals["parent"])
            except OrgError as err:
                errors.add(err.message, "parent", "This role reports to")
            if role_id and data["ParentRoleId"] and _is_below(ctx, data["ParentRoleId"], role_id):
                errors.add("A role cannot report to itself or to one of its subordinates.", "parent",
                           "This role reports to")
        if not errors:
            try:
                rid = save_record(ctx, "UserRole", role, data)
            except OrgError as err:
                errors.add(err.message)
            else:
                if role is None and ctx.request.form.get("go") == "savenew":  # Save & New: a blank new role form
                    return redirect("/lightning/setup/Roles/new", f'Role "{vals["label"]}" was saved.')
                return redirect(f"/lightning/setup/Roles/{rid}/view", f'Role "{vals["label"]}" was saved.')
    heading = f"Edit Role {role.get('Name')}" if role else "New Role"
    return record_form(
        ctx, errors, heading, "/lightning/setup/Roles", role_id,
        inputs=[{"kind": "text", "name": "label", "label": "Label", "value": vals["label"], "required": True},
                {"kind": "text", "name": "name", "label": "Role Name", "value": vals["name"],
                 "help": "Filled from the label when left blank."},
                {"kind": "text", "name": "parent", "label": "This role reports to", "value": vals["parent"],
                 "help": "The label of the parent role; blank for a top-level role."},
                {"kind": "text", "name": "rollup", "label": "Role Name as displayed on reports",
                 "value": vals["rollup"]}],
        groups=[], extra_buttons=[] if role else [{"label": "Save & New", "name": "go", "value": "savenew"}])


def _is_below(ctx: RequestContext, candidate: str, role_id: str) -> bool:
    seen = set()
    current: str | None = candidate
    while current and current not in seen:
        if current == role_id:
            return True
        seen.add(current)
        current = (ctx.org.get("UserRole", current) or {}).get("ParentRoleId")
    return False


def register(app: OrgApp) -> None:
    """Add the routes of Setup > Roles."""
    add = app.add_route
    add("/lightning/setup/Roles/home", roles, ["GET"], auth="ui", endpoint="ui.roles")
    add("/lightning/setup/Roles/new", role_form, ["GET", "POST"], auth="ui", endpoint="ui.role_new")
    add("/lightning/setup/Roles/<role_id>/view", role_view, ["GET"], auth="ui", endpoint="ui.role_view")
    add("/lightning/setup/Roles/<role_id>/edit", role_form, ["GET", "POST"], auth="ui", endpoint="ui.role_edit")
