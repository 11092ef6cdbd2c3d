"""The shared base of the metadata handlers: what every handler module uses.

- ``ComponentError`` (a component the store cannot take), ``Document`` (a stored component or overlay),
  ``FileProps`` (FileProperties of listMetadata and retrieve), ``component_file`` (the package path of a
  component), ``ID_PREFIX`` and ``NO_ID`` (metadata ids);
- ``Components``: what a handler sees of the metadata store (the org, the acting user, the handler of every type);
- ``Handler`` (a type stored as documents in ``Org.metadata``), ``RecordHandler`` (a type held as records plus an
  overlay document), ``ParentHandler`` (a file of child components);
- helpers of the handlers over XML bodies and records (``without``, ``only``, ``renamed``, ``one_record``,
  ``by_dev_name``, ``text_or_none``).

Imports: the org's store, values and errors, and ``metadata.types`` / ``metadata.xmltree``; no handler module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg import values
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.types import TYPES, file_name, root_tag
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



class Components(Protocol):
    """What a handler sees of the metadata store (``MetadataStore``): the org, the acting user of writes and the
    handler of every type (a parent reads and writes its children through theirs)."""

    org: Org
    user_id: str | None
    handlers: dict[str, "Handler"]


class Handler:
    """How one type is stored. The base stores documents in ``Org.metadata``."""

    def __init__(self, type_name: str) -> None:
        self.type = type_name

    # documents (also the overlay of record-backed handlers)
    def doc(self, store: Components, full_name: str) -> Document | None:
        return store.org.metadata.get((self.type, full_name))

    def put_doc(self, store: Components, full_name: str, body: ET.Element | None) -> None:
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

    def names(self, store: Components) -> list[str]:
        return sorted(k[1] for k in store.org.metadata if k[0] == self.type)

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        doc = self.doc(store, full_name)
        return X.from_canonical(doc.body) if doc is not None else None

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        created = self.doc(store, full_name) is None
        self.put_doc(store, full_name, without(body, "fullName"))
        return created

    def delete(self, store: Components, full_name: str) -> None:
        if store.org.metadata.pop((self.type, full_name), None) is None:
            raise ComponentError(f"No {self.type} named: {full_name} found")

    def props(self, store: Components, full_name: str) -> FileProps:
        doc = self.doc(store, full_name)
        fname = component_file(self.type, full_name)
        if doc is None:
            return FileProps(self.type, full_name, fname)
        return FileProps(self.type, full_name, fname, doc.id, doc.created_date, doc.created_by, doc.modified_date,
                         doc.modified_by)


def without(body: ET.Element, *tags: str) -> ET.Element:
    """A copy of ``body`` without its children of ``tags``."""
    out = ET.Element(body.tag)
    out.extend(c for c in body if c.tag not in tags)
    return out


def only(body: ET.Element, tags: set[str], keep: bool) -> ET.Element:
    """A copy of ``body`` with its children of ``tags`` (``keep``) or with the others."""
    out = ET.Element(body.tag)
    out.extend(c for c in body if (c.tag in tags) == keep)
    return out


class RecordHandler(Handler):
    """A type held as records: ``mapped`` names the elements the records hold; the rest is an overlay document."""

    mapped: frozenset[str] = frozenset()

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        raise NotImplementedError

    def record_names(self, store: Components) -> list[str]:
        raise NotImplementedError

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        raise NotImplementedError

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        """Create or update the records from ``body``; return the main record's id."""
        raise NotImplementedError

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        raise NotImplementedError

    def names(self, store: Components) -> list[str]:
        return sorted(self.record_names(store))

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        rec = self.record(store, full_name)
        if rec is None:
            return None
        body = ET.Element(root_tag(self.type, full_name))
        body.extend(self.elements(store, full_name, rec))
        overlay = super().read(store, full_name)
        if overlay is not None:
            body.extend(c for c in overlay if c.tag not in self.mapped)
        return X.sorted_children(body)

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        rec = self.record(store, full_name)
        try:
            self.apply(store, full_name, rec, body)
        except OrgError as err:
            raise ComponentError(f"{err.code}: {err.message}") from None
        self.put_doc(store, full_name, only(without(body, "fullName"), set(self.mapped), keep=False))
        return rec is None

    def delete(self, store: Components, full_name: str) -> None:
        rec = self.record(store, full_name)
        if rec is None:
            raise ComponentError(f"No {self.type} named: {full_name} found")
        try:
            self.remove(store, full_name, rec)
        except OrgError as err:
            raise ComponentError(f"{err.code}: {err.message}") from None
        store.org.metadata.pop((self.type, full_name), None)

    def props(self, store: Components, full_name: str) -> FileProps:
        rec = self.record(store, full_name) or {}
        return FileProps(self.type, full_name, component_file(self.type, full_name), rec.get("Id") or "",
                         rec.get("CreatedDate") or "", rec.get("CreatedById"), rec.get("LastModifiedDate") or "",
                         rec.get("LastModifiedById"))


class ParentHandler(Handler):
    """A document type whose file holds child components (MatchingRules and its MatchingRule elements,
    Workflow, AssignmentRules, ...): each child is its own document (``Parent.child``), the parent document
    keeps the rest; reading puts them together again."""

    def _children(self, store: Components, full_name: str) -> list[tuple[str, str, str]]:
        out = []
        for tag, child_type in TYPES[self.type].children.items():
            for name in store.handlers[child_type].names(store):
                if name.split(".", 1)[0] == full_name:
                    out.append((tag, child_type, name))
        return out

    def names(self, store: Components) -> list[str]:
        own = set(super().names(store))
        for child_type in TYPES[self.type].children.values():
            own.update(n.split(".", 1)[0] for n in store.handlers[child_type].names(store))
        return sorted(own)

    def read_parts(self, store: Components, full_name: str,
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

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        return self.read_parts(store, full_name, None)

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        created = self.read(store, full_name) is None
        tags = TYPES[self.type].children
        self.put_doc(store, full_name, without(body, "fullName", *tags))
        for tag, child_type in tags.items():
            for el in X.children(body, tag):
                name = X.text_of(el, "fullName")
                if not name:
                    raise ComponentError(f"{full_name}: a {child_type} without fullName")
                store.handlers[child_type].write(store, f"{full_name}.{name}", renamed(el, child_type))
        return created

    def delete(self, store: Components, full_name: str) -> None:
        kids = self._children(store, full_name)
        if self.doc(store, full_name) is None and not kids:
            raise ComponentError(f"No {self.type} named: {full_name} found")
        store.org.metadata.pop((self.type, full_name), None)
        for _, child_type, name in kids:
            store.handlers[child_type].delete(store, name)



def renamed(el: ET.Element, tag: str) -> ET.Element:
    """A copy of ``el`` named ``tag``, without its fullName."""
    out = ET.Element(tag)
    out.extend(c for c in el if c.tag != "fullName")
    return out


def one_record(org: Org, sobject: str, **equals: Any) -> dict[str, Any] | None:
    """The first record of ``sobject`` with the ``equals`` values, or None (also when the object does not exist)."""
    if sobject not in org.schema:
        return None
    hits = org.find(sobject, **equals)
    return hits[0] if hits else None


def by_dev_name(org: Org, sobject: str, dev_name: str, **equals: Any) -> dict[str, Any] | None:
    """The record of ``sobject`` with DeveloperName ``dev_name`` (any case) and the ``equals`` values, or None."""
    if sobject not in org.schema:
        return None
    low = dev_name.lower()
    for rec in org.find(sobject, **equals):
        if (rec.get("DeveloperName") or "").lower() == low:
            return rec
    return None


def text_or_none(body: ET.Element, tag: str) -> str | None:
    """The text of the child ``tag`` of ``body``; None when missing or empty."""
    value = X.text_of(body, tag)
    return value if value not in (None, "") else None
