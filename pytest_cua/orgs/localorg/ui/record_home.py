"""A record's home as Lightning Experience lays it out, as the props of the ``one-record-home`` component: the
highlights panel (object icon and label, the record's name, the compact layout's fields, Follow, the actions and
the "Show more actions" menu), the path of the objects that have one (Opportunity's stage, Lead's and Case's
status), the Related tab (one card per related list), the Details tab (the page layout's sections: "<Object>
Information", "Address Information" with compound addresses, "Description Information", "System Information")
and, for a record with activities, the Activity tab (New Task, Log a Call, New Event; the timeline)."""

from __future__ import annotations

from datetime import date
from typing import Any

from pytest_cua.orgs.layout_labels import layout_label
from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui import listing
from pytest_cua.orgs.localorg.ui.forms import DERIVED, display_fields, display_value, record_name
from pytest_cua.orgs.localorg.ui.record_page import related_lists, user_actions, user_login
from pytest_cua.orgs.localorg.ui.routes_convert import converted_statuses
from pytest_cua.orgs.localorg.ui.web import CSRF_FIELD, csrf_token, object_icon, url

# The field a record's path follows, and the word Salesforce uses for its steps.
PATHS = {"Opportunity": ("StageName", "Stage"), "Lead": ("Status", "Status"), "Case": ("Status", "Status")}
CLOSED_STAGES = ("Closed Won", "Closed Lost")
# The compact layouts of Salesforce's standard objects (the highlights panel's fields after the name).
COMPACT = {
    "Account": ["Type", "Phone", "Website", "OwnerId", "Site", "Industry"],
    "Contact": ["Title", "AccountId", "Phone", "Email", "OwnerId"],
    "Lead": ["Title", "Company", "Phone", "Email"],
    "Opportunity": ["AccountId", "CloseDate", "Amount", "OwnerId"],
    "Case": ["Priority", "Status", "CaseNumber"],
    "Campaign": ["Status", "Type", "StartDate", "EndDate"],
    "Contract": ["AccountId", "Status", "StartDate", "ContractTerm"],
    "Product2": ["ProductCode", "Family", "IsActive"],
    "Quote": ["OpportunityId", "ExpirationDate", "Status", "GrandTotal"],
    "User": ["Title", "Email", "Phone"],
}
RELATED_ROWS = 6  # a related-list card shows this many rows; the count reads "(6+)" beyond
ADDRESS_PARTS = ("Street", "City", "State", "PostalCode", "Country")
ADDRESS_HIDDEN = ("Latitude", "Longitude", "GeocodeAccuracy")
ADDRESSES = {"Billing": "Billing Address", "Shipping": "Shipping Address", "Mailing": "Mailing Address",
             "Other": "Other Address", "": "Address"}
AUDIT = {"CreatedById": ("Created By", "CreatedDate"), "LastModifiedById": ("Last Modified By", "LastModifiedDate")}


def field_label(obj: ObjectSchema, f: FieldSchema) -> str:
    """A field's label as a record page shows it (``pytest_cua.orgs.layout_labels``): "Account Owner",
    a task's "Assigned To"."""
    return layout_label(obj.name, obj.label, f.name, f.label)


def _item(ctx: RequestContext, obj: ObjectSchema, f: FieldSchema, record: dict[str, Any],
          edit_url: str | None) -> dict[str, Any]:
    value = record.get(f.name)
    link = ""
    if f.type == "reference" and value:
        target = ctx.org.object_of_id(value)
        link = f"/lightning/r/{target.name}/{value}/view" if target else ""
    label = field_label(obj, f)
    editable = (edit_url and f.updateable and not f.system and not f.calculated
                and f.name not in DERIVED.get(obj.name, set()) and f.type not in ("id", "json"))
    return {"key": f.name, "label": label, "text": display_value(ctx.org, f, value), "link": link,
            "editLabel": f"Edit {label}" if editable else "", "editUrl": edit_url if editable else ""}


def _addresses(obj: ObjectSchema) -> dict[str, str]:
    """Address component field -> its compound address's prefix (``BillingCity`` -> ``Billing``)."""
    out: dict[str, str] = {}
    for prefix in ADDRESSES:
        parts = [f"{prefix}{p}" for p in ADDRESS_PARTS if f"{prefix}{p}" in obj.fields]
        if f"{prefix}Street" in obj.fields or f"{prefix}City" in obj.fields:
            for name in parts + [f"{prefix}{h}" for h in ADDRESS_HIDDEN if f"{prefix}{h}" in obj.fields]:
                out[name] = prefix
    return out


def _address_text(record: dict[str, Any], prefix: str) -> str:
    """A compound address as Salesforce prints it: street, then "City, State Postal", then the country."""
    def part(p: str) -> str:
        return str(record.get(f"{prefix}{p}") or "").strip()
    city_line = " ".join(x for x in (", ".join(x for x in (part("City"), part("State")) if x), part("PostalCode"))
                         if x)
    return "\n".join(x for x in (part("Street"), city_line, part("Country")) if x)


def detail_sections(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any],
                    edit_url: str | None) -> list[dict[str, Any]]:
    """The Details tab: the page layout's sections, each a list of fields (label, text, link, inline-edit)."""
    info: list[dict[str, Any]] = []
    description: list[dict[str, Any]] = []
    system: list[dict[str, Any]] = []
    addresses: dict[str, dict[str, Any]] = {}
    address_of = _addresses(obj)
    for f in display_fields(obj):
        if f.name in address_of:
            prefix = address_of[f.name]
            if prefix not in addresses:
                label = ADDRESSES[prefix]
                editable = bool(edit_url) and f.updateable
                addresses[prefix] = {"key": f"{prefix}Address", "label": label, "link": "",
                                     "text": _address_text(record, prefix),
                                     "editLabel": f"Edit {label}" if editable else "",
                                     "editUrl": edit_url if editable else ""}
            continue
        if f.name in AUDIT:
            label, when = AUDIT[f.name]
            item = _item(ctx, obj, f, record, None)
            stamp = display_value(ctx.org, obj.fields[when], record.get(when)) if when in obj.fields else ""
            system.append({**item, "label": label, "stamp": stamp})
            continue
        if f.name == "OwnerId":  # the layout's first field: "Account Owner"
            info.insert(0, _item(ctx, obj, f, record, edit_url))
            continue
        if f.system or f.name in {a for _, a in AUDIT.values()} or f.type == "id":
            continue
        item = _item(ctx, obj, f, record, edit_url)
        (description if f.name == "Description" else info).append(item)
    sections = [{"key": "info", "label": f"{obj.label} Information", "fields": info}]
    if addresses:
        sections.append({"key": "address", "label": "Address Information", "fields": list(addresses.values())})
    if description:
        sections.append({"key": "description", "label": "Description Information", "fields": description})
    if system:
        sections.append({"key": "system", "label": "System Information", "fields": system})
    return sections


def form_sections(obj: ObjectSchema, fields: list[FieldSchema]) -> list[dict[str, Any]]:
    """A record form's sections, as the Details tab's: "<Object> Information", "Address Information" (each
    address's parts), "Description Information"; fields in their order."""
    address_of = _addresses(obj)
    info = [f for f in fields if f.name not in address_of and f.name != "Description"]
    out = [{"label": f"{obj.label} Information", "fields": info}]
    address = [f for f in fields if f.name in address_of]
    if address:
        out.append({"label": "Address Information", "fields": address})
    description = [f for f in fields if f.name == "Description"]
    if description:
        out.append({"label": "Description Information", "fields": description})
    return [section for section in out if section["fields"]]


def highlights(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The compact layout's fields of the highlights panel."""
    names = COMPACT.get(obj.name)
    if names is None:
        address_of = _addresses(obj)
        names = [f.name for f in display_fields(obj) if not f.system and f.name != obj.name_field
                 and f.name not in address_of and f.type not in ("textarea", "id")][:4]
    return [_item(ctx, obj, obj.fields[n], record, None) for n in names if n in obj.fields]


def record_path(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any]) -> dict[str, Any] | None:
    """The path of a record whose object has one: its steps (the picklist's values, the closing ones as one
    "Closed" / "Converted" step), each complete, current or incomplete; None for other objects."""
    if obj.name not in PATHS:
        return None
    field_name, word = PATHS[obj.name]
    f = obj.fields.get(field_name)
    if f is None or not f.values:
        return None
    values = list(f.values)
    current = str(record.get(field_name) or "")
    group: list[str] = []
    group_label = ""
    if obj.name == "Opportunity":
        group, group_label = [v for v in values if v in CLOSED_STAGES], "Closed"
    elif obj.name == "Lead":
        group, group_label = [v for v in converted_statuses(ctx) if v in values], "Converted"
    steps: list[dict[str, Any]] = [{"label": v, "value": v} for v in values if v not in group]
    if group:
        closed = current if current in group else ""
        steps.append({"label": closed or group_label, "value": closed, "group": True,
                      "won": closed == "Closed Won", "lost": closed == "Closed Lost"})
    at = next((i for i, s in enumerate(steps) if s["value"] == current and current), -1)
    for i, step in enumerate(steps):
        step["state"] = "current" if i == at else ("complete" if i < at and not steps[at].get("lost") else
                                                     "incomplete")
    rid = record["Id"]
    return {"word": word, "fieldLabel": f.label, "current": current, "steps": steps,
            "groupValues": group, "groupTitle": f"Close This {obj.label}" if obj.name == "Opportunity" else "",
            "postUrl": f"/lightning/r/{obj.name}/{rid}/path",
            "convertUrl": f"/lightning/r/Lead/{rid}/convert" if obj.name == "Lead" else ""}


def _related_card(rl: dict[str, Any]) -> dict[str, Any]:
    """A related list as a card: "Contacts (3)" ("(6+)" beyond six rows), New and its actions, six rows."""
    total = rl["total"]
    count = f"({total})" if total <= RELATED_ROWS else f"({RELATED_ROWS}+)"
    child = rl["object"]
    return {"key": rl["rel"], "label": rl["label"], "title": f"{rl['label']} {count}", "iconName": rl["icon"],
            "actions": [{"label": rl["new_label"], "url": rl["new_url"]}, *rl["actions"]],
            "viewAllUrl": rl["view_all_url"],
            "columns": [{"label": c.label, "fieldName": c.name, "link": i == 0 or c.field.type == "reference"}
                        for i, c in enumerate(rl["columns"])],
            "rows": [listing.table_row(child, rl["columns"], row) for row in rl["rows"][:RELATED_ROWS]]}


ACTIVITY_ICONS = {"Task": "standard:task", "Call": "standard:log_a_call", "Event": "standard:event"}


def _activity_date(child: str, rec: dict[str, Any]) -> str:
    """An activity's date as the timeline shows it (M/D/YYYY): a task's due date, an event's start."""
    raw = str(rec.get("ActivityDate") or rec.get("StartDateTime") or "")[:10]
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        return ""
    return f"{day.month}/{day.day}/{day.year}"


def activity(ctx: RequestContext, obj: ObjectSchema, rid: str) -> dict[str, Any] | None:
    """The Activity tab of a record that has activities (None for one that has none): the composer's buttons
    (New Task, Log a Call, New Event: the same forms as the related lists' New, the record filled in) and the
    timeline, "Upcoming & Overdue" (open tasks, events to come) then "Past Activities" (newest first)."""
    fields: dict[str, str] = {}
    for rel in obj.child_relationships:
        if rel.child_object in ("Task", "Event") and rel.child_object in ctx.org.schema:
            fields.setdefault(rel.child_object, rel.field)
    if not fields:
        return None
    back = f"/lightning/r/{obj.name}/{rid}/view"
    composer = []
    if "Task" in fields:
        new_task = {fields["Task"]: rid, "retURL": back}
        composer += [{"label": "New Task", "iconName": ACTIVITY_ICONS["Task"],
                      "url": url("/lightning/o/Task/new", new_task)},
                     {"label": "Log a Call", "iconName": ACTIVITY_ICONS["Call"],
                      "url": url("/lightning/o/Task/new", {**new_task, "TaskSubtype": "Call"})}]
    if "Event" in fields:
        composer.append({"label": "New Event", "iconName": ACTIVITY_ICONS["Event"],
                         "url": url("/lightning/o/Event/new", {fields["Event"]: rid, "retURL": back})})
    today = date.today().isoformat()
    upcoming: list[dict[str, Any]] = []
    past: list[dict[str, Any]] = []
    for child, field_name in fields.items():
        for rec in ctx.org.records(child):
            if rec.get(field_name) != rid:
                continue
            kind = "Call" if rec.get("TaskSubtype") == "Call" else child
            when = str(rec.get("ActivityDate") or rec.get("StartDateTime") or "")[:10]
            item = {"key": rec["Id"], "subject": rec.get("Subject") or "(no subject)", "kind": kind,
                    "iconName": ACTIVITY_ICONS[kind], "url": f"/lightning/r/{child}/{rec['Id']}/view",
                    "date": _activity_date(child, rec), "sort": when or str(rec.get("CreatedDate") or "")}
            done = rec.get("Status") == "Completed" or kind == "Call" if child == "Task" else when < today
            (past if done else upcoming).append(item)
    upcoming.sort(key=lambda i: i["sort"])
    past.sort(key=lambda i: i["sort"], reverse=True)
    return {"composer": composer, "upcoming": upcoming, "past": past}


def record_home(ctx: RequestContext, obj: ObjectSchema, record: dict[str, Any]) -> dict[str, Any]:
    """The props of ``one-record-home`` for ``record``."""
    rid = record["Id"]
    base = f"/lightning/r/{obj.name}/{rid}"
    edit_url = f"{base}/edit"
    actions = [{"label": "Edit", "url": edit_url}]
    more: list[dict[str, str]] = [{"label": "Delete", "url": f"{base}/delete"}]
    note = ""
    if obj.name == "Lead":
        if record.get("IsConverted"):
            note = f"This lead was converted on {record.get('ConvertedDate')}."
        else:
            actions.append({"label": "Convert", "url": f"{base}/convert"})
    sections = detail_sections(ctx, obj, record, edit_url)
    if obj.name == "User":
        more += [{"label": a["label"], "postUrl": a["url"]} for a in user_actions(ctx, record)]
        login = user_login(ctx, rid)
        if login is not None:
            sections[0]["fields"].insert(0, {"key": "Frozen", "label": "Frozen", "link": "", "editLabel": "",
                                             "editUrl": "", "text": "Yes" if login.get("IsFrozen") else "No"})
    return {
        "objectName": obj.name, "objectLabel": obj.label, "iconName": object_icon(obj),
        "recordId": rid, "name": record_name(ctx.org, obj.name, record),
        "hierarchyUrl": f"{base}/hierarchy" if obj.name == "Account" else "",
        "highlights": highlights(ctx, obj, record), "actions": actions, "moreActions": more, "note": note,
        "path": record_path(ctx, obj, record),
        "related": [_related_card(rl) for rl in related_lists(ctx, obj, rid)],
        "activity": activity(ctx, obj, rid),
        "sections": sections,
        "csrfField": CSRF_FIELD, "csrf": csrf_token(ctx),
    }
