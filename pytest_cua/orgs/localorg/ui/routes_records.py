"""Generic record pages driven by the schema: home, object lists (search, sort, pagination, list views),
new / edit forms, record pages with details and related lists, delete, and list-view creation."""

from __future__ import annotations

import math
import re
from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui import listing
from pytest_cua.orgs.localorg.ui.forms import (FormErrors, apply_store_error, form_fields,
                                          initial_values, parse_form, record_name, submitted_values)
from pytest_cua.orgs.localorg.ui.lookups import lookup_props, search as lookup_search_results
from pytest_cua.orgs.localorg.ui.record_home import form_sections, record_home
from pytest_cua.orgs.localorg.ui.setup_common import api_name
from pytest_cua.orgs.localorg.ui.web import (csrf_ok, env, forbidden, nav_items, not_found_page, object_icon, plural,
                                        redirect, render, url)


def object_or_none(ctx: RequestContext, name: str) -> ObjectSchema | None:
    """The schema of ``name`` (any letter case) when the UI serves it."""
    return ctx.org.schema.get(name)


def is_required(f: FieldSchema) -> bool:
    """Whether the form marks ``f`` as required."""
    return f.required and f.type != "boolean"


env.globals["required"] = is_required


# ---------------------------------------------------------------------------------------------------- home

def home(ctx: RequestContext) -> Response:
    """The home page: links to the main objects with their record counts."""
    counts = ctx.org.counts()
    return render(ctx, "home.html", title="Home", counts={i["name"]: counts.get(i["name"], 0)
                                                         for i in nav_items(ctx.org)})


def global_search(ctx: RequestContext) -> Response:
    """Search the names of the main objects' records."""
    q = (ctx.request.args.get("q") or "").strip()
    groups = []
    if q:
        low = q.lower()
        for item in nav_items(ctx.org):
            obj = ctx.org.object(item["name"])
            hits = [r for r in ctx.org.records(obj.name) if low in record_name(ctx.org, obj.name, r).lower()]
            if hits:
                groups.append({"label": item["label"], "object": obj.name,
                               "rows": [{"id": r["Id"], "name": record_name(ctx.org, obj.name, r)} for r in hits[:50]]})
    return render(ctx, "search.html", title="Search", heading=f'Search results for "{q}"' if q else "Search",
                  groups=groups, global_q=q)


# ---------------------------------------------------------------------------------------------------- list

def list_views(ctx: RequestContext, obj: ObjectSchema) -> list[dict[str, Any]]:
    """The list views of ``obj`` the user can see (public ones and their own)."""
    if "ListView" not in ctx.org.schema:
        return []
    out = []
    for v in ctx.org.records("ListView"):
        if (v.get("SobjectType") or "").lower() != obj.name.lower():
            continue
        if v.get("Visibility") == "Private" and v.get("CreatedById") not in (ctx.user_id, None) \
                and v.get("OwnerId") not in (ctx.user_id,):
            continue
        out.append(v)
    return sorted(out, key=lambda v: str(v.get("Name") or "").lower())


def object_list(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/o/{Object}/list?q=&sort=&dir=&page=&view=``."""
    obj = object_or_none(ctx, obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    props = list_view_props(ctx, obj)
    return render(ctx, "list.html", title=f"{props['viewName']} | {plural(obj)}", heading=plural(obj),
                  list_view=props)


def list_view_props(ctx: RequestContext, obj: ObjectSchema) -> dict[str, Any]:
    """The props of ``one-list-view`` for the request's list view, search, sort and page of ``obj``."""
    args = ctx.request.args
    views = list_views(ctx, obj)
    view_key = (args.get("view") or args.get("filterName") or "").strip()
    view = next((v for v in views if view_key and view_key.lower() in (str(v.get("DeveloperName")).lower(),
                                                                       str(v.get("Id")).lower(),
                                                                       str(v.get("Id"))[:15].lower())), None)
    all_view = next((v for v in views if str(v.get("Name")).lower() == f"all {plural(obj)}".lower()), None)
    if view is None and all_view is not None:
        view = all_view  # an org's own "All <Plural>" view is the default one
    names = listing.default_columns(obj)
    filters: list[Any] = []
    mine = None
    if view is not None:
        names = [n for n in listing.parse_json_list(view.get("Columns")) if isinstance(n, str)] or names
        filters = listing.parse_json_list(view.get("Filters"))
        if view.get("FilterScope") == "Mine":
            mine = ctx.user_id
    columns = listing.columns_of(obj, listing.name_field_first(obj, names))
    sort = args.get("sort") or ""
    sort_field = obj.field(sort) if sort else None
    if sort_field is None:
        sort_field = obj.fields.get(obj.name_field or "") or columns[0].field
    direction = "desc" if (args.get("dir") or "").lower() == "desc" else "asc"
    q = (args.get("q") or "").strip()
    records = listing.select_rows(ctx.org, obj, columns, q=q, filters=filters, mine_user=mine,
                                  sort=sort_field.name, direction=direction)
    total = len(records)
    pages = max(1, math.ceil(total / listing.PAGE_SIZE))
    try:
        page = min(max(1, int(args.get("page") or 1)), pages)
    except ValueError:
        page = 1
    chunk = records[(page - 1) * listing.PAGE_SIZE: page * listing.PAGE_SIZE]
    rows = [{"id": r["Id"], "cells": listing.cells(ctx.org, columns, r)} for r in chunk]
    sort_label = next((c.label for c in columns if c.name == sort_field.name), sort_field.label)
    view_name = str(view["Name"]) if view is not None else f"All {plural(obj)}"
    base = f"/lightning/o/{obj.name}/list"
    keep = {"view": view.get("DeveloperName") if view is not None else ""}
    status = (f"{total} item{'' if total == 1 else 's'} \u2022 Sorted by {sort_label}"
              + (f' \u2022 Filtered by search "{q}"' if q else "") + (f" \u2022 {view_name}" if view else ""))
    paging = {"q": q, "sort": sort_field.name, "dir": direction, **keep}
    choices = ([{"label": f"All {plural(obj)}", "url": base, "current": view is None}] if all_view is None else [])
    choices += [{"label": str(v["Name"]), "url": url(base, {"view": v["DeveloperName"]}),
                 "current": view is not None and v["Id"] == view["Id"]} for v in views]
    controls = [{"label": "New", "url": f"/lightning/o/{obj.name}/listview/new"}]
    if view is not None:
        controls.append({"label": "Select Fields to Display",
                         "url": f"/lightning/o/{obj.name}/listview/{view['DeveloperName']}/fields"})
    return {
        "objectName": obj.name, "plural": plural(obj), "iconName": object_icon(obj), "viewName": view_name,
        "views": choices, "actions": [{"label": "New", "url": url(f"/lightning/o/{obj.name}/new")}],
        "controls": controls, "status": status, "query": q, "listUrl": url(base, keep),
        "chartsUrl": url(f"/lightning/o/{obj.name}/listview/charts", keep),
        "columns": [{"label": c.label, "fieldName": c.name, "link": i == 0 or c.field.type == "reference"}
                    for i, c in enumerate(columns)],
        "rows": [listing.table_row(obj.name, columns, row) for row in rows], "sortedBy": sort_field.name, "sortedDirection": direction,
        "page": page, "pages": pages,
        "previousUrl": url(base, {**paging, "page": page - 1}) if page > 1 else "",
        "nextUrl": url(base, {**paging, "page": page + 1}) if page < pages else ""}


# ---------------------------------------------------------------------------------------------------- forms

def _form_page(ctx: RequestContext, obj: ObjectSchema, *, record: dict[str, Any] | None,
               form_values: dict[str, Any], errors: FormErrors, status: int = 200) -> Response:
    """New and Edit as Lightning shows them: a modal dialog ("New Account", "Edit Acme") with the layout's
    sections over the page it was opened from (the object's list, or the record or parent record)."""
    creating = record is None
    fields = form_fields(obj, creating=creating)
    if record is None:
        heading = f"New {obj.label}"
        query = ctx.request.query_string.decode("latin-1")
        action = f"/lightning/o/{obj.name}/new" + (f"?{query}" if query else "")
    else:
        heading = f"Edit {record_name(ctx.org, obj.name, record)}"
        action = f"/lightning/r/{obj.name}/{record['Id']}/edit"
    ret = _safe_ret(ctx.request.values.get("retURL"))
    cancel = ret or (f"/lightning/r/{obj.name}/{record['Id']}/view" if record else f"/lightning/o/{obj.name}/list")
    # an owner of a New form starts with the current user as its pill, as Lightning's New dialog (when the form
    # is opened: one posted again with its errors shows what was posted)
    lookups = {f.name: lookup_props(ctx.org, obj, f, form_values.get(f.name), (record or {}).get(f.name),
                                    required=is_required(f), error=errors.fields.get(f.name),
                                    default=ctx.user_id if creating and f.name == "OwnerId"
                                    and ctx.request.method == "GET" else None)
               for f in fields if f.type == "reference"}
    return render(ctx, "form.html", status=status, title=heading, heading=heading, obj=obj, lookups=lookups,
                  sections=form_sections(obj, fields), form_values=form_values, errors=errors, creating=creating,
                  action=action, cancel=cancel, ret=ret,
                  behind=None if obj.name in SETUP_OBJECTS else _behind(ctx, obj, record, ret))


# Objects Salesforce edits in Setup, on a page of its own rather than in a dialog over a record page.
SETUP_OBJECTS = {"User"}


def _behind(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any] | None, ret: str) -> dict[str, Any]:
    """The page under a New / Edit dialog, as (component, props): the record being edited, the record whose
    related list opened it (``retURL``), else the object's list."""
    m = re.match(r"^/lightning/r/(\w+)/(\w+)/view$", ret)
    target = (record and (obj, record)) or (m and _record(ctx, m.group(1), m.group(2)))
    if target and target[0] is not None and target[1] is not None:
        return {"tag": "one-record-home", "props": record_home(ctx, target[0], target[1])}
    return {"tag": "one-list-view", "props": list_view_props(ctx, obj)}


def _safe_ret(target: str | None) -> str:
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target \
            and re.match(r"^/[\w/?=&.%-]*$", target):
        return target
    return ""


def save_form(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any] | None) -> Response:
    """Validate and save a posted new/edit form; the form again with its errors (nothing written) on failure."""
    creating = record is None
    fields = form_fields(obj, creating=creating)
    form = ctx.request.form
    errors = FormErrors()
    data = parse_form(ctx.org, obj, fields, form, errors, record if record is not None else _prefilled_ids(ctx, obj))
    for f in fields:
        if is_required(f) and data.get(f.name) is None and f.name not in errors.fields:
            errors.fields[f.name] = "Complete this field."
    missing = [f.label for f in fields if errors.fields.get(f.name) == "Complete this field."]
    if missing:
        errors.page.insert(0, f"These required fields must be completed: {', '.join(missing)}")
    if data.get("OwnerId") is None:
        data.pop("OwnerId", None)
    if creating:
        data = {k: v for k, v in data.items() if v is not None}
    if not errors:
        try:
            if creating:
                rid = ctx.org.create(obj.name, data, user_id=ctx.user_id)
                _link_related_issue(ctx, obj, rid)
            else:
                rid = record["Id"]  # type: ignore[index]
                ctx.org.update(obj.name, rid, data, user_id=ctx.user_id)
        except OrgError as err:
            apply_store_error(obj, err, errors, {f.name for f in fields})
        else:
            saved = ctx.org.get(obj.name, rid) or {}
            name = record_name(ctx.org, obj.name, saved)
            verb = "created" if creating else "saved"
            message = f'{obj.label} "{name}" was {verb}.'
            if creating and form.get("action") == "save_new":
                keep = {k: v for k, v in ctx.request.args.items()}
                return redirect(url(f"/lightning/o/{obj.name}/new", keep), message)
            return redirect(f"/lightning/r/{obj.name}/{rid}/view", message)
    shown = submitted_values(obj, fields, form)
    base = initial_values(ctx.org, obj, record)
    base.update(shown)
    return _form_page(ctx, obj, record=record, form_values=base, errors=errors, status=400)


def _prefilled_ids(ctx: RequestContext, obj: ObjectSchema) -> dict[str, Any]:
    """Lookup values a new form was opened with as ids (``?AccountId=001...``): kept on save while the input
    still shows that record's name, even when another record has the same name."""
    out: dict[str, Any] = {}
    for key, value in ctx.request.args.items():
        f = obj.field(key)
        if f is not None and f.type == "reference":
            found = ctx.org.find_record(value)
            if found is not None and found[0] in f.reference_to:
                out[f.name] = found[1]["Id"]
    return out


def new_record(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/o/{Object}/new`` (GET: the form, ``?Field=value`` pre-fills; POST: save)."""
    obj = object_or_none(ctx, obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        return save_form(ctx, obj, None)
    prefill = {k: v for k, v in ctx.request.args.items() if k not in ("retURL",)}
    return _form_page(ctx, obj, record=None, form_values=initial_values(ctx.org, obj, None, prefill),
                      errors=FormErrors())


def _record(ctx: RequestContext, obj_name: str, rid: str) -> tuple[ObjectSchema | None, dict[str, Any] | None]:
    obj = object_or_none(ctx, obj_name)
    if obj is None:
        return None, None
    return obj, ctx.org.get(obj.name, rid)


def edit_record(ctx: RequestContext, obj_name: str, rid: str) -> Response:
    """``/lightning/r/{Object}/{Id}/edit``."""
    obj, record = _record(ctx, obj_name, rid)
    if obj is None or record is None:
        return not_found_page(ctx, "The record does not exist or was deleted.")
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        return save_form(ctx, obj, record)
    return _form_page(ctx, obj, record=record, form_values=initial_values(ctx.org, obj, record), errors=FormErrors())


def delete_record(ctx: RequestContext, obj_name: str, rid: str) -> Response:
    """``/lightning/r/{Object}/{Id}/delete``: a confirmation page, then the delete."""
    obj, record = _record(ctx, obj_name, rid)
    if obj is None or record is None:
        return not_found_page(ctx, "The record does not exist or was deleted.")
    name = record_name(ctx.org, obj.name, record)
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        try:
            ctx.org.delete(obj.name, record["Id"])
        except OrgError as err:
            return render(ctx, "message.html", status=400, title="Delete failed", heading="Delete failed",
                          message=err.message, back=f"/lightning/r/{obj.name}/{record['Id']}/view")
        return redirect(f"/lightning/o/{obj.name}/list", f'{obj.label} "{name}" was deleted.')
    return render(ctx, "delete.html", title=f"Delete {name}", obj=obj, rid=record["Id"], name=name)


# ---------------------------------------------------------------------------------------------------- record page

def _link_related_issue(ctx: RequestContext, obj: ObjectSchema, rid: str) -> None:
    """A change request created from an incident's "Add New Change Request" is linked to the incident."""
    issue = ctx.request.args.get("RelatedIssueId") or ""
    found = ctx.org.find_record(issue) if obj.name == "ChangeRequest" and issue else None
    if found is not None and found[0] in ("Incident", "Case"):
        ctx.org.create("ChangeRequestRelatedIssue", {"ChangeRequestId": rid, "RelatedIssueId": found[1]["Id"]},
                       user_id=ctx.user_id)


def view_record(ctx: RequestContext, obj_name: str, rid: str) -> Response:
    """``/lightning/r/{Object}/{Id}/view``: the record's Lightning record page (``one-record-home``)."""
    obj, record = _record(ctx, obj_name, rid)
    if obj is not None and record is None:
        found = ctx.org.find_record(rid)
        if found is not None:
            return redirect(f"/lightning/r/{found[0]}/{found[1]['Id']}/view")
    if obj is None or record is None:
        return not_found_page(ctx, "The record does not exist or was deleted.")
    return render(ctx, "record.html", title=record_name(ctx.org, obj.name, record),
                  record_home=record_home(ctx, obj, record))


def view_by_id(ctx: RequestContext, rid: str) -> Response:
    """``/lightning/r/{Id}/view`` and ``/{Id}``: the record page of any id."""
    found = ctx.org.find_record(rid)
    if found is None:
        return not_found_page(ctx, "The record does not exist or was deleted.")
    return redirect(f"/lightning/r/{found[0]}/{found[1]['Id']}/view")


# ---------------------------------------------------------------------------------------------------- list views

FILTER_ROWS = 5


def new_list_view(ctx: RequestContext, obj_name: str) -> Response:
    """``/lightning/o/{Object}/listview/new``: name, API name, up to five filters, visibility -> ListView."""
    obj = object_or_none(ctx, obj_name)
    if obj is None:
        return not_found_page(ctx, f"There is no object called {obj_name}.")
    fields = sorted((f for f in obj.fields.values() if f.type != "json" and f.name != "IsDeleted"),
                    key=lambda f: f.label.lower())
    form = ctx.request.form
    errors = FormErrors()
    values: dict[str, Any] = {"name": "", "api": "", "visibility": "Private", "scope": "Everything",
                              "filters": [{"field": "", "operator": "equals", "value": ""} for _ in range(FILTER_ROWS)]}
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        values["name"] = (form.get("name") or "").strip()
        values["api"] = (form.get("api") or "").strip() or api_name(values["name"])
        values["visibility"] = form.get("visibility") if form.get("visibility") in ("Private", "Public", "Shared") \
            else "Private"
        values["share"] = form.getlist("share")
        values["scope"] = "Mine" if form.get("scope") == "Mine" else "Everything"
        filters = []
        for i in range(FILTER_ROWS):
            row = {"field": form.get(f"filter{i + 1}_field") or "", "operator": form.get(f"filter{i + 1}_operator")
                   or "equals", "value": (form.get(f"filter{i + 1}_value") or "").strip()}
            values["filters"][i] = row
            if row["field"]:
                f = obj.field(row["field"])
                if f is None:
                    errors.add(f"Filter {i + 1}: unknown field {row['field']}.", f"filter{i + 1}_field")
                    continue
                if row["operator"] not in dict(listing.OPERATORS):
                    errors.add(f"Filter {i + 1}: unknown operator.", f"filter{i + 1}_operator")
                    continue
                filters.append({"field": f.name, "operator": row["operator"], "value": row["value"]})
        shared = share_targets(ctx, values.get("share") or []) if values["visibility"] == "Shared" else {}
        if values["visibility"] == "Shared" and not shared:
            errors.add("Choose the groups or roles to share the list view with.", "share", "Share With")
        if not values["name"]:
            errors.add("Complete this field.", "name")
        if values["api"] and not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", values["api"]):
            errors.add("The list API name can contain only letters, digits and underscores, and must begin with a "
                       "letter.", "api")
        if values["api"] and any(str(v.get("DeveloperName")).lower() == values["api"].lower()
                                 for v in list_views(ctx, obj)):
            errors.add(f"A list view with the API name {values['api']} already exists.", "api")
        if not errors:
            import json

            columns = listing.default_columns(obj)
            try:
                ctx.org.create("ListView", {"Name": values["name"], "DeveloperName": values["api"],
                                            "SobjectType": obj.name, "FilterScope": values["scope"],
                                            "Columns": json.dumps(columns), "Filters": json.dumps(filters),
                                            "Visibility": values["visibility"],
                                            "SharedWith": json.dumps(shared) if shared else None},
                               user_id=ctx.user_id)
            except OrgError as err:
                field_map = {"Name": "name", "DeveloperName": "api"}
                errors.add(err.message, next((field_map[f] for f in err.fields if f in field_map), None))
            else:
                return redirect(url(f"/lightning/o/{obj.name}/list", {"view": values["api"]}),
                                f'List view "{values["name"]}" was created.')
    return render(ctx, "listview_new.html", status=400 if errors else 200, title=f"New List View: {plural(obj)}",
                  obj=obj, plural_label=plural(obj), fields=fields, operators=listing.OPERATORS, values=values,
                  errors=errors, rows=FILTER_ROWS, share_options=share_options(ctx), chosen=set(values.get("share") or []))


def share_options(ctx: RequestContext) -> list[dict[str, Any]]:
    """What a list view can be shared with: public groups and roles, by name (value ``group:X`` / ``role:X``,
    their developer names)."""
    out = [{"value": f"group:{g['DeveloperName']}", "label": g.get("Name") or g["DeveloperName"], "kind": "Public Groups"}
           for g in ctx.org.records("Group") if g.get("Type") == "Regular" and g.get("DeveloperName")]
    out += [{"value": f"role:{r['DeveloperName']}", "label": r.get("Name") or r["DeveloperName"], "kind": "Roles"}
            for r in ctx.org.records("UserRole") if r.get("DeveloperName")]
    return sorted(out, key=lambda o: (o["kind"], str(o["label"]).lower()))


def share_targets(ctx: RequestContext, chosen: list[str]) -> dict[str, list[str]]:
    """The ListView.SharedWith of the chosen options (unknown ones are dropped)."""
    known = {o["value"] for o in share_options(ctx)}
    out: dict[str, list[str]] = {}
    for value in chosen:
        if value in known:
            kind, _, name = value.partition(":")
            out.setdefault(kind, []).append(name)
    return out


def lookup_search(ctx: RequestContext, obj_name: str, field_name: str) -> Response:
    """``GET /lightning/lookup/<Object>/<Field>?q=TEXT``: a lookup field's type-ahead results as JSON."""
    obj = object_or_none(ctx, obj_name)
    f = obj.field(field_name) if obj is not None else None
    if obj is None or f is None or f.type != "reference":
        return json_response({"error": f"no lookup field {obj_name}.{field_name}"}, status=404)
    return json_response({"results": lookup_search_results(ctx.org, f, (ctx.request.args.get("q") or "")[:200])})


def register(app: OrgApp) -> None:
    """Add the record routes (the record pages' other actions are ``routes_record_actions``)."""
    app.add_route("/", home, ["GET"], auth="ui", endpoint="ui.root")
    app.add_route("/lightning/page/home", home, ["GET"], auth="ui", endpoint="ui.home")
    app.add_route("/lightning/search", global_search, ["GET"], auth="ui", endpoint="ui.search")
    app.add_route("/lightning/o/<obj_name>/list", object_list, ["GET"], auth="ui", endpoint="ui.list")
    app.add_route("/lightning/o/<obj_name>/home", object_list, ["GET"], auth="ui", endpoint="ui.list_home")
    app.add_route("/lightning/o/<obj_name>/new", new_record, ["GET", "POST"], auth="ui", endpoint="ui.new")
    app.add_route("/lightning/o/<obj_name>/listview/new", new_list_view, ["GET", "POST"], auth="ui",
                  endpoint="ui.listview_new")
    app.add_route("/lightning/r/<obj_name>/<rid>/view", view_record, ["GET"], auth="ui", endpoint="ui.view")
    app.add_route("/lightning/r/<obj_name>/<rid>/edit", edit_record, ["GET", "POST"], auth="ui", endpoint="ui.edit")
    app.add_route("/lightning/r/<obj_name>/<rid>/delete", delete_record, ["GET", "POST"], auth="ui",
                  endpoint="ui.delete")
    app.add_route("/lightning/r/<rid>/view", view_by_id, ["GET"], auth="ui", endpoint="ui.view_by_id")
    app.add_route("/lightning/lookup/<obj_name>/<field_name>", lookup_search, ["GET"], auth="ui",
                  endpoint="ui.lookup")
