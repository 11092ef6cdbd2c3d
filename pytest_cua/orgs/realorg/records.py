"""Records of an org rolled back over the REST and SOAP APIs alone.

What is watched: every object the org's describe says is queryable and writable (createable, updateable or
deletable) and has ``SystemModstamp`` (``watched_objects``). The baseline (``RecordBaseline``) holds, per
watched object, every record's id, ``SystemModstamp`` and the values of its updateable fields, and the
object's summary (row count and newest ``SystemModstamp``, one aggregate query each, 25 to a composite batch).

Rolling back the objects of a task's scope (``restore``): records created since are deleted and purged from the
recycle bin (``emptyRecycleBin``), records deleted are undeleted (SOAP ``undelete``), records changed get their
updateable fields back, field by field. The residue check (``residue``) compares the scope's objects record by
record, value by value, and the other watched objects by their summaries; a summary that moved is resolved to
the records behind it and reported as a change outside the task's scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from pytest_cua.orgs.realorg.client import OrgApiError, OrgClient

#: names of objects the rollback leaves alone: histories, shares, feeds and change events follow their parents
SKIPPED_SUFFIXES = ("History", "Share", "Feed", "ChangeEvent", "__Tag", "__hd", "__e")
#: fields never compared or restored: the org sets them
STAMPS = frozenset({"Id", "SystemModstamp", "LastModifiedDate", "LastModifiedById", "CreatedDate", "CreatedById",
                    "IsDeleted", "LastViewedDate", "LastReferencedDate", "LastActivityDate"})
SKIPPED_TYPES = frozenset({"address", "location", "base64", "encryptedstring"})


@dataclass(frozen=True)
class ObjectInfo:
    """What the rollback knows of one watched object from its describe."""

    name: str
    fields: tuple[str, ...]  # the updateable fields: restored by an update
    label_field: str | None  # Name or its like, for readable residue lines
    deletable: bool
    undeletable: bool
    updateable: bool
    compared: tuple[str, ...] = ()  # every field the residue check compares (updateable or not)
    createable: tuple[str, ...] = ()  # the fields a record is created with when it must be replaced
    can_create: bool = False

    def columns(self) -> list[str]:
        return sorted({"Id", "SystemModstamp", *self.fields, *self.compared,
                       *([self.label_field] if self.label_field else [])})

    def soql(self, where: str = "") -> str:
        return f"SELECT {', '.join(self.columns())} FROM {self.name}{where}"


def object_info(describe: Mapping[str, Any]) -> ObjectInfo | None:
    """The rollback's view of an object, or None when it cannot be rolled back by record (no SystemModstamp)."""
    fields = describe.get("fields") or []
    names = {f.get("name") for f in fields}
    if "SystemModstamp" not in names:
        return None
    plain = [f for f in fields if f.get("name") not in STAMPS and str(f.get("type", "")).lower() not in SKIPPED_TYPES
             and not f.get("calculated") and not f.get("autoNumber")]
    updateable = tuple(sorted(str(f["name"]) for f in plain if f.get("updateable")))
    compared = tuple(sorted(str(f["name"]) for f in plain))
    createable = tuple(sorted(str(f["name"]) for f in plain if f.get("createable")))
    label = next((str(f["name"]) for f in fields if f.get("nameField")), None) or ("Name" if "Name" in names else None)
    return ObjectInfo(str(describe["name"]), updateable, label, bool(describe.get("deletable")),
                      bool(describe.get("undeletable", describe.get("deletable"))), bool(describe.get("updateable")),
                      compared, createable, bool(describe.get("createable")))


def watched_objects(client: OrgClient, only: Iterable[str] | None = None) -> dict[str, ObjectInfo]:
    """The objects the rollback watches (``only``: these, when the org has them), from describe calls."""
    wanted = {n.lower() for n in only} if only is not None else None
    names = []
    for s in client.describe_global():
        name = str(s.get("name") or "")
        if wanted is not None and name.lower() not in wanted:
            continue
        if not s.get("queryable") or name.endswith(SKIPPED_SUFFIXES):
            continue
        if not (s.get("createable") or s.get("updateable") or s.get("deletable")):
            continue
        names.append(name)
    out = {}
    for name in sorted(names):
        info = object_info(client.describe(name))
        if info is not None:
            out[name] = info
    return out


Rows = dict[str, dict[str, Any]]  # id -> field values (SystemModstamp and the updateable fields)


@dataclass
class RecordBaseline:
    """The records of the watched objects at the baseline, and each object's summary (count, newest stamp)."""

    objects: dict[str, ObjectInfo]
    rows: dict[str, Rows] = field(default_factory=dict)
    summary: dict[str, tuple[int, str | None]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"objects": {n: {"fields": list(o.fields), "label_field": o.label_field, "deletable": o.deletable,
                                "undeletable": o.undeletable, "updateable": o.updateable,
                                "compared": list(o.compared), "createable": list(o.createable),
                                "can_create": o.can_create}
                            for n, o in self.objects.items()},
                "rows": self.rows, "summary": {n: list(v) for n, v in self.summary.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "RecordBaseline":
        objects = {n: ObjectInfo(n, tuple(o["fields"]), o.get("label_field"), bool(o["deletable"]),
                                 bool(o["undeletable"]), bool(o["updateable"]), tuple(o.get("compared") or ()),
                                 tuple(o.get("createable") or ()), bool(o.get("can_create")))
                   for n, o in data["objects"].items()}
        return cls(objects, {n: dict(r) for n, r in data["rows"].items()},
                   {n: (int(v[0]), v[1]) for n, v in data["summary"].items()})


def _by_id(rows: Iterable[Mapping[str, Any]]) -> Rows:
    return {str(r["Id"]): {k: v for k, v in r.items() if k != "Id"} for r in rows}


def read_rows(client: OrgClient, objects: Sequence[ObjectInfo]) -> dict[str, Rows]:
    """Every record of ``objects`` (composite batches of 25 queries; a query with more rows than a batch
    answer holds is run on its own)."""
    out: dict[str, Rows] = {}
    results = client.batch_queries([o.soql() for o in objects])
    for obj, result in zip(objects, results):
        if isinstance(result, str):
            raise OrgApiError(f"{client.login.where}: reading {obj.name}: {result}")
        out[obj.name] = _by_id(result)
    return out


def read_summary(client: OrgClient, names: Sequence[str]) -> dict[str, tuple[int, str | None]]:
    """Per object: its row count and newest SystemModstamp (one aggregate query each, batched)."""
    results = client.batch_queries([f"SELECT COUNT(Id) n, MAX(SystemModstamp) m FROM {n}" for n in names])
    out: dict[str, tuple[int, str | None]] = {}
    for name, result in zip(names, results):
        if isinstance(result, str) or not result:
            raise OrgApiError(f"{client.login.where}: counting {name}: {result}")
        out[name] = (int(result[0].get("n") or 0), result[0].get("m"))
    return out


def take_baseline(client: OrgClient, objects: Mapping[str, ObjectInfo]) -> RecordBaseline:
    names = sorted(objects)
    return RecordBaseline(dict(objects), read_rows(client, [objects[n] for n in names]), read_summary(client, names))


def _label(obj: ObjectInfo, values: Mapping[str, Any]) -> str:
    return repr(values.get(obj.label_field)) if obj.label_field and values.get(obj.label_field) is not None else "''"


def _differences(obj: ObjectInfo, then: Mapping[str, Any], now: Mapping[str, Any],
                 fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The fields (the compared ones by default) whose value moved, with the baseline's value."""
    return {f: then.get(f) for f in (obj.compared or obj.fields) if f in (fields or obj.compared or obj.fields)
            and then.get(f) != now.get(f)}


@dataclass
class Restored:
    """What a rollback of records did: the calls that failed, and the objects it wrote outside the names it was
    given (children of a record it had to create anew): the residue check compares those record by record."""

    errors: list[str] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)


MAX_PASSES = 4


def restore(client: OrgClient, base: RecordBaseline, names: Iterable[str]) -> Restored:
    """Put the records of ``names`` back as the baseline has them.

    Created records are deleted and purged, deleted ones undeleted, changed ones updated field by field. A
    record no call can put back (purged, or changed in a field no update reaches, such as a converted lead's
    IsConverted) is created anew from the baseline's values; the baseline follows its new id, and the records
    that pointed at the old id (those deleted with it included) are put back pointing at the new one, in
    further passes."""
    out = Restored()
    pending = sorted({n for n in names if n in base.objects})
    for _ in range(MAX_PASSES):
        rebound = _restore_pass(client, base, [base.objects[n] for n in pending], out)
        if not rebound:
            break
        pending = sorted(_remap(base, rebound))
        out.touched.update(pending)
    out.touched -= set(names)
    return out


def _restore_pass(client: OrgClient, base: RecordBaseline, objects: Sequence[ObjectInfo], out: Restored) -> dict[str, str]:
    now = read_rows(client, objects)
    created: list[str] = []
    deleted: list[tuple[ObjectInfo, str]] = []
    for obj in objects:
        then_rows, now_rows = base.rows.get(obj.name, {}), now[obj.name]
        created += [rid for rid in now_rows if rid not in then_rows]
        deleted += [(obj, rid) for rid in then_rows if rid not in now_rows]
    gone: dict[str, list[str]] = {}  # not in the recycle bin any more: created anew below
    if deleted:
        failed = set()
        for line in client.soap_ids("undelete", [rid for _, rid in deleted]):
            if "UNDELETE_FAILED" in line or "ENTITY_IS_DELETED" in line or "INVALID_ID" in line:
                failed.add(line.split(":", 1)[0].split()[-1])
            else:
                out.errors.append(line)
        for obj, rid in deleted:
            if rid in failed:
                gone.setdefault(obj.name, []).append(rid)
    if created:
        out.errors.extend(client.delete(created))
        out.errors.extend(client.soap_ids("emptyRecycleBin", created,
                                          ignore=("INVALID_ID_FIELD", "ENTITY_IS_DELETED", "UNDELETE_FAILED")))
    if deleted or created:
        now = read_rows(client, objects)
    rebound: dict[str, str] = {}
    for obj in objects:
        then_rows, now_rows = base.rows.get(obj.name, {}), now[obj.name]
        updates, replaced = [], []
        for rid, then in then_rows.items():
            current = now_rows.get(rid)
            if current is None or current.get("SystemModstamp") == then.get("SystemModstamp"):
                continue
            moved = _differences(obj, then, current)
            if set(moved) - set(obj.fields):  # a field no update can set back (a converted lead's IsConverted)
                replaced.append(rid)
            elif moved and obj.updateable:
                updates.append({"Id": rid, **moved})
        if updates:
            out.errors.extend(client.update(obj.name, updates))
        if replaced:
            out.errors.extend(client.delete(replaced))
            out.errors.extend(client.soap_ids("emptyRecycleBin", replaced, ignore=("INVALID_ID_FIELD",)))
        again = replaced + gone.get(obj.name, [])
        if again:
            rebound.update(_create_anew(client, base, obj, again, out))
    return rebound


def _create_anew(client: OrgClient, base: RecordBaseline, obj: ObjectInfo, record_ids: Sequence[str],
                 out: Restored) -> dict[str, str]:
    """Baseline records created again with their createable values; the baseline follows the new ids."""
    if not obj.can_create:
        out.errors += [f"{obj.name} {rid}: cannot be put back (the org does not create {obj.name} records)"
                       for rid in record_ids]
        return {}
    rows = base.rows[obj.name]
    done: dict[str, str] = {}
    for rid in record_ids:
        values = {f: rows[rid].get(f) for f in obj.createable if rows[rid].get(f) is not None}
        try:
            new_id = str(client._json("POST", f"/sobjects/{obj.name}", f"create {obj.name}", json=values)["id"])
        except OrgApiError as exc:
            out.errors.append(f"{obj.name} {rid}: not created anew: {exc}")
            continue
        fresh = client.query(f"{obj.soql()} WHERE Id = '{new_id}'")
        rows.pop(rid)
        rows[new_id] = {k: v for k, v in fresh[0].items() if k != "Id"} if fresh else dict(values)
        done[rid] = new_id
    return done


def _remap(base: RecordBaseline, rebound: Mapping[str, str]) -> set[str]:
    """Point the baseline's references at the new ids; the objects whose rows changed (to be put back)."""
    touched = set()
    for name, rows in base.rows.items():
        for rid, values in rows.items():
            hits = {k: rebound[v] for k, v in values.items() if isinstance(v, str) and v in rebound}
            if hits:
                values.update(hits)
                values["SystemModstamp"] = None  # differs from the org's: the next pass looks at it
                touched.add(name)
    return touched


def residue(client: OrgClient, base: RecordBaseline, scope: Iterable[str] | None) -> list[str]:
    """Every difference from the baseline: the scope's objects record by record (all watched objects when
    ``scope`` is None), the others by summary, resolved to records. Refreshes the baseline's stamps and
    summaries of the scope (a restored record has a new SystemModstamp and the same values)."""
    names = sorted(base.objects) if scope is None else sorted({n for n in scope if n in base.objects})
    out: list[str] = []
    now = read_rows(client, [base.objects[n] for n in names])
    for name in names:
        obj, then_rows, now_rows = base.objects[name], base.rows.get(name, {}), now[name]
        for rid, values in now_rows.items():
            before = then_rows.get(rid)
            if before is None:
                out.append(f"{name} {rid} {_label(obj, values)} created")
                continue
            moved = _differences(obj, before, values)
            if moved:
                out.append(f"{name} {rid} {_label(obj, before)} changed " +
                           "; ".join(f"{f}: {before.get(f)!r} -> {values.get(f)!r}" for f in sorted(moved)))
        for rid, before in then_rows.items():
            if rid not in now_rows:
                out.append(f"{name} {rid} {_label(obj, before)} deleted")
    others = sorted(set(base.objects) - set(names))
    summary = read_summary(client, others) if others else {}
    moved_objects = [n for n in others if summary[n] != base.summary.get(n)]
    stamps_only: list[str] = []
    if moved_objects:
        detail = read_rows(client, [base.objects[n] for n in moved_objects])
        where = "outside the task's scope" + (f" ({', '.join(names)})" if scope is not None and names else "")
        for name in moved_objects:
            obj, then_rows, now_rows = base.objects[name], base.rows.get(name, {}), detail[name]
            lines = []
            for rid, values in now_rows.items():
                before = then_rows.get(rid)
                if before is None:
                    lines.append(f"{name} {rid} {_label(obj, values)} created {where}")
                elif values.get("SystemModstamp") != before.get("SystemModstamp"):
                    moved = _differences(obj, before, values)
                    if moved:  # a new stamp with the same values (the org's own bookkeeping) is no residue
                        lines.append(f"{name} {rid} {_label(obj, before)} changed {where}: " + "; ".join(
                            f"{f}: {before.get(f)!r} -> {values.get(f)!r}" for f in sorted(moved)))
            lines += [f"{name} {rid} {_label(obj, before)} deleted {where}" for rid, before in then_rows.items()
                      if rid not in now_rows]
            if lines:
                out += lines
            else:
                stamps_only.append(name)
                base.rows[name] = now_rows
    for name in stamps_only:
        base.summary[name] = summary[name]
    if not out:  # clean: the scope's restored records keep their values, their stamps are new
        for name in names:
            base.rows[name] = now[name]
        if names:
            base.summary.update(read_summary(client, names))
    return out
