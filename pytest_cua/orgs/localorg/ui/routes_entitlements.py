"""Setup > Entitlement Processes: the processes, "New Entitlement Process" (type, name, description, when a
record enters and exits), a process's page with its milestones and "New Milestone" (milestone, order, time
trigger in minutes, criteria). Saves write the ``EntitlementProcess`` (fullName: the name in lower case, as
Salesforce names it) through the Metadata store."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.criteria import Rows
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, saved, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page

PROCESSES = "/lightning/setup/EntitlementProcess"
TYPES = [("Case", "Case"), ("WorkOrder", "Work Order"), ("Incident", "Incident")]
CRITERIA = Rows(3, ("cfield", "cop", "cvalue"), ("Criteria Field", "Criteria Operator", "Criteria Value"))


def _process(ctx: RequestContext, full: str) -> ET.Element | None:
    return metadata_store(ctx).read("EntitlementProcess", full)


def processes_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/EntitlementProcess/home``: the processes and "New Entitlement Process"."""
    store = metadata_store(ctx)
    rows = []
    for full in store.names("EntitlementProcess"):
        body = store.read("EntitlementProcess", full)
        if body is not None:
            rows.append({"url": f"{PROCESSES}/{quote(full)}/view",
                         "cells": [X.text_of(body, "name") or full, X.text_of(body, "SObjectType") or "",
                                   "Yes" if X.flag(body, "active") else "No"]})
    return setup_render(ctx, "setup/table.html", title="Entitlement Processes", heading="Entitlement Processes",
                        actions=[{"label": "New Entitlement Process", "url": f"{PROCESSES}/new"}],
                        columns=["Entitlement Process Name", "Type", "Active"], rows=rows)


def process_new(ctx: RequestContext) -> Response:
    """New Entitlement Process: "Entitlement Process Type", "Entitlement Process Name", "Description", "Starts
    when", "Exits when"; Save opens the process."""
    types = [(v, label) for v, label in TYPES if v in ctx.org.schema]
    form = ctx.request.form
    errors = FormErrors()
    vals = {k: (form.get(k) or "").strip() for k in ("type", "name", "description")}
    vals["type"] = vals["type"] or "Case"
    vals["starts"] = form.get("starts") or "CreatedDate"
    vals["exits"] = form.get("exits") or "closed"
    # Salesforce's two steps: the type of records ("Next"), then the process's name and timing ("Save")
    go = form.get("go") or ""
    step = 1
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        step = 1 if go == "previous" else 2
        if vals["type"] not in dict(types):
            step = 1
            errors.add("Choose the type of records the process applies to.", "type", "Entitlement Process Type")
        elif go in ("next", "previous"):
            pass
        elif not vals["name"]:
            errors.add("Complete this field.", "name", "Entitlement Process Name")
        elif _process(ctx, vals["name"].lower()) is not None:
            errors.add(f"An entitlement process named {vals['name']} already exists.", "name",
                       "Entitlement Process Name")
        if not errors and go not in ("next", "previous"):
            rt, full = vals["type"], vals["name"].lower()
            body = [X.leaf("SObjectType", rt), X.leaf("active", True), X.leaf("businessHours", "Default"),
                    *([X.leaf("description", vals["description"])] if vals["description"] else []),
                    X.leaf("entryStartDateField", f"{rt}.{vals['starts']}")]
            if vals["exits"] == "closed":
                body.append(X.element("exitCriteriaFilterItems", [X.leaf("field", f"{rt}.IsClosed"),
                                                                  X.leaf("operation", "equals"), X.leaf("value", "true")]))
            body += [X.leaf("isVersionDefault", True), X.leaf("name", vals["name"]), X.leaf("versionMaster", full)]
            done = saved(errors, lambda: metadata_store(ctx).write("EntitlementProcess", full,
                                                                  X.element("EntitlementProcess", body)),
                         f"{PROCESSES}/{quote(full)}/view", f'Entitlement process "{vals["name"]}" was saved.')
            if done is not None:
                return done
    label = dict(types).get(vals["type"], "Record")
    title = "New Entitlement Process"
    if step == 1:
        return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title=title, heading=title,
                            kicker="Entitlement Processes", errors=errors, action=f"{PROCESSES}/new",
                            cancel=f"{PROCESSES}/home", step="Step 1 of 2", step_title="Entitlement Process Type",
                            carried=[(k, vals[k]) for k in ("name", "description", "starts", "exits")],
                            inputs=[{"kind": "select", "name": "type", "label": "Entitlement Process Type",
                                     "value": vals["type"], "options": types}],
                            buttons=[{"label": "Next", "name": "go", "value": "next", "brand": True}])
    inputs = [{"kind": "static", "name": "type_shown", "label": "Entitlement Process Type", "value": label},
              {"kind": "text", "name": "name", "label": "Entitlement Process Name", "value": vals["name"],
               "required": True},
              {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
              {"kind": "select", "name": "starts", "label": "Starts when", "value": vals["starts"],
               "options": [("CreatedDate", "The record is created (Created Date)")]},
              {"kind": "select", "name": "exits", "label": "Exits when", "value": vals["exits"],
               "options": [("closed", f"The {label.lower()} is closed"), ("never", "Never (no exit criteria)")]}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Entitlement Process",
                        heading="New Entitlement Process", kicker="Entitlement Processes", errors=errors,
                        action=f"{PROCESSES}/new", cancel=f"{PROCESSES}/home", inputs=inputs,
                        step="Step 2 of 2", step_title="Entitlement Process Details", carried=[("type", vals["type"])],
                        buttons=[{"label": "Save", "brand": True}, {"label": "Previous", "name": "go",
                                                                     "value": "previous"}])


def process_view(ctx: RequestContext, full: str) -> Response:
    """A process: its settings and milestones; "New Milestone"."""
    full = unquote(full)
    body = _process(ctx, full)
    if body is None:
        return not_found_page(ctx, f"There is no entitlement process {full}.")
    rows = [{"url": None, "cells": [X.text_of(m, "milestoneName") or "", str(i), X.text_of(m, "minutesToComplete") or "",
                                    "; ".join(f"{X.text_of(c, 'field')} {X.text_of(c, 'operation')} {X.text_of(c, 'value')}"
                                              for c in X.children(m, "milestoneCriteriaFilterItems"))]}
            for i, m in enumerate(X.children(body, "milestones"), 1)]
    return setup_render(ctx, "setup/detail.html", title=f"{X.text_of(body, 'name')} | Entitlement Processes",
                        heading=X.text_of(body, "name") or full, kicker="Entitlement Process", actions=[],
                        details=[("Entitlement Process Type", X.text_of(body, "SObjectType") or ""),
                                 ("Starts when", X.text_of(body, "entryStartDateField") or ""),
                                 ("Active", "Yes" if X.flag(body, "active") else "No")],
                        sections=[{"title": "Milestones", "rows": rows,
                                   "columns": ["Milestone Name", "Order", "Time Trigger (Minutes)", "Criteria"],
                                   "actions": [{"label": "New Milestone",
                                                "url": f"{PROCESSES}/{quote(full)}/milestones/new"}]}])


def milestone_new(ctx: RequestContext, full: str) -> Response:
    """New Milestone: "Milestone Name" (the org's milestone types), "Order", "Time Trigger (Minutes)", criteria
    rows "Criteria Field N" / "Criteria Operator N" / "Criteria Value N"; Save."""
    full = unquote(full)
    body = _process(ctx, full)
    if body is None:
        return not_found_page(ctx, f"There is no entitlement process {full}.")
    rt = X.text_of(body, "SObjectType") or "Case"
    names = sorted(str(m.get("Name")) for m in ctx.org.records("MilestoneType") if m.get("Name")) \
        if "MilestoneType" in ctx.org.schema else []
    fields: list[tuple[str, str]] = []
    for obj_name in dict.fromkeys((rt, "Account", "Contact", "User")):
        obj = ctx.org.schema.get(obj_name)
        if obj is not None:
            fields += [(f"{obj.name}.{f.name}", f"{obj.label}: {f.label}")
                       for f in sorted(obj.fields.values(), key=lambda f: f.label.lower()) if f.type != "json"]
    form = ctx.request.form
    errors = FormErrors()
    current = X.children(body, "milestones")
    vals: dict[str, Any] = {"milestone": form.get("milestone") or "", "order": form.get("order") or str(len(current) + 1),
                            "minutes": (form.get("minutes") or "").strip()}
    rows = CRITERIA.read(form)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        if vals["milestone"] not in names:
            errors.add("Choose a milestone.", "milestone", "Milestone Name")
        if not vals["order"].isdigit() or int(vals["order"]) < 1:
            errors.add("Enter a whole number from 1.", "order", "Order")
        if not vals["minutes"].isdigit() or int(vals["minutes"]) < 1:
            errors.add("Enter the minutes to complete the milestone.", "minutes", "Time Trigger (Minutes)")
        used = CRITERIA.check(errors, rows, fields, required=False)
        if not errors:
            milestone = X.element("milestones", [
                *(X.element("milestoneCriteriaFilterItems", [X.leaf("field", r["field"]), X.leaf("operation", r["op"]),
                                                             X.leaf("value", r["value"])]) for r in used),
                X.leaf("milestoneName", vals["milestone"]), X.leaf("minutesToComplete", vals["minutes"]),
                X.leaf("useCriteriaStartTime", False)])
            ordered = list(current)
            ordered.insert(min(int(vals["order"]), len(ordered) + 1) - 1, milestone)
            out = X.element("EntitlementProcess", [*(c for c in body if c.tag != "milestones"), *ordered])
            done = saved(errors, lambda: metadata_store(ctx).write("EntitlementProcess", full, X.sorted_children(out)),
                         f"{PROCESSES}/{quote(full)}/view", f'Milestone "{vals["milestone"]}" was added.')
            if done is not None:
                return done
    inputs: list[dict[str, Any]] = [
        {"kind": "select", "name": "milestone", "label": "Milestone Name", "value": vals["milestone"], "required": True,
         "options": [("", "--Select a milestone--"), *((n, n) for n in names)]},
        {"kind": "text", "name": "order", "label": "Order", "value": vals["order"], "required": True},
        {"kind": "text", "name": "minutes", "label": "Time Trigger (Minutes)", "value": vals["minutes"],
         "required": True}]
    inputs += CRITERIA.inputs(rows, fields)
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Milestone",
                        heading=f"{X.text_of(body, 'name')}: New Milestone", kicker="Entitlement Process",
                        errors=errors, action=f"{PROCESSES}/{quote(full)}/milestones/new",
                        cancel=f"{PROCESSES}/{quote(full)}/view", inputs=inputs,
                        buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the entitlement process routes."""
    add = app.add_route
    add(f"{PROCESSES}/home", processes_home, ["GET"], auth="ui", endpoint="ui.entitlement_processes")
    add(f"{PROCESSES}/new", process_new, ["GET", "POST"], auth="ui", endpoint="ui.entitlement_process_new")
    add(f"{PROCESSES}/<full>/view", process_view, ["GET"], auth="ui", endpoint="ui.entitlement_process")
    add(f"{PROCESSES}/<full>/milestones/new", milestone_new, ["GET", "POST"], auth="ui",
        endpoint="ui.entitlement_milestone_new")
