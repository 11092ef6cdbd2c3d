"""The Reports tab: the Reports home, "New Report" (the Create Report dialog: choose a report type) and a saved
report's page; the builder is ``report_builder.py``."""

from __future__ import annotations

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.ui.analytics_home import REPORTS, home_props, view_label, view_of
from pytest_cua.orgs.localorg.ui import report_builder
from pytest_cua.orgs.localorg.ui.web import not_found_page, redirect, render

HOME = "/lightning/o/Report/home"


def reports_home(ctx: RequestContext) -> Response:
    """``/lightning/o/Report/home?view=recent``: Lightning's Reports home (``analytics_home``): the lists, New
    Report, and the list's reports."""
    view = view_of(REPORTS, ctx)
    return render(ctx, "analytics_home.html", title=f"{view_label(REPORTS, view)} | Reports",
                  props=home_props(ctx, REPORTS, view))


def report_new(ctx: RequestContext) -> Response:
    """``/lightning/o/Report/new``: the Create Report dialog over the Reports home: the report type categories
    (All, then each), Search Report Types..., one radio per type of the category, Cancel and Start Report."""
    category = ctx.request.args.get("category") or "All"
    every = sorted(analytics.REPORT_TYPES.values(), key=lambda t: (t.category, t.label))
    categories = sorted({t.category for t in every})
    if category not in categories:
        category = "All"
    types = [t for t in every if category in ("All", t.category)]
    error = None
    if ctx.request.args.get("start") is not None:
        chosen = analytics.REPORT_TYPES.get(ctx.request.args.get("type") or "")
        if chosen is not None:
            return redirect(f"{report_builder.URL}?type={chosen.type}")
        error = "Choose a report type."
    return render(ctx, "report_new.html", status=400 if error else 200, title="New Report",
                  types=[{"type": t.type, "label": t.label, "category": t.category} for t in types], error=error,
                  categories=[{"label": c, "url": f"/lightning/o/Report/new?category={c}", "current": c == category}
                              for c in ["All", *categories]], category=category,
                  behind={"tag": "one-analytics-home", "props": home_props(ctx, REPORTS, "recent")})


def report_view(ctx: RequestContext, report_id: str) -> Response:
    """A saved report's page: its name, type, format, columns, groupings, summaries, filters and chart."""
    rec = ctx.org.get("Report", report_id)
    if rec is None:
        return not_found_page(ctx, "The report does not exist.")
    described = analytics.describe_report(ctx.org, rec["Id"])
    md = described["reportMetadata"]
    ext = described["reportExtendedMetadata"]
    return render(ctx, "report_view.html", title=f"{rec.get('Name')} | Reports", rec=rec, md=md,
                  columns=[i.get("label") for i in (ext.get("detailColumnInfo") or {}).values()],
                  groups=[i.get("label") for i in (ext.get("groupingColumnInfo") or {}).values()],
                  summaries=[i.get("label") for k, i in (ext.get("aggregateColumnInfo") or {}).items()],
                  operators=analytics.OPERATORS)


def register(app: OrgApp) -> None:
    """Add the Reports tab and the builder."""
    app.add_route(HOME, reports_home, ["GET"], auth="ui", endpoint="ui.reports")
    app.add_route("/lightning/o/Report/new", report_new, ["GET"], auth="ui", endpoint="ui.report_new")
    app.add_route(report_builder.URL, report_builder.report_builder, ["GET", "POST"], auth="ui",
                  endpoint="ui.report_builder")
    app.add_route("/lightning/o/Report/<report_id>/view", report_view, ["GET"], auth="ui", endpoint="ui.report")
