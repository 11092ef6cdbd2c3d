"""Object Manager, an object's Validation Rules: the list, a rule's page (with a note when the local org does
not enforce its formula), the new / edit form with "Check Syntax", and delete."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import formula
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.ui.formulas import formula_helpers, formula_problem
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import object_page
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, record_form, save_record, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect


def _rules_of(ctx: RequestContext, obj_name: str) -> list[dict[str, Any]]:
    if "ValidationRule" not in ctx.org.schema:
        return []
    return sorted((r for r in ctx.org.records("ValidationRule")
                   if (r.get("EntityDefinitionId") or "").lower() == obj_name.lower()),
                  key=lambda r: str(r.get("ValidationName") or "").lower())


def validation_rules(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/setup/ObjectManager/{Object}/ValidationRules/view``."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules"
    rows = [{"url": f"{base}/{r['Id']}/view",
             "cells": [r.get("ValidationName"), _location(obj, r), r.get("ErrorMessage") or "",
                       r.get("Description") or "", "Yes" if r.get("Active") else "No"]}
            for r in _rules_of(ctx, obj.name)]
    return object_page(ctx, obj, details=[],
                        sections=[{"title": "Validation Rules", "actions": [{"label": "New", "url": f"{base}/new"}],
                                   "columns": ["Rule Name", "Error Location", "Error Message", "Description",
                                               "Active"], "rows": rows}])


def _location(obj: ObjectSchema, rule: dict[str, Any]) -> str:
    """Where a rule's error shows: the field's label, or "Top of Page"."""
    field = obj.field(rule.get("ErrorDisplayField") or "")
    return field.label if field else "Top of Page"


def validation_rule_view(ctx: RequestContext, obj_name: str, rule_id: str) -> Response:
    """One validation rule."""
    obj = ctx.org.schema.get(obj_name)
    rule = ctx.org.get("ValidationRule", rule_id) if obj is not None else None
    if obj is None or rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    notes = []
    try:
        formula.parse(rule.get("ErrorConditionFormula") or "")
    except formula.FormulaUnsupported as exc:
        notes.append(f"The local org does not enforce this rule: {exc}")
    else:
        why = ctx.org.unenforced_rules.get(f"{obj.name}.{rule.get('ValidationName')}")
        if why:
            notes.append(f"The local org does not enforce this rule: {why}")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules/{rule['Id']}"
    return object_page(ctx, obj, kicker=f"{obj.label} Validation Rule", heading=rule.get("ValidationName"),
                        actions=[{"label": "Edit", "url": f"{base}/edit"}], notes=notes,
                        post_actions=[{"label": "Delete", "url": f"{base}/delete"}],
                        details=[("Rule Name", rule.get("ValidationName")),
                                 ("Active", "Yes" if rule.get("Active") else "No"),
                                 ("Description", rule.get("Description") or ""),
                                 ("Error Condition Formula", rule.get("ErrorConditionFormula") or ""),
                                 ("Error Message", rule.get("ErrorMessage") or ""),
                                 ("Error Location", _location(obj, rule))],
                        sections=[])


def validation_rule_form(ctx: RequestContext, obj_name: str, rule_id: str | None = None) -> Response:
    """New / edit validation rule: "Rule Name", "Active", "Description", "Error Condition Formula",
    "Error Message", "Error Location"."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    rule = ctx.org.get("ValidationRule", rule_id) if rule_id else None
    if rule_id and rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    base = f"/lightning/setup/ObjectManager/{obj.name}/ValidationRules"
    errors = FormErrors()
    r = rule or {}
    notes: list[str] = []
    vals: dict[str, Any] = {"name": r.get("ValidationName") or "", "active": bool(r.get("Active", True)),
                            "description": r.get("Description") or "", "formula": r.get("ErrorConditionFormula")
                            or "", "message": r.get("ErrorMessage") or "", "location": r.get("ErrorDisplayField")
                            or ""}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {"name": (form.get("name") or "").strip(), "active": form.get("active") is not None,
                "description": (form.get("description") or "").strip(), "formula": (form.get("formula") or "").strip(),
                "message": (form.get("message") or "").strip(), "location": form.get("location") or ""}
        checking = form.get("go") == "check"  # Check Syntax: the formula only, nothing written, the form kept
        if checking:
            pass
        elif not vals["name"]:
            errors.add("Complete this field.", "name", "Rule Name")
        elif not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "Rule Name")
        elif any(x.get("ValidationName", "").lower() == vals["name"].lower() and x["Id"] != rule_id
                 for x in _rules_of(ctx, obj.name)):
            errors.add(f"A validation rule named {vals['name']} already exists on {obj.label}.", "name", "Rule Name")
        problem = formula_problem(obj, vals["formula"])  # empty, unbalanced, or a field the object lacks
        if problem:
            errors.add(problem, "formula", "Error Condition Formula")
        elif checking:
            notes.append("No syntax errors in merge fields or functions.")
        if not vals["message"] and not checking:
            errors.add("Complete this field.", "message", "Error Message")
        if vals["location"] and obj.field(vals["location"]) is None:
            errors.add("Choose a field or Top of Page.", "location", "Error Location")
        if not errors and not checking:
            data = {"ValidationName": vals["name"], "Active": vals["active"],
                    "Description": vals["description"] or None,
                    "ErrorConditionFormula": vals["formula"], "ErrorMessage": vals["message"],
                    "ErrorDisplayField": vals["location"] or None}
            try:
                rid = save_record(ctx, "ValidationRule", rule, data if rule else {**data, "EntityDefinitionId": obj.name})
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(f"{base}/{rid}/view", f'Validation rule "{vals["name"]}" was saved.')
    locations = [("", "Top of Page")] + [(f.name, f.label) for f in sorted(obj.fields.values(),
                                                                             key=lambda f: f.label.lower())
                                         if not f.system and f.createable]
    heading = f"Edit Validation Rule {r.get('ValidationName')}" if rule else f"New Validation Rule: {obj.label}"
    return record_form(
        ctx, errors, heading, base, rule_id, back=f"{base}/view",
        inputs=[{"kind": "text", "name": "name", "label": "Rule Name", "value": vals["name"], "required": True},
                {"kind": "checkbox", "name": "active", "label": "Active", "value": vals["active"]},
                {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
                {"kind": "textarea", "name": "formula", "label": "Error Condition Formula", "value": vals["formula"],
                 "required": True, "rows": 5, "insert": formula_helpers(ctx, obj),
                 "help": "If this formula is true, the record is not saved and the error message is shown."},
                {"kind": "textarea", "name": "message", "label": "Error Message", "value": vals["message"],
                 "required": True},
                {"kind": "select", "name": "location", "label": "Error Location", "value": vals["location"],
                 "options": locations}],
        groups=[], notes=notes, extra_buttons=[{"label": "Check Syntax", "name": "go", "value": "check"}])


def validation_rule_delete(ctx: RequestContext, obj_name: str, rule_id: str) -> Response:
    """POST: delete a validation rule."""
    if not csrf_ok(ctx):
        return forbidden(ctx)
    rule = ctx.org.get("ValidationRule", rule_id)
    if rule is None:
        return not_found_page(ctx, "The validation rule does not exist.")
    ctx.org.delete("ValidationRule", rule["Id"])
    return redirect(f"/lightning/setup/ObjectManager/{obj_name}/ValidationRules/view",
                    f'Validation rule "{rule.get("ValidationName")}" was deleted.')


def register(app: OrgApp) -> None:
    """Add the routes of an object's validation rules."""
    add = app.add_route
    om = "/lightning/setup/ObjectManager/<obj_name>"
    add(f"{om}/ValidationRules/view", validation_rules, ["GET"], auth="ui", endpoint="ui.rules")
    add(f"{om}/ValidationRules/new", validation_rule_form, ["GET", "POST"], auth="ui", endpoint="ui.rule_new")
    add(f"{om}/ValidationRules/<rule_id>/view", validation_rule_view, ["GET"], auth="ui", endpoint="ui.rule")
    add(f"{om}/ValidationRules/<rule_id>/edit", validation_rule_form, ["GET", "POST"], auth="ui",
        endpoint="ui.rule_edit")
    add(f"{om}/ValidationRules/<rule_id>/delete", validation_rule_delete, ["POST"], auth="ui",
        endpoint="ui.rule_delete")
