"""Declarative object schemas: one JSON file per object under ``fixtures/localorg/schema/``.

A schema file looks like::

    {"name": "Account", "label": "Account", "labelPlural": "Accounts", "keyPrefix": "001",
     "nameField": "Name", "owner": ["User"], "api": "data",
     "sharing": {"internal": "ReadWrite", "external": "Private"},
     "lookupFields": ["Name"],
     "fields": [{"name": "Name", "type": "string", "length": 255, "required": true}, ...],
     "validationRules": [{"name": "...", "errorConditionFormula": "...", "errorMessage": "..."}]}

Field keys: ``name``, ``type`` (see ``FIELD_TYPES``), ``label``, ``length``, ``required``, ``default``,
``values`` (picklist values), ``restricted`` (reject values outside ``values``), ``unique``, ``referenceTo``,
``relationshipName``, ``childRelationshipName``, ``cascadeDelete``, ``createable``, ``updateable``,
``autoNumber`` (display format such as ``"{00000000}"``), ``fullName`` (list of fields joined by a space,
e.g. the ``Name`` of a Contact), ``precision``/``scale``.

System fields (Id, IsDeleted, CreatedDate, CreatedById, LastModifiedDate, LastModifiedById, SystemModstamp and
OwnerId when ``owner`` is given) are added by the loader. Adding an object means adding a file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

FIELD_TYPES = frozenset(
    {
        "id", "string", "textarea", "email", "phone", "url", "picklist", "multipicklist", "boolean", "int",
        "double", "currency", "percent", "date", "datetime", "reference", "json",
    }
)
TEXT_TYPES = frozenset({"string", "textarea", "email", "phone", "url", "picklist", "multipicklist", "id",
                        "reference"})
NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
SHARING_MODELS = ("Private", "Read", "ReadWrite", "ReadWriteTransfer", "FullAccess", "ControlledByParent",
                  "ControlledByLeadOrContact", "ControlledByCampaign", "None")

# soap types per field type, for describe()
_SOAP_TYPES = {
    "id": "tns:ID", "reference": "tns:ID", "boolean": "xsd:boolean", "int": "xsd:int", "double": "xsd:double",
    "currency": "xsd:double", "percent": "xsd:double", "date": "xsd:date", "datetime": "xsd:dateTime",
    "json": "urn:JsonObject",
}


FIXTURES_ENV = "PYTEST_CUA_LOCALORG_FIXTURES"


def default_repo_fixtures() -> Path:
    """Where the org's schema and seed live: ``$PYTEST_CUA_LOCALORG_FIXTURES`` when set, else the package's
    ``localorg`` data (the repository's ``fixtures/localorg``, shipped in the wheel as ``pytest_cua._fixtures``)."""
    import os

    from pytest_cua.package_data import fixtures_dir

    override = os.environ.get(FIXTURES_ENV)
    if override:
        return Path(override)
    return fixtures_dir("localorg")


def _label_of(name: str) -> str:
    base = name[:-3] if name.endswith("__c") else name
    if base.endswith("Id") and len(base) > 2:
        base = base[:-2]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", base).replace("_", " ")
    return words.strip()


class SchemaError(ValueError):
    """A schema file that does not make sense; the message names the file and the field."""


@dataclass
class FieldSchema:
    """One field of an object."""

    name: str
    type: str
    label: str = ""
    length: int = 0
    required: bool = False
    default: Any = None
    values: list[str] = field(default_factory=list)
    restricted: bool = False
    unique: bool = False
    reference_to: list[str] = field(default_factory=list)
    relationship_name: str | None = None
    child_relationship_name: str | None = None
    cascade_delete: bool = False
    createable: bool = True
    updateable: bool = True
    auto_number: str | None = None
    full_name: list[str] = field(default_factory=list)
    system: bool = False
    precision: int = 18
    scale: int = 2

    @property
    def calculated(self) -> bool:
        """True for fields the org computes (auto numbers, full names)."""
        return bool(self.auto_number or self.full_name)

    @property
    def nillable(self) -> bool:
        """Whether null is allowed (what describe calls ``nillable``)."""
        return not (self.required or self.type in ("boolean", "id") or self.system or self.auto_number)

    @property
    def polymorphic(self) -> bool:
        """True for references to more than one object (OwnerId to User or Group, WhatId, ...)."""
        return len(self.reference_to) > 1

    def describe(self) -> dict[str, Any]:
        """The field entry of an sObject describe."""
        t = self.type
        length = self.length if t in TEXT_TYPES else 0
        if t in ("id", "reference"):
            length = 18
        return {
            "aggregatable": t not in ("textarea", "multipicklist", "json"),
            "autoNumber": bool(self.auto_number),
            "byteLength": length * 3,
            "calculated": bool(self.full_name),
            "caseSensitive": False,
            "createable": self.createable,
            "custom": self.name.endswith("__c"),
            "defaultValue": self.default if t != "boolean" else None,
            "defaultedOnCreate": self.default is not None or self.system,
            "digits": 9 if t == "int" else 0,
            "externalId": False,
            "filterable": t not in ("textarea", "json"),
            "groupable": t not in ("textarea", "json", "double", "currency", "percent", "datetime"),
            "idLookup": t == "id" or self.unique,
            "label": self.label,
            "length": length,
            "name": self.name,
            "nameField": False,
            "nillable": self.nillable,
            "picklistValues": [
                {"active": True, "defaultValue": v == self.default, "label": v, "validFor": None, "value": v}
                for v in self.values
            ],
            "polymorphicForeignKey": self.polymorphic,
            "precision": self.precision if t in ("double", "currency", "percent") else 0,
            "referenceTo": list(self.reference_to),
            "relationshipName": self.relationship_name,
            "restrictedPicklist": self.restricted,
            "scale": self.scale if t in ("double", "currency", "percent") else 0,
            "soapType": _SOAP_TYPES.get(t, "xsd:string"),
            "sortable": t not in ("textarea", "multipicklist", "json"),
            "type": t,
            "unique": self.unique,
            "updateable": self.updateable,
        }


@dataclass
class ChildRelationship:
    """A child relationship as describe reports it (``Contacts`` of Account: Contact.AccountId)."""

    name: str
    child_object: str
    field: str
    cascade_delete: bool


@dataclass
class ObjectSchema:
    """One object (sObject type)."""

    name: str
    label: str
    label_plural: str
    key_prefix: str
    fields: dict[str, FieldSchema]
    name_field: str | None = None
    owner: list[str] = field(default_factory=list)
    api: str = "data"  # "data", "tooling" or "both"
    sharing: dict[str, str] = field(default_factory=dict)
    lookup_fields: list[str] = field(default_factory=list)
    validation_rules: list[dict[str, Any]] = field(default_factory=list)
    child_relationships: list[ChildRelationship] = field(default_factory=list)
    source: str = ""
    derived: bool = False  # kept by the org from other records: queried, never written through the API
    _lower: dict[str, str] = field(default_factory=dict, repr=False)
    _relationships: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._lower = {n.lower(): n for n in self.fields}
        self._relationships = {f.relationship_name.lower(): f.name for f in self.fields.values()
                               if f.relationship_name}

    @property
    def custom(self) -> bool:
        """True for custom objects and custom knowledge article versions (``__c``, ``__kav``)."""
        return "__" in self.name

    def field(self, name: str) -> FieldSchema | None:
        """The field called ``name`` (any letter case), or None."""
        canonical = self._lower.get(name.lower())
        return self.fields[canonical] if canonical else None

    def relationship(self, name: str) -> FieldSchema | None:
        """The reference field whose relationship name is ``name`` (``Owner`` -> OwnerId), or None."""
        canonical = self._relationships.get(name.lower())
        return self.fields[canonical] if canonical else None

    def child_relationship(self, name: str) -> ChildRelationship | None:
        """The child relationship called ``name`` (any letter case), or None."""
        low = name.lower()
        for rel in self.child_relationships:
            if rel.name.lower() == low:
                return rel
        return None

    def urls(self, version: str) -> dict[str, str]:
        base = f"/services/data/v{version}/sobjects/{self.name}"
        return {"sobject": base, "describe": f"{base}/describe", "rowTemplate": f"{base}/{{ID}}"}

    def describe_global_entry(self, version: str) -> dict[str, Any]:
        """The entry of this object in the global describe."""
        return {
            "activateable": False, "createable": True, "custom": self.custom, "customSetting": False,
            "deletable": True, "deprecatedAndHidden": False, "feedEnabled": False, "keyPrefix": self.key_prefix,
            "label": self.label, "labelPlural": self.label_plural, "layoutable": True, "mergeable": False,
            "mruEnabled": True, "name": self.name, "queryable": True, "replicateable": True,
            "retrieveable": True, "searchable": True, "triggerable": True, "undeletable": True,
            "updateable": True, "urls": self.urls(version),
        }

    def describe(self, version: str) -> dict[str, Any]:
        """The full sObject describe."""
        out = self.describe_global_entry(version)
        fields = []
        for f in self.fields.values():
            d = f.describe()
            d["nameField"] = f.name == self.name_field
            fields.append(d)
        out.update(
            {
                "childRelationships": [
                    {"cascadeDelete": r.cascade_delete, "childSObject": r.child_object, "deprecatedAndHidden": False,
                     "field": r.field, "junctionIdListNames": [], "junctionReferenceTo": [],
                     "relationshipName": r.name, "restrictedDelete": False}
                    for r in self.child_relationships
                ],
                "fields": fields,
                "recordTypeInfos": [],
                "supportedScopes": [{"label": "All", "name": "everything"}, {"label": "Mine", "name": "mine"}],
            }
        )
        out["urls"].update({"compactLayouts": f"/services/data/v{version}/sobjects/{self.name}/describe/compactLayouts",
                            "layouts": f"/services/data/v{version}/sobjects/{self.name}/describe/layouts"})
        return out


_FIELD_KEYS = {
    "name", "type", "label", "length", "required", "default", "values", "restricted", "unique", "referenceTo",
    "relationshipName", "childRelationshipName", "cascadeDelete", "createable", "updateable", "autoNumber",
    "fullName", "precision", "scale",
}


def _parse_field(raw: dict[str, Any], where: str) -> FieldSchema:
    unknown = set(raw) - _FIELD_KEYS
    if unknown:
        raise SchemaError(f"{where}: unknown key(s) {sorted(unknown)}")
    name = raw.get("name")
    if not isinstance(name, str) or not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", name):
        raise SchemaError(f"{where}: field name missing or invalid: {name!r}")
    ftype = raw.get("type", "string")
    if ftype not in FIELD_TYPES:
        raise SchemaError(f"{where}: field {name}: unknown type {ftype!r} (known: {sorted(FIELD_TYPES)})")
    if ftype == "reference" and not raw.get("referenceTo"):
        raise SchemaError(f"{where}: reference field {name} needs referenceTo")
    length = int(raw.get("length", {"string": 255, "textarea": 32768, "email": 80, "phone": 40, "url": 255,
                                    "picklist": 255, "multipicklist": 4099}.get(ftype, 0)))
    calculated = bool(raw.get("autoNumber") or raw.get("fullName"))
    return FieldSchema(
        name=name, type=ftype, label=raw.get("label") or _label_of(name), length=length,
        required=bool(raw.get("required", False)), default=raw.get("default"), values=list(raw.get("values", [])),
        restricted=bool(raw.get("restricted", False)), unique=bool(raw.get("unique", False)),
        reference_to=list(raw.get("referenceTo", [])), relationship_name=raw.get("relationshipName"),
        child_relationship_name=raw.get("childRelationshipName"), cascade_delete=bool(raw.get("cascadeDelete")),
        createable=bool(raw.get("createable", not calculated)), updateable=bool(raw.get("updateable", not calculated)),
        auto_number=raw.get("autoNumber"), full_name=list(raw.get("fullName", [])),
        precision=int(raw.get("precision", 18)), scale=int(raw.get("scale", 2)),
    )


def _system_fields(owner: list[str]) -> list[FieldSchema]:
    sysf = [
        FieldSchema("Id", "id", "Record ID", createable=False, updateable=False, system=True),
        FieldSchema("IsDeleted", "boolean", "Deleted", createable=False, updateable=False, system=True),
        FieldSchema("CreatedDate", "datetime", "Created Date", createable=False, updateable=False, system=True),
        FieldSchema("CreatedById", "reference", "Created By ID", reference_to=["User"], relationship_name="CreatedBy",
                    createable=False, updateable=False, system=True),
        FieldSchema("LastModifiedDate", "datetime", "Last Modified Date", createable=False, updateable=False,
                    system=True),
        FieldSchema("LastModifiedById", "reference", "Last Modified By ID", reference_to=["User"],
                    relationship_name="LastModifiedBy", createable=False, updateable=False, system=True),
        FieldSchema("SystemModstamp", "datetime", "System Modstamp", createable=False, updateable=False, system=True),
    ]
    if owner:
        sysf.insert(1, FieldSchema("OwnerId", "reference", "Owner ID", reference_to=list(owner),
                                   relationship_name="Owner", system=True))
    return sysf


def parse_object(raw: dict[str, Any], source: str = "<dict>") -> ObjectSchema:
    """Build an ``ObjectSchema`` from the JSON of one schema file; ``source`` names it in errors."""
    where = source
    name = raw.get("name")
    if not isinstance(name, str):
        raise SchemaError(f"{where}: 'name' missing")
    prefix = raw.get("keyPrefix")
    if not isinstance(prefix, str) or not re.match(r"^[A-Za-z0-9]{3}$", prefix):
        raise SchemaError(f"{where}: keyPrefix must be 3 letters or digits, got {prefix!r}")
    owner = list(raw.get("owner", []))
    fields: dict[str, FieldSchema] = {}
    for f in _system_fields(owner):
        fields[f.name] = f
    for i, rawf in enumerate(raw.get("fields", [])):
        f = _parse_field(rawf, f"{where}: fields[{i}]")
        if f.name.lower() in {n.lower() for n in fields}:
            raise SchemaError(f"{where}: field {f.name} defined twice (system fields are added automatically)")
        fields[f.name] = f
    name_field = raw.get("nameField")
    if name_field and name_field not in fields:
        raise SchemaError(f"{where}: nameField {name_field!r} is not a field")
    api = raw.get("api", "data")
    if api not in ("data", "tooling", "both"):
        raise SchemaError(f"{where}: api must be data, tooling or both, got {api!r}")
    return ObjectSchema(
        name=name, label=raw.get("label") or _label_of(name), label_plural=raw.get("labelPlural") or
        (raw.get("label") or _label_of(name)) + "s", key_prefix=prefix, fields=fields, name_field=name_field,
        owner=owner, api=api, sharing=dict(raw.get("sharing", {})),
        lookup_fields=list(raw.get("lookupFields", [name_field] if name_field else [])),
        validation_rules=list(raw.get("validationRules", [])), source=source, derived=bool(raw.get("derived")),
    )


class Schema:
    """All objects of an org, looked up by name in any letter case or by key prefix."""

    def __init__(self, objects: Iterable[ObjectSchema]) -> None:
        self.objects: dict[str, ObjectSchema] = {}
        self._lower: dict[str, str] = {}
        self._prefix: dict[str, str] = {}
        for obj in objects:
            if obj.name.lower() in self._lower:
                raise SchemaError(f"{obj.source}: object {obj.name} defined twice")
            if obj.key_prefix in self._prefix:
                raise SchemaError(f"{obj.source}: key prefix {obj.key_prefix} of {obj.name} is already used by "
                                  f"{self._prefix[obj.key_prefix]}")
            self.objects[obj.name] = obj
            self._lower[obj.name.lower()] = obj.name
            self._prefix[obj.key_prefix] = obj.name
        self._link()

    def _link(self) -> None:
        for obj in self.objects.values():
            for f in obj.fields.values():
                for target in f.reference_to:
                    if target not in self.objects:
                        raise SchemaError(f"{obj.source}: field {obj.name}.{f.name} refers to unknown object "
                                          f"{target!r}")
                    if f.child_relationship_name:
                        self.objects[target].child_relationships.append(
                            ChildRelationship(f.child_relationship_name, obj.name, f.name, f.cascade_delete))
        for obj in self.objects.values():
            seen: set[str] = set()
            for rel in obj.child_relationships:
                if rel.name.lower() in seen:
                    raise SchemaError(f"child relationship {obj.name}.{rel.name} defined twice")
                seen.add(rel.name.lower())

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._lower

    def __getitem__(self, name: str) -> ObjectSchema:
        return self.objects[self._lower[name.lower()]]

    def get(self, name: str) -> ObjectSchema | None:
        """The object called ``name`` in any letter case, or None."""
        canonical = self._lower.get(name.lower())
        return self.objects[canonical] if canonical else None

    def by_prefix(self, key_prefix: str) -> ObjectSchema | None:
        """The object whose ids start with ``key_prefix``, or None."""
        name = self._prefix.get(key_prefix)
        return self.objects[name] if name else None

    def names(self) -> list[str]:
        """Object names, sorted."""
        return sorted(self.objects)


def load_schema(directory: str | Path | None = None) -> Schema:
    """Load every ``*.json`` file of ``directory`` (default: ``schema/`` of ``default_repo_fixtures()``)."""
    path = Path(directory) if directory is not None else default_repo_fixtures() / "schema"
    if not path.is_dir():
        raise SchemaError(f"schema directory not found: {path}")
    objects = []
    for file in sorted(path.glob("*.json")):
        try:
            raw = json.loads(file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SchemaError(f"{file}: not valid JSON: {exc}") from exc
        obj = parse_object(raw, str(file))
        if file.stem != obj.name:
            raise SchemaError(f"{file}: file name must be the object name {obj.name}.json")
        objects.append(obj)
    return Schema(objects)
