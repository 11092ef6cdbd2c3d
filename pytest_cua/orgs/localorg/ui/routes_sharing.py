"""Setup > Sharing Settings: the organization-wide defaults (each object's default internal and external
access, as ``EntityDefinition`` records hold them) and their edit page."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import setup_render
from pytest_cua.orgs.localorg.ui.web import NAV_OBJECTS, csrf_ok, forbidden, redirect

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


def register(app: OrgApp) -> None:
    """Add the routes of Setup > Sharing Settings."""
    add = app.add_route
    add("/lightning/setup/SecuritySharing/home", sharing, ["GET"], auth="ui", endpoint="ui.sharing")
    add("/lightning/setup/SecuritySharing/edit", sharing_edit, ["GET", "POST"], auth="ui", endpoint="ui.sharing_edit")
