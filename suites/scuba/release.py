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
(``pytest_cua.localorg.seed.load_records``) installs them; everything the adapter leaves out is listed in
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
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from pytest_cua.localorg import ids
from pytest_cua.suite import Suite, TaskSource
from pytest_cua.tasks import DIFFICULTIES, Task, TaskFileError, _ID

if TYPE_CHECKING:
    from pytest_cua.envs.base import Environment
    from pytest_cua.localorg.store import Org

ZERO_SHOT_FILE = "data/test_zero_shot.json"
DEMO_AUG_FILE = "data/test_demo_aug.json"
SEED_DIR = "scuba/prerequisites/data/bulk_data"
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

    def line(self) -> str:
        total = sum(self.installed.values())
        out = f"{total} seed records of {len(self.installed)} objects"
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

    def __init__(self, org: "Org", directory: Path) -> None:
        self.org = org
        self.directory = directory
        self.report = SeedReport()
        self.id_map: dict[str, str] = {}  # exporting org's id -> this org's id
        self.release_order: dict[str, list[str]] = {}  # object -> its records' ids here, in file order
        self.foreign_order: dict[tuple[str, str], list[str]] = {}  # (object, field) -> foreign ids, first seen

    def note(self, text: str) -> None:
        if text not in self.report.notes:
            self.report.notes.append(text)

    # -- reading --------------------------------------------------------------------------------------------
    def read(self) -> tuple[dict[str, tuple[str, list[Any]]], list[_Group]]:
        from pytest_cua.localorg.seed import SeedError

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
        from pytest_cua.localorg.seed import dependency_order, load_records

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
        from pytest_cua.localorg.seed import dependency_order

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


def install_seed(org: "Org", directory: str | Path) -> SeedReport:
    """Adapt and install a SCUBA export's seed records into ``org`` atomically; raises ``SeedError`` naming the
    file, object, record and field when a record still does not fit."""
    return _SeedAdapter(org, Path(directory)).install()


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


def install_org_defaults(org: "Org", report: SeedReport | None = None) -> list[str]:
    """The standard roles and system users of a new Developer Edition org that ``org`` lacks (see
    ``ORG_DEFAULT_ROLES``); returns the names installed."""
    from pytest_cua.localorg.seed import load_records

    added: list[str] = []
    roles = {str(r.get("Name", "")).lower(): r["Id"] for r in org.records("UserRole")}
    for name, parent in ORG_DEFAULT_ROLES:
        if name.lower() in roles:
            continue
        row: dict[str, Any] = {"Name": name, "DeveloperName": re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")}
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
        username = f"{alias}.{first_name.lower()}@org-defaults.pytest-cua.test"
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


def install_custom_objects(org: "Org", tasks: Iterable[Task], report: SeedReport | None = None) -> list[str]:
    """An ``EntityDefinition`` (the org-wide sharing settings' home) for each custom object the release's
    metadata prerequisites name and the org lacks: SCUBA deploys those objects before its tasks. Defaults are
    Salesforce's for a new custom object (internal ReadWrite, external Private)."""
    from pytest_cua.localorg.seed import load_records

    if "EntityDefinition" not in org.schema:
        return []
    existing = {str(r.get("QualifiedApiName", "")).lower() for r in org.records("EntityDefinition")}
    wanted = sorted({m for t in tasks if t.extra.get("release") for m in custom_objects(t)})
    new = [m for m in wanted if m.lower() not in existing]
    rows = []
    for name in new:
        label = name.removesuffix("__c").replace("_", " ")
        rows.append({"QualifiedApiName": name, "DeveloperName": name.removesuffix("__c"), "Label": label,
                     "PluralLabel": f"{label}s", "InternalSharingModel": "ReadWrite",
                     "ExternalSharingModel": "Private"})
    load_records(org, "EntityDefinition", rows, source="release metadata prerequisites (CustomObject)")
    if report is not None and new:
        report.installed["EntityDefinition"] = report.installed.get("EntityDefinition", 0) + len(new)
        report.notes.append(f"custom objects of the metadata prerequisites as EntityDefinition only: {', '.join(new)}")
    return new


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
    from pytest_cua.localorg.schema import default_repo_fixtures

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
        """Install the release's seed records (only with ``--scuba-root``) before the org's snapshot."""
        root = release_root(config)
        if root is None:
            return
        store = getattr(env, "store", None)
        if store is None:
            from pytest_cua.envs.base import ProvisioningError

            raise ProvisioningError(f"suite {self.name!r}: the environment {env.name!r} has no org store for "
                                    f"SCUBA's seed records")
        report = install_seed(store, root / SEED_DIR)
        install_org_defaults(store, report)
        try:
            tasks = load_release(release_file(root, demos=demos_wanted(config)), demos=demos_wanted(config),
                                 suite=self.name)
        except TaskFileError:
            tasks = []  # already a collection error of its own
        install_custom_objects(store, tasks, report)
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
