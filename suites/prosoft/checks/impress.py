"""Impress evaluators: read a saved presentation (.odp or .pptx) or an exported PDF on the host.

Both presentation formats are zips of XML, read here with lxml into one model (:class:`Slide`): the title, the
body paragraphs (outline, subtitle and other text boxes, in order), the speaker notes, the pictures (their
bytes, from the package) and the text of tables and embedded objects (an embedded Calc sheet's own
``content.xml``). PDFs are read by a small parser (:func:`pdf_pages`): the page objects in order and the text
their content streams show, decoded through each font's ``ToUnicode`` map (LibreOffice's PDF export subsets
its fonts, so the raw strings are glyph codes).

Ground-truth keys, by kind (slide numbers are 1-based, as strings in JSON):

- ``impress``: ``artifact`` (default ``deck``); ``format`` ``odp`` or ``pptx`` (the file saved in that format);
  ``slides`` (the number of slides); ``titles`` [every slide's title, in order]; ``bullets`` {slide: [body
  paragraphs, exactly]}; ``notes`` {slide: text the speaker notes contain}; ``picture`` {slide: {"png_size":
  [w, h]} or {"svg_ids": [...], "svg_lacks_ids": [...]}} (a picture on the slide with that size or those SVG
  element ids); ``object_text`` {slide: [texts]} (a table or embedded object on the slide shows every text)
- ``impress_pdf``: ``artifact`` (default ``pdf``); ``pages`` (the page count); ``page_text`` {page: [texts]}
  (compared without white space, since a PDF places words rather than spaces)
"""

from __future__ import annotations

import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load
from ..artifacts import squash as _squash
from ..namespaces import DRAW, OFFICE, PRES, SVG_NS, TABLE, TEXT

XLINK = "{http://www.w3.org/1999/xlink}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


@dataclass
class Slide:
    title: str = ""
    body: list[str] = field(default_factory=list)
    notes: str = ""
    pictures: list[tuple[str, bytes]] = field(default_factory=list)  # (package path, bytes)
    objects: list[str] = field(default_factory=list)  # the text of each table or embedded object


@dataclass
class Deck:
    format: str
    slides: list[Slide]


# --- presentations -------------------------------------------------------------------------------------------

def read_deck(path: Path) -> Deck:
    """The slides of an .odp or .pptx (told apart by their contents, not their names)."""
    try:
        z = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise AssertionError(f"{path.name}: not a presentation (not a zip package)") from None
    with z:
        names = set(z.namelist())
        if "content.xml" in names:
            return Deck("odp", _odp_slides(z))
        if "ppt/presentation.xml" in names:
            return Deck("pptx", _pptx_slides(z))
    raise AssertionError(f"{path.name}: neither an ODF nor an OOXML presentation")


def _xml(z: zipfile.ZipFile, name: str) -> Any:
    from lxml import etree

    return etree.fromstring(z.read(name))


def _odf_paragraphs(el: Any) -> list[str]:
    """Non-empty paragraph texts under ``el`` (text:p and text:h, spaces and line breaks kept as spaces)."""
    out = []
    for p in el.iter(f"{TEXT}p", f"{TEXT}h"):
        parts = []
        for node in p.iter():
            if node.tag in (f"{TEXT}s", f"{TEXT}tab", f"{TEXT}line-break"):
                parts.append(" ")
            if node is not p and node.tail:
                parts.append(node.tail)
            elif node.text and node.tag not in (f"{TEXT}s",):
                parts.append(node.text)
        text = _squash("".join(parts))
        if text:
            out.append(text)
    return out


def _odp_slides(z: zipfile.ZipFile) -> list[Slide]:
    root = _xml(z, "content.xml")
    names = set(z.namelist())
    slides = []
    for page in root.iter(f"{DRAW}page"):
        if page.getparent() is not None and page.getparent().tag != f"{OFFICE}presentation":
            continue
        slide = Slide()
        for frame in page:
            if frame.tag == f"{PRES}notes":
                for notes in frame.iter(f"{DRAW}frame"):
                    if notes.get(f"{PRES}class") == "notes":
                        slide.notes = _squash(" ".join(_odf_paragraphs(notes)))
                continue
            for el in frame.iter(f"{DRAW}frame", f"{DRAW}custom-shape", f"{DRAW}rect"):  # itself, or a group's
                _odp_shape(z, names, el, slide)
        slides.append(slide)
    return slides


def _odp_shape(z: zipfile.ZipFile, names: set[str], el: Any, slide: Slide) -> None:
    cls = el.get(f"{PRES}class")
    if el.tag == f"{DRAW}frame":
        for image in el.findall(f"{DRAW}image"):
            href = (image.get(f"{XLINK}href") or "").lstrip("./")
            if href in names:
                slide.pictures.append((href, z.read(href)))
        for obj in el.findall(f"{DRAW}object"):
            href = (obj.get(f"{XLINK}href") or "").lstrip("./").rstrip("/")
            inner = f"{href}/content.xml"
            slide.objects.append(" ".join(_odf_paragraphs(_xml(z, inner))) if inner in names else "")
        for table in el.findall(f"{TABLE}table"):
            slide.objects.append(" ".join(_odf_paragraphs(table)))
        box = el.find(f"{DRAW}text-box")
        if box is None:
            return
        texts = _odf_paragraphs(box)
    elif el.tag in (f"{DRAW}custom-shape", f"{DRAW}rect"):
        texts = _odf_paragraphs(el)
    else:
        return
    if cls == "title":
        slide.title = _squash(" ".join(texts))
    elif cls not in ("page", "notes", "header", "footer", "date-time", "page-number"):
        slide.body.extend(texts)


def _rels(z: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """rId -> (type, package path) of a part's relationships."""
    folder, name = posixpath.split(part)
    rels_name = posixpath.join(folder, "_rels", name + ".rels")
    if rels_name not in z.namelist():
        return {}
    out = {}
    for rel in _xml(z, rels_name).iter(f"{PKG_REL}Relationship"):
        target = rel.get("Target", "")
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out[rel.get("Id")] = (rel.get("Type", "").rsplit("/", 1)[-1], path)
    return out


def _ooxml_paragraphs(el: Any) -> list[str]:
    out = []
    for p in el.iter(f"{A}p"):
        text = _squash("".join(t.text or "" for t in p.iter(f"{A}t")))
        if text:
            out.append(text)
    return out


def _pptx_slides(z: zipfile.ZipFile) -> list[Slide]:
    pres = _xml(z, "ppt/presentation.xml")
    rels = _rels(z, "ppt/presentation.xml")
    slides = []
    for sld in pres.iter(f"{P}sldId"):
        part = rels[sld.get(f"{R}id")][1]
        slide_rels = _rels(z, part)
        slide = Slide()
        for sp in _xml(z, part).iter(f"{P}sp", f"{P}pic", f"{P}graphicFrame"):
            ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
            if sp.tag == f"{P}pic":
                blip = sp.find(f".//{A}blip")
                target = slide_rels.get(blip.get(f"{R}embed")) if blip is not None else None
                if target and target[1] in z.namelist():
                    slide.pictures.append((target[1], z.read(target[1])))
            elif sp.tag == f"{P}graphicFrame":
                slide.objects.append(" ".join(_ooxml_paragraphs(sp)))
            elif ph is not None and ph.get("type") in ("title", "ctrTitle"):
                slide.title = _squash(" ".join(_ooxml_paragraphs(sp)))
            elif ph is None or ph.get("type") not in ("dt", "ftr", "sldNum", "hdr"):
                slide.body.extend(_ooxml_paragraphs(sp))
        for kind, notes_part in slide_rels.values():
            if kind == "notesSlide" and notes_part in z.namelist():
                for sp in _xml(z, notes_part).iter(f"{P}sp"):
                    ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
                    if ph is not None and ph.get("type") == "body":
                        slide.notes = _squash(" ".join(_ooxml_paragraphs(sp)))
        slides.append(slide)
    return slides


def _slide(deck: Deck, number: str | int, name: str) -> Slide:
    n = int(number)
    assert 1 <= n <= len(deck.slides), f"{name}: no slide {n} (the presentation has {len(deck.slides)})"
    return deck.slides[n - 1]


def _picture_matches(data: bytes, spec: Mapping[str, Any]) -> str:
    """'' when the picture fits ``spec``, else why not."""
    if "png_size" in spec:
        from PIL import Image

        try:
            size = list(Image.open(BytesIO(data)).size)
        except Exception:
            return "not a bitmap"
        return "" if size == list(spec["png_size"]) else f"{size[0]}x{size[1]} px"
    from lxml import etree

    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError:
        return "not SVG"
    if root.tag != f"{SVG_NS}svg":
        return "not SVG"
    ids = {el.get("id") for el in root.iter() if isinstance(el.tag, str)}
    missing = [i for i in spec.get("svg_ids", []) if i not in ids]
    extra = [i for i in spec.get("svg_lacks_ids", []) if i in ids]
    return f"SVG without {missing} / with {extra}" if missing or extra else ""


def impress_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "deck")
    checks: list[Check] = []

    def deck() -> Deck:
        return load(ctx, name, "presentation", read_deck)

    if "format" in truth:
        def check_format() -> None:
            found = deck().format
            assert found == truth["format"], f"{name}: saved as {found}, expected {truth['format']}"
        checks.append((f"{name} saved as {truth['format']}", check_format))
    if "slides" in truth:
        def check_count() -> None:
            found = len(deck().slides)
            assert found == int(truth["slides"]), f"{name}: {found} slides, expected {truth['slides']}"
        checks.append((f"{name} has {truth['slides']} slides", check_count))
    if "titles" in truth:
        def check_titles() -> None:
            titles = [s.title for s in deck().slides]
            assert titles == list(truth["titles"]), f"{name}: slide titles {titles!r}, expected {truth['titles']!r}"
        checks.append((f"{name} slide titles in order", check_titles))
    for number, expected in sorted((truth.get("bullets") or {}).items()):
        def check_bullets(number: str = number, expected: list[str] = expected) -> None:
            body = _slide(deck(), number, name).body
            assert body == list(expected), f"{name}: slide {number} body {body!r}, expected {expected!r}"
        checks.append((f"{name} slide {number} body text", check_bullets))
    for number, expected in sorted((truth.get("notes") or {}).items()):
        def check_notes(number: str = number, expected: str = expected) -> None:
            notes = _slide(deck(), number, name).notes
            assert _squash(expected) in notes, f"{name}: slide {number} speaker notes {notes!r} lack {expected!r}"
        checks.append((f"{name} slide {number} speaker notes", check_notes))
    for number, spec in sorted((truth.get("picture") or {}).items()):
        def check_picture(number: str = number, spec: Mapping[str, Any] = spec) -> None:
            pictures = _slide(deck(), number, name).pictures
            assert pictures, f"{name}: slide {number} has no picture"
            why = [f"{path}: {_picture_matches(data, spec)}" for path, data in pictures]
            assert any(w.endswith(": ") for w in why), f"{name}: slide {number} pictures do not match {spec}: {why}"
        checks.append((f"{name} slide {number} picture", check_picture))
    for number, texts in sorted((truth.get("object_text") or {}).items()):
        def check_object(number: str = number, texts: list[str] = texts) -> None:
            objects = _slide(deck(), number, name).objects
            assert objects, f"{name}: slide {number} has no table or embedded object"
            ok = [o for o in objects if all(t in o for t in texts)]
            assert ok, f"{name}: no table or object on slide {number} shows all of {texts!r}: {objects!r}"
        checks.append((f"{name} slide {number} table or object", check_object))
    return checks


# --- PDF -----------------------------------------------------------------------------------------------------

_OBJ = re.compile(rb"(\d+)\s+(\d+)\s+obj\b(.*?)\bendobj", re.S)
_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\n?endstream", re.S)
_REF = re.compile(rb"(\d+)\s+0\s+R")


def _pdf_objects(data: bytes) -> dict[int, tuple[bytes, bytes | None]]:
    """object number -> (dictionary text, decoded stream or None); the last definition of a number wins."""
    out: dict[int, tuple[bytes, bytes | None]] = {}
    for m in _OBJ.finditer(data):
        body = m.group(3)
        s = _STREAM.search(body)
        stream = None
        head = body
        if s:
            head = body[:s.start()]
            stream = s.group(1)
            if b"FlateDecode" in head:
                try:
                    stream = zlib.decompressobj().decompress(stream)
                except zlib.error:
                    stream = b""
        out[int(m.group(1))] = (head, stream)
    return out


def _dict_value(head: bytes, key: bytes) -> bytes | None:
    m = re.search(rb"/" + key + rb"\s*(\d+\s+0\s+R|<<.*?>>|\[[^\]]*\]|/\w+)", head, re.S)
    return m.group(1) if m else None


def _cmap(stream: bytes) -> tuple[int, dict[bytes, str]]:
    """(code width in bytes, code -> text) of a ToUnicode CMap."""
    width = 1
    m = re.search(rb"begincodespacerange\s*<([0-9A-Fa-f]+)>", stream)
    if m:
        width = len(m.group(1)) // 2
    table: dict[bytes, str] = {}

    def uni(hexstr: bytes) -> str:
        raw = bytes.fromhex(hexstr.decode())
        return raw.decode("utf-16-be", errors="replace")

    for block in re.findall(rb"beginbfchar(.*?)endbfchar", stream, re.S):
        for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            table[bytes.fromhex(src.decode())] = uni(dst)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", stream, re.S):
        for lo, hi, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            a, b, start = int(lo, 16), int(hi, 16), int(dst, 16)
            for i, code in enumerate(range(a, b + 1)):
                table[code.to_bytes(width, "big")] = chr(start + i) if start + i < 0x110000 else ""
    return width, table


def _literal(raw: bytes) -> bytes:
    """The bytes of a PDF literal string's inside (escapes resolved)."""
    out = bytearray()
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):  # backslash
            n = raw[i + 1]
            if 0x30 <= n <= 0x37:
                m = re.match(rb"[0-7]{1,3}", raw[i + 1:])
                assert m is not None
                out.append(int(m.group(0), 8) & 0xFF)
                i += 1 + len(m.group(0))
                continue
            out.append({ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("b"): 8, ord("f"): 12}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)


_TOKEN = re.compile(rb"/([^\s/<>\[\]()]+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f\s]*)>|\(((?:\\.|[^\\)])*)\)|(T\*|'|\"|ET)",
                    re.S)


def _show(content: bytes, fonts: dict[bytes, tuple[int, dict[bytes, str]]]) -> str:
    """The text a content stream shows (hex and literal strings decoded through the current font's map)."""
    font: tuple[int, dict[bytes, str]] = (1, {})
    out = []
    for m in _TOKEN.finditer(content):
        if m.group(1) is not None:
            font = fonts.get(m.group(1), (1, {}))
            continue
        if m.group(4) is not None:
            out.append(" ")
            continue
        raw = bytes.fromhex(re.sub(rb"\s", b"", m.group(2)).decode()) if m.group(2) is not None \
            else _literal(m.group(3))
        width, table = font
        if table:
            out.append("".join(table.get(raw[i:i + width], "") for i in range(0, len(raw), width)))
        else:
            out.append(raw.decode("latin-1"))
    return "".join(out)


def pdf_pages(path: Path) -> list[str]:
    """The text shown on each page of a PDF, in page order (the page tree's /Kids, depth first)."""
    data = path.read_bytes()
    assert data.startswith(b"%PDF"), f"{path.name}: not a PDF"
    objects = _pdf_objects(data)

    def resolve(value: bytes | None) -> bytes:
        m = _REF.fullmatch(value.strip()) if value else None
        return objects.get(int(m.group(1)), (b"", None))[0] if m else (value or b"")

    roots = [n for n, (head, _) in objects.items() if re.search(rb"/Type\s*/Pages\b", head)
             and not re.search(rb"/Parent\b", head)]
    assert roots, f"{path.name}: no page tree"

    def pages_under(number: int, depth: int = 0) -> list[int]:
        head = objects.get(number, (b"", None))[0]
        if re.search(rb"/Type\s*/Page\b", head):
            return [number]
        kids = _dict_value(head, b"Kids") or b"[]"
        return [p for k in _REF.findall(kids) for p in pages_under(int(k), depth + 1)] if depth < 32 else []

    texts = []
    for page in pages_under(roots[0]):
        head = objects[page][0]
        resources = resolve(_dict_value(head, b"Resources"))
        font_dict = resolve(_dict_value(resources, b"Font"))
        fonts = {}
        for fname, ref in re.findall(rb"/([^\s/<>\[\]]+)\s+(\d+)\s+0\s+R", font_dict):
            fhead = objects.get(int(ref), (b"", None))[0]
            tu = _dict_value(fhead, b"ToUnicode")
            m = _REF.fullmatch(tu.strip()) if tu else None
            stream = objects.get(int(m.group(1)), (b"", None))[1] if m else None
            fonts[fname] = _cmap(stream) if stream else (1, {})
        contents = _dict_value(head, b"Contents") or b""
        text = "".join(_show(objects.get(int(ref), (b"", b""))[1] or b"", fonts)
                       for ref in _REF.findall(contents))
        texts.append(text)
    return texts


def pdf_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "pdf")
    checks: list[Check] = []
    if "pages" in truth:
        def check_pages() -> None:
            found = len(load(ctx, name, "pdf", pdf_pages))
            assert found == int(truth["pages"]), f"{name}: {found} pages, expected {truth['pages']}"
        checks.append((f"{name} has {truth['pages']} pages", check_pages))
    for number, texts in sorted((truth.get("page_text") or {}).items()):
        def check_text(number: str = number, texts: list[str] = texts) -> None:
            pages = load(ctx, name, "pdf", pdf_pages)
            n = int(number)
            assert 1 <= n <= len(pages), f"{name}: no page {n} (the PDF has {len(pages)})"
            flat = re.sub(r"\s", "", pages[n - 1])
            missing = [t for t in texts if re.sub(r"\s", "", t) not in flat]
            assert not missing, f"{name}: page {n} does not show {missing!r} (it shows {pages[n - 1][:200]!r})"
        checks.append((f"{name} page {number} text", check_text))
    return checks


KINDS = {"impress": impress_checks, "impress_pdf": pdf_checks}
