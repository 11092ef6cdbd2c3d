"""Setup > Sales Processes (an Opportunity business process: its name, then the stages it includes, chosen in a
dual listbox) and Setup > Matching Rules (a rule on an object: name, unique name, one or more criteria with
field, matching method and "Match Blank Fields"). Both write their component through the Metadata store
(``BusinessProcess Opportunity.<Name>``, ``MatchingRule <Object>.<Unique_Name>``)."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import profile_full_name
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, saved, \
    setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page

SALES = "/lightning/setup/OpportunityProcess"
MATCHING = "/lightning/setup/MatchingRules"
#: matching method (metadata value) -> the page's label
METHODS = [("Exact", "Exact"), ("FirstName", "Fuzzy: First Name"), ("LastName", "Fuzzy: Last Name"),
           ("CompanyName", "Fuzzy: Company Name"), ("Phone", "Fuzzy: Phone"), ("City", "Fuzzy: City"),
           ("Street", "Fuzzy: Street"), ("Zip", "Fuzzy: ZIP"), ("Title", "Fuzzy: Title")]
MATCHING_OBJECTS = ("Account", "Contact", "Lead", "Address", "Individual")
CRITERIA = 3


def value_full_name(value: str) -> str:
    """A picklist value's fullName in a business process: characters other than letters, digits, spaces, - and
    _ percent-encoded (``Proposal/Price Quote`` -> ``Proposal%2FPrice Quote``), as Salesforce writes them."""
    return profile_full_name(value)


def sales_processes(ctx: RequestContext) -> Response:
    """``/lightning/setup/OpportunityProcess/home``: the Opportunity sales processes and "New"."""
    store = metadata_store(ctx)
    rows = [{"url": None, "cells": [name.split(".", 1)[1], "Yes" if X.flag(store.read("BusinessProcess", name)
                                                                          or X.element("x"), "isActive") else "No"]}
            for name in store.names("BusinessProcess") if name.startswith("Opportunity.")]
    return setup_render(ctx, "setup/table.html", title="Sales Processes", heading="Sales Processes",
                        actions=[{"label": "New", "url": f"{SALES}/new"}], columns=["Sales Process Name", "Active"],
                        rows=rows)


def sales_process_new(ctx: RequestContext) -> Response:
    """New Sales Process: "Sales Process Name" and "Description" (Save), then "Selected Values" of the stages
    (every stage to start with; Remove the others), Save."""
    obj = ctx.org.schema.get("Opportunity")
    field = obj.field("StageName") if obj is not None else None
    if field is None:
        return not_found_page(ctx, "The org has no opportunity stages.")
    store = metadata_store(ctx)
    form = ctx.request.form
    errors = FormErrors()
    vals = {"name": (form.get("name") or "").strip(), "description": (form.get("description") or "").strip()}
    step = form.get("step") or "name"
    chosen = [v for v in form.getlist("stages") if v in field.values] if step == "stages" else list(field.values)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Sales Process Name")
        elif store.read("BusinessProcess", f"Opportunity.{vals['name']}") is not None:
            errors.add(f"A sales process named {vals['name']} already exists.", "name", "Sales Process Name")
        if step == "stages" and not chosen:
            errors.add("Choose at least one stage.", "stages", "Selected Values")
        if not errors and step == "name":
            step = "stages"
        elif not errors:
            body = [X.leaf("isActive", True), *([X.leaf("description", vals["description"])]
                                                if vals["description"] else [])]
            body += [X.element("values", [X.leaf("fullName", value_full_name(v)), X.leaf("default", i == 0)])
                     for i, v in enumerate(chosen)]
            done = saved(errors, lambda: store.write("BusinessProcess", f"Opportunity.{vals['name']}",
                                                     X.element("BusinessProcess", body)),
                         f"{SALES}/home", f'Sales process "{vals["name"]}" was saved.')
            if done is not None:
                return done
    inputs: list[dict[str, Any]]
    if step == "stages":
        inputs = [{"kind": "dual", "name": "stages", "label": "Opportunity Stage", "available_label": "Available Values",
                   "selected_label": "Selected Values", "available": [(v, v) for v in field.values if v not in chosen],
                   "selected": [(v, v) for v in chosen]}]
        carried = [("step", "stages"), ("name", vals["name"]), ("description", vals["description"])]
    else:
        inputs = [{"kind": "text", "name": "name", "label": "Sales Process Name", "value": vals["name"],
                   "required": True},
                  {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}]
        carried = [("step", "name")]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Sales Process",
                        heading="New Sales Process", kicker="Sales Processes", errors=errors,
                        step=f"Step {1 if step == 'name' else 2} of 2",
                        step_title="Name" if step == "name" else "Select the stages", action=f"{SALES}/new",
                        cancel=f"{SALES}/home", carried=carried, inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def matching_rules(ctx: RequestContext) -> Response:
    """``/lightning/setup/MatchingRules/home``: the matching rules and "New Rule"."""
    store = metadata_store(ctx)
    rows = []
    for name in store.names("MatchingRule"):
        body = store.read("MatchingRule", name)
        rows.append({"url": None, "cells": [X.text_of(body, "label") if body is not None else name, name.split(".")[0],
                                            X.text_of(body, "ruleStatus") if body is not None else ""]})
    return setup_render(ctx, "setup/table.html", title="Matching Rules", heading="Matching Rules",
                        actions=[{"label": "New Rule", "url": f"{MATCHING}/new"}],
                        columns=["Rule Name", "Object", "Status"], rows=rows)


def matching_rule_new(ctx: RequestContext) -> Response:
    """New Matching Rule: "Object" (Next), then "Rule Name", "Unique Name", "Description" and up to three
    criteria ("Field N", "Matching Method N", "Match Blank Fields N"), Save."""
    store = metadata_store(ctx)
    form = ctx.request.form
    errors = FormErrors()
    objects = [(o, ctx.org.schema[o].label) for o in MATCHING_OBJECTS if o in ctx.org.schema]
    obj_name = form.get("object") or ""
    step = form.get("step") or "object"
    vals: dict[str, Any] = {k: (form.get(k) or "").strip() for k in ("name", "unique", "description")}
    rows: list[dict[str, Any]] = [{"field": form.get(f"field{i}") or "", "method": form.get(f"method{i}") or "Exact",
                                   "blank": form.get(f"blank{i}") is not None} for i in range(1, CRITERIA + 1)]
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        if obj_name not in dict(objects):
            errors.add("Choose an object.", "object", "Object")
            step = "object"
        elif step == "object":
            step = "rule"
        else:
            obj = ctx.org.schema[obj_name]
            vals["unique"] = vals["unique"] or api_name(vals["name"])
            if not vals["name"]:
                errors.add("Complete this field.", "name", "Rule Name")
            if vals["unique"] and not valid_api_name(vals["unique"]):
                errors.add(API_NAME_RULE, "unique", "Unique Name")
            elif store.read("MatchingRule", f"{obj_name}.{vals['unique']}") is not None:
                errors.add(f"A matching rule named {vals['unique']} already exists on {obj.label}.", "unique",
                           "Unique Name")
            items = [r for r in rows if r["field"]]
            if not items:
                errors.add("Add at least one matching criterion.", "field1", "Field 1")
            for i, r in enumerate(rows, 1):
                if r["field"] and (obj.field(r["field"]) is None or r["method"] not in dict(METHODS)):
                    errors.add("Choose a field and a matching method.", f"field{i}", f"Field {i}")
            if not errors:
                body = X.element("MatchingRule", [
                    X.leaf("label", vals["name"]), *([X.leaf("description", vals["description"])]
                                                     if vals["description"] else []),
                    *(X.element("matchingRuleItems", [
                        X.leaf("blankValueBehavior", "MatchBlanks" if r["blank"] else "NullNotAllowed"),
                        X.leaf("fieldName", r["field"]), X.leaf("matchingMethod", r["method"])]) for r in items),
                    X.leaf("ruleStatus", "Inactive")])
                done = saved(errors, lambda: store.write("MatchingRule", f"{obj_name}.{vals['unique']}", body),
                             f"{MATCHING}/home", f'Matching rule "{vals["name"]}" was saved.')
                if done is not None:
                    return done
    if step == "object":
        inputs: list[dict[str, Any]] = [{"kind": "select", "name": "object", "label": "Object", "value": obj_name,
                                         "required": True, "options": [("", "--Select--"), *objects]}]
        carried = [("step", "object")]
        buttons = [{"label": "Next", "brand": True}]
    else:
        obj = ctx.org.schema[obj_name]
        fields = [("", "--None--"), *((f.name, f.label) for f in sorted(obj.fields.values(), key=lambda f: f.label)
                                      if not f.system and f.type not in ("reference", "json", "boolean"))]
        inputs = [{"kind": "text", "name": "name", "label": "Rule Name", "value": vals["name"], "required": True},
                  {"kind": "text", "name": "unique", "label": "Unique Name", "value": vals["unique"],
                   "help": "Filled from the rule name when left blank."},
                  {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}]
        for i, r in enumerate(rows, 1):
            inputs += [{"kind": "select", "name": f"field{i}", "label": f"Field {i}", "value": r["field"],
                        "options": fields},
                       {"kind": "select", "name": f"method{i}", "label": f"Matching Method {i}", "value": r["method"],
                        "options": METHODS},
                       {"kind": "checkbox", "name": f"blank{i}", "label": f"Match Blank Fields {i}",
                        "value": r["blank"]}]
        carried = [("step", "rule"), ("object", obj_name)]
        buttons = [{"label": "Save", "brand": True}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Matching Rule",
                        heading="New Matching Rule", kicker="Matching Rules", errors=errors,
                        step=f"Step {1 if step == 'object' else 2} of 2", action=f"{MATCHING}/new",
                        cancel=f"{MATCHING}/home", carried=carried, inputs=inputs, buttons=buttons)


def register(app: OrgApp) -> None:
    """Add the sales process and matching rule routes."""
    add = app.add_route
    add(f"{SALES}/home", sales_processes, ["GET"], auth="ui", endpoint="ui.sales_processes")
    add(f"{SALES}/new", sales_process_new, ["GET", "POST"], auth="ui", endpoint="ui.sales_process_new")
    add(f"{MATCHING}/home", matching_rules, ["GET"], auth="ui", endpoint="ui.matching_rules")
    add(f"{MATCHING}/new", matching_rule_new, ["GET", "POST"], auth="ui", endpoint="ui.matching_rule_new")
