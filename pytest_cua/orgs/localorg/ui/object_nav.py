"""Object Manager's layout around an object's pages, as Lightning Setup draws it: no Setup tree; a page header
with the breadcrumbs "Setup > Object Manager" and the object's label; the object's own vertical navigation
(Details, Fields & Relationships, Lightning Record Pages, Validation Rules) beside the page, its section current.
The layout is the same around a Lightning page of the object (its lists, its details) and around the frame that
holds one of its Classic pages (a field's wizard or page, a validation rule's), ``setup_frame``.
"""

from __future__ import annotations

from typing import Any

from pytest_cua.orgs.localorg.app import RequestContext

OM = "/lightning/setup/ObjectManager"
#: an object's sections in Object Manager, in Salesforce's order: (label, address segment); the sections no SCUBA
#: task or demonstration goes through (Page Layouts, Buttons, Links, and Actions, Record Types, ...) are left out
SECTIONS = (("Details", "Details"), ("Fields & Relationships", "FieldsAndRelationships"),
            ("Lightning Record Pages", "LightningPages"), ("Validation Rules", "ValidationRules"))
_SEGMENTS = {segment for _, segment in SECTIONS}


def layout(ctx: RequestContext) -> dict[str, Any] | None:
    """What ``setup/base.html`` draws around an Object Manager page: None off Object Manager; ``{"object": None}``
    on its own pages (the list, New Custom Object); for an object's page ``{"object": {"label", "name"},
    "links": [{"label", "url", "current"}]}``, the section the page belongs to current (an object's Edit is its
    Details')."""
    path = ctx.request.path
    if not path.startswith(f"{OM}/"):
        return None
    parts = path[len(OM) + 1:].split("/")
    obj = ctx.org.schema.get(parts[0]) if parts[0] not in ("home", "new") else None
    if obj is None:
        return {"object": None}
    section = parts[1] if len(parts) > 1 and parts[1] in _SEGMENTS else "Details"
    links = [{"label": label, "url": f"{OM}/{obj.name}/{segment}/view", "current": segment == section}
             for label, segment in SECTIONS]
    return {"object": {"label": obj.label, "name": obj.name}, "links": links}
