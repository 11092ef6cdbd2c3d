"""Setup > Users: the list of users with role, profile, active and frozen flags, Setup's user page ("User
Detail" with "Edit", "Freeze" / "Unfreeze" and the permission set (group) assignments), the user's permission set
group assignments (a dual listbox), and the freeze / unfreeze posts. A user's new / edit forms are the record
forms (``routes_records``)."""

from __future__ import annotations

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors, record_name
from pytest_cua.orgs.localorg.ui.record_page import user_actions, user_login
from pytest_cua.orgs.localorg.ui.setup_common import chosen_ids, save_links, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect


def users(ctx: RequestContext) -> Response:
    """``/lightning/setup/ManageUsers/home``: every user with role, profile, active and frozen flags."""
    rows = []
    for u in sorted(ctx.org.records("User"), key=lambda u: str(u.get("LastName") or "").lower()):
        login = user_login(ctx, u["Id"]) or {}
        rows.append({"url": f"/lightning/setup/ManageUsers/{u['Id']}/view",
                     "cells": [u.get("Name") or u["Id"], u.get("Username"), u.get("Alias") or "",
                               record_name(ctx.org, "UserRole", ctx.org.get("UserRole", u.get("UserRoleId") or "")),
                               record_name(ctx.org, "Profile", ctx.org.get("Profile", u.get("ProfileId") or "")),
                               "Yes" if u.get("IsActive") else "No", "Yes" if login.get("IsFrozen") else "No"]})
    return setup_render(ctx, "setup/table.html", title="Users", heading="Users",
                        actions=[{"label": "New User",
                                  "url": "/lightning/o/User/new?retURL=/lightning/setup/ManageUsers/home"}],
                        columns=["Full Name", "Username", "Alias", "Role", "Profile", "Active", "Frozen"], rows=rows)


def _set_frozen(ctx: RequestContext, user_id: str, frozen: bool) -> Response:
    if not csrf_ok(ctx):
        return forbidden(ctx)
    user = ctx.org.get("User", user_id)
    login = user_login(ctx, user_id) if user else None
    if user is None or login is None:
        return not_found_page(ctx, "The user does not exist.")
    ctx.org.update("UserLogin", login["Id"], {"IsFrozen": frozen}, user_id=ctx.user_id)
    verb = "frozen" if frozen else "unfrozen"
    back = f"/lightning/setup/ManageUsers/{user['Id']}/view"  # the setup user page posts its own address
    where = back if ctx.request.args.get("retURL") == back else f"/lightning/r/User/{user['Id']}/view"
    return redirect(where, f'User "{user.get("Name")}" was {verb}.')


def user_detail(ctx: RequestContext, user_id: str) -> Response:
    """``/lightning/setup/ManageUsers/{Id}/view``: Setup's user page: "User Detail" with "Edit" and "Freeze" /
    "Unfreeze", and the related lists "Permission Set Assignments" and "Permission Set Group Assignments"
    ("Edit Assignments")."""
    user = ctx.org.get("User", user_id)
    if user is None:
        return not_found_page(ctx, "The user does not exist.")
    uid = user["Id"]
    here = f"/lightning/setup/ManageUsers/{uid}/view"
    login = user_login(ctx, uid) or {}
    role = ctx.org.get("UserRole", user.get("UserRoleId") or "")
    profile = ctx.org.get("Profile", user.get("ProfileId") or "")
    manager = ctx.org.get("User", user.get("ManagerId") or "")
    details = [("Name", user.get("Name") or ""), ("Alias", user.get("Alias") or ""), ("Email", user.get("Email") or ""),
               ("Username", user.get("Username") or ""), ("Role", record_name(ctx.org, "UserRole", role)),
               ("Profile", record_name(ctx.org, "Profile", profile)),
               ("Manager", manager.get("Name") if manager else ""),
               ("Active", "Yes" if user.get("IsActive") else "No"), ("Frozen", "Yes" if login.get("IsFrozen") else "No")]
    assigned = ctx.org.find("PermissionSetAssignment", AssigneeId=uid)
    sets = [ctx.org.get("PermissionSet", a.get("PermissionSetId") or "") or {} for a in assigned
            if a.get("PermissionSetId") and not a.get("PermissionSetGroupId")]
    groups = [ctx.org.get("PermissionSetGroup", a.get("PermissionSetGroupId") or "") or {} for a in assigned
              if a.get("PermissionSetGroupId")]
    sections = [{"title": "Permission Set Assignments", "columns": ["Permission Set Label", "API Name"],
                 "rows": [{"url": f"/lightning/setup/PermSets/{p['Id']}/view", "cells": [p.get("Label"), p.get("Name")]}
                          for p in sets if p and not p.get("IsOwnedByProfile")]},
                {"title": "Permission Set Group Assignments", "columns": ["Permission Set Group", "API Name"],
                 "actions": [{"label": "Edit Assignments", "url": f"/lightning/setup/ManageUsers/{uid}/permsetgroups"}],
                 "rows": [{"url": f"/lightning/setup/PermSetGroups/{g['Id']}/view",
                           "cells": [g.get("MasterLabel"), g.get("DeveloperName")]} for g in groups if g]}]
    post = [{**a, "url": f"{a['url']}?retURL={here}"} for a in user_actions(ctx, user)]
    return setup_render(ctx, "setup/detail.html", title=f"User: {user.get('Name')}", kicker="User",
                        heading=user.get("Name") or uid, details_title="User Detail", details=details,
                        actions=[{"label": "Edit", "url": f"/lightning/r/User/{uid}/edit?retURL={here}"}],
                        post_actions=post, sections=sections)


def user_permset_groups(ctx: RequestContext, user_id: str) -> Response:
    """Edit Assignments of a user's permission set groups: a dual listbox "Available Permission Set Groups" /
    "Enabled Permission Set Groups" ("Add", "Remove"), then "Save" (assignments made and removed at once)."""
    user = ctx.org.get("User", user_id)
    if user is None:
        return not_found_page(ctx, "The user does not exist.")
    uid = user["Id"]
    here = f"/lightning/setup/ManageUsers/{uid}/view"
    groups = sorted(ctx.org.records("PermissionSetGroup"), key=lambda g: str(g.get("MasterLabel") or "").lower())
    current: dict[str, str] = {str(a["PermissionSetGroupId"]): a["Id"]
                               for a in ctx.org.find("PermissionSetAssignment", AssigneeId=uid)
                               if a.get("PermissionSetGroupId")}
    chosen = set(current)
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        chosen = chosen_ids(ctx, errors, "groups", (g["Id"] for g in groups), label="Enabled Permission Set Groups",
                            foreign="Choose permission set groups from the list.")
        if not errors and chosen != set(current) and not user.get("IsActive"):
            errors.add("Permission set groups can be assigned to active users only.", "groups",
                       "Enabled Permission Set Groups")
        if not errors:
            try:
                save_links(ctx, "PermissionSetAssignment",
                           lambda gid: {"AssigneeId": uid, "PermissionSetGroupId": gid}, chosen, current)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(here, "The permission set group assignments were saved.")
    label = {g["Id"]: g.get("MasterLabel") or g.get("DeveloperName") or g["Id"] for g in groups}
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=f"Permission Set Group Assignments: {user.get('Name')}",
        heading=f"{user.get('Name')}: Permission Set Group Assignments", errors=errors,
        action=f"/lightning/setup/ManageUsers/{uid}/permsetgroups", cancel=here,
        inputs=[{"kind": "dual", "name": "groups", "label": "Permission Set Groups",
                 "available_label": "Available Permission Set Groups", "selected_label": "Enabled Permission Set Groups",
                 "available": [(g["Id"], label[g["Id"]]) for g in groups if g["Id"] not in chosen],
                 "selected": [(g["Id"], label[g["Id"]]) for g in groups if g["Id"] in chosen]}],
        groups=[])


def freeze(ctx: RequestContext, user_id: str) -> Response:
    """POST: freeze a user (UserLogin.IsFrozen = true)."""
    return _set_frozen(ctx, user_id, True)


def unfreeze(ctx: RequestContext, user_id: str) -> Response:
    """POST: unfreeze a user."""
    return _set_frozen(ctx, user_id, False)


def register(app: OrgApp) -> None:
    """Add the routes of Setup > Users."""
    add = app.add_route
    add("/lightning/setup/ManageUsers/home", users, ["GET"], auth="ui", endpoint="ui.users")
    add("/lightning/setup/ManageUsers/<user_id>/view", user_detail, ["GET"], auth="ui", endpoint="ui.user_detail")
    add("/lightning/setup/ManageUsers/<user_id>/permsetgroups", user_permset_groups, ["GET", "POST"], auth="ui",
        endpoint="ui.user_permset_groups")
    add("/lightning/setup/ManageUsers/<user_id>/freeze", freeze, ["POST"], auth="ui", endpoint="ui.freeze")
    add("/lightning/setup/ManageUsers/<user_id>/unfreeze", unfreeze, ["POST"], auth="ui", endpoint="ui.unfreeze")
