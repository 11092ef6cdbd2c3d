"""The Dashboards tab and Lightning's dashboard builder: the Dashboards home, New Dashboard (a dialog: Name,
Description, Create), the builder (``one-dashboard-builder``: "+ Component" chooses a report in the Select Report
dialog, then Display As and Title in the Add Component dialog; Save posts the whole dashboard, which goes through
the Analytics model, ``analytics.create_dashboard``) and a saved dashboard's page."""

from __future__ import annotations

import json
from typing import Any, Mapping
from urllib.parse import urlencode

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui import report_table
from pytest_cua.orgs.localorg.ui.analytics_home import DASHBOARDS, home_props, view_label, view_of
from pytest_cua.orgs.localorg.ui.web import CSRF_FIELD, csrf_ok, csrf_token, forbidden, not_found_page, redirect, \
    render

HOME = "/lightning/o/Dashboard/home"
BUILDER = "/lightning/o/Dashboard/builder"
#: visualization type -> the builder's "Display As" label
DISPLAY_AS = {"Bar": "Horizontal Bar Chart", "Column": "Vertical Bar Chart", "Line": "Line Chart",
              "Donut": "Donut Chart", "Funnel": "Funnel Chart", "Scatter": "Scatter Chart", "Gauge": "Gauge",
              "Metric": "Metric", "FlexTable": "Lightning Table"}


def dashboards_home(ctx: RequestContext) -> Response:
    """``/lightning/o/Dashboard/home?view=recent``: Lightning's Dashboards home (``analytics_home``): the lists,
    New Dashboard, and the list's dashboards."""
    view = view_of(DASHBOARDS, ctx)
    return render(ctx, "analytics_home.html", title=f"{view_label(DASHBOARDS, view)} | Dashboards",
                  props=home_props(ctx, DASHBOARDS, view))


def _components(raw: str) -> list[dict[str, str]]:
    try:
        found = json.loads(raw or "[]")
    except ValueError:
        return []
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def dashboard_new(ctx: RequestContext) -> Response:
    """``/lightning/o/Dashboard/new``: the New Dashboard dialog over the Dashboards home (Name, Description;
    Create opens the builder with them; a missing name is "Complete this field.")."""
    args = ctx.request.args
    name, description = (args.get("name") or "").strip(), (args.get("description") or "").strip()
    error = None
    if args.get("create") is not None:
        if name:
            return redirect(f"{BUILDER}?{urlencode({'name': name, 'description': description})}")
        error = "Complete this field."
    return render(ctx, "dashboard_new.html", status=400 if error else 200, title="New Dashboard", name=name,
                  description=description, error=error,
                  behind={"tag": "one-analytics-home", "props": home_props(ctx, DASHBOARDS, "recent")})


def _builder(ctx: RequestContext, dashboard: Mapping[str, Any], errors: Mapping[str, Any] | None = None,
             status: int = 200) -> Response:
    reports = sorted(ctx.org.records("Report"), key=lambda r: str(r.get("Name") or "").lower())
    props = {"dashboard": dict(dashboard), "errors": dict(errors or {}), "action": BUILDER, "homeUrl": HOME,
             "csrfField": CSRF_FIELD, "csrf": csrf_token(ctx),
             "reports": [{"id": r["Id"], "name": r.get("Name") or "", "folder": r.get("FolderName") or ""}
                         for r in reports],
             "displayAs": [{"value": value, "label": label} for value, label in DISPLAY_AS.items()]}
    return render(ctx, "dashboard_builder.html", status=status, title=f"{dashboard.get('name') or 'New'} | Dashboard",
                  props=props)


def dashboard_builder(ctx: RequestContext) -> Response:
    """``/lightning/o/Dashboard/builder``: the builder (``one-dashboard-builder``): GET with the New Dashboard
    dialog's name and description; POST of the whole dashboard (name, description, components: report, Display
    As, title), saved through the Analytics model (``analytics.create_dashboard``); a refusal comes back as the
    builder with everything kept and the message on the page."""
    if ctx.request.method == "GET":
        args = ctx.request.args
        return _builder(ctx, {"name": (args.get("name") or "").strip(),
                              "description": (args.get("description") or "").strip(), "components": []})
    if not csrf_ok(ctx):
        return forbidden(ctx)
    form = ctx.request.form
    dashboard: dict[str, Any] = {"name": (form.get("name") or "").strip(),
                                 "description": (form.get("description") or "").strip(),
                                 "components": _components(form.get("components") or "")}
    reports = {r["Id"] for r in ctx.org.records("Report")}
    problems = []
    if not dashboard["name"]:
        problems.append("Name: Complete this field.")
    for i, c in enumerate(dashboard["components"], 1):
        if c.get("report") not in reports:
            problems.append(f"Component {i}: choose a report.")
        if c.get("vis") not in DISPLAY_AS:
            problems.append(f"Component {i}: choose how to display the report.")
    if not problems:
        md = {"name": dashboard["name"], "description": dashboard["description"] or None,
              "components": [{"type": "Report", "reportId": c["report"], "header": (c.get("title") or "").strip() or None,
                              "properties": {"visualizationType": c["vis"]}} for c in dashboard["components"]]}
        try:
            did = analytics.create_dashboard(ctx.org, md, user_id=ctx.user_id)
        except OrgError as err:
            problems.append(err.message)
        else:
            return redirect(f"/lightning/o/Dashboard/{did}/view", f'Dashboard "{dashboard["name"]}" was saved.')
    return _builder(ctx, dashboard, {"page": problems}, status=400)


def _component(ctx: RequestContext, component: Mapping[str, Any], runs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """A dashboard component's card: its title, Display As, report and the chart of the report's run (``runs``:
    ``analytics.component_runs``, the API's runs)."""
    vis = component["properties"]["visualizationType"]
    report = ctx.org.get("Report", component.get("reportId") or "")
    shown: dict[str, Any] = {"title": component.get("header") or "", "vis": DISPLAY_AS.get(vis, vis),
                             "report": (report or {}).get("Name"), "reportId": (report or {}).get("Id"), "chart": None}
    if report is not None and report["Id"] in runs:
        md = analytics.describe_report(ctx.org, report["Id"])["reportMetadata"]
        shown["chart"] = _chart(md, runs[report["Id"]], vis, shown["title"] or report.get("Name"))
    return shown


def _chart(md: Mapping[str, Any], run: Mapping[str, Any], vis: str, title: str | None) -> dict[str, Any] | None:
    """A component's chart (``report_table.chart``): the run of the report ``md`` displayed as ``vis``."""
    return report_table.chart(analytics.REPORT_TYPES[md["reportType"]["type"]], md, run, chart_type=vis, title=title)


def component_chart(ctx: RequestContext) -> Response:
    """``POST /lightning/o/Dashboard/builder/chart`` (``report``, ``vis``: its Display As, ``title``): the chart a
    component of the dashboard being built shows, ``{"chart": report_table.chart}``: its report run as the
    builder's user, who runs the dashboard once saved; an unknown report or Display As gives ``{"chart": null,
    "error": message}`` (404)."""
    if not csrf_ok(ctx):
        return forbidden(ctx)
    form = ctx.request.form
    report = ctx.org.get("Report", form.get("report") or "")
    vis = form.get("vis") or ""
    if report is None or vis not in DISPLAY_AS:
        why = "The component's report does not exist." if report is None else "Choose how to display the report."
        return json_response({"chart": None, "error": why}, 404)
    md = analytics.describe_report(ctx.org, report["Id"])["reportMetadata"]
    run = analytics.run_report(ctx.org, md, user_id=ctx.user_id, include_details=False)
    return json_response({"chart": _chart(md, run, vis, (form.get("title") or "").strip() or report.get("Name"))})


def dashboard_view(ctx: RequestContext, dashboard_id: str) -> Response:
    """A saved dashboard: a card per component (its title, its report's chart drawn from the report's run, the
    report's name linking to its page)."""
    rec = ctx.org.get("Dashboard", dashboard_id)
    if rec is None:
        return not_found_page(ctx, "The dashboard does not exist.")
    described = analytics.describe_dashboard(ctx.org, rec["Id"])
    runs = analytics.component_runs(ctx.org, described)
    return render(ctx, "dashboard_view.html", title=f"{rec.get('Title')} | Dashboards", rec=rec,
                  components=[_component(ctx, c, runs) for c in described["components"]])


def register(app: OrgApp) -> None:
    """Add the Dashboards tab and the builder."""
    app.add_route(HOME, dashboards_home, ["GET"], auth="ui", endpoint="ui.dashboards")
    app.add_route("/lightning/o/Dashboard/new", dashboard_new, ["GET"], auth="ui", endpoint="ui.dashboard_new")
    app.add_route(BUILDER, dashboard_builder, ["GET", "POST"], auth="ui", endpoint="ui.dashboard_builder")
    app.add_route(f"{BUILDER}/chart", component_chart, ["POST"], auth="ui", endpoint="ui.dashboard_chart")
    app.add_route("/lightning/o/Dashboard/<dashboard_id>/view", dashboard_view, ["GET"], auth="ui",
                  endpoint="ui.dashboard")
