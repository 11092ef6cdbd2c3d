"""Calc and Impress evaluators of the last office group: a conditional format, a validity list and a slide's
layout, each read from the saved file (openpyxl for workbooks, the deck's XML for presentations).

Calc kinds take ``calc_more``'s ``artifact`` (default ``workbook``), ``sheet``, ``from`` (the start workbook under
fixtures/prosoft/) and ``keep_cells`` (default true). Keys, by kind:

- ``calc_conditional``: ``range`` (``B2:B7``; ``$`` aside), ``operator`` (the saved ``cellIs`` operator:
  ``greaterThan``, ``lessThan``, ``between`` ...), ``value`` (the number compared with): a cell-value rule on
  exactly that range with that operator and value, and a style (a ``dxf``) applied. Another range, operator
  (``greaterThanOrEqual`` for "above") or value fails; so does a formula rule (``expression``).
- ``calc_validation``: ``range``, ``values`` [the allowed entries, in order]: a validity of type ``list`` on
  exactly that range whose entries (an inline list ``"a,b,c"``) are those values; a list taken from cells, a
  wrong range or a missing entry fails.
- ``impress_layout``: ``artifact`` (default ``deck``), ``slide`` (1-based), ``outlines`` (the number of content
  boxes the layout has: 2 for Title and 2 Content), ``title`` (the slide's title, kept), ``body`` [texts the
  slide's content boxes still show]: the slide has a title box and exactly ``outlines`` content placeholders
  (``presentation:class="outline"`` frames in .odp, ``body`` placeholders in .pptx).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load, squash
from ..namespaces import DRAW, OFFICE, PRES
from .calc_more import _kept, _sheet_loader
from .impress import P, _odf_paragraphs, _ooxml_paragraphs, _xml

# --- Calc ------------------------------------------------------------------------------------------------------


def _ranges(sqref: Any) -> list[str]:
    return sorted(str(part).replace("$", "").upper() for part in str(sqref).split())


def _number(text: str) -> float | None:
    try:
        return float(str(text).strip().strip('"'))
    except ValueError:
        return None


def conditional_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref = truth.get("artifact", "workbook"), str(truth["range"]).replace("$", "").upper()
    operator, value = str(truth["operator"]), float(truth["value"])
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        ws = sheet()
        rules = [(_ranges(cf.sqref), rule) for cf in ws.conditional_formatting for rule in cf.rules]
        assert rules, f"{name}: sheet {ws.title!r} has no conditional format"
        on_range = [rule for ranges, rule in rules if ranges == [ref]]
        assert on_range, (f"{name}: no conditional format on {ref} (formats on: "
                          f"{', '.join(' '.join(r) for r, _ in rules)})")
        seen = [f"{rule.type} {rule.operator or ''} {list(rule.formula or [])}".strip() for rule in on_range]
        match = [rule for rule in on_range if rule.type == "cellIs" and rule.operator == operator
                 and [_number(f) for f in (rule.formula or [])] == [value]]
        assert match, f"{name}: the conditional format on {ref} is {'; '.join(seen)}, expected cell value {operator} {value:g}"
        assert any(rule.dxfId is not None or rule.dxf is not None for rule in match), (
            f"{name}: the conditional format on {ref} applies no style")
    return [(f"{name} conditional format on {ref}: value {operator} {value:g}", check), *_kept(ctx, truth)]


def _entries(formula: str | None) -> list[str] | None:
    """An inline list's entries (``"North,South"``), or None for a formula (a cell range, a name)."""
    text = str(formula or "").strip()
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return None
    return [squash(part) for part in text[1:-1].replace('""', '"').split(",")]


def validation_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref = truth.get("artifact", "workbook"), str(truth["range"]).replace("$", "").upper()
    wanted = [squash(str(v)) for v in truth["values"]]
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        ws = sheet()
        rules = list(ws.data_validations.dataValidation) if ws.data_validations else []
        assert rules, f"{name}: sheet {ws.title!r} has no validity rule"
        on_range = [dv for dv in rules if _ranges(dv.sqref) == [ref]]
        assert on_range, f"{name}: no validity rule on {ref} (rules on: {', '.join(str(dv.sqref) for dv in rules)})"
        seen = [f"{dv.type} {dv.formula1!r}" for dv in on_range]
        assert any(dv.type == "list" and _entries(dv.formula1) == wanted for dv in on_range), (
            f"{name}: the validity on {ref} is {'; '.join(seen)}, expected a list of {', '.join(wanted)}")
    return [(f"{name} validity list on {ref}", check), *_kept(ctx, truth)]


# --- Impress ---------------------------------------------------------------------------------------------------

def read_boxes(path: Path) -> list[list[tuple[str, str]]]:
    """Each slide's title and content boxes in order: (``title`` or ``outline``, their text); an empty content
    placeholder (the second box a new layout adds) counts with the text ''."""
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        if "content.xml" in names:
            body = _xml(z, "content.xml").find(f"{OFFICE}body")
            return [[(str(frame.get(f"{PRES}class")), squash(" ".join(_odf_paragraphs(frame))))
                     for frame in page.iter(f"{DRAW}frame") if frame.get(f"{PRES}class") in ("title", "outline")]
                    for page in body.iter(f"{DRAW}page")]
        order = sorted((n for n in names if n.startswith("ppt/slides/slide") and n.endswith(".xml")),
                       key=lambda n: int("".join(ch for ch in Path(n).stem if ch.isdigit()) or 0))
        if not order:
            raise ValueError(f"{path.name} is neither an .odp nor a .pptx")
        slides = []
        for part in order:
            boxes = []
            for sp in _xml(z, part).iter(f"{P}sp"):
                ph = sp.find(f".//{P}nvPr/{P}ph")
                cls = None if ph is None else PPTX_CLASS.get(ph.get("type", "body"))
                if cls:
                    boxes.append((cls, squash(" ".join(_ooxml_paragraphs(sp)))))
            slides.append(boxes)
        return slides


PPTX_CLASS = {"title": "title", "ctrTitle": "title", "body": "outline", "obj": "outline"}


def layout_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, number, outlines = truth.get("artifact", "deck"), int(truth["slide"]), int(truth["outlines"])

    def check() -> None:
        slides = load(ctx, name, "presentation", read_boxes)
        assert 1 <= number <= len(slides), f"{name}: no slide {number} (the deck has {len(slides)})"
        boxes = slides[number - 1]
        titles = [text for cls, text in boxes if cls == "title"]
        bodies = [text for cls, text in boxes if cls == "outline"]
        assert len(bodies) == outlines, (f"{name}: slide {number} has {len(bodies)} content box(es), expected "
                                         f"{outlines} (its layout)")
        if "title" in truth:
            assert titles == [squash(str(truth["title"]))], f"{name}: slide {number}'s title is {titles!r}"
        shown = " ".join(bodies)
        missing = [t for t in truth.get("body", []) if squash(str(t)) not in shown]
        assert not missing, f"{name}: slide {number}'s content boxes lost {missing!r}"
    return [(f"{name} slide {number} layout: title and {outlines} content box(es)", check)]


KINDS = {"calc_conditional": conditional_checks, "calc_validation": validation_checks, "impress_layout": layout_checks}
