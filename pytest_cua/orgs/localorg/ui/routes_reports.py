"""The Reports tab: the Reports home, "New Report" (the Create Report dialog: choose a report type) and a saved
report's page; the builder is ``report_builder.py``."""

from __future__ import annotations

from typing import Any, Mapping

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.ui.analytics_home import REPORTS, home_props, view_label, view_of
from pytest_cua.orgs.localorg.ui import report_builder, report_table
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


def _filters(md: Mapping[str, Any], rt: analytics.ReportType) -> list[dict[str, str]]:
    """The run page's filters panel: Show Me, the date range, each field filter, the filter logic, the cross
    filters, as Salesforce words them."""
    def label(column: str) -> str:
        return (rt.column(column) or (column, ""))[0]

    scope = dict(report_builder.SCOPES).get(md.get("scope") or "organization", "All {}").format(rt.label)
    dates = md.get("standardDateFilter") or {}
    ranges = dict(report_builder.DATE_RANGES)
    duration = str(dates.get("durationValue") or "CUSTOM")
    span = ranges.get(duration, duration) if duration != "CUSTOM" or not (dates.get("startDate") or dates.get(
        "endDate")) else f"{dates.get('startDate') or ''} to {dates.get('endDate') or ''}".strip()
    out = [{"name": "Show Me", "value": scope},
           {"name": label(str(dates.get("column") or "CREATED_DATE")), "value": span}]
    for i, f in enumerate(md.get("reportFilters") or [], start=1):
        operator = analytics.OPERATORS.get(f["operator"], f["operator"])
        out.append({"name": f"{i}. {label(f['column'])}" if md.get("reportBooleanFilter") else label(f["column"]),
                    "value": f"{operator} {f.get('value') or ''}".strip()})
    if md.get("reportBooleanFilter"):
        out.append({"name": "Filter Logic", "value": md["reportBooleanFilter"]})
    objects = dict(report_builder.CROSS_OBJECTS.get(rt.type, []))
    for c in md.get("crossFilters") or []:
        related = objects.get(c["relatedEntity"], c["relatedEntity"])
        criteria = "; ".join(f"{x['column']} {analytics.OPERATORS.get(x['operator'], x['operator'])} {x['value']}"
                             for x in c.get("criteria") or [])
        out.append({"name": "Cross Filter", "value": f"{rt.label} {'with' if c.get('includesObject', True) else 'without'} "
                    f"{related}" + (f": {criteria}" if criteria else "")})
    return out


def report_view(ctx: RequestContext, report_id: str) -> Response:
    """A saved report's run page: the report run for the user (``analytics.run_report``): its totals, its chart,
    its table (``report_table``) and its filters."""
    rec = ctx.org.get("Report", report_id)
    if rec is None:
        return not_found_page(ctx, "The report does not exist.")
    md = analytics.describe_report(ctx.org, rec["Id"])["reportMetadata"]
    rt = analytics.REPORT_TYPES[md["reportType"]["type"]]
    run = analytics.run_report(ctx.org, md, user_id=ctx.user_id)
    return render(ctx, "report_view.html", title=f"{rec.get('Name')} | Reports", rec=rec, md=md,
                  view=report_table.table(ctx.org, md, run), filters=_filters(md, rt))


def register(app: OrgApp) -> None:
    """Add the Reports tab and the builder."""
    app.add_route(HOME, reports_home, ["GET"], auth="ui", endpoint="ui.reports")
    app.add_route("/lightning/o/Report/new", report_new, ["GET"], auth="ui", endpoint="ui.report_new")
    app.add_route(report_builder.URL, report_builder.report_builder, ["GET", "POST"], auth="ui",
                  endpoint="ui.report_builder")
    app.add_route(report_builder.PREVIEW_URL, report_builder.preview, ["POST"], auth="ui",
                  endpoint="ui.report_preview")
    app.add_route("/lightning/o/Report/<report_id>/view", report_view, ["GET"], auth="ui", endpoint="ui.report")
