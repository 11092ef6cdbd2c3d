"""What every ProSoft evaluator needs of a task's artifacts: the saved file, or a missed milestone saying that
the agent did not save it (never an error); the file's type judged by its content, so that a wrong file under
the expected name (ODF content saved as ``.docx``, CSV text saved as ``.xlsx``, an empty file, a PNG renamed
``.svg``) is a missed milestone naming the artifact and what it really is, never an evaluator crash; and text with
its white space squashed for comparisons.

    path = artifact(ctx, "workbook", "xlsx")                     # present and an Excel workbook, else AssertionError
    wb = load(ctx, "workbook", "xlsx", openpyxl.load_workbook)   # also: a file that fails to parse is a miss

The file types (``FILE_TYPES``) are told apart by content only: zip packages by their members (and an ODF
package by its ``mimetype``), XML by its root element, pictures by their signatures, text by having no NUL bytes.
"""

from __future__ import annotations

import re
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

Check = tuple[str, Callable[[], None]]
"""One milestone of an evaluator: its label and the check (an AssertionError is a missed milestone)."""

T = TypeVar("T")
_HEAD = 8192  # bytes read to tell a file's type
_ODF = "application/vnd.oasis.opendocument."
_ODF_NAMES = {"text": "an OpenDocument text (.odt)", "spreadsheet": "an OpenDocument spreadsheet (.ods)",
              "presentation": "an OpenDocument presentation (.odp)", "graphics": "an OpenDocument drawing (.odg)"}
_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
               (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"), (b"BM", "a BMP image"),
               (b"%PDF", "a PDF document"), (b"\x1f\x8b", "a gzip archive"), (b"RIFF", "a RIFF file (WebP?)"))


def _head(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(_HEAD)


def _zip_members(path: Path) -> list[str] | None:
    """The member names of a zip package, or None when ``path`` is not one."""
    try:
        with zipfile.ZipFile(path) as z:
            return z.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return None


def _odf_mimetype(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as z:
            return z.read("mimetype").decode("ascii", "replace").strip() if "mimetype" in z.namelist() else ""
    except (zipfile.BadZipFile, OSError, ValueError, KeyError):
        return ""


def _xml_root(path: Path) -> str | None:
    """The root element's tag (``{ns}local``) of an XML file, or None when it is not well-formed XML."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        return str(etree.parse(str(path), parser).getroot().tag)
    except (etree.XMLSyntaxError, OSError, ValueError):
        return None


def _is_text(head: bytes) -> bool:
    return b"\x00" not in head and not any(head.startswith(sig) for sig, _ in _SIGNATURES)


def identify(path: Path) -> str:
    """What the file at ``path`` is, judged by its content: "an empty file", "a PNG image", "an OpenDocument
    text (.odt)", "an Excel workbook (.xlsx)", "an SVG drawing", "text starting 'region,total'", ..."""
    try:
        size = path.stat().st_size
        head = _head(path)
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if size == 0:
        return "an empty file (0 bytes)"
    for signature, what in _SIGNATURES:
        if head.startswith(signature):
            return what
    members = _zip_members(path) if head.startswith(b"PK") else None
    if members is not None:
        mimetype = _odf_mimetype(path)
        if mimetype.startswith(_ODF):
            return _ODF_NAMES.get(mimetype[len(_ODF):], f"an OpenDocument file ({mimetype})")
        for member, what in (("xl/workbook.xml", "an Excel workbook (.xlsx)"),
                             ("word/document.xml", "a Word document (.docx)"),
                             ("ppt/presentation.xml", "a PowerPoint presentation (.pptx)"),
                             ("Document.xml", "a FreeCAD document (.FCStd)")):
            if member in members:
                return what
        if any(m.endswith(".qgs") for m in members):
            return "a QGIS project archive (.qgz)"
        shown = ", ".join(members[:4]) + (", ..." if len(members) > 4 else "")
        return f"a zip archive ({len(members)} member(s): {shown or 'none'})"
    if not _is_text(head):
        return f"binary data (starting {head[:12]!r})"
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith("<"):
        root = _xml_root(path)
        if root == "{http://www.w3.org/2000/svg}svg":
            return "an SVG drawing"
        if root is not None:
            return f"an XML document (root <{re.sub(r'^{[^}]*}', '', root)}>)"
    first = text.splitlines()[0] if text.strip() else ""
    return f"text starting {first[:60]!r}" if first else "blank text"


@dataclass(frozen=True)
class FileType:
    """A kind of file an artifact must be: its description (for messages) and the test of a file's content."""

    what: str
    test: Callable[[Path], bool]


def _zip_with(*members: str) -> Callable[[Path], bool]:
    def test(path: Path) -> bool:
        names = _zip_members(path)
        return names is not None and all(m in names for m in members)
    return test


def _odf(sub: str) -> Callable[[Path], bool]:
    return lambda path: _odf_mimetype(path) == _ODF + sub


def _xml_with_root(*tags: str) -> Callable[[Path], bool]:
    def test(path: Path) -> bool:
        return _is_text(_head(path)) and _xml_root(path) in tags
    return test


def _signature(*signatures: bytes) -> Callable[[Path], bool]:
    return lambda path: any(_head(path).startswith(s) for s in signatures)


def _image(path: Path) -> bool:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.verify()
        return True
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return False


def _qgis_project(path: Path) -> bool:
    names = _zip_members(path)
    if names is not None:
        return any(n.endswith(".qgs") for n in names)
    return _xml_with_root("qgis")(path)


def _stl(path: Path) -> bool:
    head = _head(path)
    size = path.stat().st_size
    if size >= 84 and 84 + 50 * int.from_bytes(head[80:84], "little") == size:
        return True
    return _is_text(head) and head.lstrip().lower().startswith(b"solid")


def _text(path: Path) -> bool:
    return _is_text(_head(path))


FILE_TYPES: dict[str, FileType] = {
    "xlsx": FileType("an Excel workbook (.xlsx)", _zip_with("xl/workbook.xml")),
    "docx": FileType("a Word document (.docx)", _zip_with("word/document.xml")),
    "pptx": FileType("a PowerPoint presentation (.pptx)", _zip_with("ppt/presentation.xml")),
    "odt": FileType("an OpenDocument text (.odt)", _odf("text")),
    "ods": FileType("an OpenDocument spreadsheet (.ods)", _odf("spreadsheet")),
    "odp": FileType("an OpenDocument presentation (.odp)", _odf("presentation")),
    "presentation": FileType("a presentation (.odp or .pptx)",
                             lambda p: _odf("presentation")(p) or _zip_with("ppt/presentation.xml")(p)),
    "fcstd": FileType("a FreeCAD document (.FCStd)", _zip_with("Document.xml")),
    "qgis_project": FileType("a QGIS project (.qgs or .qgz)", _qgis_project),
    "svg": FileType("an SVG drawing", _xml_with_root("{http://www.w3.org/2000/svg}svg")),
    "image": FileType("a picture (PNG, JPEG, TIFF, ...)", _image),
    "png": FileType("a PNG image", _signature(b"\x89PNG\r\n\x1a\n")),
    "pdf": FileType("a PDF document", _signature(b"%PDF")),
    "stl": FileType("an STL mesh", _stl),
    "step": FileType("a STEP file", lambda p: _is_text(_head(p)) and _head(p).lstrip().startswith(b"ISO-10303-21")),
    "text": FileType("a text file", _text),
}


def artifact(ctx: Any, name: str, file_type: str | None = None) -> Path:
    """The host path of artifact ``name``; an AssertionError (a missed milestone) when it was not produced, is
    empty, or (with ``file_type``, a key of ``FILE_TYPES``) is not that kind of file by its content."""
    path = ctx.artifacts.get(name)
    assert path is not None and Path(path).is_file(), (
        f"artifact {name!r} was not produced (the file was not saved where the task asks)")
    path = Path(path)
    if file_type is not None:
        require(path, name, file_type)
    return path


def require(path: Path, name: str, file_type: str) -> None:
    """AssertionError naming artifact ``name`` and what the file really is, unless it is a ``file_type`` file
    (never an empty one)."""
    if file_type not in FILE_TYPES:
        raise ValueError(f"unknown artifact file type {file_type!r} (known: {', '.join(FILE_TYPES)})")
    kind = FILE_TYPES[file_type]
    try:
        ok = path.stat().st_size > 0 and kind.test(path)
    except OSError:
        ok = False
    assert ok, f"artifact {name!r} ({path.name}) is not {kind.what}: it is {identify(path)}"


@contextmanager
def reading(name: str, path: Path, what: str) -> Iterator[None]:
    """Turn a parser's exception while reading artifact ``name`` into a missed milestone naming the artifact: a
    file of the right type whose content is broken is the agent's failure, not an evaluator error."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as exc:  # any parser's own error class (zip, XML, openpyxl, Pillow, JSON, ...)
        raise AssertionError(f"artifact {name!r} ({path.name}) could not be read as {what}: "
                             f"{type(exc).__name__}: {exc}") from None


def load(ctx: Any, name: str, file_type: str, reader: Callable[[Path], T]) -> T:
    """``reader`` applied to artifact ``name`` once it is present and a ``file_type`` file; whatever the reader
    raises on a broken file becomes a missed milestone (see :func:`reading`)."""
    path = artifact(ctx, name, file_type)
    with reading(name, path, FILE_TYPES[file_type].what):
        return reader(path)


def squash(text: str) -> str:
    """``text`` with every run of white space as one space, stripped."""
    return re.sub(r"\s+", " ", text).strip()
