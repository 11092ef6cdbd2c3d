"""The report builder (``/lightning/o/Report/builder?type=X``): Lightning's builder as the ``one-report-builder``
component (``lightning/src/modules/one/reportBuilder``), which keeps the report being built in the page (Outline:
row and column groups, columns, summaries; Filters: Show Me, the date range, field filters, filter logic, cross
filters; the chart) and posts it whole when Save or Save & Run is pressed in the Save Report dialog.

The server checks the posted report through the Analytics model (``analytics.create_report``), as the
Analytics API checks a ``reportMetadata``: what it refuses (a column the report type does not have, a filter
logic naming a filter that is not there, a unique name in use) comes back as the builder again, with the report
as posted and the message under the field it concerns (the name, the unique name, the filter logic) or at the
top of the page. The report's format follows its groups (Tabular, Summary with row groups, Matrix with row and
column groups). A saved report opens on its page, with "Report "X" was saved."
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.web import CSRF_FIELD, csrf_ok, csrf_token, forbidden, not_found_page, redirect, \
    render

URL = "/lightning/o/Report/builder"
HOME = "/lightning/o/Report/home"
#: report type -> the related objects of its cross filters (relatedEntity, label)
CROSS_OBJECTS: dict[str, list[tuple[str, str]]] = {
    "AccountList": [("Opportunity", "Opportunities"), ("Contact", "Contacts"), ("Case", "Cases"),
                    ("Activity", "Activities")],
    "ContactList": [("Case", "Cases"), ("Opportunity", "Opportunities"), ("Activity", "Activities")],
    "Opportunity": [("OpportunityCompetitor", "Competitors"), ("OpportunityLineItem", "Products"),
                    ("Activity", "Activities")],
    "LeadList": [("Activity", "Activities"), ("CampaignMember", "Campaign History"),
                 ("ObjectTerritory2Association-Territory2", "Territories")],
    "CaseList": [("CaseComment", "Case Comments"), ("Activity", "Activities")],
    "Activity": [],
    "ProductList": [("PricebookEntry", "Price Book Entries")],
    "CampaignList": [("CampaignMember", "Campaign Members")],
}
#: a column's summaries (the aggregate's prefix, the builder's label)
SUMMARIES = [("s", "Sum"), ("a", "Average"), ("mx", "Max"), ("m", "Min"), ("med", "Median")]
#: "Group Date By" of a date group: (dateGranularity, Salesforce's label)
DATE_GROUPS = [("Day", "Day"), ("Week", "Calendar Week"), ("Month", "Calendar Month"), ("Quarter", "Calendar Quarter"),
               ("Year", "Calendar Year"), ("MonthInYear", "Calendar Month in Year"),
               ("DayInMonth", "Calendar Day in Month"), ("FiscalPeriod", "Fiscal Period"), ("FiscalWeek", "Fiscal Week"),
               ("FiscalQuarter", "Fiscal Quarter"), ("FiscalYear", "Fiscal Year")]
#: "Relative Date" of a date field's filter: the value the filter holds (Salesforce's relative date literals)
RELATIVE_DATES = ["TODAY", "YESTERDAY", "TOMORROW", "LAST WEEK", "THIS WEEK", "NEXT WEEK", "LAST MONTH", "THIS MONTH",
                  "NEXT MONTH", "LAST 90 DAYS", "NEXT 90 DAYS", "LAST QUARTER", "THIS QUARTER", "NEXT QUARTER",
                  "LAST YEAR", "THIS YEAR", "NEXT YEAR"]
#: the standard date filter's Range: (standardDateFilter.durationValue, label); CUSTOM without dates is All Time
DATE_RANGES = [("CUSTOM", "All Time"), ("TODAY", "Today"), ("YESTERDAY", "Yesterday"), ("THIS_WEEK", "Current Week"),
               ("LAST_WEEK", "Previous Week"), ("THIS_MONTH", "Current Month"), ("LAST_MONTH", "Previous Month"),
               ("LAST_N_DAYS:30", "Last 30 Days"), ("LAST_N_DAYS:90", "Last 90 Days"),
               ("THIS_FISCAL_QUARTER", "Current FQ"), ("LAST_FISCAL_QUARTER", "Previous FQ"),
               ("THIS_FISCAL_YEAR", "Current FY"), ("LAST_FISCAL_YEAR", "Previous FY")]
#: "Show Me": the report's scope
SCOPES = [("organization", "All {}"), ("user", "My {}"), ("team", "My Team's {}")]
#: Display As: (the Analytics API's chartType, Lightning's name)
CHARTS = [("Horizontal Bar", "Bar"), ("Vertical Bar", "Column"), ("Stacked Horizontal Bar", "Stacked Bar"),
          ("Stacked Vertical Bar", "Stacked Column"), ("Line", "Line"), ("Donut", "Donut"), ("Funnel", "Funnel"),
          ("Scatter", "Scatter")]
LEGENDS = ("Right", "Bottom", "Top")
FOLDERS = [("private", analytics.PRIVATE_FOLDER), ("public", analytics.PUBLIC_FOLDER)]
_DATES = ("date", "datetime")
_LISTS = ("down", "across", "columns", "summaries", "filters", "cross")


def _options(pairs: Any) -> list[dict[str, str]]:
    return [{"value": value, "label": label} for value, label in pairs]


def _props(ctx: RequestContext, rt: analytics.ReportType, report: Mapping[str, Any],
           errors: Mapping[str, Any] | None = None) -> dict[str, Any]:
    fields = sorted(({"name": name, "label": label, "kind": kind} for name, (label, kind) in rt.columns.items()),
                    key=lambda f: f["label"].lower())
    return {
        "reportType": {"type": rt.type, "label": rt.label}, "fields": fields, "report": dict(report),
        "errors": dict(errors or {}), "action": URL, "csrfField": CSRF_FIELD, "csrf": csrf_token(ctx), "homeUrl": HOME,
        "choices": {
            "operators": _options(analytics.OPERATORS.items()),
            "kindOperators": analytics.FILTER_OPERATORS,
            "relativeDates": _options((d, d.title()) for d in RELATIVE_DATES),
            "dateGroups": _options(DATE_GROUPS), "dateRanges": _options(DATE_RANGES),
            "scopes": _options((value, text.format(rt.label)) for value, text in SCOPES),
            "summaries": _options(SUMMARIES), "charts": _options(CHARTS), "folders": _options(FOLDERS),
            "crossObjects": _options(CROSS_OBJECTS.get(rt.type, [])),
        },
    }


def new_report(rt: analytics.ReportType) -> dict[str, Any]:
    """A new report of the type: its first four columns, everything else empty."""
    date = next((name for name, (_, kind) in rt.columns.items() if kind in _DATES), "CREATED_DATE")
    return {"down": [], "across": [], "columns": list(rt.columns)[:4], "summaries": [], "filters": [], "cross": [],
            "down_dates": {}, "across_dates": {}, "scope": "organization",
            "dateFilter": {"column": date, "durationValue": "CUSTOM"}, "logic": "", "chart": None, "name": "",
            "developerName": "", "description": "", "folder": "private"}


def posted_report(raw: str) -> dict[str, Any]:
    """The report the builder posted (JSON); lists and maps of the wrong shape are read as empty."""
    try:
        report = json.loads(raw or "{}")
    except ValueError:
        report = {}
    report = report if isinstance(report, dict) else {}
    for key in _LISTS:
        if not isinstance(report.get(key), list):
            report[key] = []
    for key in ("down_dates", "across_dates", "dateFilter"):
        if not isinstance(report.get(key), dict):
            report[key] = {}
    return report


def _text(report: Mapping[str, Any], key: str) -> str:
    value = report.get(key)
    return value.strip() if isinstance(value, str) else ""


def metadata(ctx: RequestContext, rt: analytics.ReportType, report: Mapping[str, Any]) -> dict[str, Any]:
    """The Analytics API's ``reportMetadata`` of a posted report."""
    down, across = [str(g) for g in report["down"]], [str(g) for g in report["across"]]
    granularity = {"down": report["down_dates"], "across": report["across_dates"]}
    groups = {key: [{"name": g, "sortOrder": "Asc",
                     "dateGranularity": str(granularity[key].get(g) or "Day")
                     if (rt.column(g) or ("", ""))[1] in _DATES else "None"} for g in names]
              for key, names in (("down", down), ("across", across))}
    date_filter = report["dateFilter"]
    md: dict[str, Any] = {
        "name": _text(report, "name"), "developerName": _text(report, "developerName") or None,
        "description": _text(report, "description") or None,
        "folderId": ctx.user_id if report.get("folder") == "private" else ctx.org.org_id,
        "reportFormat": "MATRIX" if across else "SUMMARY" if down else "TABULAR", "reportType": {"type": rt.type},
        "detailColumns": report["columns"], "aggregates": [*report["summaries"], "RowCount"],
        "groupingsDown": groups["down"], "groupingsAcross": groups["across"], "scope": report.get("scope"),
        "reportFilters": [{"column": f[0], "operator": f[1], "value": f[2]} if isinstance(f, list) and len(f) == 3
                          else f for f in report["filters"]],
        "reportBooleanFilter": _text(report, "logic") or None,
        "standardDateFilter": {"column": date_filter.get("column") or "CREATED_DATE",
                               "durationValue": date_filter.get("durationValue") or "CUSTOM",
                               "startDate": None, "endDate": None},
        "crossFilters": [{"relatedEntity": x.get("entity"), "includesObject": bool(x.get("with", True)),
                          "criteria": [{"column": c[0], "operator": c[1], "value": c[2]}
                                       for c in x.get("criteria") or [] if isinstance(c, list) and len(c) == 3]}
                         for x in report["cross"] if isinstance(x, dict)],
    }
    chart = report.get("chart")
    if isinstance(chart, dict) and chart.get("type"):
        md["chart"] = {"chartType": chart.get("type"), "title": (chart.get("title") or "").strip() or None,
                       "groupings": down[:1], "summaries": ["RowCount"], "hasLegend": True,
                       "legendPosition": chart.get("legend") if chart.get("legend") in LEGENDS else "Right",
                       "showChartValues": bool(chart.get("showValues"))}
    return md


def _problems(rt: analytics.ReportType, report: Mapping[str, Any]) -> dict[str, Any]:
    """What the builder's own controls would not let through, in Salesforce's words: {page: [...], fields: {}}."""
    fields: dict[str, str] = {}
    page: list[str] = []
    if not _text(report, "name"):
        fields["name"] = "Complete this field."
    chart = report.get("chart")
    if isinstance(chart, dict) and chart.get("type"):
        if chart.get("type") not in dict(CHARTS):
            page.append(f"Choose a chart type from the list, not {chart.get('type')!r}.")
        if not report["down"]:
            page.append("A chart needs a row group: group the rows first.")
    for x in report["cross"]:
        entity = x.get("entity") if isinstance(x, dict) else None
        if entity not in dict(CROSS_OBJECTS.get(rt.type, [])):
            page.append(f"A {rt.label} report has no cross filter on {entity!r}.")
    duration = report["dateFilter"].get("durationValue") or "CUSTOM"
    if duration not in dict(DATE_RANGES):
        page.append(f"Choose a date range from the list, not {duration!r}.")
    return {"page": page, "fields": fields} if page or fields else {}


def report_builder(ctx: RequestContext) -> Response:
    """``/lightning/o/Report/builder?type=X``: the builder (see the module's docstring)."""
    form = ctx.request.form if ctx.request.method == "POST" else ctx.request.args
    rt = analytics.report_type(form.get("type"))
    if rt is None:
        return not_found_page(ctx, "Choose a report type first (New Report).")
    if ctx.request.method == "GET":
        return render(ctx, "report_builder.html", title=f"New {rt.label} Report", props=_props(ctx, rt, new_report(rt)))
    if not csrf_ok(ctx):
        return forbidden(ctx)
    report = posted_report(form.get("report") or "")
    report["run"] = form.get("do") == "save_run"
    errors = _problems(rt, report)
    if not errors:
        try:
            rid = analytics.create_report(ctx.org, metadata(ctx, rt, report), user_id=ctx.user_id)
        except OrgError as err:
            field = {"developerName": "developerName", "reportBooleanFilter": "logic"}.get(
                next(iter(err.fields or []), ""), "")
            errors = {"page": [] if field else [err.message], "fields": {field: err.message} if field else {}}
        else:
            return redirect(f"/lightning/o/Report/{rid}/view", f'Report "{_text(report, "name")}" was saved.')
    return render(ctx, "report_builder.html", status=400, title=f"New {rt.label} Report",
                  props=_props(ctx, rt, report, errors))
