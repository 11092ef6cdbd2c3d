"""Validation of a record before it is stored: required fields, references to existing records of the right
objects, unique values and validation rules (of the schema file and active ValidationRule records, evaluated by
``formula``).

Imports: the org's schema, formula, errors and snapshots (``Record``); not the store, which calls ``validate``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, cast

from pytest_cua.orgs.localorg import formula
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import ObjectSchema, Schema
from pytest_cua.orgs.localorg.snapshots import Record

Tables = Mapping[str, Mapping[str, Record]]  # object name -> id -> record


def _object_of_id(schema: Schema, record_id: str) -> ObjectSchema | None:
    return schema.by_prefix(record_id[:3]) if isinstance(record_id, str) else None


def validate(obj: ObjectSchema, rec: Record, old: Record | None, schema: Schema, tables: Tables,
             unenforced: dict[str, str]) -> None:
    """Check the new version ``rec`` of a record (``old``: the stored one, None on insert): required fields,
    references, unique values and validation rules; ``OrgError`` on the first failure. Rules whose formula is
    not supported are skipped and noted in ``unenforced`` (``"Object.Rule"`` -> why)."""
    missing = [f.name for f in obj.fields.values() if f.required and rec.get(f.name) in (None, "")]
    if missing:
        raise OrgError("REQUIRED_FIELD_MISSING", f"Required fields are missing: [{', '.join(missing)}]", missing)
    for f in obj.fields.values():
        value = rec.get(f.name)
        if value is None:
            continue
        if f.type == "reference" and (old is None or old.get(f.name) != value) and value != rec["Id"] \
                and (not f.system or f.name == "OwnerId"):
            target = _object_of_id(schema, value)
            if target is None or target.name not in f.reference_to or value not in tables[target.name]:
                raise OrgError("INVALID_CROSS_REFERENCE_KEY",
                               f"invalid cross reference id: {f.label} ({f.name}) = {value} is not a "
                               f"{' or '.join(f.reference_to)}", [f.name])
        if f.unique and (old is None or old.get(f.name) != value):
            low = value.lower() if isinstance(value, str) else value
            for other in tables[obj.name].values():
                ov = other.get(f.name)
                if other["Id"] != rec["Id"] and (ov.lower() if isinstance(ov, str) else ov) == low:
                    raise OrgError("DUPLICATE_VALUE", f"duplicate value found: {f.name} duplicates value on "
                                   f"record with id: {other['Id']}", [f.name])
    _check_rules(obj, rec, old, schema, tables, unenforced)


def active_rules(obj: ObjectSchema, tables: Tables) -> list[dict[str, Any]]:
    """The active rules of ``obj``: those of its schema file and active ValidationRule records."""
    rules = [dict(r, source="schema") for r in obj.validation_rules if r.get("active", True)]
    for r in tables.get("ValidationRule", {}).values():
        if r.get("Active") and (r.get("EntityDefinitionId") or "").lower() == obj.name.lower():
            rules.append({"name": r.get("ValidationName"), "errorConditionFormula": r.get("ErrorConditionFormula"),
                          "errorMessage": r.get("ErrorMessage"), "errorDisplayField": r.get("ErrorDisplayField"),
                          "source": r["Id"]})
    return rules


def _check_rules(obj: ObjectSchema, rec: Record, old: Record | None, schema: Schema, tables: Tables,
                 unenforced: dict[str, str]) -> None:
    rules = active_rules(obj, tables)
    if not rules:
        return
    ctx = formula.Context(_resolver(obj, rec, schema, tables),
                          _resolver(obj, old, schema, tables) if old else None, old is None)
    for rule in rules:
        text = rule.get("errorConditionFormula") or ""
        key = f"{obj.name}.{rule.get('name')}"
        try:
            hit = formula.evaluate(text, ctx)
        except formula.FormulaUnsupported as exc:
            unenforced[key] = str(exc)
            continue
        unenforced.pop(key, None)
        if hit is True:
            shown = rule.get("errorDisplayField")
            raise OrgError("FIELD_CUSTOM_VALIDATION_EXCEPTION", str(rule.get("errorMessage") or key),
                           [shown] if shown else [])


def _resolver(obj: ObjectSchema, rec: Record | None, schema: Schema,
              tables: Tables) -> Callable[[tuple[str, ...]], Any]:
    def resolve(path: tuple[str, ...]) -> Any:
        current_obj, current = obj, rec
        for i, part in enumerate(path):
            if current is None:
                return None
            if i == len(path) - 1:
                f = current_obj.field(part)
                if f is None:
                    raise formula.FormulaUnsupported(f"no field {part} on {current_obj.name}")
                return current.get(f.name)
            ref = current_obj.relationship(part)
            if ref is None:
                raise formula.FormulaUnsupported(f"no relationship {part} on {current_obj.name}")
            target_id = current.get(ref.name)
            target = _object_of_id(schema, target_id) if target_id else None
            if target is None:
                return None
            current_obj, current = target, tables[target.name].get(cast(str, target_id))
        return None
    return resolve
