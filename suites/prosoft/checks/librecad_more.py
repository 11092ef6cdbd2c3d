"""More LibreCAD evaluators: the drafting functions beyond ``librecad.py``'s lines, circles, rectangles, texts,
dimensions and layers, read from the saved DXF with ezdxf on the host.

Kind ``dxf_more``: every key of ``dxf`` (``librecad.py``: ``artifact``, ``tolerance``, ``version``, ``layers``,
``lines``, ``circles``, ``rectangles``, ``texts``, ``dimensions``, ``count``) and, one milestone per item:

- ``arcs`` [{"center": [x, y], "radius": r, "start_angle": deg, "end_angle": deg, "layer": name}]: an ARC with
  that centre and radius running counter-clockwise from the start to the end angle (as DXF stores arcs; angles
  within ``angle_tolerance`` degrees, default 0.5)
- ``polylines`` [{"points": [[x, y], ...], "closed": bool, "layer": name}]: an LWPOLYLINE (or POLYLINE) with
  exactly these vertices, in this order or the reverse one (a closed one from any vertex), straight segments
  (no bulge), closed or open as asked (a closed outline whose last vertex repeats its first counts as closed)
- ``hatches`` [{"pattern": "ANSI31", "solid": bool, "boundary": [[x, y], ...], "scale": s, "layer": name}]: a
  HATCH whose outer boundary has exactly these corners (any order of traversal), with that pattern name
  (case aside) or solid fill, and that pattern scale (``scale`` optional, relative tolerance 1 %)
- ``inserts`` [{"block": name, "at": [x, y], "rotation": deg, "scale": s, "layer": name}]: an INSERT of that
  block at that point (``rotation`` and ``scale``, the x and y factors, optional)
- ``blocks`` {name: {"types": {"LINE": n, ...}}}: a block of that name is defined, holding at least those
  entities
- ``layer_state`` {name: {"hidden": bool, "locked": bool}}: the layer's visibility (hidden: frozen or switched
  off, as LibreCAD writes a hidden layer) and lock, one milestone per layer
- ``absent`` and ``keep`` as in ``dxf``, over every group above (``lines``, ``circles``, ``texts``, ``arcs``,
  ``polylines``, ``hatches``, ``inserts``): one milestone each

A file that is no DXF fails every milestone naming the artifact (``librecad.read_dxf``), never an error.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from pytest_cua import EvalContext

from .engineering_common import Check, artifact
from .librecad import _describe as _describe_base
from .librecad import _entities, _find as _find_base, _layer_ok, _near, _nearby as _nearby_base, _xy
from .librecad import dxf_checks, read_dxf

NEW_GROUPS = ("arcs", "polylines", "hatches", "inserts")
BASE_GROUPS = ("lines", "circles", "texts")


def _angle_near(a: float, b: float, tol: float) -> bool:
    return abs((float(a) - float(b) + 180.0) % 360.0 - 180.0) <= tol


def _arc_matches(e: Any, spec: Mapping[str, Any], tol: float, angle_tol: float) -> bool:
    return (_layer_ok(e, spec) and _near(_xy(e.dxf.center), spec["center"], tol)
            and abs(float(e.dxf.radius) - float(spec["radius"])) <= tol
            and _angle_near(e.dxf.start_angle, spec["start_angle"], angle_tol)
            and _angle_near(e.dxf.end_angle, spec["end_angle"], angle_tol))


def polyline_points(e: Any) -> tuple[list[tuple[float, float]], bool, bool]:
    """(vertices, closed, has an arc segment) of an LWPOLYLINE or POLYLINE; a repeated closing vertex is dropped
    and makes it closed."""
    if e.dxftype() == "LWPOLYLINE":
        raw = list(e.get_points("xyb"))
        points = [(float(x), float(y)) for x, y, _ in raw]
        bulged = any(abs(float(b)) > 1e-9 for _, _, b in raw)
        closed = bool(e.closed)
    else:
        points = [_xy(v.dxf.location) for v in e.vertices]
        bulged = any(abs(float(v.dxf.get("bulge", 0.0))) > 1e-9 for v in e.vertices)
        closed = bool(e.is_closed)
    if len(points) > 2 and math.dist(points[0], points[-1]) <= 1e-6:
        points, closed = points[:-1], True
    return points, closed, bulged


def _same_sequence(points: Sequence[Sequence[float]], want: Sequence[Sequence[float]], closed: bool,
                   tol: float) -> bool:
    if len(points) != len(want):
        return False
    orders = [list(want), list(reversed(want))]
    shifts = range(len(want)) if closed else [0]
    for order in orders:
        for k in shifts:
            rotated = order[k:] + order[:k]
            if all(_near(p, q, tol) for p, q in zip(points, rotated)):
                return True
    return False


def _polyline_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    if not _layer_ok(e, spec):
        return False
    points, closed, bulged = polyline_points(e)
    if bulged or closed != bool(spec.get("closed", False)):
        return False
    return _same_sequence(points, spec["points"], closed, tol)


def hatch_boundary(e: Any) -> list[tuple[float, float]]:
    """The corners of a HATCH's outer boundary path (the first path flagged external, else the first path):
    the vertices of a polyline path, the start points of an edge path's line edges."""
    paths = list(e.paths)
    if not paths:
        return []
    outer = next((p for p in paths if int(getattr(p, "path_type_flags", 0)) & 1), paths[0])
    if hasattr(outer, "vertices"):
        points = [(float(v[0]), float(v[1])) for v in outer.vertices]
    else:
        points = [_xy(edge.start) for edge in outer.edges if hasattr(edge, "start")]
    if len(points) > 2 and math.dist(points[0], points[-1]) <= 1e-6:
        points = points[:-1]
    return points


def _hatch_matches(e: Any, spec: Mapping[str, Any], tol: float) -> bool:
    if not _layer_ok(e, spec):
        return False
    solid = bool(int(e.dxf.solid_fill))
    if "solid" in spec and solid != bool(spec["solid"]):
        return False
    if "pattern" in spec and str(e.dxf.pattern_name).upper() != str(spec["pattern"]).upper():
        return False
    if "scale" in spec and not solid:
        scale = float(e.dxf.get("pattern_scale", 1.0))
        if not math.isclose(scale, float(spec["scale"]), rel_tol=0.01):
            return False
    if "boundary" in spec:
        corners = hatch_boundary(e)
        want = [tuple(p) for p in spec["boundary"]]
        return len(corners) == len(want) and all(any(_near(c, w, tol) for c in corners) for w in want)
    return True


def _insert_matches(e: Any, spec: Mapping[str, Any], tol: float, angle_tol: float) -> bool:
    if str(e.dxf.name).lower() != str(spec["block"]).lower() or not _layer_ok(e, spec):
        return False
    if "at" in spec and not _near(_xy(e.dxf.insert), spec["at"], tol):
        return False
    if "rotation" in spec and not _angle_near(e.dxf.get("rotation", 0.0), spec["rotation"], angle_tol):
        return False
    if "scale" in spec:
        factors = (float(e.dxf.get("xscale", 1.0)), float(e.dxf.get("yscale", 1.0)))
        if any(abs(f - float(spec["scale"])) > 1e-6 + 1e-3 * abs(float(spec["scale"])) for f in factors):
            return False
    return True


def _describe(group: str, spec: Mapping[str, Any]) -> str:
    if group in BASE_GROUPS or group in ("rectangles", "dimensions"):
        return _describe_base(group, spec)
    if group == "arcs":
        what = (f"arc at {list(spec['center'])} r {spec['radius']} from {spec['start_angle']} to "
                f"{spec['end_angle']} deg")
    elif group == "polylines":
        what = f"{'closed' if spec.get('closed') else 'open'} polyline {[list(p) for p in spec['points']]}"
    elif group == "hatches":
        fill = "solid" if spec.get("solid") else f"pattern {spec.get('pattern', 'any')}"
        what = f"hatch ({fill}" + (f", scale {spec['scale']}" if "scale" in spec else "") + ")"
        what += f" inside {[list(p) for p in spec['boundary']]}" if "boundary" in spec else ""
    else:
        what = f"insert of block {spec['block']}" + (f" at {list(spec['at'])}" if "at" in spec else "")
        what += f" rotated {spec['rotation']} deg" if "rotation" in spec else ""
        what += f" scaled {spec['scale']}" if "scale" in spec else ""
    return what + (f" on layer {spec['layer']}" if "layer" in spec else "")


def _r(values: Sequence[float]) -> list[float]:
    return [round(float(v), 2) for v in values]


def _nearby(doc: Any, group: str) -> str:
    if group in BASE_GROUPS:
        return _nearby_base(doc, group)
    if group == "arcs":
        found = [f"c{_r(_xy(e.dxf.center))} r{round(float(e.dxf.radius), 3)} {round(float(e.dxf.start_angle), 1)}"
                 f"->{round(float(e.dxf.end_angle), 1)} ({e.dxf.layer})" for e in _entities(doc, "ARC")]
    elif group == "polylines":
        found = []
        for e in _entities(doc, "LWPOLYLINE", "POLYLINE"):
            points, closed, bulged = polyline_points(e)
            found.append(f"{'closed' if closed else 'open'}{' with arcs' if bulged else ''} "
                         f"{[_r(p) for p in points]} ({e.dxf.layer})")
    elif group == "hatches":
        found = [f"{'solid' if int(e.dxf.solid_fill) else e.dxf.pattern_name} scale "
                 f"{round(float(e.dxf.get('pattern_scale', 1.0)), 3)} {[_r(p) for p in hatch_boundary(e)]} "
                 f"({e.dxf.layer})" for e in _entities(doc, "HATCH")]
    else:
        found = [f"{e.dxf.name} at {_r(_xy(e.dxf.insert))} rot {round(float(e.dxf.get('rotation', 0.0)), 1)} "
                 f"scale {round(float(e.dxf.get('xscale', 1.0)), 3)} ({e.dxf.layer})" for e in _entities(doc, "INSERT")]
    return "; ".join(found[:12]) or "none"


def find(doc: Any, group: str, spec: Mapping[str, Any], tol: float, angle_tol: float = 0.5) -> bool:
    """Some entity of the drawing matches ``spec`` of ``group`` (any group of ``dxf`` or of this kind)."""
    if group == "arcs":
        return any(_arc_matches(e, spec, tol, angle_tol) for e in _entities(doc, "ARC"))
    if group == "polylines":
        return any(_polyline_matches(e, spec, tol) for e in _entities(doc, "LWPOLYLINE", "POLYLINE"))
    if group == "hatches":
        return any(_hatch_matches(e, spec, tol) for e in _entities(doc, "HATCH"))
    if group == "inserts":
        return any(_insert_matches(e, spec, tol, angle_tol) for e in _entities(doc, "INSERT"))
    return bool(_find_base(doc, group, spec, tol))


def _items(spec: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(group, item) for group in (*BASE_GROUPS, *NEW_GROUPS) for item in spec.get(group) or []]


def _layer(doc: Any, name: str, label: str) -> Any:
    layers = {str(item.dxf.name).lower(): item for item in doc.layers}
    assert name.lower() in layers, f"{label}: no layer {name!r} (layers: {', '.join(sorted(layers))})"
    return layers[name.lower()]


def dxf_more_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    tol = float(truth.get("tolerance", 0.01))
    angle_tol = float(truth.get("angle_tolerance", 0.5))
    base = {k: v for k, v in truth.items() if k not in ("keep", "absent", "template", *NEW_GROUPS, "blocks",
                                                        "layer_state", "angle_tolerance")}
    checks: list[Check] = dxf_checks(ctx, base) if set(base) - {"artifact", "tolerance"} else []
    cache: dict[str, Any] = {}

    def doc() -> Any:
        if "doc" not in cache:
            cache["doc"] = read_dxf(artifact(ctx, name))
        return cache["doc"]

    for group in NEW_GROUPS:
        for spec in truth.get(group) or []:
            def check_item(group: str = group, spec: Mapping[str, Any] = spec) -> None:
                assert find(doc(), group, spec, tol, angle_tol), (
                    f"{name}: no {_describe(group, spec)} (found: {_nearby(doc(), group)})")
            checks.append((f"{name} has {_describe(group, spec)}", check_item))
    for block, spec in sorted((truth.get("blocks") or {}).items()):
        def check_block(block: str = block, spec: Mapping[str, Any] = spec or {}) -> None:
            blocks = {str(b.name).lower(): b for b in doc().blocks if not str(b.name).startswith("*")}
            assert block.lower() in blocks, f"{name}: no block {block!r} (blocks: {', '.join(sorted(blocks)) or 'none'})"
            held = [e.dxftype() for e in blocks[block.lower()]]
            short = {t: n for t, n in (spec.get("types") or {}).items() if held.count(t) < int(n)}
            assert not short, f"{name}: block {block!r} holds {sorted(held)}, expected at least {short}"
        checks.append((f"{name} defines block {block}", check_block))
    for layer, state in sorted((truth.get("layer_state") or {}).items()):
        def check_state(layer: str = layer, state: Mapping[str, Any] = state) -> None:
            item = _layer(doc(), layer, name)
            actual = {"hidden": bool(item.is_frozen() or item.is_off()), "locked": bool(item.is_locked())}
            wrong = [f"{k} {actual[k]} (expected {bool(v)})" for k, v in sorted(state.items()) if actual[k] != bool(v)]
            assert not wrong, f"{name}: layer {layer!r}: {', '.join(wrong)}"
        what = ", ".join(f"{'' if v else 'not '}{k}" for k, v in sorted(state.items()))
        checks.append((f"{name} layer {layer} {what}", check_state))
    if truth.get("absent"):
        def check_absent() -> None:
            left = [_describe(g, s) for g, s in _items(truth["absent"]) if find(doc(), g, s, tol, angle_tol)]
            assert not left, f"{name}: still there: {'; '.join(left)}"
        checks.append((f"{name} no longer has the removed entities", check_absent))
    if truth.get("keep"):
        def check_keep() -> None:
            lost = [_describe(g, s) for g, s in _items(truth["keep"]) if not find(doc(), g, s, tol, angle_tol)]
            assert not lost, f"{name}: entities the task did not ask to change are gone or changed: {'; '.join(lost)}"
        checks.append((f"{name} keeps the other entities", check_keep))
    if not checks:
        raise ValueError("dxf_more: the ground truth asks for no checks")
    return checks


KINDS = {"dxf_more": dxf_more_checks}
