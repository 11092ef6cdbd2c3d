"""The release's metadata prerequisites (``scuba/prerequisites/metadata`` of a ``--scuba-root`` checkout, in
Salesforce's source format) converted to a deploy package: ``objects/X/X.object-meta.xml`` and
``objects/X/fields/*.field-meta.xml`` become ``objects/X.object`` with its ``<fields>``,
``queues/Q.queue-meta.xml`` becomes ``queues/Q.queue``, ... (``prerequisite_package``), limited to what the
release's tasks name (``wanted_members``), as SCUBA deploys only those.

Left out, each with a note: the Einstein bot and Agentforce folders (``SKIPPED_FOLDERS``), and the report files
whose reports the org already has as Report records (the seed's five reports are those files, kept as Analytics
records so the report templates read them; a deployed Report would be a second, document-only copy). A file the
conversion cannot place is a ``PrerequisiteError`` naming the file, the component and the problem. Deploying the
package is ``deploy``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

if TYPE_CHECKING:
    from pytest_cua import Task

METADATA_DIR = "scuba/prerequisites/metadata"

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


def custom_objects(task: Task) -> list[str]:
    """The custom objects a release task's metadata prerequisites name (``types_and_members.CustomObject``)."""
    prereq = task.extra.get("prerequisites") or {}
    meta = prereq.get("metadata") if isinstance(prereq, Mapping) else None
    members = meta.get("types_and_members") if isinstance(meta, Mapping) else None
    found = members.get("CustomObject") if isinstance(members, Mapping) else None
    return [m for m in found if isinstance(m, str)] if isinstance(found, list) else []
