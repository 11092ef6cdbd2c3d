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

This module holds the registry (``MetadataStore``: type -> handler) and the residue of record-backed components
(``record_residue``). The handlers live by concept, all on the shared base ``base.py``: ``groups`` (Queue,
Group, Role), ``object_rules`` (ListView, ValidationRule, AssignmentRules), ``permissions`` (PermissionSet,
Profile, PermissionSetGroup), ``objects`` (CustomObject, CustomField, StandardValueSet). The names that lived
here before (``ComponentError``, ``FileProps``, ``Handler``, ``profile_full_name``, ...) are re-exported.
"""


from __future__ import annotations

from typing import Any, Callable
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata.base import ID_PREFIX, NO_ID, ComponentError, Components, Document, \
    FileProps, Handler, ParentHandler, RecordHandler, component_file
from pytest_cua.orgs.localorg.metadata.groups import GroupHandler, QueueHandler, RoleHandler
from pytest_cua.orgs.localorg.metadata.object_rules import AssignmentRulesHandler, ListViewHandler, \
    ValidationRuleHandler
from pytest_cua.orgs.localorg.metadata.objects import CustomFieldHandler, CustomObjectHandler, \
    StandardValueSetHandler
from pytest_cua.orgs.localorg.metadata.permissions import PROFILE_NAMES, PermissionSetGroupHandler, \
    PermissionSetHandler, ProfileHandler, profile_full_name
from pytest_cua.orgs.localorg.metadata.types import TYPES, TypeInfo, settings_member, type_info
from pytest_cua.orgs.localorg.store import Org

__all__ = [
    "ID_PREFIX", "NO_ID", "PROFILE_NAMES", "AssignmentRulesHandler", "ComponentError", "Components",
    "CustomFieldHandler", "CustomObjectHandler", "Document", "FileProps", "GroupHandler", "Handler",
    "ListViewHandler", "MetadataStore", "ParentHandler", "PermissionSetGroupHandler", "PermissionSetHandler",
    "ProfileHandler", "QueueHandler", "RecordHandler", "RoleHandler", "StandardValueSetHandler",
    "ValidationRuleHandler", "component_file", "profile_full_name", "record_residue",
]

class MetadataStore:
    """The metadata of ``org`` by type and fullName; ``user_id`` is the acting user of writes."""

    def __init__(self, org: Org, user_id: str | None = None) -> None:
        self.org = org
        self.user_id = user_id or org.default_user_id
        self.handlers: dict[str, Handler] = {}
        record_handlers: dict[str, Callable[[str], Handler]] = {
            "Queue": QueueHandler, "Group": GroupHandler, "Role": RoleHandler, "ListView": ListViewHandler,
            "ValidationRule": ValidationRuleHandler, "PermissionSet": PermissionSetHandler,
            "Profile": ProfileHandler, "PermissionSetGroup": PermissionSetGroupHandler,
            "CustomObject": CustomObjectHandler, "CustomField": CustomFieldHandler,
            "StandardValueSet": StandardValueSetHandler, "AssignmentRules": AssignmentRulesHandler,
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

    def resolve(self, type_name: str, full_name: str) -> str | None:
        """The fullName under which the component ``full_name`` names is stored: a component's name is unique
        ignoring letter case, and every call finds it by any case of it (as in Salesforce: ``account_access``
        reads, updates and retrieves ``Account_Access``); None when there is none."""
        info = self.info(type_name)
        full_name = trimmed(full_name)
        if info.name == "Settings" or not full_name:
            return full_name or None
        with self.org.lock:
            handler = self.handlers[info.name]
            stored = self._stored(handler, full_name)
            if stored is not None:
                return stored
            return full_name if handler.read(self, full_name) is not None else None

    def _stored(self, handler: Handler, full_name: str) -> str | None:
        """The listed name equal to ``full_name`` (exactly, else ignoring letter case), or None."""
        names = handler.names(self)
        if full_name in names:
            return full_name
        low = full_name.lower()
        return next((n for n in names if n.lower() == low), None)

    def read(self, type_name: str, full_name: str) -> ET.Element | None:
        """The component's body (root element as in its file, without fullName), or None; the name in any
        letter case (``resolve``)."""
        return self.read_named(type_name, full_name)[1]

    def read_named(self, type_name: str, full_name: str) -> tuple[str, ET.Element | None]:
        """(the stored fullName, the body) of the component ``full_name`` names in any letter case; the body is
        None when there is none (the name is then ``full_name``)."""
        info = self.info(type_name)
        full_name = trimmed(full_name)
        if info.name == "Settings":
            full_name = settings_member(type_name, full_name)[1]
        with self.org.lock:
            handler = self.handlers[info.name]
            stored = self._stored(handler, full_name) if info.name != "Settings" else None
            name = stored or full_name  # a component not listed (a Settings member) is read as named
            return name, handler.read(self, name)

    def write(self, type_name: str, full_name: str, body: ET.Element) -> str:
        """Create or replace the component: ``"created"`` or ``"changed"``. Atomic. A name that differs only in
        letter case from a stored one replaces that one, which keeps its name."""
        info = self.info(type_name)
        if info.name == "Settings":
            full_name = settings_member(type_name, full_name)[1]
        full_name = trimmed(full_name)
        if not full_name:
            raise ComponentError("A component needs a fullName")
        with self.org.transaction():
            stored = self.resolve(type_name, full_name) or self.object_cased(info.name, full_name)
            return "created" if self.handlers[info.name].write(self, stored, body) else "changed"

    def object_cased(self, type_name: str, full_name: str) -> str:
        """A new component's name with the object it belongs to spelt as the org spells the object: a type
        named after its object (``contact`` matching rules are Contact's, ``Contact.matchingRule``) or whose
        name starts with it (``contact.Email_Match``), as Salesforce resolves an object name in any case."""
        if type_name in OBJECT_NAMED:
            obj = self.org.schema.get(full_name)
            return obj.name if obj is not None else full_name
        if type_name in OBJECT_PREFIXED and "." in full_name:
            head, _, rest = full_name.partition(".")
            obj = self.org.schema.get(head)
            return f"{obj.name}.{rest}" if obj is not None else full_name
        return full_name

    def delete(self, type_name: str, full_name: str) -> None:
        """Delete the component (its name in any letter case); ``ComponentError`` when there is none. Atomic."""
        info = self.info(type_name)
        with self.org.transaction():
            self.handlers[info.name].delete(self, self.resolve(type_name, full_name) or full_name)

    def props(self, type_name: str, full_name: str) -> FileProps:
        with self.org.lock:
            return self.handler(type_name).props(self, full_name)


def trimmed(full_name: str) -> str:
    """A component name as Salesforce keeps it: each part (``Opportunity.  B2B ``) without surrounding white
    space, as its Setup pages trim what is typed."""
    return ".".join(part.strip() for part in full_name.split(".")) if full_name else full_name


#: metadata types whose component is named after its object (one file per object)
OBJECT_NAMED = frozenset({"CustomObject", "MatchingRules", "Workflow", "SharingRules", "AssignmentRules",
                          "AutoResponseRules", "EscalationRules", "DuplicateRules"})
#: metadata types whose component's name starts with its object: ``Object.Name``
OBJECT_PREFIXED = frozenset({"CustomField", "ListView", "ValidationRule", "RecordType", "BusinessProcess",
                             "CompactLayout", "FieldSet", "WebLink", "MatchingRule", "DuplicateRule",
                             "ApprovalProcess", "QuickAction", "WorkflowRule", "WorkflowFieldUpdate",
                             "WorkflowAlert", "WorkflowTask", "WorkflowOutboundMessage", "SharingCriteriaRule",
                             "SharingOwnerRule", "AssignmentRule"})


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
