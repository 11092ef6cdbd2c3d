"""Object Manager > an object > Lightning Record Pages, and a Lightning App Builder for Dynamic Forms: a record
page's label, the fields of its Fields component ("Add Field") and, per field, its visibility filters ("Set
Field Visibility": a record field, an operator, a value; "Add Filter"). Each button posts the page and shows it
again with the change; "Save" writes the ``FlexiPage`` (a header, the Dynamic Forms field section, a sidebar,
as the builder saves a record page) through the Metadata store."""

from __future__ import annotations

import json
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import OM, object_page
from pytest_cua.orgs.localorg.ui.setup_common import api_name, metadata_store, saved, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page

#: visibility operator (metadata value) -> the builder's label
OPERATORS = [("EQUAL", "Equal"), ("NE", "Not Equal"), ("GT", "Greater Than"), ("GE", "Greater Than or Equal"),
             ("LT", "Less Than"), ("LE", "Less Than or Equal"), ("CONTAINS", "Contains")]


def pages_list(ctx: RequestContext, obj_name: str) -> Response:
    """An object's Lightning Record Pages and "New"."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    store = metadata_store(ctx)
    rows = []
    for name in store.names("FlexiPage"):
        body = store.read("FlexiPage", name)
        if body is not None and X.text_of(body, "sobjectType") == obj.name:
            rows.append({"url": None, "cells": [X.text_of(body, "masterLabel") or name, name]})
    return object_page(ctx, obj, details=[],
                       sections=[{"title": "Lightning Record Pages", "columns": ["Label", "API Name"], "rows": rows,
                                  "actions": [{"label": "New", "url": f"{OM}/{obj.name}/LightningPages/new"}]}])


def _field_instance(field: str, filters: list[list[str]]) -> Any:
    parts = [X.element("fieldInstanceProperties", [X.leaf("name", "uiBehavior"), X.leaf("value", "none")]),
             X.leaf("fieldItem", field), X.leaf("identifier", f"{field.replace('.', '')}Field")]
    if filters:
        parts.append(X.element("visibilityRule", [X.element("criteria", [
            X.leaf("leftValue", left), X.leaf("operator", op), X.leaf("rightValue", right)]) for left, op, right in filters]))
    return X.element("itemInstances", [X.element("fieldInstance", parts)])


def _component(name: str, *props: Any) -> Any:
    return X.element("itemInstances", [X.element("componentInstance", [*props, X.leaf("componentName", name),
                                                                     X.leaf("identifier", name.replace(":", "_"))])])


def page_builder(ctx: RequestContext, obj_name: str) -> Response:
    """The builder: "Label", "Add Field" (a field of the object), per field "Filter Field N", "Filter Operator N",
    "Filter Value N" and "Add Filter", "Remove"; "Save"."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    form = ctx.request.form
    fields = [(f"Record.{f.name}", f.label) for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())
              if f.type != "json" and f.name not in ("Id", "IsDeleted")]
    labels = dict(fields)
    errors = FormErrors()
    label = (form.get("label") or "").strip()
    try:
        state = json.loads(form.get("state") or "[]")
    except ValueError:
        state = []
    state = [s for s in state if isinstance(s, dict) and s.get("field") in labels] if isinstance(state, list) else []
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        do = form.get("do") or ""
        kind, _, arg = do.partition(":")
        if kind == "add_field":
            field = form.get("add_field") or ""
            if field not in labels:
                errors.add("Choose the field to add.", "add_field", "Add Field")
            elif all(s["field"] != field for s in state):
                state.append({"field": field, "filters": []})
        elif kind in ("add_filter", "remove") and arg.isdigit() and int(arg) < len(state):
            i = int(arg)
            if kind == "remove":
                state.pop(i)
            else:
                left, op, value = form.get(f"filter_field_{i}") or "", form.get(f"filter_op_{i}") or "", \
                    form.get(f"filter_value_{i}") or ""
                if left not in labels or op not in dict(OPERATORS):
                    errors.add("Choose the filter's field and operator.", f"filter_field_{i}", f"Filter Field {i + 1}")
                else:
                    state[i]["filters"].append(["{!" + left + "}", op, value])
        elif kind == "save":
            if not label:
                errors.add("Complete this field.", "label", "Label")
            if not state:
                errors.add("Add at least one field to the page.", "add_field", "Add Field")
            if not errors:
                full = api_name(label)
                facet = X.element("flexiPageRegions", [*(_field_instance(s["field"], s["filters"]) for s in state),
                                                       X.leaf("mode", "Replace"), X.leaf("name", "Facet-details"),
                                                       X.leaf("type", "Facet")])
                section = _component("flexipage:fieldSection", X.element(
                    "componentInstanceProperties", [X.leaf("name", "columns"), X.leaf("value", "Facet-details")]))
                body = X.element("FlexiPage", [
                    X.element("flexiPageRegions", [_component("force:highlightsPanel"), X.leaf("name", "header"),
                                                   X.leaf("type", "Region")]), facet,
                    X.element("flexiPageRegions", [section, X.leaf("name", "main"), X.leaf("type", "Region")]),
                    X.element("flexiPageRegions", [_component("runtime_sales_activities:activityPanel"),
                                                   X.leaf("name", "sidebar"), X.leaf("type", "Region")]),
                    X.leaf("masterLabel", label), X.leaf("sobjectType", obj.name),
                    X.element("template", [X.leaf("name", "flexipage:recordHomeTemplateDesktop")]),
                    X.leaf("type", "RecordPage")])
                done = saved(errors, lambda: metadata_store(ctx).write("FlexiPage", full, body),
                             f"{OM}/{obj.name}/LightningPages/view", f'Lightning page "{label}" was saved.')
                if done is not None:
                    return done
    ops = dict(OPERATORS)
    shown = [{"i": i, "label": labels[s["field"]], "filters": [f"{left} {ops.get(op, op)} {right}"
                                                               for left, op, right in s["filters"]]}
             for i, s in enumerate(state)]
    return setup_render(ctx, "setup/flexipage_builder.html", status=400 if errors else 200,
                        title="Lightning App Builder", obj=obj, label=label, state=json.dumps(state), fields=fields,
                        shown=shown, operators=OPERATORS, errors=errors)


def register(app: OrgApp) -> None:
    """Add the Lightning record page routes."""
    app.add_route(f"{OM}/<obj_name>/LightningPages/view", pages_list, ["GET"], auth="ui", endpoint="ui.flexipages")
    app.add_route(f"{OM}/<obj_name>/LightningPages/new", page_builder, ["GET", "POST"], auth="ui",
                  endpoint="ui.flexipage_new")
