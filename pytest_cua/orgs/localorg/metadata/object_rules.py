"""List views and validation rules: the metadata of an object held as ListView and ValidationRule records, and the
AssignmentRules files of the objects that take assignment rules."""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata import columns
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.base import ComponentError, Components, ParentHandler, RecordHandler, \
    text_or_none
from pytest_cua.orgs.localorg.metadata.types import root_tag

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

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        obj, name = full_name.partition(".")[0], full_name.partition(".")[2]
        for rec in store.org.records("ListView"):
            if (rec.get("SobjectType") or "").lower() == obj.lower() and \
                    (rec.get("DeveloperName") or "").lower() == name.lower():
                return rec if rec.get("Visibility") != "Private" else None
        return None

    def record_names(self, store: Components) -> list[str]:
        return [f"{r['SobjectType']}.{r['DeveloperName']}" for r in store.org.records("ListView")
                if r.get("SobjectType") and r.get("DeveloperName") and r.get("Visibility") != "Private"]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
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

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
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
        fields = {"Name": text_or_none(body, "label") or name, "FilterScope": text_or_none(body, "filterScope") or "Everything",
                  "Columns": json.dumps([field((c.text or "").strip()) for c in X.children(body, "columns")]),
                  "Filters": json.dumps(filters), "BooleanFilter": text_or_none(body, "booleanFilter"),
                  "SharedWith": json.dumps(shared) if shared else None, "Visibility": visibility}
        if rec is None:
            return store.org.insert_trusted("ListView", {**fields, "DeveloperName": name, "SobjectType": obj.name},
                                            user_id=store.user_id)
        store.org.update_trusted("ListView", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
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

    def record(self, store: Components, full_name: str) -> dict[str, Any] | None:
        obj, _, name = full_name.partition(".")
        for rec in store.org.records("ValidationRule"):
            if (rec.get("EntityDefinitionId") or "").lower() == obj.lower() and \
                    (rec.get("ValidationName") or "").lower() == name.lower():
                return rec
        return None

    def record_names(self, store: Components) -> list[str]:
        return [f"{r['EntityDefinitionId']}.{r['ValidationName']}" for r in store.org.records("ValidationRule")
                if r.get("EntityDefinitionId") and r.get("ValidationName")]

    def elements(self, store: Components, full_name: str, rec: dict[str, Any]) -> list[ET.Element]:
        out = [X.leaf("fullName", full_name.split(".", 1)[1]), X.leaf("active", bool(rec.get("Active"))),
               X.leaf("errorConditionFormula", rec.get("ErrorConditionFormula") or ""),
               X.leaf("errorMessage", rec.get("ErrorMessage") or "")]
        if rec.get("Description"):
            out.append(X.leaf("description", rec["Description"]))
        if rec.get("ErrorDisplayField"):
            out.append(X.leaf("errorDisplayField", rec["ErrorDisplayField"]))
        return out

    def apply(self, store: Components, full_name: str, rec: dict[str, Any] | None, body: ET.Element) -> str:
        obj_name, _, name = full_name.partition(".")
        obj = store.org.schema.get(obj_name)
        if obj is None or not name:
            raise ComponentError(f"Could not resolve the object of validation rule {full_name}")
        fields = {"Active": X.flag(body, "active"), "Description": text_or_none(body, "description"),
                  "ErrorConditionFormula": text_or_none(body, "errorConditionFormula"),
                  "ErrorMessage": text_or_none(body, "errorMessage"), "ErrorDisplayField": text_or_none(body, "errorDisplayField")}
        if not fields["ErrorConditionFormula"] or not fields["ErrorMessage"]:
            raise ComponentError("Required fields are missing: errorConditionFormula, errorMessage")
        if rec is None:
            return store.org.insert_trusted("ValidationRule", {**fields, "ValidationName": name,
                                                               "EntityDefinitionId": obj.name}, user_id=store.user_id)
        store.org.update_trusted("ValidationRule", rec["Id"], fields, user_id=store.user_id)
        return str(rec["Id"])

    def remove(self, store: Components, full_name: str, rec: dict[str, Any]) -> None:
        store.org.delete("ValidationRule", rec["Id"])



class AssignmentRulesHandler(ParentHandler):
    """AssignmentRules: the objects that take assignment rules (Case, Lead) always have the file, empty until a
    rule is made, as a retrieve from Salesforce gives it."""

    ALWAYS = ("Case", "Lead")

    def names(self, store: Components) -> list[str]:
        return sorted(set(super().names(store)) | set(self.ALWAYS))

    def read_parts(self, store: Components, full_name: str,
                   only: set[tuple[str, str]] | None) -> ET.Element | None:
        found = super().read_parts(store, full_name, only)
        if found is None and only is None and full_name in self.ALWAYS:
            return ET.Element(root_tag(self.type, full_name))
        return found
