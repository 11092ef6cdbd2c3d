"""Object Manager, an object's fields: Fields & Relationships, a field's page and its edit page (the New Custom
Field wizard is ``routes_field_wizard``, a picklist field's values ``routes_picklists``).

Saves go through the Metadata store: a retrieve returns the field's label, help text, description and formula.
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.ui.formulas import formula_input, formula_problem
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import OM, object_page, read_component, type_label, with_leaves
from pytest_cua.orgs.localorg.ui.picklist_values import values_section
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect


def object_fields(ctx: RequestContext, obj_name: str) -> Response:
    """An object's fields: label (to the field's page), API name, data type; New starts the field wizard."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    formulas = _formula_fields(ctx, obj)
    rows = [{"url": f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/view",
             "cells": [f.label, f.name, type_label(f, f.name in formulas)]}
            for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())]
    return object_page(ctx, obj, details=[],
                       sections=[{"title": "Fields & Relationships", "columns": ["Field Label", "Field Name",
                                                                                 "Data Type"], "rows": rows,
                                  "actions": [{"label": "New", "url": f"{OM}/{obj.name}/FieldsAndRelationships/new"}]}])


def _formula_fields(ctx: RequestContext, obj: ObjectSchema) -> set[str]:
    """The names of ``obj``'s fields that are formulas (their overlay document holds the formula)."""
    out = set()
    for (kind, full), doc in ctx.org.metadata.items():
        if kind == "CustomField" and full.startswith(f"{obj.name}.") and \
                X.text_of(X.from_canonical(doc.body), "formula") is not None:
            out.add(full.split(".", 1)[1])
    return out


def field_view(ctx: RequestContext, obj_name: str, field_name: str) -> Response:
    """A field's page: label, name, API name, type, help text, description (and formula, related object)."""
    obj = ctx.org.schema.get(obj_name)
    f = obj.field(field_name) if obj is not None else None
    if obj is None or f is None:
        return not_found_page(ctx, f"There is no field {field_name} on {obj_name}.")
    body = read_component(ctx, "CustomField", f"{obj.name}.{f.name}") if f.name.endswith("__c") else None
    text = (lambda tag: X.text_of(body, tag) or "") if body is not None else (lambda tag: "")
    details = [("Field Label", f.label), ("Field Name", f.name.removesuffix("__c")), ("API Name", f.name),
               ("Data Type", type_label(f, bool(text("formula")))), ("Help Text", text("inlineHelpText")),
               ("Description", text("description"))]
    if text("formula"):
        details.append(("Formula", text("formula")))
    if f.type == "reference":
        details.append(("Related To", ", ".join(f.reference_to)))
    base = f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}"
    actions = [{"label": "Edit", "url": f"{base}/edit"}] if f.name.endswith("__c") else []
    values = values_section(ctx, obj, f)
    return object_page(ctx, obj, kicker=f"{obj.label} Field", heading=f.label, actions=actions, details=details,
                       sections=[values] if values else [])


def field_edit(ctx: RequestContext, obj_name: str, field_name: str) -> Response:
    """Edit a custom field: Field Label, Description, Help Text, Required, Formula (formula fields)."""
    obj = ctx.org.schema.get(obj_name)
    f = obj.field(field_name) if obj is not None else None
    if obj is None or f is None or not f.name.endswith("__c"):
        return not_found_page(ctx, f"There is no custom field {field_name} on {obj_name}.")
    full = f"{obj.name}.{f.name}"
    body = read_component(ctx, "CustomField", full)
    assert body is not None
    formula = X.text_of(body, "formula")
    errors = FormErrors()
    vals: dict[str, Any] = {"label": f.label, "description": X.text_of(body, "description") or "",
                            "help": X.text_of(body, "inlineHelpText") or "", "required": f.required,
                            "formula": formula or ""}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals.update({k: (form.get(k) or "").strip() for k in ("label", "description", "help", "formula")})
        vals["required"] = form.get("required") is not None
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Field Label")
        if formula is not None:
            problem = formula_problem(obj, vals["formula"])
            if problem:
                errors.add(problem, "formula", "Formula")
        if len(vals["help"]) > 510:
            errors.add("Help Text can't be longer than 510 characters.", "help", "Help Text")
        if not errors:
            changed = {"label": vals["label"], "description": vals["description"], "inlineHelpText": vals["help"]}
            if formula is not None:
                changed["formula"] = vals["formula"]
            elif X.text_of(body, "required") is not None:
                changed["required"] = "true" if vals["required"] else "false"
            try:
                metadata_store(ctx).write("CustomField", full, with_leaves(body, changed))
            except ComponentError as err:
                errors.add(err.problem)
            else:
                return redirect(f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/view",
                                f'Field "{vals["label"]}" was saved.')
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "label", "label": "Field Label", "value": vals["label"], "required": True},
        {"kind": "static", "name": "name", "label": "Field Name", "value": f.name.removesuffix("__c")},
        {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
        {"kind": "textarea", "name": "help", "label": "Help Text", "value": vals["help"],
         "help": "This text appears when a user hovers over the field's info icon."}]
    if formula is not None:
        inputs.append(formula_input(ctx, obj, vals["formula"]))
    elif X.text_of(body, "required") is not None:
        inputs.append({"kind": "checkbox", "name": "required", "label": "Required", "value": vals["required"]})
    base = f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}"
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title=f"Edit {f.label}",
                        heading=f"{obj.label} Custom Field Edit: {f.label}", kicker="Object Manager", errors=errors,
                        action=f"{base}/edit", cancel=f"{base}/view", inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the routes of an object's fields (the New Custom Field wizard's is ``routes_field_wizard``)."""
    add = app.add_route
    base = f"{OM}/<obj_name>/FieldsAndRelationships"
    add(f"{base}/view", object_fields, ["GET"], auth="ui", endpoint="ui.object_fields")
    add(f"{base}/<field_name>/view", field_view, ["GET"], auth="ui", endpoint="ui.field")
    add(f"{base}/<field_name>/edit", field_edit, ["GET", "POST"], auth="ui", endpoint="ui.field_edit")
