"""The Reports and Dashboards homes as Lightning shows them (``one-analytics-home``): the kind's lists in a vertical
navigation (Recent, Created by Me, Private Reports, Public Reports, All Reports; for dashboards Recent, Created by
Me, Private Dashboards, All Dashboards), the page header with New Report / New Dashboard, and the list's items in
a datatable (the name opens the item; Description, Folder, Created By, Created On).

Recent lists the items last run or changed first (the org does not record views); the other lists sort by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.values import shown_datetime


@dataclass(frozen=True)
class AnalyticsKind:
    singular: str  # "Report": the object, its label and its addresses (/lightning/o/Report/...)
    name_field: str  # the record's name ("Name"; a dashboard's is "Title")
    icon: str
    views: tuple[tuple[str, str], ...]  # (name in ``?view=``, label), in Lightning's order

    @property
    def plural(self) -> str:
        return f"{self.singular}s"

    @property
    def home(self) -> str:
        return f"/lightning/o/{self.singular}/home"


REPORTS = AnalyticsKind("Report", "Name", "standard:report", (
    ("recent", "Recent"), ("created", "Created by Me"), ("private", "Private Reports"), ("public", "Public Reports"),
    ("all", "All Reports")))
DASHBOARDS = AnalyticsKind("Dashboard", "Title", "standard:dashboard", (
    ("recent", "Recent"), ("created", "Created by Me"), ("private", "Private Dashboards"), ("all", "All Dashboards")))


def view_of(kind: AnalyticsKind, ctx: RequestContext) -> str:
    """The list the request asks for (``?view=``), Recent when it names none of the kind's."""
    view = ctx.request.args.get("view") or "recent"
    return view if view in dict(kind.views) else "recent"


def view_label(kind: AnalyticsKind, view: str) -> str:
    return dict(kind.views)[view]


def _in_view(kind: AnalyticsKind, view: str, rec: dict[str, Any], user_id: str) -> bool:
    if view == "created":
        return rec.get("CreatedById") == user_id
    if view in ("private", "public"):
        return rec.get("FolderName") == f"{view.title()} {kind.plural}"
    return True


def home_props(ctx: RequestContext, kind: AnalyticsKind, view: str) -> dict[str, Any]:
    """``one-analytics-home``'s props for the list ``view`` of ``kind``."""
    records = [r for r in ctx.org.records(kind.singular) if _in_view(kind, view, r, str(ctx.user_id))]
    if view == "recent":
        records.sort(key=lambda r: str(r.get("LastRunDate") or r.get("LastModifiedDate") or ""), reverse=True)
    else:
        records.sort(key=lambda r: str(r.get(kind.name_field) or "").lower())
    users = {u["Id"]: u.get("Name") or "" for u in ctx.org.records("User")}
    rows = [{"id": r["Id"], "name": r.get(kind.name_field) or "", "url": f"/lightning/o/{kind.singular}/{r['Id']}/view",
             "description": r.get("Description") or "", "folder": r.get("FolderName") or "",
             "createdBy": users.get(str(r.get("CreatedById")), ""),
             "createdOn": shown_datetime(str(r.get("CreatedDate") or ""))} for r in records]
    return {"singular": kind.singular, "plural": kind.plural, "iconName": kind.icon,
            "newUrl": f"/lightning/o/{kind.singular}/new",
            "views": [{"name": name, "label": label, "url": f"{kind.home}?view={name}"} for name, label in kind.views],
            "current": view, "rows": rows}
