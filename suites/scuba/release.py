"""SCUBA's public release as a task source: its task records and its seed records.

``--scuba-root PATH`` names a checkout of the public SCUBA repository. Its tasks come from
``data/test_zero_shot.json`` (or ``data/test_demo_aug.json`` with ``--demos``), one pytest test per record
(test id = SCUBA's ``task_id``); its seed records (``scuba/prerequisites/data/bulk_data/<Object>.json``) are
installed into each worker's org before the org's snapshot, so every task starts from them.

Release record -> Task::

    task_id              -> id
    query                -> instruction (what the agent receives; in the demonstration-augmented file, read
                            with --demos, it already holds the demonstrations)
    memory               -> extra["memory"] (with --demos; not demonstration_text, which agents would add to
                            the instruction a second time)
    category             -> persona (admin / sales / service)
    difficulty           -> difficulty
    query_template_name  -> template (the evaluator key)
    ground_truth_dict    -> ground_truth (the evaluator's arguments)
    everything else      -> extra (``extra["release"]`` is True; ``extra["objects"]`` the record's objects)

A record that does not fit is a ``TaskFileError`` naming the file, the task id and the field: the release
becomes one collection error and the suite's own tasks still collect.

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
``SeedError`` naming the file, object, record and field: provisioning fails with it.

Before the seed records, the release's metadata prerequisites (``scuba/prerequisites/metadata``, in
Salesforce's source format) are converted to a deploy package at run time (``prerequisite_package``:
``objects/X/X.object-meta.xml`` and ``objects/X/fields/*.field-meta.xml`` become ``objects/X.object`` with its
``<fields>``, ``queues/Q.queue-meta.xml`` becomes ``queues/Q.queue``, ...) and deployed through the org's
Metadata API over SOAP with the environment's API session (``install_metadata``), all or nothing, as SCUBA
deploys them before its tasks: the custom objects (MyAnimal__c, ...) become sObjects, the queues Group records,
the approval processes, duplicate and matching rules, flow, layout, tab, settings and the Admin profile
components. Left out, each with a note: the Einstein bot and Agentforce folders (``SKIPPED_FOLDERS``), and the
report files whose reports the org already has as Report records (the seed's five reports are those files,
kept as Analytics records so the report templates read them; a deployed Report would be a second, document-only
copy). A file the conversion cannot place or a component the org refuses is a ``PrerequisiteError`` naming the
file, the component and the problem. The seed records need the org's store: an org served by another process
(``--cua-orgs``) cannot be prepared for the release.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from pytest_cua.orgs.localorg import ids
from pytest_cua.tasks.suite import Suite, TaskSource
from pytest_cua.tasks.task import DIFFICULTIES, Task, TaskFileError, _ID

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.orgs.localorg.store import Org

ZERO_SHOT_FILE = "data/test_zero_shot.json"
DEMO_AUG_FILE = "data/test_demo_aug.json"
SEED_DIR = "scuba/prerequisites/data/bulk_data"
METADATA_DIR = "scuba/prerequisites/metadata"
PERSONAS = ("admin", "sales", "service")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ROOT_OPTION = "scuba_root"  # dest of --scuba-root (registered in suites/scuba/conftest.py)

# Names in SCUBA's ``objects`` / ``metadata_types`` lists that are not object names of the org's schema.
OBJECT_ALIASES: dict[str, tuple[str, ...]] = {
    "Queue": ("Group", "GroupMember", "QueueSobject"),
    "Knowledge__ka": ("Knowledge__kav",),
    "CustomObject": ("EntityDefinition",),
    "StandardValueSet": (),
    "Report": (),
}


# --- task records ----------------------------------------------------------------------------------------

def release_file(root: str | Path, *, demos: bool) -> Path:
    """The task file of a SCUBA checkout: zero-shot, or demonstration-augmented with ``demos``."""
    return Path(root) / (DEMO_AUG_FILE if demos else ZERO_SHOT_FILE)


def task_from_record(record: Any, *, index: int, path: str, demos: bool, suite: str = "scuba") -> Task:
    """One release record as a Task; a record that does not fit raises TaskFileError naming the field."""
    label = f"#{index}"
    if not isinstance(record, Mapping):
        raise TaskFileError(path, f"a task record must be an object, got {type(record).__name__}", task_id=label)
    tid = record.get("task_id")
    if not isinstance(tid, str) or not _ID.match(tid):
        raise TaskFileError(path, f"must be a non-empty string of letters, digits, '_', '-', '.', got {tid!r}",
                            task_id=label, field_name="task_id")

    def fail(name: str, message: str) -> TaskFileError:
        return TaskFileError(path, message, task_id=tid, field_name=name)

    def text(name: str, choices: Sequence[str] | None = None) -> str:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise fail(name, f"must be a non-empty string, got {value!r}")
        if choices is not None and value not in choices:
            raise fail(name, f"must be one of {', '.join(choices)}, got {value!r}")
        return value

    query = text("query")
    persona = text("category", PERSONAS)
    difficulty = text("difficulty", DIFFICULTIES)
    template = text("query_template_name")
    truth = record.get("ground_truth_dict")
    if not isinstance(truth, Mapping):
        raise fail("ground_truth_dict", f"must be an object, got {type(truth).__name__}")
    meta = record.get("query_template_metadata", {})
    if meta is None:
        meta = {}
    if not isinstance(meta, Mapping):
        raise fail("query_template_metadata", f"must be an object, got {type(meta).__name__}")
    lists: dict[str, list[str]] = {}
    for key in ("objects", "metadata_types"):
        value = meta.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"query_template_metadata.{key}", f"must be a list of strings, got {value!r}")
        lists[key] = list(value)
    memory: str | None = None
    if demos:
        memory = text("memory")
    subcategory = record.get("subcategory")
    if subcategory is not None and not isinstance(subcategory, str):
        raise fail("subcategory", f"must be a string, got {subcategory!r}")
    extra = {
        "release": True,
        "subcategory": subcategory,
        "template_id": meta.get("template_id"),
        "objects": lists["objects"],
        "metadata_types": lists["metadata_types"],
        "query_templated": record.get("query_templated"),
        "instance": record.get("instance_dict"),
        "prerequisites": meta.get("prerequisites") or {},
        "memory": memory,
    }
    return Task(id=tid, suite=suite, instruction=query, persona=persona, difficulty=difficulty, template=template,
                ground_truth=dict(truth), source=f"{path}#{index}", extra=extra)


def load_release(path: str | Path, *, demos: bool, suite: str = "scuba", shown: str | None = None) -> list[Task]:
    """Every record of a release task file as a Task (raises TaskFileError on the first that does not fit)."""
    path = Path(path)
    label = shown or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        hint = " (is --scuba-root a checkout of the SCUBA repository?)"
        raise TaskFileError(label, f"cannot be read: {exc.strerror or exc}{hint}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(label, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, list):
        raise TaskFileError(label, f"must be a JSON list of task records, got {type(data).__name__}")
    return [task_from_record(r, index=i, path=label, demos=demos, suite=suite) for i, r in enumerate(data)]


# --- seed records ----------------------------------------------------------------------------------------

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


# What a new Salesforce Developer Edition org has before any data is loaded and SCUBA's tasks take for granted
# (they name the role "CEO", the role "Customer Support, North America", the user "Security User"): the standard
# sample role hierarchy and the two system users. Installed with --scuba-root only, when missing.
ORG_DEFAULT_ROLES: tuple[tuple[str, str | None], ...] = (
    ("CEO", None),
    ("CFO", "CEO"),
    ("COO", "CEO"),
    ("SVP, Customer Service & Support", "CEO"),
    ("SVP, Human Resources", "CEO"),
    ("SVP, Sales & Marketing", "CEO"),
    ("Customer Support, International", "SVP, Customer Service & Support"),
    ("Customer Support, North America", "SVP, Customer Service & Support"),
    ("Installation & Repair Services", "SVP, Customer Service & Support"),
    ("VP, International Sales", "SVP, Sales & Marketing"),
    ("VP, Marketing", "SVP, Sales & Marketing"),
    ("VP, North American Sales", "SVP, Sales & Marketing"),
    ("Marketing Team", "VP, Marketing"),
    ("Director, Channel Sales", "VP, North American Sales"),
    ("Director, Direct Sales", "VP, North American Sales"),
    ("Channel Sales Team", "Director, Channel Sales"),
    ("Eastern Sales Team", "Director, Direct Sales"),
    ("Western Sales Team", "Director, Direct Sales"),
)
ORG_DEFAULT_USERS: tuple[tuple[str, str], ...] = (("Integration", "intgr"), ("Security", "secur"))


#: The object settings SCUBA's admin questions (qa_admin_039) read in its org, set so that each question's ground
#: truth holds: holder kind, API name, label, component permission sets (a group), {object: permissions}. R, C,
#: E, D: Read, Create, Edit, Delete. Holders the org lacks are made; an object a holder already has settings for
#: is left as it is. They are arranged for those tasks only (``ObjectSettingsQuestion.arrange``), never in the
#: org's snapshot: other tasks of the release create "Account Access" (admin_019) and "Product Admin" (admin_020).
ORG_DEFAULT_ACCESS: tuple[tuple[str, str, str, tuple[str, ...], dict[str, str]], ...] = (
    ("PermissionSet", "Account_Access", "Account Access", (), {"Account": "RCE"}),
    ("PermissionSet", "Agentforce_Service_Agent_Secure_Base", "Agentforce Service Agent Secure Base", (),
     {"Case": "R"}),
    ("PermissionSet", "C360_High_Scale_Flow_Integration_User", "C360 High Scale Flow Integration User", (),
     {"Case": "RCE"}),
    ("PermissionSet", "Cases_Admin", "Cases Admin", (), {"Case": "RCED"}),
    ("PermissionSet", "ConnectivityServiceCASCPermSet", "ConnectivityServiceCASCPermSet", (), {"Case": "RE"}),
    ("PermissionSet", "Buyer", "Buyer", (), {"Account": "R", "Order": "RCED"}),
    ("PermissionSet", "Product_Admin_Access", "Product Admin Access", (), {"Account": "RCED", "Product2": "RCED"}),
    ("PermissionSet", "Trainee_Account_Read", "Trainee Account Read", (), {"Account": "R"}),
    ("PermissionSetGroup", "Product_Admin", "Product Admin", ("Product_Admin_Access",), {}),
    ("PermissionSetGroup", "Commerce_Shopper", "Commerce Shopper", ("Buyer",), {}),
    ("PermissionSetGroup", "Trainee_Analyst", "Trainee Analyst", ("Trainee_Account_Read",), {}),
    ("Profile", "Custom: Sales Profile", "Custom: Sales Profile", (), {"Opportunity": "RCED"}),
    ("Profile", "Gold Partner User", "Gold Partner User", (), {"Opportunity": "RCE"}),
    ("Profile", "Analytics Cloud Integration User", "Analytics Cloud Integration User", (), {"Opportunity": "R"}),
)
KIND_WORDS = {"PermissionSet": "permission set", "PermissionSetGroup": "permission set group", "Profile": "profile"}
_ACCESS_LETTERS = {"R": "allowRead", "C": "allowCreate", "E": "allowEdit", "D": "allowDelete"}


def install_object_settings(org: "Org") -> list[str]:
    """The holders and object settings of ``ORG_DEFAULT_ACCESS`` that ``org`` lacks, written through its Metadata
    store; returns what was installed (``permission set Account Access``, ``Opportunity of Gold Partner User``)."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata import xmltree as X
    from pytest_cua.orgs.localorg.metadata.components import profile_full_name

    store = MetadataStore(org)
    added: list[str] = []
    for kind, name, label, sets, access in ORG_DEFAULT_ACCESS:
        full = profile_full_name(name) if kind == "Profile" else name
        body = store.read(kind, full)
        if body is None and kind == "Profile":
            raise ValueError(f"ORG_DEFAULT_ACCESS names the profile {name!r}, which the org lacks")
        new = body is None
        if body is None:
            body = X.element(kind, [X.leaf("label", label), *(X.leaf("permissionSets", p) for p in sets)])
            added.append(f"{KIND_WORDS[kind]} {label}")
        have = {X.text_of(e, "object") for e in X.children(body, "objectPermissions")}
        wanted = {obj: perms for obj, perms in access.items() if obj not in have}
        if not wanted and not new:
            continue
        entries = [X.element("objectPermissions", [
            *(X.leaf(flag, letter in perms) for letter, flag in sorted(_ACCESS_LETTERS.items(), key=lambda i: i[1])),
            X.leaf("modifyAllRecords", False), X.leaf("object", obj), X.leaf("viewAllFields", False),
            X.leaf("viewAllRecords", False)]) for obj, perms in sorted(wanted.items())]
        out = X.element(kind, [*(c for c in body if kind != "Profile" or c.tag == "objectPermissions"), *entries])
        store.write(kind, full, X.sorted_children(out))
        added += [f"{obj} of {label}" for obj in sorted(wanted)]
    return added


def role_developer_name(name: str) -> str:
    """The DeveloperName Salesforce gives a sample role: its letters and digits run together
    (``Customer Support, North America`` -> ``CustomerSupportNorthAmerica``, ``SVP, Customer Service & Support``
    -> ``SVPCustomerServiceSupport``), as SCUBA's tasks name them (admin_009_001 and admin_009_002)."""
    return re.sub(r"[^A-Za-z0-9]+", "", name)


def install_org_defaults(org: "Org", report: SeedReport | None = None) -> list[str]:
    """The standard roles and system users of a new Developer Edition org that ``org`` lacks (see
    ``ORG_DEFAULT_ROLES``); returns the names installed. Roles the seed loaded without a DeveloperName get the
    one Salesforce derives from the label (``Project Lead`` -> ``Project_Lead``, as admin_009_002 names it)."""
    from pytest_cua.orgs.localorg.seed import load_records

    added: list[str] = []
    for r in org.records("UserRole"):  # a role loaded without a developer name gets the one Salesforce gives it
        if not r.get("DeveloperName") and r.get("Name"):
            org.update_trusted("UserRole", r["Id"], {"DeveloperName": re.sub(r"[^A-Za-z0-9]+", "_",
                                                                            str(r["Name"])).strip("_")})
    roles = {str(r.get("Name", "")).lower(): r["Id"] for r in org.records("UserRole")}
    for name, parent in ORG_DEFAULT_ROLES:
        if name.lower() in roles:
            continue
        row: dict[str, Any] = {"Name": name, "DeveloperName": role_developer_name(name)}
        if parent is not None and parent.lower() in roles:
            row["ParentRoleId"] = roles[parent.lower()]
        roles[name.lower()] = load_records(org, "UserRole", [row], source="Developer Edition org defaults")[0]
        added.append(f"role {name}")
    names = {str(r.get("Name") or f"{r.get('FirstName') or ''} {r.get('LastName') or ''}").strip().lower()
             for r in org.records("User")}
    for first_name, alias in ORG_DEFAULT_USERS:
        full = f"{first_name} User"
        if full.lower() in names:
            continue
        # "security_user@...": service_002_004 assigns to the user whose username starts with security_user
        username = f"{first_name.lower()}_user@org-defaults.pytest-cua.test"
        load_records(org, "User", [{"FirstName": first_name, "LastName": "User", "Alias": alias, "Email": username,
                                    "Username": username, "ProfileId": "Standard User", "IsActive": True}],
                     source="Developer Edition org defaults")
        added.append(f"user {full}")
    if report is not None and added:
        report.installed["UserRole"] = report.installed.get("UserRole", 0) + sum(a.startswith("role ") for a in added)
        report.installed["User"] = report.installed.get("User", 0) + sum(a.startswith("user ") for a in added)
        report.notes.append(f"Developer Edition org defaults: {len(added)} records ({', '.join(added[:3])}, ...)")
    return added


def custom_objects(task: Task) -> list[str]:
    """The custom objects a release task's metadata prerequisites name (``types_and_members.CustomObject``)."""
    prereq = task.extra.get("prerequisites") or {}
    meta = prereq.get("metadata") if isinstance(prereq, Mapping) else None
    members = meta.get("types_and_members") if isinstance(meta, Mapping) else None
    found = members.get("CustomObject") if isinstance(members, Mapping) else None
    return [m for m in found if isinstance(m, str)] if isinstance(found, list) else []


# --- metadata prerequisites ------------------------------------------------------------------------------

#: folders of the prerequisites the embedded org does not take, and why (each skipped file is a note)
SKIPPED_FOLDERS = {
    "bots": ("Bot", "Einstein bots need Einstein Bots, which the embedded org does not have"),
    "genAiFunctions": ("GenAiFunction", "Agentforce actions need Agentforce, which the embedded org does not have"),
    "genAiPlugins": ("GenAiPlugin", "Agentforce topics need Agentforce, which the embedded org does not have"),
    "genAiPromptTemplates": ("GenAiPromptTemplate",
                             "prompt templates need Prompt Builder, which the embedded org does not have"),
}
#: the settings SCUBA deploys before every task, whatever the task names (scuba/phases/prerequisites.py)
ALWAYS_SETTINGS = ("Knowledge", "ServiceSetupAssistant", "Quote", "Entitlement")
_OBJECT_CHILDREN = ("fields", "listViews", "validationRules", "businessProcesses", "recordTypes", "webLinks",
                    "compactLayouts", "fieldSets", "sharingReasons", "indexes")


class PrerequisiteError(ValueError):
    """A metadata prerequisite the org cannot take: names the file (relative to the prerequisites folder), the
    component and the problem."""

    def __init__(self, path: str, component: str, problem: str) -> None:
        super().__init__(f"{path}: {component}: {problem}" if component else f"{path}: {problem}")
        self.path, self.component, self.problem = path, component, problem


@dataclass
class PrerequisitePackage:
    """The release's metadata prerequisites as a deploy package (the Metadata API's file layout)."""

    directory: Path
    files: dict[str, bytes] = field(default_factory=dict)  # package path -> content (package.xml included)
    types: dict[str, list[str]] = field(default_factory=dict)  # package.xml: type -> members
    sources: dict[str, str] = field(default_factory=dict)  # package path -> source file(s), relative
    notes: list[str] = field(default_factory=list)
    wanted: dict[str, set[str]] | None = None  # type -> members (lower case) to deploy; None: every file
    unnamed: list[str] = field(default_factory=list)  # components of the folder no task names
    found: set[tuple[str, str]] = field(default_factory=set)  # (type, member lower case) met in the folder

    def named(self, type_name: str, member: str) -> bool:
        self.found.add((type_name, member.lower()))
        return self.wanted is None or member.lower() in self.wanted.get(type_name, set())

    def add(self, type_name: str, member: str, path: str, body: Any, source: str) -> None:
        from pytest_cua.orgs.localorg.metadata import xmltree as X

        if not self.named(type_name, member):
            self.unnamed.append(f"{type_name} {member}")
            return
        self.files[path] = X.to_file(body)
        self.types.setdefault(type_name, []).append(member)
        self.sources[path] = source

    def zip_bytes(self, version: str = "62.0") -> bytes:
        """The deploy zip: ``package.xml`` and every component file at its root."""
        from pytest_cua.orgs.localorg.metadata.packages import build_zip, package_xml

        return build_zip({"package.xml": package_xml(self.types, version), **self.files})

    def component_count(self) -> int:
        return sum(len(m) for m in self.types.values())


def _source_name(path: Path) -> tuple[str, str]:
    """``Account.required_account_action.approvalProcess-meta.xml`` -> (member, suffix)."""
    stem = path.name.removesuffix("-meta.xml")
    member, _, suffix = stem.rpartition(".")
    return member, suffix


def _parse(path: Path, rel: str) -> Any:
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    try:
        return X.parse(path.read_bytes(), rel)
    except X.MetadataXmlError as exc:
        raise PrerequisiteError(rel, "", str(exc).removeprefix(f"{rel}: ")) from None
    except OSError as exc:
        raise PrerequisiteError(rel, "", f"cannot be read: {exc.strerror or exc}") from None


def _child(body: Any, tag: str, name: str, rel: str) -> Any:
    """A child component file's body as the element of its parent's file (``<fields>`` with its fullName)."""
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    given = X.text_of(body, "fullName")
    if given not in (None, "", name):
        raise PrerequisiteError(rel, name, f"the file names the component {given!r}")
    out = X.element(tag, [X.leaf("fullName", name), *(c for c in body if c.tag != "fullName")])
    return out


def wanted_members(tasks: Iterable[Task]) -> dict[str, set[str]]:
    """What SCUBA deploys for the release's tasks: every task's ``prerequisites.metadata.types_and_members``
    and the settings of ``ALWAYS_SETTINGS`` (type -> members, lower case)."""
    out: dict[str, set[str]] = {"Settings": {m.lower() for m in ALWAYS_SETTINGS}}
    for task in tasks:
        prereq = task.extra.get("prerequisites") or {}
        meta = prereq.get("metadata") if isinstance(prereq, Mapping) else None
        members = meta.get("types_and_members") if isinstance(meta, Mapping) else None
        for type_name, names in (members.items() if isinstance(members, Mapping) else ()):
            if isinstance(names, list):
                out.setdefault(str(type_name), set()).update(str(n).lower() for n in names)
    return out


def prerequisite_package(directory: str | Path, *, wanted: Mapping[str, Iterable[str]] | None = None,
                         skip_reports: Iterable[str] = ()) -> PrerequisitePackage:
    """The metadata prerequisites of a SCUBA checkout (Salesforce's source format: ``objects/X/X.object-meta.xml``
    with ``objects/X/fields/F.field-meta.xml``, ``queues/Q.queue-meta.xml``, ...) converted to the deploy
    format (``objects/X.object`` holding its ``<fields>``, ``queues/Q.queue``). ``wanted`` (type -> members,
    see ``wanted_members``) limits it to what the tasks name, as SCUBA deploys only those: the rest of the folder
    (the matching rules some tasks ask an agent to create, for one) is left out with a note, and so is a named
    member without a file (SCUBA skips it too). ``skip_reports`` are the
    developer names of reports the org already has as records: their files are left out with a note. Folders of
    ``SKIPPED_FOLDERS`` are left out with a note; anything else the conversion cannot place raises
    ``PrerequisiteError`` naming the file."""
    from pytest_cua.orgs.localorg.metadata import xmltree as X
    from pytest_cua.orgs.localorg.metadata.types import TYPES

    root = Path(directory)
    pkg = PrerequisitePackage(root)
    if wanted is not None:
        pkg.wanted = {t: {m.lower() for m in members} for t, members in wanted.items()}
    if not root.is_dir():
        raise PrerequisiteError(str(root), "", "no such folder (is --scuba-root a SCUBA checkout?)")
    by_folder = {info.directory: info for info in TYPES.values() if info.directory}
    skip = {r.lower() for r in skip_reports}
    objects: dict[str, tuple[Any, list[str]]] = {}  # object -> (its file's body, sources)
    loose_fields: list[tuple[str, str, Any, str]] = []  # fields/<Object>.<Field>.field-meta.xml
    for folder in sorted(p for p in root.iterdir()):
        rel_folder = folder.name
        if not folder.is_dir():
            raise PrerequisiteError(rel_folder, "", "a file outside a type folder")
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        if rel_folder in SKIPPED_FOLDERS:
            type_name, why = SKIPPED_FOLDERS[rel_folder]
            if pkg.wanted is not None and not pkg.wanted.get(type_name):
                pkg.unnamed.append(f"{rel_folder}/ ({len(files)} files)")
                continue
            pkg.found.update((type_name, m) for m in (pkg.wanted or {}).get(type_name, ()))
            pkg.notes.append(f"metadata prerequisites: {rel_folder}/ left out ({len(files)} files: "
                             f"{', '.join(str(p.relative_to(root)) for p in files)}): {why}")
            continue
        if rel_folder == "objects":
            for obj_dir in sorted(p for p in folder.iterdir()):
                name = obj_dir.name
                own = obj_dir / f"{name}.object-meta.xml"
                if not obj_dir.is_dir() or not own.is_file():
                    raise PrerequisiteError(str(obj_dir.relative_to(root)), name,
                                            f"a custom object folder holds {name}.object-meta.xml")
                body = _parse(own, str(own.relative_to(root)))
                if body.tag != "CustomObject":
                    raise PrerequisiteError(str(own.relative_to(root)), name,
                                            f"the root element must be CustomObject, found {body.tag}")
                sources = [str(own.relative_to(root))]
                for path in sorted(p for p in obj_dir.rglob("*") if p.is_file() and p != own):
                    rel = str(path.relative_to(root))
                    tag = path.parent.name
                    if path.parent.parent != obj_dir or tag not in _OBJECT_CHILDREN or \
                            not path.name.endswith("-meta.xml"):
                        raise PrerequisiteError(rel, name, "not a component of the object (expected "
                                                f"objects/{name}/<{'|'.join(_OBJECT_CHILDREN)}>/<name>.<type>-meta.xml)")
                    child_name, _ = _source_name(path)
                    body.append(_child(_parse(path, rel), tag, child_name, rel))
                    sources.append(rel)
                objects[name] = (body, sources)
            continue
        if rel_folder == "fields":  # <Object>.<Field>.field-meta.xml: CustomField outside its object's folder
            for path in files:
                rel = str(path.relative_to(root))
                member, suffix = _source_name(path)
                obj_name, _, fname = member.partition(".")
                if suffix != "field" or not fname or path.parent != folder:
                    raise PrerequisiteError(rel, member, "expected fields/<Object>.<Field>.field-meta.xml")
                loose_fields.append((obj_name, fname, _child(_parse(path, rel), "fields", fname, rel), rel))
            continue
        info = by_folder.get(rel_folder)
        if info is None:
            raise PrerequisiteError(rel_folder, "", "no metadata type of the embedded org keeps its files in this "
                                                    "folder")
        for path in files:
            rel = str(path.relative_to(root))
            if not path.name.endswith("-meta.xml"):
                raise PrerequisiteError(rel, "", "a content file (the org takes no type with content files)")
            member, suffix = _source_name(path)
            inner = path.parent.relative_to(folder)
            if info.in_folder and suffix == f"{info.suffix}Folder" and str(inner) == ".":
                body = _parse(path, rel)
                pkg.add(info.name, member, f"{info.directory}/{member}-meta.xml", body, rel)
                continue
            if suffix != info.suffix:
                raise PrerequisiteError(rel, member, f"expected a .{info.suffix}-meta.xml file in {rel_folder}/")
            if info.in_folder:
                if len(inner.parts) != 1:
                    raise PrerequisiteError(rel, member, f"expected {rel_folder}/<folder>/<name>.{suffix}-meta.xml")
                member = f"{inner.parts[0]}/{member}"
                if info.name == "Report" and member.split("/", 1)[1].lower() in skip and \
                        pkg.named(info.name, member):
                    pkg.notes.append(f"metadata prerequisites: {rel} left out: the org has the report "
                                     f"{member.split('/', 1)[1]} as a Report record already (the seed's "
                                     "reports are these files)")
                    continue
            elif str(inner) != ".":
                raise PrerequisiteError(rel, member, f"expected {rel_folder}/<name>.{suffix}-meta.xml")
            body = _parse(path, rel)
            pkg.add(info.name, member, f"{info.directory}/{member}.{info.suffix}", body, rel)
    for obj_name, fname, el, rel in loose_fields:
        if obj_name in objects and pkg.named("CustomObject", obj_name):
            pkg.named("CustomField", f"{obj_name}.{fname}")
            body, sources = objects[obj_name]
            same = [f for f in X.children(body, "fields") if X.text_of(f, "fullName") == fname]
            if same and X.canonical(same[0]) != X.canonical(el):
                raise PrerequisiteError(rel, f"{obj_name}.{fname}", f"differs from the field in objects/{obj_name}/")
            if not same:
                body.append(el)
                sources.append(rel)
            continue
        if not pkg.named("CustomField", f"{obj_name}.{fname}"):
            pkg.unnamed.append(f"CustomField {obj_name}.{fname}")
            continue
        key = f"objects/{obj_name}.object"
        holder = X.parse(pkg.files[key], key) if key in pkg.files else X.element("CustomObject")
        holder.append(el)
        pkg.files[key] = X.to_file(holder)
        pkg.types.setdefault("CustomField", []).append(f"{obj_name}.{fname}")
        pkg.sources[key] = ", ".join(filter(None, [pkg.sources.get(key), rel]))
    for name, (body, sources) in objects.items():
        if pkg.named("CustomObject", name):  # its fields come with it
            pkg.found.update(("CustomField", f"{name}.{X.text_of(f, 'fullName')}".lower())
                             for f in X.children(body, "fields"))
        pkg.add("CustomObject", name, f"objects/{name}.object", X.sorted_children(body), ", ".join(sources))
    if pkg.unnamed:
        pkg.notes.append(f"metadata prerequisites no release task names, not deployed (SCUBA deploys what a task "
                         f"names): {', '.join(sorted(pkg.unnamed))}")
    missing = sorted(f"{t} {m}" for t, members in (pkg.wanted or {}).items() for m in members
                     if (t, m) not in pkg.found)
    if missing:
        pkg.notes.append(f"metadata prerequisites the release tasks name without a file in {root}, left out (SCUBA "
                         f"skips them too): {', '.join(missing)}")
    return pkg


def _deploy_failures(pkg: PrerequisitePackage, failures: Iterable[tuple[str, str, str]]) -> PrerequisiteError:
    """One error naming every component the org refused, (package file, component, problem), by its source
    files; ``path`` and ``component`` are those of the first."""
    named = [(pkg.sources.get(f.removeprefix("unpackaged/"), f), c, p) for f, c, p in failures]
    if not named:
        return PrerequisiteError(str(pkg.directory), "", "the deploy failed without naming a component")
    lines = "\n  ".join(f"{source}: {component}: {problem}" for source, component, problem in named)
    err = PrerequisiteError(str(pkg.directory), "", f"the org refused {len(named)} metadata prerequisites:\n  "
                                                    f"{lines}")
    err.path, err.component = named[0][0], named[0][1]
    return err


def deploy_over_api(sf: Any, pkg: PrerequisitePackage, *, timeout: float = 120.0) -> int:
    """Deploy ``pkg`` through the Metadata API's SOAP endpoint with the client's session (``env.org``), all or
    nothing; returns the number of components deployed. A refused component raises ``PrerequisiteError``
    naming the source file, the component and Salesforce's problem."""
    import base64
    import time

    from .templates import metadata_io as md

    data = base64.b64encode(pkg.zip_bytes()).decode("ascii")
    try:
        started = md.call(sf, "deploy", f"<ZipFile>{data}</ZipFile><DeployOptions><rollbackOnError>true"
                                        "</rollbackOnError><singlePackage>true</singlePackage></DeployOptions>")
        job = started.findtext("result/id") or ""
        deadline = time.monotonic() + timeout
        while True:
            status = md.call(sf, "checkDeployStatus", f"<asyncProcessId>{job}</asyncProcessId>"
                                                      "<includeDetails>true</includeDetails>")
            result = status.find("result")
            if result is not None and result.findtext("done") == "true":
                break
            if time.monotonic() > deadline:
                raise PrerequisiteError(str(pkg.directory), "", f"the deploy {job} did not finish in {timeout:.0f} s")
            time.sleep(0.5)
    except md.MetadataCallError as exc:
        raise PrerequisiteError(str(pkg.directory), "", f"the Metadata API refused the deploy: {exc}") from None
    if result.findtext("success") != "true":
        failures = [(f.findtext("fileName") or "", f.findtext("fullName") or "", f.findtext("problem") or "")
                    for f in result.iter("componentFailures")]
        raise _deploy_failures(pkg, failures)
    return int(result.findtext("numberComponentsDeployed") or 0)


def install_metadata(sf: Any, directory: str | Path, report: SeedReport | None = None,
                     tasks: Iterable[Task] | None = None) -> PrerequisitePackage:
    """Deploy the metadata prerequisites folder of a SCUBA checkout (``scuba/prerequisites/metadata``) into the
    org of the API client ``sf`` (simple-salesforce) over its Metadata API, as SCUBA deploys them before its
    tasks: custom objects become sObjects, queues Group records, and so on. Reports the org already holds as
    records (the seed's Report records come from the same files) are left out with a note. With ``tasks``, only
    what their prerequisites name (``wanted_members``); without, every file of the folder."""
    from simple_salesforce.exceptions import SalesforceError

    try:
        have = {str(r.get("DeveloperName")) for r in sf.query_all("SELECT DeveloperName FROM Report")["records"]}
    except SalesforceError:  # an org without the Report object: every report file is deployed
        have = set()
    wanted = wanted_members(tasks) if tasks is not None else None
    pkg = prerequisite_package(directory, wanted=wanted, skip_reports=have)
    deployed = deploy_over_api(sf, pkg)
    if report is not None:
        for type_name, members in pkg.types.items():
            key = f"Metadata {type_name}"
            report.installed[key] = report.installed.get(key, 0) + len(members)
        report.notes += pkg.notes
        report.notes.append(f"metadata prerequisites: {pkg.component_count()} components deployed "
                            f"({deployed} with their child components) from {directory}")
    return pkg


def custom_objects_package(tasks: Iterable[Task], have: Callable[[str], bool]) -> PrerequisitePackage:
    """The empty custom objects (a real sObject with its Name field; Salesforce's defaults for a new custom
    object: internal ReadWrite, external Private) of those the release's metadata prerequisites name that
    ``have`` says the org lacks."""
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    wanted = sorted({m for t in tasks if t.extra.get("release") for m in custom_objects(t)})
    pkg = PrerequisitePackage(Path("release task prerequisites"))
    for name in [m for m in wanted if not have(m) and m.endswith("__c")]:
        label = name.removesuffix("__c").replace("_", " ")
        body = X.element("CustomObject", [
            X.leaf("deploymentStatus", "Deployed"), X.leaf("externalSharingModel", "Private"), X.leaf("label", label),
            X.element("nameField", [X.leaf("label", f"{label} Name"), X.leaf("type", "Text")]),
            X.leaf("pluralLabel", f"{label}s"), X.leaf("sharingModel", "ReadWrite")])
        pkg.add("CustomObject", name, f"objects/{name}.object", body, f"CustomObject {name} of the task records")
    return pkg


def install_custom_objects(org: "Org", tasks: Iterable[Task], report: SeedReport | None = None) -> list[str]:
    """Each custom object the release's metadata prerequisites name that ``org`` still lacks (a checkout without
    the object's files), deployed in process as an empty custom object (``custom_objects_package``). Returns
    the names."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata.packages import DeployOptions, deploy

    pkg = custom_objects_package(tasks, lambda m: org.schema.get(m) is not None)
    new = sorted(pkg.types.get("CustomObject", []))
    if not new:
        return []
    outcome = deploy(MetadataStore(org), pkg.zip_bytes(), DeployOptions())
    if not outcome.success:
        raise _deploy_failures(pkg, [(m.file_name, m.full_name, m.problem) for m in outcome.messages
                                     if not m.success])
    if report is not None:
        report.installed["Metadata CustomObject"] = report.installed.get("Metadata CustomObject", 0) + len(new)
        report.notes.append(f"custom objects the tasks name without files in the metadata prerequisites, deployed "
                            f"empty (no fields): {', '.join(new)}")
    return new


def provision_over_api(env: Any, client: Any, root: Path | None, demos: bool, suite: str) -> SeedReport:
    """The suite's prerequisites installed into an org reached over its APIs only, idempotently: the own tasks'
    seed (the embedded org's), and with ``root`` the release's metadata prerequisites (deployed) and its seed
    records, Developer Edition defaults and custom objects, upserted by their unique keys
    (``pytest_cua.orgs.realorg.provision``). The records wanted are those of a reference org built in process by
    the same code that prepares the embedded org."""
    import tempfile
    import time

    from pytest_cua.orgs.localorg.server import OrgServer
    from pytest_cua.orgs.realorg.provision import seed_objects, sync_records

    started = time.monotonic()
    report = SeedReport()
    with tempfile.TemporaryDirectory(prefix="pytest-cua-reference-org-") as tmp:
        reference = OrgServer(Path(tmp), extensions=[])
        reference.start()
        try:
            store = reference.org
            if root is not None:
                try:
                    tasks = load_release(release_file(root, demos=demos), demos=demos, suite=suite)
                except TaskFileError:
                    tasks = []
                metadata = root / METADATA_DIR
                if metadata.is_dir():
                    ref_sf = _client_of(reference)
                    install_metadata(ref_sf, metadata, None, tasks)  # the reference's records follow from it
                    install_metadata(env.org, metadata, report, tasks)  # the target's: deploys are upserts
                have = {str(o.get("name")) for o in client.describe_global()}
                pkg = custom_objects_package(tasks, have.__contains__)
                if pkg.types:
                    deploy_over_api(env.org, pkg)
                install_seed(store, root / SEED_DIR, report)
                install_org_defaults(store, report)
                install_custom_objects(store, tasks, None)
            synced = sync_records(client, store, seed_objects(store))
        finally:
            reference.stop()
    handle = getattr(env, "handle", None)
    if handle is not None:
        handle.provisioning_note = synced.line()  # in the environment's record of every task
    report.installed.update({f"found {n}": c for n, c in synced.found.items() if c})
    report.installed.update({n: c for n, c in synced.created.items() if c})
    report.notes += [f"over the API: {synced.line()}", *synced.notes[:50]]
    report.seconds = time.monotonic() - started
    return report


def _client_of(server: Any) -> Any:
    from simple_salesforce import Salesforce

    creds = server.org_credentials
    return Salesforce(instance_url=creds.instance_url, session_id=server.access_token(),
                      session=creds.requests_session(), version="59.0")


# --- the suite -------------------------------------------------------------------------------------------

def release_root(config: Any) -> Path | None:
    """The ``--scuba-root`` checkout, or None (also when the option is not registered)."""
    try:
        value = config.getoption(ROOT_OPTION)
    except (ValueError, AttributeError):
        return None
    return Path(value).expanduser().resolve() if value else None


def demos_wanted(config: Any) -> bool:
    try:
        return bool(config.getoption("cua_demos"))
    except (ValueError, AttributeError):
        return False


def scope_names(names: Iterable[str], known: Iterable[str]) -> tuple[str, ...]:
    """SCUBA's object and metadata type names as object names of the org's schema (aliases resolved,
    unknown names dropped), sorted."""
    known_set = set(known)
    out: set[str] = set()
    for name in names:
        for candidate in OBJECT_ALIASES.get(name, (name,)):
            if candidate in known_set:
                out.add(candidate)
    return tuple(sorted(out))


def _schema_objects() -> tuple[str, ...]:
    from pytest_cua.orgs.localorg.schema import default_repo_fixtures

    return tuple(sorted(p.stem for p in (default_repo_fixtures() / "schema").glob("*.json")))


class ScubaSuite(Suite):
    """The SCUBA suite: its own task files, plus SCUBA's release when ``--scuba-root`` is given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seed_reports: list[SeedReport] = []
        self._known_objects: tuple[str, ...] | None = None

    def task_sources(self, config: Any) -> list[TaskSource]:
        sources = super().task_sources(config)
        root = release_root(config)
        if root is not None:
            demos = demos_wanted(config)
            path = release_file(root, demos=demos)
            shown = str(path)
            sources.append(TaskSource(f"scuba-release:{path.name}",
                                      lambda: load_release(path, demos=demos, suite=self.name, shown=shown)))
        return sources

    def prepare(self, env: "Environment", config: Any) -> None:
        """With ``--scuba-root`` only, before the org's snapshot, as SCUBA prepares its org: the release's
        metadata prerequisites deployed over the org's Metadata API (``install_metadata``), then its seed
        records, the Developer Edition defaults and empty custom objects for any the tasks name without files.
        The seed records need the org's store (an org served by this process)."""
        import time

        root = release_root(config)
        api_client = getattr(getattr(env, "handle", None), "client", None)  # an org over its APIs only
        if api_client is not None:
            self.seed_reports.append(provision_over_api(env, api_client, root, demos_wanted(config), self.name))
            return
        if root is None:
            return
        store = getattr(env, "store", None)
        if store is None:
            from pytest_cua.envs.base import ProvisioningError

            raise ProvisioningError(f"suite {self.name!r}: the environment {env.name!r} has no org store for "
                                    f"SCUBA's seed records (the release needs an org served by this process: "
                                    f"--cua-org local)")
        started = time.monotonic()
        report = SeedReport()
        try:
            tasks = load_release(release_file(root, demos=demos_wanted(config)), demos=demos_wanted(config),
                                 suite=self.name)
        except TaskFileError:
            tasks = []  # already a collection error of its own
        metadata = root / METADATA_DIR
        if metadata.is_dir():
            install_metadata(env.org, metadata, report, tasks)  # type: ignore[attr-defined]
        else:
            report.notes.append(f"metadata prerequisites: {metadata} is no folder: nothing deployed")
        install_seed(store, root / SEED_DIR, report)
        install_org_defaults(store, report)
        install_custom_objects(store, tasks, report)
        report.seconds = time.monotonic() - started
        self.seed_reports.append(report)

    def rollback_scope(self, task: Task) -> tuple[str, ...] | None:
        """The template's ``objects``; for a release task whose template declares none, the record's
        ``objects`` and ``metadata_types`` as schema object names; None (everything) when neither says."""
        declared = super().rollback_scope(task)
        if declared:
            return declared
        if not task.extra.get("release"):
            return None
        if self._known_objects is None:
            self._known_objects = _schema_objects()
        names = list(task.extra.get("objects") or []) + list(task.extra.get("metadata_types") or [])
        return scope_names(names, self._known_objects) or None
