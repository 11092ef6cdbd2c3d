"""Object Manager, an object's fields: Fields & Relationships, a field's page and its edit page, and the New Custom
Field wizard (data type, related object, details, formula, field-level security, page layouts).

Saves go through the Metadata store: a field made here is at once a field of the sObject (describe, SOQL, REST),
and a retrieve returns its help text, formula and every profile's field permissions. The wizard keeps its earlier
steps' answers in hidden inputs and writes nothing before its last step, then everything in one transaction.
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, profile_full_name
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.routes_picklists import values_section
from pytest_cua.orgs.localorg.ui.routes_objects import OM, metadata_store, object_page, objects_by_label, \
    read_component, type_label, with_leaves
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, formula_syntax_problem, profiles, \
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
FORMULA_OPERATORS = [("+", "+ Add"), ("-", "- Subtract"), ("*", "* Multiply"), ("/", "/ Divide"),
                     ("=", "= Equal"), ("<>", "<> Not Equal"), ("<", "< Less Than"), (">", "> Greater Than"),
                     ("&&", "&& And"), ("||", "|| Or"), ("&", "& Concatenate"), ("(", "( Open Parenthesis"),
                     (")", ") Close Parenthesis")]
# Salesforce's formula functions as the Functions list inserts them (name, then its arguments to replace)
FORMULA_FUNCTIONS = [(text, text.split("(", 1)[0]) for text in (
    "ABS(number)", "ADDMONTHS(date, num)", "AND(logical1, logical2, ...)", "BLANKVALUE(expression, substitute_expression)",
    "CASE(expression, value1, result1, value2, result2, ..., else_result)", "CONTAINS(text, compare_text)",
    "DATE(year, month, day)", "DATEVALUE(expression)", "DAY(date)", "FIND(search_text, text)",
    "IF(logical_test, value_if_true, value_if_false)", "ISBLANK(expression)", "ISPICKVAL(picklist_field, text_literal)",
    "LEFT(text, num_chars)", "LEN(text)", "LOWER(text)", "MONTH(date)", "NOT(logical)", "NOW()",
    "OR(logical1, logical2, ...)", "REGEX(text, regex_text)", "RIGHT(text, num_chars)", "ROUND(number, num_digits)",
    "TEXT(value)", "TODAY()", "TRIM(text)", "UPPER(text)", "VALUE(text)", "YEAR(date)")]
_FORMULA_WORDS = {"TRUE", "FALSE", "NULL", "AND", "OR", "NOT"}


def object_fields(ctx: RequestContext, obj_name: str) -> Response:
    """An object's fields: label (to the field's page), API name, data type; New starts the field wizard."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    formulas = _formula_fields(ctx, obj)
    rows = [{"url": f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/view",
             "cells": [f.label, f.name, type_label(f, f.name in formulas)]}
            for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())]
    return object_page(ctx, obj, heading=f"{obj.label}: Fields & Relationships", details=[],
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
        inputs.append(_formula_input(ctx, obj, vals["formula"]))
    elif X.text_of(body, "required") is not None:
        inputs.append({"kind": "checkbox", "name": "required", "label": "Required", "value": vals["required"]})
    base = f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}"
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title=f"Edit {f.label}",
                        heading=f"{obj.label} Custom Field Edit: {f.label}", kicker="Object Manager", errors=errors,
                        action=f"{base}/edit", cancel=f"{base}/view", inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def formula_helpers(ctx: RequestContext, obj: ObjectSchema) -> list[dict[str, Any]]:
    """The formula editor's helper selects: "Insert Field" (fields and ``Relationship.Field`` of lookups),
    "Insert Operator" and "Functions" (each inserts its text at the cursor of the formula)."""
    fields = [(f.name, f"{f.label} ({f.name})") for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())]
    for f in obj.fields.values():
        target = ctx.org.schema.get(f.reference_to[0]) if f.type == "reference" and f.reference_to else None
        if target is not None and f.relationship_name:
            rel = f.relationship_name
            fields += [(f"{rel}.{g.name}", f"{f.label} > {g.label}") for g in
                       sorted(target.fields.values(), key=lambda g: g.label.lower())]
    return [{"label": "Insert Field", "options": fields},
            {"label": "Insert Operator", "options": FORMULA_OPERATORS},
            {"label": "Functions", "options": FORMULA_FUNCTIONS}]


def _formula_input(ctx: RequestContext, obj: ObjectSchema, value: str) -> dict[str, Any]:
    return {"kind": "textarea", "name": "formula", "label": "Formula", "value": value, "rows": 6, "required": True,
            "insert": formula_helpers(ctx, obj),
            "help": "Build the formula from fields, operators and functions, for example CloseDate - TODAY()."}


def formula_problem(obj: ObjectSchema, text: str) -> str | None:
    """What Salesforce would refuse in a formula on ``obj``: nothing written, unbalanced parentheses or quotes,
    or a field (or the first step of a cross-object reference) the object does not have."""
    if not text.strip():
        return "Complete this field."
    problem = formula_syntax_problem(text)
    if problem:
        return f"Error: Syntax error. {problem}"
    bare = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)
    for m in re.finditer(r"(?<![\w.$])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\s*\()?", bare):
        ref, call = m.group(1), m.group(2)
        if call or ref.upper() in _FORMULA_WORDS or ref.startswith("$"):
            continue
        first = ref.split(".", 1)[0]
        if "." in ref:
            ok = any(f.relationship_name and f.relationship_name.lower() == first.lower()
                     for f in obj.fields.values() if f.type == "reference") or \
                first.lower() in ("owner", "createdby", "lastmodifiedby")
        else:
            ok = obj.field(first) is not None
        if not ok:
            return f"Error: Field {first} does not exist. Check spelling."
    return None


# ---------------------------------------------------------------------------------------------------- new field

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
        inputs = [_formula_input(ctx, obj, v["formula"])]
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
    """Add the routes of an object's fields."""
    add = app.add_route
    base = f"{OM}/<obj_name>/FieldsAndRelationships"
    add(f"{base}/view", object_fields, ["GET"], auth="ui", endpoint="ui.object_fields")
    add(f"{base}/new", field_new, ["GET", "POST"], auth="ui", endpoint="ui.field_new")
    add(f"{base}/<field_name>/view", field_view, ["GET"], auth="ui", endpoint="ui.field")
    add(f"{base}/<field_name>/edit", field_edit, ["GET", "POST"], auth="ui", endpoint="ui.field_edit")
