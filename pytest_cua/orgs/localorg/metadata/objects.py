"""CustomObject, CustomField and StandardValueSet: the schema of the org seen as metadata.

Deploying a custom object (``objects/Thing__c.object`` with its ``<fields>``) or a custom field adds it to the
schema, so it is a real sObject at once: describe, SOQL, REST CRUD, list views. The schema is never changed in
place: ``rebuild`` makes a new ``Schema`` (shared field definitions, fresh object entries) and hands it to
``Org.replace_schema``, so a snapshot holding the old schema restores it. What the schema does not model (an
object's ``description``, a field's ``inlineHelpText`` or ``formula``) is kept as the component's overlay
document and comes back on retrieve.

Limits: formula and roll-up summary fields exist (describe, SOQL) but are read-only and null (their formulas are
not computed); field types without a counterpart here (Location, Time, EncryptedText beyond text) are refused
with a deploy problem naming the field.

The conversion between the schema and CustomField/CustomObject XML lives in ``conversion``; the handlers here use
the shared base ``metadata.base``.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg import behaviors
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.base import ComponentError, Components, FileProps, Handler, component_file
from pytest_cua.orgs.localorg.metadata.conversion import field_from_metadata, field_to_metadata, free_prefix, \
    merge_overlay, rebuild
from pytest_cua.orgs.localorg.metadata.types import TYPES
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema, _system_fields

#: objects of the schema that are setup data rather than customizable objects (not listed as CustomObject)
NOT_CUSTOMIZABLE = frozenset({"EntityDefinition", "Organization", "UserLogin", "GroupMember", "QueueSobject",
                              "PermissionSetAssignment", "PermissionSetGroupComponent", "UserLicense",
                              "ValidationRule", "ListView", "Group", "PermissionSet", "PermissionSetGroup",
                              "Profile", "UserRole", "Report", "Dashboard"})

_OBJECT_MANAGED = frozenset({"label", "pluralLabel", "nameField", "sharingModel", "externalSharingModel",
                             "deploymentStatus"})

#: standard value sets: name -> the (object, field) pairs that use it
STANDARD_VALUE_SETS: dict[str, list[tuple[str, str]]] = {
    "AccountRating": [("Account", "Rating")], "AccountType": [("Account", "Type")],
    "AccountOwnership": [("Account", "Ownership")], "Industry": [("Account", "Industry"), ("Lead", "Industry")],
    "LeadSource": [("Lead", "LeadSource"), ("Contact", "LeadSource"), ("Opportunity", "LeadSource"),
                   ("Account", "AccountSource")],
    "LeadStatus": [("Lead", "Status")], "Salutation": [("Contact", "Salutation"), ("Lead", "Salutation")],
    "OpportunityStage": [("Opportunity", "StageName")], "OpportunityType": [("Opportunity", "Type")],
    "CaseOrigin": [("Case", "Origin")], "CasePriority": [("Case", "Priority")], "CaseReason": [("Case", "Reason")],
    "CaseStatus": [("Case", "Status")], "CaseType": [("Case", "Type")], "CampaignStatus": [("Campaign", "Status")],
    "CampaignType": [("Campaign", "Type")], "ContractStatus": [("Contract", "Status")],
    "OrderStatus": [("Order", "Status")], "OrderType": [("Order", "Type")], "Product2Family": [("Product2", "Family")],
    "IncidentStatus": [("Incident", "Status")],
    "QuoteStatus": [("Quote", "Status")], "TaskPriority": [("Task", "Priority")], "TaskStatus": [("Task", "Status")],
    "TaskSubject": [("Task", "Subject")], "TaskType": [("Task", "Type")], "EventSubject": [("Event", "Subject")],
    "EventType": [("Event", "Type")], "EntitlementType": [("Entitlement", "Type")],
}



def _customizable(obj: ObjectSchema) -> bool:
    return obj.api in ("data", "both") and obj.name not in NOT_CUSTOMIZABLE


class CustomFieldHandler(Handler):
    """CustomField ``Object.Field__c`` <-> a field of the schema (+ overlay)."""

    def _split(self, store: Components, full_name: str) -> tuple[ObjectSchema | None, str]:
        obj_name, _, fname = full_name.partition(".")
        return store.org.schema.get(obj_name), fname

    def names(self, store: Components) -> list[str]:
        return sorted(f"{o.name}.{f.name}" for o in store.org.schema.objects.values() if _customizable(o)
                      for f in o.fields.values() if f.name.endswith("__c"))

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        obj, fname = self._split(store, full_name)
        f = obj.field(fname) if obj is not None and fname else None
        if obj is None or f is None:
            return None
        return merge_overlay(field_to_metadata(f, obj), Handler.read(self, store, f"{obj.name}.{f.name}"),
                      frozenset({"fullName"}))

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        obj, fname = self._split(store, full_name)
        if obj is None or not fname:
            raise ComponentError(f"Could not resolve the object of field {full_name}")
        existing = obj.field(fname)
        if not fname.endswith("__c"):
            if existing is None:
                raise ComponentError(f"Cannot create a standard field: {full_name} (custom fields end in __c)")
            self.put_doc(store, f"{obj.name}.{existing.name}", _strip(body, "fullName"))
            return False
        self.apply_fields(store, obj, [(fname, body)])
        return existing is None

    def apply_fields(self, store: Components, obj: ObjectSchema, items: list[tuple[str, ET.Element]],
                     base: ObjectSchema | None = None, pending: dict[str, ObjectSchema] | None = None) -> ObjectSchema:
        """Put the custom fields ``items`` ((name, CustomField element)) into ``obj`` (or into ``base``, a new
        object not served yet); returns the new object schema (served unless ``base`` is given)."""
        fields = dict((base or obj).fields)
        for fname, body in items:
            new = field_from_metadata(store.org, obj.name, body, fname, pending)
            old = next((k for k in fields if k.lower() == fname.lower()), None)
            if old is not None and old != fname:
                fields.pop(old)
            fields[fname] = new
            self.put_doc(store, f"{obj.name}.{fname}", _strip(body, "fullName"))
        updated = dataclasses.replace(base or obj, fields=fields)
        if base is None:
            rebuild(store.org, {obj.name: updated})
        return updated

    def delete(self, store: Components, full_name: str) -> None:
        obj, fname = self._split(store, full_name)
        f = obj.field(fname) if obj is not None and fname else None
        if obj is None or f is None or not f.name.endswith("__c"):
            raise ComponentError(f"No CustomField named: {full_name} found")
        fields = {k: v for k, v in obj.fields.items() if k != f.name}
        rebuild(store.org, {obj.name: dataclasses.replace(obj, fields=fields)})
        table = store.org._tables[obj.name]
        for rid, rec in list(table.items()):
            if f.name in rec:
                table[rid] = {k: v for k, v in rec.items() if k != f.name}
        store.org.metadata.pop(("CustomField", f"{obj.name}.{f.name}"), None)

    def props(self, store: Components, full_name: str) -> FileProps:
        doc = self.doc(store, full_name)
        if doc is not None:
            return super().props(store, full_name)
        return FileProps("CustomField", full_name, component_file("CustomField", full_name))


def _strip(body: ET.Element, *tags: str) -> ET.Element:
    out = ET.Element(body.tag)
    out.extend(c for c in body if c.tag not in tags)
    return out


class CustomObjectHandler(Handler):
    """CustomObject <-> an object of the schema with its fields, list views, validation rules and the child
    documents (business processes, record types, ...)."""

    def names(self, store: Components) -> list[str]:
        return sorted(o.name for o in store.org.schema.objects.values() if _customizable(o))

    def _entity(self, store: Components, name: str) -> dict[str, Any] | None:
        if "EntityDefinition" not in store.org.schema:
            return None
        hits = store.org.find("EntityDefinition", QualifiedApiName=name)
        return hits[0] if hits else None

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        return self.read_parts(store, full_name, None)

    def read_parts(self, store: Components, full_name: str, only: set[tuple[str, str]] | None) -> \
            ET.Element | None:
        """The object file; ``only`` (child type, fullName) limits it to those children (no own properties)."""
        obj = store.org.schema.get(full_name)
        if obj is None or not _customizable(obj):
            return None
        out = ET.Element("CustomObject")
        if only is None:
            gen: list[ET.Element] = []
            ent = self._entity(store, obj.name) or {}
            if obj.custom:
                gen += [X.leaf("label", obj.label), X.leaf("pluralLabel", obj.label_plural),
                        X.leaf("deploymentStatus", "Deployed")]
                name_field = obj.fields.get(obj.name_field or "")
                if name_field is not None:
                    parts = [X.leaf("label", name_field.label)]
                    if name_field.auto_number:
                        parts += [X.leaf("displayFormat", name_field.auto_number), X.leaf("type", "AutoNumber")]
                    else:
                        parts.append(X.leaf("type", "Text"))
                    gen.append(X.element("nameField", parts))
            if ent.get("InternalSharingModel"):
                gen.append(X.leaf("sharingModel", ent["InternalSharingModel"]))
            if ent.get("ExternalSharingModel"):
                gen.append(X.leaf("externalSharingModel", ent["ExternalSharingModel"]))
            own = merge_overlay(X.element("CustomObject", gen), Handler.read(self, store, obj.name),
                         frozenset({"sharingModel", "externalSharingModel"}))
            out.extend(own)
        for tag, child_type in TYPES["CustomObject"].children.items():
            handler = store.handlers[child_type]
            for name in handler.names(store):
                if name.split(".", 1)[0] != obj.name:
                    continue
                if only is not None and (child_type, name) not in only:
                    continue
                if child_type == "CustomField" and obj.custom and name.split(".", 1)[1] == obj.name_field:
                    continue
                body = handler.read(store, name)
                if body is None:
                    continue
                if not any(c.tag == "fullName" for c in body):
                    body.insert(0, X.leaf("fullName", name.split(".", 1)[1]))
                body.tag = tag
                out.append(X.sorted_children(body))
        if only is None and not obj.custom:
            listed = {X.text_of(c, "fullName") for c in X.children(out, "fields")}
            for f in obj.fields.values():
                if not f.system and not f.name.endswith("__c") and f.name not in listed and f.name != "Name":
                    el = field_to_metadata(f, obj)
                    el.tag = "fields"
                    out.append(el)
        return X.sorted_children(out)

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        org = store.org
        existing = org.schema.get(full_name)
        child_tags = TYPES["CustomObject"].children
        field_items = []
        for el in X.children(body, "fields"):
            fname = X.text_of(el, "fullName")
            if not fname:
                raise ComponentError(f"{full_name}: a field without fullName")
            field_items.append((fname, el))
        if existing is None:
            if not full_name.endswith("__c"):
                raise ComponentError(f"Cannot create a standard object: {full_name} (custom objects end in __c)")
            self._create(store, full_name, body, field_items)
        else:
            fields_h: CustomFieldHandler = store.handlers["CustomField"]  # type: ignore[assignment]
            custom_items = [(n, e) for n, e in field_items if n.endswith("__c")]
            if existing.custom:
                label = X.text_of(body, "label")
                updated = dataclasses.replace(existing, label=label or existing.label,
                                              label_plural=X.text_of(body, "pluralLabel") or existing.label_plural)
                updated = fields_h.apply_fields(store, existing, custom_items, base=updated)
                rebuild(org, {existing.name: updated})
            elif custom_items:
                fields_h.apply_fields(store, existing, custom_items)
            for n, e in field_items:
                if not n.endswith("__c") and existing.field(n) is not None:
                    fields_h.put_doc(store, f"{existing.name}.{existing.field(n).name}",  # type: ignore[union-attr]
                                     _strip(e, "fullName"))
            ent = self._entity(store, existing.name)
            updates = {k: X.text_of(body, tag) for tag, k in (("sharingModel", "InternalSharingModel"),
                                                              ("externalSharingModel", "ExternalSharingModel"))
                       if X.text_of(body, tag)}
            if ent is not None and updates:
                org.update_trusted("EntityDefinition", ent["Id"], updates, user_id=store.user_id)
        name = org.schema[full_name].name
        self.put_doc(store, name, _strip(body, "fullName", *child_tags))
        for tag, child_type in child_tags.items():
            if child_type == "CustomField":
                continue
            for el in X.children(body, tag):
                cname = X.text_of(el, "fullName")
                if not cname:
                    raise ComponentError(f"{full_name}: a {child_type} without fullName")
                child = ET.Element(child_type)
                child.extend(list(el))
                store.handlers[child_type].write(store, f"{name}.{cname}", child)
        return existing is None

    def _create(self, store: Components, name: str, body: ET.Element, field_items: list[tuple[str, ET.Element]]) \
            -> None:
        org = store.org
        sharing = X.text_of(body, "sharingModel") or "ReadWrite"
        name_el = X.children(body, "nameField")
        name_body = name_el[0] if name_el else X.element("nameField", [X.leaf("label", "Name"), X.leaf("type", "Text")])
        auto = (X.text_of(name_body, "type") or "Text") == "AutoNumber"
        name_field = FieldSchema("Name", "string", X.text_of(name_body, "label") or "Name", length=80,
                                 required=not auto, auto_number=(X.text_of(name_body, "displayFormat") or "{0}")
                                 if auto else None, createable=not auto, updateable=not auto)
        detail = any((X.text_of(e, "type") or "") == "MasterDetail" for _, e in field_items)
        owner = [] if detail or sharing == "ControlledByParent" else ["User", "Group"]
        fields = {f.name: f for f in _system_fields(owner)}
        fields["Name"] = name_field
        label = X.text_of(body, "label")
        if not label:
            raise ComponentError(f"Required field is missing: label (custom object {name})")
        obj = ObjectSchema(name=name, label=label, label_plural=X.text_of(body, "pluralLabel") or label + "s",
                           key_prefix=free_prefix(org), fields=fields, name_field="Name", owner=owner, api="data",
                           sharing={"internal": sharing, "external": X.text_of(body, "externalSharingModel") or
                                    sharing}, lookup_fields=["Name"], source=f"metadata:{name}")
        fields_h: CustomFieldHandler = store.handlers["CustomField"]  # type: ignore[assignment]
        obj = fields_h.apply_fields(store, obj, [(n, e) for n, e in field_items if n != "Name"], base=obj,
                                    pending={name: obj})
        rebuild(org, {name: obj})
        if "EntityDefinition" in org.schema:
            org.insert_trusted("EntityDefinition", {
                "QualifiedApiName": name, "DeveloperName": name[:-3], "Label": obj.label, "PluralLabel": obj.label_plural,
                "KeyPrefix": obj.key_prefix, "DurableId": name, "InternalSharingModel": obj.sharing["internal"],
                "ExternalSharingModel": obj.sharing["external"], "IsCustomizable": True}, user_id=store.user_id)

    def delete(self, store: Components, full_name: str) -> None:
        org = store.org
        obj = org.schema.get(full_name)
        if obj is None or not _customizable(obj):
            raise ComponentError(f"No CustomObject named: {full_name} found")
        if not obj.custom:
            raise ComponentError(f"Cannot delete a standard object: {full_name}")
        users = [f"{o.name}.{f.name}" for o in org.schema.objects.values() if o.name != obj.name
                 for f in o.fields.values() if obj.name in f.reference_to]
        if users:
            raise ComponentError(f"This custom object is referenced elsewhere in salesforce.com: {', '.join(users)}")
        for child_type in TYPES["CustomObject"].children.values():
            handler = store.handlers[child_type]
            for name in handler.names(store):
                if name.split(".", 1)[0] == obj.name and child_type not in ("CustomField",):
                    handler.delete(store, name)
        for key in [k for k in org.metadata if k[0] == "CustomField" and k[1].split(".", 1)[0] == obj.name]:
            del org.metadata[key]
        org.metadata.pop(("CustomObject", obj.name), None)
        ent = self._entity(store, obj.name)
        if ent is not None:
            org.delete("EntityDefinition", ent["Id"])
        rebuild(org, {obj.name: None})

    def props(self, store: Components, full_name: str) -> FileProps:
        ent = self._entity(store, full_name) or {}
        return FileProps("CustomObject", full_name, component_file("CustomObject", full_name),
                         ent.get("Id") or "" if full_name.endswith("__c") else "",
                         ent.get("CreatedDate") or "", ent.get("CreatedById"), ent.get("LastModifiedDate") or "",
                         ent.get("LastModifiedById"))


class StandardValueSetHandler(Handler):
    """StandardValueSet <-> the picklist values of the standard fields that use the set."""

    def _fields(self, store: Components, name: str) -> list[tuple[ObjectSchema, FieldSchema]]:
        canonical = next((k for k in STANDARD_VALUE_SETS if k.lower() == name.lower()), None)
        out = []
        for obj_name, fname in STANDARD_VALUE_SETS.get(canonical or "", []):
            obj = store.org.schema.get(obj_name)
            f = obj.field(fname) if obj is not None else None
            if obj is not None and f is not None and f.type in ("picklist", "multipicklist"):
                out.append((obj, f))
        return out

    def names(self, store: Components) -> list[str]:
        return sorted(n for n in STANDARD_VALUE_SETS if self._fields(store, n))

    def read(self, store: Components, full_name: str) -> ET.Element | None:
        fields = self._fields(store, full_name)
        if not fields:
            return None
        f = fields[0][1]
        values = []
        for v in f.values:
            parts = [X.leaf("fullName", v), X.leaf("default", v == f.default), X.leaf("label", v)]
            if full_name == "OpportunityStage":
                prob = behaviors.STAGE_PROBABILITY.get(v, 0)
                parts += [X.leaf("closed", v.startswith("Closed")), X.leaf("probability", prob),
                          X.leaf("won", v == "Closed Won"),
                          X.leaf("forecastCategory", "Closed" if v == "Closed Won" else "Omitted"
                                 if v.startswith("Closed") else "Pipeline")]
            elif full_name in ("CaseStatus", "TaskStatus"):
                parts.append(X.leaf("closed", v in behaviors.CLOSED_CASE | behaviors.CLOSED_TASK))
            elif full_name == "LeadStatus":
                parts.append(X.leaf("converted", "Converted" in v))
            values.append(X.element("standardValue", parts))
        gen = X.element("StandardValueSet", [X.leaf("sorted", False), *values])
        return merge_overlay(gen, Handler.read(self, store, full_name), frozenset({"standardValue"}))

    def write(self, store: Components, full_name: str, body: ET.Element) -> bool:
        fields = self._fields(store, full_name)
        if not fields:
            raise ComponentError(f"No StandardValueSet named: {full_name} found")
        names = [X.text_of(v, "fullName") or "" for v in X.children(body, "standardValue")]
        default = next((X.text_of(v, "fullName") for v in X.children(body, "standardValue")
                        if X.flag(v, "default")), None)
        replace: dict[str, ObjectSchema | None] = {}
        for obj, f in fields:
            base = replace.get(obj.name) or obj
            assert base is not None
            new_f = dataclasses.replace(f, values=[n for n in names if n], default=default)
            replace[obj.name] = dataclasses.replace(base, fields={**base.fields, f.name: new_f})
        rebuild(store.org, replace)
        self.put_doc(store, full_name, _strip(body, "fullName", "standardValue"))
        return False

    def delete(self, store: Components, full_name: str) -> None:
        raise ComponentError(f"Cannot delete the standard value set {full_name}")
