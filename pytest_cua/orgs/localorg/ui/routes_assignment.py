"""Setup > Case Assignment Rules: the rules, "New" (Rule Name, Active), a rule's page with its entries and "New"
rule entry (Sort Order, up to five criteria "Field N" / "Operator N" / "Value N", "Filter Logic", "Assign To").
Saves write the ``AssignmentRule`` ``Case.<Rule Name>`` through the Metadata store (a retrieve of
``AssignmentRules Case`` puts the rules together)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.criteria import OPERATORS, Rows
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, saved, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page

RULES = "/lightning/setup/CaseRules"
CRITERIA = Rows(5)
_CRITERIA_OBJECTS = ("Case", "Account", "Contact")


def _rule(ctx: RequestContext, name: str) -> ET.Element | None:
    return metadata_store(ctx).read("AssignmentRule", f"Case.{name}")


def rules_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/CaseRules/home``: the Case assignment rules and "New"."""
    store = metadata_store(ctx)
    rows = []
    for full in store.names("AssignmentRule"):
        obj, _, name = full.partition(".")
        body = store.read("AssignmentRule", full)
        if obj == "Case" and body is not None:
            rows.append({"url": f"{RULES}/{quote(name)}/view", "cells": [name, "Yes" if X.flag(body, "active")
                                                                          else "No"]})
    return setup_render(ctx, "setup/table.html", title="Case Assignment Rules", heading="Case Assignment Rules",
                        actions=[{"label": "New", "url": f"{RULES}/new"}], columns=["Rule Name", "Active"], rows=rows)


def rule_new(ctx: RequestContext) -> Response:
    """New Case assignment rule: "Rule Name", "Active"; Save opens the rule."""
    errors = FormErrors()
    vals: dict[str, Any] = {"name": "", "active": False}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals = {"name": (ctx.request.form.get("name") or "").strip(), "active": ctx.request.form.get("active") is not None}
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Rule Name")
        elif _rule(ctx, vals["name"]) is not None:
            errors.add(f"A Case assignment rule named {vals['name']} already exists.", "name", "Rule Name")
        if not errors:
            body = X.element("AssignmentRule", [X.leaf("active", vals["active"])])
            done = saved(errors, lambda: metadata_store(ctx).write("AssignmentRule", f"Case.{vals['name']}", body),
                         f"{RULES}/{quote(vals['name'])}/view", f'Assignment rule "{vals["name"]}" was saved.')
            if done is not None:
                return done
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Case Assignment Rule",
                        heading="New Case Assignment Rule", kicker="Case Assignment Rules", errors=errors,
                        action=f"{RULES}/new", cancel=f"{RULES}/home",
                        inputs=[{"kind": "text", "name": "name", "label": "Rule Name", "value": vals["name"],
                                 "required": True},
                                {"kind": "checkbox", "name": "active", "label": "Active", "value": vals["active"]}],
                        buttons=[{"label": "Save", "brand": True}])


def _assignees(ctx: RequestContext) -> list[tuple[str, str]]:
    users = [(f"User:{u['Username']}", f"User: {u.get('Name')}") for u in ctx.org.records("User")
             if u.get("IsActive") and u.get("Username")]
    queues = [(f"Queue:{g['DeveloperName']}", f"Queue: {g.get('Name')}") for g in ctx.org.records("Group")
              if g.get("Type") == "Queue" and g.get("DeveloperName")]
    return sorted(queues, key=lambda o: o[1].lower()) + sorted(users, key=lambda o: o[1].lower())


def _fields(ctx: RequestContext) -> list[tuple[str, str]]:
    out = []
    for name in _CRITERIA_OBJECTS:
        obj = ctx.org.schema.get(name)
        if obj is not None:
            out += [(f"{obj.name}.{f.name}", f"{obj.label}: {f.label}") for f in
                    sorted(obj.fields.values(), key=lambda f: f.label.lower()) if f.type != "json"]
    return out


def rule_view(ctx: RequestContext, name: str) -> Response:
    """A rule's page: its entries (order, criteria, assignee) and "New" entry."""
    name = unquote(name)
    body = _rule(ctx, name)
    if body is None:
        return not_found_page(ctx, f"There is no Case assignment rule {name}.")
    ops = dict(OPERATORS)
    rows = [{"url": None, "cells": [
        X.text_of(e, "sortOrder") or str(i), "; ".join(f"{X.text_of(c, 'field')} {ops.get(X.text_of(c, 'operation') or '', '')} "
                                                       f"{X.text_of(c, 'value') or ''}" for c in X.children(e, "criteriaItems")),
        X.text_of(e, "booleanFilter") or "", f"{X.text_of(e, 'assignedToType')}: {X.text_of(e, 'assignedTo')}"]}
            for i, e in enumerate(X.children(body, "ruleEntry"), 1)]
    return setup_render(ctx, "setup/detail.html", title=f"{name} | Case Assignment Rules", heading=name,
                        kicker="Case Assignment Rule", actions=[],
                        details=[("Rule Name", name), ("Active", "Yes" if X.flag(body, "active") else "No")],
                        sections=[{"title": "Rule Entries", "rows": rows,
                                   "columns": ["Order", "Criteria", "Filter Logic", "Assign To"],
                                   "actions": [{"label": "New", "url": f"{RULES}/{quote(name)}/entries/new"}]}])


def entry_new(ctx: RequestContext, name: str) -> Response:
    """New rule entry: "Sort Order", criteria rows, "Filter Logic", "Assign To"; Save."""
    name = unquote(name)
    body = _rule(ctx, name)
    if body is None:
        return not_found_page(ctx, f"There is no Case assignment rule {name}.")
    form = ctx.request.form
    fields, assignees = _fields(ctx), _assignees(ctx)
    entries = X.children(body, "ruleEntry")
    errors = FormErrors()
    vals: dict[str, Any] = {"order": form.get("order") or str(len(entries) + 1), "logic": (form.get("logic") or "").strip(),
                            "assignee": form.get("assignee") or ""}
    rows = CRITERIA.read(form)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        if not vals["order"].isdigit() or int(vals["order"]) < 1:
            errors.add("Enter a whole number from 1.", "order", "Sort Order")
        used = CRITERIA.check(errors, rows, fields, vals["logic"])
        if vals["assignee"] not in dict(assignees):
            errors.add("Choose whom to assign to.", "assignee", "Assign To")
        if not errors:
            kind, _, who = vals["assignee"].partition(":")
            entry = X.element("ruleEntry", [X.leaf("assignedTo", who), X.leaf("assignedToType", kind),
                                            *([X.leaf("booleanFilter", vals["logic"])] if vals["logic"] else []),
                                            *(X.element("criteriaItems", [X.leaf("field", r["field"]),
                                                                          X.leaf("operation", r["op"]),
                                                                          X.leaf("value", r["value"])]) for r in used)])
            ordered = list(entries)
            ordered.insert(min(int(vals["order"]), len(ordered) + 1) - 1, entry)
            out = X.element("AssignmentRule", [*(c for c in body if c.tag != "ruleEntry"), *ordered])
            done = saved(errors, lambda: metadata_store(ctx).write("AssignmentRule", f"Case.{name}", out),
                         f"{RULES}/{quote(name)}/view", "The rule entry was saved.")
            if done is not None:
                return done
    inputs: list[dict[str, Any]] = [{"kind": "text", "name": "order", "label": "Sort Order", "value": vals["order"],
                                     "required": True}]
    inputs += CRITERIA.inputs(rows, fields)
    inputs += [{"kind": "text", "name": "logic", "label": "Filter Logic", "value": vals["logic"],
                "help": "For example 1 OR 2; blank: every criterion must hold."},
               {"kind": "select", "name": "assignee", "label": "Assign To", "value": vals["assignee"], "required": True,
                "options": [("", "--Select a user or queue--"), *assignees]}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Rule Entry",
                        heading=f"{name}: New Rule Entry", kicker="Case Assignment Rule", errors=errors,
                        action=f"{RULES}/{quote(name)}/entries/new", cancel=f"{RULES}/{quote(name)}/view",
                        inputs=inputs, buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the Case assignment rule routes."""
    add = app.add_route
    add(f"{RULES}/home", rules_home, ["GET"], auth="ui", endpoint="ui.case_rules")
    add(f"{RULES}/new", rule_new, ["GET", "POST"], auth="ui", endpoint="ui.case_rule_new")
    add(f"{RULES}/<name>/view", rule_view, ["GET"], auth="ui", endpoint="ui.case_rule")
    add(f"{RULES}/<name>/entries/new", entry_new, ["GET", "POST"], auth="ui", endpoint="ui.case_rule_entry")
