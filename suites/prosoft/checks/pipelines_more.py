"""Evaluators for the drawing that travels through ``make/pipelines_more.py``'s LibreCAD -> Inkscape -> Impress
pipeline: LibreCAD's Export as CAM/plain SVG writes one group per DXF layer (``<g lc:layername="WALLS">``, the
namespace https://librecad.org), Inkscape keeps those groups when it imports the file into another drawing and
saves it, and Impress embeds that SVG as it is. A layer is such a group, or an Inkscape layer (``<g
inkscape:groupmode="layer">``) by its label.

Kinds:

- ``svg_layers``: ``artifact`` (default ``svg``); ``layers`` {name: n}: the SVG has a layer of that name holding
  at least n shapes (path, line, circle, ellipse, polyline, polygon, rect), one milestone per layer; ``texts``
  [strings some ``<text>`` shows], one milestone each. An SVG drawn anew (no such layers), the DXF itself under
  the SVG's name, or the plan without the added text misses.
- ``impress_svg_layers``: ``artifact`` (default ``deck``); ``slide`` (1-based); ``layers`` [names] and ``texts``:
  a picture on that slide is an SVG with these layers and texts (the converted drawing, not another picture);
  ``titles`` [every slide's title, in order], a milestone of its own.
"""

from __future__ import annotations

from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, load, squash
from ..namespaces import SVG_NS
from .impress import read_deck

INKSCAPE = "{http://www.inkscape.org/namespaces/inkscape}"
LIBRECAD = "{https://librecad.org}"
SHAPES = {f"{SVG_NS}{t}" for t in ("path", "line", "circle", "ellipse", "polyline", "polygon", "rect")}


def svg_layers(root: Any) -> dict[str, int]:
    """name -> shapes inside, for every layer group of an SVG root element (LibreCAD's or Inkscape's)."""
    out: dict[str, int] = {}
    for g in root.iter(f"{SVG_NS}g"):
        name = g.get(f"{LIBRECAD}layername")
        if name is None and g.get(f"{INKSCAPE}groupmode") == "layer":
            name = g.get(f"{INKSCAPE}label") or g.get("id") or ""
        if name is not None:
            out[str(name)] = out.get(str(name), 0) + sum(1 for el in g.iter() if el.tag in SHAPES)
    return out


def svg_texts(root: Any) -> list[str]:
    return [squash("".join(t.itertext())) for t in root.iter(f"{SVG_NS}text")]


def _parse(data: bytes) -> Any:
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    return etree.fromstring(data, parser)


def svg_layers_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "svg")
    checks: list[Check] = []
    for label, least in sorted((truth.get("layers") or {}).items()):
        def check(label: str = label, least: int = least) -> None:
            layers = load(ctx, name, "svg", lambda p: svg_layers(_parse(p.read_bytes())))
            assert label in layers, f"{name}: no layer {label!r} (layers: {sorted(layers) or 'none'})"
            assert layers[label] >= int(least), f"{name}: layer {label!r} holds {layers[label]} shapes, expected {least}"
        checks.append((f"{name} layer {label} with at least {least} shapes", check))
    for text in truth.get("texts") or []:
        def check_text(text: str = text) -> None:
            texts = load(ctx, name, "svg", lambda p: svg_texts(_parse(p.read_bytes())))
            assert any(text in t for t in texts), f"{name}: no text {text!r} (texts: {texts[:10]})"
        checks.append((f"{name} has the text {text!r}", check_text))
    return checks


def impress_svg_layers_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "deck")
    number = int(truth["slide"])
    wanted = list(truth.get("layers") or [])
    texts = list(truth.get("texts") or [])
    checks: list[Check] = []

    def deck() -> Any:
        return load(ctx, name, "presentation", read_deck)

    if "titles" in truth:
        def check_titles() -> None:
            titles = [s.title for s in deck().slides]
            assert titles == list(truth["titles"]), f"{name}: slide titles {titles!r}, expected {truth['titles']!r}"
        checks.append((f"{name} slide titles", check_titles))

    def check_picture() -> None:
        slides = deck().slides
        assert len(slides) >= number, f"{name}: {len(slides)} slides, no slide {number}"
        found = []
        for path, data in slides[number - 1].pictures:
            try:
                root = _parse(data) if data.lstrip()[:1] == b"<" else None
            except Exception:  # noqa: BLE001 - a picture that is no XML is simply not the drawing
                root = None
            layers, shown = (svg_layers(root), svg_texts(root)) if root is not None else ({}, [])
            found.append(f"{path}: layers {sorted(layers) or 'none'}, texts {shown[:5]}")
            if all(label in layers for label in wanted) and all(any(t in s for s in shown) for t in texts):
                return
        raise AssertionError(f"{name}: no picture on slide {number} is an SVG with the layers {wanted}"
                             f"{' and the texts ' + str(texts) if texts else ''} ({'; '.join(found) or 'no pictures'})")
    what = f"layers {', '.join(wanted)}" + (f" and {', '.join(repr(t) for t in texts)}" if texts else "")
    checks.append((f"{name} slide {number} shows the SVG with {what}", check_picture))
    return checks


KINDS = {"svg_layers": svg_layers_checks, "impress_svg_layers": impress_svg_layers_checks}
