"""Object Manager, the New Custom Field wizard (``.../FieldsAndRelationships/new``): data type, related object,
details, formula, field-level security and page layouts.

The wizard keeps its earlier steps' answers in hidden inputs and writes nothing before its last step, then
everything in one transaction through the Metadata store: the field (at once a field of the sObject: describe,
SOQL, REST), every profile's field permissions and the chosen page layouts.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, profile_full_name
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.ui.formulas import formula_input, formula_problem
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import OM, objects_by_label
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, profiles, \
    setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect

#: the data types of the new custom field wizard: wizard label -> metadata type (the ones this org models)
FIELD_TYPES: dict[str, str] = {
    "Lookup Relationship": "Lookup", "Formula": "Formula", "Checkbox": "Checkbox", "Currency": "Currency",
    "Date": "Date", "Date/Time": "DateTime", "Email": "Email", "Number": "Number", "Percent": "Percent",
    "Phone": "Phone", "Picklist": "Picklist", "Text": "Text", "Text Area": "TextArea", "URL": "Url"}
#: formula return types: wizard label -> metadata type
FORMULA_TYPES: dict[str, str] = {"Checkbox": "Checkbox", "Currency": "Currency", "Date": "Date",
                                 "Date/Time": "DateTime", "Number": "Number", "Percent": "Percent", "Text": "Text"}
_NUMERIC = ("Number", "Currency", "Percent")


def _steps_for(kind: str) -> list[str]:
    steps = ["type"]
    if kind == "Lookup":
        steps.append("related")
    steps.append("details")
    if kind == "Formula":
        steps.append("formula")
    return steps + ["security", "layouts"]


_STEP_TITLES = {"type": "Choose the field type", "related": "Choose the related object",
                "details": "Enter the details", "formula": "Enter formula",
                "security": "Establish field-level security", "layouts": "Add to page layouts"}


def _layouts(ctx: RequestContext, obj: ObjectSchema) -> list[str]:
    return sorted(n for (kind, n) in ctx.org.metadata if kind == "Layout" and n.split("-", 1)[0] == obj.name)


class _FieldWizard:
    """The answers of the new custom field wizard, read from the posted form (hidden inputs of earlier steps)."""

    KEYS = ("kind", "related", "label", "name", "description", "help", "length", "decimals", "required",
            "default_checked", "values", "restricted", "child_name", "delete_rule", "return_type", "formula")

    def __init__(self, ctx: RequestContext, obj: ObjectSchema) -> None:
        self.ctx, self.obj = ctx, obj
        form = ctx.request.form if ctx.request.method == "POST" else ctx.request.args
        self.vals: dict[str, str] = {k: (form.get(k) or "").strip() for k in self.KEYS}
        self.step = form.get("step") or "type"
        self.errors = FormErrors()
        # the field-level security step posts this flag with its checkboxes, so that "none visible" is an answer
        self.security_posted = form.get("security_posted") == "1"
        self.visible = set(form.getlist("visible"))
        self.readonly = set(form.getlist("readonly"))
        self.layouts = set(form.getlist("layout"))

    @property
    def kind(self) -> str:
        return FIELD_TYPES.get(self.vals["kind"], "")

    def defaults(self) -> None:
        v, obj = self.vals, self.obj
        if not v["label"] and self.kind == "Lookup" and v["related"]:
            target = self.ctx.org.schema.get(v["related"])
            v["label"] = target.label if target is not None else v["related"]
        if not v["name"] and v["label"]:
            v["name"] = api_name(v["label"], 40)
        if not v["child_name"] and self.kind == "Lookup":
            v["child_name"] = api_name(obj.label_plural)
        if not v["length"]:
            v["length"] = {"Text": "255", "Number": "18", "Currency": "16", "Percent": "16"}.get(self.kind, "")
        if not v["decimals"]:
            v["decimals"] = "2" if self.kind in ("Currency", "Percent") or self.kind == "Formula" else "0"
        if not v["delete_rule"]:
            v["delete_rule"] = "SetNull"
        if not v["default_checked"]:
            v["default_checked"] = "false"

    def check(self, step: str) -> None:
        v, err, ctx, obj = self.vals, self.errors, self.ctx, self.obj
        if step == "type" and not self.kind:
            err.add("Choose a data type.", "kind", "Data Type")
        elif step == "related" and (not v["related"] or ctx.org.schema.get(v["related"]) is None):
            err.add("Choose the related object.", "related", "Related To")
        elif step == "details":
            if not v["label"]:
                err.add("Complete this field.", "label", "Field Label")
            if not v["name"]:
                err.add("Complete this field.", "name", "Field Name")
            elif not valid_api_name(v["name"]):
                err.add(API_NAME_RULE, "name", "Field Name")
            elif obj.field(f"{v['name']}__c") is not None:
                err.add(f"A field with the name {v['name']} already exists on {obj.label}. Choose a different "
                        "name.", "name", "Field Name")
            if self.kind in ("Text", *_NUMERIC) and not v["length"].isdigit():
                err.add("Enter a whole number.", "length", "Length")
            elif self.kind == "Text" and not 1 <= int(v["length"]) <= 255:
                err.add("The length must be between 1 and 255.", "length", "Length")
            if self.kind in (*_NUMERIC, "Formula") and not v["decimals"].isdigit():
                err.add("Enter a whole number.", "decimals", "Decimal Places")
            if self.kind == "Picklist" and not _values(v["values"]):
                err.add("Enter at least one value.", "values", "Values")
            elif self.kind == "Picklist" and len(set(x.lower() for x in _values(v["values"]))) < \
                    len(_values(v["values"])):
                err.add("Duplicate values are not allowed.", "values", "Values")
            if self.kind == "Lookup" and not valid_api_name(v["child_name"] or "_"):
                err.add(API_NAME_RULE, "child_name", "Child Relationship Name")
            if self.kind == "Formula" and v["return_type"] not in FORMULA_TYPES:
                err.add("Choose the formula return type.", "return_type", "Formula Return Type")
        elif step == "formula":
            problem = formula_problem(obj, v["formula"])
            if problem:
                err.add(problem, "formula", "Formula")

    def carried(self, upto: str) -> list[tuple[str, str]]:
        """The hidden inputs of the steps before ``upto`` (and the visibility choices once made)."""
        keys = {"type": ("kind",), "related": ("related",),
                "details": ("label", "name", "description", "help", "length", "decimals", "required",
                            "default_checked", "values", "restricted", "child_name", "delete_rule", "return_type"),
                "formula": ("formula",)}
        steps = _steps_for(self.kind)
        out: list[tuple[str, str]] = []
        for step in steps[:steps.index(upto)]:
            out += [(k, self.vals[k]) for k in keys.get(step, ())]
        if upto == "layouts":
            out.append(("security_posted", "1"))
            out += [("visible", p) for p in sorted(self.visible)] + [("readonly", p) for p in sorted(self.readonly)]
        return out

    def body(self) -> ET.Element:
        """The CustomField element of the answers."""
        v, kind = self.vals, self.kind
        out = [X.leaf("label", v["label"])]
        if v["description"]:
            out.append(X.leaf("description", v["description"]))
        if v["help"]:
            out.append(X.leaf("inlineHelpText", v["help"]))
        if kind == "Formula":
            mtype = FORMULA_TYPES[v["return_type"]]
            out += [X.leaf("formula", v["formula"]), X.leaf("type", mtype)]
            if mtype in _NUMERIC:
                out += [X.leaf("precision", 18), X.leaf("scale", v["decimals"] or "0")]
            return X.element("CustomField", out)
        out.append(X.leaf("type", kind))
        if kind not in ("Checkbox",):
            out.append(X.leaf("required", v["required"] == "true"))
        if kind == "Lookup":
            out += [X.leaf("referenceTo", v["related"]), X.leaf("relationshipName", v["child_name"]),
                    X.leaf("relationshipLabel", self.obj.label_plural), X.leaf("deleteConstraint", v["delete_rule"])]
        elif kind == "Text":
            out.append(X.leaf("length", v["length"]))
        elif kind in _NUMERIC:
            out += [X.leaf("precision", v["length"]), X.leaf("scale", v["decimals"])]
        elif kind == "Checkbox":
            out.append(X.leaf("defaultValue", v["default_checked"] == "true"))
        elif kind == "Picklist":
            values = [X.element("value", [X.leaf("fullName", x), X.leaf("default", False), X.leaf("label", x)])
                      for x in _values(v["values"])]
            out.append(X.element("valueSet", [X.leaf("restricted", v["restricted"] == "true"),
                                              X.element("valueSetDefinition", [X.leaf("sorted", False), *values])]))
        return X.element("CustomField", out)


def _values(text: str) -> list[str]:
    return [x.strip() for x in text.splitlines() if x.strip()]


def field_new(ctx: RequestContext, obj_name: str) -> Response:
    """``.../FieldsAndRelationships/new``: the New Custom Field wizard (data type, related object, details,
    formula, field-level security, page layouts). Nothing is written before Save."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    w = _FieldWizard(ctx, obj)
    if ctx.request.method == "POST" and not csrf_ok(ctx):
        return forbidden(ctx)
    steps = _steps_for(w.kind) if w.kind else ["type"]
    step = w.step if w.step in steps else "type"
    show = step
    if ctx.request.method == "POST":
        go = ctx.request.form.get("go") or "next"
        w.defaults()
        if go == "previous":
            show = steps[max(0, steps.index(step) - 1)]
        elif go == "check":
            w.check(step)
            if not w.errors:
                return _field_step(ctx, w, obj, step, notes=["No syntax errors in merge fields or functions."])
        else:
            w.check(step)
            steps = _steps_for(w.kind) if w.kind else ["type"]
            if not w.errors and go in ("save", "save_new") and step == "layouts":
                saved = _save_field(ctx, w, obj)
                if saved is not None:
                    return saved
            elif not w.errors:
                show = steps[steps.index(step) + 1] if steps.index(step) + 1 < len(steps) else step
    else:
        w.defaults()
    return _field_step(ctx, w, obj, show)


def _field_step(ctx: RequestContext, w: _FieldWizard, obj: ObjectSchema, step: str,
                notes: list[str] | None = None) -> Response:
    v = w.vals
    steps = _steps_for(w.kind) if w.kind else ["type"]
    total = len(steps) if w.kind else 4
    inputs: list[dict[str, Any]] = []
    matrix = None
    if step == "type":
        inputs = [{"kind": "radio", "name": "kind", "label": "Data Type", "value": v["kind"], "required": True,
                   "options": [(k, k) for k in FIELD_TYPES]}]
    elif step == "related":
        targets = [(o.name, o.label) for o in objects_by_label(ctx) if o.api in ("data", "both") and o.name_field]
        inputs = [{"kind": "select", "name": "related", "label": "Related To", "value": v["related"],
                   "required": True, "options": [("", "--None--"), *targets]}]
    elif step == "details":
        inputs = [{"kind": "text", "name": "label", "label": "Field Label", "value": v["label"], "required": True},
                  {"kind": "text", "name": "name", "label": "Field Name", "value": v["name"], "required": True,
                   "help": "The API name is the field name followed by __c."},
                  {"kind": "textarea", "name": "description", "label": "Description", "value": v["description"]},
                  {"kind": "textarea", "name": "help", "label": "Help Text", "value": v["help"]}]
        kind = w.kind
        if kind == "Formula":
            inputs.insert(2, {"kind": "radio", "name": "return_type", "label": "Formula Return Type",
                              "value": v["return_type"], "required": True,
                              "options": [(k, k) for k in FORMULA_TYPES]})
            inputs.insert(3, {"kind": "select", "name": "decimals", "label": "Decimal Places", "value": v["decimals"],
                              "options": [(str(i), str(i)) for i in range(0, 9)]})
        if kind in ("Text", *_NUMERIC):
            inputs.append({"kind": "text", "name": "length", "label": "Length", "value": v["length"],
                           "required": True})
        if kind in _NUMERIC:
            inputs.append({"kind": "select", "name": "decimals", "label": "Decimal Places", "value": v["decimals"],
                           "options": [(str(i), str(i)) for i in range(0, 9)]})
        if kind == "Checkbox":
            inputs.append({"kind": "radio", "name": "default_checked", "label": "Default Value",
                           "value": v["default_checked"], "options": [("true", "Checked"), ("false", "Unchecked")]})
        if kind == "Picklist":
            inputs += [{"kind": "textarea", "name": "values", "label": "Values", "value": v["values"], "rows": 6,
                        "required": True, "help": "Enter values, with each value separated by a new line."},
                       {"kind": "checkbox", "name": "restricted", "value": v["restricted"] == "true",
                        "label": "Restrict picklist to the values defined in the value set"}]
        if kind == "Lookup":
            inputs += [{"kind": "text", "name": "child_name", "label": "Child Relationship Name",
                        "value": v["child_name"], "required": True},
                       {"kind": "radio", "name": "delete_rule", "label": "What to do if the lookup record is deleted?",
                        "value": v["delete_rule"], "options": [("SetNull", "Clear the value of this field."),
                                                               ("Restrict", "Don't allow deletion of the lookup "
                                                                "record that's part of a lookup relationship.")]}]
        if kind not in ("Checkbox", "Formula"):
            inputs.append({"kind": "checkbox", "name": "required", "value": v["required"] == "true",
                           "label": "Required"})
    elif step == "formula":
        inputs = [formula_input(ctx, obj, v["formula"])]
    elif step == "security":
        formula = w.kind == "Formula"
        rows: list[dict[str, Any]] = []
        for p in profiles(ctx):
            name = str(p.get("Name") or p["Id"])
            visible = p["Id"] in w.visible if w.security_posted else True
            readonly = formula or (p["Id"] in w.readonly if w.security_posted else False)
            rows.append({"label": name, "cells": [
                {"name": "visible", "value": p["Id"], "label": f"Visible for {name}", "checked": visible,
                 "col": "visible"},
                {"name": "readonly", "value": p["Id"], "label": f"Read-Only for {name}", "checked": readonly,
                 "disabled": formula, "col": "readonly"}]})
        matrix = {"caption": "Field-Level Security for Profile",
                  "columns": [{"label": "Field-Level Security for Profile", "name": "profile"},
                              {"label": "Visible", "name": "visible", "all": True,
                               "all_checked": all(r["cells"][0]["checked"] for r in rows)},
                              {"label": "Read-Only", "name": "readonly", "all": not formula,
                               "all_checked": all(r["cells"][1]["checked"] for r in rows)}],
                  "rows": rows}
    elif step == "layouts":
        layouts = _layouts(ctx, obj)
        matrix = {"caption": "Add the field to these page layouts",
                  "columns": [{"label": "Page Layout Name", "name": "name"},
                              {"label": "Add Field", "name": "layout", "all": bool(layouts), "all_checked": True}],
                  "rows": [{"label": n.split("-", 1)[1], "cells": [
                      {"name": "layout", "value": n, "label": f"Add Field to {n.split('-', 1)[1]}", "checked": True,
                       "col": "layout"}]} for n in layouts]}
        if not layouts:
            notes = [*(notes or []), f"{obj.label} has no page layouts."]
    index = steps.index(step) if step in steps else 0
    buttons = [{"label": "Save", "name": "go", "value": "save", "brand": True},
               {"label": "Save & New", "name": "go", "value": "save_new"}] if step == "layouts" else \
        [{"label": "Next", "name": "go", "value": "next", "brand": True}]
    if step == "formula":
        buttons.append({"label": "Check Syntax", "name": "go", "value": "check"})
    if index > 0:
        buttons.append({"label": "Previous", "name": "go", "value": "previous"})
    carried = [("step", step), *w.carried(step)]
    if step == "security":
        carried.append(("security_posted", "1"))
    return setup_render(ctx, "setup/wizard.html", status=400 if w.errors else 200, title="New Custom Field",
                        heading=f"New Custom Field: {obj.label}", kicker="Object Manager",
                        step=f"Step {index + 1} of {total}", step_title=_STEP_TITLES[step], errors=w.errors,
                        notes=notes, action=f"{OM}/{obj.name}/FieldsAndRelationships/new",
                        cancel=f"{OM}/{obj.name}/FieldsAndRelationships/view", carried=carried, inputs=inputs,
                        matrix=matrix, buttons=buttons)


def _save_field(ctx: RequestContext, w: _FieldWizard, obj: ObjectSchema) -> Response | None:
    """Write the field, every profile's field permissions and the chosen layouts in one transaction."""
    for step in _steps_for(w.kind)[:-2]:
        w.check(step)
    if w.errors:
        return None
    fname = f"{w.vals['name']}__c"
    full = f"{obj.name}.{fname}"
    store = metadata_store(ctx)
    formula = w.kind == "Formula"
    try:
        with ctx.org.transaction():
            store.write("CustomField", full, w.body())
            for p in profiles(ctx):
                readable = p["Id"] in w.visible
                editable = readable and not formula and p["Id"] not in w.readonly
                perm = X.element("fieldPermissions", [X.leaf("editable", editable), X.leaf("field", full),
                                                      X.leaf("readable", readable)])
                store.write("Profile", profile_full_name(str(p["Name"])), X.element("Profile", [perm]))
            for layout in sorted(w.layouts & set(_layouts(ctx, obj))):
                body = store.read("Layout", layout)
                if body is not None:
                    store.write("Layout", layout, _layout_with(body, fname, formula))
    except ComponentError as err:
        w.errors.add(err.problem)
        return None
    message = f'Field "{w.vals["label"]}" was created on {obj.label}.'
    if ctx.request.form.get("go") == "save_new":
        return redirect(f"{OM}/{obj.name}/FieldsAndRelationships/new", message)
    return redirect(f"{OM}/{obj.name}/FieldsAndRelationships/{fname}/view", message)


def _layout_with(body: ET.Element, field: str, readonly: bool) -> ET.Element:
    """A Layout with ``field`` added at the end of its first section's first column."""
    out = ET.fromstring(ET.tostring(body))
    item = X.element("layoutItems", [X.leaf("behavior", "Readonly" if readonly else "Edit"), X.leaf("field", field)])
    sections = X.children(out, "layoutSections")
    columns = X.children(sections[0], "layoutColumns") if sections else []
    if columns:
        columns[0].append(item)
    else:
        out.append(X.element("layoutSections", [X.leaf("label", "Information"),
                                                X.element("layoutColumns", [item]), X.leaf("style", "OneColumn")]))
    return out


def register(app: OrgApp) -> None:
    """Add the route of the New Custom Field wizard."""
    app.add_route(f"{OM}/<obj_name>/FieldsAndRelationships/new", field_new, ["GET", "POST"], auth="ui",
                  endpoint="ui.field_new")
