"""Calc and Writer evaluators of the third office group: lookup and conditional functions, named ranges, comments,
line spacing and hyperlinks, each read from the saved file (openpyxl for workbooks, lxml for .docx parts).

Calc kinds take ``calc_more``'s ``artifact`` (default ``workbook``), ``sheet``, ``from`` (the start workbook under
fixtures/prosoft/) and ``keep_cells`` (default true: every cell of the start sheet keeps its value). Writer kinds
take ``writer_more``'s ``artifact`` (default ``document``) and ``keeps`` [paragraph texts that must still be
there]. Keys, by kind:

- ``calc_function``: ``cells`` {cell: {``function``: the function the instruction names (``COUNTIF``), ``value``:
  what the cell shows (Calc's saved result, a number or a text), ``uses`` [texts the formula must mention, e.g. a
  range name]}}: the cell holds a formula calling that function (not a typed result) whose saved value is the
  expected one; ``values`` {cell: value} for typed labels. The instruction names the function, so another
  function giving the same number fails; the arguments are judged by the value (``COUNTIF(B3:B10;"widget")``
  and ``COUNTIF(B3:B10;B3)`` both count the widgets), over all the cells a task asks for. Without ``function``
  any formula (``=B2+C2``); ``date``: true makes ``value`` an ISO date (``2026-03-31``) that the cell shows as a
  date, or as the date's serial number (46112: a date in a spreadsheet is that number, formatted).
- ``calc_named_range``: ``name`` (case-insensitive, as Calc treats names), ``ref`` (``A2:C7``; sheet name and
  ``$`` aside): the workbook defines that name for exactly that range.
- ``calc_protected``: the sheet is protected (Tools > Protect Sheet; with or without a password).
- ``writer_comment``: ``anchor`` (the paragraph text the comment is attached to), ``text`` (the comment's
  text, white space squashed).
- ``writer_spacing``: ``paragraphs`` [texts], ``line`` (a proportional spacing, 1.5 for "1.5 lines"): each
  paragraph has it, directly or from its paragraph style; ``not_paragraphs`` [texts that keep single spacing].
- ``writer_hyperlink``: ``url`` (the link's target, a trailing ``/`` aside), ``paragraph`` (optional: the text of
  the paragraph holding the link), ``link_text`` (optional: the link's shown text).
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load, squash
from ..namespaces import W_NS
from .calc_more import _kept, _sheet_loader, same
from .writer_more import PKG_REL, R_NS, Docx, _docx, _find, _keeps, text_of

# --- Calc ------------------------------------------------------------------------------------------------------


def _values_loader(ctx: EvalContext, truth: Mapping[str, Any]) -> Any:
    """The sheet as Calc saved its results (openpyxl's ``data_only``)."""
    name = truth.get("artifact", "workbook")

    def sheet() -> Any:
        from openpyxl import load_workbook

        def read(path: Path) -> Any:
            wb = load_workbook(path, data_only=True)
            return wb[truth["sheet"]] if "sheet" in truth else wb.worksheets[0]
        return load(ctx, name, "xlsx", read)
    return sheet


def _calls(formula: str, function: str) -> bool:
    """``formula`` calls ``function`` (outside quoted text; ``_xlfn.`` prefixes aside)."""
    plain = re.sub(r'"[^"]*"', '""', formula).upper().replace("_XLFN.", "")
    return re.search(rf"(?<![A-Z0-9_.]){re.escape(function.upper())}\s*\(", plain) is not None


def _same_date(got: Any, iso: str) -> bool:
    """``got`` (a saved cell value) is the date ``iso``: a date or datetime at midnight of that day, or its serial
    number (days since 1899-12-30)."""
    day = datetime.date.fromisoformat(iso)
    if isinstance(got, datetime.datetime):
        return got.date() == day and got.time() == datetime.time()
    if isinstance(got, datetime.date):
        return got == day
    return same(got, (day - datetime.date(1899, 12, 30)).days)


def function_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workbook")
    formulas, values = _sheet_loader(ctx, truth), _values_loader(ctx, truth)
    checks: list[Check] = []
    for cell, spec in sorted((truth.get("values") or {}).items()):
        def label(cell: str = cell, want: Any = spec) -> None:
            got = values()[cell].value
            assert same(got, want), f"{name}: cell {cell} is {got!r}, expected {want!r}"
        checks.append((f"{name} {cell} = {spec!r}", label))
    for cell, spec in sorted((truth.get("cells") or {}).items()):
        function, want, uses = str(spec.get("function") or "").upper(), spec["value"], list(spec.get("uses") or [])
        is_date = bool(spec.get("date"))

        def check(cell: str = cell, function: str = function, want: Any = want, uses: list[str] = uses,
                  is_date: bool = is_date) -> None:
            content = formulas()[cell].value
            content = getattr(content, "text", content)  # an array formula
            what = f"one calling {function}" if function else "a formula"
            assert isinstance(content, str) and content.startswith("="), (
                f"{name}: cell {cell} holds {content!r}, not a formula (expected {what})")
            assert not function or _calls(content, function), (
                f"{name}: cell {cell} holds {content}, which does not call {function}")
            missing = [u for u in uses if u.upper() not in content.upper()]
            assert not missing, f"{name}: cell {cell} holds {content}, which does not use {', '.join(missing)}"
            got = values()[cell].value
            if is_date:
                assert _same_date(got, str(want)), f"{name}: cell {cell} ({content}) shows {got!r}, expected {want}"
                return
            kind = " (text where a number is asked for)" if isinstance(got, str) and not isinstance(want, str) else ""
            assert same(got, want), f"{name}: cell {cell} ({content}) shows {got!r}, expected {want!r}{kind}"
        checks.append((f"{name} {cell} {(function + ' ') if function else ''}formula = {want!r}", check))
    return [*checks, *_kept(ctx, truth)]


def _plain(ref: str) -> str:
    return re.sub(r"^.*[!.]", "", ref.replace("$", "").replace("'", "")).upper()


def read_names(path: Path) -> dict[str, list[str]]:
    """Each defined name of a workbook (upper case) -> the ranges it stands for, sheet names and ``$`` aside."""
    from openpyxl import load_workbook

    wb = load_workbook(path)
    names: dict[str, list[str]] = {}
    scoped = [(n, d) for ws in wb.worksheets for n, d in getattr(ws, "defined_names", {}).items()]
    for key, defined in [*wb.defined_names.items(), *scoped]:
        names.setdefault(key.upper(), []).extend(_plain(part) for part in str(defined.attr_text).split(","))
    return names


def named_range_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, wanted, ref = truth.get("artifact", "workbook"), str(truth["name"]), _plain(str(truth["ref"]))

    def check() -> None:
        names = load(ctx, name, "xlsx", read_names)
        assert wanted.upper() in names, f"{name}: no range named {wanted!r} (names: {sorted(names) or 'none'})"
        got = names[wanted.upper()]
        assert got == [ref], f"{name}: {wanted!r} stands for {', '.join(got)}, expected {ref}"
    return [(f"{name} range {wanted!r} = {ref}", check), *_kept(ctx, truth)]


def protected_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workbook")
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        ws = sheet()
        assert ws.protection.sheet, f"{name}: sheet {ws.title!r} is not protected"
    return [(f"{name} sheet protected", check), *_kept(ctx, truth)]


# --- Writer ----------------------------------------------------------------------------------------------------

def _comments(path: Path) -> dict[str, str]:
    """Comment id -> its text (squashed), from word/comments.xml."""
    import zipfile

    from lxml import etree

    with zipfile.ZipFile(path) as z:
        if "word/comments.xml" not in z.namelist():
            return {}
        root = etree.fromstring(z.read("word/comments.xml"))
    return {c.get(f"{W_NS}id"): text_of(c) for c in root.iter(f"{W_NS}comment")}


def comment_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, anchor, want = truth.get("artifact", "document"), str(truth["anchor"]), squash(str(truth["text"]))

    def check() -> None:
        comments = load(ctx, name, "docx", _comments)
        assert comments, f"{name}: the document has no comment"
        assert want in comments.values(), f"{name}: the comments say {sorted(comments.values())!r}, expected {want!r}"
        doc = _docx(ctx, truth)
        paragraph = _find(doc, name, anchor)
        ids = {e.get(f"{W_NS}id") for e in paragraph.iter(f"{W_NS}commentReference", f"{W_NS}commentRangeStart")}
        here = [comments.get(i) for i in ids]
        assert want in here, (f"{name}: the comment {want!r} is not attached to {anchor!r} (that paragraph has "
                              f"{[h for h in here if h] or 'no comment'})")
    return [(f"{name} comment {want!r} on {anchor!r}", check), *_keeps(ctx, truth)]


def _spacing(doc: Docx, paragraph: Any) -> tuple[str, str] | None:
    """The paragraph's line spacing (``w:line``, ``w:lineRule``): its own, else its style's (and those it is
    based on), else the document defaults; None when none is set (single)."""
    own = paragraph.find(f"{W_NS}pPr/{W_NS}spacing")
    if own is not None and own.get(f"{W_NS}line"):
        return own.get(f"{W_NS}line", ""), own.get(f"{W_NS}lineRule", "auto")
    styles = {s.get(f"{W_NS}styleId"): s for s in (doc.styles.iter(f"{W_NS}style") if doc.styles is not None else [])}
    style = paragraph.find(f"{W_NS}pPr/{W_NS}pStyle")
    sid = style.get(f"{W_NS}val") if style is not None else next(
        (k for k, s in styles.items() if s.get(f"{W_NS}default") in ("1", "true") and s.get(f"{W_NS}type") ==
         "paragraph"), None)
    seen: set[str] = set()
    while sid and sid in styles and sid not in seen:
        seen.add(sid)
        spacing = styles[sid].find(f"{W_NS}pPr/{W_NS}spacing")
        if spacing is not None and spacing.get(f"{W_NS}line"):
            return spacing.get(f"{W_NS}line", ""), spacing.get(f"{W_NS}lineRule", "auto")
        based = styles[sid].find(f"{W_NS}basedOn")
        sid = based.get(f"{W_NS}val") if based is not None else None
    defaults = doc.styles.find(f"{W_NS}docDefaults/{W_NS}pPrDefault/{W_NS}pPr/{W_NS}spacing") if (
        doc.styles is not None) else None
    if defaults is not None and defaults.get(f"{W_NS}line"):
        return defaults.get(f"{W_NS}line", ""), defaults.get(f"{W_NS}lineRule", "auto")
    return None


def _lines(spacing: tuple[str, str] | None) -> float | None:
    """A proportional spacing in lines (240 twentieths of a point per line), or None for an exact/at-least one."""
    if spacing is None:
        return 1.0
    line, rule = spacing
    return int(line) / 240 if rule == "auto" and line.lstrip("-").isdigit() else None


def spacing_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, want = truth.get("artifact", "document"), float(truth["line"])

    def shown(lines: float | None) -> str:
        return "a fixed height" if lines is None else f"{lines:g} lines"

    def check() -> None:
        doc = _docx(ctx, truth)
        wrong = []
        for text in truth["paragraphs"]:
            lines = _lines(_spacing(doc, _find(doc, name, text)))
            if lines is None or abs(lines - want) > 0.01:
                wrong.append(f"{text!r} ({shown(lines)})")
        assert not wrong, f"{name}: not spaced {want:g} lines: {'; '.join(wrong)}"
    checks: list[Check] = [(f"{name} line spacing {want:g}", check)]
    if truth.get("not_paragraphs"):
        def others() -> None:
            doc = _docx(ctx, truth)
            wrong = [f"{t!r} ({shown(lines)})" for t in truth["not_paragraphs"]
                     if (lines := _lines(_spacing(doc, _find(doc, name, t)))) is None or abs(lines - 1) > 0.01]
            assert not wrong, f"{name}: paragraphs that should keep single spacing: {'; '.join(wrong)}"
        checks.append((f"{name} other paragraphs single-spaced", others))
    return [*checks, *_keeps(ctx, truth)]


def _links(path: Path) -> list[tuple[str, str, str]]:
    """Every external hyperlink of the body: (target, shown text, the paragraph's text)."""
    import zipfile

    from lxml import etree

    doc = Docx(path)
    with zipfile.ZipFile(path) as z:
        member = "word/_rels/document.xml.rels"
        rels = etree.fromstring(z.read(member)) if member in z.namelist() else None
    targets = {r.get("Id"): r.get("Target", "") for r in (rels.iter(f"{PKG_REL}Relationship") if rels is not None
                                                          else [])
               if r.get("TargetMode") == "External" or r.get("Type", "").endswith("/hyperlink")}
    out = []
    for paragraph in doc.paragraphs():
        for link in paragraph.iter(f"{W_NS}hyperlink"):
            target = targets.get(link.get(f"{R_NS}id"))
            if target:
                out.append((target, text_of(link), text_of(paragraph)))
        instr = " ".join(t.text or "" for t in paragraph.iter(f"{W_NS}instrText"))  # a HYPERLINK field
        for url in re.findall(r'HYPERLINK\s+"([^"]+)"', instr):
            out.append((url, text_of(paragraph), text_of(paragraph)))
    return out


def hyperlink_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, url = truth.get("artifact", "document"), str(truth["url"]).rstrip("/")

    def check() -> None:
        links = load(ctx, name, "docx", _links)
        assert links, f"{name}: the document has no hyperlink"
        to_url = [link for link in links if link[0].rstrip("/") == url]
        assert to_url, f"{name}: the links go to {sorted({t for t, _, _ in links})}, expected {url}"
        if truth.get("paragraph") is not None:
            where = squash(str(truth["paragraph"]))
            assert any(p == where for _, _, p in to_url), (
                f"{name}: the link to {url} is in {[p for _, _, p in to_url]!r}, expected in {where!r}")
        if truth.get("link_text") is not None:
            shown = squash(str(truth["link_text"]))
            assert any(s == shown for _, s, _ in to_url), (
                f"{name}: the link to {url} shows {[s for _, s, _ in to_url]!r}, expected {shown!r}")
    return [(f"{name} hyperlink to {url}", check), *_keeps(ctx, truth)]


KINDS = {"calc_function": function_checks, "calc_named_range": named_range_checks, "calc_protected": protected_checks,
         "writer_comment": comment_checks, "writer_spacing": spacing_checks, "writer_hyperlink": hyperlink_checks}
