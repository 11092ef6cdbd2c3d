"""SCUBA's seed records (``scuba/prerequisites/data/bulk_data/<Object>.json`` of a ``--scuba-root`` checkout)
adapted to the embedded org's schema and installed into each worker's org before its snapshot, so every release
task starts from them; ``SeedReport`` is what an org's preparation installed and left out.

Seed records are SCUBA's export of a real org, so they are adapted before the org store's seed loader
(``pytest_cua.orgs.localorg.seed.load_records``) installs them; everything the adapter leaves out is listed in
``SeedReport.notes``:

- fields the schema does not have (``CurrencyIsoCode``) and read-only fields (``Name`` of a Lead,
  ``IsConverted``) are left out; the record's own ``Id`` is remembered so later references to it resolve;
- a reference that holds an id of the exporting org is translated when that record was installed, linked to
  its partner in a combined file (``OppTask.json``: the Task's ``WhatId`` becomes its Opportunity), mapped
  to the standard price book (``Pricebook2Id``) or, for ids of records the export does not carry
  (``PricebookEntry.Product2Id``), to the release's records of that object in order of first appearance when
  their numbers match; otherwise it is left out (an owner then defaults to the org's admin);
- combined files (a list of ``{"Lead": {...}, "VoiceCallTranscript__c": {...}}``) are split per object;
- objects the org's schema does not know are left out.

What still does not fit after that (a missing required field, a picklist value the schema lacks) is a
``SeedError`` naming the file, object, record and field: provisioning fails with it. The seed records need the
org's store: an org served by another process (``--cua-orgs``) cannot be prepared for the release.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from pytest_cua.orgs.localorg import ids

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.store import Org

SEED_DIR = "scuba/prerequisites/data/bulk_data"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class SeedReport:
    """What the adapter installed (ids by object) and what it left out, one readable line each."""

    installed: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0  # how long the org's preparation took

    def line(self) -> str:
        records = {k: v for k, v in self.installed.items() if not k.startswith("Metadata ")}
        out = f"{sum(records.values())} seed records of {len(records)} objects"
        components = sum(v for k, v in self.installed.items() if k.startswith("Metadata "))
        if components:
            out += f", {components} metadata components"
        if self.seconds:
            out += f" in {self.seconds:.1f} s"
        if self.notes:
            out += f"; {len(self.notes)} adaptations (listed with -v)"
        return out


@dataclass
class _Group:
    """Records of one combined-file entry: installed together, children linked to their partners."""

    source: str
    index: int
    parts: list[tuple[str, Mapping[str, Any]]]


def _is_combined(records: list[Any]) -> bool:
    """A combined file: every record maps object names to a record or a list of records."""
    return bool(records) and all(
        isinstance(r, Mapping) and r and all(isinstance(v, (Mapping, list)) for v in r.values()) for r in records)


class _SeedAdapter:
    """Adapts the records of a SCUBA export to this org's schema and installs them (see the module doc)."""

    def __init__(self, org: "Org", directory: Path, report: SeedReport | None = None) -> None:
        self.org = org
        self.directory = directory
        self.report = report if report is not None else SeedReport()
        self.id_map: dict[str, str] = {}  # exporting org's id -> this org's id
        self.release_order: dict[str, list[str]] = {}  # object -> its records' ids here, in file order
        self.foreign_order: dict[tuple[str, str], list[str]] = {}  # (object, field) -> foreign ids, first seen

    def note(self, text: str) -> None:
        if text not in self.report.notes:
            self.report.notes.append(text)

    # -- reading --------------------------------------------------------------------------------------------
    def read(self) -> tuple[dict[str, tuple[str, list[Any]]], list[_Group]]:
        from pytest_cua.orgs.localorg.seed import SeedError

        plain: dict[str, tuple[str, list[Any]]] = {}
        groups: list[_Group] = []
        if not self.directory.is_dir():
            raise SeedError(str(self.directory), "-", 0, None, "no such folder (is --scuba-root a SCUBA checkout?)")
        for file in sorted(self.directory.glob("*.json")):
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise SeedError(str(file), file.stem, 0, None, f"not valid JSON: {exc}") from None
            if not isinstance(data, list):
                raise SeedError(str(file), file.stem, 0, None, "expected a JSON list of records")
            if file.stem not in self.org.schema and _is_combined(data):
                for i, rec in enumerate(data):
                    parts: list[tuple[str, Mapping[str, Any]]] = []
                    for name, value in rec.items():
                        for part in (value if isinstance(value, list) else [value]):
                            if isinstance(part, Mapping):
                                parts.append((name, part))
                    groups.append(_Group(file.name, i, parts))
            elif file.stem not in self.org.schema:
                self.note(f"{file.name}: {len(data)} records of {file.stem} left out (no such object in the schema)")
            else:
                plain[self.org.object(file.stem).name] = (file.name, data)
        return plain, groups

    # -- one record -----------------------------------------------------------------------------------------
    def adapt(self, sobject: str, raw: Mapping[str, Any], source: str,
              partners: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The record as this org accepts it (what is left out is noted)."""
        obj = self.org.object(sobject)
        out: dict[str, Any] = {}
        for key, value in raw.items():
            f = obj.field(key)
            if key == "Id":
                continue
            if f is None:
                self.note(f"{source}: {sobject}.{key} left out (no such field)")
                continue
            if not f.createable:
                self.note(f"{source}: {sobject}.{f.name} left out (read-only)")
                continue
            if f.type == "reference" and isinstance(value, str) and ids.is_id(value):
                mapped = self.translate(sobject, f, value, partners or {})
                if mapped is None:
                    continue
                value = mapped
            if f.type == "datetime" and isinstance(value, str) and _DATE.match(value):
                self.note(f"{source}: {sobject}.{f.name} dates read as midnight UTC")
                value = f"{value}T00:00:00.000+0000"
            out[f.name] = value
        for f in obj.fields.values():  # link to a partner of a combined entry when the record names none
            if f.type == "reference" and f.createable and f.name not in out and partners:
                for target in f.reference_to:
                    if target in partners and f.name not in ("OwnerId",):
                        out[f.name] = partners[target]
                        break
        return out

    def translate(self, sobject: str, f: Any, value: str, partners: Mapping[str, str]) -> str | None:
        if value in self.id_map:
            return self.id_map[value]
        if self.org.find_record(value) is not None:
            return value
        for target in f.reference_to:
            if target in partners:
                return partners[target]
        if "Pricebook2" in f.reference_to:
            books = self.org.records("Pricebook2")
            standard = [r["Id"] for r in books if r.get("IsStandard")] or \
                [r["Id"] for r in books if str(r.get("Name", "")).lower() == "standard price book"]
            if standard:
                self.note(f"{sobject}.{f.name}: ids of the exporting org mapped to the standard price book")
                return standard[0]
        for target in f.reference_to:
            order = self.foreign_order.get((sobject, f.name), [])
            known = self.release_order.get(target, [])
            if value in order and len(order) == len(known):
                self.note(f"{sobject}.{f.name}: {len(order)} ids of the exporting org mapped to the release's "
                          f"{target} records in order")
                return known[order.index(value)]
        self.note(f"{sobject}.{f.name} left out where it holds an id of the exporting org")
        return None

    # -- installing -----------------------------------------------------------------------------------------
    def install(self) -> SeedReport:
        from pytest_cua.orgs.localorg.seed import dependency_order, load_records

        plain, groups = self.read()
        with self.org.transaction():
            for name in dependency_order(self.org, plain):
                source, records = plain[name]
                self._remember_foreign(name, records)
                adapted: list[tuple[Mapping[str, Any], dict[str, Any]]] = []
                for rec in records:
                    if not isinstance(rec, Mapping):
                        adapted.append((rec, rec))  # the loader names the bad record
                        continue
                    adapted.append((rec, self.adapt(name, rec, source)))
                created = load_records(self.org, name, [a for _, a in adapted], source=source)
                for (raw, _), rid in zip(adapted, created):
                    if isinstance(raw, Mapping) and isinstance(raw.get("Id"), str):
                        self.id_map[raw["Id"]] = rid
                self.release_order[name] = created
                self.report.installed[name] = self.report.installed.get(name, 0) + len(created)
            for group in groups:
                self._install_group(group, load_records)
        return self.report

    def _remember_foreign(self, sobject: str, records: Iterable[Any]) -> None:
        obj = self.org.object(sobject)
        for rec in records:
            if not isinstance(rec, Mapping):
                continue
            for key, value in rec.items():
                f = obj.field(key)
                if f is not None and f.type == "reference" and isinstance(value, str) and ids.is_id(value) \
                        and self.org.find_record(value) is None:
                    order = self.foreign_order.setdefault((sobject, f.name), [])
                    if value not in order:
                        order.append(value)

    def _install_group(self, group: _Group, load_records: Callable[..., list[str]]) -> None:
        from pytest_cua.orgs.localorg.seed import dependency_order

        source = f"{group.source}#{group.index}"
        known = [(n, r) for n, r in group.parts if n in self.org.schema]
        for name, _ in group.parts:
            if name not in self.org.schema:
                self.note(f"{group.source}: {name} parts left out (no such object in the schema)")
        names = dependency_order(self.org, {self.org.object(n).name for n, _ in known})
        partners: dict[str, str] = {}
        for name in names:
            for raw_name, raw in known:
                if self.org.object(raw_name).name != name:
                    continue
                adapted = self.adapt(name, raw, group.source, partners)
                rid = load_records(self.org, name, [adapted], source=source)[0]
                if isinstance(raw.get("Id"), str):
                    self.id_map[raw["Id"]] = rid
                partners.setdefault(name, rid)
                self.report.installed[name] = self.report.installed.get(name, 0) + 1


def install_seed(org: "Org", directory: str | Path, report: SeedReport | None = None) -> SeedReport:
    """Adapt and install a SCUBA export's seed records into ``org`` atomically; raises ``SeedError`` naming the
    file, object, record and field when a record still does not fit. ``report`` (a new one by default) gets
    what was installed and left out."""
    return _SeedAdapter(org, Path(directory), report).install()
