"""More Inkscape evaluators next to ``templates.py``'s ``svg`` and ``office_extra.py``'s ``svg_text``: the
geometry, paint and structure of the shapes of a saved SVG, the document's size, styled text, and a PNG Inkscape
exported. Geometry is in the drawing's user units (px for a document whose viewBox matches its size), after
every ``transform`` of the element and its ancestors, so a shape Inkscape moved by rewriting ``x`` and one it
moved with a ``transform`` both count.

Ground-truth keys, by kind (``artifact`` default ``drawing``; ``tolerance`` in user units, default 1):

- ``svg_shapes``: ``shapes`` [{``id`` or ``tag`` (the element, or any element of that tag: ``rect``, ``path``,
  ...), ``bbox`` [x, y, w, h], ``fill`` "#rrggbb", ``stroke`` "#rrggbb", ``stroke_width`` (user units, after
  transforms)}]: one milestone per spec, met by some element matching all of it; ``absent`` [ids no element may
  have any more]; ``count`` {tag: n} (shapes of each tag, defs aside)
- ``svg_structure``: ``group`` [ids one group (not a layer) holds] and ``outside`` [ids it must not hold];
  ``layers`` {label: [ids inside that layer]}; ``order`` [ids in this drawing order, first = bottom]
- ``svg_document``: ``width`` and ``height`` (px; "210mm" and the like are converted at 96 dpi); ``keeps``
  [ids still present]
- ``svg_styled_text``: ``texts`` [{``text``, ``font_size`` (px; a size in pt is converted), ``fill``}]
- ``svg_png``: ``artifact`` (default ``png``); ``size`` [w, h]; ``colours`` [{``rgb`` "#rrggbb", ``min_fraction``}]
  (each colour covers at least that share of the pixels, within 24 per channel)
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator, Mapping, Sequence

from pytest_cua import EvalContext

from ..artifacts import Check, load
from ..namespaces import SVG_NS

INKSCAPE_NS = "{http://www.inkscape.org/namespaces/inkscape}"
SHAPES = ("rect", "circle", "ellipse", "path", "polygon", "polyline", "line", "text", "image", "use")
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
UNITS = {"": 1.0, "px": 1.0, "pt": 96 / 72, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
NAMED = {"red": "#ff0000", "blue": "#0000ff", "green": "#008000", "yellow": "#ffff00", "black": "#000000",
         "white": "#ffffff", "orange": "#ffa500", "lime": "#00ff00"}


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text)]


def multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e,
            b * e2 + d * f2 + f)


def parse_transform(text: str | None) -> Matrix:
    """The matrix of an SVG ``transform`` attribute (matrix, translate, scale, rotate, skewX, skewY)."""
    m = IDENTITY
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text or ""):
        v = _numbers(args)
        if name == "matrix" and len(v) == 6:
            step: Matrix = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "translate" and v:
            step = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            step = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "rotate" and v:
            r = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            step = multiply(multiply((1, 0, 0, 1, cx, cy), (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0, 0)),
                            (1, 0, 0, 1, -cx, -cy))
        elif name in ("skewX", "skewY") and v:
            t = math.tan(math.radians(v[0]))
            step = (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
        else:
            continue
        m = multiply(m, step)
    return m


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def path_points(d: str) -> list[tuple[float, float]]:
    """The end and control points of a path's segments (a bounding box of them bounds the path; arcs by their
    end points, which for Inkscape's quadrant arcs is exact)."""
    points: list[tuple[float, float]] = []
    x = y = sx = sy = 0.0
    sizes = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d or ""):
        upper, rel = cmd.upper(), cmd.islower()
        v = _numbers(args)
        if upper == "Z":
            x, y = sx, sy
            continue
        n = sizes[upper]
        first = True
        for i in range(0, len(v) - n + 1, n):
            chunk = v[i:i + n]
            ox, oy = (x, y) if rel else (0.0, 0.0)
            if upper == "H":
                x = chunk[0] + (x if rel else 0.0)
            elif upper == "V":
                y = chunk[0] + (y if rel else 0.0)
            elif upper == "A":
                x, y = chunk[5] + ox, chunk[6] + oy
            else:
                for j in range(0, n - 2, 2):
                    points.append((chunk[j] + ox, chunk[j + 1] + oy))
                x, y = chunk[n - 2] + ox, chunk[n - 1] + oy
            points.append((x, y))
            if upper == "M" and first:
                sx, sy = x, y
            first = False
            if upper == "M":
                upper = "L"  # further pairs of a moveto are linetos
    return points


def _length(text: str | None) -> float:
    match = re.fullmatch(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-z%]*)\s*", text or "")
    if not match or match.group(2) not in UNITS:
        raise ValueError(f"not a length: {text!r}")
    return float(match.group(1)) * UNITS[match.group(2)]


def style(el: Any, prop: str, inherit: bool = True) -> str | None:
    """A presentation property of ``el``: its style attribute, then its attribute, then (``inherit``) its
    ancestors'."""
    node = el
    while node is not None and isinstance(node.tag, str):
        declared = dict(re.findall(r"([\w-]+)\s*:\s*([^;]+)", node.get("style") or ""))
        if prop in declared:
            return declared[prop].strip()
        if node.get(prop) is not None:
            return str(node.get(prop)).strip()
        if not inherit:
            return None
        node = node.getparent()
    return None


def colour(text: str | None) -> str | None:
    """``#rrggbb`` of an SVG colour (hex, rgb(), a few names), None for none, a gradient or nothing."""
    text = (text or "").strip().lower()
    text = NAMED.get(text, text)
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        return "#" + "".join(ch * 2 for ch in text[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", text):
        return text
    match = re.fullmatch(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", text)
    if match:
        return "#" + "".join(f"{int(v):02x}" for v in match.groups())
    return None


def ctm(el: Any) -> Matrix:
    """The transform from ``el``'s own coordinates to the drawing's user units."""
    chain = []
    node = el
    while node is not None and isinstance(node.tag, str):
        chain.append(parse_transform(node.get("transform")))
        node = node.getparent()
    m = IDENTITY
    for step in reversed(chain[:-1] if len(chain) > 1 else chain):  # the root <svg>'s viewBox is the unit
        m = multiply(m, step)
    return m


def bbox(el: Any) -> tuple[float, float, float, float] | None:
    """(x, y, w, h) of a shape in user units, or None when it has no geometry here."""
    tag = el.tag.replace(SVG_NS, "")
    f = lambda name: float(el.get(name) or 0)  # noqa: E731
    if tag == "rect":
        pts = [(f("x"), f("y")), (f("x") + f("width"), f("y")), (f("x"), f("y") + f("height")),
               (f("x") + f("width"), f("y") + f("height"))]
    elif tag in ("circle", "ellipse"):
        rx = f("r") if tag == "circle" else f("rx")
        ry = f("r") if tag == "circle" else f("ry")
        pts = [(f("cx") + rx * math.cos(a * math.pi / 18), f("cy") + ry * math.sin(a * math.pi / 18)) for a in range(36)]
    elif tag == "path":
        pts = path_points(el.get("d") or "")
    elif tag in ("polygon", "polyline"):
        v = _numbers(el.get("points") or "")
        pts = list(zip(v[::2], v[1::2]))
    elif tag == "line":
        pts = [(f("x1"), f("y1")), (f("x2"), f("y2"))]
    else:
        return None
    if not pts:
        return None
    m = ctm(el)
    moved = [apply(m, x, y) for x, y in pts]
    xs, ys = [p[0] for p in moved], [p[1] for p in moved]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def _root(ctx: EvalContext, name: str) -> Any:
    from lxml import etree

    return load(ctx, name, "svg", lambda p: etree.parse(str(p), etree.XMLParser(resolve_entities=False)).getroot())


def shapes(root: Any) -> Iterator[Any]:
    """The drawn elements (not inside defs, metadata or named views)."""
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag.replace(SVG_NS, "") not in SHAPES or not el.tag.startswith(SVG_NS):
            continue
        if any(a.tag in (SVG_NS + "defs", SVG_NS + "clipPath", SVG_NS + "mask", SVG_NS + "text") for a in el.iterancestors()):
            continue
        yield el


def _describe(el: Any) -> str:
    box = bbox(el)
    shown = f"[{box[0]:.1f}, {box[1]:.1f}, {box[2]:.1f}, {box[3]:.1f}]" if box else "no box"
    return f"<{el.tag.replace(SVG_NS, '')} id={el.get('id')!r} {shown} fill {colour(style(el, 'fill'))}>"


def _matches(el: Any, spec: Mapping[str, Any], tolerance: float) -> str | None:
    """None when ``el`` is what ``spec`` asks for, else what differs."""
    if "id" in spec and el.get("id") != spec["id"]:
        return "another id"
    tag = el.tag.replace(SVG_NS, "")
    if "tag" in spec and tag not in ([spec["tag"]] if isinstance(spec["tag"], str) else spec["tag"]):
        return f"a <{tag}>, not <{spec['tag']}>"
    if "bbox" in spec:
        box = bbox(el)
        if box is None or any(abs(a - float(b)) > tolerance for a, b in zip(box, spec["bbox"])):
            return f"box {box and [round(v, 1) for v in box]}, expected {spec['bbox']}"
    for prop in ("fill", "stroke"):
        if prop in spec:
            got = colour(style(el, prop))
            if got != colour(spec[prop]):
                return f"{prop} {got}, expected {spec[prop]}"
    if "stroke_width" in spec:
        try:
            width = _length(style(el, "stroke-width") or "1")
        except ValueError:
            return f"stroke-width {style(el, 'stroke-width')!r}"
        m = ctm(el)
        width *= math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        if colour(style(el, "stroke")) is None:
            return "no stroke paint"
        if abs(width - float(spec["stroke_width"])) > 0.05 * float(spec["stroke_width"]) + 0.01:
            return f"stroke width {width:g}, expected {spec['stroke_width']}"
    return None


def _spec_label(spec: Mapping[str, Any]) -> str:
    what = f"#{spec['id']}" if "id" in spec else f"a {spec.get('tag', 'shape')}"
    parts = [f"{k} {spec[k]}" for k in ("bbox", "fill", "stroke", "stroke_width") if k in spec]
    return f"{what} with {', '.join(parts)}" if parts else what


def svg_shapes_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    tolerance = float(truth.get("tolerance", 1.0))
    checks: list[Check] = []
    for spec in truth.get("shapes") or []:
        def check(spec: Mapping[str, Any] = spec) -> None:
            found = list(shapes(_root(ctx, name)))
            candidates = [el for el in found if "id" not in spec or el.get("id") == spec["id"]]
            assert candidates, f"{name}: no element {spec.get('id')!r} (shapes: {[_describe(e) for e in found]})"
            reasons = [_matches(el, spec, tolerance) for el in candidates]
            assert None in reasons, (f"{name}: no shape is {_spec_label(spec)}: " + "; ".join(
                f"{_describe(el)}: {why}" for el, why in zip(candidates, reasons))[:900])
        checks.append((f"{name} {_spec_label(spec)}", check))
    if truth.get("absent"):
        def check_absent() -> None:
            ids = {el.get("id") for el in _root(ctx, name).iter() if isinstance(el.tag, str)}
            left = [i for i in truth["absent"] if i in ids]
            assert not left, f"{name}: still present: {left}"
        checks.append((f"{name} no longer has {', '.join(truth['absent'])}", check_absent))
    for tag, count in sorted((truth.get("count") or {}).items()):
        def check_count(tag: str = tag, count: int = count) -> None:
            found = [el for el in shapes(_root(ctx, name)) if el.tag == SVG_NS + tag]
            assert len(found) == count, f"{name}: {len(found)} <{tag}> shape(s), expected {count}"
        checks.append((f"{name} {count} {tag}", check_count))
    return checks


def _layer(el: Any) -> bool:
    return el.tag == SVG_NS + "g" and el.get(f"{INKSCAPE_NS}groupmode") == "layer"


def svg_structure_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    checks: list[Check] = []
    if truth.get("group"):
        wanted, outside = list(truth["group"]), list(truth.get("outside") or [])

        def check_group() -> None:
            root = _root(ctx, name)
            groups = [g for g in root.iter(SVG_NS + "g") if not _layer(g)]
            held = [{el.get("id") for el in g.iter() if isinstance(el.tag, str)} for g in groups]
            ok = [h for h in held if set(wanted) <= h and not set(outside) & h]
            assert ok, (f"{name}: no group holds {wanted} without {outside}; groups hold "
                        f"{[sorted(i for i in h if i) for h in held] or 'nothing (no group)'}")
        checks.append((f"{name} one group of {', '.join(wanted)}", check_group))
    for label, ids in sorted((truth.get("layers") or {}).items()):
        def check_layer(label: str = label, ids: Sequence[str] = ids) -> None:
            root = _root(ctx, name)
            layers = {g.get(f"{INKSCAPE_NS}label"): g for g in root.iter(SVG_NS + "g") if _layer(g)}
            assert label in layers, f"{name}: no layer {label!r} (layers: {list(layers)})"
            inside = {el.get("id") for el in layers[label].iter() if isinstance(el.tag, str)}
            missing = [i for i in ids if i not in inside]
            assert not missing, f"{name}: layer {label!r} does not hold {missing}"
        checks.append((f"{name} layer {label!r}" + (f" holds {', '.join(ids)}" if ids else ""), check_layer))
    if truth.get("order"):
        order = list(truth["order"])

        def check_order() -> None:
            drawn = [el.get("id") for el in _root(ctx, name).iter() if isinstance(el.tag, str) and el.get("id") in order]
            assert drawn == order, f"{name}: drawing order {drawn}, expected {order} (first = bottom)"
        checks.append((f"{name} drawing order {', '.join(order)}", check_order))
    return checks


def svg_document_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    checks: list[Check] = []
    for key in ("width", "height"):
        if key in truth:
            def check(key: str = key) -> None:
                raw = _root(ctx, name).get(key)
                try:
                    value = _length(raw)
                except ValueError:
                    raise AssertionError(f"{name}: document {key} {raw!r} is not a length") from None
                assert abs(value - float(truth[key])) <= 0.5, f"{name}: document {key} {raw!r}, expected {truth[key]} px"
            checks.append((f"{name} document {key} {truth[key]} px", check))
    if truth.get("keeps"):
        def check_keeps() -> None:
            ids = {el.get("id") for el in _root(ctx, name).iter() if isinstance(el.tag, str)}
            lost = [i for i in truth["keeps"] if i not in ids]
            assert not lost, f"{name}: shapes lost: {lost}"
        checks.append((f"{name} keeps its shapes", check_keeps))
    return checks


def _font_size(el: Any) -> float | None:
    node = el
    while node is not None and isinstance(node.tag, str):
        raw = style(node, "font-size", inherit=False)
        if raw:
            try:
                return _length(raw)
            except ValueError:
                return None
        node = node.getparent()
    return None


def svg_styled_text_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    checks: list[Check] = []
    for spec in truth.get("texts") or []:
        def check(spec: Mapping[str, Any] = spec) -> None:
            root = _root(ctx, name)
            found = []
            for text in root.iter(SVG_NS + "text"):
                shown = re.sub(r"\s+", " ", "".join(text.itertext())).strip()
                carriers = [t for t in text.iter() if isinstance(t.tag, str) and (t.text or "").strip()] or [text]
                sizes = {_font_size(t) for t in carriers}
                size = sizes.pop() if len(sizes) == 1 else None
                fill = colour(style(carriers[0], "fill"))
                found.append(f"{shown!r} size {size} fill {fill}")
                if shown != spec["text"]:
                    continue
                if "font_size" in spec and (size is None or abs(size - float(spec["font_size"])) > 0.05):
                    continue
                if "fill" in spec and fill != colour(spec["fill"]):
                    continue
                return
            raise AssertionError(f"{name}: no text {_spec_text(spec)}; texts: {found or 'none'}")
        checks.append((f"{name} text {_spec_text(spec)}", check))
    return checks


def _spec_text(spec: Mapping[str, Any]) -> str:
    extra = "".join(f", {k.replace('_', ' ')} {spec[k]}" for k in ("font_size", "fill") if k in spec)
    return f"{spec['text']!r}{extra}"


def svg_png_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "png")
    checks: list[Check] = []

    def image() -> Any:
        from PIL import Image

        def read(path: Any) -> Any:
            with Image.open(path) as im:
                im.load()
                rgba = im.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            return Image.alpha_composite(white, rgba).convert("RGB")
        return load(ctx, name, "png", read)

    if "size" in truth:
        w, h = (int(v) for v in truth["size"])

        def check_size() -> None:
            im = image()
            assert im.size == (w, h), f"{name}: {im.width}x{im.height} px, expected {w}x{h}"
        checks.append((f"{name} is {w}x{h} px", check_size))
    for spec in truth.get("colours") or []:
        def check_colour(spec: Mapping[str, Any] = spec) -> None:
            from .imaging_common import pixels

            full = image()
            im = full.resize((200, max(1, 200 * full.height // max(1, full.width))))
            want = colour(spec["rgb"]) or "#000000"
            r, g, b = (int(want[i:i + 2], 16) for i in (1, 3, 5))
            data = pixels(im)
            share = sum(1 for p in data if abs(p[0] - r) <= 24 and abs(p[1] - g) <= 24 and abs(p[2] - b) <= 24) / len(data)
            assert share >= float(spec["min_fraction"]), (
                f"{name}: {share:.1%} of the picture is {want}, expected at least {float(spec['min_fraction']):.0%}")
        checks.append((f"{name} shows {spec['rgb']}", check_colour))
    return checks


KINDS = {"svg_shapes": svg_shapes_checks, "svg_structure": svg_structure_checks,
         "svg_document": svg_document_checks, "svg_styled_text": svg_styled_text_checks, "svg_png": svg_png_checks}
