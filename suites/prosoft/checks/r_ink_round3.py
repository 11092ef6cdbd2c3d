"""Inkscape evaluators for the boolean path operations and clones (tasks/r_ink_round3.json), next to
``inkscape_more.py``'s kinds, whose geometry (transforms, path points, colours) they reuse.

Ground-truth keys, by kind (``artifact`` default ``drawing``; ``tolerance`` in user units, default 1):

- ``svg_path``: ``paths`` [{``bbox`` [x, y, w, h], ``area`` (the area the outline encloses, user units
  squared, within 1%), ``subpaths`` (how many closed outlines the one path holds: a union is one, a combination
  of two shapes two), ``fill`` "#rrggbb"}]: one milestone per spec, met by some ``<path>``; plus
  ``svg_shapes``' ``absent`` and ``count``. The area is the outline's polygon of end points (exact for the
  straight edges of rectangles; curves count by their end points only).
- ``svg_clone``: ``clones`` [{``of`` (the id the clone shows), ``bbox`` [x, y, w, h] where it shows it,
  ``mirrored`` (true: flipped, its transform's determinant negative; false: not)}]: one milestone per spec, met
  by some ``<use>``; ``keeps`` {id: [x, y, w, h]} (the originals, unmoved).

A drawing that is not SVG fails with a message saying what the file is.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check
from ..namespaces import SVG_NS
from .inkscape_more import (_numbers, _root, apply, bbox, colour, ctm, multiply, parse_transform, shapes, style,
                            svg_shapes_checks)

XLINK = "{http://www.w3.org/1999/xlink}href"
ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


def outlines(d: str) -> list[list[tuple[float, float]]]:
    """The subpaths of a path's ``d``, each as the list of its end points (absolute)."""
    out: list[list[tuple[float, float]]] = []
    x = y = sx = sy = 0.0
    for cmd, args in re.findall(r"([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)", d or ""):
        upper, rel = cmd.upper(), cmd.islower()
        if upper == "Z":
            x, y = sx, sy
            continue
        v, n = _numbers(args), ARGS[upper]
        for i in range(0, len(v) - n + 1, n):
            chunk = v[i:i + n]
            if upper == "H":
                x = chunk[0] + (x if rel else 0.0)
            elif upper == "V":
                y = chunk[0] + (y if rel else 0.0)
            else:
                x, y = chunk[-2] + (x if rel else 0.0), chunk[-1] + (y if rel else 0.0)
            if upper == "M" and i == 0:
                sx, sy = x, y
                out.append([])
                upper = "L"  # further pairs of a moveto are linetos
            if not out:
                out.append([])
            out[-1].append((x, y))
    return [o for o in out if len(o) > 1]


def path_area(el: Any) -> tuple[float, int]:
    """(enclosed area in user units, number of subpaths) of a ``<path>``; subpaths wound the other way (holes)
    subtract."""
    m = ctm(el)
    signed = 0.0
    subs = outlines(el.get("d") or "")
    for sub in subs:
        pts = [apply(m, px, py) for px, py in sub]
        signed += sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1])) / 2
    return abs(signed), len(subs)


def _path_label(spec: Mapping[str, Any]) -> str:
    return "a path with " + ", ".join(f"{k} {spec[k]}" for k in ("bbox", "area", "subpaths", "fill") if k in spec)


def svg_path_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    tolerance = float(truth.get("tolerance", 1.0))
    checks: list[Check] = []
    for spec in truth.get("paths") or []:
        def check(spec: Mapping[str, Any] = spec) -> None:
            found = [el for el in shapes(_root(ctx, name)) if el.tag == SVG_NS + "path"]
            seen = []
            for el in found:
                box, (area, subs) = bbox(el), path_area(el)
                fill = colour(style(el, "fill"))
                seen.append(f"<path id={el.get('id')!r} box {box and [round(v, 1) for v in box]} area {area:.0f} "
                            f"subpaths {subs} fill {fill}>")
                if "bbox" in spec and (box is None or any(abs(a - float(b)) > tolerance
                                                          for a, b in zip(box, spec["bbox"]))):
                    continue
                if "area" in spec and abs(area - float(spec["area"])) > 0.01 * float(spec["area"]) + tolerance:
                    continue
                if "subpaths" in spec and subs != int(spec["subpaths"]):
                    continue
                if "fill" in spec and fill != colour(spec["fill"]):
                    continue
                return
            raise AssertionError(f"{name}: none is {_path_label(spec)}; paths: {'; '.join(seen) or 'none'}"[:900])
        checks.append((f"{name} {_path_label(spec)}", check))
    shared = {k: truth[k] for k in ("artifact", "absent", "count", "tolerance") if k in truth}
    if "absent" in shared or "count" in shared:
        checks += svg_shapes_checks(ctx, shared)
    return checks


def _use_box(use: Any, root: Any) -> tuple[tuple[float, float, float, float] | None, float]:
    """(bbox in user units, transform determinant) of what a ``<use>`` shows (a shape, not a group)."""
    ref = (use.get(XLINK) or use.get("href") or "").lstrip("#")
    target = next((el for el in root.iter() if isinstance(el.tag, str) and el.get("id") == ref), None)
    if target is None or bbox(target) is None:
        return None, 0.0
    # the clone draws the target with the target's own transform, then the use's x/y and its ctm
    m = multiply(multiply(ctm(use), (1, 0, 0, 1, float(use.get("x") or 0), float(use.get("y") or 0))),
                 _own(target))
    x, y, w, h = _local_box(target)
    corners = [apply(m, px, py) for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)), m[0] * m[3] - m[1] * m[2]


def _own(el: Any) -> Any:
    return parse_transform(el.get("transform"))


def _local_box(el: Any) -> tuple[float, float, float, float]:
    """``el``'s box in its own coordinates (before its transform and its ancestors'): a detached copy of it
    without its transform."""
    import copy

    lone = copy.deepcopy(el)
    lone.attrib.pop("transform", None)
    box = bbox(lone)
    assert box is not None
    return box


def svg_clone_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    tolerance = float(truth.get("tolerance", 1.0))
    checks: list[Check] = []
    for spec in truth.get("clones") or []:
        def check(spec: Mapping[str, Any] = spec) -> None:
            root = _root(ctx, name)
            uses = list(root.iter(SVG_NS + "use"))
            seen = []
            for use in uses:
                ref = (use.get(XLINK) or use.get("href") or "").lstrip("#")
                box, det = _use_box(use, root)
                seen.append(f"<use of {ref!r} box {box and [round(v, 1) for v in box]}"
                            f"{' mirrored' if det < 0 else ''}>")
                if ref != spec["of"] or box is None:
                    continue
                if "bbox" in spec and any(abs(a - float(b)) > tolerance for a, b in zip(box, spec["bbox"])):
                    continue
                if "mirrored" in spec and (det < 0) != bool(spec["mirrored"]):
                    continue
                return
            raise AssertionError(f"{name}: no clone {_clone_label(spec)}; clones: {'; '.join(seen) or 'none'}")
        checks.append((f"{name} clone {_clone_label(spec)}", check))
    for ident, want in sorted((truth.get("keeps") or {}).items()):
        def check_keep(ident: str = ident, want: Any = want) -> None:
            el = next((e for e in shapes(_root(ctx, name)) if e.get("id") == ident), None)
            assert el is not None, f"{name}: the original {ident!r} is gone"
            box = bbox(el)
            assert box is not None and all(abs(a - float(b)) <= tolerance for a, b in zip(box, want)), (
                f"{name}: the original {ident!r} is at {box and [round(v, 1) for v in box]}, expected {want}")
        checks.append((f"{name} original {ident} unmoved", check_keep))
    return checks


def _clone_label(spec: Mapping[str, Any]) -> str:
    parts = [f"bbox {spec['bbox']}"] if "bbox" in spec else []
    if "mirrored" in spec:
        parts.append("mirrored" if spec["mirrored"] else "not mirrored")
    return f"of #{spec['of']}" + (f" with {', '.join(parts)}" if parts else "")


KINDS = {"svg_path": svg_path_checks, "svg_clone": svg_clone_checks}
