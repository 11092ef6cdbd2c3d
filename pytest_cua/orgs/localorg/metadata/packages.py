"""Zip packages: what ``retrieve`` packs and what ``deploy`` unpacks, in the Metadata API's file layout.

A retrieve zip holds ``package.xml`` and one file per component (``objects/Account.object`` with the fields,
list views and validation rules asked for, ``queues/Billing_Desk.queue``, ...), under ``unpackaged/`` unless
the request asks for ``singlePackage``. A deploy zip holds ``package.xml`` (at the root or in one folder),
the component files and optionally ``destructiveChanges.xml`` (deleted before the components are written) and
``destructiveChangesPost.xml`` (deleted after).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, FileProps, MetadataStore, ParentHandler, \
    component_file
from pytest_cua.orgs.localorg.metadata.types import TYPES, TypeInfo, file_name, root_tag, type_info

# the order components are written in (what others refer to first); other types come after, Profile last
WRITE_ORDER = ["GlobalValueSet", "StandardValueSet", "CustomObject", "CustomField", "Group", "Role", "Queue",
               "RecordType", "BusinessProcess", "ListView", "ValidationRule", "CustomTab", "CustomApplication",
               "Layout", "FlexiPage", "PermissionSet", "PermissionSetGroup", "MutingPermissionSet"]
PROFILE_REFERENCES = {"applicationVisibilities": ("application", "CustomApplication"),
                      "tabVisibilities": ("tab", "CustomTab"), "objectPermissions": ("object", "CustomObject"),
                      "fieldPermissions": ("field", "CustomField"), "layoutAssignments": ("layout", "Layout"),
                      "recordTypeVisibilities": ("recordType", "RecordType"), "classAccesses": ("apexClass", "ApexClass"),
                      "pageAccesses": ("apexPage", "ApexPage"), "flowAccesses": ("flow", "Flow"),
                      "customPermissions": ("name", "CustomPermission")}


def parse_package(body: ET.Element) -> dict[str, list[str]]:
    """``<Package>`` (or ``unpackaged`` of a retrieve request) -> type name -> members, in document order."""
    out: dict[str, list[str]] = {}
    for types in X.children(body, "types"):
        name = X.text_of(types, "name") or ""
        out.setdefault(name, []).extend((m.text or "").strip() for m in X.children(types, "members"))
    return out


def package_xml(types: dict[str, list[str]], version: str) -> bytes:
    """A ``package.xml``: types sorted by name, members as given."""
    parts = [X.element("types", [*(X.leaf("members", m) for m in members), X.leaf("name", name)])
             for name, members in sorted(types.items())]
    return X.to_file(X.element("Package", [*parts, X.leaf("version", version)]))


# ---------------------------------------------------------------------------------------------- retrieve


@dataclass
class RetrieveOutcome:
    """The zip and what a RetrieveResult reports."""

    zip_bytes: bytes
    file_properties: list[FileProps]
    messages: list[tuple[str, str]]  # (fileName, problem)


def _resolve(store: MetadataStore, types: dict[str, list[str]], pkg_file: str) -> \
        tuple[list[tuple[TypeInfo, str]], list[tuple[str, str]]]:
    wanted: list[tuple[TypeInfo, str]] = []
    messages: list[tuple[str, str]] = []
    for type_name, members in types.items():
        info = type_info(type_name)
        if info is None or (info.name == "Settings" and type_name != "Settings"):
            messages.append((pkg_file, f"Entity type: '{type_name}' is unknown"))
            continue
        names = store.names(info.name)
        low = {n.lower(): n for n in names}
        for member in members:
            if member == "*":
                wanted += [(info, n) for n in names if n not in {w[1] for w in wanted if w[0] is info}]
            elif member.lower() in low:
                wanted.append((info, low[member.lower()]))
            elif info.in_folder and "/" not in member and any(n.split("/", 1)[0] == member for n in names):
                continue  # a folder: its components are listed with their folder
            else:
                messages.append((pkg_file, f"Entity of type '{type_name}' named '{member}' cannot be found"))
    return wanted, messages


def _filter_access(body: ET.Element, wanted: set[tuple[str, str]]) -> ET.Element:
    """A profile keeps the visibilities and permissions of the components retrieved with it (as in
    Salesforce); userPermissions and the profile's own settings always stay."""
    objects = {n for t, n in wanted if t == "CustomObject"}
    out = ET.Element(body.tag)
    for child in body:
        ref = PROFILE_REFERENCES.get(child.tag)
        if ref is None:
            out.append(child)
            continue
        target = X.text_of(child, ref[0]) or ""
        if (ref[1], target) in wanted or (ref[1] == "CustomField" and target.split(".", 1)[0] in objects):
            out.append(child)
    return out


def retrieve(store: MetadataStore, types: dict[str, list[str]], version: str, single_package: bool) -> \
        RetrieveOutcome:
    """Pack the components of ``types`` (members or ``*``) into a zip."""
    root = "" if single_package else "unpackaged/"
    wanted, messages = _resolve(store, types, f"{root}package.xml")
    wanted_set = {(info.name, n) for info, n in wanted}
    files: dict[str, ET.Element] = {}
    props: list[FileProps] = []
    with store.org.lock:
        by_parent: dict[tuple[str, str], set[tuple[str, str]]] = {}
        for info, name in wanted:
            if info.parent is not None:
                parent = name.split(".", 1)[0]
                if (info.parent, parent) not in wanted_set:
                    by_parent.setdefault((info.parent, parent), set()).add((info.name, name))
                props.append(store.props(info.name, name))
                continue
            body = store.read(info.name, name)
            if body is None:
                continue
            if info.name == "Profile":
                body = _filter_access(body, wanted_set)
            files[component_file(info.name, name)] = body
            props.append(store.props(info.name, name))
        for (parent_type, parent), only in by_parent.items():
            handler = store.handlers[parent_type]
            read_parts = getattr(handler, "read_parts", None)
            body = read_parts(store, parent, only) if read_parts is not None else None
            if body is not None:
                files[component_file(parent_type, parent)] = body
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{root}package.xml", package_xml(types, version))
        for path in sorted(files):
            zf.writestr(root + path, X.to_file(files[path]))
    props = [FileProps(p.type, p.full_name, root + p.file_name, p.id, p.created_date, p.created_by, p.modified_date,
                       p.modified_by) for p in props]
    props.append(FileProps("Package", f"{root}package.xml", f"{root}package.xml"))
    return RetrieveOutcome(buf.getvalue(), props, messages)


# ---------------------------------------------------------------------------------------------- deploy


@dataclass
class DeployMessage:
    """One componentSuccesses / componentFailures entry."""

    component_type: str
    full_name: str
    file_name: str
    success: bool
    created: bool = False
    changed: bool = False
    deleted: bool = False
    id: str = ""
    problem: str = ""
    problem_type: str = ""  # Error / Warning for failures


@dataclass
class DeployOutcome:
    """What a DeployResult reports."""

    status: str
    success: bool
    messages: list[DeployMessage] = field(default_factory=list)
    total: int = 0
    deployed: int = 0
    errors: int = 0
    error_message: str | None = None
    error_status_code: str | None = None
    check_only: bool = False
    rollback_on_error: bool = True
    ignore_warnings: bool = False


@dataclass
class DeployOptions:
    """The DeployOptions a deploy honours."""

    check_only: bool = False
    rollback_on_error: bool = True
    ignore_warnings: bool = False
    single_package: bool = True

    @classmethod
    def from_element(cls, el: ET.Element | None) -> "DeployOptions":
        if el is None:
            return cls()
        return cls(check_only=X.flag(el, "checkOnly"), rollback_on_error=X.flag(el, "rollbackOnError", True),
                   ignore_warnings=X.flag(el, "ignoreWarnings"), single_package=X.flag(el, "singlePackage", True))


class _Zip:
    def __init__(self, data: bytes) -> None:
        try:
            self.zf = zipfile.ZipFile(io.BytesIO(data))
            names = [n for n in self.zf.namelist() if not n.endswith("/")]
        except (zipfile.BadZipFile, ValueError) as exc:
            raise ComponentError(f"The zip file is not a valid zip archive: {exc}") from None
        self.names = set(names)
        if "package.xml" in self.names:
            self.root = ""
        else:
            roots = sorted({n.split("/", 1)[0] + "/" for n in names if n.count("/") == 1 and
                            n.endswith("/package.xml")})
            if len(roots) != 1:
                raise ComponentError("No package.xml found")
            self.root = roots[0]

    def has(self, path: str) -> bool:
        return self.root + path in self.names

    def read(self, path: str) -> ET.Element:
        info = self.zf.getinfo(self.root + path)
        if info.file_size > 20 * 1024 * 1024:
            raise ComponentError(f"{path}: the file is larger than 20 MB")
        return X.parse(self.zf.read(info), self.root + path)

    def files_of(self, info: TypeInfo) -> list[str]:
        """fullNames of the type's files in the zip (for ``*``)."""
        prefix = f"{self.root}{info.directory}/"
        out = []
        for n in sorted(self.names):
            if not n.startswith(prefix) or n.endswith("-meta.xml"):
                continue
            rest = n[len(prefix):]
            suffix = f".{info.suffix}"
            if rest.endswith(suffix) and (info.in_folder or "/" not in rest):
                out.append(rest[: -len(suffix)])
        return out


def _order(type_name: str) -> int:
    if type_name == "Profile":
        return len(WRITE_ORDER) + 1
    return WRITE_ORDER.index(type_name) if type_name in WRITE_ORDER else len(WRITE_ORDER)


def deploy(store: MetadataStore, data: bytes, options: DeployOptions) -> DeployOutcome:
    """Apply a deploy zip to the org (atomically unless ``rollback_on_error`` is off)."""
    out = DeployOutcome("Succeeded", True, check_only=options.check_only,
                        rollback_on_error=options.rollback_on_error, ignore_warnings=options.ignore_warnings)
    try:
        pkg = _Zip(data)
        types = parse_package(pkg.read("package.xml"))
        pre = parse_package(pkg.read("destructiveChanges.xml")) if pkg.has("destructiveChanges.xml") else {}
        post = parse_package(pkg.read("destructiveChangesPost.xml")) if pkg.has("destructiveChangesPost.xml") else {}
    except (ComponentError, X.MetadataXmlError) as exc:
        problem = exc.problem if isinstance(exc, ComponentError) else str(exc)
        out.status, out.success, out.errors = "Failed", False, 1
        out.messages.append(DeployMessage("", "package.xml", "package.xml", False, problem=problem,
                                          problem_type="Error"))
        return out
    org = store.org
    with org.lock:
        start = org.snapshot()
        for kind in ("pre", "write", "post"):
            spec = pre if kind == "pre" else post if kind == "post" else types
            for type_name in sorted(spec, key=_order):
                for member in spec[type_name]:
                    if kind == "write":
                        _write_member(store, pkg, type_name, member, types, out)
                    else:
                        _delete_member(store, pkg.root, type_name, member, kind, out)
        out.total = sum(1 for m in out.messages)
        out.deployed = sum(1 for m in out.messages if m.success)
        out.errors = sum(1 for m in out.messages if not m.success and (m.problem_type == "Error" or
                                                                       not options.ignore_warnings))
        if out.errors:
            if options.rollback_on_error:
                org.restore(start)
                out.status, out.success, out.deployed = "Failed", False, 0
            else:
                out.status, out.success = "SucceededPartial", False
        if options.check_only:
            org.restore(start)
    out.messages.append(DeployMessage("", "package.xml", pkg.root + "package.xml", True))
    return out


def _members(store: MetadataStore, pkg: _Zip, info: TypeInfo, member: str) -> list[str]:
    if member != "*":
        return [member]
    if info.parent is not None:
        parent = TYPES[info.parent]
        tag = info.child_element
        names = []
        for pname in pkg.files_of(parent):
            body = pkg.read(file_name(parent, pname))
            names += [f"{pname}.{X.text_of(el, 'fullName')}" for el in X.children(body, tag)]
        return names
    return pkg.files_of(info)


def _listed(types: dict[str, list[str]], type_name: str, name: str) -> bool:
    members = types.get(type_name) or []
    return "*" in members or name.lower() in {m.lower() for m in members}


def _write_member(store: MetadataStore, pkg: _Zip, type_name: str, member: str, types: dict[str, list[str]],
                  out: DeployOutcome) -> None:
    info = type_info(type_name)
    if info is None:
        out.messages.append(DeployMessage(type_name, member, pkg.root + "package.xml", False, problem=
                                          f"Unknown type name '{type_name}' specified in package.xml",
                                          problem_type="Error"))
        return
    try:
        names = _members(store, pkg, info, member)
    except (ComponentError, X.MetadataXmlError) as exc:
        out.messages.append(DeployMessage(info.name, member, pkg.root + "package.xml", False,
                                          problem=getattr(exc, "problem", str(exc)), problem_type="Error"))
        return
    for name in names:
        if info.parent is not None and _listed(types, info.parent, name.split(".", 1)[0]):
            continue  # written with its parent's file
        _write_one(store, pkg, info, name, out)


def _write_one(store: MetadataStore, pkg: _Zip, info: TypeInfo, name: str, out: DeployOutcome) -> None:
    org = store.org
    path = component_file(info.name, name)
    msg = DeployMessage(info.name, name, pkg.root + path, False)
    if not pkg.has(path):
        msg.problem = f"An object '{name}' of type {info.name} was named in package.xml, but was not found in " \
                      "zipped directory"
        msg.problem_type = "Error"
        out.messages.append(msg)
        return
    point = org.snapshot()
    extra: list[DeployMessage] = []
    try:
        body = pkg.read(path)
        if info.parent is not None:
            parent_name, child = name.split(".", 1)
            hits = [el for el in X.children(body, info.child_element) if X.text_of(el, "fullName") == child]
            if not hits:
                raise ComponentError(f"An object '{name}' of type {info.name} was named in package.xml, but was "
                                     f"not found in {path}")
            element = ET.Element(info.name)
            element.extend(c for c in hits[0] if c.tag != "fullName")
            body = element
        else:
            expected = root_tag(info.name, name)
            if body.tag != expected:
                raise ComponentError(f"{path}: the root element must be {expected}, found {body.tag}")
            if info.children and isinstance(store.handlers[info.name], ParentHandler) or info.name == "CustomObject":
                extra = _child_messages(store, info, name, body, pkg.root + path)
        result = store.write(info.name, name, body)
    except (ComponentError, X.MetadataXmlError, OrgError) as exc:
        org.restore(point)
        msg.problem = exc.problem if isinstance(exc, ComponentError) else \
            f"{exc.code}: {exc.message}" if isinstance(exc, OrgError) else str(exc)
        msg.problem_type = "Error"
        out.messages.append(msg)
        return
    msg.success = True
    msg.created, msg.changed = result == "created", result == "changed"
    msg.id = store.props(info.name, name).id
    out.messages.append(msg)
    for m in extra:
        m.id = store.props(m.component_type, m.full_name).id
    out.messages.extend(extra)


def _child_messages(store: MetadataStore, info: TypeInfo, name: str, body: ET.Element, path: str) -> \
        list[DeployMessage]:
    out = []
    for tag, child_type in info.children.items():
        existing = {n.lower() for n in store.names(child_type) if n.split(".", 1)[0].lower() == name.lower()}
        for el in X.children(body, tag):
            cname = f"{name}.{X.text_of(el, 'fullName')}"
            created = cname.lower() not in existing
            out.append(DeployMessage(child_type, cname, path, True, created=created, changed=not created))
    return out


def _delete_member(store: MetadataStore, root: str, type_name: str, member: str, kind: str,
                   out: DeployOutcome) -> None:
    pkg_file = root + ("destructiveChanges.xml" if kind == "pre" else "destructiveChangesPost.xml")
    info = type_info(type_name)
    if info is None:
        out.messages.append(DeployMessage(type_name, member, pkg_file, False, problem=
                                          f"Unknown type name '{type_name}' specified in package.xml",
                                          problem_type="Error"))
        return
    if member == "*":
        out.messages.append(DeployMessage(info.name, member, pkg_file, False, problem=
                                          "The wildcard * is not allowed in destructive changes",
                                          problem_type="Error"))
        return
    org = store.org
    low = {n.lower(): n for n in store.names(info.name)}
    name = low.get(member.lower())
    msg = DeployMessage(info.name, member, component_file(info.name, member), False)
    if name is None:
        msg.problem, msg.problem_type = f"No {info.name} named: {member} found", "Warning"
        out.messages.append(msg)
        return
    msg.id = store.props(info.name, name).id
    point = org.snapshot()
    try:
        store.delete(info.name, name)
    except (ComponentError, OrgError) as exc:
        org.restore(point)
        msg.problem = exc.problem if isinstance(exc, ComponentError) else f"{exc.code}: {exc.message}"
        msg.problem_type = "Error"
        out.messages.append(msg)
        return
    msg.success, msg.deleted = True, True
    out.messages.append(msg)


def build_zip(files: dict[str, bytes | str]) -> bytes:
    """A zip of ``files`` (path -> content): for tests and clients."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, content in files.items():
            zf.writestr(path, content)
    return buf.getvalue()


def read_zip(data: bytes) -> dict[str, bytes]:
    """The files of a zip (path -> content)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist() if not n.endswith("/")}
