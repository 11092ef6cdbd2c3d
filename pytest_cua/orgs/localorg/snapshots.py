"""Snapshots of the org and their residue: ``OrgSnapshot`` (a captured state: tables, counters, metadata, schema,
recycle bin) and ``residue_lines`` (every difference between two states, one readable line each).

Records are never mutated once stored, so a snapshot holds shallow copies of the tables and the residue skips
records (and tables) that are the very same object. Imports: the org's schema only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from pytest_cua.orgs.localorg.schema import Schema

Record = dict  # field name -> stored value; never mutated after it is stored

_STAMP_FIELDS = frozenset({"LastModifiedDate", "SystemModstamp", "LastModifiedById"})


@dataclass(frozen=True)
class OrgSnapshot:
    """A captured org state; opaque to callers except for ``taken_at`` (epoch seconds)."""

    tables: dict[str, dict[str, Record]]
    counters: dict[str, int]
    taken_at: float = field(default_factory=time.time)
    metadata: dict[tuple[str, str], Any] = field(default_factory=dict)  # (type, fullName) -> immutable component
    schema: Schema | None = None  # the schema object of the time (a deploy replaces it, never mutates it)
    bin: dict[str, dict[str, tuple[Record, str]]] = field(default_factory=dict)  # the recycle bin of the time


def residue_lines(now: OrgSnapshot, then: OrgSnapshot, display_name: Callable[[str, Mapping[str, Any]], str],
            extra: list[str]) -> list[str]:
    """Every difference of ``now`` (the org's live state) from ``then``, one readable line each: schema objects
    and fields, metadata components, then ``extra`` lines, then records and the recycle bin; empty means
    identical. ``display_name(object, record)`` names a record."""
    out: list[str] = []
    now_schema = now.schema
    if now_schema is None:
        raise ValueError("residue: the live state names no schema")
    then_schema = then.schema or now_schema
    for name in sorted(set(now_schema.objects) - set(then_schema.objects)):
        out.append(f"Schema object {name} created")
    for name in sorted(set(then_schema.objects) - set(now_schema.objects)):
        out.append(f"Schema object {name} deleted")
    for name in sorted(set(now_schema.objects) & set(then_schema.objects)):
        now_o, then_o = now_schema.objects[name], then_schema.objects[name]
        if now_o is not then_o:
            for fname in sorted(set(now_o.fields) ^ set(then_o.fields)):
                out.append(f"Schema field {name}.{fname} {'created' if fname in now_o.fields else 'deleted'}")
            for fname in sorted(set(now_o.fields) & set(then_o.fields)):
                if now_o.fields[fname] != then_o.fields[fname]:
                    out.append(f"Schema field {name}.{fname} changed")
    for key in sorted(set(now.metadata) | set(then.metadata)):
        now_c, then_c = now.metadata.get(key), then.metadata.get(key)
        if now_c is then_c or now_c == then_c:
            continue
        what = "created" if then_c is None else "deleted" if now_c is None else "changed"
        out.append(f"Metadata {key[0]} {key[1]!r} {what}")
    out.extend(extra)
    for name in sorted(now.tables):
        now_t, then_t = now.tables[name], then.tables.get(name, {})
        if now_t is then_t:
            continue
        for rid, rec in now_t.items():
            before = then_t.get(rid)
            if before is None:
                out.append(f"{name} {rid} {display_name(name, rec)!r} created")
            elif before is not rec and before != rec:
                changed = [k for k in rec if rec.get(k) != before.get(k)]
                shown = [k for k in changed if k not in _STAMP_FIELDS] or changed
                changes = [f"{k}: {before.get(k)!r} -> {rec.get(k)!r}" for k in shown]
                out.append(f"{name} {rid} {display_name(name, before)!r} changed " + "; ".join(changes))
        for rid, before in then_t.items():
            if rid not in now_t:
                out.append(f"{name} {rid} {display_name(name, before)!r} deleted")
    for name in sorted(set(now.bin) | set(then.bin)):
        now_b, then_b = now.bin.get(name, {}), then.bin.get(name, {})
        then_t = then.tables.get(name, {})
        for rid in sorted(set(now_b) - set(then_b)):
            if rid not in then_t:  # created and deleted since: only the recycle bin holds it
                out.append(f"{name} {rid} {display_name(name, now_b[rid][0])!r} created (in the "
                           f"recycle bin)")
        for rid in sorted(set(then_b) - set(now_b)):
            if rid not in now.tables.get(name, {}):
                out.append(f"{name} {rid} {display_name(name, then_b[rid][0])!r} purged from the "
                           f"recycle bin")
    return out
