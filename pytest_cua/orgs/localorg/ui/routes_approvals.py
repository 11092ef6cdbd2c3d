"""Setup > Approval Processes: the processes of an object ("Manage Approval Processes For"), "Create New Approval
Process" with the Jump Start Wizard (name, unique name, entry criteria; one step approved by the submitter's
manager, as the wizard makes it), a process's page with its final approval and final rejection actions, and a
new field update action ("Name", "Unique Name", "Field to Update", a specific value or a formula).

Processes are ``ApprovalProcess`` components (``Object.Unique_Name``) and field updates the object's
``Workflow`` ``fieldUpdates``, written through the Metadata store in one transaction."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote
from xml.etree import ElementTree as ET

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.ui.criteria import OPERATORS, Rows
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, saved, \
    setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, launcher_objects, not_found_page, url

PROCESSES = "/lightning/setup/ApprovalProcesses"
CRITERIA = Rows(5)
KINDS = {"approval": ("finalApprovalActions", "Final Approval Actions"),
         "rejection": ("finalRejectionActions", "Final Rejection Actions")}


def _objects(ctx: RequestContext) -> list[tuple[str, str]]:
    return sorted(((o.name, o.label) for o in launcher_objects(ctx.org)), key=lambda o: o[1].lower())


def processes_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/ApprovalProcesses/home?object=X``: "Manage Approval Processes For", the object's
    processes and "Create New Approval Process" (Use Jump Start Wizard)."""
    store = metadata_store(ctx)
    obj = ctx.request.args.get("object") or ""
    objects = _objects(ctx)
    rows = []
    if obj in dict(objects):
        for full in store.names("ApprovalProcess"):
            if full.split(".", 1)[0] == obj:
                body = store.read("ApprovalProcess", full)
                rows.append({"label": X.text_of(body, "label") if body is not None else full, "full": full,
                             "active": body is not None and X.flag(body, "active")})
    return setup_render(ctx, "setup/approvals_home.html", title="Approval Processes", objects=objects, obj=obj,
                        rows=rows, object_label=dict(objects).get(obj, ""))


def _fields(ctx: RequestContext, obj_name: str) -> list[tuple[str, str]]:
    """The entry criteria's fields: ``Object.Field`` by label; a standard lookup is named without its ``Id``
    (``Case.BusinessHours``), as Salesforce writes it in an approval process's criteria items."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return []

    def criteria_name(f: Any) -> str:
        standard_lookup = f.type == "reference" and f.name.endswith("Id") and not f.name.endswith("__c")
        return f.name[:-2] if standard_lookup else f.name
    return [(f"{obj.name}.{criteria_name(f)}", f"{obj.label}: {f.label}")
            for f in sorted(obj.fields.values(), key=lambda f: f.label.lower()) if f.type != "json"]


def jump_start(ctx: RequestContext) -> Response:
    """The Jump Start Wizard: "Process Name", "Unique Name", "Description", entry criteria rows; Save."""
    form = ctx.request.values
    obj_name = form.get("object") or ""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, "Choose the object in Manage Approval Processes For first.")
    store = metadata_store(ctx)
    fields = _fields(ctx, obj.name)
    errors = FormErrors()
    vals = {k: (ctx.request.form.get(k) or "").strip() for k in ("name", "unique", "description")}
    rows = CRITERIA.read(ctx.request.form)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals["unique"] = vals["unique"] or api_name(vals["name"])
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Process Name")
        if vals["unique"] and not valid_api_name(vals["unique"]):
            errors.add(API_NAME_RULE, "unique", "Unique Name")
        elif store.read("ApprovalProcess", f"{obj.name}.{vals['unique']}") is not None:
            errors.add(f"An approval process named {vals['unique']} already exists.", "unique", "Unique Name")
        used = CRITERIA.check(errors, rows, fields, required=False)
        if not errors:
            full = f"{obj.name}.{vals['unique']}"
            body = X.element("ApprovalProcess", [
                X.leaf("active", False), X.leaf("allowRecall", False),
                X.element("allowedSubmitters", [X.leaf("type", "owner")]),
                X.element("approvalPageFields", [X.leaf("field", "Name"), X.leaf("field", "Owner")]),
                X.element("approvalStep", [X.leaf("allowDelegate", False), X.element("assignedApprover", [
                    X.element("approver", [X.leaf("type", "userHierarchyField")]),
                    X.leaf("whenMultipleApprovers", "FirstResponse")]), X.leaf("label", "Step 1"),
                    X.leaf("name", "Step_1")]),
                *([X.leaf("description", vals["description"])] if vals["description"] else []),
                *([X.element("entryCriteria", [X.element("criteriaItems", [
                    X.leaf("field", r["field"]), X.leaf("operation", r["op"]), X.leaf("value", r["value"])])
                    for r in used])] if used else []),
                X.leaf("finalApprovalRecordLock", True), X.leaf("finalRejectionRecordLock", False),
                X.leaf("label", vals["name"]), X.leaf("recordEditability", "AdminOnly"),
                X.leaf("showApprovalHistory", True)])
            done = saved(errors, lambda: store.write("ApprovalProcess", full, body),
                         f"{PROCESSES}/{quote(full)}/view", f'Approval process "{vals["name"]}" was saved.')
            if done is not None:
                return done
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "name", "label": "Process Name", "value": vals["name"], "required": True},
        {"kind": "text", "name": "unique", "label": "Unique Name", "value": vals["unique"],
         "help": "Filled from the process name when left blank."},
        {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]},
        *CRITERIA.inputs(rows, fields),
        {"kind": "static", "name": "approver", "label": "Select Approver",
         "value": "Automatically assign using the user field selected earlier (Manager)"}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="Jump Start Wizard",
                        heading=f"Jump Start Wizard: {obj.label}", kicker="Approval Processes", errors=errors,
                        action=url(f"{PROCESSES}/jumpstart", {"object": obj.name}),
                        cancel=url(f"{PROCESSES}/home", {"object": obj.name}), carried=[("object", obj.name)],
                        inputs=inputs, buttons=[{"label": "Save", "brand": True}])


def _workflow_updates(store: MetadataStore, obj: str) -> dict[str, ET.Element]:
    workflow = store.read("Workflow", obj)
    return {str(X.text_of(u, "fullName")): u for u in X.children(workflow, "fieldUpdates")} if workflow is not None \
        else {}


def process_view(ctx: RequestContext, full: str) -> Response:
    """A process: its details, entry criteria and final approval / rejection actions with "Add New"."""
    full = unquote(full)
    store = metadata_store(ctx)
    body = store.read("ApprovalProcess", full)
    if body is None:
        return not_found_page(ctx, f"There is no approval process {full}.")
    obj = full.split(".", 1)[0]
    updates = _workflow_updates(store, obj)
    ops = dict(OPERATORS)
    criteria = [f"{X.text_of(c, 'field')} {ops.get(X.text_of(c, 'operation') or '', '')} {X.text_of(c, 'value')}"
                for e in X.children(body, "entryCriteria") for c in X.children(e, "criteriaItems")]
    sections = []
    for kind, (tag, title) in KINDS.items():
        actions = [a for group in X.children(body, tag) for a in X.children(group, "action")]
        rows = []
        for a in actions:
            update = updates.get(str(X.text_of(a, "name")))
            value = X.text_of(update, "formula") or X.text_of(update, "literalValue") if update is not None else ""
            rows.append({"url": None, "cells": [X.text_of(a, "name"), X.text_of(a, "type"),
                                                X.text_of(update, "field") if update is not None else "", value]})
        sections.append({"title": title, "rows": rows, "columns": ["Name", "Type", "Field", "New Value"],
                         # Salesforce's "Add New" menu: the action kinds (our org models field updates)
                         "actions": [{"label": f"Add New {title[:-1]}", "menu": [
                             {"label": "Field Update",
                              "url": url(f"{PROCESSES}/{quote(full)}/actions/new", {"kind": kind})}]}]})
    return setup_render(ctx, "setup/detail.html", title=f"{X.text_of(body, 'label')} | Approval Processes",
                        heading=X.text_of(body, "label") or full, kicker="Approval Process",
                        actions=[{"label": "Approval Processes", "url": url(f"{PROCESSES}/home", {"object": obj})}],
                        details=[("Process Name", X.text_of(body, "label") or ""), ("Unique Name", full.split(".")[1]),
                                 ("Entry Criteria", "; ".join(criteria)),
                                 ("Active", "Yes" if X.flag(body, "active") else "No")], sections=sections)


def action_new(ctx: RequestContext, full: str) -> Response:
    """A new field update as a final approval or rejection action: "Name", "Unique Name", "Field to Update",
    "Specify New Field Value" ("A specific value" with "Value", or "Use a formula" with "Formula"); Save."""
    full = unquote(full)
    store = metadata_store(ctx)
    body = store.read("ApprovalProcess", full)
    kind = ctx.request.values.get("kind") or ""
    if body is None or kind not in KINDS:
        return not_found_page(ctx, f"There is no approval process {full}.")
    obj = ctx.org.schema.get(full.split(".", 1)[0])
    if obj is None:
        return not_found_page(ctx, f"The object of {full} is not in this org.")
    tag, title = KINDS[kind]
    fields = [(f.name, f.label) for f in sorted(obj.fields.values(), key=lambda f: f.label.lower())
              if f.updateable and not f.system]
    form = ctx.request.form
    errors = FormErrors()
    vals = {k: (form.get(k) or "").strip() for k in ("name", "unique", "field", "value", "formula")}
    vals["how"] = form.get("how") or "value"
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals["unique"] = vals["unique"] or api_name(vals["name"])
        if not vals["name"]:
            errors.add("Complete this field.", "name", "Name")
        if vals["unique"] and not valid_api_name(vals["unique"]):
            errors.add(API_NAME_RULE, "unique", "Unique Name")
        elif vals["unique"] in _workflow_updates(store, obj.name):
            errors.add(f"A field update named {vals['unique']} already exists on {obj.label}.", "unique", "Unique Name")
        if vals["field"] not in dict(fields):
            errors.add("Choose the field to update.", "field", "Field to Update")
        if vals["how"] == "formula" and not vals["formula"]:
            errors.add("Enter the formula.", "formula", "Formula")
        if not errors:
            update = X.element("fieldUpdates", [
                X.leaf("fullName", vals["unique"]), X.leaf("field", vals["field"]),
                *([X.leaf("formula", vals["formula"])] if vals["how"] == "formula" else
                  [X.leaf("literalValue", vals["value"])]),
                X.leaf("name", vals["name"]), X.leaf("notifyAssignee", False),
                X.leaf("operation", "Formula" if vals["how"] == "formula" else "Literal"), X.leaf("protected", False)])
            workflow = store.read("Workflow", obj.name)
            kept = [c for c in (workflow if workflow is not None else []) if c.tag != "fieldUpdates" or
                    X.text_of(c, "fullName") != vals["unique"]]
            new_workflow = X.sorted_children(X.element("Workflow", [*kept, update]))
            action = X.element("action", [X.leaf("name", vals["unique"]), X.leaf("type", "FieldUpdate")])
            groups = X.children(body, tag)
            process = X.element("ApprovalProcess", [c for c in body if c.tag != tag])
            process.append(X.element(tag, [*(a for g in groups for a in g), action]))

            def write() -> None:
                with ctx.org.transaction():
                    store.write("Workflow", obj.name, new_workflow)
                    store.write("ApprovalProcess", full, X.sorted_children(process))
            done = saved(errors, write, f"{PROCESSES}/{quote(full)}/view", f'Field update "{vals["name"]}" was added.')
            if done is not None:
                return done
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "name", "label": "Name", "value": vals["name"], "required": True},
        {"kind": "text", "name": "unique", "label": "Unique Name", "value": vals["unique"],
         "help": "Filled from the name when left blank."},
        {"kind": "select", "name": "field", "label": "Field to Update", "value": vals["field"], "required": True,
         "options": [("", "--None--"), *fields]},
        {"kind": "radio", "name": "how", "label": "Specify New Field Value", "value": vals["how"],
         "options": [("value", "A specific value"), ("formula", "Use a formula to set the new value")]},
        {"kind": "text", "name": "value", "label": "Value", "value": vals["value"]},
        {"kind": "textarea", "name": "formula", "label": "Formula", "value": vals["formula"]}]
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Field Update",
                        heading=f"{X.text_of(body, 'label')}: New Field Update ({title[:-1]})",
                        kicker="Approval Process", errors=errors,
                        action=f"{PROCESSES}/{quote(full)}/actions/new", cancel=f"{PROCESSES}/{quote(full)}/view",
                        carried=[("kind", kind)], inputs=inputs, buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the approval process routes."""
    add = app.add_route
    add(f"{PROCESSES}/home", processes_home, ["GET"], auth="ui", endpoint="ui.approvals")
    add(f"{PROCESSES}/jumpstart", jump_start, ["GET", "POST"], auth="ui", endpoint="ui.approval_jumpstart")
    add(f"{PROCESSES}/<full>/view", process_view, ["GET"], auth="ui", endpoint="ui.approval")
    add(f"{PROCESSES}/<full>/actions/new", action_new, ["GET", "POST"], auth="ui", endpoint="ui.approval_action")
