"""Writer evaluators beyond ``templates.py``'s ``writer`` and ``office_extra.py``'s ``docx_format``: one kind per
core function of the word processor, each read from the saved .docx's XML with lxml (no python-docx).

Paragraphs are named by their text (white space squashed), not by position, so an empty paragraph an edit
leaves behind does not shift them. Every kind also takes ``artifact`` (default ``document``) and ``keeps``
[texts]: paragraphs of the body that must still be there, exactly (a milestone of its own). Keys, by kind:

- ``writer_header``: ``header`` and/or ``footer``: the text the page header / footer shows (squashed).
- ``writer_list``: ``items`` [paragraph texts that must be list items], ``list`` ``bullet`` or ``number`` (the
  level's format in numbering.xml), ``not_items`` [texts that must not be list items].
- ``writer_replace``: ``find``, ``replace``, ``paragraphs`` [every non-empty body paragraph, in order, after the
  replacement]; no paragraph still holds ``find``.
- ``writer_char``: ``text`` (the paragraph), ``size`` (points), ``italic``, ``underline`` (bool), ``color``
  (``RRGGBB``): every run of that paragraph has them, directly or from its paragraph style.
- ``writer_page_break``: ``before`` [paragraph texts that must each begin a new page: a page break right
  before them, ``w:br w:type="page"`` or ``pageBreakBefore``], ``not_before`` [texts that must not].
- ``writer_footnote``: ``anchor`` (the paragraph whose text carries the footnote mark), ``text`` (the note).
- ``writer_table``: ``cells`` [[row texts]]: some table has exactly these rows and cells (squashed text).
- ``writer_page``: ``orientation`` (``landscape`` or ``portrait``), ``margins`` {left/right/top/bottom:
  inches, within 0.02}, ``columns`` (text columns of the page).
- ``writer_pdf``: ``impress_pdf``'s check of an exported PDF (``pages``, ``page_text``), under a Writer name.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load, squash
from ..namespaces import W_NS
from .impress import pdf_checks

R_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


class Docx:
    """The parts of a .docx the kinds read: the document root, numbering, styles, headers/footers, footnotes."""

    def __init__(self, path: Path) -> None:
        from lxml import etree

        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())

            def part(member: str) -> Any:
                return etree.fromstring(z.read(member)) if member in names else None
            self.root = part("word/document.xml")
            self.numbering = part("word/numbering.xml")
            self.styles = part("word/styles.xml")
            self.footnotes = part("word/footnotes.xml")
            rels = part("word/_rels/document.xml.rels")
            targets = {r.get("Id"): r.get("Target", "") for r in (rels.iter(f"{PKG_REL}Relationship")
                                                               if rels is not None else [])}
            self.parts: dict[str, list[tuple[str, Any]]] = {}
            for ref in self.root.iter(f"{W_NS}headerReference", f"{W_NS}footerReference"):
                target = targets.get(ref.get(f"{R_NS}id"), "")
                member = "word/" + target.lstrip("/").removeprefix("word/")
                kind = "header" if ref.tag.endswith("headerReference") else "footer"
                if member in names:
                    self.parts.setdefault(kind, []).append((ref.get(f"{W_NS}type", "default"), part(member)))
        body = self.root.find(f"{W_NS}body")
        assert body is not None, f"{path.name}: no document body"
        self.body = body

    def paragraphs(self) -> list[Any]:
        """Every paragraph of the body (tables included), in order."""
        return list(self.body.iter(f"{W_NS}p"))


def text_of(element: Any) -> str:
    return squash("".join(t.text or "" for t in element.iter(f"{W_NS}t")))


def read(path: Path) -> Docx:
    return Docx(path)


def _docx(ctx: EvalContext, truth: Mapping[str, Any]) -> Docx:
    return load(ctx, truth.get("artifact", "document"), "docx", read)


def _find(doc: Docx, name: str, text: str) -> Any:
    found = [p for p in doc.paragraphs() if text_of(p) == squash(text)]
    assert found, f"{name}: no paragraph {text!r} (paragraphs: {[text_of(p) for p in doc.paragraphs() if text_of(p)]!r})"
    return found[0]


def _keeps(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, keeps = truth.get("artifact", "document"), [squash(k) for k in truth.get("keeps") or []]
    if not keeps:
        return []

    def check() -> None:
        texts = {text_of(p) for p in _docx(ctx, truth).paragraphs()}
        missing = [k for k in keeps if k not in texts]
        assert not missing, f"{name}: paragraphs lost or changed: {missing!r}"
    return [(f"{name} keeps the other paragraphs", check)]


def header_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []
    for kind in ("header", "footer"):
        if kind not in truth:
            continue

        def check(kind: str = kind, want: str = squash(str(truth[kind]))) -> None:
            shown = [text_of(root) for _, root in _docx(ctx, truth).parts.get(kind, [])]
            assert shown, f"{name}: the page has no {kind}"
            assert want in shown, f"{name}: the {kind} shows {shown!r}, expected {want!r}"
        checks.append((f"{name} {kind} {truth[kind]!r}", check))
    return [*checks, *_keeps(ctx, truth)]


def _num_format(doc: Docx, num_id: str, level: str) -> str:
    if doc.numbering is None:
        return ""
    abstract = None
    for num in doc.numbering.iter(f"{W_NS}num"):
        if num.get(f"{W_NS}numId") == num_id:
            ref = num.find(f"{W_NS}abstractNumId")
            abstract = ref.get(f"{W_NS}val") if ref is not None else None
    for a in doc.numbering.iter(f"{W_NS}abstractNum"):
        if a.get(f"{W_NS}abstractNumId") == abstract:
            for lvl in a.iter(f"{W_NS}lvl"):
                if lvl.get(f"{W_NS}ilvl") == level:
                    fmt = lvl.find(f"{W_NS}numFmt")
                    return fmt.get(f"{W_NS}val", "") if fmt is not None else ""
    return ""


def _list_format(doc: Docx, paragraph: Any) -> str | None:
    """The list format (``bullet``, ``decimal``, ...) of a paragraph, or None when it is no list item."""
    num = paragraph.find(f"{W_NS}pPr/{W_NS}numPr")
    if num is None:
        return None
    num_id, level = num.find(f"{W_NS}numId"), num.find(f"{W_NS}ilvl")
    nid = num_id.get(f"{W_NS}val") if num_id is not None else "0"
    if nid in (None, "0"):
        return None
    return _num_format(doc, nid, level.get(f"{W_NS}val", "0") if level is not None else "0") or "none"


def list_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, kind = truth.get("artifact", "document"), truth.get("list", "bullet")
    if kind not in ("bullet", "number"):
        raise ValueError(f"writer_list: list must be bullet or number, got {kind!r}")
    checks: list[Check] = []

    def items() -> None:
        doc = _docx(ctx, truth)
        wrong = []
        for text in truth.get("items") or []:
            fmt = _list_format(doc, _find(doc, name, text))
            ok = fmt == "bullet" if kind == "bullet" else fmt not in (None, "bullet", "none")
            if not ok:
                wrong.append(f"{text!r} ({'no list item' if fmt is None else fmt})")
        assert not wrong, f"{name}: not {kind} list items: {'; '.join(wrong)}"
    checks.append((f"{name} {kind} list items", items))
    if truth.get("not_items"):
        def others() -> None:
            doc = _docx(ctx, truth)
            listed = [t for t in truth["not_items"] if _list_format(doc, _find(doc, name, t)) is not None]
            assert not listed, f"{name}: list items that should not be: {listed!r}"
        checks.append((f"{name} other paragraphs not listed", others))
    return [*checks, *_keeps(ctx, truth)]


def replace_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, find = truth.get("artifact", "document"), str(truth["find"])
    expected = [squash(p) for p in truth["paragraphs"]]

    def none_left() -> None:
        left = [t for t in (text_of(p) for p in _docx(ctx, truth).paragraphs()) if find in t]
        assert not left, f"{name}: {find!r} is still in {left!r}"

    def texts() -> None:
        got = [t for t in (text_of(p) for p in _docx(ctx, truth).paragraphs()) if t]
        assert got == expected, f"{name}: the paragraphs are {got!r}, expected {expected!r}"
    return [(f"{name} no {find!r} left", none_left),
            (f"{name} {find!r} replaced by {truth['replace']!r}", texts), *_keeps(ctx, truth)]


def _style_rpr(doc: Docx, paragraph: Any) -> list[Any]:
    """The run properties of the paragraph's style and the styles it is based on (nearest first)."""
    out: list[Any] = []
    style = paragraph.find(f"{W_NS}pPr/{W_NS}pStyle")
    sid = style.get(f"{W_NS}val") if style is not None else None
    styles = {s.get(f"{W_NS}styleId"): s for s in (doc.styles.iter(f"{W_NS}style") if doc.styles is not None else [])}
    seen: set[str] = set()
    while sid and sid in styles and sid not in seen:
        seen.add(sid)
        rpr = styles[sid].find(f"{W_NS}rPr")
        if rpr is not None:
            out.append(rpr)
        based = styles[sid].find(f"{W_NS}basedOn")
        sid = based.get(f"{W_NS}val") if based is not None else None
    return out


def _prop(rprs: list[Any], tag: str) -> Any:
    for rpr in rprs:
        el = rpr.find(f"{W_NS}{tag}")
        if el is not None:
            return el
    return None


def _on(el: Any) -> bool:
    return el is not None and el.get(f"{W_NS}val", "true") not in ("false", "0", "none")


def char_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, text = truth.get("artifact", "document"), truth["text"]
    wanted = {k: truth[k] for k in ("size", "italic", "underline", "color") if k in truth}
    if not wanted:
        raise ValueError("writer_char: give size, italic, underline or color")
    checks: list[Check] = []
    for key, want in wanted.items():
        def check(key: str = key, want: Any = want) -> None:
            doc = _docx(ctx, truth)
            paragraph = _find(doc, name, text)
            runs = [r for r in paragraph.iter(f"{W_NS}r") if text_of(r)]
            bad = []
            for run in runs:
                rprs = [x for x in [run.find(f"{W_NS}rPr")] if x is not None] + _style_rpr(doc, paragraph)
                if key == "size":
                    el = _prop(rprs, "sz")
                    got: Any = float(el.get(f"{W_NS}val")) / 2 if el is not None else None
                    ok = got is not None and abs(got - float(want)) < 0.01
                elif key == "color":
                    el = _prop(rprs, "color")
                    got = (el.get(f"{W_NS}val") or "").upper() if el is not None else None
                    ok = got == str(want).upper().lstrip("#")
                else:
                    el = _prop(rprs, "i" if key == "italic" else "u")
                    got = _on(el)
                    ok = got == bool(want)
                if not ok:
                    bad.append(f"{text_of(run)!r}: {got}")
            assert runs and not bad, f"{name}: {text!r} is not {key} {want}: {'; '.join(bad) or 'no text'}"
        checks.append((f"{name} {text!r} {key} {want}", check))
    return [*checks, *_keeps(ctx, truth)]


def _page_starts(doc: Docx) -> dict[str, bool]:
    """Paragraph text -> whether a page break comes right before it (since the previous text)."""
    out: dict[str, bool] = {}
    pending = False
    for paragraph in doc.paragraphs():
        ppr = paragraph.find(f"{W_NS}pPr")
        if ppr is not None and _on(ppr.find(f"{W_NS}pageBreakBefore")):
            pending = True
        seen_text = False
        for el in paragraph.iter(f"{W_NS}br", f"{W_NS}t"):
            if el.tag == f"{W_NS}br" and el.get(f"{W_NS}type") == "page":
                pending = True
            elif el.tag == f"{W_NS}t" and (el.text or "").strip() and not seen_text:
                seen_text = True
                out.setdefault(text_of(paragraph), pending)
                pending = False
    return out


def page_break_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []
    for text in truth.get("before") or []:
        def check(text: str = text) -> None:
            starts = _page_starts(_docx(ctx, truth))
            assert squash(text) in starts, f"{name}: no paragraph {text!r}"
            assert starts[squash(text)], f"{name}: no page break right before {text!r}"
        checks.append((f"{name} page break before {text[:30]!r}", check))
    if truth.get("not_before"):
        def others() -> None:
            starts = _page_starts(_docx(ctx, truth))
            wrong = [t for t in truth["not_before"] if starts.get(squash(t))]
            assert not wrong, f"{name}: page breaks before {wrong!r} too"
        checks.append((f"{name} no other page breaks", others))
    return [*checks, *_keeps(ctx, truth)]


def footnote_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, anchor, note = truth.get("artifact", "document"), truth["anchor"], squash(truth["text"])

    def check() -> None:
        doc = _docx(ctx, truth)
        notes = {}
        for fn in (doc.footnotes.iter(f"{W_NS}footnote") if doc.footnotes is not None else []):
            if fn.get(f"{W_NS}type") in (None, "normal"):
                notes[fn.get(f"{W_NS}id")] = text_of(fn)
        assert notes, f"{name}: the document has no footnotes"
        paragraph = _find(doc, name, anchor)
        marks = [r.get(f"{W_NS}id") for r in paragraph.iter(f"{W_NS}footnoteReference")]
        assert marks, f"{name}: the paragraph {anchor!r} carries no footnote mark (notes: {list(notes.values())!r})"
        texts = [notes.get(m, "") for m in marks]
        assert note in texts, f"{name}: the footnote of {anchor!r} says {texts!r}, expected {note!r}"
    return [(f"{name} footnote on {anchor[:30]!r}", check), *_keeps(ctx, truth)]


def table_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    want = [[squash(str(c)) for c in row] for row in truth["cells"]]

    def check() -> None:
        doc = _docx(ctx, truth)
        tables = []
        for tbl in doc.body.iter(f"{W_NS}tbl"):
            tables.append([[text_of(tc) for tc in tr.iterfind(f"{W_NS}tc")] for tr in tbl.iterfind(f"{W_NS}tr")])
        assert tables, f"{name}: the document has no table"
        assert want in tables, f"{name}: no table holds {want!r} (tables: {tables!r})"
    return [(f"{name} a {len(want)}x{len(want[0]) if want else 0} table", check), *_keeps(ctx, truth)]


def page_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []

    def section() -> Any:
        doc = _docx(ctx, truth)
        sects = list(doc.body.iter(f"{W_NS}sectPr"))
        assert sects, f"{name}: no page settings (sectPr)"
        return sects[-1]
    if "orientation" in truth:
        want = truth["orientation"]

        def orientation() -> None:
            size = section().find(f"{W_NS}pgSz")
            assert size is not None, f"{name}: no page size"
            w, h = float(size.get(f"{W_NS}w", 0)), float(size.get(f"{W_NS}h", 0))
            got = "landscape" if w > h else "portrait"
            assert got == want, f"{name}: the page is {got} ({w / 1440:.2f} x {h / 1440:.2f} in), expected {want}"
        checks.append((f"{name} page {want}", orientation))
    for side, inches in sorted((truth.get("margins") or {}).items()):
        def margin(side: str = side, inches: float = float(inches)) -> None:
            mar = section().find(f"{W_NS}pgMar")
            got = float(mar.get(f"{W_NS}{side}", 0)) / 1440 if mar is not None else 0.0
            assert abs(got - inches) <= 0.02, f"{name}: the {side} margin is {got:.2f} in, expected {inches}"
        checks.append((f"{name} {side} margin {inches} in", margin))
    if "columns" in truth:
        def columns() -> None:
            cols = section().find(f"{W_NS}cols")
            got = int(cols.get(f"{W_NS}num", 1)) if cols is not None else 1
            assert got == int(truth["columns"]), f"{name}: {got} text column(s), expected {truth['columns']}"
        checks.append((f"{name} {truth['columns']} columns", columns))
    return [*checks, *_keeps(ctx, truth)]


KINDS = {"writer_header": header_checks, "writer_list": list_checks, "writer_replace": replace_checks,
         "writer_char": char_checks, "writer_page_break": page_break_checks, "writer_footnote": footnote_checks,
         "writer_table": table_checks, "writer_page": page_checks, "writer_pdf": pdf_checks}
