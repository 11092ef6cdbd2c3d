"""Metadata of an org rolled back over the Metadata API alone.

The baseline (``MetadataBaseline``) is the listing of the tracked types (``listMetadata``: each component's
full name and lastModifiedDate) and the content of every component (one retrieve, split per component: a
top-level component is its file, a child component such as ``CustomField Account.Rating__c`` is its element
of the parent's file).

A rollback (``restore``) lists the tracked types again; the components that are new, gone or modified since
(by lastModifiedDate) are retrieved and compared with the baseline by content. Changed and deleted components
are deployed back from the baseline's content; new ones are deleted by a destructive deploy (a new object's
fields go with it). The residue check (``residue``) does the same comparison and reports every component whose
content differs. Metadata goes back whatever the task's scope, as in the embedded org: a task's record scope
names objects, and SCUBA's metadata types have no records to scope them by.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping
from xml.etree import ElementTree as ET

from pytest_cua.orgs import mdapi
from pytest_cua.orgs.realorg.client import OrgApiError, OrgClient

#: the types tracked by default (those of SCUBA's retrieval workflows and prerequisites); the org's
#: describeMetadata decides which of them exist
TRACKED = ("CustomObject", "CustomField", "ListView", "ValidationRule", "BusinessProcess", "RecordType",
           "CustomTab", "CustomApplication", "FlexiPage", "ApprovalProcess", "Workflow", "MatchingRules",
           "DuplicateRule", "GlobalValueSet", "StandardValueSet", "AssignmentRules", "EntitlementProcess",
           "Report", "Dashboard", "Layout", "Flow", "CustomLabels", "QuickAction", "SharingRules",
           "EscalationRules", "AutoResponseRules", "ReportType")
Key = tuple[str, str]  # (type, full name)
ET.register_namespace("", mdapi.MD_NS)  # files written back keep the default namespace (no ns0: prefixes)


@dataclass(frozen=True)
class TypeShape:
    """Where a type's components live in a package (from describeMetadata)."""

    name: str
    directory: str
    suffix: str
    in_folder: bool
    meta_file: bool
    parent: str | None = None
    element: str = ""  # the child's element in the parent's file (``fields``)


def describe_types(client: OrgClient, wanted: Iterable[str] = TRACKED) -> dict[str, TypeShape]:
    """The shapes of ``wanted`` types the org's describeMetadata reports (child types through their parents)."""
    response = mdapi.call(client.sf, "describeMetadata", f"<asOfVersion>{mdapi.API_VERSION}</asOfVersion>")
    want = set(wanted)
    out: dict[str, TypeShape] = {}
    for obj in response.iter("metadataObjects"):
        name = obj.findtext("xmlName") or ""
        shape = TypeShape(name, obj.findtext("directoryName") or "", obj.findtext("suffix") or "",
                          obj.findtext("inFolder") == "true", obj.findtext("metaFile") == "true")
        if name in want:
            out[name] = shape
        for child in obj.iter("childXmlNames"):
            cname = child.text or ""
            if cname in want:
                out[cname] = TypeShape(cname, shape.directory, shape.suffix, False, False, name,
                                       _child_element(cname))
    return out


def _child_element(child: str) -> str:
    return {"CustomField": "fields", "ListView": "listViews", "ValidationRule": "validationRules",
            "BusinessProcess": "businessProcesses", "RecordType": "recordTypes", "WebLink": "webLinks",
            "CompactLayout": "compactLayouts", "FieldSet": "fieldSets", "CustomLabel": "labels",
            "MatchingRule": "matchingRules", "AssignmentRule": "assignmentRule"}.get(child, "")


def list_components(client: OrgClient, shapes: Mapping[str, TypeShape]) -> dict[Key, str]:
    """(type, full name) -> lastModifiedDate of every component of ``shapes`` (folder types by folder)."""
    plain = [t for t, s in shapes.items() if not s.in_folder]
    out: dict[Key, str] = {}
    queries = [f"<queries><type>{t}</type></queries>" for t in plain]
    folder_types = [t for t, s in shapes.items() if s.in_folder]
    if folder_types:
        folders = _list(client, [f"<queries><type>{t}Folder</type></queries>" for t in folder_types])
        for t in folder_types:
            names = sorted({n for (kind, n) in folders if kind == f"{t}Folder"} | {"unfiled$public"})
            queries += [f"<queries><type>{t}</type><folder>{n}</folder></queries>" for n in names]
    out.update(_list(client, queries))
    return {k: v for k, v in out.items() if k[0] in shapes}


def _list(client: OrgClient, queries: list[str]) -> dict[Key, str]:
    out: dict[Key, str] = {}
    for i in range(0, len(queries), 3):
        response = mdapi.call(client.sf, "listMetadata", "".join(queries[i:i + 3]) +
                              f"<asOfVersion>{mdapi.API_VERSION}</asOfVersion>")
        for result in response.iter("result"):
            kind, name = result.findtext("type") or "", result.findtext("fullName") or ""
            if kind and name:
                out[(kind, name)] = result.findtext("lastModifiedDate") or ""
    return out


def _canonical(el: ET.Element) -> bytes:
    return ET.tostring(mdapi.plain(el), encoding="utf-8")


def retrieve_contents(client: OrgClient, shapes: Mapping[str, TypeShape],
                      keys: Iterable[Key]) -> tuple[dict[Key, bytes], dict[Key, dict[str, bytes]]]:
    """The content of each component of ``keys`` (its file, or its element of the parent's file, without
    namespaces) and the package files that deploy it back (its file with its ``-meta.xml``; for a child, its
    parent's file holding only that child)."""
    keys = set(keys)
    wanted: dict[str, list[str]] = {}
    for kind, name in keys:
        wanted.setdefault(kind, []).append(name)
    if not wanted:
        return {}, {}
    zipped = mdapi.retrieve_zip(client.sf, wanted)
    tops = [s for s in shapes.values() if s.parent is None]
    children: dict[str, list[TypeShape]] = {}
    for s in shapes.values():
        if s.parent is not None:
            children.setdefault(s.parent, []).append(s)
    contents: dict[Key, bytes] = {}
    files: dict[Key, dict[str, bytes]] = {}
    with zipfile.ZipFile(io.BytesIO(zipped)) as zf:
        for path in sorted(zf.namelist()):
            rel = path.removeprefix("unpackaged/")
            folder, _, file = rel.partition("/")
            if not file:
                continue
            meta = file.endswith("-meta.xml")
            stem = file[:-len("-meta.xml")] if meta else file
            shape = next((t for t in tops if t.directory == folder and stem.endswith(f".{t.suffix}")), None)
            if shape is None:
                continue
            member = stem[: -len(shape.suffix) - 1]
            data = zf.read(path)
            top_key = (shape.name, member)
            files.setdefault(top_key, {})[rel] = data
            try:
                root = ET.fromstring(data)
            except ET.ParseError:
                contents[top_key] = contents.get(top_key, b"") + data
                continue
            own = ET.Element(root.tag)
            for child in list(root):
                tag = child.tag.rsplit("}", 1)[-1]
                kid = next((c for c in children.get(shape.name, []) + _implicit_children(shape.name)
                            if c.element == tag), None)
                if kid is None or meta:
                    own.append(child)
                    continue
                full = child.findtext(f"{{{mdapi.MD_NS}}}fullName") or child.findtext("fullName") or ""
                key = (kid.name, f"{member}.{full}")
                contents[key] = _canonical(child)
                wrapper = ET.Element(root.tag)
                wrapper.append(child)
                files[key] = {rel: b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(wrapper,
                                                                                            encoding="utf-8")}
            contents[top_key] = contents.get(top_key, b"") + _canonical(own)
    return ({k: v for k, v in contents.items() if k in keys}, {k: v for k, v in files.items() if k in keys})


def _implicit_children(parent: str) -> list[TypeShape]:
    # child types the retrieve may return inside a parent file although they are not tracked: kept apart so the
    # parent's own content does not depend on them
    names = {"CustomObject": ("CustomField", "ListView", "ValidationRule", "BusinessProcess", "RecordType",
                              "WebLink", "CompactLayout", "FieldSet")}.get(parent, ())
    return [TypeShape(n, "", "", False, False, parent, _child_element(n)) for n in names]


@dataclass
class MetadataBaseline:
    shapes: dict[str, TypeShape]
    listing: dict[Key, str] = field(default_factory=dict)
    contents: dict[Key, bytes] = field(default_factory=dict)
    files: dict[Key, dict[str, bytes]] = field(default_factory=dict)  # the raw files to deploy back

    def to_json(self) -> dict[str, Any]:
        import base64

        return {"shapes": {n: vars(s) for n, s in self.shapes.items()},
                "listing": [[k[0], k[1], v] for k, v in sorted(self.listing.items())],
                "contents": [[k[0], k[1], base64.b64encode(v).decode()] for k, v in sorted(self.contents.items())],
                "files": [[k[0], k[1], {p: base64.b64encode(b).decode() for p, b in f.items()}]
                          for k, f in sorted(self.files.items())]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "MetadataBaseline":
        import base64

        return cls({n: TypeShape(**s) for n, s in data["shapes"].items()},
                   {(a, b): v for a, b, v in data["listing"]},
                   {(a, b): base64.b64decode(v) for a, b, v in data["contents"]},
                   {(a, b): {p: base64.b64decode(x) for p, x in f.items()} for a, b, f in data["files"]})


def take_baseline(client: OrgClient, tracked: Iterable[str] = TRACKED) -> MetadataBaseline:
    shapes = describe_types(client, tracked)
    listing = list_components(client, shapes)
    contents, files = retrieve_contents(client, shapes, listing)
    return MetadataBaseline(shapes, listing, contents, files)


def _moved(client: OrgClient, base: MetadataBaseline) -> tuple[dict[Key, str], set[Key], set[Key], set[Key]]:
    """The listing now, and the components created, deleted and changed (by content) since the baseline."""
    now = list_components(client, base.shapes)
    created = set(now) - set(base.listing)
    deleted = set(base.listing) - set(now)
    touched = {k for k in set(now) & set(base.listing) if now[k] != base.listing[k]}
    contents = retrieve_contents(client, base.shapes, touched)[0] if touched else {}
    changed = {k for k in touched if contents.get(k) != base.contents.get(k)}
    for k in touched - changed:  # the same content under a new date: the baseline takes the date
        base.listing[k] = now[k]
    return now, created, deleted, changed


def restore(client: OrgClient, base: MetadataBaseline) -> list[str]:
    """Deploy back every tracked component that changed since the baseline; the failures."""
    _now, created, deleted, changed = _moved(client, base)
    back = sorted(deleted | changed)
    gone = sorted(created)
    parents = {(s.name, name) for kind, name in gone for s in [base.shapes.get(kind)] if s and s.parent is None}
    gone = [k for k in gone if not (base.shapes.get(k[0]) and base.shapes[k[0]].parent is not None and
                                    (base.shapes[k[0]].parent, k[1].split(".", 1)[0]) in parents)]  # go with them
    if not back and not gone:
        return []
    missing = [k for k in back if k not in base.files]
    if missing:
        raise OrgApiError(f"{client.login.where}: the baseline has no package files of {missing[:5]}")
    files = _merged([base.files[k] for k in back if base.shapes.get(k[0]) and base.shapes[k[0]].parent is None],
                    [base.files[k] for k in back if not (base.shapes.get(k[0]) and base.shapes[k[0]].parent is None)])
    package: dict[str, list[str]] = {}
    for kind, name in back:
        package.setdefault(kind, []).append(name)
    destructive: dict[str, list[str]] = {}
    for kind, name in gone:
        destructive.setdefault(kind, []).append(name)
    try:
        mdapi.deploy(client.sf, files, package, destructive or None)
    except mdapi.MetadataCallError as exc:
        return [f"metadata deploy back: {exc}"]
    return []


def _merged(whole: list[dict[str, bytes]], parts: list[dict[str, bytes]]) -> dict[str, bytes]:
    """The files to deploy: whole components' files as they are; a child's wrapper file merged with the other
    children of the same parent (a whole parent file already holds them all)."""
    out: dict[str, bytes] = {}
    for f in whole:
        out.update(f)
    roots: dict[str, ET.Element] = {}
    for f in parts:
        for path, data in f.items():
            if path in out:
                continue
            el = ET.fromstring(data)
            if path in roots:
                roots[path].extend(list(el))
            else:
                roots[path] = el
    for path, el in roots.items():
        out[path] = b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(el, encoding="utf-8")
    return out


def residue(client: OrgClient, base: MetadataBaseline) -> list[str]:
    now, created, deleted, changed = _moved(client, base)
    out = []
    for what, keys in (("created", created), ("deleted", deleted), ("changed", changed)):
        for kind, name in sorted(keys):
            out.append(f"Metadata {kind} {name!r} {what}")
    if not out:
        base.listing = dict(now)
    return out
