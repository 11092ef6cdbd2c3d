"""The Reports tab and the report builder: the report list, "New Report" (choose a report type), and the builder,
a page whose controls add and remove row and column groupings, columns, summaries, filters with their filter
logic, cross filters with their criteria and a chart, then save the report under a name.

The builder keeps the report being built in hidden inputs; each "Add ..." or "Remove ..." button posts the page
and shows it again with the change, and nothing is saved before "Save". Save goes through the Analytics model
(``analytics.create_report``): the report's format follows its groupings (Tabular, Summary with row groups,
Matrix with row and column groups), and what the Analytics API would refuse (a filter logic naming a filter that
is not there, a chart without a grouping, ...) is shown on the page with everything kept.

Salesforce's builder controls: "Show Me" (the scope), "Relative Date" (a date filter's relative value, ``LAST
WEEK``), "Add Filter Logic" (shows the logic box), "Group Date By" of a date grouping, the chart properties "Show
Values" and "Show Legend", "Refresh" (the builder again, everything kept) and "Save & Run" (saves and opens the
report's page, as "Save" does: the org does not run reports).

Cross filter criteria name the related object's field by its API name (a textbox): the related objects of a
report type are Salesforce's (``CROSS_OBJECTS``) and most of them are not objects of the embedded org's schema.
"""

from __future__ import annotations

import json
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui.analytics_home import REPORTS, home_props, view_label, view_of
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect, render

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
#: summary prefix -> the builder's label
SUMMARIES = [("s", "Sum"), ("a", "Average"), ("mx", "Max"), ("m", "Min"), ("med", "Median"), ("u", "Unique")]
_SUMMABLE = ("currency", "double", "int", "percent", "boolean")
#: "Group Date By" of a date grouping: (dateGranularity, Salesforce's label)
DATE_GROUPS = [("Day", "Day"), ("Week", "Calendar Week"), ("Month", "Calendar Month"), ("Quarter", "Calendar Quarter"),
               ("Year", "Calendar Year"), ("MonthInYear", "Calendar Month in Year"),
               ("DayInMonth", "Calendar Day in Month"), ("FiscalPeriod", "Fiscal Period"), ("FiscalWeek", "Fiscal Week"),
               ("FiscalQuarter", "Fiscal Quarter"), ("FiscalYear", "Fiscal Year")]
_DATES = ("date", "datetime")
#: "Relative Date" of a date filter: the value a report filter holds (Salesforce's relative date literals)
RELATIVE_DATES = ["TODAY", "YESTERDAY", "TOMORROW", "LAST WEEK", "THIS WEEK", "NEXT WEEK", "LAST MONTH", "THIS MONTH",
                  "NEXT MONTH", "LAST 90 DAYS", "NEXT 90 DAYS", "LAST QUARTER", "THIS QUARTER", "NEXT QUARTER",
                  "LAST YEAR", "THIS YEAR", "NEXT YEAR"]
#: "Show Me": the report's scope
SCOPES = [("organization", "All {}"), ("user", "My {}"), ("team", "My Team's {}")]
CHARTS = ["Vertical Bar", "Horizontal Bar", "Stacked Vertical Bar", "Stacked Horizontal Bar", "Line", "Donut", "Pie",
          "Funnel", "Scatter"]


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
            return redirect(f"/lightning/o/Report/builder?type={chosen.type}")
        error = "Choose a report type."
    return render(ctx, "report_new.html", status=400 if error else 200, title="New Report",
                  types=[{"type": t.type, "label": t.label, "category": t.category} for t in types], error=error,
                  categories=[{"label": c, "url": f"/lightning/o/Report/new?category={c}", "current": c == category}
                              for c in ["All", *categories]], category=category,
                  behind={"tag": "one-analytics-home", "props": home_props(ctx, REPORTS, "recent")})


def _state(form: Any) -> dict[str, Any]:
    raw = form.get("state") or "{}"
    try:
        state = json.loads(raw)
    except ValueError:
        state = {}
    state = state if isinstance(state, dict) else {}
    for key in ("down", "across", "columns", "summaries", "filters", "cross"):
        if not isinstance(state.get(key), list):
            state[key] = []
    for key in ("down_dates", "across_dates"):
        if not isinstance(state.get(key), dict):
            state[key] = {}
    return state


def _date_groups(form: Any, rt: analytics.ReportType, state: dict[str, Any]) -> None:
    """Read "Group Date By" of each date grouping shown (a select per date grouping, kept at every post)."""
    for key in ("down", "across"):
        for i, g in enumerate(state[key]):
            chosen = form.get(f"{key}_date_{i}")
            if chosen in dict(DATE_GROUPS) and (rt.column(g) or ("", ""))[1] in _DATES:
                state[f"{key}_dates"][g] = chosen


def report_builder(ctx: RequestContext) -> Response:
    """``/lightning/o/Report/builder?type=X``: the report builder (see the module's docstring)."""
    form = ctx.request.form if ctx.request.method == "POST" else ctx.request.args
    rt = analytics.report_type(form.get("type"))
    if rt is None:
        return not_found_page(ctx, "Choose a report type first (New Report).")
    if ctx.request.method == "POST" and not csrf_ok(ctx):
        return forbidden(ctx)
    state: dict[str, Any] = _state(form) if ctx.request.method == "POST" else {
        "down": [], "across": [], "summaries": [], "filters": [], "cross": [], "down_dates": {},
        "across_dates": {}, "columns": list(rt.columns)[:4]}
    errors = FormErrors()
    vals = {k: (form.get(k) or "").strip() for k in ("name", "logic", "chart_type", "chart_title", "description",
                                                     "scope")}
    if vals["scope"] not in dict(SCOPES):
        vals["scope"] = "organization"
    # chart properties: the checkboxes are posted checked only; a GET (a new builder) shows the legend
    vals["show_values"] = "on" if form.get("show_values") else ""
    vals["show_legend"] = "on" if form.get("show_legend") or ctx.request.method != "POST" else ""
    action = form.get("do") or ""
    columns = rt.columns
    # the filter logic box shows once "Add Filter Logic" is pressed (or while it holds a logic)
    vals["logic_shown"] = "on" if vals["logic"] or form.get("logic_shown") else ""
    if ctx.request.method == "POST":
        _date_groups(form, rt, state)
        kind, _, arg = action.partition(":")
        pick = lambda key: form.get(key) or ""  # noqa: E731 - a form value
        if kind in ("add_down", "add_across", "add_column"):
            key = {"add_down": "down", "add_across": "across", "add_column": "columns"}[kind]
            field = pick({"add_down": "down_field", "add_across": "across_field", "add_column": "column_field"}[kind])
            if field not in columns:
                errors.add("Choose a field from the list.", key, "Field")
            elif field not in state[key]:
                state[key].append(field)
        elif kind == "add_summary":
            field, how = pick("summary_field"), pick("summary_kind")
            if field not in columns or how not in dict(SUMMARIES) or columns[field][1] not in _SUMMABLE:
                errors.add("Choose a number field and a summary.", "summary_field", "Summarize")
            elif f"{how}!{field}" not in state["summaries"]:
                state["summaries"].append(f"{how}!{field}")
        elif kind == "add_filter":
            field, op, value = pick("filter_field"), pick("filter_operator"), form.get("filter_value") or ""
            relative = pick("filter_relative")
            if field not in columns:
                errors.add("Choose the field to filter.", "filter_field", "Filter Field")
            elif op not in analytics.OPERATORS:
                errors.add("Choose an operator.", "filter_operator", "Operator")
            elif relative and relative not in RELATIVE_DATES:
                errors.add("Choose a relative date from the list.", "filter_relative", "Relative Date")
            elif relative and columns[field][1] not in _DATES:
                errors.add("A relative date filters a date field only.", "filter_relative", "Relative Date")
            elif relative and value.strip():
                errors.add("Enter a value or choose a relative date, not both.", "filter_value", "Filter Value")
            else:
                state["filters"].append([field, op, relative or value])
        elif kind == "add_logic":
            vals["logic_shown"] = "on"
        elif kind == "remove_logic":
            vals["logic"], vals["logic_shown"] = "", ""
        elif kind == "add_cross":
            entity = pick("cross_object")
            if entity not in dict(CROSS_OBJECTS.get(rt.type, [])):
                errors.add("Choose the related object.", "cross_object", "Related Object")
            else:
                state["cross"].append({"entity": entity, "with": pick("cross_with") != "without", "criteria": []})
        elif kind == "add_criterion" and arg.isdigit() and int(arg) < len(state["cross"]):
            i = int(arg)
            field, op = (form.get(f"criterion_field_{i}") or "").strip(), pick(f"criterion_operator_{i}")
            if not field or op not in analytics.OPERATORS:
                errors.add("Enter the field and choose an operator.", f"criterion_field_{i}", "Criterion")
            else:
                state["cross"][i]["criteria"].append([field, op, form.get(f"criterion_value_{i}") or ""])
        elif kind.startswith("remove_") and arg.isdigit():
            key = kind[len("remove_"):]
            if key in state and int(arg) < len(state[key]):
                gone = state[key].pop(int(arg))
                if key in ("down", "across") and gone not in state[key]:
                    state[f"{key}_dates"].pop(gone, None)
        elif kind in ("save", "save_run"):
            saved = _save(ctx, rt, state, vals, errors)
            if saved is not None:
                return saved
    return _render(ctx, rt, state, vals, errors)


def _metadata(rt: analytics.ReportType, state: dict[str, Any], vals: dict[str, str]) -> dict[str, Any]:
    fmt = "MATRIX" if state["across"] else "SUMMARY" if state["down"] else "TABULAR"
    md: dict[str, Any] = {
        "name": vals["name"], "reportFormat": fmt, "reportType": {"type": rt.type},
        "detailColumns": state["columns"], "aggregates": [*state["summaries"], "RowCount"],
        "groupingsDown": [{"name": g, "dateGranularity": state["down_dates"].get(g) or "None"} for g in state["down"]],
        "groupingsAcross": [{"name": g, "dateGranularity": state["across_dates"].get(g) or "None"}
                            for g in state["across"]], "scope": vals["scope"],
        "reportFilters": [{"column": c, "operator": o, "value": v} for c, o, v in state["filters"]],
        "reportBooleanFilter": vals["logic"] or None, "description": vals["description"] or None,
        "crossFilters": [{"relatedEntity": x["entity"], "includesObject": x["with"],
                          "criteria": [{"column": c, "operator": o, "value": v} for c, o, v in x["criteria"]]}
                         for x in state["cross"]]}
    if vals["chart_type"]:
        md["chart"] = {"chartType": vals["chart_type"], "title": vals["chart_title"] or None,
                       "groupings": state["down"][:1], "summaries": ["RowCount"],
                       "hasLegend": bool(vals["show_legend"]), "showChartValues": bool(vals["show_values"])}
    return md


def _save(ctx: RequestContext, rt: analytics.ReportType, state: dict[str, Any], vals: dict[str, str],
          errors: FormErrors) -> Response | None:
    if not vals["name"]:
        errors.add("Complete this field.", "name", "Report Name")
    if vals["chart_type"] and not state["down"]:
        errors.add("A chart needs a row grouping: group the rows first.", "chart_type", "Chart Type")
    if vals["chart_type"] and vals["chart_type"] not in CHARTS:
        errors.add("Choose a chart type from the list.", "chart_type", "Chart Type")
    if errors:
        return None
    try:
        rid = analytics.create_report(ctx.org, _metadata(rt, state, vals), user_id=ctx.user_id)
    except OrgError as err:
        errors.add(err.message)
        return None
    return redirect(f"/lightning/o/Report/{rid}/view", f'Report "{vals["name"]}" was saved.')


def _date_group(rt: analytics.ReportType, state: dict[str, Any], key: str, column: str) -> str | None:
    """The "Group Date By" of a date grouping (Day until another is chosen), None for other groupings."""
    if (rt.column(column) or ("", ""))[1] not in _DATES:
        return None
    return str(state[f"{key}_dates"].get(column) or "Day")


def _label(rt: analytics.ReportType, column: str) -> str:
    found = rt.column(column)
    return found[0] if found else column


def _render(ctx: RequestContext, rt: analytics.ReportType, state: dict[str, Any], vals: dict[str, str],
            errors: FormErrors) -> Response:
    columns = sorted(rt.columns.items(), key=lambda c: c[1][0].lower())
    summary_label = dict(SUMMARIES)
    return render(ctx, "report_builder.html", status=400 if errors else 200, title=f"New {rt.label} Report",
                  rt=rt, state=json.dumps(state), errors=errors, vals=vals,
                  columns=[(name, label) for name, (label, _) in columns],
                  summable=[(name, label) for name, (label, kind) in columns if kind in _SUMMABLE],
                  down=[(i, _label(rt, g), _date_group(rt, state, "down", g)) for i, g in enumerate(state["down"])],
                  across=[(i, _label(rt, g), _date_group(rt, state, "across", g))
                          for i, g in enumerate(state["across"])],
                  date_groups=DATE_GROUPS, relative_dates=[(d, d.title()) for d in RELATIVE_DATES],
                  scopes=[(value, text.format(rt.label)) for value, text in SCOPES],
                  detail=[(i, _label(rt, c)) for i, c in enumerate(state["columns"])],
                  summaries=[(i, f"{summary_label.get(s.split('!')[0], s)} of {_label(rt, s.split('!', 1)[1])}")
                             for i, s in enumerate(state["summaries"])],
                  filters=[(i, _label(rt, c), analytics.OPERATORS.get(o, o), v)
                           for i, (c, o, v) in enumerate(state["filters"])],
                  cross=[(i, dict(CROSS_OBJECTS.get(rt.type, [])).get(x["entity"], x["entity"]), x["with"],
                          [(j, c, analytics.OPERATORS.get(o, o), v) for j, (c, o, v) in enumerate(x["criteria"])])
                         for i, x in enumerate(state["cross"])],
                  cross_objects=CROSS_OBJECTS.get(rt.type, []), operators=list(analytics.OPERATORS.items()),
                  summary_kinds=SUMMARIES, charts=CHARTS)


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
    app.add_route("/lightning/o/Report/builder", report_builder, ["GET", "POST"], auth="ui",
                  endpoint="ui.report_builder")
    app.add_route("/lightning/o/Report/<report_id>/view", report_view, ["GET"], auth="ui", endpoint="ui.report")
