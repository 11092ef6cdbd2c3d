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

As the report changes, the builder posts it to ``/lightning/o/Report/builder/preview`` (``preview``), which runs
it (``analytics.run_report``) and answers the preview's first records.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import RequestContext, json_response
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui import report_table
from pytest_cua.orgs.localorg.ui.web import CSRF_FIELD, csrf_ok, csrf_token, forbidden, not_found_page, redirect, \
    render

URL = "/lightning/o/Report/builder"
PREVIEW_URL = f"{URL}/preview"
#: the records the builder's preview shows at most ("Previewing a limited number of records.")
PREVIEW_ROWS = 20
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
           errors: Mapping[str, Any] | None = None, report_id: str = "") -> dict[str, Any]:
    fields = sorted(({"name": name, "label": label, "kind": kind} for name, (label, kind) in rt.columns.items()),
                    key=lambda f: f["label"].lower())
    return {
        "reportType": {"type": rt.type, "label": rt.label}, "fields": fields, "report": dict(report),
        "reportId": report_id,
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


def saved_state(rec: Mapping[str, Any], md: Mapping[str, Any]) -> dict[str, Any]:
    """The builder's state of a saved report (its describe's ``reportMetadata``): what ``metadata`` makes back into
    the same definition (a grouped field is not also a column, as the builder keeps it)."""
    down, across = md["groupingsDown"], md["groupingsAcross"]
    grouped = {g["name"] for g in [*down, *across]}
    dates = md.get("standardDateFilter") or {}
    chart = md.get("chart")
    return {
        "down": [g["name"] for g in down], "across": [g["name"] for g in across],
        "down_dates": {g["name"]: g["dateGranularity"] for g in down if g["dateGranularity"] != "None"},
        "across_dates": {g["name"]: g["dateGranularity"] for g in across if g["dateGranularity"] != "None"},
        "columns": [c for c in md["detailColumns"] if c not in grouped],
        "summaries": [a for a in md["aggregates"] if a != "RowCount"],
        "filters": [[f["column"], f["operator"], f["value"]] for f in md["reportFilters"]],
        "cross": [{"entity": c["relatedEntity"], "with": c["includesObject"],
                   "criteria": [[x["column"], x["operator"], x["value"]] for x in c["criteria"]]}
                  for c in md["crossFilters"]],
        "scope": md.get("scope") or "organization", "logic": md.get("reportBooleanFilter") or "",
        "dateFilter": {"column": dates.get("column") or "CREATED_DATE",
                       "durationValue": dates.get("durationValue") or "CUSTOM"},
        "chart": {"type": chart["chartType"], "title": chart.get("title") or "", "legend": chart["legendPosition"],
                  "showValues": chart["showChartValues"]} if chart else None,
        "name": rec.get("Name") or "", "developerName": rec.get("DeveloperName") or "",
        "description": md.get("description") or "",
        "folder": "private" if rec.get("FolderName") == analytics.PRIVATE_FOLDER else "public",
    }


def report_builder(ctx: RequestContext) -> Response:
    """``/lightning/o/Report/builder?type=X`` (a new report) or ``?id=<report id>`` (a saved report's Edit): the
    builder (see the module's docstring); Save creates the report, or saves the edited one in place."""
    form = ctx.request.form if ctx.request.method == "POST" else ctx.request.args
    saved = ctx.org.get("Report", form.get("id") or "") if form.get("id") else None
    if form.get("id") and saved is None:
        return not_found_page(ctx, "The report does not exist.")
    md = analytics.describe_report(ctx.org, saved["Id"])["reportMetadata"] if saved else None
    rt = analytics.report_type(md["reportType"]["type"] if md else form.get("type"))
    if rt is None:
        return not_found_page(ctx, "Choose a report type first (New Report).")
    title = f"{saved.get('Name')} | Report Builder" if saved else f"New {rt.label} Report"
    rid = saved["Id"] if saved else ""
    if ctx.request.method == "GET":
        state = saved_state(saved, md) if saved and md else new_report(rt)
        return render(ctx, "report_builder.html", title=title, props=_props(ctx, rt, state, report_id=rid))
    if not csrf_ok(ctx):
        return forbidden(ctx)
    report = posted_report(form.get("report") or "")
    report["run"] = form.get("do") == "save_run"
    errors = _problems(rt, report)
    if not errors:
        try:
            if saved:
                analytics.save_report(ctx.org, rid, metadata(ctx, rt, report), user_id=ctx.user_id)
            else:
                rid = analytics.create_report(ctx.org, metadata(ctx, rt, report), user_id=ctx.user_id)
        except OrgError as err:
            field = {"developerName": "developerName", "reportBooleanFilter": "logic"}.get(
                next(iter(err.fields or []), ""), "")
            errors = {"page": [] if field else [err.message], "fields": {field: err.message} if field else {}}
        else:
            return redirect(f"/lightning/o/Report/{rid}/view", f'Report "{_text(report, "name")}" was saved.')
    return render(ctx, "report_builder.html", status=400, title=title,
                  props=_props(ctx, rt, report, errors, report_id=rid if saved else ""))


def _preview_rows(run: Mapping[str, Any], report: Mapping[str, Any], columns: list[str]) -> list[list[str]]:
    """The preview's rows: each record's row group labels, then its detail cells but those of a row group (as the
    preview's columns are), in the groups' order."""
    shown = [i for i, c in enumerate(columns) if c not in report["down"]]
    out: list[list[str]] = []

    def leaves(nodes: list[Mapping[str, Any]], path: list[str]) -> None:
        for node in nodes:
            if node["groupings"]:
                leaves(node["groupings"], [*path, node["label"]])
                continue
            keys = [f"{node['key']}!{a}" for a in _across_keys(run["groupingsAcross"]["groupings"])]
            for key in keys:
                for row in run["factMap"].get(key, {}).get("rows", []):
                    out.append([*path, node["label"], *(row["dataCells"][i]["label"] for i in shown)])

    if run["groupingsDown"]["groupings"]:
        leaves(run["groupingsDown"]["groupings"], [])
    else:
        out.extend([[row["dataCells"][i]["label"] for i in shown] for row in run["factMap"]["T!T"].get("rows", [])])
    return out


def _across_keys(nodes: list[Mapping[str, Any]]) -> list[str]:
    """The fact map's column part of the detail rows: the deepest column groups, or ``T`` with none."""
    if not nodes:
        return ["T"]
    keys: list[str] = []
    for node in nodes:
        keys.extend(_across_keys(node["groupings"]) if node["groupings"] else [node["key"]])
    return keys


def preview(ctx: RequestContext) -> Response:
    """``POST /lightning/o/Report/builder/preview`` (``type``, ``report``: what the builder holds): the report
    run as built, for the preview: ``{"rows": [[cell, ...]], "total": N, "limited": bool, "chart": the chart's
    groups and values (``report_table.chart``) or null}``; a report the
    Analytics model refuses (a filter logic naming a missing filter) gives ``{"rows": [], "error": message}``."""
    if not csrf_ok(ctx):
        return forbidden(ctx)
    rt = analytics.report_type(ctx.request.form.get("type"))
    if rt is None:
        return json_response({"rows": [], "total": 0, "error": "Choose a report type first (New Report)."}, 404)
    report = posted_report(ctx.request.form.get("report") or "")
    md = metadata(ctx, rt, {**report, "name": _text(report, "name") or f"New {rt.label} Report"})
    md.update(developerName=None, folderId=None)
    try:
        checked = analytics.definition(md)
    except OrgError as err:
        return json_response({"rows": [], "total": 0, "error": err.message})
    run = analytics.run_report(ctx.org, checked, user_id=ctx.user_id)
    rows = _preview_rows(run, report, checked["detailColumns"])
    total = run["factMap"]["T!T"]["aggregates"][checked["aggregates"].index("RowCount")]["value"]
    chart = report_table.chart(rt, checked, run) if checked["chart"] and checked["groupingsDown"] else None
    return json_response({"rows": rows[:PREVIEW_ROWS], "total": total, "limited": total > PREVIEW_ROWS,
                          "chart": chart})
