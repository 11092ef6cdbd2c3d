"""Record look-ups of the SCUBA templates through the org's API client: by name, users and roles as SCUBA's
scorers find them, group members, objects by label, describes, prices; inside a milestone an API error fails
the milestone (``checked_rows``) instead of crashing the evaluator. Also ``convert_lead`` over SOAP."""

from __future__ import annotations

from typing import Any, Iterable, Mapping
from urllib.parse import quote

from ..common import first, rows, soql_str, split_name
from .text import norm


def checked_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """``rows`` for use inside a milestone: an API error (a field the org lacks, a malformed value from the
    ground truth) fails the milestone with the server's message instead of crashing the evaluator."""
    from simple_salesforce.exceptions import SalesforceError

    try:
        return rows(sf, soql)
    except SalesforceError as exc:
        raise AssertionError(f"query failed: {soql!r}: {exc}") from None


def tooling_rows(sf: Any, soql: str) -> list[dict[str, Any]]:
    """The records of a Tooling API query (one page is plenty for metadata-sized answers)."""
    result = sf.toolingexecute("query?q=" + quote(soql, safe=",*()='"))
    return list(result.get("records") or [])


def record_id(sf: Any, sobject: str, name: str, field_name: str = "Name") -> str | None:
    """The id of the first ``sobject`` whose ``field_name`` is ``name``; None when there is none."""
    rec = first(sf, f"SELECT Id FROM {sobject} WHERE {field_name} = {soql_str(name)} ORDER BY CreatedDate LIMIT 1")
    return rec["Id"] if rec else None


def require_id(sf: Any, sobject: str, name: str, field_name: str = "Name") -> str:
    """Like ``record_id`` but a missing record is an error (for solvers and demonstrations)."""
    rid = record_id(sf, sobject, name, field_name)
    if rid is None:
        raise LookupError(f"no {sobject} with {field_name} = {name!r} in the org")
    return rid


def user_by_name(sf: Any, full_name: str, fields: str = "Id, Name, IsActive") -> dict[str, Any] | None:
    """A user by full name ("First Last"), found as SCUBA's scorers find one (first and last name)."""
    first_name, last_name = split_name(full_name)
    if first_name:
        found = first(sf, f"SELECT {fields} FROM User WHERE FirstName = {soql_str(first_name)} "
                          f"AND LastName = {soql_str(last_name)}")
        if found is not None:
            return found
    return first(sf, f"SELECT {fields} FROM User WHERE Name = {soql_str(full_name)}")


def role_by_name(sf: Any, name: str) -> dict[str, Any] | None:
    """A role (UserRole) by its label."""
    return first(sf, f"SELECT Id, Name, DeveloperName, ParentRoleId FROM UserRole WHERE Name = {soql_str(name)}")


def role_group_id(sf: Any, role_name: str) -> str | None:
    """The id of the Group of type Role that stands for a role in group and queue memberships."""
    role = role_by_name(sf, role_name)
    if role is None:
        return None
    group = first(sf, f"SELECT Id FROM Group WHERE Type = 'Role' AND RelatedId = {soql_str(role['Id'])}")
    return group["Id"] if group else None


def group_members(sf: Any, group_id: str) -> tuple[set[str], set[str], set[str]]:
    """(user names, role names, public group names) of a group's or queue's members."""
    users: set[str] = set()
    roles: set[str] = set()
    groups: set[str] = set()
    ids = [m["UserOrGroupId"] for m in rows(sf, f"SELECT UserOrGroupId FROM GroupMember "
                                                f"WHERE GroupId = {soql_str(group_id)}")]
    user_ids = [i for i in ids if i.startswith("005")]
    group_ids = [i for i in ids if i.startswith("00G")]
    if user_ids:
        users = {u["Name"] for u in rows(sf, f"SELECT Name FROM User WHERE Id IN ({_in(user_ids)})")}
    if group_ids:
        for g in rows(sf, f"SELECT Id, Name, Type, Related.Name FROM Group WHERE Id IN ({_in(group_ids)})"):
            if g.get("Type") == "Role":
                related = g.get("Related") or {}
                if related.get("Name"):
                    roles.add(related["Name"])
            elif g.get("Name"):
                groups.add(g["Name"])
    return users, roles, groups


def _in(values: Iterable[str]) -> str:
    return ", ".join(soql_str(v) for v in values)


def object_api_name(sf: Any, name: str) -> str | None:
    """An object's API name from its API name or its label (singular or plural): "Change Request" ->
    "ChangeRequest"; None when no object matches."""
    wanted = norm(name)
    for entry in sf.describe().get("sobjects", []):
        if wanted in (norm(entry.get("name")), norm(entry.get("label")), norm(entry.get("labelPlural"))):
            return str(entry["name"])
    return None


def describe(env: Any, sobject: str) -> dict[str, Any] | None:
    """The object's describe (``GET .../sobjects/<sobject>/describe`` through ``env.org``), or None when the
    org does not know the object. Asked afresh each time: a task may change labels and fields."""
    sf = getattr(env, "org", None)
    if sf is None:
        return None
    try:
        found = getattr(sf, sobject).describe()
    except Exception:  # noqa: BLE001 - simple-salesforce raises its own error classes for a missing object
        return None
    return found if isinstance(found, dict) else None


def form_label(described: Mapping[str, Any] | None, field_name: str, api_label: str) -> str:
    """The label a record's New and Edit dialogs show for a field of the object ``described`` (its describe):
    Salesforce's standard layout label where it differs from ``api_label`` ("Case Owner" for OwnerId, a task's
    "Due Date"; ``pytest_cua.orgs.layout_labels``)."""
    from pytest_cua.orgs.layout_labels import layout_label

    described = described or {}
    return layout_label(str(described.get("name") or ""), str(described.get("label") or ""), field_name, api_label)


def field_labels(sf: Any, obj: str) -> dict[str, str]:
    """Field API name -> the label forms show (``form_label`` over the object's describe)."""
    described = {"name": obj, "label": obj, **sf.restful(f"sobjects/{obj}/describe")}
    return {str(f["name"]): form_label(described, str(f["name"]), str(f.get("label") or f["name"]))
            for f in described["fields"]}


def standard_price(sf: Any, product_name: str) -> float | None:
    """The product's list price in the standard price book."""
    rec = first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.IsStandard = true AND Product2.Name = "
                    f"{soql_str(product_name)} LIMIT 1") or \
        first(sf, "SELECT UnitPrice FROM PricebookEntry WHERE Pricebook2.Name = 'Standard Price Book' AND "
                  f"Product2.Name = {soql_str(product_name)} LIMIT 1")
    return float(rec["UnitPrice"]) if rec and rec.get("UnitPrice") is not None else None


def convert_lead(sf: Any, lead_id: str, *, account_id: str | None = None, opportunity_name: str | None = None,
                 converted_status: str = "Closed - Converted") -> dict[str, Any]:
    """Convert a lead with the SOAP partner API's ``convertLead`` (Salesforce's REST API has none), through the
    simple-salesforce client's session and token; returns the call's result (accountId, contactId,
    opportunityId). An unsuccessful conversion raises ``RuntimeError`` with the org's message."""
    from pytest_cua.orgs.localorg.soap import convert_lead_request, parse_convert_response

    instance = sf.base_url.split("/services/", 1)[0]
    body = convert_lead_request(sf.session_id, [{"leadId": lead_id, "accountId": account_id,
                                                 "opportunityName": opportunity_name,
                                                 "convertedStatus": converted_status}])
    response = sf.session.post(f"{instance}/services/Soap/u/{sf.sf_version}", data=body.encode("utf-8"),
                               headers={"Content-Type": "text/xml; charset=UTF-8", "SOAPAction": '""'}, timeout=60)
    results = parse_convert_response(response.text)
    if not results or not results[0].get("success"):
        errors = results[0].get("errors") if results else None
        raise RuntimeError(f"convertLead of {lead_id} failed (HTTP {response.status_code}): {errors}")
    return results[0]
