"""Schema-driven forms: which fields a form shows, how a stored value is displayed and edited, how a posted
form becomes field values (lookups by name, dates in several spellings), and how store errors land on fields."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping

from werkzeug.datastructures import MultiDict

from pytest_cua.orgs.layout_labels import LAYOUT_HIDDEN, layout_label
from pytest_cua.orgs.localorg import values
from pytest_cua.orgs.localorg.values import shown_date, shown_datetime
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.store import Org

#: a record id as a form may hold one (15 or 18 characters)
RECORD_ID = re.compile(r"^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$")

# Fields the org derives itself (behaviors.py) or sets through special flows: shown on record pages, not in forms.
DERIVED = {
    "Lead": {"IsConverted", "ConvertedDate", "ConvertedAccountId", "ConvertedContactId", "ConvertedOpportunityId"},
    "Opportunity": {"IsClosed", "IsWon", "ExpectedRevenue"},
    "Case": {"IsClosed", "ClosedDate"},
    "Task": {"IsClosed"},
    "PricebookEntry": {"Name", "ProductCode"},
    "CampaignMember": {"HasResponded"},
    "ChangeRequestRelatedIssue": {"RelatedEntityType"},
    "Entitlement": {"Status"},
    "Knowledge__kav": {"LastPublishedDate", "VersionNumber", "IsLatestVersion"},
}
MONEY_TYPES = ("int", "double", "currency", "percent")
_US_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_US_DATETIME = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?$")


@dataclass
class FormErrors:
    """Errors of a submitted form: per field (name -> message) and for the page as a whole."""

    fields: dict[str, str] = field(default_factory=dict)
    page: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.fields or self.page)

    def add(self, message: str, field_name: str | None = None, label: str | None = None) -> None:
        """Record ``message`` next to ``field_name`` and in the page summary (prefixed by ``label``)."""
        if field_name and field_name not in self.fields:
            self.fields[field_name] = message
        shown = f"{label}: {message}" if label and not message.startswith(label) else message
        if shown not in self.page:
            self.page.append(shown)


def form_fields(obj: ObjectSchema, *, creating: bool) -> list[FieldSchema]:
    """The fields a new (``creating``) or edit form of ``obj`` shows, in schema order, OwnerId first (blank on a
    new form means the current user), each labelled as Salesforce's standard layout labels it
    (``pytest_cua.orgs.layout_labels``: "Account Owner", a task's "Assigned To" and "Due Date")."""
    hidden = DERIVED.get(obj.name, set()) | LAYOUT_HIDDEN.get(obj.name, frozenset())
    out = []
    for f in obj.fields.values():
        if f.name == "OwnerId":
            continue
        if f.system or f.calculated or f.type in ("json", "id") or f.name in hidden:
            continue
        if not (f.createable if creating else f.updateable):
            continue
        out.append(f)
    if "OwnerId" in obj.fields:
        out.insert(0, obj.fields["OwnerId"])
    return [replace(f, label=layout_label(obj.name, obj.label, f.name, f.label)) for f in out]


def display_fields(obj: ObjectSchema) -> list[FieldSchema]:
    """The fields a record page's details section shows: the object's own fields, then owner and system fields
    (no raw JSON, no deletion flag)."""
    shown = [f for f in obj.fields.values() if f.type != "json" and f.name not in ("IsDeleted", "SystemModstamp")]
    return [f for f in shown if not f.system] + [f for f in shown if f.system]


def record_name(org: Org, sobject: str, record: Mapping[str, Any] | None) -> str:
    """What a person calls a record: name field, else a fallback built from its main references, else its id."""
    if not record:
        return ""
    obj = org.object(sobject)
    if obj.name_field and record.get(obj.name_field):
        return str(record[obj.name_field])
    for name in obj.lookup_fields:
        f = obj.field(name)
        if f is not None and record.get(f.name):
            if f.type == "reference":
                return reference_name(org, record[f.name])
            return str(record[f.name])
    return str(record.get("Id") or "")


def reference_name(org: Org, record_id: str | None) -> str:
    """The display name of the record ``record_id`` points at (the id itself when it is unknown)."""
    if not record_id:
        return ""
    found = org.find_record(record_id)
    if found is None:
        return str(record_id)
    return record_name(org, found[0], found[1]) or str(record_id)


def display_value(org: Org, f: FieldSchema, value: Any) -> str:
    """A stored value as text for a page (booleans, numbers, dates and datetimes formatted as Lightning shows
    them in the en-US locale; references by name)."""
    if value is None or value == "":
        return ""
    if f.type == "boolean":
        return "Yes" if value else "No"
    if f.type == "reference":
        return reference_name(org, value)
    if f.type == "currency" and isinstance(value, (int, float)):
        return f"${value:,.2f}"
    if f.type == "percent" and isinstance(value, (int, float)):
        return f"{value:g}%"
    if f.type == "double" and isinstance(value, float) and value.is_integer():
        return str(int(value))
    if f.type == "date" and isinstance(value, str):
        return shown_date(value)
    if f.type == "datetime" and isinstance(value, str):
        return shown_datetime(value)
    if f.type == "multipicklist":
        return "; ".join(str(value).split(";"))
    return str(value)


def input_value(org: Org, f: FieldSchema, value: Any) -> Any:
    """A stored value as the form shows it in its input (references by name, datetimes without seconds)."""
    if value is None:
        return "" if f.type not in ("boolean", "multipicklist") else ([] if f.type == "multipicklist" else False)
    if f.type == "boolean":
        return bool(value) if not isinstance(value, str) else value.lower() in ("true", "on", "1", "yes")
    if f.type == "multipicklist":
        return [v for v in str(value).split(";") if v] if isinstance(value, str) else list(value)
    if f.type == "reference":
        text = str(value)
        return reference_name(org, text) if RECORD_ID.match(text) else text
    if f.type == "datetime":
        return str(value)[:16].replace("T", " ")
    if f.type in ("double", "currency", "percent") and isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def initial_values(org: Org, obj: ObjectSchema, record: Mapping[str, Any] | None,
                   prefill: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Input values of a form: the record's (edit) or the defaults plus ``?Field=value`` pre-fills (new)."""
    out: dict[str, Any] = {}
    f: FieldSchema | None
    for f in obj.fields.values():
        if record is not None:
            out[f.name] = input_value(org, f, record.get(f.name))
        else:
            out[f.name] = input_value(org, f, f.default)
    for key, value in (prefill or {}).items():
        f = obj.field(key)
        if f is not None and (not f.system or f.name == "OwnerId"):
            if f.type == "boolean":
                out[f.name] = str(value).lower() in ("1", "true", "on", "yes")
            elif f.type == "multipicklist":
                out[f.name] = [v for v in str(value).split(";") if v]
            else:
                out[f.name] = input_value(org, f, value)
    return out


def submitted_values(obj: ObjectSchema, fields: list[FieldSchema], form: MultiDict) -> dict[str, Any]:
    """The raw inputs of a posted form, per field (for re-showing the form after an error)."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.type == "boolean":
            out[f.name] = form.get(f.name) is not None
        elif f.type == "multipicklist":
            out[f.name] = form.getlist(f.name)
        else:
            out[f.name] = form.get(f.name, "")
    return out


def normalise_date(text: str) -> str:
    """``12/31/2025`` or ``2025-12-31`` -> ``2025-12-31`` (other spellings are left to the store to reject)."""
    m = _US_DATE.match(text)
    if m:
        month, day, year = (int(g) for g in m.groups())
        return f"{year:04d}-{month:02d}-{day:02d}"
    return text


def normalise_datetime(text: str) -> str:
    """``12/31/2025 9:30 AM``, ``2025-12-31 09:30`` or ISO -> ISO (UTC)."""
    m = _US_DATETIME.match(text)
    if m:
        month, day, year, hour, minute, sec, ampm = m.groups()
        h = int(hour)
        if ampm:
            h = h % 12 + (12 if ampm.lower() == "pm" else 0)
        return datetime(int(year), int(month), int(day), h, int(minute), int(sec or 0)).isoformat()
    return text


def lookup_allows(f: FieldSchema, target: str, rec: Mapping[str, Any]) -> bool:
    """Whether lookup ``f`` may point at ``rec`` of ``target``: owners are users or queues, a group lookup takes
    queues and public groups, never role groups."""
    if target != "Group":
        return True
    return rec.get("Type") in (("Queue",) if f.name == "OwnerId" else ("Queue", "Regular"))


def resolve_lookup(org: Org, f: FieldSchema, text: str) -> str:
    """The id of the record named ``text`` among the field's target objects; an ``OrgError`` naming the field
    when there is none or more than one. An id of a target object is accepted as is."""
    text = text.strip()
    if RECORD_ID.match(text):
        found = org.find_record(text)
        if found is not None and found[0] in f.reference_to:
            return str(found[1]["Id"])
    low = text.lower()
    hits: dict[str, str] = {}
    for target in f.reference_to:
        tobj = org.object(target)
        keys = [k for k in [tobj.name_field, *tobj.lookup_fields] if k]
        for rec in org.records(target):
            if not lookup_allows(f, target, rec):
                continue
            for key in keys:
                value = rec.get(key)
                if isinstance(value, str) and value.strip().lower() == low:
                    hits[rec["Id"]] = target
                    break
    if not hits:
        raise OrgError("UI_LOOKUP", f'No matches found for "{text}".', [f.name])
    if len(hits) > 1:
        raise OrgError("UI_LOOKUP", f'More than one record is called "{text}". Enter a more specific name.', [f.name])
    return next(iter(hits))


def parse_form(org: Org, obj: ObjectSchema, fields: list[FieldSchema], form: MultiDict,
               errors: FormErrors, current: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Field values from a posted form (store-ready, each coerced on its own so that every bad field is
    reported at once); problems go into ``errors``. An input still showing the ``current`` record's value keeps
    that value exactly (datetime seconds, the id of a lookup whose name another record shares)."""
    out: dict[str, Any] = {}
    for f in fields:
        try:
            if f.type == "boolean":
                out[f.name] = form.get(f.name) is not None
                continue
            if f.type == "multipicklist":
                out[f.name] = values.coerce(f, ";".join(form.getlist(f.name))) if form.getlist(f.name) else None
                continue
            raw = (form.get(f.name) or "").strip()
            if raw == "":
                out[f.name] = None
                continue
            kept = (current or {}).get(f.name)
            if kept is not None and raw == str(input_value(org, f, kept)).strip():
                out[f.name] = kept  # untouched: keep the stored value exactly (seconds, ids of same-named records)
                continue
            if f.type == "reference":
                out[f.name] = resolve_lookup(org, f, raw)
                continue
            if f.type == "date":
                raw = normalise_date(raw)
            elif f.type == "datetime":
                raw = normalise_datetime(raw)
            elif f.type in MONEY_TYPES:
                raw = raw.replace(",", "").replace("$", "").replace("%", "").strip()
            if f.type == "picklist" and f.values and raw not in f.values and raw != (current or {}).get(f.name):
                raise OrgError("INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
                               f"{f.label}: bad value for restricted picklist field: {raw}", [f.name])
            out[f.name] = values.coerce(f, raw)
        except OrgError as err:
            errors.add(field_message(obj, err), f.name, f.label)
    return out


def field_message(obj: ObjectSchema, err: OrgError) -> str:
    """A store error as the form shows it."""
    if err.code == "REQUIRED_FIELD_MISSING":
        return "Complete this field."
    if err.code == "INVALID_TYPE_ON_FIELD_IN_RECORD":
        return err.message.split(": ", 1)[-1].replace("value not of required type", "Enter a valid value")
    return err.message


def apply_store_error(obj: ObjectSchema, err: OrgError, errors: FormErrors, shown: set[str]) -> None:
    """Put a store error on the form: next to each named field that the form shows, and in the summary."""
    if err.code == "REQUIRED_FIELD_MISSING":
        labels = []
        for name in err.fields:
            f = obj.field(name)
            labels.append(f.label if f is not None else name)
            if f is not None and f.name in shown:
                errors.fields.setdefault(f.name, "Complete this field.")
        errors.page.append(f"These required fields must be completed: {', '.join(labels)}" if labels else err.message)
        return
    for name in err.fields:
        f = obj.field(name)
        if f is not None and f.name in shown:
            errors.fields.setdefault(f.name, err.message)
    if err.message not in errors.page:
        errors.page.append(err.message)
