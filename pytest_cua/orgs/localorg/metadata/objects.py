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
"""

from __future__ import annotations

import dataclasses
from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg import behaviors
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, FileProps, Handler, MetadataStore, \
    component_file
from pytest_cua.orgs.localorg.metadata.types import TYPES
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema, Schema, SchemaError, _system_fields
from pytest_cua.orgs.localorg.store import Org

#: objects of the schema that are setup data rather than customizable objects (not listed as CustomObject)
NOT_CUSTOMIZABLE = frozenset({"EntityDefinition", "Organization", "UserLogin", "GroupMember", "QueueSobject",
                              "PermissionSetAssignment", "PermissionSetGroupComponent", "UserLicense",
                              "ValidationRule", "ListView", "Group", "PermissionSet", "PermissionSetGroup",
                              "Profile", "UserRole", "Report", "Dashboard"})

_TO_SCHEMA = {"Text": "string", "TextArea": "textarea", "LongTextArea": "textarea", "Html": "textarea",
              "EncryptedText": "string", "Email": "email", "Phone": "phone", "Url": "url", "Picklist": "picklist",
              "MultiselectPicklist": "multipicklist", "Checkbox": "boolean", "Number": "double",
              "Currency": "currency", "Percent": "percent", "Date": "date", "DateTime": "datetime",
              "Lookup": "reference", "MasterDetail": "reference", "AutoNumber": "string", "Summary": "double"}
_TO_METADATA = {"string": "Text", "email": "Email", "phone": "Phone", "url": "Url", "picklist": "Picklist",
                "multipicklist": "MultiselectPicklist", "boolean": "Checkbox", "int": "Number", "double": "Number",
                "currency": "Currency", "percent": "Percent", "date": "Date", "datetime": "DateTime"}
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


def rebuild(org: Org, replace: dict[str, ObjectSchema | None]) -> None:
    """Serve a new schema: ``replace`` maps object names to their new definition (None: the object goes)."""
    objs = dict(org.schema.objects)
    for name, obj in replace.items():
        if obj is None:
            objs.pop(name, None)
        else:
            objs[name] = obj
    added = [n for n, o in replace.items() if o is not None and n not in org.schema.objects]
    for holder, fname in (("ListView", "SobjectType"), ("QueueSobject", "SobjectType")):
        base = objs.get(holder)
        f = base.fields.get(fname) if base else None
        if base is None or f is None:
            continue
        gone = {n for n, o in replace.items() if o is None}
        wanted = [v for v in f.values if v not in gone] + [n for n in added if n not in f.values]
        if wanted != f.values:
            objs[holder] = dataclasses.replace(base, fields={**base.fields, fname: dataclasses.replace(f, values=wanted)})
    try:
        schema = Schema([dataclasses.replace(o, child_relationships=[]) for o in objs.values()])
    except SchemaError as exc:
        raise ComponentError(str(exc)) from None
    org.replace_schema(schema)


def _free_prefix(org: Org) -> str:
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    for a in digits:
        for b in digits:
            prefix = f"a{a}{b}"
            if org.schema.by_prefix(prefix) is None:
                return prefix
    raise ComponentError("no key prefix left for a new custom object")


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text not in (None, "") else default
    except ValueError:
        return default


def field_from_metadata(org: Org, obj_name: str, body: ET.Element, full_name: str,
                        pending: dict[str, ObjectSchema] | None = None) -> FieldSchema:
    """A ``FieldSchema`` from a CustomField element (``full_name`` is the field's name)."""
    mtype = X.text_of(body, "type") or ("Text" if X.text_of(body, "formula") is None else "Text")
    if mtype not in _TO_SCHEMA:
        raise ComponentError(f"Field {obj_name}.{full_name}: the field type {mtype} is not supported by this org")
    ftype = _TO_SCHEMA[mtype]
    formula = X.text_of(body, "formula") is not None or mtype == "Summary"
    label = X.text_of(body, "label") or full_name.replace("__c", "").replace("_", " ")
    kw: dict[str, Any] = {"name": full_name, "type": ftype, "label": label,
                          "required": X.flag(body, "required") or mtype == "MasterDetail",
                          "unique": X.flag(body, "unique")}
    if ftype == "string":
        kw["length"] = _int(X.text_of(body, "length"), 255 if mtype != "AutoNumber" else 30)
    elif ftype == "textarea":
        kw["length"] = _int(X.text_of(body, "length"), 255 if mtype == "TextArea" else 32768)
    elif ftype in ("picklist", "multipicklist"):
        kw["values"], kw["default"] = _picklist_values(org, body)
        kw["length"] = 255 if ftype == "picklist" else 4099
    elif ftype in ("email", "phone", "url"):
        kw["length"] = {"email": 80, "phone": 40, "url": 255}[ftype]
    elif ftype in ("double", "currency", "percent"):
        kw["precision"] = _int(X.text_of(body, "precision"), 18)
        kw["scale"] = _int(X.text_of(body, "scale"), 0 if ftype == "double" else 2)
    if mtype == "Checkbox":
        kw["default"] = (X.text_of(body, "defaultValue") or "false").lower() == "true"
    elif mtype == "AutoNumber":
        kw["auto_number"] = X.text_of(body, "displayFormat") or "{0}"
    if ftype == "reference":
        target = X.text_of(body, "referenceTo")
        known = dict(org.schema.objects)
        known.update(pending or {})
        if not target or target not in {n for n in known} and org.schema.get(target) is None:
            raise ComponentError(f"Field {obj_name}.{full_name}: referenceTo names no object: {target!r}")
        target_name = target if target in known else org.schema[target].name
        base = full_name[:-3] if full_name.endswith("__c") else full_name
        child = X.text_of(body, "relationshipName") or obj_name.replace("__c", "") + "s"
        kw.update(reference_to=[target_name], relationship_name=f"{base}__r",
                  child_relationship_name=f"{child}__r" if not child.endswith("__r") else child,
                  cascade_delete=mtype == "MasterDetail")
    if formula or mtype == "AutoNumber":
        kw["createable"] = kw["updateable"] = False
    return FieldSchema(**kw)


def _picklist_values(org: Org, body: ET.Element) -> tuple[list[str], str | None]:
    values: list[str] = []
    default = None
    for vs in X.children(body, "valueSet"):
        set_name = X.text_of(vs, "valueSetName")
        if set_name:
            stored = org.metadata.get(("GlobalValueSet", set_name))
            if stored is None:
                raise ComponentError(f"In field: valueSetName - no GlobalValueSet named {set_name} found")
            for cv in X.children(X.from_canonical(stored.body), "customValue"):
                if (X.text_of(cv, "isActive") or "true") != "false":
                    values.append(X.text_of(cv, "fullName") or "")
                    if X.flag(cv, "default"):
                        default = values[-1]
        for vsd in X.children(vs, "valueSetDefinition"):
            for v in X.children(vsd, "value"):
                values.append(X.text_of(v, "fullName") or "")
                if X.flag(v, "default"):
                    default = values[-1]
    for v in X.children(body, "picklist"):  # the form before API 38
        for pv in X.children(v, "picklistValues"):
            values.append(X.text_of(pv, "fullName") or "")
            if X.flag(pv, "default"):
                default = values[-1]
    return [v for v in values if v], default


def field_to_metadata(f: FieldSchema, obj: ObjectSchema) -> ET.Element:
    """The CustomField element the schema says (without the overlay)."""
    out = [X.leaf("fullName", f.name)]
    custom = f.name.endswith("__c")
    if not custom:
        if f.type == "picklist":
            out.append(X.leaf("type", "Picklist"))
        return X.element("CustomField", out)
    out.append(X.leaf("label", f.label))
    if f.auto_number:
        mtype = "AutoNumber"
        out.append(X.leaf("displayFormat", f.auto_number))
    elif f.type == "reference":
        mtype = "MasterDetail" if f.cascade_delete else "Lookup"
        out.append(X.leaf("referenceTo", f.reference_to[0]))
        if f.child_relationship_name:
            out.append(X.leaf("relationshipName", f.child_relationship_name.removesuffix("__r")))
            out.append(X.leaf("relationshipLabel", f.child_relationship_name.removesuffix("__r").replace("_", " ")))
        if mtype == "Lookup":
            out.append(X.leaf("deleteConstraint", "SetNull"))
    elif f.type == "textarea":
        mtype = "LongTextArea" if f.length > 255 else "TextArea"
        if mtype == "LongTextArea":
            out += [X.leaf("length", f.length), X.leaf("visibleLines", 3)]
    else:
        mtype = _TO_METADATA.get(f.type, "Text")
    out.append(X.leaf("type", mtype))
    if mtype in ("Text", "Email", "Phone", "Url", "Number", "Currency", "Percent", "Date", "DateTime", "Lookup",
                 "LongTextArea", "TextArea", "Picklist", "MultiselectPicklist"):
        out.append(X.leaf("required", f.required))
    if mtype == "Text":
        out += [X.leaf("length", f.length), X.leaf("unique", f.unique), X.leaf("externalId", False)]
    elif mtype in ("Number", "Currency", "Percent"):
        out += [X.leaf("precision", f.precision), X.leaf("scale", f.scale), X.leaf("externalId", False)]
    elif mtype == "Checkbox":
        out.append(X.leaf("defaultValue", bool(f.default)))
    elif mtype in ("Picklist", "MultiselectPicklist"):
        values = [X.element("value", [X.leaf("fullName", v), X.leaf("default", v == f.default), X.leaf("label", v)])
                  for v in f.values]
        out.append(X.element("valueSet", [X.element("valueSetDefinition", [X.leaf("sorted", False), *values])]))
        if mtype == "MultiselectPicklist":
            out.append(X.leaf("visibleLines", 4))
    out.append(X.leaf("trackTrending", False))
    return X.element("CustomField", out)


def _merge(generated: ET.Element, overlay: ET.Element | None, managed: frozenset[str] = frozenset()) -> ET.Element:
    """Overlay elements win over generated ones of the same tag, except ``managed`` tags."""
    if overlay is None:
        return X.sorted_children(generated)
    have = {c.tag for c in overlay if c.tag not in managed}
    out = ET.Element(generated.tag)
    out.extend(c for c in generated if c.tag not in have)
    out.extend(c for c in overlay if c.tag not in managed)
    return X.sorted_children(out)


def _customizable(obj: ObjectSchema) -> bool:
    return obj.api in ("data", "both") and obj.name not in NOT_CUSTOMIZABLE


class CustomFieldHandler(Handler):
    """CustomField ``Object.Field__c`` <-> a field of the schema (+ overlay)."""

    def _split(self, store: MetadataStore, full_name: str) -> tuple[ObjectSchema | None, str]:
        obj_name, _, fname = full_name.partition(".")
        return store.org.schema.get(obj_name), fname

    def names(self, store: MetadataStore) -> list[str]:
        return sorted(f"{o.name}.{f.name}" for o in store.org.schema.objects.values() if _customizable(o)
                      for f in o.fields.values() if f.name.endswith("__c"))

    def read(self, store: MetadataStore, full_name: str) -> ET.Element | None:
        obj, fname = self._split(store, full_name)
        f = obj.field(fname) if obj is not None and fname else None
        if obj is None or f is None:
            return None
        return _merge(field_to_metadata(f, obj), Handler.read(self, store, f"{obj.name}.{f.name}"),
                      frozenset({"fullName"}))

    def write(self, store: MetadataStore, full_name: str, body: ET.Element) -> bool:
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

    def apply_fields(self, store: MetadataStore, obj: ObjectSchema, items: list[tuple[str, ET.Element]],
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

    def delete(self, store: MetadataStore, full_name: str) -> None:
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

    def props(self, store: MetadataStore, full_name: str) -> FileProps:
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

    def names(self, store: MetadataStore) -> list[str]:
        return sorted(o.name for o in store.org.schema.objects.values() if _customizable(o))

    def _entity(self, store: MetadataStore, name: str) -> dict[str, Any] | None:
        if "EntityDefinition" not in store.org.schema:
            return None
        hits = store.org.find("EntityDefinition", QualifiedApiName=name)
        return hits[0] if hits else None

    def read(self, store: MetadataStore, full_name: str) -> ET.Element | None:
        return self.read_parts(store, full_name, None)

    def read_parts(self, store: MetadataStore, full_name: str, only: set[tuple[str, str]] | None) -> \
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
            own = _merge(X.element("CustomObject", gen), Handler.read(self, store, obj.name),
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

    def write(self, store: MetadataStore, full_name: str, body: ET.Element) -> bool:
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

    def _create(self, store: MetadataStore, name: str, body: ET.Element, field_items: list[tuple[str, ET.Element]]) \
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
                           key_prefix=_free_prefix(org), fields=fields, name_field="Name", owner=owner, api="data",
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

    def delete(self, store: MetadataStore, full_name: str) -> None:
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

    def props(self, store: MetadataStore, full_name: str) -> FileProps:
        ent = self._entity(store, full_name) or {}
        return FileProps("CustomObject", full_name, component_file("CustomObject", full_name),
                         ent.get("Id") or "" if full_name.endswith("__c") else "",
                         ent.get("CreatedDate") or "", ent.get("CreatedById"), ent.get("LastModifiedDate") or "",
                         ent.get("LastModifiedById"))


class StandardValueSetHandler(Handler):
    """StandardValueSet <-> the picklist values of the standard fields that use the set."""

    def _fields(self, store: MetadataStore, name: str) -> list[tuple[ObjectSchema, FieldSchema]]:
        canonical = next((k for k in STANDARD_VALUE_SETS if k.lower() == name.lower()), None)
        out = []
        for obj_name, fname in STANDARD_VALUE_SETS.get(canonical or "", []):
            obj = store.org.schema.get(obj_name)
            f = obj.field(fname) if obj is not None else None
            if obj is not None and f is not None and f.type in ("picklist", "multipicklist"):
                out.append((obj, f))
        return out

    def names(self, store: MetadataStore) -> list[str]:
        return sorted(n for n in STANDARD_VALUE_SETS if self._fields(store, n))

    def read(self, store: MetadataStore, full_name: str) -> ET.Element | None:
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
        return _merge(gen, Handler.read(self, store, full_name), frozenset({"standardValue"}))

    def write(self, store: MetadataStore, full_name: str, body: ET.Element) -> bool:
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

    def delete(self, store: MetadataStore, full_name: str) -> None:
        raise ComponentError(f"Cannot delete the standard value set {full_name}")
