"""Seed records: per-object JSON lists (``<dir>/<Object>.json``), the format of SCUBA's prerequisites.

Each file holds a list of records (field -> value). A reference field may be given by id or by name: the name
is looked up in the target object's lookup fields (``lookupFields`` in its schema, e.g. Username or Name for
User, DeveloperName or Name for Group), so ``"ProfileId": "Standard User"`` works. Files are loaded in
dependency order (an object after the objects its references point to); records in a file in file order, so a
record may refer to an earlier one of the same object (a role to its parent role).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from pytest_cua.orgs.localorg import behaviors, ids
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.schema import ObjectSchema, default_repo_fixtures
from pytest_cua.orgs.localorg.store import Org


class SeedError(ValueError):
    """A seed record that does not fit the schema; names the source, object, record index and field."""

    def __init__(self, source: str, sobject: str, index: int, field: str | None, reason: str) -> None:
        where = f"{source}: {sobject} record #{index}" + (f", field {field}" if field else "")
        super().__init__(f"{where}: {reason}")
        self.source, self.sobject, self.index, self.field, self.reason = source, sobject, index, field, reason


def resolve_name(org: Org, target_names: Sequence[str], value: str) -> str | None:
    """The id of the one record of ``target_names`` whose lookup field equals ``value`` (case-insensitive)."""
    low = value.lower()
    hits: list[str] = []
    for target in target_names:
        obj = org.object(target)
        keys = obj.lookup_fields or ([obj.name_field] if obj.name_field else [])
        for key in keys:
            found = [r["Id"] for r in org.table(obj.name).values()
                     if isinstance(r.get(key), str) and r[key].lower() == low]
            if found:
                hits.extend(found)
                break
    unique = list(dict.fromkeys(hits))
    if len(unique) > 1:
        raise ValueError(f"{value!r} matches {len(unique)} records of {'/'.join(target_names)}: {unique[:5]}")
    return unique[0] if unique else None


def _resolve_references(org: Org, obj: ObjectSchema, record: Mapping[str, Any], source: str, index: int,
                        id_map: Mapping[str, str] | None = None, ignore_unknown: bool = False,
                        skipped: set[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.items():
        f = obj.field(key)
        if f is None or (key == "Id" and ignore_unknown):
            if ignore_unknown:
                if skipped is not None:
                    skipped.add(key)
                continue
            raise SeedError(source, obj.name, index, key, f"no field {key!r} on {obj.name}")
        if f.type == "reference" and isinstance(value, str) and id_map:
            value = id_map.get(value, id_map.get(value[:15], value))
        if f.type == "reference" and isinstance(value, str) and value and not ids.is_id(value):
            try:
                rid = resolve_name(org, f.reference_to, value)
            except ValueError as exc:
                raise SeedError(source, obj.name, index, f.name, str(exc)) from None
            if rid is None:
                raise SeedError(source, obj.name, index, f.name,
                                f"no {' or '.join(f.reference_to)} named {value!r} "
                                f"(looked up by {', '.join(org.object(f.reference_to[0]).lookup_fields)})")
            value = rid
        out[f.name] = value
    return out


def load_records(org: Org, sobject: str, records: Iterable[Mapping[str, Any]], *, source: str = "<records>",
                 trusted: bool = False, user_id: str | None = None, id_map: dict[str, str] | None = None,
                 ignore_unknown: bool = False, skipped: set[str] | None = None) -> list[str]:
    """Install ``records`` of ``sobject`` into ``org`` atomically (all or none); return their ids.

    ``trusted`` also allows read-only fields (IsConverted, ...), as a data import would. ``id_map`` translates ids
    of another org (found in reference fields) to ids of this one; when a record carries an ``Id``, the new id is
    added to ``id_map`` so later records can refer to it. ``ignore_unknown`` skips fields the schema does not
    have (their names are added to ``skipped``) instead of failing. Raises ``SeedError`` naming the object, the
    record index and the field when a record does not fit."""
    obj = org.object(sobject)
    created: list[str] = []
    with org.transaction():
        for index, raw in enumerate(records):
            if not isinstance(raw, Mapping):
                raise SeedError(source, obj.name, index, None, f"expected a JSON object, got {type(raw).__name__}")
            foreign_id = raw.get("Id") if isinstance(raw.get("Id"), str) else None
            if foreign_id is not None and not ignore_unknown:
                raw = {k: v for k, v in raw.items() if k != "Id"}
            fields = _resolve_references(org, obj, raw, source, index, id_map, ignore_unknown, skipped)
            try:
                if trusted:
                    from pytest_cua.orgs.localorg import values

                    coerced = {k: values.coerce(obj.fields[k], v) for k, v in fields.items() if k != "Id"}
                    created.append(org.insert_trusted(obj.name, coerced, user_id=user_id))
                else:
                    created.append(org.create(obj.name, fields, user_id=user_id))
            except OrgError as exc:
                field = exc.fields[0] if exc.fields else None
                raise SeedError(source, obj.name, index, field, f"{exc.code}: {exc.message}") from None
            if foreign_id is not None and id_map is not None:
                id_map[foreign_id] = created[-1]
                if ids.is_id(foreign_id):
                    id_map[ids.to18(foreign_id)] = created[-1]
    return created


def dependency_order(org: Org, names: Iterable[str]) -> list[str]:
    """``names`` sorted so that an object comes after the objects its reference fields point to (self
    references and cycles are broken in alphabetical order)."""
    pending = sorted({org.object(n).name for n in names})
    done: list[str] = []
    while pending:
        for name in pending:
            obj = org.object(name)
            deps = {t for f in obj.fields.values() if f.type == "reference" and not f.system
                    for t in f.reference_to if t != name and t in pending}
            if obj.owner:
                deps |= {t for t in obj.owner if t != name and t in pending}
            if not deps:
                break
        else:
            name = pending[0]
        pending.remove(name)
        done.append(name)
    return done


def load_dir(org: Org, directory: str | Path, *, trusted: bool = False, id_map: dict[str, str] | None = None,
             ignore_unknown: bool = False) -> dict[str, list[str]]:
    """Install every ``<Object>.json`` of ``directory`` in dependency order, atomically; returns ids by object.
    ``trusted``, ``id_map`` and ``ignore_unknown`` as for ``load_records``."""
    path = Path(directory)
    files = {p.stem: p for p in sorted(path.glob("*.json"))}
    for stem in files:
        if stem not in org.schema:
            raise SeedError(str(files[stem]), stem, 0, None, f"unknown object {stem!r} (no schema file)")
    out: dict[str, list[str]] = {}
    with org.transaction():
        for name in dependency_order(org, files):
            file = files[next(s for s in files if s.lower() == name.lower())]
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise SeedError(str(file), name, 0, None, f"not valid JSON: {exc}") from None
            if not isinstance(data, list):
                raise SeedError(str(file), name, 0, None, "expected a JSON list of records")
            out[name] = load_records(org, name, data, source=str(file), trusted=trusted, id_map=id_map,
                                     ignore_unknown=ignore_unknown)
            if name == "User" and org.default_user_id is None:
                admin = admin_user_id(org)
                if admin:
                    org.default_user_id = admin
                    _adopt_records(org, admin)
    return out


def admin_user_id(org: Org) -> str | None:
    """The first active user with the System Administrator profile (the login user of the org), or None."""
    profiles = {r["Id"] for r in org.table("Profile").values() if r.get("Name") == "System Administrator"}
    for user in org.table("User").values():
        if user.get("ProfileId") in profiles and user.get("IsActive"):
            return user["Id"]
    return None


def _adopt_records(org: Org, admin: str) -> None:
    """Make the admin the creator and owner of records written before the admin existed."""
    for name, table in org._tables.items():
        obj = org.schema.objects[name]
        for rid, rec in list(table.items()):
            patch = {}
            if rec.get("CreatedById") in (None, rid) and not (name == "User" and rid == admin):
                patch["CreatedById"] = admin
                patch["LastModifiedById"] = admin
            if obj.owner and rec.get("OwnerId") in (None, rid) and name != "User":
                patch["OwnerId"] = admin
            if name == "User" and rid == admin:
                patch = {"CreatedById": admin, "LastModifiedById": admin}
            if patch:
                table[rid] = {**rec, **patch}


def seeded_org(fixtures: str | Path | None = None) -> Org:
    """A new org with the org's behaviours (``behaviors.install``), the schema and seed records of ``fixtures``
    (default: ``<repo>/fixtures/localorg``)."""
    from pytest_cua.orgs.localorg.schema import load_schema

    base = Path(fixtures) if fixtures is not None else default_repo_fixtures()
    org = Org(load_schema(base / "schema"))
    behaviors.install(org)
    load_dir(org, base / "seed")
    return org
