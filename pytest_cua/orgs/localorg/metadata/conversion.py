"""The org's schema and its metadata, converted: a CustomField element to a ``FieldSchema`` and back
(``field_from_metadata``, ``field_to_metadata``), a new schema served in place of the old (``rebuild``), the key
prefix of a new custom object (``free_prefix``) and a generated element under its overlay (``merge_overlay``).

Imports: the org's schema and store, ``metadata.base`` and ``metadata.xmltree``; no handler module.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.base import ComponentError
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema, Schema, SchemaError
from pytest_cua.orgs.localorg.store import Org

_TO_SCHEMA = {"Text": "string", "TextArea": "textarea", "LongTextArea": "textarea", "Html": "textarea",
              "EncryptedText": "string", "Email": "email", "Phone": "phone", "Url": "url", "Picklist": "picklist",
              "MultiselectPicklist": "multipicklist", "Checkbox": "boolean", "Number": "double",
              "Currency": "currency", "Percent": "percent", "Date": "date", "DateTime": "datetime",
              "Lookup": "reference", "MasterDetail": "reference", "AutoNumber": "string", "Summary": "double"}
_TO_METADATA = {"string": "Text", "email": "Email", "phone": "Phone", "url": "Url", "picklist": "Picklist",
                "multipicklist": "MultiselectPicklist", "boolean": "Checkbox", "int": "Number", "double": "Number",
                "currency": "Currency", "percent": "Percent", "date": "Date", "datetime": "DateTime"}


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


def free_prefix(org: Org) -> str:
    """A key prefix no object of the schema has (``aXY``) for a new custom object."""
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


def merge_overlay(generated: ET.Element, overlay: ET.Element | None, managed: frozenset[str] = frozenset()) -> ET.Element:
    """``generated`` under ``overlay``: overlay elements win over generated ones of the same tag, except
    ``managed`` tags."""
    if overlay is None:
        return X.sorted_children(generated)
    have = {c.tag for c in overlay if c.tag not in managed}
    out = ET.Element(generated.tag)
    out.extend(c for c in generated if c.tag not in have)
    out.extend(c for c in overlay if c.tag not in managed)
    return X.sorted_children(out)
