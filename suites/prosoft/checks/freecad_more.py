"""FreeCAD Part Design evaluators (SolidWorks' stand-in): the saved document's body, its features and its solid.

Kind ``partdesign``; ground truth:

- ``artifact`` (default ``part``)
- ``types``, ``labels``, ``properties``: as kind ``fcstd`` (``checks/freecad.py``), from Document.xml: a feature of
  a type exists, a property of the object named, labelled or first of a type has a value
  (``{"PartDesign::Fillet.Radius": 2}``)
- ``tip`` "PartDesign::Fillet": the body's Tip (the feature whose solid is the body's) is of this type
- ``sketch`` {"Sketch.Width": 50}: a named constraint of a sketch (by name or label) has this value (mm or
  degrees), read from Document.xml
- ``solid`` {"volume": mm³, "bbox": [xmin, ymin, zmin, xmax, ymax, zmax], "holes": [[x, y, r], ...],
  "tolerance": relative (volume, default 1e-4)}: the body's solid as saved (the Tip's shape, no recompute: a
  change that was never recomputed is not in it), measured by ``freecadcmd`` in the container (only FreeCAD reads
  its BREP shapes). ``holes`` are the vertical cylindrical faces that go all round one axis, whatever
  OpenCASCADE split them into, as (x, y, radius), every one of them (a fillet's quarter cylinder is none); the
  bounding box within 0.01 mm.

A missing document fails every milestone before the container is asked; a file of another type under its name
fails them naming what it is; a document FreeCAD cannot open fails ``solid`` with FreeCAD's message.
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, container_path, load, run_json
from .freecad import _box, document, fcstd_checks

# measure(shape): the same function builds the tasks' reference figures (fixtures/prosoft/cae_more/make_fixtures.py
# sends it to freecadcmd ahead of cae_parts.py)
MEASURE = '''
import math


def measure(shape):
    """Volume, bounding box and holes (x, y, radius) of a solid."""
    b = shape.BoundBox
    turns = {}
    for f in shape.Faces:
        s = f.Surface
        if "Cylinder" in type(s).__name__ and abs(abs(s.Axis.z) - 1) < 1e-9:
            key = (round(s.Center.x, 3) + 0.0, round(s.Center.y, 3) + 0.0, round(s.Radius, 3))
            u0, u1, _, _ = f.ParameterRange
            turns[key] = turns.get(key, 0.0) + (u1 - u0)
    return {"volume": shape.Volume, "valid": shape.isValid(), "solids": len(shape.Solids),
            "bbox": [round(v, 6) + 0.0 for v in (b.XMin, b.YMin, b.ZMin, b.XMax, b.YMax, b.ZMax)],
            "holes": sorted(list(k) for k, t in turns.items() if t > 2 * math.pi - 1e-6)}
'''

READ_SCRIPT = MEASURE + '''
import json
import FreeCAD as App
try:
    doc = App.openDocument(PATH)
except Exception as exc:
    print(json.dumps({"error": "FreeCAD cannot open the file: %s" % exc}))
    raise SystemExit(0)
bodies = []
for o in doc.Objects:
    if o.TypeId != "PartDesign::Body":
        continue
    tip = o.Tip
    entry = {"name": o.Name, "tip": tip.Name if tip else None, "tip_type": tip.TypeId if tip else None}
    shape = getattr(tip, "Shape", None)
    if shape is not None and not shape.isNull() and shape.Solids:
        entry.update(measure(shape))
    bodies.append(entry)
print(json.dumps({"bodies": bodies}))
'''


def sketch_constraints(path: Path) -> dict[str, dict[str, float]]:
    """Sketch name and label -> {constraint name: value} for the named constraints in Document.xml."""
    from lxml import etree

    with zipfile.ZipFile(path) as z:
        root = etree.fromstring(z.read("Document.xml"))
    labels = {}
    out: dict[str, dict[str, float]] = {}
    for obj in root.iterfind("ObjectData/Object"):
        named = {}
        for prop in obj.iterfind("Properties/Property"):
            if prop.get("name") == "Label":
                labels[obj.get("name")] = (prop.find("String").get("value") if prop.find("String") is not None
                                           else obj.get("name"))
            for c in prop.iterfind("ConstraintList/Constrain"):
                if c.get("Name"):
                    value = float(c.get("Value", "nan"))
                    # angles (type 9) are stored in radians
                    named[c.get("Name")] = math.degrees(value) if c.get("Type") == "9" else value
        if named:
            out[obj.get("name")] = named
    for name, label in labels.items():
        if name in out:
            out.setdefault(label, out[name])
    return out


def partdesign_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "part")
    checks = fcstd_checks(ctx, {key: truth[key] for key in ("artifact", "types", "labels", "properties", "tolerance")
                                if key in truth})
    cache: dict[str, Any] = {}

    def bodies() -> list[dict[str, Any]]:
        if "bodies" not in cache:
            load(ctx, name, "fcstd", document)  # missing or no FreeCAD document: fail before the container
            code = READ_SCRIPT.replace("PATH", json.dumps(container_path(ctx, name)))
            answer = dict(run_json(ctx, ["freecadcmd", "-c", code], f"{name}: measuring the body", timeout=180))
            assert "error" not in answer, f"{name}: {answer['error']}"
            assert answer.get("bodies"), f"{name}: no Part Design body in the document"
            cache["bodies"] = answer["bodies"]
        return list(cache["bodies"])

    if truth.get("tip"):
        want_tip = truth["tip"]

        def check_tip() -> None:
            objects = load(ctx, name, "fcstd", document)
            tips = [o["props"].get("Tip") for o in objects.values() if o["type"] == "PartDesign::Body"]
            assert tips, f"{name}: no Part Design body in the document"
            types = [objects.get(t, {}).get("type") if t else None for t in tips]
            assert want_tip in types, f"{name}: the body's tip is {list(zip(tips, types))}, expected a {want_tip}"
        checks.append((f"{name} body ends in a {want_tip}", check_tip))
    for key, value in sorted((truth.get("sketch") or {}).items()):
        def check_sketch(key: str = key, value: float = value) -> None:
            sketch, constraint = key.rsplit(".", 1)
            named = load(ctx, name, "fcstd", sketch_constraints)
            assert sketch in named, f"{name}: no sketch {sketch} with named constraints (found {sorted(named)})"
            got = named[sketch].get(constraint)
            assert got is not None, f"{name}: {sketch} has no constraint {constraint} ({sorted(named[sketch])})"
            assert math.isclose(got, float(value), rel_tol=1e-6, abs_tol=1e-6), (
                f"{name}: {sketch} constraint {constraint} is {got:g}, expected {value:g}")
        checks.append((f"{name} {key} = {value:g}", check_sketch))
    if truth.get("solid"):
        spec = truth["solid"]

        def check_solid() -> None:
            found = bodies()
            solids = [b for b in found if "volume" in b]
            assert solids, f"{name}: the body has no solid ({found})"
            problems = [_solid_problem(b, spec) for b in solids]
            assert any(p is None for p in problems), f"{name}: " + "; ".join(str(p) for p in problems)
        what = [f"{spec['volume']:.1f} mm³" if "volume" in spec else "",
                f"{len(spec['holes'])} hole(s)" if "holes" in spec else "",
                f"spanning {_box(spec['bbox'])}" if "bbox" in spec else ""]
        checks.append((f"{name} solid {' '.join(w for w in what if w)}", check_solid))
    return checks


def _solid_problem(body: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """Why ``body``'s measured solid is not the one ``spec`` asks for (None: it is)."""
    if not body.get("valid") or body.get("solids") != 1:
        return f"{body['tip']} is not one valid solid ({body.get('solids')} solid(s), valid {body.get('valid')})"
    rel = float(spec.get("tolerance", 1e-4))
    if "volume" in spec and not math.isclose(body["volume"], spec["volume"], rel_tol=rel):
        return f"{body['tip']} has the volume {body['volume']:.2f} mm³, expected {spec['volume']:.2f}"
    if "bbox" in spec and not all(abs(g - e) <= 0.01 for g, e in zip(body["bbox"], spec["bbox"])):
        return f"{body['tip']} spans {_box(body['bbox'])}, expected {_box(spec['bbox'])}"
    if "holes" in spec:
        got, want = sorted(body["holes"]), sorted(spec["holes"])
        if len(got) != len(want) or not all(all(abs(g - w) <= 0.01 for g, w in zip(a, b)) for a, b in zip(got, want)):
            return f"{body['tip']} has the holes (x, y, r) {got}, expected {want}"
    return None


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {"partdesign": partdesign_checks}
