"""Setup > Territory Settings (turning Enterprise Territory Management on) and Setup > Territory Models: the
models, "New Territory Model", a model's page with its assignment rules and "New Rule" (name, active, criteria
on account fields, filter logic). The settings are the ``Territory2Settings`` component; models and rules are
``Territory2Model``, ``ObjectTerritory2AssignmentRule`` and ``ObjectTerritory2AssignmentRuleItem`` records."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.criteria import OPERATORS, Rows
from pytest_cua.orgs.localorg.ui.setup_common import api_name, metadata_store, saved, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, redirect

SETTINGS = "/lightning/setup/Territory2Settings/home"
MODELS = "/lightning/setup/Territory2Models"
CRITERIA = Rows(5)


def _enabled(ctx: RequestContext) -> bool:
    body = metadata_store(ctx).read("Territory2Settings", "Territory2")
    return body is not None and X.flag(body, "enableTerritoryManagement2")


def territory_settings(ctx: RequestContext) -> Response:
    """Territory Settings: whether Enterprise Territory Management is on, and "Enable Territory Management"."""
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        store = metadata_store(ctx)
        body = store.read("Territory2Settings", "Territory2") or X.element("Territory2Settings")
        out = X.element("Territory2Settings", [*(c for c in body if c.tag != "enableTerritoryManagement2"),
                                               X.leaf("enableTerritoryManagement2", True)])
        done = saved(errors, lambda: store.write("Territory2Settings", "Territory2", X.sorted_children(out)),
                     SETTINGS, "Territory management is enabled.")
        if done is not None:
            return done
    on = _enabled(ctx)
    return setup_render(ctx, "setup/detail.html", title="Territory Settings", heading="Territory Settings",
                        kicker="Territories", details=[("Enterprise Territory Management", "Enabled" if on
                                                        else "Not enabled")], sections=[], actions=[],
                        post_actions=[] if on else [{"label": "Enable Territory Management", "url": SETTINGS}])


def models_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/Territory2Models/home``: the territory models and "New Territory Model"."""
    rows = [{"url": f"{MODELS}/{m['Id']}/view", "cells": [m.get("Name"), m.get("DeveloperName"), m.get("State") or ""]}
            for m in sorted(ctx.org.records("Territory2Model"), key=lambda m: str(m.get("Name") or "").lower())]
    notes = [] if _enabled(ctx) else ["Enterprise Territory Management is not enabled: enable it in Territory "
                                      "Settings first."]
    return setup_render(ctx, "setup/detail.html", title="Territory Models", heading="Territory Models", kicker="Territories",
                        notes=notes, details=[], actions=[{"label": "New Territory Model", "url": f"{MODELS}/new"}]
                        if _enabled(ctx) else [{"label": "Territory Settings", "url": SETTINGS}],
                        sections=[{"title": "Territory Models", "columns": ["Label", "Territory Model Name", "State"],
                                   "rows": rows}])


def model_new(ctx: RequestContext) -> Response:
    """New Territory Model: "Label", "Territory Model Name", "Description"; Save."""
    if not _enabled(ctx):
        return redirect(f"{MODELS}/home", "Enable territory management first (Territory Settings).")
    form = ctx.request.form
    errors = FormErrors()
    vals = {k: (form.get(k) or "").strip() for k in ("label", "name", "description")}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals["name"] = vals["name"] or api_name(vals["label"])
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if not errors:
            try:
                mid = ctx.org.create("Territory2Model", {"Name": vals["label"], "DeveloperName": vals["name"],
                                                         **({"Description": vals["description"]}
                                                            if vals["description"] else {})}, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(f"{MODELS}/{mid}/view", f'Territory model "{vals["label"]}" was saved.')
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Territory Model",
                        heading="New Territory Model", kicker="Territory Models", errors=errors, action=f"{MODELS}/new",
                        cancel=f"{MODELS}/home",
                        inputs=[{"kind": "text", "name": "label", "label": "Label", "value": vals["label"],
                                 "required": True},
                                {"kind": "text", "name": "name", "label": "Territory Model Name", "value": vals["name"],
                                 "help": "Filled from the label when left blank."},
                                {"kind": "textarea", "name": "description", "label": "Description",
                                 "value": vals["description"]}],
                        buttons=[{"label": "Save", "brand": True}])


def model_view(ctx: RequestContext, mid: str) -> Response:
    """A territory model: its assignment rules and their criteria; "New Rule"."""
    model = ctx.org.get("Territory2Model", mid)
    if model is None:
        return not_found_page(ctx, "The territory model does not exist.")
    ops = dict(OPERATORS)
    rules = [r for r in ctx.org.records("ObjectTerritory2AssignmentRule") if r.get("Territory2ModelId") == model["Id"]]
    rows = []
    for r in rules:
        items = sorted(ctx.org.find("ObjectTerritory2AssignmentRuleItem", RuleId=r["Id"]),
                       key=lambda i: i.get("SortOrder") or 0)
        rows.append({"url": None, "cells": [r.get("MasterLabel"), "Yes" if r.get("IsActive") else "No",
                                            "; ".join(f"{i.get('Field')} {ops.get(i.get('Operation') or '', '')} "
                                                      f"{i.get('Value') or ''}" for i in items)]})
    return setup_render(ctx, "setup/detail.html", title=f"{model.get('Name')} | Territory Models",
                        heading=model.get("Name"), kicker="Territory Model",
                        details=[("Label", model.get("Name")), ("Territory Model Name", model.get("DeveloperName"))],
                        actions=[], sections=[{"title": "Assignment Rules", "rows": rows,
                                               "columns": ["Rule Name", "Active", "Criteria"],
                                               "actions": [{"label": "New Rule", "url": f"{MODELS}/{mid}/rules/new"}]}])


def rule_new(ctx: RequestContext, mid: str) -> Response:
    """New assignment rule of a model: "Rule Name", "Active", criteria rows on Account fields, "Filter Logic"."""
    model = ctx.org.get("Territory2Model", mid)
    if model is None:
        return not_found_page(ctx, "The territory model does not exist.")
    account = ctx.org.schema.get("Account")
    fields = [(f"Account.{f.name}", f"Account: {f.label}") for f in
              sorted(account.fields.values(), key=lambda f: f.label.lower()) if f.type != "json"] if account else []
    form = ctx.request.form
    errors = FormErrors()
    vals: dict[str, Any] = {"name": (form.get("name") or "").strip(), "active": form.get("active") is not None,
                            "logic": (form.get("logic") or "").strip()}
    rows = CRITERIA.read(form)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Rule Name")
        used = CRITERIA.check(errors, rows, fields, vals["logic"])
        if not errors:
            try:
                with ctx.org.transaction():
                    rid = ctx.org.create("ObjectTerritory2AssignmentRule", {
                        "MasterLabel": vals["name"], "DeveloperName": api_name(vals["name"]) or "Rule",
                        "Territory2ModelId": model["Id"], "ObjectType": "Account", "IsActive": vals["active"],
                        **({"BooleanFilter": vals["logic"]} if vals["logic"] else {})}, user_id=ctx.user_id)
                    for order, r in enumerate(used, 1):
                        ctx.org.create("ObjectTerritory2AssignmentRuleItem", {
                            "RuleId": rid, "Field": r["field"], "Operation": r["op"], "Value": r["value"],
                            "SortOrder": order}, user_id=ctx.user_id)
            except OrgError as err:
                errors.add(err.message)
            else:
                return redirect(f"{MODELS}/{mid}/view", f'Assignment rule "{vals["name"]}" was saved.')
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "name", "label": "Rule Name", "value": vals["name"], "required": True},
        {"kind": "checkbox", "name": "active", "label": "Set as Active", "value": vals["active"]}]
    inputs += CRITERIA.inputs(rows, fields)
    inputs.append({"kind": "text", "name": "logic", "label": "Filter Logic", "value": vals["logic"]})
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Assignment Rule",
                        heading=f"{model.get('Name')}: New Assignment Rule", kicker="Territory Model", errors=errors,
                        action=f"{MODELS}/{mid}/rules/new", cancel=f"{MODELS}/{mid}/view", inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the territory routes."""
    add = app.add_route
    add(SETTINGS, territory_settings, ["GET", "POST"], auth="ui", endpoint="ui.territory_settings")
    add(f"{MODELS}/home", models_home, ["GET"], auth="ui", endpoint="ui.territory_models")
    add(f"{MODELS}/new", model_new, ["GET", "POST"], auth="ui", endpoint="ui.territory_model_new")
    add(f"{MODELS}/<mid>/view", model_view, ["GET"], auth="ui", endpoint="ui.territory_model")
    add(f"{MODELS}/<mid>/rules/new", rule_new, ["GET", "POST"], auth="ui", endpoint="ui.territory_rule_new")
