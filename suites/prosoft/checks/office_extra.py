"""More office evaluators next to ``templates.py``'s calc/writer/svg kinds: paragraph styles and alignment of a
.docx, sheet names of a workbook, text elements of an SVG. New kinds rather than new keys of the old ones, so
the first four kinds keep their meaning.

Ground-truth keys, by kind (paragraph indexes count the non-empty paragraphs from 0, as ``writer`` does):

- ``docx_format``: ``artifact`` (default ``document``); ``styles`` {index: style id, e.g. "Heading1"} (compared
  without spaces or case, so "Heading 1" matches); ``centered`` [indexes] (paragraph alignment centre)
- ``xlsx_sheets``: ``artifact`` (default ``workbook``); ``sheet_names`` [every sheet's name, in order]
- ``svg_text``: ``artifact`` (default ``drawing``); ``texts`` [texts, each shown by some ``<text>`` element]
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load
from ..namespaces import SVG_NS, W_NS


def docx_paragraphs(path: Path) -> list[tuple[str, str, str]]:
    """(text, paragraph style id, alignment) of each non-empty paragraph of a .docx."""
    from lxml import etree

    try:
        with zipfile.ZipFile(path) as z:
            root = etree.fromstring(z.read("word/document.xml"))
    except (zipfile.BadZipFile, KeyError):
        raise AssertionError(f"{path.name}: not a Word document (.docx)") from None
    out = []
    for p in root.iter(f"{W_NS}p"):
        text = "".join(t.text or "" for t in p.iter(f"{W_NS}t")).strip()
        if not text:
            continue
        style = p.find(f"{W_NS}pPr/{W_NS}pStyle")
        jc = p.find(f"{W_NS}pPr/{W_NS}jc")
        out.append((text, style.get(f"{W_NS}val", "") if style is not None else "",
                    jc.get(f"{W_NS}val", "") if jc is not None else ""))
    return out


def _style_key(name: str) -> str:
    return re.sub(r"[\s_-]", "", name).lower()


def docx_format_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []

    def paragraph(index: int) -> tuple[str, str, str]:
        paragraphs = load(ctx, name, "docx", docx_paragraphs)
        assert index < len(paragraphs), f"{name}: no paragraph {index} (it has {len(paragraphs)})"
        return paragraphs[index]

    for index, style in sorted((truth.get("styles") or {}).items()):
        def check_style(index: int = int(index), style: str = style) -> None:
            text, found, _ = paragraph(index)
            assert _style_key(found) == _style_key(style), (
                f"{name}: paragraph {index} {text!r} has style {found or 'none'!r}, expected {style!r}")
        checks.append((f"{name} paragraph {index} style {style}", check_style))
    for index in truth.get("centered") or []:
        def check_centered(index: int = int(index)) -> None:
            text, _, jc = paragraph(index)
            assert jc == "center", f"{name}: paragraph {index} {text!r} is aligned {jc or 'left'!r}, not centred"
        checks.append((f"{name} paragraph {index} centred", check_centered))
    return checks


def xlsx_sheets_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workbook")
    expected = list(truth.get("sheet_names") or [])

    def check() -> None:
        from openpyxl import load_workbook

        names = load(ctx, name, "xlsx", lambda p: load_workbook(p, read_only=True).sheetnames)
        assert names == expected, f"{name}: sheets {names!r}, expected {expected!r}"
    return [(f"{name} sheet names", check)] if expected else []


def svg_text_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    checks: list[Check] = []
    for expected in truth.get("texts") or []:
        def check(expected: str = expected) -> None:
            from lxml import etree

            root = load(ctx, name, "svg", lambda p: etree.parse(str(p)).getroot())
            shown = [re.sub(r"\s+", " ", "".join(el.itertext())).strip() for el in root.iter(f"{SVG_NS}text")]
            assert expected in shown, f"{name}: no text element shows {expected!r} (texts: {shown!r})"
        checks.append((f"{name} text {expected!r}", check))
    return checks


KINDS = {"docx_format": docx_format_checks, "xlsx_sheets": xlsx_sheets_checks, "svg_text": svg_text_checks}
