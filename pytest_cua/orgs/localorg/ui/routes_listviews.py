"""List view controls: "Select Fields to Display" of a list view (the fields it shows, in the order chosen), and
the list view charts of an object ("Charts": the object's charts, "New Chart": name, chart type, aggregate type,
aggregate field, grouping field). Charts are ``ListViewChart`` records, offered on every list view of their
object (``ListViewChartInstance``), as in Salesforce."""

from __future__ import annotations

import json
import re
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.ui import listing
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, plural, redirect, render, url

CHART_TYPES = [("vbar", "Vertical Bar Chart"), ("hbar", "Horizontal Bar Chart"), ("pie", "Donut Chart")]
AGGREGATE_TYPES = [("Count", "Count"), ("Sum", "Sum"), ("Avg", "Average"), ("Max", "Max"), ("Min", "Min")]


def _view(ctx: RequestContext, obj_name: str, dev_name: str) -> tuple[Any, dict[str, Any]] | None:
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return None
    found = next((v for v in ctx.org.records("ListView") if (v.get("SobjectType") or "").lower() == obj.name.lower()
                  and str(v.get("DeveloperName")).lower() == dev_name.lower()), None)
    return (obj, found) if found is not None else None


def select_fields(ctx: RequestContext, obj_name: str, dev_name: str) -> Response:
    """``/lightning/o/{Object}/listview/{View}/fields``: a checkbox per field ("Visible Fields"); Save."""
    found = _view(ctx, obj_name, dev_name)
    if found is None:
        return not_found_page(ctx, f"There is no list view {dev_name} of {obj_name}.")
    obj, view = found
    fields = sorted((f for f in obj.fields.values() if f.type != "json" and f.name != "IsDeleted"),
                    key=lambda f: f.label.lower())
    chosen = [n for n in listing.parse_json_list(view.get("Columns")) if isinstance(n, str)] or \
        listing.default_columns(obj)
    errors = FormErrors()
    back = url(f"/lightning/o/{obj.name}/list", {"view": view["DeveloperName"]})
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        names = {f.name for f in fields}
        picked = [n for n in ctx.request.form.getlist("fields") if n in names]
        chosen = [n for n in chosen if n in picked] + [n for n in picked if n not in chosen]
        if not chosen:
            errors.add("Choose at least one field.", "fields", "Visible Fields")
        else:
            try:
                ctx.org.update("ListView", view["Id"], {"Columns": json.dumps(chosen)}, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(back, f'The fields of "{view.get("Name")}" were saved.')
    return render(ctx, "listview_fields.html", status=400 if errors else 200, title="Select Fields to Display",
                  view=view, fields=fields, chosen=set(chosen), errors=errors, back=back,
                  action=f"/lightning/o/{obj.name}/listview/{view['DeveloperName']}/fields")


def charts(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/o/{Object}/listview/charts?view=``: the object's list view charts and "New Chart"."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None or "ListViewChart" not in ctx.org.schema:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    view = ctx.request.args.get("view") or ""
    rows = [{"label": c.get("MasterLabel"), "type": dict(CHART_TYPES).get(c.get("ChartType") or "", c.get("ChartType")),
             "aggregate": f"{dict(AGGREGATE_TYPES).get(c.get('AggregateType') or '', '')} of "
                          f"{_label(obj, c.get('AggregateField'))}", "grouping": _label(obj, c.get("GroupingField"))}
            for c in ctx.org.records("ListViewChart") if (c.get("SobjectType") or "").lower() == obj.name.lower()]
    return render(ctx, "listview_charts.html", title=f"Charts: {plural(obj)}", obj=obj, rows=rows, view=view,
                  heading=plural(obj))


def _label(obj: Any, qualified: Any) -> str:
    name = str(qualified or "").split(".", 1)[-1]
    f = obj.field(name)
    return f.label if f is not None else name


def chart_new(ctx: RequestContext, obj_name: str) -> Response:
    """New Chart: "Chart Name", "Chart Type", "Aggregate Type", "Aggregate Field", "Grouping Field"; Save."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None or "ListViewChart" not in ctx.org.schema:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    fields = sorted((f for f in obj.fields.values() if f.type != "json" and f.name not in ("IsDeleted", "Id")),
                    key=lambda f: f.label.lower())
    form = ctx.request.form
    view = ctx.request.values.get("view") or ""
    vals = {"name": "", "chart_type": "vbar", "aggregate_type": "Count", "aggregate_field": "", "grouping_field": ""}
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals = {k: (form.get(k) or "").strip() for k in vals}
        names = {f.name for f in fields}
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Chart Name")
        if vals["chart_type"] not in dict(CHART_TYPES):
            errors.add("Choose a chart type.", "chart_type", "Chart Type")
        if vals["aggregate_type"] not in dict(AGGREGATE_TYPES):
            errors.add("Choose an aggregate type.", "aggregate_type", "Aggregate Type")
        if vals["aggregate_field"] not in names:
            errors.add("Choose the field to aggregate.", "aggregate_field", "Aggregate Field")
        elif vals["aggregate_type"] != "Count" and \
                getattr(obj.field(vals["aggregate_field"]), "type", "") not in ("currency", "double", "int", "percent"):
            errors.add("Sum, Average, Max and Min need a number field.", "aggregate_field", "Aggregate Field")
        if vals["grouping_field"] not in names:
            errors.add("Choose the field to group by.", "grouping_field", "Grouping Field")
        if not errors:
            developer = re.sub(r"[^A-Za-z0-9]+", "_", vals["name"]).strip("_") or "Chart"
            try:
                ctx.org.create("ListViewChart", {
                    "MasterLabel": vals["name"], "DeveloperName": developer, "SobjectType": obj.name,
                    "ChartType": vals["chart_type"], "AggregateType": vals["aggregate_type"],
                    "AggregateField": f"{obj.name}.{vals['aggregate_field']}",
                    "GroupingField": f"{obj.name}.{vals['grouping_field']}"}, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(url(f"/lightning/o/{obj.name}/listview/charts", {"view": view}),
                                f'Chart "{vals["name"]}" was created.')
    options = [(f.name, f.label) for f in fields]
    return render(ctx, "listview_chart_new.html", status=400 if errors else 200, title="New Chart", obj=obj,
                  vals=vals, errors=errors, view=view, chart_types=CHART_TYPES, aggregate_types=AGGREGATE_TYPES,
                  fields=options, heading=plural(obj))


def register(app: OrgApp) -> None:
    """Add the list view control routes."""
    app.add_route("/lightning/o/<obj_name>/listview/<dev_name>/fields", select_fields, ["GET", "POST"], auth="ui",
                  endpoint="ui.listview_fields")
    app.add_route("/lightning/o/<obj_name>/listview/charts", charts, ["GET"], auth="ui", endpoint="ui.lv_charts")
    app.add_route("/lightning/o/<obj_name>/listview/charts/new", chart_new, ["GET", "POST"], auth="ui",
                  endpoint="ui.lv_chart_new")
