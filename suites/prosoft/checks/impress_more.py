"""Impress evaluators beyond ``impress.py``'s slides, titles, bullets and notes: per-slide settings and the
shapes drawn on a slide, read from a saved .odp's ``content.xml`` (its slides, ``draw:page``, and their
automatic ``drawing-page`` styles) with lxml.

Every kind takes ``artifact`` (default ``deck``) and ``titles`` [every slide's title, in order]: a milestone of
its own, so that an operation which also added, dropped or reordered slides misses it. Slide numbers are
1-based (strings in JSON). Keys, by kind:

- ``impress_hidden``: ``hidden`` [slides that must be hidden in the slide show]; every other slide shown.
- ``impress_transition``: ``transitions`` {slide: transition type as ODF names it (``fade``, ``barWipe``, ...)};
  ``others`` ``none``: every other slide has no transition.
- ``impress_shape``: ``slide``, ``shape`` (``rectangle``, ``ellipse``), ``text`` (the text in the shape, or
  absent: any).
- ``impress_textbox``: ``slide``, ``text``: a text box of its own (a frame that is no layout placeholder) shows it.
- ``impress_background``: ``backgrounds`` {slide: ``#rrggbb``}: the slide's own solid fill; every other slide
  keeps the master's background (no fill of its own).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load, squash
from ..namespaces import DRAW, OFFICE, PRES, STYLE

SMIL = "{urn:oasis:names:tc:opendocument:xmlns:smil-compatible:1.0}"
ANIM = "{urn:oasis:names:tc:opendocument:xmlns:animation:1.0}"


@dataclass
class Page:
    title: str = ""
    props: dict[str, str] = field(default_factory=dict)  # the drawing-page style's properties (local names)
    transition: str = ""
    shapes: list[tuple[str, str]] = field(default_factory=list)  # (geometry type, text) of drawn shapes
    boxes: list[str] = field(default_factory=list)  # the text of text boxes that are no placeholders


def _local(tag: str) -> str:
    return re.sub(r"^{[^}]*}", "", tag)


def _text(element: Any) -> str:
    return squash(" ".join(t for t in element.itertext()))


def read_pages(path: Path) -> list[Page]:
    """The slides of an .odp with their page settings and drawn shapes."""
    from lxml import etree

    with zipfile.ZipFile(path) as z:
        root = etree.fromstring(z.read("content.xml"))
    styles: dict[str, dict[str, str]] = {}
    for style in root.iter(f"{STYLE}style"):
        if style.get(f"{STYLE}family") == "drawing-page":
            props = style.find(f"{STYLE}drawing-page-properties")
            styles[style.get(f"{STYLE}name", "")] = (
                {_local(k): v for k, v in props.attrib.items()} if props is not None else {})
    pages = []
    body = root.find(f"{OFFICE}body/{OFFICE}presentation")
    for page in (body.iterfind(f"{DRAW}page") if body is not None else []):
        out = Page(props=styles.get(page.get(f"{DRAW}style-name", ""), {}))
        out.transition = out.props.get("type", "")
        for flt in page.iter(f"{ANIM}transitionFilter"):
            out.transition = out.transition or flt.get(f"{SMIL}type", "")
        for el in page:
            kind = _local(el.tag)
            cls = el.get(f"{PRES}class")
            if kind == "frame" and cls == "title":
                out.title = _text(el)
            elif kind == "frame" and cls is None and el.find(f"{DRAW}text-box") is not None:
                out.boxes.append(_text(el))
            elif kind == "custom-shape":
                geometry = el.find(f"{DRAW}enhanced-geometry")
                out.shapes.append((geometry.get(f"{DRAW}type", "") if geometry is not None else "", _text(el)))
            elif kind in ("rect", "ellipse", "circle"):
                out.shapes.append(({"rect": "rectangle", "circle": "ellipse"}.get(kind, kind), _text(el)))
        pages.append(out)
    return pages


def _pages(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Page]:
    return load(ctx, truth.get("artifact", "deck"), "odp", read_pages)


def _slide(pages: list[Page], name: str, number: Any) -> Page:
    n = int(number)
    assert 1 <= n <= len(pages), f"{name}: no slide {n} (the deck has {len(pages)})"
    return pages[n - 1]


def _titles(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, titles = truth.get("artifact", "deck"), list(truth.get("titles") or [])
    if not titles:
        return []

    def check() -> None:
        found = [p.title for p in _pages(ctx, truth)]
        assert found == titles, f"{name}: slide titles {found!r}, expected {titles!r}"
    return [(f"{name} slides kept", check)]


def hidden_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, hidden = truth.get("artifact", "deck"), {int(n) for n in truth.get("hidden") or []}

    def check() -> None:
        pages = _pages(ctx, truth)
        found = {i + 1 for i, p in enumerate(pages) if p.props.get("visibility") == "hidden"}
        assert found == hidden, f"{name}: hidden slides {sorted(found) or 'none'}, expected {sorted(hidden)}"
    return [(f"{name} hidden slides {sorted(hidden)}", check), *_titles(ctx, truth)]


def transition_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "deck")
    wanted = {int(k): str(v) for k, v in (truth.get("transitions") or {}).items()}
    checks: list[Check] = []
    for number, kind in sorted(wanted.items()):
        def check(number: int = number, kind: str = kind) -> None:
            page = _slide(_pages(ctx, truth), name, number)
            assert page.transition == kind, (
                f"{name}: slide {number} has transition {page.transition or 'none'!r}, expected {kind!r}")
        checks.append((f"{name} slide {number} transition {kind}", check))
    if truth.get("others") == "none":
        def others() -> None:
            extra = [f"{i + 1} ({p.transition})" for i, p in enumerate(_pages(ctx, truth))
                     if i + 1 not in wanted and p.transition]
            assert not extra, f"{name}: other slides have transitions too: {', '.join(extra)}"
        checks.append((f"{name} no other transitions", others))
    return [*checks, *_titles(ctx, truth)]


def shape_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, number, kind = truth.get("artifact", "deck"), truth["slide"], truth["shape"]
    text = squash(truth["text"]) if truth.get("text") is not None else None

    def check() -> None:
        page = _slide(_pages(ctx, truth), name, number)
        kinds = [s for s in page.shapes if s[0] == kind]
        assert kinds, f"{name}: no {kind} on slide {number} (shapes: {page.shapes or 'none'})"
        if text is not None:
            assert any(t == text for _, t in kinds), f"{name}: the {kind} on slide {number} shows {kinds!r}, " \
                                                     f"expected the text {text!r}"
    return [(f"{name} a {kind} on slide {number}", check), *_titles(ctx, truth)]


def textbox_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, number, text = truth.get("artifact", "deck"), truth["slide"], squash(truth["text"])

    def check() -> None:
        page = _slide(_pages(ctx, truth), name, number)
        assert text in page.boxes, f"{name}: no text box on slide {number} shows {text!r} (text boxes: {page.boxes})"
    return [(f"{name} text box {text!r} on slide {number}", check), *_titles(ctx, truth)]


def background_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "deck")
    wanted = {int(k): str(v).lower() for k, v in (truth.get("backgrounds") or {}).items()}
    checks: list[Check] = []
    for number, color in sorted(wanted.items()):
        def check(number: int = number, color: str = color) -> None:
            props = _slide(_pages(ctx, truth), name, number).props
            fill, got = props.get("fill", "none"), props.get("fill-color", "").lower()
            assert fill == "solid" and got == color, (
                f"{name}: slide {number} background is {fill} {got}, expected solid {color}")
        checks.append((f"{name} slide {number} background {color}", check))

    def others() -> None:
        extra = [f"{i + 1} ({p.props.get('fill')} {p.props.get('fill-color', '')})"
                 for i, p in enumerate(_pages(ctx, truth))
                 if i + 1 not in wanted and p.props.get("fill", "none") != "none"]
        assert not extra, f"{name}: other slides got a background too: {', '.join(extra)}"
    checks.append((f"{name} other slides keep the master background", others))
    return [*checks, *_titles(ctx, truth)]


KINDS = {"impress_hidden": hidden_checks, "impress_transition": transition_checks, "impress_shape": shape_checks,
         "impress_textbox": textbox_checks, "impress_background": background_checks}
