"""Setup screens: setup home, users (list, freeze / unfreeze; new/edit through the record forms), roles,
sharing settings (organization-wide defaults) and an object's validation rules (the rest of the Object Manager is
``routes_objects``, custom tabs ``routes_tabs``)."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import formula
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors, record_name, resolve_lookup
from pytest_cua.orgs.localorg.ui.routes_objects import object_page
from pytest_cua.orgs.localorg.ui.routes_fields import formula_helpers, formula_problem
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, setup_render, \
    valid_api_name
from pytest_cua.orgs.localorg.ui.web import NAV_OBJECTS, csrf_ok, forbidden, not_found_page, redirect


def setup_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/SetupOneHome/home``."""
    return setup_render(ctx, "setup/home.html", title="Setup")


# ---------------------------------------------------------------------------------------------------- users

def user_login(ctx: RequestContext, user_id: str) -> dict[str, Any] | None:
    """The UserLogin record of a user (None when the org has none)."""
    if "UserLogin" not in ctx.org.schema:
        return None
    found = ctx.org.find("UserLogin", UserId=user_id)
    return found[0] if found else None


def user_actions(ctx: RequestContext, user: dict[str, Any]) -> list[dict[str, str]]:
    """Post buttons of a user's page: "Freeze" or "Unfreeze"."""
    login = user_login(ctx, user["Id"])
    if login is None:
        return []
    if login.get("IsFrozen"):
        return [{"label": "Unfreeze", "url": f"/lightning/setup/ManageUsers/{user['Id']}/unfreeze"}]
    return [{"label": "Freeze", "url": f"/lightning/setup/ManageUsers/{user['Id']}/freeze"}]


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
        chosen = set(ctx.request.form.getlist("groups"))
        if chosen - {g["Id"] for g in groups}:
            errors.add("Choose permission set groups from the list.", "groups", "Enabled Permission Set Groups")
        elif chosen != set(current) and not user.get("IsActive"):
            errors.add("Permission set groups can be assigned to active users only.", "groups",
                       "Enabled Permission Set Groups")
        else:
            try:
                with ctx.org.transaction():
                    for gid in sorted(chosen - set(current)):
                        ctx.org.create("PermissionSetAssignment", {"AssigneeId": uid, "PermissionSetGroupId": gid},
                                       user_id=ctx.user_id)
                    for gid, aid in current.items():
                        if gid not in chosen:
                            ctx.org.delete("PermissionSetAssignment", aid)
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


# ---------------------------------------------------------------------------------------------------- roles

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
                if role is None:
                    rid = ctx.org.create("UserRole", data, user_id=ctx.user_id)
                else:
                    rid = role["Id"]
                    ctx.org.update("UserRole", rid, data, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                if role is None and ctx.request.form.get("go") == "savenew":  # Save & New: a blank new role form
                    return redirect("/lightning/setup/Roles/new", f'Role "{vals["label"]}" was saved.')
                return redirect(f"/lightning/setup/Roles/{rid}/view", f'Role "{vals["label"]}" was saved.')
    heading = f"Edit Role {role.get('Name')}" if role else "New Role"
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=heading, heading=heading, errors=errors,
        action=f"/lightning/setup/Roles/{role_id}/edit" if role_id else "/lightning/setup/Roles/new",
        cancel=f"/lightning/setup/Roles/{role_id}/view" if role_id else "/lightning/setup/Roles/home",
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


# ---------------------------------------------------------------------------------------------------- sharing

ACCESS_LABELS = {"Private": "Private", "Read": "Public Read Only", "ReadWrite": "Public Read/Write",
                 "ReadWriteTransfer": "Public Read/Write/Transfer", "FullAccess": "Public Full Access",
                 "ControlledByParent": "Controlled by Parent", "ControlledByLeadOrContact":
                 "Controlled by Lead or Contact", "ControlledByCampaign": "Controlled by Campaign", "None": "None"}
_RANK = {"Private": 0, "Read": 1, "ReadWrite": 2, "ReadWriteTransfer": 3, "FullAccess": 4}
_EXTRA = {"Lead": ["ReadWriteTransfer"], "Case": ["ReadWriteTransfer"], "Campaign": ["FullAccess"],
          "Contact": ["ControlledByParent"], "Contract": ["ControlledByParent"], "Order": ["ControlledByParent"],
          "Quote": ["ControlledByParent"], "Entitlement": ["ControlledByParent"]}


def sharing_objects(ctx: RequestContext) -> list[tuple[dict[str, Any], str]]:
    """(EntityDefinition, label) of the objects with organization-wide defaults: the main objects, User and the
    custom objects (those not controlled by a master-detail parent)."""
    if "EntityDefinition" not in ctx.org.schema:
        return []
    custom = [o.name for o in ctx.org.schema.objects.values() if o.custom and o.owner]
    wanted = [n for n in dict.fromkeys((*NAV_OBJECTS, "User", *custom)) if n in ctx.org.schema]
    by_name = {e.get("QualifiedApiName"): e for e in ctx.org.records("EntityDefinition")}
    out = [(by_name[n], ctx.org.object(n).label) for n in wanted if n in by_name]
    return sorted(out, key=lambda p: p[1].lower())


def access_options(name: str, current: str | None) -> list[tuple[str, str]]:
    """The access levels offered for an object (always including its current one)."""
    levels = ["Private", "Read", "ReadWrite", *_EXTRA.get(name, [])]
    if current and current not in levels:
        levels.append(current)
    return [(v, ACCESS_LABELS.get(v, v)) for v in levels]


def sharing(ctx: RequestContext) -> Response:
    """``/lightning/setup/SecuritySharing/home``: organization-wide defaults."""
    rows = [{"url": None, "cells": [label, ACCESS_LABELS.get(e.get("InternalSharingModel") or "", ""),
                                    ACCESS_LABELS.get(e.get("ExternalSharingModel") or "", "")]}
            for e, label in sharing_objects(ctx)]
    return setup_render(ctx, "setup/table.html", title="Sharing Settings", heading="Sharing Settings",
                        caption="Organization-Wide Defaults",
                        actions=[{"label": "Edit", "url": "/lightning/setup/SecuritySharing/edit"}],
                        columns=["Object", "Default Internal Access", "Default External Access"], rows=rows)


def sharing_edit(ctx: RequestContext) -> Response:
    """Edit organization-wide defaults: per object "<Object> Default Internal Access" / "... External Access"."""
    objects = sharing_objects(ctx)
    errors = FormErrors()
    chosen = {e["QualifiedApiName"]: (e.get("InternalSharingModel"), e.get("ExternalSharingModel"))
              for e, _ in objects}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        updates = []
        for e, label in objects:
            name = e["QualifiedApiName"]
            internal = form.get(f"{name}.internal") or e.get("InternalSharingModel")
            external = form.get(f"{name}.external") or e.get("ExternalSharingModel")
            chosen[name] = (internal, external)
            allowed = {v for v, _ in access_options(name, e.get("InternalSharingModel"))} | \
                {v for v, _ in access_options(name, e.get("ExternalSharingModel"))}
            if internal not in allowed or external not in allowed:
                errors.add("Choose one of the offered access levels.", f"{name}.internal", label)
                continue
            if internal in _RANK and external in _RANK and _RANK[external] > _RANK[internal]:
                errors.add("The default external access level must be the same as or more restrictive than the "
                           "default internal access level.", f"{name}.external", label)
                continue
            if (internal == "ControlledByParent") != (external == "ControlledByParent"):
                errors.add("Controlled by Parent must be chosen for both internal and external access.",
                           f"{name}.external", label)
                continue
            if (internal, external) != (e.get("InternalSharingModel"), e.get("ExternalSharingModel")):
                updates.append((e["Id"], internal, external))
        if not errors:
            try:
                with ctx.org.transaction():
                    for eid, internal, external in updates:
                        ctx.org.update("EntityDefinition", eid, {"InternalSharingModel": internal,
                                                                 "ExternalSharingModel": external},
                                       user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect("/lightning/setup/SecuritySharing/home", "Organization-wide defaults were saved.")
    rows = [{"name": e["QualifiedApiName"], "label": label, "internal": chosen[e["QualifiedApiName"]][0],
             "external": chosen[e["QualifiedApiName"]][1],
             "internal_options": access_options(e["QualifiedApiName"], e.get("InternalSharingModel")),
             "external_options": access_options(e["QualifiedApiName"], e.get("ExternalSharingModel"))}
            for e, label in objects]
    return setup_render(ctx, "setup/sharing_edit.html", status=400 if errors else 200, title="Sharing Settings",
                        rows=rows, errors=errors)


# ---------------------------------------------------------------------------------------------------- validation rules

def _rules_of(ctx: RequestContext, obj_name: str) -> list[dict[str, Any]]:
    if "ValidationRule" not in ctx.org.schema:
        return []
    return sorted((r for r in ctx.org.records("ValidationRule")
                   if (r.get("EntityDefinitionId") or "").lower() == obj_name.lower()),
                  key=lambda r: str(r.get("ValidationName") or "").lower())


def validation_rules(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/setup/ObjectManager/{Object}/ValidationRules/view``."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules"
    rows = [{"url": f"{base}/{r['Id']}/view", "cells": [r.get("ValidationName"), r.get("ErrorMessage") or "",
                                                        "Yes" if r.get("Active") else "No"]}
            for r in _rules_of(ctx, obj.name)]
    return object_page(ctx, obj, heading=f"{obj.label}: Validation Rules", details=[],
                        sections=[{"title": "Validation Rules", "actions": [{"label": "New", "url": f"{base}/new"}],
                                   "columns": ["Rule Name", "Error Message", "Active"], "rows": rows}])


def validation_rule_view(ctx: RequestContext, obj_name: str, rule_id: str) -> Response:
    """One validation rule."""
    obj = ctx.org.schema.get(obj_name)
    rule = ctx.org.get("ValidationRule", rule_id) if obj is not None else None
    if obj is None or rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    notes = []
    try:
        formula.parse(rule.get("ErrorConditionFormula") or "")
    except formula.FormulaUnsupported as exc:
        notes.append(f"The local org does not enforce this rule: {exc}")
    else:
        why = ctx.org.unenforced_rules.get(f"{obj.name}.{rule.get('ValidationName')}")
        if why:
            notes.append(f"The local org does not enforce this rule: {why}")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules/{rule['Id']}"
    field = obj.field(rule.get("ErrorDisplayField") or "")
    return object_page(ctx, obj, kicker=f"{obj.label} Validation Rule", heading=rule.get("ValidationName"),
                        actions=[{"label": "Edit", "url": f"{base}/edit"}], notes=notes,
                        post_actions=[{"label": "Delete", "url": f"{base}/delete"}],
                        details=[("Rule Name", rule.get("ValidationName")),
                                 ("Active", "Yes" if rule.get("Active") else "No"),
                                 ("Description", rule.get("Description") or ""),
                                 ("Error Condition Formula", rule.get("ErrorConditionFormula") or ""),
                                 ("Error Message", rule.get("ErrorMessage") or ""),
                                 ("Error Location", field.label if field else "Top of Page")],
                        sections=[])


def validation_rule_form(ctx: RequestContext, obj_name: str, rule_id: str | None = None) -> Response:
    """New / edit validation rule: "Rule Name", "Active", "Description", "Error Condition Formula",
    "Error Message", "Error Location"."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    rule = ctx.org.get("ValidationRule", rule_id) if rule_id else None
    if rule_id and rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules"
    errors = FormErrors()
    r = rule or {}
    notes: list[str] = []
    vals: dict[str, Any] = {"name": r.get("ValidationName") or "", "active": bool(r.get("Active", True)),
                            "description": r.get("Description") or "", "formula": r.get("ErrorConditionFormula")
                            or "", "message": r.get("ErrorMessage") or "", "location": r.get("ErrorDisplayField")
                            or ""}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {"name": (form.get("name") or "").strip(), "active": form.get("active") is not None,
                "description": (form.get("description") or "").strip(), "formula": (form.get("formula") or "").strip(),
                "message": (form.get("message") or "").strip(), "location": form.get("location") or ""}
        checking = form.get("go") == "check"  # Check Syntax: the formula only, nothing written, the form kept
        if checking:
            pass
        elif not vals["name"]:
            errors.add("Complete this field.", "name", "Rule Name")
        elif not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "Rule Name")
        elif any(x.get("ValidationName", "").lower() == vals["name"].lower() and x["Id"] != rule_id
                 for x in _rules_of(ctx, obj.name)):
            errors.add(f"A validation rule named {vals['name']} already exists on {obj.label}.", "name", "Rule Name")
        problem = formula_problem(obj, vals["formula"])  # empty, unbalanced, or a field the object lacks
        if problem:
            errors.add(problem, "formula", "Error Condition Formula")
        elif checking:
            notes.append("No syntax errors in merge fields or functions.")
        if not vals["message"] and not checking:
            errors.add("Complete this field.", "message", "Error Message")
        if vals["location"] and obj.field(vals["location"]) is None:
            errors.add("Choose a field or Top of Page.", "location", "Error Location")
        if not errors and not checking:
            data = {"ValidationName": vals["name"], "Active": vals["active"],
                    "Description": vals["description"] or None,
                    "ErrorConditionFormula": vals["formula"], "ErrorMessage": vals["message"],
                    "ErrorDisplayField": vals["location"] or None}
            try:
                if rule is None:
                    rid = ctx.org.create("ValidationRule", {**data, "EntityDefinitionId": obj.name},
                                         user_id=ctx.user_id)
                else:
                    rid = rule["Id"]
                    ctx.org.update("ValidationRule", rid, data, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(f"{base}/{rid}/view", f'Validation rule "{vals["name"]}" was saved.')
    locations = [("", "Top of Page")] + [(f.name, f.label) for f in sorted(obj.fields.values(),
                                                                             key=lambda f: f.label.lower())
                                         if not f.system and f.createable]
    heading = f"Edit Validation Rule {r.get('ValidationName')}" if rule else f"New Validation Rule: {obj.label}"
    return setup_render(
        ctx, "setup/form.html", status=400 if errors else 200, title=heading, heading=heading, errors=errors,
        action=f"{base}/{rule_id}/edit" if rule_id else f"{base}/new",
        cancel=f"{base}/{rule_id}/view" if rule_id else f"{base}/view",
        inputs=[{"kind": "text", "name": "name", "label": "Rule Name", "value": vals["name"], "required": True},
                {"kind": "checkbox", "name": "active", "label": "Active", "value": vals["active"]},
                {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
                {"kind": "textarea", "name": "formula", "label": "Error Condition Formula", "value": vals["formula"],
                 "required": True, "rows": 5, "insert": formula_helpers(ctx, obj),
                 "help": "If this formula is true, the record is not saved and the error message is shown."},
                {"kind": "textarea", "name": "message", "label": "Error Message", "value": vals["message"],
                 "required": True},
                {"kind": "select", "name": "location", "label": "Error Location", "value": vals["location"],
                 "options": locations}],
        groups=[], notes=notes, extra_buttons=[{"label": "Check Syntax", "name": "go", "value": "check"}])


def validation_rule_delete(ctx: RequestContext, obj_name: str, rule_id: str) -> Response:
    """POST: delete a validation rule."""
    if not csrf_ok(ctx):
        return forbidden(ctx)
    rule = ctx.org.get("ValidationRule", rule_id)
    if rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    ctx.org.delete("ValidationRule", rule["Id"])
    return redirect(f"/lightning/setup/ObjectManager/{obj_name}/ValidationRules/view",
                    f'Validation rule "{rule.get("ValidationName")}" was deleted.')


def register(app: OrgApp) -> None:
    """Add the setup routes."""
    from pytest_cua.orgs.localorg.ui import (routes_approvals, routes_apps, routes_assignment, routes_entitlements, routes_groups, routes_object_settings, routes_objects, routes_perms, routes_profiles,
                                        routes_processes, routes_security, routes_tabs, routes_territory)

    add = app.add_route
    add("/lightning/setup/SetupOneHome/home", setup_home, ["GET"], auth="ui", endpoint="ui.setup")
    add("/lightning/setup/ManageUsers/home", users, ["GET"], auth="ui", endpoint="ui.users")
    add("/lightning/setup/ManageUsers/<user_id>/view", user_detail, ["GET"], auth="ui", endpoint="ui.user_detail")
    add("/lightning/setup/ManageUsers/<user_id>/permsetgroups", user_permset_groups, ["GET", "POST"], auth="ui",
        endpoint="ui.user_permset_groups")
    add("/lightning/setup/ManageUsers/<user_id>/freeze", freeze, ["POST"], auth="ui", endpoint="ui.freeze")
    add("/lightning/setup/ManageUsers/<user_id>/unfreeze", unfreeze, ["POST"], auth="ui", endpoint="ui.unfreeze")
    add("/lightning/setup/Roles/home", roles, ["GET"], auth="ui", endpoint="ui.roles")
    add("/lightning/setup/Roles/new", role_form, ["GET", "POST"], auth="ui", endpoint="ui.role_new")
    add("/lightning/setup/Roles/<role_id>/view", role_view, ["GET"], auth="ui", endpoint="ui.role_view")
    add("/lightning/setup/Roles/<role_id>/edit", role_form, ["GET", "POST"], auth="ui", endpoint="ui.role_edit")
    add("/lightning/setup/SecuritySharing/home", sharing, ["GET"], auth="ui", endpoint="ui.sharing")
    add("/lightning/setup/SecuritySharing/edit", sharing_edit, ["GET", "POST"], auth="ui", endpoint="ui.sharing_edit")
    om = "/lightning/setup/ObjectManager/<obj_name>"
    add(f"{om}/ValidationRules/view", validation_rules, ["GET"], auth="ui", endpoint="ui.rules")
    add(f"{om}/ValidationRules/new", validation_rule_form, ["GET", "POST"], auth="ui", endpoint="ui.rule_new")
    add(f"{om}/ValidationRules/<rule_id>/view", validation_rule_view, ["GET"], auth="ui", endpoint="ui.rule")
    add(f"{om}/ValidationRules/<rule_id>/edit", validation_rule_form, ["GET", "POST"], auth="ui",
        endpoint="ui.rule_edit")
    add(f"{om}/ValidationRules/<rule_id>/delete", validation_rule_delete, ["POST"], auth="ui",
        endpoint="ui.rule_delete")
    routes_groups.register(app)
    routes_perms.register(app)
    routes_profiles.register(app)
    routes_objects.register(app)
    routes_tabs.register(app)
    routes_security.register(app)
    routes_object_settings.register(app)
    routes_processes.register(app)
    routes_apps.register(app)
    routes_assignment.register(app)
    routes_entitlements.register(app)
    routes_territory.register(app)
    routes_approvals.register(app)
