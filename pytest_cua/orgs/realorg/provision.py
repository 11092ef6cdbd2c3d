"""A suite's prerequisite records installed into an org over its APIs: upserted by their unique keys, so the
first run installs them and every later run finds them.

The records wanted are those of a reference org built in process (``pytest_cua.orgs.localorg``: the suite's seed,
adapted there by the same code the embedded org uses). ``sync_records`` walks their objects in dependency order;
each wanted record is looked for in the target org by its key (``NATURAL_KEYS``, else the object's name field,
else every field it would be created with, references translated to the target's ids); a record found is
mapped, a missing one is created with its createable fields. Objects the target cannot create records of
(describe) are matched only, and what could not be matched is a note, never a silent loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from pytest_cua.orgs.realorg.client import OrgApiError, OrgClient

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.store import Org

#: the fields that name a record of these objects (others: the name field)
NATURAL_KEYS: dict[str, tuple[str, ...]] = {
    "User": ("Username",), "Contact": ("FirstName", "LastName", "Email"), "Lead": ("FirstName", "LastName", "Company"),
    "UserRole": ("DeveloperName",), "Group": ("DeveloperName", "Type"), "PermissionSet": ("Name",),
    "Profile": ("Name",), "Case": ("Subject",), "PricebookEntry": ("Pricebook2Id", "Product2Id"),
    "GroupMember": ("GroupId", "UserOrGroupId"), "PermissionSetAssignment": ("AssigneeId", "PermissionSetId"),
    "QueueSobject": ("QueueId", "SobjectType"), "CampaignMember": ("CampaignId", "ContactId", "LeadId"),
    "OpportunityContactRole": ("OpportunityId", "ContactId"), "Task": ("Subject", "WhoId", "WhatId"),
    "Event": ("Subject", "WhoId", "WhatId"), "PermissionSetGroupComponent": ("PermissionSetGroupId", "PermissionSetId"),
    "Knowledge__kav": ("UrlName",), "ListView": ("SobjectType", "DeveloperName"), "Report": ("DeveloperName",),
}
#: system fields never sent
SYSTEM = frozenset({"Id", "IsDeleted", "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById",
                    "SystemModstamp", "LastViewedDate", "LastReferencedDate", "LastActivityDate"})


@dataclass
class SyncReport:
    """What ``sync_records`` did, per object: records found, created, and notes of what it could not do."""

    found: dict[str, int] = field(default_factory=dict)
    created: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def created_total(self) -> int:
        return sum(self.created.values())

    def line(self) -> str:
        return (f"{sum(self.found.values())} prerequisite records found, {self.created_total} created"
                + (f" ({', '.join(f'{n} {c}' for n, c in sorted(self.created.items()) if c)})"
                   if self.created_total else ""))


UNQUOTED = frozenset({"date", "datetime", "time", "boolean", "int", "double", "currency", "percent", "long"})


def _soql_value(value: Any, field_type: str) -> str:
    """``value`` as a SOQL literal of a field of ``field_type`` (dates, numbers and booleans unquoted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if field_type in UNQUOTED:
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def sync_records(client: OrgClient, reference: "Org", objects: Iterable[str]) -> SyncReport:
    """Upsert the records of ``objects`` that ``reference`` holds into the org of ``client`` (see the module)."""
    from pytest_cua.orgs.localorg.seed import dependency_order

    report = SyncReport()
    id_map: dict[str, str] = {}
    have = {str(s.get("name")) for s in client.describe_global()}
    names = [n for n in dependency_order(reference, [o for o in objects if o in reference.schema]) if n in have]
    for name in names:
        rows = reference.records(name)
        if not rows:
            continue
        describe = client.describe(name)
        target_fields = {str(f["name"]): f for f in describe.get("fields") or []}
        creatable = bool(describe.get("createable"))
        obj = reference.object(name)
        name_field = obj.name_field
        keys = NATURAL_KEYS.get(name) or ((name_field,) if name_field and target_fields.get(name_field, {})
                                          .get("createable") else ())
        if name_field and not target_fields.get(name_field, {}).get("createable"):
            name_field = None  # an auto number (Case's CaseNumber): never a key
        found = created = 0
        pending: list[tuple[str, dict[str, Any]]] = []
        lookups: list[tuple[dict[str, Any], dict[str, Any], str]] = []  # (record, values, where)
        for rec in rows:
            values: dict[str, Any] = {}
            for fname, value in rec.items():
                tf = target_fields.get(fname)
                if fname in SYSTEM or tf is None or not tf.get("createable") or value is None:
                    continue
                if tf.get("type") == "reference":
                    if value not in id_map:
                        continue  # a reference to a record the target does not have (yet): left out
                    value = id_map[value]
                values[fname] = value
            key = {}
            for candidate in (keys, (name_field,) if name_field else (), tuple(values)):
                key = {k: values[k] for k in candidate if values.get(k) is not None
                       and target_fields.get(k, {}).get("filterable", True)}
                if key:  # the natural key when the record has it, else its name, else all it is created with
                    break
            if not key:
                report.notes.append(f"{name} {rec['Id']}: no key to look it up by; left out")
                continue
            where = " AND ".join(f"{k} = {_soql_value(v, str(target_fields[k].get('type', '')))}"
                                 for k, v in sorted(key.items()))
            lookups.append((rec, values, where))
        answers = client.batch_queries([f"SELECT Id FROM {name} WHERE {w} LIMIT 2" for _, _, w in lookups])
        for (rec, values, where), hits in zip(lookups, answers):
            if isinstance(hits, str):
                raise OrgApiError(f"{client.login.where}: looking up {name} {where}: {hits}")
            if hits:
                id_map[rec["Id"]] = str(hits[0]["Id"])
                found += 1
            elif creatable:
                pending.append((rec["Id"], values))
            else:
                report.notes.append(f"{name} {where}: missing, and the org cannot create {name} records")
        for i in range(0, len(pending), 200):
            part = pending[i:i + 200]
            results = client._json("POST", "/composite/sobjects", f"create {len(part)} {name}",
                                   json={"allOrNone": False, "records": [{"attributes": {"type": name}, **v}
                                                                           for _, v in part]})
            for (rid, _), res in zip(part, results or []):
                if res.get("success"):
                    id_map[rid] = str(res["id"])
                    created += 1
                else:
                    report.notes.append(f"{name} {rid}: not created: " + "; ".join(
                        f"{e.get('statusCode')}: {e.get('message')}" for e in res.get("errors") or []))
        late = []  # references to records created in this same pass (a role's parent role): set now
        for rid, values in pending:
            new_id = id_map.get(rid)
            source = reference.get(name, rid) if new_id else None
            if not source:
                continue
            refs = {f: id_map[v] for f, v in source.items() if f not in values and isinstance(v, str) and v in id_map
                    and (target_fields.get(f) or {}).get("type") == "reference"
                    and (target_fields.get(f) or {}).get("updateable")}
            if refs:
                late.append({"Id": new_id, **refs})
        if late:
            report.notes += client.update(name, late)
        report.found[name] = found
        report.created[name] = created
    return report


def seed_objects(reference: "Org") -> list[str]:
    """The objects ``reference`` holds records of (the objects worth syncing)."""
    return sorted(n for n, c in reference.counts().items() if c)


def require_synced(report: SyncReport, where: str, allowed: Sequence[str] = ()) -> None:
    """An ``OrgApiError`` when records that could be neither found nor created are not among ``allowed``."""
    bad = [n for n in report.notes if "not created" in n and not any(a in n for a in allowed)]
    if bad:
        raise OrgApiError(f"{where}: {len(bad)} prerequisite records could not be installed: " + "; ".join(bad[:5]))

