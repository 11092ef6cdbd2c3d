"""The metadata store: one view of the org for the Metadata API (and for anything else that reads or writes
metadata, such as Setup pages).

Types the org holds as records are read from and written to those records (Queue: Group of type Queue with its
QueueSobject and GroupMember rows; Group; Role: UserRole; ListView; ValidationRule; PermissionSet; Profile;
PermissionSetGroup); CustomObject and CustomField are the schema (``objects.py``); StandardValueSet is the
picklist values of the standard fields that share it. Everything a record does not hold (an object's
``description``, a profile's ``tabVisibilities``, ...) is kept as an overlay document next to it, and the
other types (GlobalValueSet, CustomTab, CustomApplication, Settings, MatchingRules, ...) are documents only.
Documents live in ``Org.metadata`` ((type, fullName) -> ``Document``), so snapshots, restore and residue cover
them like records.

::

    store = MetadataStore(org)
    store.list("GlobalValueSet")                    # [FileProps(...)]
    body = store.read("Queue", "Billing_Desk")        # an ElementTree element (<Queue>...) or None
    store.write("GlobalValueSet", "Regions", body)    # "created" / "changed"; raises ComponentError
    store.delete("GlobalValueSet", "Regions")
"""

from __future__ import annotations

import json
from urllib.parse import unquote
from dataclasses import dataclass
from typing import Any, Callable
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg import values
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.metadata import columns
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.types import TYPES, TypeInfo, file_name, root_tag, type_info
from pytest_cua.orgs.localorg.store import Org

# key prefixes of metadata ids (Salesforce's where it has one)
ID_PREFIX = {
    "CustomObject": "01I", "CustomField": "00N", "CustomTab": "01r", "CustomApplication": "02u",
    "GlobalValueSet": "0Nt", "BusinessProcess": "019", "RecordType": "012", "WebLink": "00b",
    "CompactLayout": "0AH", "FieldSet": "0IX", "MatchingRule": "0JD", "MatchingRules": "0JD",
    "DuplicateRule": "0Bm", "ApprovalProcess": "04a", "Workflow": "01Q", "WorkflowRule": "01Q",
    "WorkflowFieldUpdate": "04Y", "WorkflowAlert": "01W", "WorkflowTask": "01V", "AssignmentRule": "01Q",
    "EntitlementProcess": "552", "FlexiPage": "0M0", "Layout": "00h", "Flow": "300", "Report": "00O",
    "Dashboard": "01Z", "EmailTemplate": "00X", "CustomLabel": "101", "CustomPermission": "0CP",
    "QuickAction": "09D", "Territory2Model": "0MA", "Territory2Type": "0M5", "MutingPermissionSet": "0QT",
    "ReportType": "070", "PathAssistant": "04I", "Bot": "0Xx", "GenAiPromptTemplate": "0hf",
    "GenAiPlugin": "179", "SharingCriteriaRule": "02c", "SharingOwnerRule": "02c", "MilestoneType": "557",
}
NO_ID = frozenset({"Settings", "StandardValueSet", "CustomLabels", "AssignmentRules", "AutoResponseRules",
                   "EscalationRules", "SharingRules"})


class ComponentError(Exception):
    """A component the store cannot take: ``problem`` is Salesforce's deploy message."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Document:
    """A stored component (or the overlay of a record-backed one): never mutated, replaced on write."""

    body: str  # canonical XML, root tag = the file's root element
    id: str
    created_date: str
    created_by: str | None
    modified_date: str
    modified_by: str | None


@dataclass(frozen=True)
class FileProps:
    """What ``listMetadata`` and a retrieve report about one component (FileProperties)."""

    type: str
    full_name: str
    file_name: str
    id: str = ""
    created_date: str = ""
    created_by: str | None = None
    modified_date: str = ""
    modified_by: str | None = None


def component_file(type_name: str, full_name: str) -> str:
    """The package path that holds the component (``objects/Account.object`` for ``Account.Rating__c``)."""
    info = TYPES[type_name]
    if info.parent is not None:
        return file_name(TYPES[info.parent], full_name.split(".", 1)[0])
    if info.in_folder and "/" not in full_name:
        return f"{info.directory}/{full_name}-meta.xml"
    return file_name(info, full_name)


class Handler:
    """How one type is stored. The base stores documents in ``Org.metadata``."""

    def __init__(self, type_name: str) -> None:
        self.type = type_name

    # documents (also the overlay of record-backed handlers)
    def doc(self, store: "MetadataStore", full_name: str) -> Document | None:
        return store.org.metadata.get((self.type, full_name))

    def put_doc(self, store: "MetadataStore", full_name: str, body: ET.Element | None) -> None:
        key = (self.type, full_name)
        old = store.org.metadata.get(key)
        if body is None or (len(body) == 0 and old is None):
            store.org.metadata.pop(key, None)
            return
        text = X.canonical(body)
        if old is not None and old.body == text:
            return
        stamp, user = values.now(), store.user_id
        prefix = ID_PREFIX.get(self.type)
        rid = old.id if old is not None else (store.org.ids.new(prefix) if prefix else "")
        store.org.metadata[key] = Document(text, rid, old.created_date if old else stamp,
                                           old.created_by if old else user, stamp, user)

    def names(self, store: "MetadataStore") -> list[str]:
        return sorted(k[1] for k in store.org.metadata if k[0] == self.type)

    def read(self, store: "MetadataStore", full_name: str) -> ET.Element | None:
        doc = self.doc(store, full_name)
        return X.from_canonical(doc.body) if doc is not None else None

    def write(self, store: "MetadataStore", full_name: str, body: ET.Element) -> bool:
        created = self.doc(store, full_name) is None
        self.put_doc(store, full_name, _without(body, "fullName"))
        return created

    def delete(self, store: "MetadataStore", full_name: str) -> None:
        if store.org.metadata.pop((self.type, full_name), None) is None:
            raise ComponentError(f"No {self.type} named: {full_name} found")

    def props(self, store: "MetadataStore", full_name: str) -> FileProps:
        doc = self.doc(store, full_name)
        fname = component_file(self.type, full_name)
        if doc is None:
            return FileProps(self.type, full_name, fname)
        return FileProps(self.type, full_name, fname, doc.id, doc.created_date, doc.created_by, doc.modified_date,
                         doc.modified_by)


def _without(body: ET.Element, *tags: str) -> ET.Element:
    out = ET.Element(body.tag)
    out.extend(c for c in body if c.tag not in tags)
    return out


def _only(body: ET.Element, tags: set[str], keep: bool) -> ET.Element:
    out = ET.Element(body.tag)
    out.extend(c for c in body if (c.tag in tags) == keep)
    return out


class RecordHandler(Handler):
    """A type held as records: ``mapped`` names the elements the records hold; the rest is an overlay document."""

    mapped: frozenset[str] = frozenset()

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        raise NotImplementedError

    def record_names(self, store: "MetadataStore") -> list[str]:
        raise NotImplementedError

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        raise NotImplementedError

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        """Create or update the records from ``body``; return the main record's id."""
        raise NotImplementedError

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        raise NotImplementedError

    def names(self, store: "MetadataStore") -> list[str]:
        return sorted(self.record_names(store))

    def read(self, store: "MetadataStore", full_name: str) -> ET.Element | None:
        rec = self.record(store, full_name)
        if rec is None:
            return None
        body = ET.Element(root_tag(self.type, full_name))
        body.extend(self.elements(store, full_name, rec))
        overlay = super().read(store, full_name)
        if overlay is not None:
            body.extend(c for c in overlay if c.tag not in self.mapped)
        return X.sorted_children(body)

    def write(self, store: "MetadataStore", full_name: str, body: ET.Element) -> bool:
        rec = self.record(store, full_name)
        try:
            self.apply(store, full_name, rec, body)
        except OrgError as err:
            raise ComponentError(f"{err.code}: {err.message}") from None
        self.put_doc(store, full_name, _only(_without(body, "fullName"), set(self.mapped), keep=False))
        return rec is None

    def delete(self, store: "MetadataStore", full_name: str) -> None:
        rec = self.record(store, full_name)
        if rec is None:
            raise ComponentError(f"No {self.type} named: {full_name} found")
        try:
            self.remove(store, full_name, rec)
        except OrgError as err:
            raise ComponentError(f"{err.code}: {err.message}") from None
        store.org.metadata.pop((self.type, full_name), None)

    def props(self, store: "MetadataStore", full_name: str) -> FileProps:
        rec = self.record(store, full_name) or {}
        return FileProps(self.type, full_name, component_file(self.type, full_name), rec.get("Id") or "",
                         rec.get("CreatedDate") or "", rec.get("CreatedById"), rec.get("LastModifiedDate") or "",
                         rec.get("LastModifiedById"))


class ParentHandler(Handler):
    """A document type whose file holds child components (MatchingRules and its MatchingRule elements,
    Workflow, AssignmentRules, ...): each child is its own document (``Parent.child``), the parent document
    keeps the rest; reading puts them together again."""

    def _children(self, store: "MetadataStore", full_name: str) -> list[tuple[str, str, str]]:
        out = []
        for tag, child_type in TYPES[self.type].children.items():
            for name in store.handlers[child_type].names(store):
                if name.split(".", 1)[0] == full_name:
                    out.append((tag, child_type, name))
        return out

    def names(self, store: "MetadataStore") -> list[str]:
        own = set(super().names(store))
        for child_type in TYPES[self.type].children.values():
            own.update(n.split(".", 1)[0] for n in store.handlers[child_type].names(store))
        return sorted(own)

    def read_parts(self, store: "MetadataStore", full_name: str,
                   only: set[tuple[str, str]] | None) -> ET.Element | None:
        own = super().read(store, full_name) if only is None else None
        kids = [(tag, t, n) for tag, t, n in self._children(store, full_name) if only is None or (t, n) in only]
        if own is None and not kids:
            return None
        out = own if own is not None else ET.Element(root_tag(self.type, full_name))
        for tag, child_type, name in kids:
            body = store.handlers[child_type].read(store, name)
            if body is None:
                continue
            body.tag = tag
            body.insert(0, X.leaf("fullName", name.split(".", 1)[1]))
            out.append(X.sorted_children(body))
        return X.sorted_children(out)

    def read(self, store: "MetadataStore", full_name: str) -> ET.Element | None:
        return self.read_parts(store, full_name, None)

    def write(self, store: "MetadataStore", full_name: str, body: ET.Element) -> bool:
        created = self.read(store, full_name) is None
        tags = TYPES[self.type].children
        self.put_doc(store, full_name, _without(body, "fullName", *tags))
        for tag, child_type in tags.items():
            for el in X.children(body, tag):
                name = X.text_of(el, "fullName")
                if not name:
                    raise ComponentError(f"{full_name}: a {child_type} without fullName")
                store.handlers[child_type].write(store, f"{full_name}.{name}", _renamed(el, child_type))
        return created

    def delete(self, store: "MetadataStore", full_name: str) -> None:
        kids = self._children(store, full_name)
        if self.doc(store, full_name) is None and not kids:
            raise ComponentError(f"No {self.type} named: {full_name} found")
        store.org.metadata.pop((self.type, full_name), None)
        for _, child_type, name in kids:
            store.handlers[child_type].delete(store, name)


class AssignmentRulesHandler(ParentHandler):
    """AssignmentRules: the objects that take assignment rules (Case, Lead) always have the file, empty until a
    rule is made, as a retrieve from Salesforce gives it."""

    ALWAYS = ("Case", "Lead")

    def names(self, store: "MetadataStore") -> list[str]:
        return sorted(set(super().names(store)) | set(self.ALWAYS))

    def read_parts(self, store: "MetadataStore", full_name: str,
                   only: set[tuple[str, str]] | None) -> ET.Element | None:
        found = super().read_parts(store, full_name, only)
        if found is None and only is None and full_name in self.ALWAYS:
            return ET.Element(root_tag(self.type, full_name))
        return found


def _renamed(el: ET.Element, tag: str) -> ET.Element:
    out = ET.Element(tag)
    out.extend(c for c in el if c.tag != "fullName")
    return out


def _one(org: Org, sobject: str, **equals: Any) -> dict[str, Any] | None:
    if sobject not in org.schema:
        return None
    hits = org.find(sobject, **equals)
    return hits[0] if hits else None


def _by_dev_name(org: Org, sobject: str, dev_name: str, **equals: Any) -> dict[str, Any] | None:
    if sobject not in org.schema:
        return None
    low = dev_name.lower()
    for rec in org.find(sobject, **equals):
        if (rec.get("DeveloperName") or "").lower() == low:
            return rec
    return None


def _text(body: ET.Element, tag: str) -> str | None:
    value = X.text_of(body, tag)
    return value if value not in (None, "") else None


class QueueHandler(RecordHandler):
    """Queue <-> Group (Type Queue) + QueueSobject + GroupMember."""

    mapped = frozenset({"name", "email", "doesSendEmailToMembers", "queueSobject", "queueMembers"})

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        return _by_dev_name(store.org, "Group", full_name, Type="Queue")

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [r["DeveloperName"] for r in store.org.find("Group", Type="Queue") if r.get("DeveloperName")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        org = store.org
        out = [X.leaf("doesSendEmailToMembers", bool(rec.get("DoesSendEmailToMembers"))), X.leaf("name", rec["Name"])]
        if rec.get("Email"):
            out.append(X.leaf("email", rec["Email"]))
        members = _members_element(org, rec["Id"], "queueMembers")
        if members is not None:
            out.append(members)
        for qs in sorted(org.find("QueueSobject", QueueId=rec["Id"]), key=lambda r: r.get("SobjectType") or ""):
            out.append(X.element("queueSobject", [X.leaf("sobjectType", qs["SobjectType"])]))
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields = {"Name": _text(body, "name") or full_name, "Email": _text(body, "email"),
                  "DoesSendEmailToMembers": X.flag(body, "doesSendEmailToMembers")}
        if rec is None:
            gid = org.insert_trusted("Group", {**fields, "DeveloperName": full_name, "Type": "Queue"},
                                     user_id=store.user_id)
        else:
            gid = rec["Id"]
            org.update_trusted("Group", gid, fields, user_id=store.user_id)
        wanted = [X.text_of(q, "sobjectType") or "" for q in X.children(body, "queueSobject")]
        have = {r["SobjectType"]: r["Id"] for r in org.find("QueueSobject", QueueId=gid)}
        for name in wanted:
            if name not in have:
                org.create("QueueSobject", {"QueueId": gid, "SobjectType": name}, user_id=store.user_id)
        for name, rid in have.items():
            if name not in wanted:
                org.delete("QueueSobject", rid)
        members = X.children(body, "queueMembers")
        _set_members(org, gid, members[0] if members else None, store.user_id)
        return gid

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("Group", rec["Id"])


def _members_element(org: Org, group_id: str, tag: str) -> ET.Element | None:
    users, groups, roles = [], [], []
    for gm in org.find("GroupMember", GroupId=group_id):
        found = org.find_record(gm.get("UserOrGroupId") or "")
        if found is None:
            continue
        name, target = found
        if name == "User":
            users.append(target.get("Username") or target["Id"])
        elif target.get("Type") == "Role":
            role = org.get("UserRole", target.get("RelatedId") or "") if target.get("RelatedId") else None
            roles.append((role or target).get("DeveloperName") or target["Id"])
        else:
            groups.append(target.get("DeveloperName") or target["Id"])
    if not (users or groups or roles):
        return None
    parts = []
    if groups:
        parts.append(X.element("publicGroups", [X.leaf("publicGroup", g) for g in sorted(groups)]))
    if roles:
        parts.append(X.element("roles", [X.leaf("role", r) for r in sorted(roles)]))
    if users:
        parts.append(X.element("users", [X.leaf("user", u) for u in sorted(users)]))
    return X.element(tag, parts)


def _set_members(org: Org, group_id: str, members: ET.Element | None, user_id: str | None) -> None:
    wanted: list[str] = []
    if members is not None:
        for users in X.children(members, "users"):
            for u in X.children(users, "user"):
                name = (u.text or "").strip()
                hits = org.find("User", Username=name)
                if not hits:
                    raise ComponentError(f"In field: user - no User named {name} found")
                wanted.append(hits[0]["Id"])
        for groups in X.children(members, "publicGroups"):
            for g in X.children(groups, "publicGroup"):
                grp = _by_dev_name(org, "Group", (g.text or "").strip(), Type="Regular")
                if grp is None:
                    raise ComponentError(f"In field: publicGroup - no Group named {g.text} found")
                wanted.append(grp["Id"])
        for roles in X.children(members, "roles"):
            for r in X.children(roles, "role"):
                role = _by_dev_name(org, "UserRole", (r.text or "").strip())
                grp = _one(org, "Group", Type="Role", RelatedId=role["Id"]) if role else None
                if grp is None:
                    raise ComponentError(f"In field: role - no Role named {r.text} found")
                wanted.append(grp["Id"])
    have = {m["UserOrGroupId"]: m["Id"] for m in org.find("GroupMember", GroupId=group_id)}
    for target in wanted:
        if target not in have:
            org.create("GroupMember", {"GroupId": group_id, "UserOrGroupId": target}, user_id=user_id)
    for target, mid in have.items():
        if target not in wanted:
            org.delete("GroupMember", mid)


class GroupHandler(RecordHandler):
    """Group (public group) <-> Group of type Regular."""

    mapped = frozenset({"name", "doesIncludeBosses"})

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        return _by_dev_name(store.org, "Group", full_name, Type="Regular")

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [r["DeveloperName"] for r in store.org.find("Group", Type="Regular") if r.get("DeveloperName")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        return [X.leaf("doesIncludeBosses", bool(rec.get("DoesIncludeBosses"))), X.leaf("name", rec["Name"])]

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        fields = {"Name": _text(body, "name") or full_name, "DoesIncludeBosses": X.flag(body, "doesIncludeBosses")}
        if rec is None:
            return store.org.insert_trusted("Group", {**fields, "DeveloperName": full_name, "Type": "Regular"},
                                            user_id=store.user_id)
        store.org.update_trusted("Group", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("Group", rec["Id"])


class RoleHandler(RecordHandler):
    """Role <-> UserRole."""

    mapped = frozenset({"name", "parentRole", "description", "caseAccessLevel", "contactAccessLevel",
                        "opportunityAccessLevel"})
    _ACCESS = {"caseAccessLevel": "CaseAccessForAccountOwner", "contactAccessLevel": "ContactAccessForAccountOwner",
               "opportunityAccessLevel": "OpportunityAccessForAccountOwner"}

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        return _by_dev_name(store.org, "UserRole", full_name)

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [r["DeveloperName"] for r in store.org.records("UserRole") if r.get("DeveloperName")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("name", rec["Name"])]
        if rec.get("ParentRoleId"):
            parent = store.org.get("UserRole", rec["ParentRoleId"])
            if parent is not None:
                out.append(X.leaf("parentRole", parent.get("DeveloperName")))
        if rec.get("RollupDescription"):
            out.append(X.leaf("description", rec["RollupDescription"]))
        for tag, fname in self._ACCESS.items():
            if rec.get(fname):
                out.append(X.leaf(tag, rec[fname]))
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {"Name": _text(body, "name") or full_name,
                                  "RollupDescription": _text(body, "description")}
        parent = _text(body, "parentRole")
        if parent:
            prec = _by_dev_name(org, "UserRole", parent)
            if prec is None:
                raise ComponentError(f"In field: parentRole - no Role named {parent} found")
            fields["ParentRoleId"] = prec["Id"]
        else:
            fields["ParentRoleId"] = None
        for tag, fname in self._ACCESS.items():
            if _text(body, tag) and org.schema["UserRole"].field(fname) is not None:
                fields[fname] = _text(body, tag)
        if rec is None:
            return org.insert_trusted("UserRole", {**fields, "DeveloperName": full_name}, user_id=store.user_id)
        org.update_trusted("UserRole", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("UserRole", rec["Id"])


class ListViewHandler(RecordHandler):
    """ListView (``Object.DeveloperName``) <-> ListView records (Columns, Filters and SharedWith as JSON).

    Columns and filter fields are column names in the metadata (``OPPORTUNITY.STAGE_NAME``) and field API names
    in the records (``columns``). A list view only its owner sees (Visibility Private) is not a component, as in
    Salesforce, whose Metadata API retrieves the views visible to all users or shared with groups and roles."""

    mapped = frozenset({"label", "filterScope", "columns", "filters", "booleanFilter", "sharedTo"})

    def _split(self, full_name: str) -> tuple[str, str]:
        obj, _, name = full_name.partition(".")
        if not name:
            raise ComponentError(f"ListView fullName must be Object.Name, got {full_name!r}")
        return obj, name

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        obj, name = full_name.partition(".")[0], full_name.partition(".")[2]
        for rec in store.org.records("ListView"):
            if (rec.get("SobjectType") or "").lower() == obj.lower() and \
                    (rec.get("DeveloperName") or "").lower() == name.lower():
                return rec if rec.get("Visibility") != "Private" else None
        return None

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [f"{r['SobjectType']}.{r['DeveloperName']}" for r in store.org.records("ListView")
                if r.get("SobjectType") and r.get("DeveloperName") and r.get("Visibility") != "Private"]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        obj = store.org.schema.get(str(rec.get("SobjectType") or ""))

        def column(value: Any) -> str:
            return columns.column_name(obj, str(value)) if obj is not None else str(value)

        out = [X.leaf("fullName", full_name.split(".", 1)[1]), X.leaf("label", rec["Name"]),
               X.leaf("filterScope", rec.get("FilterScope") or "Everything")]
        out += [X.leaf("columns", column(c)) for c in _json_list(rec.get("Columns"))]
        for f in _json_list(rec.get("Filters")):
            if isinstance(f, dict):
                parts = [X.leaf("field", column(f.get("field") or "")),
                         X.leaf("operation", f.get("operator") or "equals")]
                if f.get("value") not in (None, ""):
                    parts.append(X.leaf("value", f.get("value")))
                out.append(X.element("filters", parts))
        if rec.get("BooleanFilter"):
            out.append(X.leaf("booleanFilter", rec["BooleanFilter"]))
        shared = _json_dict(rec.get("SharedWith"))
        if rec.get("Visibility") == "Public" and not shared:
            shared = {"allInternalUsers": [""]}
        if shared:
            parts = []
            for tag in sorted(shared):
                for value in shared[tag] if isinstance(shared[tag], list) else [shared[tag]]:
                    parts.append(X.element(tag, text=str(value)) if value != "" else X.element(tag))
            out.append(X.element("sharedTo", parts))
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        obj_name, name = self._split(full_name)
        obj = store.org.schema.get(obj_name)
        if obj is None:
            raise ComponentError(f"Could not resolve list view object: {obj_name}")
        def field(column: str) -> str:
            return columns.field_name(obj, column) or column

        filters = [{"field": field(X.text_of(f, "field") or ""), "operator": X.text_of(f, "operation") or "equals",
                    "value": X.text_of(f, "value") or ""} for f in X.children(body, "filters")]
        shared: dict[str, list[str]] = {}
        for st in X.children(body, "sharedTo"):
            for c in st:
                shared.setdefault(c.tag, []).append((c.text or "").strip())
        # a deployed view without sharedTo is visible to all users (a private view is not a component)
        visibility = "Shared" if shared and "allInternalUsers" not in shared else "Public"
        fields = {"Name": _text(body, "label") or name, "FilterScope": _text(body, "filterScope") or "Everything",
                  "Columns": json.dumps([field((c.text or "").strip()) for c in X.children(body, "columns")]),
                  "Filters": json.dumps(filters), "BooleanFilter": _text(body, "booleanFilter"),
                  "SharedWith": json.dumps(shared) if shared else None, "Visibility": visibility}
        if rec is None:
            return store.org.insert_trusted("ListView", {**fields, "DeveloperName": name, "SobjectType": obj.name},
                                            user_id=store.user_id)
        store.org.update_trusted("ListView", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("ListView", rec["Id"])


def _json_list(text: Any) -> list[Any]:
    if isinstance(text, list):
        return text
    try:
        value = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    return value if isinstance(value, list) else []


def _json_dict(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


class ValidationRuleHandler(RecordHandler):
    """ValidationRule (``Object.Rule``) <-> ValidationRule records."""

    mapped = frozenset({"active", "description", "errorConditionFormula", "errorDisplayField", "errorMessage"})

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        obj, _, name = full_name.partition(".")
        for rec in store.org.records("ValidationRule"):
            if (rec.get("EntityDefinitionId") or "").lower() == obj.lower() and \
                    (rec.get("ValidationName") or "").lower() == name.lower():
                return rec
        return None

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [f"{r['EntityDefinitionId']}.{r['ValidationName']}" for r in store.org.records("ValidationRule")
                if r.get("EntityDefinitionId") and r.get("ValidationName")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("fullName", full_name.split(".", 1)[1]), X.leaf("active", bool(rec.get("Active"))),
               X.leaf("errorConditionFormula", rec.get("ErrorConditionFormula") or ""),
               X.leaf("errorMessage", rec.get("ErrorMessage") or "")]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        if rec.get("ErrorDisplayField"):
            out.append(X.leaf("errorDisplayField", rec["ErrorDisplayField"]))
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        obj_name, _, name = full_name.partition(".")
        obj = store.org.schema.get(obj_name)
        if obj is None or not name:
            raise ComponentError(f"Could not resolve the object of validation rule {full_name}")
        fields = {"Active": X.flag(body, "active"), "Description": _text(body, "description"),
                  "ErrorConditionFormula": _text(body, "errorConditionFormula"),
                  "ErrorMessage": _text(body, "errorMessage"), "ErrorDisplayField": _text(body, "errorDisplayField")}
        if not fields["ErrorConditionFormula"] or not fields["ErrorMessage"]:
            raise ComponentError("Required fields are missing: errorConditionFormula, errorMessage")
        if rec is None:
            return store.org.insert_trusted("ValidationRule", {**fields, "ValidationName": name,
                                                               "EntityDefinitionId": obj.name}, user_id=store.user_id)
        store.org.update_trusted("ValidationRule", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("ValidationRule", rec["Id"])


def _perm_fields(org: Org, sobject: str) -> dict[str, str]:
    """userPermissions name -> field (``ApiEnabled`` -> ``PermissionsApiEnabled``)."""
    obj = org.schema.get(sobject)
    if obj is None:
        return {}
    return {f.name[len("Permissions"):]: f.name for f in obj.fields.values()
            if f.name.startswith("Permissions") and f.type == "boolean"}


def _user_permissions(org: Org, sobject: str, rec: dict[str, Any]) -> list[ET.Element]:
    return [X.element("userPermissions", [X.leaf("enabled", True), X.leaf("name", name)])
            for name, fname in sorted(_perm_fields(org, sobject).items()) if rec.get(fname)]


def _permission_values(org: Org, sobject: str, body: ET.Element, *, merge: bool = False) -> dict[str, bool]:
    """Permission fields from the userPermissions of ``body``; unlisted ones are off (``merge``: untouched)."""
    perms = _perm_fields(org, sobject)
    out = {} if merge else {fname: False for fname in perms.values()}
    for up in X.children(body, "userPermissions"):
        name = X.text_of(up, "name") or ""
        if name in perms:
            out[perms[name]] = X.flag(up, "enabled")
    return out


class PermissionSetHandler(RecordHandler):
    """PermissionSet <-> PermissionSet records that a profile does not own (label, description,
    userPermissions the record has columns for); object, field and tab settings are the overlay."""

    mapped = frozenset({"label", "description", "hasActivationRequired"})

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        for rec in store.org.find("PermissionSet", IsOwnedByProfile=False):
            if (rec.get("Name") or "").lower() == full_name.lower() and rec.get("Type") in (None, "Regular"):
                return rec
        return None

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [r["Name"] for r in store.org.find("PermissionSet", IsOwnedByProfile=False)
                if r.get("Name") and r.get("Type") in (None, "Regular")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("label", rec.get("Label") or rec["Name"]),
               X.leaf("hasActivationRequired", bool(rec.get("HasActivationRequired")))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        overlay = Handler.read(self, store, full_name)
        listed = {X.text_of(u, "name") for u in X.children(overlay, "userPermissions")} if overlay is not None else set()
        out += [u for u in _user_permissions(store.org, "PermissionSet", rec) if X.text_of(u, "name") not in listed]
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        fields: dict[str, Any] = {"Label": _text(body, "label") or full_name, "Description": _text(body, "description"),
                                  "HasActivationRequired": X.flag(body, "hasActivationRequired"),
                                  **_permission_values(store.org, "PermissionSet", body)}
        if rec is None:
            return store.org.insert_trusted("PermissionSet", {**fields, "Name": full_name, "IsOwnedByProfile": False,
                                                              "Type": "Regular"}, user_id=store.user_id)
        store.org.update_trusted("PermissionSet", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("PermissionSet", rec["Id"])


#: Profile names of the Metadata API for the standard profiles whose file name is not their name ("Read Only"
#: keeps its name: profiles/Read Only.profile)
PROFILE_NAMES = {"System Administrator": "Admin", "Standard User": "Standard",
                 "Marketing User": "MarketingProfile", "Contract Manager": "ContractManager",
                 "Solution Manager": "SolutionManager", "Standard Platform User": "StandardAul"}


def profile_full_name(name: str) -> str:
    """A profile's fullName as the Metadata API gives it: the standard profiles' own names (``Admin``), others
    their name with every character but letters, digits, spaces, ``-`` and ``_`` percent-encoded, as Salesforce
    encodes them (``Custom: Sales Profile`` -> ``Custom%3A Sales Profile``, ``Force.com - Free User`` ->
    ``Force%2Ecom - Free User``)."""
    if name in PROFILE_NAMES:
        return PROFILE_NAMES[name]
    return "".join(c if c.isalnum() or c in " -_" else "".join(f"%{b:02X}" for b in c.encode("utf-8"))
                   for c in name)


class ProfileHandler(RecordHandler):
    """Profile <-> Profile records (description, userLicense, userPermissions they have columns for); the
    visibilities and object/field permissions are the overlay."""

    mapped = frozenset({"description", "userLicense", "custom"})

    def _full(self, name: str) -> str:
        return profile_full_name(name)

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        decoded = unquote(full_name).lower()
        for rec in store.org.records("Profile"):
            name = rec.get("Name") or ""
            if self._full(name).lower() == full_name.lower() or name.lower() == decoded:
                return rec
        return None

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [self._full(r["Name"]) for r in store.org.records("Profile") if r.get("Name")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("custom", rec.get("Name") not in PROFILE_NAMES and rec.get("Name") not in (
            "Chatter Free User", "Einstein Agent User"))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        lic = store.org.get("UserLicense", rec["UserLicenseId"]) if rec.get("UserLicenseId") else None
        if lic is not None:
            out.append(X.leaf("userLicense", lic.get("Name")))
        overlay = Handler.read(self, store, full_name)
        listed = {X.text_of(u, "name") for u in X.children(overlay, "userPermissions")} if overlay is not None else set()
        out += [u for u in _user_permissions(store.org, "Profile", rec) if X.text_of(u, "name") not in listed]
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {**_permission_values(org, "Profile", body, merge=True)}
        if _text(body, "description") is not None:
            fields["Description"] = _text(body, "description")
        lic_name = _text(body, "userLicense")
        if lic_name:
            lic = _one(org, "UserLicense", Name=lic_name)
            if lic is None:
                raise ComponentError(f"In field: userLicense - no UserLicense named {lic_name} found")
            fields["UserLicenseId"] = lic["Id"]
        if rec is None:
            if "UserLicenseId" not in fields:
                raise ComponentError("Required field is missing: userLicense")
            return org.insert_trusted("Profile", {**fields, "Name": unquote(full_name)}, user_id=store.user_id)
        org.update_trusted("Profile", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def write(self, store: "MetadataStore", full_name: str, body: ET.Element) -> bool:
        # a profile deploy changes what it names: settings of other tabs, objects, fields, ... stay
        old = Handler.read(self, store, full_name)
        if old is not None:
            merged = ET.Element(body.tag)
            merged.extend(body)
            given = {(c.tag, _profile_key(c)) for c in body}
            merged.extend(c for c in old if (c.tag, _profile_key(c)) not in given)
            body = merged
        return super().write(store, full_name, body)

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        if rec.get("Name") in PROFILE_NAMES:
            raise ComponentError(f"Cannot delete a standard profile: {full_name}")
        store.org.delete("Profile", rec["Id"])


_PROFILE_KEYS = ("application", "tab", "object", "field", "layout", "recordType", "apexClass", "apexPage", "flow",
                 "name", "startAddress")


def _profile_key(el: ET.Element) -> str:
    """What a profile setting is about (its tab, object, field, ...); the whole text for plain settings."""
    for key in _PROFILE_KEYS:
        value = X.text_of(el, key)
        if value is not None:
            return f"{key}={value}"
    return "" if len(el) else (el.text or "")


class PermissionSetGroupHandler(RecordHandler):
    """PermissionSetGroup <-> PermissionSetGroup + PermissionSetGroupComponent."""

    mapped = frozenset({"label", "description", "permissionSets", "status", "hasActivationRequired"})

    def record(self, store: "MetadataStore", full_name: str) -> dict[str, Any] | None:
        return _by_dev_name(store.org, "PermissionSetGroup", full_name)

    def record_names(self, store: "MetadataStore") -> list[str]:
        return [r["DeveloperName"] for r in store.org.records("PermissionSetGroup") if r.get("DeveloperName")]

    def elements(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        org = store.org
        out = [X.leaf("label", rec.get("MasterLabel") or full_name),
               X.leaf("hasActivationRequired", bool(rec.get("HasActivationRequired")))]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        if rec.get("Status"):
            out.append(X.leaf("status", rec["Status"]))
        names = []
        for comp in org.find("PermissionSetGroupComponent", PermissionSetGroupId=rec["Id"]):
            ps = org.get("PermissionSet", comp.get("PermissionSetId") or "") if comp.get("PermissionSetId") else None
            if ps is not None:
                names.append(ps["Name"])
        out += [X.leaf("permissionSets", n) for n in sorted(names)]
        return out

    def apply(self, store: "MetadataStore", full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        org = store.org
        fields: dict[str, Any] = {"MasterLabel": _text(body, "label") or full_name,
                                  "Description": _text(body, "description"),
                                  "HasActivationRequired": X.flag(body, "hasActivationRequired")}
        if _text(body, "status"):
            fields["Status"] = _text(body, "status")
        if rec is None:
            gid = org.insert_trusted("PermissionSetGroup", {**fields, "DeveloperName": full_name},
                                     user_id=store.user_id)
        else:
            gid = rec["Id"]
            org.update_trusted("PermissionSetGroup", gid, fields, user_id=store.user_id)
        wanted = []
        for el in X.children(body, "permissionSets"):
            name = (el.text or "").strip()
            ps = _one(org, "PermissionSet", Name=name)
            if ps is None:
                raise ComponentError(f"In field: permissionSets - no PermissionSet named {name} found")
            wanted.append(ps["Id"])
        have = {c["PermissionSetId"]: c["Id"] for c in org.find("PermissionSetGroupComponent",
                                                                  PermissionSetGroupId=gid)}
        for psid in wanted:
            if psid not in have:
                org.create("PermissionSetGroupComponent", {"PermissionSetGroupId": gid, "PermissionSetId": psid},
                           user_id=store.user_id)
        for psid, cid in have.items():
            if psid not in wanted:
                org.delete("PermissionSetGroupComponent", cid)
        return str(gid)

    def remove(self, store: "MetadataStore", full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("PermissionSetGroup", rec["Id"])


class MetadataStore:
    """The metadata of ``org`` by type and fullName; ``user_id`` is the acting user of writes."""

    def __init__(self, org: Org, user_id: str | None = None) -> None:
        from pytest_cua.orgs.localorg.metadata import objects

        self.org = org
        self.user_id = user_id or org.default_user_id
        self.handlers: dict[str, Handler] = {}
        record_handlers: dict[str, Callable[[str], Handler]] = {
            "Queue": QueueHandler, "Group": GroupHandler, "Role": RoleHandler, "ListView": ListViewHandler,
            "ValidationRule": ValidationRuleHandler, "PermissionSet": PermissionSetHandler,
            "Profile": ProfileHandler, "PermissionSetGroup": PermissionSetGroupHandler,
            "CustomObject": objects.CustomObjectHandler, "CustomField": objects.CustomFieldHandler,
            "StandardValueSet": objects.StandardValueSetHandler, "AssignmentRules": AssignmentRulesHandler,
        }
        for name, info in TYPES.items():
            default: Callable[[str], Handler] = ParentHandler if info.children else Handler
            self.handlers[name] = record_handlers.get(name, default)(name)

    def info(self, type_name: str) -> TypeInfo:
        """The type called ``type_name``; ``ComponentError`` for an unknown one."""
        info = type_info(type_name)
        if info is None:
            raise ComponentError(f"Unknown type name '{type_name}' specified in package.xml")
        return info

    def handler(self, type_name: str) -> Handler:
        return self.handlers[self.info(type_name).name]

    def names(self, type_name: str) -> list[str]:
        """The fullNames of every component of the type."""
        with self.org.lock:
            return self.handler(type_name).names(self)

    def list(self, type_name: str, folder: str | None = None) -> list[FileProps]:
        """FileProperties of every component of the type (in ``folder`` for folder types)."""
        with self.org.lock:
            h = self.handler(type_name)
            names = h.names(self)
            if folder:
                names = [n for n in names if n.split("/", 1)[0] == folder]
            return [h.props(self, n) for n in names]

    def read(self, type_name: str, full_name: str) -> ET.Element | None:
        """The component's body (root element as in its file, without fullName), or None."""
        from pytest_cua.orgs.localorg.metadata.types import settings_member

        info = self.info(type_name)
        if info.name == "Settings":
            full_name = settings_member(type_name, full_name)[1]
        with self.org.lock:
            return self.handlers[info.name].read(self, full_name)

    def write(self, type_name: str, full_name: str, body: ET.Element) -> str:
        """Create or replace the component: ``"created"`` or ``"changed"``. Atomic."""
        from pytest_cua.orgs.localorg.metadata.types import settings_member

        info = self.info(type_name)
        if info.name == "Settings":
            full_name = settings_member(type_name, full_name)[1]
        if not full_name:
            raise ComponentError("A component needs a fullName")
        with self.org.transaction():
            return "created" if self.handlers[info.name].write(self, full_name, body) else "changed"

    def delete(self, type_name: str, full_name: str) -> None:
        """Delete the component; ``ComponentError`` when there is none. Atomic."""
        info = self.info(type_name)
        with self.org.transaction():
            self.handlers[info.name].delete(self, full_name)

    def props(self, type_name: str, full_name: str) -> FileProps:
        with self.org.lock:
            return self.handler(type_name).props(self, full_name)


# object -> (metadata type, record filter, fullName of a record): the records that are components themselves
_RECORD_COMPONENTS: dict[str, tuple[str, Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], str]]] = {
    "Group": ("Queue", lambda r: r.get("Type") == "Queue", lambda r: str(r.get("DeveloperName"))),
    "UserRole": ("Role", lambda r: True, lambda r: str(r.get("DeveloperName"))),
    "ListView": ("ListView", lambda r: True, lambda r: f"{r.get('SobjectType')}.{r.get('DeveloperName')}"),
    "ValidationRule": ("ValidationRule", lambda r: True,
                       lambda r: f"{r.get('EntityDefinitionId')}.{r.get('ValidationName')}"),
    "PermissionSet": ("PermissionSet", lambda r: not r.get("IsOwnedByProfile"), lambda r: str(r.get("Name"))),
    "Profile": ("Profile", lambda r: True, lambda r: profile_full_name(str(r.get("Name") or ""))),
    "PermissionSetGroup": ("PermissionSetGroup", lambda r: True, lambda r: str(r.get("DeveloperName"))),
}


def record_residue(org: Org, snapshot: Any) -> list[str]:
    """Residue lines naming the record-backed components that differ from ``snapshot`` (a hook of
    ``Org.residue``): ``Metadata Queue 'Web_Leads' deleted``. Public groups are Group records of type Regular."""
    out = []
    for sobject, (type_name, keep, name_of) in _RECORD_COMPONENTS.items():
        if sobject not in org.schema:
            continue
        now_t, then_t = org.table(sobject), snapshot.tables.get(org.schema[sobject].name, {})
        if now_t is then_t:
            continue
        for rid in sorted(set(now_t) | set(then_t)):
            now, then = now_t.get(rid), then_t.get(rid)
            if now is then or now == then:
                continue
            if sobject == "Group" and (now or then or {}).get("Type") == "Regular":
                kind = "Group"
            elif not keep(now or then or {}):
                continue
            else:
                kind = type_name
            what = "created" if then is None else "deleted" if now is None else "changed"
            out.append(f"Metadata {kind} {name_of(now or then or {})!r} {what}")
    return out
