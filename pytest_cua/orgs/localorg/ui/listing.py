"""Rows and columns of list pages and related lists: default columns per object, list-view filters, search,
sort and pagination over the store's records."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui.forms import display_value

PAGE_SIZE = 25
DEFAULT_COLUMNS = {
    "Account": ["Name", "Type", "Industry", "Phone", "BillingCity", "OwnerId"],
    "Contact": ["Name", "AccountId", "Title", "Email", "Phone", "OwnerId"],
    "Lead": ["Name", "Company", "Status", "Email", "LeadSource", "OwnerId"],
    "Opportunity": ["Name", "AccountId", "StageName", "Amount", "CloseDate", "OwnerId"],
    "Case": ["CaseNumber", "Subject", "Status", "Priority", "AccountId", "OwnerId"],
    "Campaign": ["Name", "Type", "Status", "StartDate", "EndDate", "IsActive"],
    "Product2": ["Name", "ProductCode", "Family", "IsActive"],
    "Pricebook2": ["Name", "Description", "IsActive", "IsStandard"],
    "Quote": ["Name", "QuoteNumber", "OpportunityId", "Status", "ExpirationDate"],
    "Contract": ["ContractNumber", "AccountId", "Status", "StartDate", "ContractTerm"],
    "Order": ["OrderNumber", "AccountId", "Status", "EffectiveDate", "Type"],
    "Incident": ["Subject", "IncidentNumber", "Status", "Priority", "Urgency", "OwnerId"],
    "ChangeRequest": ["Subject", "ChangeRequestNumber", "Status", "Priority", "RiskLevel", "OwnerId"],
    "Knowledge__kav": ["Title", "UrlName", "ArticleNumber", "PublishStatus", "ValidationStatus"],
    "Entitlement": ["Name", "AccountId", "Type", "Status", "StartDate", "EndDate"],
    "Task": ["Subject", "Status", "Priority", "ActivityDate", "WhoId", "WhatId"],
    "Event": ["Subject", "StartDateTime", "EndDateTime", "Location", "WhoId", "WhatId"],
    "User": ["Name", "Username", "Alias", "Email", "ProfileId", "UserRoleId", "IsActive"],
    "OpportunityContactRole": ["ContactId", "OpportunityId", "Role", "IsPrimary"],
    "CampaignMember": ["ContactId", "LeadId", "CampaignId", "Status"],
    "PricebookEntry": ["Name", "Pricebook2Id", "UnitPrice", "IsActive"],
}
OPERATORS = [("equals", "equals"), ("notEqual", "not equal to"), ("lessThan", "less than"),
             ("greaterThan", "greater than"), ("lessOrEqual", "less or equal"), ("greaterOrEqual", "greater or equal"),
             ("contains", "contains"), ("notContain", "does not contain"), ("startsWith", "starts with"),
             ("includes", "includes"), ("excludes", "excludes")]


@dataclass
class Column:
    """A table column: the field and its header."""

    name: str
    label: str
    field: FieldSchema


def name_field_first(obj: ObjectSchema, names: list[str]) -> list[str]:
    """``names`` with the object's name field first (the column that links to the record)."""
    if obj.name_field and obj.name_field in obj.fields:
        return [obj.name_field] + [n for n in names if n != obj.name_field]
    return names


def default_columns(obj: ObjectSchema) -> list[str]:
    """The columns of an object's default list: configured ones, else name field plus a few plain fields."""
    if obj.name in DEFAULT_COLUMNS:
        return [n for n in DEFAULT_COLUMNS[obj.name] if n in obj.fields]
    plain = [f.name for f in obj.fields.values() if not f.system and f.type not in ("textarea", "json")
             and f.name != obj.name_field]
    names = ([obj.name_field] if obj.name_field else []) + plain[:5]
    return names or ["Id"]


def columns_of(obj: ObjectSchema, names: list[str]) -> list[Column]:
    """Column objects for field names (unknown names are skipped)."""
    out = []
    for n in names:
        f = obj.field(n)
        if f is not None:
            out.append(Column(f.name, f.label if f.name != "OwnerId" else "Owner", f))
    return out or [Column("Id", "Record ID", obj.fields["Id"])]


def cells(org: Org, columns: list[Column], rec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The displayed cells of a row (references link to the referenced record)."""
    out = []
    for c in columns:
        value = rec.get(c.name)
        link = None
        if c.field.type == "reference" and value:
            found = org.object_of_id(value)
            if found is not None:
                link = f"/lightning/r/{found.name}/{value}/view"
        out.append({"text": display_value(org, c.field, value), "link": link})
    return out


def table_row(sobject: str, columns: list[Column], row: dict[str, Any]) -> dict[str, Any]:
    """One row of a lightning-datatable (a list view's, a related list's): each column's text and its link's URL
    (``<field>__url``; the first column links to the record), the row's Edit and Delete URLs."""
    rid = row["id"]
    out: dict[str, Any] = {"id": rid, "editUrl": f"/lightning/r/{sobject}/{rid}/edit",
                           "deleteUrl": f"/lightning/r/{sobject}/{rid}/delete"}
    for i, (column, cell) in enumerate(zip(columns, row["cells"])):
        name = column.name
        out[name] = cell.get("text") or ("" if i else rid)
        link = f"/lightning/r/{sobject}/{rid}/view" if i == 0 else cell.get("link")
        if link:
            out[f"{name}__url"] = link
    return out


def parse_json_list(text: Any) -> list[Any]:
    """A JSON list stored as text (ListView Columns / Filters); [] when empty or malformed."""
    if isinstance(text, list):
        return text
    if not text:
        return []
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return []
    return value if isinstance(value, list) else []


def _comparable(f: FieldSchema | None, value: Any) -> Any:
    if f is not None and f.type in ("int", "double", "currency", "percent"):
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if f is not None and f.type == "boolean":
        return str(value).lower() in ("true", "1", "yes") if not isinstance(value, bool) else value
    return "" if value is None else str(value).lower()


def matches_filter(org: Org, obj: ObjectSchema, rec: Mapping[str, Any], flt: Mapping[str, Any]) -> bool:
    """Whether a record passes one list-view filter ``{"field", "operator", "value"}``."""
    f = obj.field(str(flt.get("field") or ""))
    if f is None:
        return True
    op = str(flt.get("operator") or "equals")
    raw = rec.get(f.name)
    if f.type == "reference":
        left: Any = display_value(org, f, raw).lower()
        right: Any = str(flt.get("value") or "").lower()
        if raw and right == str(raw).lower()[:len(right)] and len(right) in (15, 18):
            left = right
    else:
        left, right = _comparable(f, raw), _comparable(f, flt.get("value"))
    if op in ("equals", "notEqual"):
        if isinstance(right, str) and "," in right and f.type not in ("boolean",):
            hit = left in [p.strip() for p in right.split(",")]
        else:
            hit = left == right
        return hit if op == "equals" else not hit
    if op in ("contains", "notContain", "startsWith", "includes", "excludes"):
        ltext, rtext = str(left or "").lower(), str(right or "").lower()
        if op == "startsWith":
            return ltext.startswith(rtext)
        hit = rtext in ltext
        return hit if op in ("contains", "includes") else not hit
    if left is None or right is None or left == "":
        return False
    try:
        return {"lessThan": left < right, "greaterThan": left > right, "lessOrEqual": left <= right,
                "greaterOrEqual": left >= right}.get(op, True)
    except TypeError:
        return False


def sort_key(f: FieldSchema, org: Org, value: Any) -> tuple[int, Any]:
    """A key that sorts values of field ``f`` (blanks last in ascending order)."""
    if value is None or value == "":
        return (1, "")
    if f.type in ("int", "double", "currency", "percent"):
        return (0, float(value))
    if f.type == "boolean":
        return (0, int(bool(value)))
    if f.type == "reference":
        return (0, display_value(org, f, value).lower())
    return (0, str(value).lower())


def select_rows(org: Org, obj: ObjectSchema, columns: list[Column], *, q: str = "",
                filters: list[Any] | None = None, mine_user: str | None = None, sort: str | None = None,
                direction: str = "asc") -> list[dict[str, Any]]:
    """The records of ``obj`` passing the filters and the search ``q``, sorted."""
    records = org.records(obj.name)
    if obj.name == "Lead" and not any(isinstance(f, Mapping) and str(f.get("field")).lower() == "isconverted"
                                      for f in filters or []):
        records = [r for r in records if not r.get("IsConverted")]  # as in Salesforce: converted leads leave lists
    if mine_user:
        records = [r for r in records if r.get("OwnerId") == mine_user]
    for flt in filters or []:
        if isinstance(flt, Mapping):
            records = [r for r in records if matches_filter(org, obj, r, flt)]
    if q:
        low = q.strip().lower()
        searched = [c.field for c in columns]
        if obj.name_field and obj.name_field not in {c.name for c in columns}:
            searched.append(obj.fields[obj.name_field])
        records = [r for r in records
                   if any(low in display_value(org, f, r.get(f.name)).lower() for f in searched)]
    f = obj.field(sort) if sort else None
    if f is not None:
        blanks = [r for r in records if r.get(f.name) in (None, "")]
        filled = [r for r in records if r.get(f.name) not in (None, "")]
        filled.sort(key=lambda r: sort_key(f, org, r.get(f.name)), reverse=direction == "desc")
        records = filled + blanks
    return records
