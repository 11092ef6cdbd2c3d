"""The Dashboards tab and the dashboard builder: the dashboard list, and a builder page with the dashboard's
"Name" and "Description" and its components, each a report shown as a chart ("Display As") under a title; "Add
Component" posts the page and shows it again with the component, nothing is saved before "Save", which goes
through the Analytics model (``analytics.create_dashboard``)."""

from __future__ import annotations

import json
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.analytics_home import DASHBOARDS, home_props, view_label, view_of
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect, render

HOME = "/lightning/o/Dashboard/home"
#: visualization type -> the builder's "Display As" label
DISPLAY_AS = {"Bar": "Horizontal Bar Chart", "Column": "Vertical Bar Chart", "Line": "Line Chart",
              "Donut": "Donut Chart", "Pie": "Pie Chart", "Funnel": "Funnel Chart", "Scatter": "Scatter Chart",
              "Gauge": "Gauge", "Metric": "Metric", "FlexTable": "Lightning Table", "Table": "Table"}


def dashboards_home(ctx: RequestContext) -> Response:
    """``/lightning/o/Dashboard/home?view=recent``: Lightning's Dashboards home (``analytics_home``): the lists,
    New Dashboard, and the list's dashboards."""
    view = view_of(DASHBOARDS, ctx)
    return render(ctx, "analytics_home.html", title=f"{view_label(DASHBOARDS, view)} | Dashboards",
                  props=home_props(ctx, DASHBOARDS, view))


def _components(form: Any) -> list[dict[str, str]]:
    try:
        found = json.loads(form.get("components") or "[]")
    except ValueError:
        return []
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def dashboard_new(ctx: RequestContext) -> Response:
    """``/lightning/o/Dashboard/new``: the builder (Name, Description; Report, Display As, Title, Add Component;
    each component's Remove; Save)."""
    form = ctx.request.form
    reports = sorted(ctx.org.records("Report"), key=lambda r: str(r.get("Name") or "").lower())
    by_id = {r["Id"]: r for r in reports}
    components: list[dict[str, str]] = []
    vals = {"name": "", "description": ""}
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        components = _components(form)
        vals = {k: (form.get(k) or "").strip() for k in vals}
        do = form.get("do") or ""
        if do == "add":
            rid, vis = form.get("report") or "", form.get("display_as") or ""
            if rid not in by_id:
                errors.add("Choose a report.", "report", "Report")
            if vis not in DISPLAY_AS:
                errors.add("Choose how to display the report.", "display_as", "Display As")
            if not errors:
                components.append({"report": rid, "vis": vis, "title": (form.get("component_title") or "").strip()})
        elif do.startswith("remove:") and do[7:].isdigit() and int(do[7:]) < len(components):
            components.pop(int(do[7:]))
        elif do == "save":
            if not vals["name"]:
                errors.add("Complete this field.", "name", "Name")
            if not errors:
                md = {"name": vals["name"], "description": vals["description"] or None,
                      "components": [{"type": "Report", "reportId": c["report"], "header": c["title"] or None,
                                      "properties": {"visualizationType": c["vis"]}} for c in components]}
                try:
                    did = analytics.create_dashboard(ctx.org, md, user_id=ctx.user_id)
                except OrgError as err:
                    errors.add(err.message)
                else:
                    return redirect(f"/lightning/o/Dashboard/{did}/view", f'Dashboard "{vals["name"]}" was saved.')
    shown = [{"i": i, "report": (by_id.get(c.get("report", "")) or {}).get("Name") or c.get("report"),
              "vis": DISPLAY_AS.get(c.get("vis", ""), c.get("vis")), "title": c.get("title")}
             for i, c in enumerate(components)]
    return render(ctx, "dashboard_new.html", status=400 if errors else 200, title="New Dashboard", errors=errors,
                  vals=vals, state=json.dumps(components), components=shown,
                  reports=[(r["Id"], r.get("Name")) for r in reports], display_as=list(DISPLAY_AS.items()))


def dashboard_view(ctx: RequestContext, dashboard_id: str) -> Response:
    """A saved dashboard: its components (report, chart, title)."""
    rec = ctx.org.get("Dashboard", dashboard_id)
    if rec is None:
        return not_found_page(ctx, "The dashboard does not exist.")
    described = analytics.describe_dashboard(ctx.org, rec["Id"])
    shown = [{"title": c.get("header") or "", "vis": DISPLAY_AS.get(c["properties"]["visualizationType"],
                                                                    c["properties"]["visualizationType"]),
              "report": (ctx.org.get("Report", c.get("reportId") or "") or {}).get("Name")}
             for c in described["components"]]
    return render(ctx, "dashboard_view.html", title=f"{rec.get('Title')} | Dashboards", rec=rec, components=shown)


def register(app: OrgApp) -> None:
    """Add the Dashboards tab and the builder."""
    app.add_route(HOME, dashboards_home, ["GET"], auth="ui", endpoint="ui.dashboards")
    app.add_route("/lightning/o/Dashboard/new", dashboard_new, ["GET", "POST"], auth="ui", endpoint="ui.dashboard_new")
    app.add_route("/lightning/o/Dashboard/<dashboard_id>/view", dashboard_view, ["GET"], auth="ui",
                  endpoint="ui.dashboard")
