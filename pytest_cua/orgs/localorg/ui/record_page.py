"""The parts of a record page that several routes build: its related lists (with their extra actions, such as
"Add Products", and the "View All" link), and a user's login state with the
"Freeze" / "Unfreeze" actions (on the user's record page and on Setup's user page)."""

from __future__ import annotations

import re
from typing import Any

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.ui import listing
from pytest_cua.orgs.localorg.ui.web import object_icon, plural, url

# Related lists whose Salesforce names differ from the child object's plural label.
RELATED_LABELS = {"OpportunityContactRole": ("Contact Roles", "New Contact Role")}
# Related-list actions besides "New <Child>" (Salesforce's "Add Products", "Add Leads", ...).
RELATED_ACTIONS = {
    ("Pricebook2", "PricebookEntry"): [("Add Products", "/lightning/r/Pricebook2/{rid}/addproducts")],
    ("Quote", "QuoteLineItem"): [("Add Products", "/lightning/r/Quote/{rid}/addproducts")],
    ("Campaign", "CampaignMember"): [("Add Leads", "/lightning/r/Campaign/{rid}/addmembers?type=Lead"),
                                     ("Add Contacts", "/lightning/r/Campaign/{rid}/addmembers?type=Contact")],
}


def related_lists(ctx: RequestContext, obj: ObjectSchema, rid: str, limit: int | None = 50) -> list[dict[str, Any]]:
    """The related lists of a record page (``limit`` rows each, None = all), with their "View All" link."""
    counts: dict[str, int] = {}
    for rel in obj.child_relationships:
        counts[rel.child_object] = counts.get(rel.child_object, 0) + 1
    out = []
    for rel in obj.child_relationships:
        child = ctx.org.schema.get(rel.child_object)
        if child is None:
            continue
        fixed = RELATED_LABELS.get(child.name)
        label, new_label = fixed if fixed else (plural(child), f"New {child.label}")
        if child.name == obj.name:
            label = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", rel.name)
        if counts[child.name] > 1:
            pretty = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", rel.name)
            label = pretty
            new_label = f"{new_label} ({child.fields[rel.field].label})"
        columns = listing.columns_of(child, listing.name_field_first(child, listing.default_columns(child)))
        columns = [c for c in columns if c.name != rel.field] or columns
        every = [r for r in ctx.org.records(child.name) if r.get(rel.field) == rid]
        rows = every if limit is None else every[:limit]
        actions = [{"label": a_label, "url": a_url.format(rid=rid)}
                   for a_label, a_url in RELATED_ACTIONS.get((obj.name, child.name), [])]
        out.append({"label": label, "new_label": new_label, "object": child.name, "rel": rel.name,
                    "icon": object_icon(child),
                    "total": len(every), "actions": actions,
                    "view_all_url": f"/lightning/r/{obj.name}/{rid}/related/{rel.name}/view",
                    "new_url": url(f"/lightning/o/{child.name}/new",
                                   {rel.field: rid, "retURL": f"/lightning/r/{obj.name}/{rid}/view"}),
                    "columns": columns,
                    "rows": [{"id": r["Id"], "cells": listing.cells(ctx.org, columns, r)} for r in rows]})
    if obj.name == "Incident" and "ChangeRequestRelatedIssue" in ctx.org.schema:
        out.append(_change_requests(ctx, rid, limit))
    activities = {"Task": 1, "Event": 2}
    return sorted(out, key=lambda rl: (activities.get(rl["object"], 0), rl["label"].lower()))


def _change_requests(ctx: RequestContext, rid: str, limit: int | None) -> dict[str, Any]:
    """An incident's "Change Requests" (through ChangeRequestRelatedIssue): "Add New Change Request" opens a new
    change request that is linked to the incident on save; "Add Existing Change Request" links one."""
    child = ctx.org.object("ChangeRequest")
    linked = [j["ChangeRequestId"] for j in ctx.org.records("ChangeRequestRelatedIssue")
              if j.get("RelatedIssueId") == rid and j.get("ChangeRequestId")]
    every = [r for r in (ctx.org.get("ChangeRequest", i) for i in linked) if r is not None]
    rows = every if limit is None else every[:limit]
    columns = listing.columns_of(child, listing.name_field_first(child, listing.default_columns(child)))
    back = f"/lightning/r/Incident/{rid}/view"
    return {"label": "Change Requests", "new_label": "Add New Change Request", "object": "ChangeRequest",
            "icon": object_icon(child),
            "rel": "ChangeRequests", "total": len(every),
            "new_url": url("/lightning/o/ChangeRequest/new", {"RelatedIssueId": rid, "retURL": back}),
            "actions": [{"label": "Add Existing Change Request",
                         "url": url("/lightning/o/ChangeRequestRelatedIssue/new",
                                    {"RelatedIssueId": rid, "retURL": back})}],
            "view_all_url": f"/lightning/r/Incident/{rid}/related/ChangeRequests/view", "columns": columns,
            "rows": [{"id": r["Id"], "cells": listing.cells(ctx.org, columns, r)} for r in rows]}


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
