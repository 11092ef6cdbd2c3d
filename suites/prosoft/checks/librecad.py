"""LibreCAD evaluators: the saved 2D drawing (DXF), read with ezdxf on the host.

Kind ``dxf``; ground truth keys (coordinates in drawing units, millimetres in the start files):

- ``artifact`` (default ``drawing``); ``tolerance`` (absolute, default 0.01) for every coordinate and length
- ``version``: the DXF version the file must be written in (``AC1009`` is R12, ``AC1015`` R2000, ...)
- ``layers`` {name: {} or {"color": ACI number}}: the layer exists (with that colour)
- ``lines`` [{"start": [x, y], "end": [x, y], "layer": name}]: a LINE joins the two points (either way round)
- ``circles`` [{"center": [x, y], "radius": r, "layer": name}]
- ``rectangles`` [{"corners": [[x1, y1], [x2, y2]], "layer": name}]: an axis-parallel rectangle with these
  opposite corners, as four LINEs or as one closed (LW)POLYLINE of four vertices
- ``texts`` [{"text": "...", "at": [x, y], "height": h, "layer": name}]: a TEXT or MTEXT (``at``, ``height``
  optional)
- ``dimensions`` [{"measurement": value, "kind": "linear" | "aligned" | "radial" | "diameter", "layer": name}]:
  a DIMENSION whose measured value (its stored value, else computed from its definition points) is the value
- ``absent`` {"lines": [...], "circles": [...], "texts": [...]}: no entity like these is left (moved or erased)
- ``keep`` {"lines": [...], "circles": [...], "texts": [...]}: entities of the start file the task did not ask to
  touch are still there, unchanged
- ``count`` {"LINE": n, ...}: exactly n entities of that DXF type in model space

Every item is its own milestone, except ``keep`` and ``absent`` (one each). A file that ezdxf cannot read as
DXF fails its milestones (the agent saved something else), it is not an evaluator error.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from pytest_cua import EvalContext

from .engineering_common import Check, artifact

Point = Sequence[float]


def read_dxf(path: Path) -> Any:
    """The ezdxf document of ``path``; an AssertionError (a missed milestone) when it is no DXF."""
    import ezdxf

    try:
        return ezdxf.readfile(str(path))
    except Exception as exc:  # noqa: BLE001 - ezdxf raises IOError, DXFStructureError, UnicodeError, ...
        raise AssertionError(f"{path.name}: not a DXF drawing ezdxf can read ({type(exc).__name__}: {exc})") from None


def _near(a: Point, b: Point, tol: float) -> bool:
    return math.dist((float(a[0]), float(a[1])), (float(b[0]), float(b[1]))) <= tol


def _xy(vec: Any) -> tuple[float, float]:
    return float(vec[0]), float(vec[1])


def _layer_ok(entity: Any, spec: Mapping[str, Any]) -> bool:
    return "layer" not in spec or str(entity.dxf.layer).lower() == str(spec["layer"]).lower()


def _entities(doc: Any, *types: str) -> list[Any]:
    return [e for e in doc.modelspace() if e.dxftype() in types]


def _line_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    s, t = _xy(e.dxf.start), _xy(e.dxf.end)
    a, b = spec["start"], spec["end"]
    return _layer_ok(e, spec) and ((_near(s, a, tol) and _near(t, b, tol)) or (_near(s, b, tol) and _near(t, a, tol)))


def _circle_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    return (_layer_ok(e, spec) and _near(_xy(e.dxf.center), spec["center"], tol)
            and abs(float(e.dxf.radius) - float(spec["radius"])) <= tol)


def _text_value(e: Any) -> str:
    return str(e.plain_text() if e.dxftype() == "MTEXT" else e.dxf.text).strip()


def _text_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    if _text_value(e) != str(spec["text"]).strip() or not _layer_ok(e, spec):
        return False
    if "height" in spec and abs(float(e.dxf.char_height if e.dxftype() == "MTEXT" else e.dxf.height)
                                - float(spec["height"])) > tol:
        return False
    if "at" in spec:
        points = [_xy(e.dxf.insert)]
        if e.dxftype() == "TEXT" and e.dxf.hasattr("align_point"):
            points.append(_xy(e.dxf.align_point))
        return any(_near(p, spec["at"], tol) for p in points)
    return True


MATCHERS: dict[str, tuple[tuple[str, ...], Callable[[Any, Mapping[str, Any], float], bool]]] = {
    "lines": (("LINE",), _line_matches),
    "circles": (("CIRCLE",), _circle_matches),
    "texts": (("TEXT", "MTEXT"), _text_matches),
}


def _describe(group: str, spec: Mapping[str, Any]) -> str:
    if group == "lines":
        what = f"line {list(spec['start'])} -> {list(spec['end'])}"
    elif group == "circles":
        what = f"circle at {list(spec['center'])} r {spec['radius']}"
    elif group == "texts":
        what = f"text {spec['text']!r}" + (f" at {list(spec['at'])}" if "at" in spec else "")
    elif group == "rectangles":
        what = f"rectangle {list(spec['corners'][0])}-{list(spec['corners'][1])}"
    else:
        what = f"{spec.get('kind', 'a')} dimension of {spec['measurement']}"
    return what + (f" on layer {spec['layer']}" if "layer" in spec else "")


def _nearby(doc: Any, group: str) -> str:
    """What the drawing holds of that kind (for the failure message)."""
    if group == "lines":
        found = [f"{[round(v, 2) for v in _xy(e.dxf.start)]}->{[round(v, 2) for v in _xy(e.dxf.end)]} "
                 f"({e.dxf.layer})" for e in _entities(doc, "LINE")]
    elif group == "circles":
        found = [f"c{[round(v, 2) for v in _xy(e.dxf.center)]} r{round(float(e.dxf.radius), 3)} ({e.dxf.layer})"
                 for e in _entities(doc, "CIRCLE")]
    elif group == "texts":
        found = [f"{_text_value(e)!r} at {[round(v, 2) for v in _xy(e.dxf.insert)]} ({e.dxf.layer})"
                 for e in _entities(doc, "TEXT", "MTEXT")]
    elif group == "dimensions":
        found = [f"{_dimension_kind(e)} {round(_measurement(e), 3)} ({e.dxf.layer})" for e in _entities(doc, "DIMENSION")]
    else:
        found = []
    return "; ".join(found[:12]) or "none"


def _find(doc: Any, group: str, spec: Mapping[str, Any], tol: float) -> bool:
    if group == "rectangles":
        return _has_rectangle(doc, spec, tol)
    if group == "dimensions":
        return any(_dimension_matches(e, spec, tol) for e in _entities(doc, "DIMENSION"))
    types, matches = MATCHERS[group]
    return any(matches(e, spec, tol) for e in _entities(doc, *types))


def _has_rectangle(doc: Any, spec: Mapping[str, Any], tol: float) -> bool:
    (x1, y1), (x2, y2) = spec["corners"]
    corners = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]
    edges = [{"start": corners[i], "end": corners[(i + 1) % 4], **({"layer": spec["layer"]} if "layer" in spec else {})}
             for i in range(4)]
    lines = _entities(doc, "LINE")
    if all(any(_line_matches(e, edge, tol) for e in lines) for edge in edges):
        return True
    for poly in _entities(doc, "LWPOLYLINE", "POLYLINE"):
        if not _layer_ok(poly, spec):
            continue
        points = ([_xy(p) for p in poly.get_points("xy")] if poly.dxftype() == "LWPOLYLINE"
                  else [_xy(v.dxf.location) for v in poly.vertices])
        if len(points) == 5 and _near(points[0], points[-1], tol):
            points = points[:4]
        closed = bool(poly.closed if poly.dxftype() == "LWPOLYLINE" else poly.is_closed)
        if len(points) == 4 and (closed or False) and all(any(_near(p, c, tol) for p in points) for c in corners):
            return True
    return False


DIMENSION_KINDS = {0: "linear", 1: "aligned", 2: "angular", 3: "diameter", 4: "radial", 5: "angular", 6: "ordinate"}


def _dimension_kind(e: Any) -> str:
    return DIMENSION_KINDS.get(int(e.dxf.dimtype) & 0x0F, "other")


def _measurement(e: Any) -> float:
    """The value a DIMENSION shows: its stored measurement (group 42) when written, else from its points."""
    if e.dxf.hasattr("actual_measurement") and float(e.dxf.actual_measurement) > 0:
        return float(e.dxf.actual_measurement)
    kind = _dimension_kind(e)
    p2, p3 = _xy(e.dxf.get("defpoint2", (0, 0))), _xy(e.dxf.get("defpoint3", (0, 0)))
    if kind == "linear":
        angle = math.radians(float(e.dxf.get("angle", 0.0)))
        return abs((p3[0] - p2[0]) * math.cos(angle) + (p3[1] - p2[1]) * math.sin(angle))
    if kind == "aligned":
        return math.dist(p2, p3)
    if kind in ("radial", "diameter"):
        return math.dist(_xy(e.dxf.defpoint), _xy(e.dxf.get("defpoint4", (0, 0))))
    return float("nan")


def _dimension_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    if "kind" in spec and _dimension_kind(e) != spec["kind"]:
        return False
    return _layer_ok(e, spec) and abs(_measurement(e) - float(spec["measurement"])) <= tol


def _groups(spec: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any]]]:
    for group in ("lines", "circles", "texts"):
        for item in spec.get(group) or []:
            yield group, item


def dxf_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    tol = float(truth.get("tolerance", 0.01))
    checks: list[Check] = []
    cache: dict[str, Any] = {}

    def doc() -> Any:
        if "doc" not in cache:
            cache["doc"] = read_dxf(artifact(ctx, name))
        return cache["doc"]

    if truth.get("version"):
        def check_version() -> None:
            actual = doc().dxfversion
            assert actual == truth["version"], f"{name}: DXF version {actual}, expected {truth['version']}"
        checks.append((f"{name} saved as DXF {truth['version']}", check_version))
    for layer, spec in sorted((truth.get("layers") or {}).items()):
        def check_layer(layer: str = layer, spec: Mapping[str, Any] = spec or {}) -> None:
            layers = {str(item.dxf.name).lower(): item for item in doc().layers}
            assert layer.lower() in layers, f"{name}: no layer {layer!r} (layers: {', '.join(sorted(layers))})"
            if "color" in spec:
                color = abs(int(layers[layer.lower()].dxf.color))
                assert color == int(spec["color"]), f"{name}: layer {layer!r} has colour {color}, expected {spec['color']}"
        checks.append((f"{name} layer {layer}" + (f" colour {spec['color']}" if spec and "color" in spec else ""),
                       check_layer))
    for group in ("lines", "circles", "rectangles", "texts", "dimensions"):
        for spec in truth.get(group) or []:
            def check_item(group: str = group, spec: Mapping[str, Any] = spec) -> None:
                assert _find(doc(), group, spec, tol), (
                    f"{name}: no {_describe(group, spec)} (found: {_nearby(doc(), group)})")
            checks.append((f"{name} has {_describe(group, spec)}", check_item))
    if truth.get("absent"):
        def check_absent() -> None:
            left = [_describe(g, s) for g, s in _groups(truth["absent"]) if _find(doc(), g, s, tol)]
            assert not left, f"{name}: still there: {'; '.join(left)}"
        checks.append((f"{name} no longer has the removed entities", check_absent))
    if truth.get("keep"):
        def check_keep() -> None:
            lost = [_describe(g, s) for g, s in _groups(truth["keep"]) if not _find(doc(), g, s, tol)]
            assert not lost, f"{name}: entities the task did not ask to change are gone or changed: {'; '.join(lost)}"
        checks.append((f"{name} keeps the other entities", check_keep))
    for dxftype, count in sorted((truth.get("count") or {}).items()):
        def check_count(dxftype: str = dxftype, count: int = count) -> None:
            actual = len(_entities(doc(), dxftype))
            assert actual == int(count), f"{name}: {actual} {dxftype} entities, expected {count}"
        checks.append((f"{name} {count} {dxftype}", check_count))
    return checks


KINDS = {"dxf": dxf_checks}
