"""What the org does by itself when records are written: derived fields and companion records.

Kept apart from the generic store so that object-specific logic has one home:
- Opportunity: IsClosed, IsWon, Probability (from the stage when not given), ExpectedRevenue.
- Case: IsClosed and ClosedDate from Status. Task: IsClosed from Status.
- PricebookEntry: Name and ProductCode from the product. CampaignMember: HasResponded from Status.
- ChangeRequestRelatedIssue: RelatedEntityType from the issue id. Entitlement: Status from the dates.
- ValidationRule: the Metadata compound field.
- User: a UserLogin (IsFrozen) record is created with every user.
- UserRole: a Group of type Role and one of type RoleAndSubordinates are created with every role.
- ListViewChartInstance: one record for each chart of an object on each list view of that object (Salesforce's
  view of the charts offered on a list view), kept in step with ListView and ListViewChart; it takes no write
  through the API (a ``derived`` object), and goes with its chart or list view (cascade delete).
- Organization and EntityDefinition (sharing settings per object) records are installed when the org starts.

The store knows none of this: ``install(org)`` subscribes these behaviours to the store's events
(``Org.hooks``) and installs the start records; ``seed.seeded_org`` calls it for every org it makes.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.schema import ObjectSchema
    from pytest_cua.orgs.localorg.store import Org, Record

STAGE_PROBABILITY = {
    "Prospecting": 10, "Qualification": 10, "Needs Analysis": 20, "Value Proposition": 50,
    "Id. Decision Makers": 60, "Perception Analysis": 70, "Proposal/Price Quote": 75, "Proposal": 75,
    "Negotiation/Review": 90, "Closed Won": 100, "Closed Lost": 0,
}
CLOSED_CASE = {"Closed"}
CLOSED_TASK = {"Completed"}


def install(org: "Org") -> None:
    """Subscribe the org's behaviours to the events of ``org`` (once) and install its start records
    (``install_metadata``)."""
    hooks = org.hooks
    if before_write in hooks.before_write:
        return
    hooks.before_write.append(before_write)
    hooks.after_insert.append(after_insert)
    hooks.after_update.append(after_update)
    hooks.before_delete.append(before_delete)
    install_metadata(org)


def install_metadata(org: "Org") -> None:
    """Create the Organization record and one EntityDefinition per object of the schema."""
    if "Organization" in org.schema:
        org._tables["Organization"][org.org_id] = {
            **{f: None for f in org.schema["Organization"].fields}, "Id": org.org_id, "Name": "pytest-cua local org",
            "OrganizationType": "Developer Edition", "IsSandbox": False, "DefaultLocaleSidKey": "en_US",
            "TimeZoneSidKey": "America/Los_Angeles", "LanguageLocaleKey": "en_US", "InstanceName": "LO1",
            "IsDeleted": False,
        }
    if "EntityDefinition" in org.schema:
        for obj in org.schema.objects.values():
            sharing = obj.sharing or {}
            org.insert_trusted("EntityDefinition", {
                "QualifiedApiName": obj.name, "DeveloperName": obj.name.replace("__kav", "").replace("__c", ""),
                "Label": obj.label, "PluralLabel": obj.label_plural, "KeyPrefix": obj.key_prefix,
                "DurableId": obj.name, "InternalSharingModel": sharing.get("internal", "None" if not obj.owner else
                                                                           "ReadWrite"),
                "ExternalSharingModel": sharing.get("external", "None" if not obj.owner else "Private"),
                "IsCustomizable": True,
            })


def before_write(org: "Org", obj: "ObjectSchema", rec: "Record", old: "Record | None") -> None:
    """Derive fields of ``rec`` (new version of a record; ``old`` is None on insert)."""
    name = obj.name
    if name == "Opportunity":
        stage = rec.get("StageName")
        rec["IsClosed"] = stage in ("Closed Won", "Closed Lost")
        rec["IsWon"] = stage == "Closed Won"
        stage_changed = old is None or old.get("StageName") != stage
        if stage_changed and stage in STAGE_PROBABILITY and (old is None and rec.get("Probability") is None or
                                                             old is not None and rec.get("Probability") ==
                                                             old.get("Probability")):
            rec["Probability"] = float(STAGE_PROBABILITY[stage])
        amount, prob = rec.get("Amount"), rec.get("Probability")
        rec["ExpectedRevenue"] = None if amount is None or prob is None else round(amount * prob / 100.0, 2)
    elif name == "Case":
        closed = rec.get("Status") in CLOSED_CASE
        rec["IsClosed"] = closed
        if closed and not rec.get("ClosedDate"):
            from pytest_cua.orgs.localorg.values import now

            rec["ClosedDate"] = now()
        elif not closed:
            rec["ClosedDate"] = None
    elif name == "Task":
        rec["IsClosed"] = rec.get("Status") in CLOSED_TASK
    elif name == "PricebookEntry":
        product = org._tables["Product2"].get(rec.get("Product2Id") or "")
        if product is not None:
            rec["Name"] = product.get("Name")
            rec["ProductCode"] = product.get("ProductCode")
    elif name == "CampaignMember":
        rec["HasResponded"] = rec.get("Status") == "Responded"
    elif name == "ChangeRequestRelatedIssue":
        target = org.object_of_id(rec.get("RelatedIssueId") or "")
        rec["RelatedEntityType"] = target.name if target else None
    elif name == "Entitlement":
        today = _dt.date.today().isoformat()
        start, end = rec.get("StartDate"), rec.get("EndDate")
        if start and start > today:
            rec["Status"] = "Inactive"
        elif end and end < today:
            rec["Status"] = "Expired"
        else:
            rec["Status"] = "Active"
    elif name == "ValidationRule":
        rec["Metadata"] = {
            "active": bool(rec.get("Active")), "description": rec.get("Description"),
            "errorConditionFormula": rec.get("ErrorConditionFormula"), "errorDisplayField": rec.get("ErrorDisplayField"),
            "errorMessage": rec.get("ErrorMessage"), "shouldEvaluateOnClient": None, "urls": None,
        }
    elif name == "Knowledge__kav":
        if rec.get("PublishStatus") == "Online" and (old is None or old.get("PublishStatus") != "Online"):
            from pytest_cua.orgs.localorg.values import now

            rec["LastPublishedDate"] = now()
    elif name == "Product2" and old is not None and rec.get("Name") != old.get("Name"):
        _refresh_entries(org, rec)


def _refresh_entries(org: "Org", product: "Record") -> None:
    table = org._tables["PricebookEntry"]
    for eid, entry in list(table.items()):
        if entry.get("Product2Id") == product["Id"]:
            table[eid] = {**entry, "Name": product.get("Name"), "ProductCode": product.get("ProductCode")}


CHART_INSTANCE = "ListViewChartInstance"


def sync_chart_instances(org: "Org", entity: Any) -> None:
    """Make the ListViewChartInstance records of ``entity`` one per (chart of the entity, list view of it)."""
    if CHART_INSTANCE not in org.schema or not entity:
        return
    table = org._tables[CHART_INSTANCE]
    charts = [c for c in org._tables["ListViewChart"].values() if c.get("SobjectType") == entity]
    views = [v for v in org._tables["ListView"].values() if v.get("SobjectType") == entity]
    want = {(c["Id"], v["Id"]): c for c in charts for v in views}
    have = {(r.get("ListViewChartId"), r.get("ListViewContextId")): rid for rid, r in table.items()
            if r.get("SourceEntity") == entity}
    for key, rid in have.items():
        if key not in want:
            del table[rid]
    for (chart_id, view_id), chart in want.items():
        fields = {"Label": chart.get("MasterLabel"), "DeveloperName": chart.get("DeveloperName"),
                  "ExternalId": chart_id, "ListViewChartId": chart_id, "ListViewContextId": view_id,
                  "SourceEntity": entity, "ChartType": chart.get("ChartType"),
                  "AggregateType": chart.get("AggregateType"), "AggregateField": chart.get("AggregateField"),
                  "GroupingField": chart.get("GroupingField"), "IsDeletable": True, "IsEditable": True}
        existing = have.get((chart_id, view_id))
        if existing is None:
            org.insert_trusted(CHART_INSTANCE, fields, user_id=org.default_user_id)
        elif any(table[existing].get(k) != v for k, v in fields.items()):
            table[existing] = {**table[existing], **fields}


def after_insert(org: "Org", obj: "ObjectSchema", rec: "Record") -> None:
    """Create companion records of a new record."""
    if obj.name in ("ListView", "ListViewChart"):
        sync_chart_instances(org, rec.get("SobjectType"))
    elif obj.name == "User" and "UserLogin" in org.schema:
        org.insert_trusted("UserLogin", {"UserId": rec["Id"], "IsFrozen": False, "IsPasswordLocked": False},
                           user_id=org.default_user_id)
    elif obj.name == "UserRole" and "Group" in org.schema:
        for gtype in ("Role", "RoleAndSubordinates"):
            org.insert_trusted("Group", {"Type": gtype, "RelatedId": rec["Id"], "DeveloperName": rec.get("DeveloperName"),
                                         "DoesIncludeBosses": False})


def after_update(org: "Org", obj: "ObjectSchema", rec: "Record", old: "Record") -> None:
    """Follow-up of an update (keeps role groups' developer names and chart instances in step)."""
    if obj.name in ("ListView", "ListViewChart"):
        for entity in {rec.get("SobjectType"), old.get("SobjectType")}:
            sync_chart_instances(org, entity)
    elif obj.name == "UserRole" and rec.get("DeveloperName") != old.get("DeveloperName"):
        table = org._tables["Group"]
        for gid, group in list(table.items()):
            if group.get("RelatedId") == rec["Id"]:
                table[gid] = {**group, "DeveloperName": rec.get("DeveloperName")}


def before_delete(org: "Org", obj: "ObjectSchema", rec: "Record") -> None:
    """Checks before a delete (none needed yet; master-detail children go with the parent)."""
    return None


def default_fields(obj: "ObjectSchema") -> dict[str, Any]:
    """Field -> default value of an object (for forms of the UI)."""
    return {f.name: f.default for f in obj.fields.values() if f.default is not None}
