"""Lookup fields of record forms as Lightning shows them: a type-ahead search (``one/lookup``) that lists the
records whose name holds what was typed and shows the chosen one as a pill.

- ``lookup_props``: the component's props for one field of a form (the chosen record, if any: the stored value
  of an edited record, or what the form posted);
- ``search``: what ``GET /lightning/lookup/<Object>/<Field>?q=TEXT`` (``routes_records``) answers: the records
  the field may point at whose name (or another lookup field of theirs, such as a user's username) holds
  ``TEXT``, ignoring letter case, names that start with it first, at most ``MAX_RESULTS``; each with its
  object's label and icon and a line of detail, as Lightning's lookup shows them ("Account • San Francisco").

The form posts the chosen record's id; text typed without choosing is posted as typed, and the server takes it
when exactly one record has that name (``forms.resolve_lookup``), a leniency docs/lightning-fidelity.md lists.

As Lightning's, the search's list ends with "New <Object>" (``new_record``: the fields of that object's New dialog
the lookup opens over the form, posted to the object's own New form) for a lookup of one object other than users
and queues; an owner field of a New form starts with the current user as its pill (``default``).
"""

from __future__ import annotations

from typing import Any

from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui.forms import RECORD_ID, form_fields, lookup_allows, record_name, resolve_lookup
from pytest_cua.orgs.localorg.ui.web import CSRF_FIELD, object_icon

MAX_RESULTS = 5
#: the detail line under a record's name, by object: the fields Lightning's lookup shows there
DETAIL_FIELDS: dict[str, tuple[str, ...]] = {
    "Account": ("BillingCity", "BillingState"), "Contact": ("Title", "Email"), "Lead": ("Company",),
    "User": ("Title", "Username"), "Opportunity": ("StageName",), "Case": ("Subject",),
    "Product2": ("ProductCode", "Family"), "Campaign": ("Type", "Status"),
}


def targets(org: Org, f: FieldSchema) -> list[ObjectSchema]:
    """The objects a lookup field may point at (queues for ``Group``)."""
    return [org.object(t) for t in f.reference_to if t in org.schema]


def option(org: Org, obj: ObjectSchema, rec: dict[str, Any]) -> dict[str, Any]:
    """One record as the lookup lists it: id, name, object label and icon, and its detail line."""
    detail = [str(rec[k]) for k in DETAIL_FIELDS.get(obj.name, ()) if rec.get(k)]
    label = "Queue" if obj.name == "Group" and rec.get("Type") == "Queue" else obj.label
    return {"id": rec["Id"], "name": record_name(org, obj.name, rec), "objectLabel": label,
            "iconName": object_icon(obj), "meta": " • ".join([label, *detail])}


def search(org: Org, f: FieldSchema, text: str) -> list[dict[str, Any]]:
    """The records ``f`` may point at whose name (or another lookup field) holds ``text``, ignoring letter
    case: those whose name starts with it first, then by name; at most ``MAX_RESULTS``."""
    low = " ".join(text.split()).lower()
    if not low:
        return []
    hits: list[tuple[int, str, dict[str, Any]]] = []
    for obj in targets(org, f):
        keys = [k for k in [obj.name_field, *obj.lookup_fields] if k]
        for rec in org.records(obj.name):
            if not lookup_allows(f, obj.name, rec):
                continue
            values = [str(rec[k]).lower() for k in keys if isinstance(rec.get(k), str)]
            name = record_name(org, obj.name, rec)
            if not any(low in v for v in [name.lower(), *values]):
                continue
            rank = 0 if name.lower() == low else 1 if name.lower().startswith(low) else 2
            hits.append((rank, name.lower(), option(org, obj, rec)))
    hits.sort(key=lambda h: (h[0], h[1]))
    return [h[2] for h in hits[:MAX_RESULTS]]


def chosen(org: Org, f: FieldSchema, value: Any) -> dict[str, Any] | None:
    """The record a form value names: an id of a record the field may point at."""
    if not isinstance(value, str) or not RECORD_ID.match(value.strip()):
        return None
    found = org.find_record(value.strip())
    if found is None or found[0] not in f.reference_to or not lookup_allows(f, found[0], found[1]):
        return None
    return option(org, org.object(found[0]), found[1])


#: objects a lookup offers no "New <Object>" for (Lightning creates users and queues in Setup only)
NO_NEW = {"User", "Group"}
#: field types the nested New dialog can take (others, if required, are left to the server's message)
NEW_TYPES = {"string", "textarea", "email", "phone", "url", "picklist", "date", "double", "currency", "int",
             "percent"}


def new_record(found: list[ObjectSchema]) -> dict[str, Any] | None:
    """The "New <Object>" action of a lookup whose field may point at the objects ``found`` (``targets``): the
    object's label and icon, its New form's URL (the nested dialog posts there) and the fields the dialog asks
    for (the name and the other required fields of the object's New form, owner left to the current user);
    None for a lookup of several objects or of users or queues."""
    if len(found) != 1 or found[0].name in NO_NEW:
        return None
    target = found[0]
    fields = []
    for g in form_fields(target, creating=True):
        if g.name == "OwnerId" or g.type not in NEW_TYPES:
            continue
        required = g.required and g.type != "boolean"
        if required or g.name == target.name_field or (g.name == "FirstName" and "LastName" in target.fields):
            fields.append({"name": g.name, "label": g.label, "type": g.type, "required": required,
                           "nameField": g.name == target.name_field,
                           "options": list(g.values or []) if g.type == "picklist" else []})
    return {"label": f"New {target.label}", "objectLabel": target.label, "iconName": object_icon(target),
            "url": f"/lightning/o/{target.name}/new", "csrfField": CSRF_FIELD, "fields": fields}


def lookup_props(org: Org, obj: ObjectSchema, f: FieldSchema, value: Any, stored: Any, *, required: bool,
                 error: str | None, default: str | None = None) -> dict[str, Any]:
    """Props of ``one-lookup`` for field ``f`` of a form of ``obj``: ``value`` is what the form shows (a posted
    id or text, a prefilled value, or the stored record's name), ``stored`` the record's stored id (None on
    New), ``default`` the record a New form's field starts with when nothing was posted or prefilled (the
    current user for an owner, as Lightning). The record they name is the pill: a posted id, the stored record
    while the form shows its name, or the one record with that name; other text stays typed in the search
    box."""
    if not value and stored is None and default:
        value = default
    text = "" if value is None else str(value).strip()
    selection = chosen(org, f, text)
    if selection is None and stored:
        kept = chosen(org, f, stored)
        if kept is not None and kept["name"] == text:
            selection = kept
    if selection is None and text:
        try:
            selection = chosen(org, f, resolve_lookup(org, f, text))
        except OrgError:
            selection = None
    found = targets(org, f)
    names = ["Queues" if t.name == "Group" else t.label_plural for t in found]
    return {"name": f.name, "label": f.label, "required": required, "error": error or "",
            "placeholder": f"Search {' or '.join(names)}...",
            "searchUrl": f"/lightning/lookup/{obj.name}/{f.name}",
            "selection": selection, "text": "" if selection else text, "newRecord": new_record(found)}
