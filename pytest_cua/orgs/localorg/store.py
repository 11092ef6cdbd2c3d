"""The record store of the embedded org: CRUD with validation, atomic transactions, snapshots and residue.

Design: one dict ``id -> record`` per object. A record is a plain dict that is **never mutated once stored**
(an update stores a new dict), so a snapshot is a shallow copy of each table (microseconds per table),
restore swaps the copies back in, and residue compares tables record by record, skipping records that are the
very same object. Every public method takes ``Org.lock`` (re-entrant), and every write runs in a transaction
that puts the previous tables back when anything fails, so a failed request never leaves a partial write.

The store is generic: what the org does by itself when records are written (derived fields, companion records)
subscribes to the store's events (``Org.hooks``, ``StoreHooks``); ``behaviors.install(org)`` subscribes the org's
behaviours, ``seed.seeded_org`` does so for every org it makes. The store imports no behaviour.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from pytest_cua.orgs.localorg import ids, values
from pytest_cua.orgs.localorg.errors import OrgError, invalid_type, not_found
from pytest_cua.orgs.localorg.schema import FieldSchema, ObjectSchema, Schema, load_schema
from pytest_cua.orgs.localorg.snapshots import OrgSnapshot, Record, residue_lines
from pytest_cua.orgs.localorg.validation import active_rules, validate

ORG_ID = "00DLO0000000001"  # 15 characters; the org's id is its 18-character form


@dataclass
class StoreHooks:
    """The events of the store that behaviours subscribe to (append to the lists); subscribers run in order,
    inside the write's transaction (an exception undoes the write):

    - ``before_write(org, obj, rec, old)``: ``rec`` is the new version of a record, not yet validated nor stored
      (``old`` is None on insert); a subscriber may set fields of ``rec``.
    - ``after_insert(org, obj, rec)`` and ``after_update(org, obj, rec, old)``: the record is stored.
    - ``before_delete(org, obj, rec)``: before the record (and what goes with it) is deleted.
    - ``residue(org, snapshot)``: extra lines of ``Org.residue`` (the metadata package names record-backed
      components: "Metadata Queue 'X' deleted").
    """

    before_write: list[Callable[["Org", ObjectSchema, Record, "Record | None"], None]] = field(default_factory=list)
    after_insert: list[Callable[["Org", ObjectSchema, Record], None]] = field(default_factory=list)
    after_update: list[Callable[["Org", ObjectSchema, Record, Record], None]] = field(default_factory=list)
    before_delete: list[Callable[["Org", ObjectSchema, Record], None]] = field(default_factory=list)
    residue: list[Callable[["Org", OrgSnapshot], list[str]]] = field(default_factory=list)


@dataclass(frozen=True)
class LeadConversion:
    """The records a lead conversion produced or used."""

    lead_id: str
    account_id: str
    contact_id: str
    opportunity_id: str | None


def _writable(obj: ObjectSchema, operation: str) -> None:
    """A derived object (the org keeps its records from others) takes no write through the API, as in
    Salesforce: INVALID_TYPE_FOR_OPERATION naming the operation and the object."""
    if obj.derived:
        done = {"insert": "inserted", "update": "updated", "delete": "deleted"}[operation]
        raise OrgError("INVALID_TYPE_FOR_OPERATION", f"entity type cannot be {done}: {obj.label}")


class Org:
    """An in-memory Salesforce-like org over a ``Schema``.

    All names (objects, fields) are accepted in any letter case; records come back with canonical names.
    ``user_id`` arguments name the acting user (CreatedById, default OwnerId); None means ``default_user_id``
    (the admin user once the seed is loaded). ``hooks`` holds the subscribers to the store's events (none in a
    new ``Org``: ``behaviors.install(org)`` adds the org's behaviours).
    """

    def __init__(self, schema: Schema | None = None, *, id_start: int = 1) -> None:
        self.schema = schema if schema is not None else load_schema()
        self.lock = threading.RLock()
        self.ids = ids.IdFactory(id_start)
        self.org_id = ids.to18(ORG_ID)
        self.default_user_id: str | None = None
        self._tables: dict[str, dict[str, Record]] = {name: {} for name in self.schema.objects}
        self._counters: dict[str, int] = {}
        # the recycle bin: object -> id -> (the deleted record, IsDeleted true; the id whose delete took it),
        # what queryAll sees and undelete / emptyRecycleBin work on
        self._bin: dict[str, dict[str, tuple[Record, str]]] = {}
        self._cleared: dict[str, list[tuple[str, str, str]]] = {}  # deleted id -> lookups its delete cleared
        self._depth = 0
        self.unenforced_rules: dict[str, str] = {}  # "Object.Rule" -> why it is not enforced
        # Metadata API components without a record form (GlobalValueSet, CustomTab, ...): (type, fullName) ->
        # an immutable value (pytest_cua.orgs.localorg.metadata owns the values); snapshots copy it like a table
        self.metadata: dict[tuple[str, str], Any] = {}
        self.hooks = StoreHooks()
        self._incoming: dict[str, list[tuple[str, FieldSchema]]] = {}
        self._link_incoming()

    @property
    def residue_hooks(self) -> list[Callable[["Org", OrgSnapshot], list[str]]]:
        """The subscribers of the residue event (``hooks.residue``)."""
        return self.hooks.residue

    def _link_incoming(self) -> None:
        # object name -> [(child object, reference field)] for every reference pointing at it
        self._incoming = {name: [] for name in self.schema.objects}
        for obj in self.schema.objects.values():
            for f in obj.fields.values():
                if f.type == "reference" and not f.system:
                    for target in f.reference_to:
                        self._incoming[target].append((obj.name, f))

    def replace_schema(self, schema: Schema) -> None:
        """Serve ``schema`` from now on (a deploy of custom objects or fields builds a new ``Schema``; the old one
        stays untouched for the snapshots that hold it). Tables of new objects start empty, tables of objects
        that are gone are dropped. Part of the enclosing transaction."""
        with self.lock:
            self.schema = schema
            for name in schema.objects:
                self._tables.setdefault(name, {})
            for name in [n for n in self._tables if n not in schema.objects]:
                del self._tables[name]
                self._bin.pop(name, None)
            self._link_incoming()

    # ------------------------------------------------------------------ lookups

    def object(self, name: str) -> ObjectSchema:
        """The schema of object ``name``; ``INVALID_TYPE`` when there is none."""
        obj = self.schema.get(name)
        if obj is None:
            raise invalid_type(name)
        return obj

    def object_of_id(self, record_id: str) -> ObjectSchema | None:
        """The object whose key prefix ``record_id`` has, or None."""
        return self.schema.by_prefix(record_id[:3]) if isinstance(record_id, str) else None

    def table(self, name: str) -> Mapping[str, Record]:
        """The live table of object ``name`` (read-only view: do not mutate the records)."""
        return self._tables[self.object(name).name]

    def get(self, sobject: str, record_id: str, fields: Sequence[str] | None = None) -> dict[str, Any] | None:
        """A copy of the record (all fields, or only ``fields``), or None when it does not exist."""
        obj = self.object(sobject)
        try:
            rid = ids.to18(record_id)
        except ids.MalformedId:
            return None
        with self.lock:
            rec = self._tables[obj.name].get(rid)
        if rec is None:
            return None
        if fields is None:
            return dict(rec)
        out = {}
        for name in fields:
            f = obj.field(name)
            if f is None:
                raise OrgError("INVALID_FIELD", f"No such column '{name}' on entity '{obj.name}'. If you are "
                               "attempting to use a custom field, be sure to append the '__c' after the custom field "
                               "name. Please reference your WSDL or the describe call for the appropriate names.")
            out[f.name] = rec.get(f.name)
        return out

    def find_record(self, record_id: str) -> tuple[str, dict[str, Any]] | None:
        """``(object name, record copy)`` for any id, or None."""
        try:
            rid = ids.to18(record_id)
        except ids.MalformedId:
            return None
        obj = self.object_of_id(rid)
        if obj is None:
            return None
        with self.lock:
            rec = self._tables[obj.name].get(rid)
        return (obj.name, dict(rec)) if rec is not None else None

    def records(self, sobject: str) -> list[dict[str, Any]]:
        """Copies of all records of ``sobject`` in creation order."""
        obj = self.object(sobject)
        with self.lock:
            return [dict(r) for r in self._tables[obj.name].values()]

    def find(self, sobject: str, **equals: Any) -> list[dict[str, Any]]:
        """Copies of the records whose fields equal the given values (``org.find("Group", Type="Queue")``)."""
        obj = self.object(sobject)
        wanted = []
        for name, value in equals.items():
            f = obj.field(name)
            if f is None:
                raise OrgError("INVALID_FIELD", f"No such column '{name}' on entity '{obj.name}'")
            wanted.append((f.name, value))
        with self.lock:
            return [dict(r) for r in self._tables[obj.name].values() if all(r.get(k) == v for k, v in wanted)]

    def display_name(self, sobject: str, record: Mapping[str, Any]) -> str:
        """What a person calls the record: its name field, else its id."""
        obj = self.object(sobject)
        if obj.name_field and record.get(obj.name_field):
            return str(record[obj.name_field])
        keys = [f.name for f in obj.fields.values() if f.required and not f.system][:3]
        if keys:
            return ", ".join(f"{k}={record.get(k)}" for k in keys)
        return str(record.get("Id"))

    def query(self, soql: str, *, api: str = "data", version: str = "59.0", deleted: bool = False) -> dict[str, Any]:
        """Run a SOQL query and return Salesforce's result body with **all** rows (no paging):
        ``{"totalSize", "done": True, "records": [...]}``. ``api`` is "data" or "tooling"; ``version`` goes into
        the records' ``attributes.url``. Raises ``OrgError`` (MALFORMED_QUERY, INVALID_FIELD, INVALID_TYPE)."""
        from pytest_cua.orgs.localorg.soql.engine import run_query

        with self.lock:
            return run_query(self, soql, api=api, version=version, deleted=deleted)

    # ------------------------------------------------------------------ transactions

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All writes inside happen together or not at all (the tables are put back on any exception)."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            saved = self._capture()
            self._depth = 1
            try:
                yield
            except BaseException:
                self._put_back(saved, None)
                raise
            finally:
                self._depth = 0

    # ------------------------------------------------------------------ writes

    def create(self, sobject: str, fields: Mapping[str, Any], *, user_id: str | None = None) -> str:
        """Insert a record and return its 18-character id. Raises ``OrgError`` (INVALID_FIELD,
        REQUIRED_FIELD_MISSING, INVALID_CROSS_REFERENCE_KEY, DUPLICATE_VALUE,
        FIELD_CUSTOM_VALIDATION_EXCEPTION, ...) without writing anything."""
        obj = self.object(sobject)
        _writable(obj, "insert")
        with self.transaction():
            given = self._coerce_input(obj, fields, creating=True)
            return self.insert_trusted(obj.name, given, user_id=user_id)

    def create_many(self, sobject: str, rows: Sequence[Mapping[str, Any]], *, user_id: str | None = None) -> list[str]:
        """Insert several records atomically (all or none); returns their ids."""
        with self.transaction():
            return [self.create(sobject, row, user_id=user_id) for row in rows]

    def insert_trusted(self, sobject: str, given: Mapping[str, Any], *, user_id: str | None = None) -> str:
        """Insert already coerced values, bypassing createable checks (for the org's own logic, e.g. lead
        conversion and seed metadata). Still validates required fields, references, uniqueness and rules."""
        obj = self.object(sobject)
        with self.transaction():
            actor = user_id or self.default_user_id
            stamp = values.now()
            rid = self.ids.new(obj.key_prefix)
            rec: Record = {}
            for f in obj.fields.values():
                if f.name in given:
                    rec[f.name] = given[f.name]
                elif f.default is not None:
                    rec[f.name] = f.default
                elif f.type == "boolean":
                    rec[f.name] = False
                else:
                    rec[f.name] = None
            rec.update({"Id": rid, "IsDeleted": False, "CreatedDate": stamp, "LastModifiedDate": stamp,
                        "SystemModstamp": stamp, "CreatedById": actor or rid if obj.name == "User" else actor,
                        "LastModifiedById": actor or rid if obj.name == "User" else actor})
            if obj.owner and rec.get("OwnerId") is None:
                rec["OwnerId"] = actor if actor else (rid if obj.name == "User" else None)
            for f in obj.fields.values():
                if f.auto_number:
                    rec[f.name] = self._next_number(obj.name, f)
            for before in self.hooks.before_write:
                before(self, obj, rec, None)
            self._compute(obj, rec)
            self._validate(obj, rec, None)
            self._tables[obj.name][rid] = rec
            for after in self.hooks.after_insert:
                after(self, obj, rec)
            return rid

    def update(self, sobject: str, record_id: str, fields: Mapping[str, Any], *, user_id: str | None = None) -> None:
        """Change fields of a record; NOT_FOUND (404) when it does not exist."""
        obj = self.object(sobject)
        _writable(obj, "update")
        with self.transaction():
            rid = self._existing_id(obj, record_id)
            given = self._coerce_input(obj, fields, creating=False)
            self.update_trusted(obj.name, rid, given, user_id=user_id)

    def update_trusted(self, sobject: str, record_id: str, given: Mapping[str, Any], *,
                       user_id: str | None = None) -> None:
        """Apply already coerced values, bypassing updateable checks (for the org's own logic)."""
        obj = self.object(sobject)
        with self.transaction():
            rid = self._existing_id(obj, record_id)
            old = self._tables[obj.name][rid]
            rec = dict(old)
            rec.update(given)
            stamp = values.now()
            rec["LastModifiedDate"] = rec["SystemModstamp"] = stamp
            rec["LastModifiedById"] = user_id or self.default_user_id or old.get("LastModifiedById")
            for before in self.hooks.before_write:
                before(self, obj, rec, old)
            self._compute(obj, rec)
            self._validate(obj, rec, old)
            self._tables[obj.name][rid] = rec
            for after_update in self.hooks.after_update:
                after_update(self, obj, rec, old)

    def delete(self, sobject: str, record_id: str) -> None:
        """Delete a record; records that must go with it (master-detail children) are deleted too, optional
        lookups pointing at it are cleared."""
        obj = self.object(sobject)
        _writable(obj, "delete")
        with self.transaction():
            rid = self._existing_id(obj, record_id)
            for before_delete in self.hooks.before_delete:
                before_delete(self, obj, self._tables[obj.name][rid])
            self._delete(obj.name, rid)

    def _delete(self, name: str, rid: str, root: str | None = None) -> None:
        rec = self._tables[name].pop(rid, None)
        if rec is None:
            return
        bin_table = self._bin.setdefault(name, {})
        bin_table[rid] = ({**rec, "IsDeleted": True, "SystemModstamp": values.now()}, root or rid)
        cleared: list[tuple[str, str, str]] = []
        for child_name, f in self._incoming[name]:
            table = self._tables[child_name]
            hits = [cid for cid, child in table.items() if child.get(f.name) == rid]
            for cid in hits:
                if cid not in table:
                    continue
                if f.cascade_delete or f.required:
                    self._delete(child_name, cid, root or rid)
                else:
                    new = dict(table[cid])
                    new[f.name] = None
                    new["SystemModstamp"] = values.now()
                    table[cid] = new
                    cleared.append((child_name, cid, f.name))
        if cleared:  # an undelete puts these lookups back, as Salesforce's does
            self._cleared[rid] = cleared

    def _existing_id(self, obj: ObjectSchema, record_id: str) -> str:
        try:
            rid = ids.to18(record_id)
        except ids.MalformedId:
            raise OrgError("MALFORMED_ID", f"{obj.label} ID: id value of incorrect type: {record_id}",
                           ["Id"]) from None
        if rid[:3] != obj.key_prefix:
            raise OrgError("MALFORMED_ID", f"{obj.label} ID: id value of incorrect type: {record_id}", ["Id"])
        if rid not in self._tables[obj.name]:
            if rid in self._bin.get(obj.name, {}):
                raise OrgError("ENTITY_IS_DELETED", "entity is deleted", status=404)
            raise not_found(f"The requested resource does not exist: {obj.name} {rid}")
        return rid

    def _coerce_input(self, obj: ObjectSchema, fields: Mapping[str, Any], *, creating: bool) -> dict[str, Any]:
        if not isinstance(fields, Mapping):
            raise OrgError("JSON_PARSER_ERROR", f"expected a JSON object of field values for {obj.name}")
        out: dict[str, Any] = {}
        blocked = []
        for key, value in fields.items():
            if key == "attributes":
                continue
            f = obj.field(key)
            if f is None:
                raise OrgError("INVALID_FIELD", f"No such column '{key}' on sobject of type {obj.name}", [key])
            if f.name == "Id" or not (f.createable if creating else f.updateable):
                blocked.append(f.name)
                continue
            out[f.name] = values.coerce(f, value)
        if blocked:
            raise OrgError("INVALID_FIELD_FOR_INSERT_UPDATE",
                           f"Unable to create/update fields: {', '.join(blocked)}. Please check the security settings "
                           "of this field and verify that it is read/write for your profile or permission set.",
                           blocked)
        return out

    def _next_number(self, name: str, f: FieldSchema) -> str:
        key = f"{name}.{f.name}"
        n = self._counters.get(key, 0) + 1
        self._counters[key] = n
        fmt = f.auto_number or "{0}"
        start, end = fmt.find("{"), fmt.find("}")
        if start < 0 or end < start:
            return f"{fmt}{n}"
        width = end - start - 1
        return fmt[:start] + str(n).rjust(width, "0") + fmt[end + 1:]

    def _compute(self, obj: ObjectSchema, rec: Record) -> None:
        for f in obj.fields.values():
            if f.full_name:
                parts = [str(rec[p]) for p in f.full_name if rec.get(p)]
                rec[f.name] = " ".join(parts) or None

    def _validate(self, obj: ObjectSchema, rec: Record, old: Record | None) -> None:
        validate(obj, rec, old, self.schema, self._tables, self.unenforced_rules)

    def validation_rules(self, sobject: str) -> list[dict[str, Any]]:
        """The active rules of ``sobject``: those of its schema file and active ValidationRule records."""
        return active_rules(self.object(sobject), self._tables)

    # ------------------------------------------------------------------ lead conversion

    def convert_lead(self, lead_id: str, *, account_id: str | None = None, contact_id: str | None = None,
                     create_opportunity: bool = True, opportunity_name: str | None = None,
                     converted_status: str = "Closed - Converted", owner_id: str | None = None,
                     user_id: str | None = None) -> LeadConversion:
        """Convert a lead: use ``account_id`` or create an account from the company, use ``contact_id`` or create
        a contact, optionally create an opportunity, and mark the lead converted (IsConverted, ConvertedDate,
        Converted*Id, Status). Atomic. Raises ``OrgError`` for an unknown or already converted lead."""
        with self.transaction():
            lead_obj = self.object("Lead")
            rid = self._existing_id(lead_obj, lead_id)
            lead = self._tables["Lead"][rid]
            if lead.get("IsConverted"):
                raise OrgError("CANNOT_UPDATE_CONVERTED_LEAD", f"The lead {rid} has already been converted", ["Id"])
            owner = owner_id or lead.get("OwnerId")
            if owner and not owner.startswith(self.object("User").key_prefix):
                owner = user_id or self.default_user_id  # a queue cannot own accounts
            common = {"OwnerId": owner} if owner else {}
            if account_id:
                account_id = self._existing_id(self.object("Account"), account_id)
            else:
                acc = {"Name": lead.get("Company") or lead.get("Name"), "Industry": lead.get("Industry"),
                       "AnnualRevenue": lead.get("AnnualRevenue"), "NumberOfEmployees": lead.get("NumberOfEmployees"),
                       "Phone": lead.get("Phone"), "Website": lead.get("Website"), "AccountSource": lead.get("LeadSource"),
                       "BillingStreet": lead.get("Street"), "BillingCity": lead.get("City"),
                       "BillingState": lead.get("State"), "BillingPostalCode": lead.get("PostalCode"),
                       "BillingCountry": lead.get("Country"), "Rating": lead.get("Rating"), **common}
                account_id = self.insert_trusted("Account", acc, user_id=user_id)
            if contact_id:
                contact_id = self._existing_id(self.object("Contact"), contact_id)
                if not self._tables["Contact"][contact_id].get("AccountId"):
                    self.update_trusted("Contact", contact_id, {"AccountId": account_id}, user_id=user_id)
            else:
                con = {"FirstName": lead.get("FirstName"), "LastName": lead.get("LastName"),
                       "Salutation": lead.get("Salutation"), "Title": lead.get("Title"), "Email": lead.get("Email"),
                       "Phone": lead.get("Phone"), "MobilePhone": lead.get("MobilePhone"), "AccountId": account_id,
                       "LeadSource": lead.get("LeadSource"), "MailingStreet": lead.get("Street"),
                       "MailingCity": lead.get("City"), "MailingState": lead.get("State"),
                       "MailingPostalCode": lead.get("PostalCode"), "MailingCountry": lead.get("Country"),
                       "DoNotCall": lead.get("DoNotCall", False),
                       "HasOptedOutOfEmail": lead.get("HasOptedOutOfEmail", False), **common}
                contact_id = self.insert_trusted("Contact", con, user_id=user_id)
            opp_id = None
            if create_opportunity:
                import datetime as _dt

                close = (_dt.date.today() + _dt.timedelta(days=30)).isoformat()
                name = opportunity_name or f"{lead.get('Company') or lead.get('Name')}-"
                opp = {"Name": name, "AccountId": account_id, "StageName": "Prospecting", "CloseDate": close,
                       "LeadSource": lead.get("LeadSource"), **common}
                opp_id = self.insert_trusted("Opportunity", opp, user_id=user_id)
            status = values.coerce(lead_obj.fields["Status"], converted_status)
            self.update_trusted("Lead", rid, {
                "IsConverted": True, "ConvertedDate": values.now()[:10], "ConvertedAccountId": account_id,
                "ConvertedContactId": contact_id, "ConvertedOpportunityId": opp_id, "Status": status,
            }, user_id=user_id)
            return LeadConversion(rid, account_id, contact_id, opp_id)

    # ------------------------------------------------------------------ snapshots

    def _capture(self) -> OrgSnapshot:
        return OrgSnapshot({name: table.copy() for name, table in self._tables.items()}, dict(self._counters),
                           metadata=dict(self.metadata), schema=self.schema,
                           bin={name: table.copy() for name, table in self._bin.items() if table})

    def _put_back(self, snap: OrgSnapshot, scope: Sequence[str] | None) -> None:
        # metadata and the schema always go back whatever the scope; a task that changed them gets every table
        # back (a deploy writes records of objects no scope names: EntityDefinition, ListView, ...)
        if scope is not None and (snap.schema is not None and snap.schema is not self.schema or
                                  self.metadata != snap.metadata):
            scope = None
        self.metadata = dict(snap.metadata)
        before = self.schema
        if snap.schema is not None and snap.schema is not self.schema:
            self.replace_schema(snap.schema)
        if scope is None:
            names: Sequence[str] = list(self.schema.objects)
        else:  # an object the task created is gone with the schema of the snapshot: nothing to put back
            names = [self.object(n).name for n in scope if n in self.schema or n not in before]
        for name in names:
            self._tables[name] = snap.tables.get(name, {}).copy()
            self._bin[name] = snap.bin.get(name, {}).copy()
        self._cleared = {k: v for k, v in self._cleared.items() if any(k in t for t in self._bin.values())}
        if scope is None:
            self._counters = dict(snap.counters)
        else:
            for key in list(self._counters):
                if key.split(".", 1)[0] in names:
                    if key in snap.counters:
                        self._counters[key] = snap.counters[key]
                    else:
                        del self._counters[key]

    def snapshot(self) -> OrgSnapshot:
        """Capture every table (shallow copies: records are immutable)."""
        with self.lock:
            return self._capture()

    def restore(self, snapshot: OrgSnapshot, scope: Sequence[str] | None = None) -> None:
        """Put the tables of ``snapshot`` back: all, or only the objects named in ``scope``."""
        with self.lock:
            self._put_back(snapshot, scope)

    def residue(self, snapshot: OrgSnapshot) -> list[str]:
        """Every record that differs from ``snapshot``, one readable line each; empty means identical (the
        lines of the residue subscribers, ``hooks.residue``, come after the schema and metadata lines)."""
        with self.lock:
            now = OrgSnapshot(self._tables, self._counters, metadata=self.metadata, schema=self.schema, bin=self._bin)
            extra = [line for hook in self.hooks.residue for line in hook(self, snapshot)]
            return residue_lines(now, snapshot, self.display_name, extra)

    # ------------------------------------------------------------------ the recycle bin

    def deleted(self, name: str) -> list[Record]:
        """The records of object ``name`` in the recycle bin (``IsDeleted`` true), as queryAll sees them."""
        return [rec for rec, _ in self._bin.get(self.object(name).name, {}).values()]

    def _binned(self, record_id: str) -> tuple[str, str] | None:
        obj = self.object_of_id(record_id)
        if obj is None:
            return None
        try:
            rid = ids.to18(record_id)
        except ids.MalformedId:
            return None
        return (obj.name, rid) if rid in self._bin.get(obj.name, {}) else None

    def undelete(self, record_id: str) -> str:
        """Take a record out of the recycle bin, with the records its delete took along (master-detail
        children); returns its 18-character id. ``UNDELETE_FAILED`` when it is not in the recycle bin."""
        with self.transaction():
            found = self._binned(record_id)
            if found is None:
                raise OrgError("UNDELETE_FAILED", f"Entity is not in the recycle bin: {record_id}", ["Id"])
            name, rid = found
            along = [(n, cid) for n, table in self._bin.items() for cid, (_, root) in table.items() if root == rid]
            for n, cid in sorted(along, key=lambda x: x[1] != rid):
                rec, _ = self._bin[n].pop(cid)
                stamp = values.now()
                self._tables[n][cid] = {**rec, "IsDeleted": False, "SystemModstamp": stamp}
            for n, cid in along:
                for child_name, child_id, field_name in self._cleared.pop(cid, []):
                    child = self._tables.get(child_name, {}).get(child_id)
                    if child is not None and child.get(field_name) is None:
                        self._tables[child_name][child_id] = {**child, field_name: cid, "SystemModstamp": values.now()}
            return rid

    def purge(self, record_id: str) -> str:
        """Remove a record from the recycle bin for good (``emptyRecycleBin``), with the records its delete
        took along; ``INVALID_ID_FIELD`` when it is not in the recycle bin."""
        with self.transaction():
            found = self._binned(record_id)
            if found is None:
                raise OrgError("INVALID_ID_FIELD", f"The id is not in the recycle bin: {record_id}", ["Id"])
            _, rid = found
            for table in self._bin.values():
                for cid in [c for c, (_, root) in table.items() if root == rid or c == rid]:
                    del table[cid]
                    self._cleared.pop(cid, None)
            return rid

    def counts(self) -> dict[str, int]:
        """Number of records per object (objects with records only)."""
        with self.lock:
            return {name: len(t) for name, t in self._tables.items() if t}
