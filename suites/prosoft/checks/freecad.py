"""FreeCAD evaluators: the saved document (``.FCStd``, a zip whose ``Document.xml`` holds every object's type
and properties), exported meshes (STL, binary or ASCII: bounding box and enclosed volume in plain Python) and
exported STEP files (solids and the bounding box of their vertices).

Ground truth, by kind:

- ``fcstd``: ``artifact`` (default ``part``); ``types`` {type: count} (at least that many objects of the type);
  ``labels`` {internal name: label}; ``properties`` {"Object.Property": value} (the object by internal name
  or label; numbers within ``tolerance``, default 1e-6); ``links`` {type: {property: target name}} (an object
  of that type links those objects); ``shape`` {"object": name, label or type, "volume": mm³,
  "bbox": [xmin, ymin, zmin, xmax, ymax, zmax], "tolerance": relative} computed by ``freecadcmd`` in the
  container (the shapes are OpenCASCADE BREP: only FreeCAD reads them)
- ``stl``: ``artifact`` (default ``mesh``); ``bbox`` [6 numbers] and ``volume`` (mm³), ``tolerance``
  (absolute mm for the box, relative for the volume; defaults 0.01 and 0.01)
- ``step``: ``artifact`` (default ``step``); ``solids`` (count); ``bbox`` [6 numbers] of the vertices
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, container_path, load, run_json, same_value

# --- the document ----------------------------------------------------------------------------------------------


def document(path: Path) -> dict[str, dict[str, Any]]:
    """internal name -> {"type": .., "props": {name: value}} from the Document.xml of an .FCStd."""
    from lxml import etree

    try:
        with zipfile.ZipFile(path) as z:
            root = etree.fromstring(z.read("Document.xml"))
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        raise AssertionError(f"{path.name}: not a FreeCAD document ({exc})") from None
    objects: dict[str, dict[str, Any]] = {}
    for obj in root.iterfind("Objects/Object"):
        objects[obj.get("name")] = {"type": obj.get("type"), "props": {}}
    for obj in root.iterfind("ObjectData/Object"):
        entry = objects.setdefault(obj.get("name"), {"type": None, "props": {}})
        for prop in obj.iterfind("Properties/Property"):
            entry["props"][prop.get("name")] = _value(prop)
    return objects


def _value(prop: Any) -> Any:
    """A property's value: a number, text, a link target, a placement's position (x, y, z), a list of links."""
    for el in prop:
        tag = el.tag
        if tag in ("Float", "Integer", "Bool", "String", "Link", "Uuid"):
            raw = el.get("value")
            if tag in ("Float", "Integer"):
                return float(raw)
            if tag == "Bool":
                return raw == "true"
            return raw
        if tag == "PropertyPlacement":
            return tuple(float(el.get(k, "0")) for k in ("Px", "Py", "Pz"))
        if tag == "LinkList":
            return [link.get("value") for link in el.iterfind("Link")]
    return None


def _find(objects: Mapping[str, Any], key: str) -> tuple[str, dict[str, Any]] | None:
    """The object named ``key`` (internal name), else the one labelled ``key``, else the first of type ``key``."""
    if key in objects:
        return key, objects[key]
    for name, obj in objects.items():
        if obj["props"].get("Label") == key:
            return name, obj
    for name, obj in objects.items():
        if obj["type"] == key:
            return name, obj
    return None


def fcstd_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "part")
    tolerance = truth.get("tolerance")
    checks: list[Check] = []

    def load_document() -> dict[str, dict[str, Any]]:
        return load(ctx, name, "fcstd", document)

    for kind, count in sorted((truth.get("types") or {}).items()):
        def check_type(kind: str = kind, count: int = count) -> None:
            objects = load_document()
            n = sum(1 for o in objects.values() if o["type"] == kind)
            assert n >= count, f"{name}: {n} object(s) of type {kind}, expected at least {count}"
        checks.append((f"{name} has a {kind}", check_type))
    for obj_name, label in sorted((truth.get("labels") or {}).items()):
        def check_label(obj_name: str = obj_name, label: str = label) -> None:
            objects = load_document()
            assert obj_name in objects, f"{name}: no object {obj_name}"
            got = objects[obj_name]["props"].get("Label")
            assert got == label, f"{name}: {obj_name} is labelled {got!r}, expected {label!r}"
        checks.append((f"{name} {obj_name} labelled {label!r}", check_label))
    for key, expected in sorted((truth.get("properties") or {}).items()):
        def check_prop(key: str = key, expected: Any = expected) -> None:
            obj_key, prop = key.rsplit(".", 1)
            found = _find(load_document(), obj_key)
            assert found is not None, f"{name}: no object {obj_key}"
            got = found[1]["props"].get(prop)
            if isinstance(expected, list):
                ok = isinstance(got, (tuple, list)) and len(got) == len(expected) and all(
                    same_value(g, e, tolerance) for g, e in zip(got, expected))
            else:
                ok = same_value(got, expected, tolerance)
            assert ok, f"{name}: {found[0]}.{prop} is {got!r}, expected {expected!r}"
        checks.append((f"{name} {key} = {expected}", check_prop))
    for kind, links in sorted((truth.get("links") or {}).items()):
        def check_links(kind: str = kind, links: Mapping[str, str] = links) -> None:
            objects = load_document()
            candidates = [(n, o) for n, o in objects.items() if o["type"] == kind]
            assert candidates, f"{name}: no object of type {kind}"
            seen = [{p: o["props"].get(p) for p in links} for _, o in candidates]
            assert any(s == dict(links) for s in seen), f"{name}: {kind} links {seen}, expected {dict(links)}"
        checks.append((f"{name} {kind} of {', '.join(f'{k} {v}' for k, v in sorted(links.items()))}", check_links))
    if truth.get("shape"):
        checks.append((f"{name} {truth['shape']['object']} shape", lambda: _check_shape(ctx, name, truth["shape"])))
    return checks


SHAPE_SCRIPT = """
import json
import FreeCAD as App
doc = App.openDocument(PATH)
key = KEY
objs = [o for o in doc.Objects if o.Name == key] or [o for o in doc.Objects if o.Label == key] \\
    or [o for o in doc.Objects if o.TypeId == key]
if not objs:
    print(json.dumps({"error": "no object " + key}))
else:
    o = objs[0]
    o.recompute()
    s = o.Shape
    b = s.BoundBox
    print(json.dumps({"name": o.Name, "valid": s.isValid(), "solids": len(s.Solids), "volume": s.Volume,
                      "bbox": [b.XMin, b.YMin, b.ZMin, b.XMax, b.YMax, b.ZMax]}))
"""


def shape_of(ctx: EvalContext, name: str, key: str) -> dict[str, Any]:
    """Volume, bounding box and solid count of object ``key`` in the saved document, computed by freecadcmd
    in the container (the script is ours; the document is only opened)."""
    code = SHAPE_SCRIPT.replace("PATH", json.dumps(container_path(ctx, name))).replace("KEY", json.dumps(key))
    return dict(run_json(ctx, ["freecadcmd", "-c", code], f"{name}: measuring {key}"))


def _check_shape(ctx: EvalContext, name: str, spec: Mapping[str, Any]) -> None:
    # a missing or broken document fails here, before anything runs in the container
    found = _find(load(ctx, name, "fcstd", document), spec["object"])
    assert found is not None, f"{name}: no object {spec['object']}"
    got = shape_of(ctx, name, found[0])
    assert "error" not in got, f"{name}: {got['error']}"
    rel = float(spec.get("tolerance", 0.001))
    assert got["solids"] >= 1 and got["valid"], f"{name}: {found[0]} is not a valid solid ({got})"
    if "volume" in spec:
        assert math.isclose(got["volume"], spec["volume"], rel_tol=rel), (
            f"{name}: {found[0]} has the volume {got['volume']:.2f} mm³, expected {spec['volume']:.2f}")
    if "bbox" in spec:
        assert all(abs(g - e) <= 0.01 for g, e in zip(got["bbox"], spec["bbox"])), (
            f"{name}: {found[0]} spans {_box(got['bbox'])}, expected {_box(spec['bbox'])}")


def _box(b: Any) -> str:
    return f"({b[0]:g}, {b[1]:g}, {b[2]:g})-({b[3]:g}, {b[4]:g}, {b[5]:g})"


# --- meshes ----------------------------------------------------------------------------------------------------

def stl_triangles(path: Path) -> list[tuple[tuple[float, float, float], ...]]:
    """The triangles of an STL file, binary or ASCII."""
    data = path.read_bytes()
    if len(data) >= 84:
        (n,) = struct.unpack_from("<I", data, 80)
        if 84 + 50 * n == len(data):
            return [tuple(struct.unpack_from("<3f", data, 84 + 50 * i + 12 + 12 * k) for k in range(3))  # type: ignore[misc]
                    for i in range(n)]
    text = data.decode("ascii", errors="replace")
    if not text.lstrip().startswith("solid"):
        raise AssertionError(f"{path.name}: not an STL file")
    try:
        points = [(float(m[1]), float(m[2]), float(m[3])) for m in re.finditer(
            r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", text)]
    except ValueError as exc:
        raise AssertionError(f"{path.name}: a vertex that is not three numbers ({exc})") from None
    return [(points[i], points[i + 1], points[i + 2]) for i in range(0, len(points) - 2, 3)]


def mesh_volume(triangles: list[tuple[tuple[float, float, float], ...]]) -> float:
    """The volume a closed mesh encloses (sum of signed tetrahedra from the origin)."""
    total = 0.0
    for (ax, ay, az), (bx, by, bz), (cx, cy, cz) in triangles:
        total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    return abs(total) / 6.0


def stl_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "mesh")
    checks: list[Check] = []

    def load_mesh() -> list[tuple[tuple[float, float, float], ...]]:
        triangles = load(ctx, name, "stl", stl_triangles)
        assert triangles, f"{name}: the mesh has no triangles"
        return triangles

    if truth.get("bbox"):
        def check_bbox() -> None:
            points = [p for t in load_mesh() for p in t]
            got = [min(p[i] for p in points) for i in range(3)] + [max(p[i] for p in points) for i in range(3)]
            tol = float(truth.get("tolerance", 0.01))
            assert all(abs(g - e) <= tol for g, e in zip(got, truth["bbox"])), (
                f"{name}: the mesh spans {_box(got)}, expected {_box(truth['bbox'])}")
        checks.append((f"{name} bounding box {_box(truth['bbox'])}", check_bbox))
    if "volume" in truth:
        def check_volume() -> None:
            got = mesh_volume(load_mesh())
            rel = float(truth.get("volume_tolerance", 0.01))
            assert math.isclose(got, truth["volume"], rel_tol=rel), (
                f"{name}: the mesh encloses {got:.1f} mm³, expected {truth['volume']:.1f} (±{rel:.1%})")
        checks.append((f"{name} volume {truth['volume']:g} mm³", check_volume))
    return checks


# --- STEP ------------------------------------------------------------------------------------------------------

_ENTITY = re.compile(r"#(\d+)\s*=\s*([A-Z_0-9]+)\s*\((.*?)\)\s*;", re.S)


def step_entities(path: Path) -> dict[str, tuple[str, str]]:
    text = path.read_text(encoding="latin-1")
    assert text.lstrip().startswith("ISO-10303-21"), f"{path.name}: not a STEP file (no ISO-10303-21 header)"
    return {m.group(1): (m.group(2), m.group(3)) for m in _ENTITY.finditer(text)}


def step_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "step")
    checks: list[Check] = []

    def load_step() -> dict[str, tuple[str, str]]:
        return load(ctx, name, "step", step_entities)

    if "solids" in truth:
        def check_solids() -> None:
            n = sum(1 for kind, _ in load_step().values() if kind == "MANIFOLD_SOLID_BREP")
            assert n == truth["solids"], f"{name}: {n} solid(s), expected {truth['solids']}"
        checks.append((f"{name} has {truth['solids']} solid(s)", check_solids))
    if truth.get("bbox"):
        def check_bbox() -> None:
            entities = load_step()
            points = []
            for kind, args in entities.values():
                if kind == "VERTEX_POINT":
                    ref = re.search(r"#(\d+)", args)
                    target = entities.get(ref.group(1)) if ref else None
                    if target and target[0] == "CARTESIAN_POINT":
                        coords = re.search(r"\(\s*([^()]*)\)\s*$", target[1])
                        if coords:
                            points.append([float(v) for v in coords.group(1).split(",")])
            assert points, f"{name}: no vertices"
            got = [min(p[i] for p in points) for i in range(3)] + [max(p[i] for p in points) for i in range(3)]
            assert all(abs(g - e) <= 0.01 for g, e in zip(got, truth["bbox"])), (
                f"{name}: the vertices span {_box(got)}, expected {_box(truth['bbox'])}")
        checks.append((f"{name} bounding box {_box(truth['bbox'])}", check_bbox))
    return checks


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "fcstd": fcstd_checks, "stl": stl_checks, "step": step_checks}
