"""Object Manager: the object list with its Create menu, the new custom object page and an object's details with
their edit page (an object's fields are ``routes_fields`` and ``routes_field_wizard``, its validation rules
``routes_validation_rules``; the layout they share is ``object_manager``).

Every save goes through the org's Metadata store (``MetadataStore``), as a deploy would: a custom object made here
is at once an sObject (describe, SOQL, REST), and a Metadata API retrieve returns what the pages wrote (its label,
plural label, description and deployment status).
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.object_manager import OM, object_page, objects_by_label, read_component, with_leaves
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, setup_render, \
    valid_api_name
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, not_found_page, plural, redirect


# ---------------------------------------------------------------------------------------------------- object list

def object_manager(ctx: RequestContext) -> Response:
    """``/lightning/setup/ObjectManager/home``: every object (label, API name, type, a custom object's
    description, deployed: every object of this org is), a Quick Find box and the Create menu."""
    rows = [{"url": f"{OM}/{o.name}/Details/view", "label": o.label, "api": o.name,
             "kind": "Custom Object" if o.custom else "Standard Object", "deployed": True,
             "description": _description(ctx, o.name) if o.custom else ""} for o in objects_by_label(ctx)]
    return setup_render(ctx, "setup/object_manager.html", title="Object Manager", rows=rows)


def _description(ctx: RequestContext, obj_name: str) -> str:
    """A custom object's description (its CustomObject component's)."""
    body = read_component(ctx, "CustomObject", obj_name)
    return (X.text_of(body, "description") or "") if body is not None else ""


def object_details(ctx: RequestContext, obj_name: str) -> Response:
    """An object's Details, as Object Manager lists them: description, API name, custom, singular and plural
    label, deployment status; Edit for a custom object."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    body = read_component(ctx, "CustomObject", obj.name) if obj.custom else None
    description = (X.text_of(body, "description") or "") if body is not None else ""
    deployment = (X.text_of(body, "deploymentStatus") or "Deployed") if body is not None else "Deployed"
    actions = [{"label": "Edit", "url": f"{OM}/{obj.name}/edit"}] if obj.custom else []
    return object_page(ctx, obj, actions=actions, sections=[],
                       details=[("Description", description), ("API Name", obj.name),
                                ("Custom", "Yes" if obj.custom else "No"), ("Singular Label", obj.label),
                                ("Plural Label", plural(obj)), ("Deployment Status", deployment)])


def _object_inputs(vals: dict[str, Any], creating: bool) -> list[dict[str, Any]]:
    inputs: list[dict[str, Any]] = [
        {"kind": "text", "name": "label", "label": "Label", "value": vals["label"], "required": True},
        {"kind": "text", "name": "plural", "label": "Plural Label", "value": vals["plural"], "required": True},
        {"kind": "text", "name": "name", "label": "Object Name", "value": vals["name"], "required": True,
         "disabled": not creating, "help": "The API name is the object name followed by __c."},
        {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}]
    if creating:
        inputs += [
            {"kind": "text", "name": "record_name", "label": "Record Name", "value": vals["record_name"],
             "required": True},
            {"kind": "select", "name": "record_type", "label": "Data Type", "value": vals["record_type"],
             "options": [("Text", "Text"), ("AutoNumber", "Auto Number")]},
            {"kind": "text", "name": "display_format", "label": "Display Format", "value": vals["display_format"],
             "help": "For an auto number, for example A-{0000}."},
            {"kind": "text", "name": "starting_number", "label": "Starting Number", "value": vals["starting_number"]}]
    inputs.append({"kind": "select", "name": "deployment", "label": "Deployment Status", "value": vals["deployment"],
                   "options": [("Deployed", "Deployed"), ("InDevelopment", "In Development")]})
    if creating:
        inputs.append({"kind": "checkbox", "name": "launch_tab", "value": vals["launch_tab"],
                       "label": "Launch New Custom Tab Wizard after saving this custom object"})
    return inputs


def _check_choices(vals: dict[str, Any], inputs: list[dict[str, Any]], errors: FormErrors) -> None:
    """A select's value that is not one of its options (a tampered form) is refused the way Salesforce refuses a
    value outside a restricted picklist."""
    for i in inputs:
        value = vals.get(i["name"])
        if i["kind"] == "select" and not i.get("disabled") and value and value not in dict(i["options"]):
            errors.add(f"{i['label']}: bad value for restricted picklist field: {value}", i["name"], i["label"])


def object_new(ctx: RequestContext) -> Response:
    """``/lightning/setup/ObjectManager/new``: New Custom Object."""
    errors = FormErrors()
    vals: dict[str, Any] = {"label": "", "plural": "", "name": "", "description": "", "record_name": "",
                            "record_type": "Text", "display_format": "", "starting_number": "1",
                            "deployment": "Deployed", "launch_tab": False}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals = {k: (form.get(k) or "").strip() for k in vals if k != "launch_tab"}
        vals["launch_tab"] = form.get("launch_tab") is not None
        if not vals["name"] and vals["label"]:
            vals["name"] = api_name(vals["label"], 40)
        if not vals["record_name"] and vals["label"]:
            vals["record_name"] = f"{vals['label']} Name"
        _check_choices(vals, _object_inputs(vals, creating=True), errors)
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if not vals["plural"]:
            errors.add("Complete this field.", "plural", "Plural Label")
        if vals["name"] and not valid_api_name(vals["name"]):
            errors.add(API_NAME_RULE, "name", "Object Name")
        elif vals["name"] and ctx.org.schema.get(f"{vals['name']}__c") is not None:
            errors.add(f"The Object Name {vals['name']} already exists or has been previously used in this "
                       "organization. Please choose a different name.", "name", "Object Name")
        auto = vals["record_type"] == "AutoNumber"
        if auto and "{0" not in vals["display_format"]:
            errors.add("The display format must contain a substitution variable, for example {0}.",
                       "display_format", "Display Format")
        if auto and not vals["starting_number"].isdigit():
            errors.add("Enter a whole number.", "starting_number", "Starting Number")
        if not errors:
            api = f"{vals['name']}__c"
            name_field = [X.leaf("label", vals["record_name"]), X.leaf("type", "AutoNumber" if auto else "Text")]
            if auto:
                name_field += [X.leaf("displayFormat", vals["display_format"]),
                               X.leaf("startingNumber", vals["starting_number"])]
            children = [X.leaf("label", vals["label"]), X.leaf("pluralLabel", vals["plural"]),
                        X.element("nameField", name_field), X.leaf("deploymentStatus", vals["deployment"]),
                        X.leaf("sharingModel", "ReadWrite")]
            if vals["description"]:
                children.append(X.leaf("description", vals["description"]))
            try:
                metadata_store(ctx).write("CustomObject", api, X.element("CustomObject", children))
            except ComponentError as err:
                errors.add(err.problem)
            else:
                if vals["launch_tab"]:
                    return redirect(f"/lightning/setup/CustomTabs/new?object={api}",
                                    f'Custom object "{vals["label"]}" was created.')
                return redirect(f"{OM}/{api}/Details/view", f'Custom object "{vals["label"]}" was created.')
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Custom Object",
                        heading="New Custom Object", kicker="Object Manager", errors=errors, action=f"{OM}/new",
                        cancel=f"{OM}/home", inputs=_object_inputs(vals, creating=True),
                        buttons=[{"label": "Save", "brand": True}])


def object_edit(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/setup/ObjectManager/{Object}/edit``: a custom object's label, plural label, description and
    deployment status."""
    obj = ctx.org.schema.get(obj_name)
    if obj is None or not obj.custom:
        return not_found_page(ctx, f"There is no custom object called {obj_name}.")
    body = read_component(ctx, "CustomObject", obj.name)
    assert body is not None
    errors = FormErrors()
    vals: dict[str, Any] = {"label": obj.label, "plural": obj.label_plural, "name": obj.name[:-3],
                            "description": X.text_of(body, "description") or "",
                            "deployment": X.text_of(body, "deploymentStatus") or "Deployed"}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        form = ctx.request.form
        vals.update({k: (form.get(k) or "").strip() for k in ("label", "plural", "description", "deployment")})
        _check_choices(vals, _object_inputs(vals, creating=False), errors)
        if not vals["label"]:
            errors.add("Complete this field.", "label", "Label")
        if not vals["plural"]:
            errors.add("Complete this field.", "plural", "Plural Label")
        if not errors:
            changed = {"label": vals["label"], "pluralLabel": vals["plural"], "description": vals["description"],
                       "deploymentStatus": vals["deployment"] or "Deployed"}
            try:
                metadata_store(ctx).write("CustomObject", obj.name, with_leaves(body, changed, drop_children=True))
            except ComponentError as err:
                errors.add(err.problem)
            else:
                return redirect(f"{OM}/{obj.name}/Details/view", f'Custom object "{vals["label"]}" was saved.')
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title=f"Edit {obj.label}",
                        heading=f"Edit {obj.label}", kicker="Custom Object", errors=errors,
                        action=f"{OM}/{obj.name}/edit", cancel=f"{OM}/{obj.name}/Details/view",
                        inputs=_object_inputs(vals, creating=False), buttons=[{"label": "Save", "brand": True}])


def register(app: OrgApp) -> None:
    """Add the Object Manager routes (object list, new custom object, an object's details and edit)."""
    add = app.add_route
    add(f"{OM}/home", object_manager, ["GET"], auth="ui", endpoint="ui.objects")
    add(f"{OM}/new", object_new, ["GET", "POST"], auth="ui", endpoint="ui.object_new")
    om = f"{OM}/<obj_name>"
    add(f"{om}/Details/view", object_details, ["GET"], auth="ui", endpoint="ui.object")
    add(f"{om}/view", object_details, ["GET"], auth="ui", endpoint="ui.object_short")
    add(f"{om}/edit", object_edit, ["GET", "POST"], auth="ui", endpoint="ui.object_edit")
