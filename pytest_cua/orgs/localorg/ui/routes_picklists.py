"""Picklist values: a picklist field's Values (on its Object Manager page) with New, Reorder and a value's Edit, and
Setup > Picklist Value Sets (global value sets: list, New, a set's page).

Where a field's values live (``picklist_values``): a standard field's in its standard value set, a custom field's
in its own ``valueSetDefinition``, a field bound to a global value set in that ``GlobalValueSet``. Every save
writes that one component through the Metadata store, so the picklist's values (describe, record forms,
restricted-value checks) and a Metadata API read change together. Renaming a value renames it in the records that
hold it, as Salesforce does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.objects import STANDARD_VALUE_SETS
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import OM
from pytest_cua.orgs.localorg.ui.picklist_values import SETS, Value, ValueSource, value_source
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, saved, setup_render, \
    valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page


@dataclass
class _Picklist:
    """The picklist field of a values page: its object, field, value source, store, current values, page URL."""

    obj: ObjectSchema
    field: FieldSchema
    source: ValueSource
    store: MetadataStore
    values: list[Value]
    page: str


def _field(ctx: RequestContext, obj_name: str, field_name: str) -> _Picklist | Response:
    """The picklist field of a values page; a 404 page when there is none."""
    obj = ctx.org.schema.get(obj_name)
    f = obj.field(field_name) if obj is not None else None
    source = value_source(ctx, obj, f) if obj is not None and f is not None else None
    if obj is None or f is None or source is None or source.type == "GlobalValueSet":
        return not_found_page(ctx, f"{obj_name}.{field_name} has no picklist values to edit here.")
    store = metadata_store(ctx)
    return _Picklist(obj, f, source, store, source.values(store), f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/view")


def _rename_in_records(ctx: RequestContext, source: ValueSource, old: str, new: str) -> None:
    users = STANDARD_VALUE_SETS.get(source.full_name, []) if source.type == "StandardValueSet" else \
        [tuple(source.full_name.split(".", 1))]
    for obj_name, fname in users:
        if obj_name in ctx.org.schema:
            for rec in ctx.org.records(obj_name):
                if rec.get(fname) == old:
                    ctx.org.update_trusted(obj_name, rec["Id"], {fname: new}, user_id=ctx.user_id)


def values_new(ctx: RequestContext, obj_name: str, field_name: str) -> Response:
    """Add picklist values: "Values" (one per line), appended after the current ones."""
    found = _field(ctx, obj_name, field_name)
    if isinstance(found, Response):
        return found
    obj, f, source, store, current, page = (found.obj, found.field, found.source, found.store, found.values,
                                            found.page)
    errors, text = FormErrors(), ""
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        text = ctx.request.form.get("values") or ""
        added = [x.strip() for x in text.splitlines() if x.strip()]
        taken = {v.name.lower() for v in current}
        dup = next((x for x in added if x.lower() in taken or [a.lower() for a in added].count(x.lower()) > 1), None)
        if not added:
            errors.add("Complete this field.", "values", "Values")
        elif dup is not None:
            errors.add(f"Duplicate value: {dup}. Each value must be unique.", "values", "Values")
        elif any(len(x) > 255 for x in added):
            errors.add("A value can have at most 255 characters.", "values", "Values")
        else:
            done = saved(errors, lambda: source.write(store, [*current, *(Value(x, x, False) for x in added)]),
                         page, f"Picklist values were added to {f.label}.")
            if done is not None:
                return done
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="Add Picklist Values",
                        heading=f"Add Picklist Values: {f.label}", kicker=obj.label, errors=errors,
                        action=f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/values/new", cancel=page,
                        inputs=[{"kind": "textarea", "name": "values", "label": "Values", "value": text, "rows": 8,
                                 "required": True,
                                 "help": "Enter values, with each value separated by a new line."}],
                        buttons=[{"label": "Save", "brand": True}])


def values_reorder(ctx: RequestContext, obj_name: str, field_name: str) -> Response:
    """Reorder Picklist Values: a listbox with Move to Top / Up / Down / Move to Bottom, "Sort values
    alphabetically, not in the order entered", "Use first value as default value"."""
    found = _field(ctx, obj_name, field_name)
    if isinstance(found, Response):
        return found
    obj, f, source, store, current, page = (found.obj, found.field, found.source, found.store, found.values,
                                            found.page)
    errors = FormErrors()
    order = [v.name for v in current]
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        order = form.getlist("order")
        if sorted(order) != sorted(v.name for v in current):
            errors.add("The values changed while you reordered them. Reload the page and try again.")
        else:
            by_name = {v.name: v for v in current}
            first_default = form.get("first_default") is not None
            alphabetical = form.get("alphabetical") is not None
            if alphabetical:
                order = sorted(order, key=str.lower)
            values = [Value(n, by_name[n].label, by_name[n].default and not first_default or
                            first_default and i == 0) for i, n in enumerate(order)]
            done = saved(errors, lambda: source.write(store, values, sort=alphabetical), page,
                         f"The values of {f.label} were reordered.")
            if done is not None:
                return done
    labels = {v.name: v.label for v in current}
    return setup_render(ctx, "setup/reorder.html", status=400 if errors else 200, title="Reorder Picklist Values",
                        heading=f"Reorder Picklist Values: {f.label}", errors=errors, cancel=page,
                        action=f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/values/reorder",
                        options=[(n, labels.get(n, n)) for n in order])


def value_edit(ctx: RequestContext, obj_name: str, field_name: str, index: int) -> Response:
    """Edit one picklist value: "Label" and "Default"."""
    found = _field(ctx, obj_name, field_name)
    if isinstance(found, Response):
        return found
    obj, f, source, store, current, page = (found.obj, found.field, found.source, found.store, found.values,
                                            found.page)
    if not 0 <= index < len(current):
        return not_found_page(ctx, f"{f.label} has no value number {index + 1}.")
    value = current[index]
    errors = FormErrors()
    vals: dict[str, Any] = {"label": value.label, "default": value.default}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals = {"label": (ctx.request.form.get("label") or "").strip(),
                "default": ctx.request.form.get("default") is not None}
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        elif any(v.name.lower() == vals["label"].lower() for i, v in enumerate(current) if i != index):
            errors.add(f"Duplicate value: {vals['label']}. Each value must be unique.", "label", "Label")
        if not errors:
            new_name = vals["label"] if vals["label"] != value.label else value.name
            values = [Value(new_name, vals["label"], vals["default"]) if i == index else
                      Value(v.name, v.label, v.default and not vals["default"]) for i, v in enumerate(current)]
            def write() -> None:
                with ctx.org.transaction():
                    source.write(store, values)
                    if new_name != value.name:
                        _rename_in_records(ctx, source, value.name, new_name)
            done = saved(errors, write, page, f'Picklist value "{vals["label"]}" was saved.')
            if done is not None:
                return done
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="Edit Picklist Value",
                        heading=f"{f.label} Picklist Edit: {value.label}", kicker=obj.label, errors=errors,
                        action=f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/values/{index}/edit", cancel=page,
                        inputs=[{"kind": "text", "name": "label", "label": "Label", "value": vals["label"],
                                 "required": True},
                                {"kind": "checkbox", "name": "default", "label": "Default", "value": vals["default"]}],
                        buttons=[{"label": "Save", "brand": True}])


# ---------------------------------------------------------------------------------------------------- global sets

def sets_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/Picklists/home``: Picklist Value Sets (global value sets) and New."""
    store = metadata_store(ctx)
    rows = []
    for name in store.names("GlobalValueSet"):
        body = store.read("GlobalValueSet", name)
        rows.append({"url": f"{SETS}/{name}/view",
                     "cells": [X.text_of(body, "masterLabel") or name if body is not None else name, name,
                               X.text_of(body, "description") or "" if body is not None else ""]})
    return setup_render(ctx, "setup/table.html", title="Picklist Value Sets", heading="Picklist Value Sets",
                        caption="Global Value Sets", actions=[{"label": "New", "url": f"{SETS}/new"}],
                        columns=["Label", "API Name", "Description"], rows=rows)


def set_new(ctx: RequestContext) -> Response:
    """New global value set: "Label", "API Name" (blank = from the label), "Description", "Values" (one per
    line), "Sort values alphabetically, not in the order entered", "Use first value as default value"."""
    errors = FormErrors()
    vals: dict[str, Any] = {"label": "", "name": "", "description": "", "values": "", "alphabetical": False,
                            "first_default": False}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {k: (form.get(k) or "").strip() for k in ("label", "name", "description", "values")}
        vals.update(alphabetical=form.get("alphabetical") is not None,
                    first_default=form.get("first_default") is not None)
        vals["name"] = vals["name"] or api_name(vals["label"])
        values = [x.strip() for x in vals["values"].splitlines() if x.strip()]
        store = metadata_store(ctx)
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "API Name")
        elif vals["name"] and any(n.lower() == vals["name"].lower() for n in store.names("GlobalValueSet")):
            errors.add(f"A global value set named {vals['name']} already exists.", "name", "API Name")
        if not values:
            errors.add("Complete this field.", "values", "Values")
        elif len({v.lower() for v in values}) < len(values):
            errors.add("Duplicate values are not allowed.", "values", "Values")
        if not errors:
            if vals["alphabetical"]:
                values = sorted(values, key=str.lower)
            body = [X.leaf("masterLabel", vals["label"]), X.leaf("sorted", vals["alphabetical"]),
                    *(X.element("customValue", [X.leaf("fullName", v), X.leaf("default", vals["first_default"] and
                                                                             i == 0), X.leaf("label", v)])
                      for i, v in enumerate(values))]
            if vals["description"]:
                body.append(X.leaf("description", vals["description"]))
            done = saved(errors, lambda: store.write("GlobalValueSet", vals["name"],
                                                     X.sorted_children(X.element("GlobalValueSet", body))),
                         f"{SETS}/{vals['name']}/view", f'Global value set "{vals["label"]}" was created.')
            if done is not None:
                return done
    inputs = [{"kind": "text", "name": "label", "label": "Label", "value": vals["label"], "required": True},
              {"kind": "text", "name": "name", "label": "API Name", "value": vals["name"],
               "help": "Blank: made from the label."},
              {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
              {"kind": "textarea", "name": "values", "label": "Values", "value": vals["values"], "rows": 8,
               "required": True, "help": "Enter values, with each value separated by a new line."},
              {"kind": "checkbox", "name": "alphabetical", "value": vals["alphabetical"],
               "label": "Sort values alphabetically, not in the order entered"},
              {"kind": "checkbox", "name": "first_default", "value": vals["first_default"],
               "label": "Use first value as default value"}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Global Value Set",
                        heading="New Global Value Set", kicker="Picklist Value Sets", errors=errors,
                        action=f"{SETS}/new", cancel=f"{SETS}/home", inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def set_view(ctx: RequestContext, name: str) -> Response:
    """A global value set: label, API name, description and its values in order."""
    source = ValueSource("GlobalValueSet", name)
    store = metadata_store(ctx)
    body = store.read("GlobalValueSet", name)
    if body is None:
        return not_found_page(ctx, f"There is no global value set {name}.")
    rows = [{"url": None, "cells": [v.label, v.name, "Yes" if v.default else ""]} for v in source.values(store)]
    return setup_render(ctx, "setup/detail.html", title=f"{name} | Picklist Value Sets", kicker="Global Value Set",
                        heading=X.text_of(body, "masterLabel") or name, actions=[],
                        details=[("Label", X.text_of(body, "masterLabel") or ""), ("API Name", name),
                                 ("Description", X.text_of(body, "description") or ""),
                                 ("Sorted alphabetically", "Yes" if X.flag(body, "sorted") else "No")],
                        sections=[{"title": "Values", "columns": ["Value", "API Name", "Default"], "rows": rows}])


def register(app: OrgApp) -> None:
    """Add the picklist routes."""
    add = app.add_route
    base = f"{OM}/<obj_name>/FieldsAndRelationships/<field_name>/values"
    add(f"{base}/new", values_new, ["GET", "POST"], auth="ui", endpoint="ui.values_new")
    add(f"{base}/reorder", values_reorder, ["GET", "POST"], auth="ui", endpoint="ui.values_reorder")
    add(f"{base}/<int:index>/edit", value_edit, ["GET", "POST"], auth="ui", endpoint="ui.value_edit")
    add(f"{SETS}/home", sets_home, ["GET"], auth="ui", endpoint="ui.value_sets")
    add(f"{SETS}/new", set_new, ["GET", "POST"], auth="ui", endpoint="ui.value_set_new")
    add(f"{SETS}/<name>/view", set_view, ["GET"], auth="ui", endpoint="ui.value_set")
