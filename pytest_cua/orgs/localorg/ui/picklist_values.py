"""Where a picklist field's values live, and the "Values" section of its Object Manager page.

A standard field's values are in its standard value set (``StandardValueSet``: Case Status is ``CaseStatus``,
shared by the fields that use the set), a custom field's in its own ``valueSetDefinition`` (``CustomField``), a
field bound to a global value set in that ``GlobalValueSet``. ``ValueSource`` reads and writes the values of one
such component through the Metadata store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError
from pytest_cua.orgs.localorg.metadata.objects import STANDARD_VALUE_SETS
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema
from pytest_cua.orgs.localorg.ui.object_manager import OM
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store

SETS = "/lightning/setup/Picklists"
_ENTRY = {"StandardValueSet": "standardValue", "GlobalValueSet": "customValue", "CustomField": "value"}


@dataclass(frozen=True)
class Value:
    name: str
    label: str
    default: bool


@dataclass(frozen=True)
class ValueSource:
    """Where a picklist's values are kept: a component type and its full name."""

    type: str
    full_name: str

    def read(self, store: MetadataStore) -> ET.Element:
        body = store.read(self.type, self.full_name)
        if body is None:
            raise ComponentError(f"No {self.type} named: {self.full_name} found")
        return body

    def entries(self, body: ET.Element) -> list[ET.Element]:
        if self.type == "CustomField":
            return [v for vs in X.children(body, "valueSet") for d in X.children(vs, "valueSetDefinition")
                    for v in X.children(d, "value")]
        return X.children(body, _ENTRY[self.type])

    def values(self, store: MetadataStore) -> list[Value]:
        return [Value(X.text_of(v, "fullName") or "", X.text_of(v, "label") or X.text_of(v, "fullName") or "",
                      X.flag(v, "default")) for v in self.entries(self.read(store))]

    def write(self, store: MetadataStore, values: list[Value], sort: bool | None = None) -> None:
        """Put ``values`` (in order) back, each entry keeping the settings the page does not show."""
        body = self.read(store)
        old = {X.text_of(v, "fullName"): v for v in self.entries(body)}
        tag = _ENTRY[self.type]
        entries = []
        for v in values:
            before = old.get(v.name)
            kept = [c for c in (before if before is not None else []) if c.tag not in ("fullName", "default", "label")]
            entries.append(X.element(tag, [X.leaf("fullName", v.name), X.leaf("default", v.default),
                                           X.leaf("label", v.label), *kept]))
        out = ET.Element(body.tag)
        if self.type == "CustomField":
            out.extend(c for c in body if c.tag not in ("valueSet", "fullName"))
            restricted = [c for vs in X.children(body, "valueSet") for c in vs if c.tag != "valueSetDefinition"]
            out.append(X.element("valueSet", [*restricted, X.element(
                "valueSetDefinition", [X.leaf("sorted", bool(sort)), *entries])]))
        else:
            out.extend(c for c in body if c.tag not in (tag, "sorted", "fullName"))
            out.append(X.leaf("sorted", bool(sort) if sort is not None else X.flag(body, "sorted")))
            out.extend(entries)
        store.write(self.type, self.full_name, X.sorted_children(out))


def value_source(ctx: RequestContext, obj: ObjectSchema, f: FieldSchema) -> ValueSource | None:
    """Where the values of ``obj.f`` are kept (None for a field that is not a picklist)."""
    if f.type not in ("picklist", "multipicklist"):
        return None
    if not f.name.endswith("__c"):
        for name, users in STANDARD_VALUE_SETS.items():
            if (obj.name, f.name) in users:
                return ValueSource("StandardValueSet", name)
        return None
    body = metadata_store(ctx).read("CustomField", f"{obj.name}.{f.name}")
    global_set = X.text_of(X.children(body, "valueSet")[0], "valueSetName") \
        if body is not None and X.children(body, "valueSet") else None
    return ValueSource("GlobalValueSet", global_set) if global_set else ValueSource("CustomField",
                                                                                     f"{obj.name}.{f.name}")


def values_section(ctx: RequestContext, obj: ObjectSchema, f: FieldSchema) -> dict[str, Any] | None:
    """The "Values" section of a picklist field's page: each value with its Edit link, New and Reorder."""
    source = value_source(ctx, obj, f)
    if source is None:
        return None
    base = f"{OM}/{obj.name}/FieldsAndRelationships/{f.name}/values"
    values = source.values(metadata_store(ctx))
    rows = [{"url": None, "cells": [v.label, v.name, "Yes" if v.default else ""],
             "actions": [{"label": "Edit", "name": f"Edit {v.label}", "url": f"{base}/{i}/edit"}]}
            for i, v in enumerate(values)]
    actions = [{"label": "New", "url": f"{base}/new"}, {"label": "Reorder", "url": f"{base}/reorder"}]
    if source.type == "GlobalValueSet":
        actions = [{"label": "Open the global value set", "url": f"{SETS}/{source.full_name}/view"}]
    return {"title": "Values", "columns": ["Value", "API Name", "Default", "Action"], "rows": rows,
            "actions": actions}
