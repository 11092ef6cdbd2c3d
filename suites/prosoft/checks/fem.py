"""FEM evaluators (FreeCAD's FEM workbench with CalculiX, ANSYS's stand-in): the saved analysis document, opened
by ``freecadcmd`` in the container (only FreeCAD reads its meshes and result objects), its figures compared on
the host.

Kind ``fem``; ground truth:

- ``artifact`` (default ``model``)
- ``force`` {"value": N, "face": "Face6"}: a force constraint of the analysis with that magnitude (on that face)
- ``fixed`` {"faces": ["Face1"]}: a fixed constraint of the analysis holds exactly these faces of the part
- ``material`` {"youngs_modulus": MPa, "tolerance": relative (default 0.001)}: the analysis's solid material
- ``mesh`` {"max_size": mm, "min_nodes": n}: the analysis's Gmsh mesh has elements (at least n nodes) and
  that maximum element size
- ``results`` {"max_displacement": mm, "max_von_mises": MPa, "tolerance": relative (default 0.02)}: a CalculiX
  result object of the analysis with these maxima (the solver was run on the model as asked, and saved)

The document is read once per evaluation. A missing document fails every milestone before anything runs in the
container; a file FreeCAD cannot open fails them with FreeCAD's message.
"""

from __future__ import annotations

import json
import zipfile
from typing import Any, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, artifact, container_path, run_json

READ_SCRIPT = """
import json
import FreeCAD as App
try:
    doc = App.openDocument(PATH)
except Exception as exc:
    print(json.dumps({"error": "FreeCAD cannot open the file: %s" % exc}))
    raise SystemExit(0)
analyses = [o for o in doc.Objects if o.TypeId == "Fem::FemAnalysis" or o.isDerivedFrom("Fem::FemAnalysis")]
members = set()
for a in analyses:
    members.update(o.Name for o in a.Group)
out = {"analyses": len(analyses), "objects": []}
for o in doc.Objects:
    info = {"name": o.Name, "label": o.Label, "type": o.TypeId, "in_analysis": o.Name in members}
    if o.isDerivedFrom("Fem::Constraint"):
        info["refs"] = [[ref[0].Name, list(ref[1])] for ref in o.References]
    if o.TypeId == "Fem::ConstraintForce":
        info["force"] = float(o.Force)
    card = getattr(o, "Material", None)
    if isinstance(card, dict) and card.get("YoungsModulus"):
        try:
            info["youngs_modulus"] = App.Units.Quantity(card["YoungsModulus"]).getValueAs("MPa").Value
        except Exception as exc:
            info["youngs_modulus_error"] = str(exc)
    if o.isDerivedFrom("Fem::FemMeshObject") and not o.isDerivedFrom("Fem::FemResultObject"):
        info["nodes"] = o.FemMesh.NodeCount
        info["volumes"] = o.FemMesh.VolumeCount
        size = getattr(o, "CharacteristicLengthMax", None)
        if size is not None:
            info["max_size"] = float(getattr(size, "Value", size))
    if o.isDerivedFrom("Fem::FemResultObject"):
        info["result"] = True
        info["max_displacement"] = max(o.DisplacementLengths) if o.DisplacementLengths else None
        info["max_von_mises"] = max(o.vonMises) if o.vonMises else None
    out["objects"].append(info)
print(json.dumps(out))
"""


def read_model(ctx: EvalContext, name: str) -> dict[str, Any]:
    """What FreeCAD sees in the saved analysis document (see READ_SCRIPT)."""
    path = artifact(ctx, name)  # a missing file fails here, before the container is asked
    try:
        with zipfile.ZipFile(path) as z:
            z.getinfo("Document.xml")
    except (zipfile.BadZipFile, KeyError) as exc:
        raise AssertionError(f"{name}: not a FreeCAD document ({exc})") from None
    code = READ_SCRIPT.replace("PATH", json.dumps(container_path(ctx, name)))
    model = dict(run_json(ctx, ["freecadcmd", "-c", code], f"{name}: reading the analysis", timeout=180))
    assert "error" not in model, f"{name}: {model['error']}"
    assert model.get("analyses"), f"{name}: no FEM analysis in the document"
    return model


def _members(model: Mapping[str, Any], predicate: Any) -> list[dict[str, Any]]:
    return [o for o in model["objects"] if o.get("in_analysis") and predicate(o)]


def _rel_close(actual: float | None, expected: float, rel: float) -> bool:
    return actual is not None and abs(float(actual) - expected) <= rel * abs(expected)


def fem_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "model")
    cache: dict[str, dict[str, Any]] = {}

    def model() -> dict[str, Any]:
        if "model" not in cache:
            cache["model"] = read_model(ctx, name)
        return cache["model"]

    checks: list[Check] = []
    if truth.get("force"):
        def check_force(spec: Mapping[str, Any] = truth["force"]) -> None:
            forces = _members(model(), lambda o: o["type"] == "Fem::ConstraintForce")
            assert forces, f"{name}: the analysis has no force constraint"
            want = float(spec["value"])
            ok = [f for f in forces if abs(f["force"] - want) <= 1e-6 * max(1.0, want)
                  and ("face" not in spec or any(spec["face"] in subs for _, subs in f["refs"]))]
            assert ok, f"{name}: force constraints {[(f['force'], f['refs']) for f in forces]}, expected {want:g} N" + (
                f" on {spec['face']}" if "face" in spec else "")
        checks.append((f"{name} force {truth['force']['value']:g} N", check_force))
    if truth.get("fixed"):
        faces = sorted(truth["fixed"]["faces"])

        def check_fixed() -> None:
            fixed = _members(model(), lambda o: o["type"] == "Fem::ConstraintFixed")
            assert fixed, f"{name}: the analysis has no fixed constraint"
            held = [sorted(s for _, subs in f["refs"] for s in subs) for f in fixed]
            assert faces in held, f"{name}: fixed constraints hold {held}, expected {faces}"
        checks.append((f"{name} fixed {', '.join(faces)}", check_fixed))
    if truth.get("material"):
        def check_material(spec: Mapping[str, Any] = truth["material"]) -> None:
            cards = _members(model(), lambda o: "youngs_modulus" in o)
            want = float(spec["youngs_modulus"])
            assert cards, f"{name}: the analysis has no material with a Young's modulus"
            rel = float(spec.get("tolerance", 0.001))
            assert any(_rel_close(c["youngs_modulus"], want, rel) for c in cards), (
                f"{name}: Young's modulus {[c['youngs_modulus'] for c in cards]} MPa, expected {want:g} MPa")
        checks.append((f"{name} material E = {truth['material']['youngs_modulus']:g} MPa", check_material))
    if truth.get("mesh"):
        def check_mesh(spec: Mapping[str, Any] = truth["mesh"]) -> None:
            meshes = _members(model(), lambda o: "nodes" in o)
            assert meshes, f"{name}: the analysis has no mesh"
            described = [(m["label"], m["nodes"], m.get("max_size")) for m in meshes]
            ok = [m for m in meshes if m["nodes"] >= int(spec.get("min_nodes", 1)) and m.get("volumes", 0) > 0
                  and ("max_size" not in spec or _rel_close(m.get("max_size"), float(spec["max_size"]), 1e-6))]
            assert ok, f"{name}: meshes (label, nodes, max size) {described}, expected elements, at least " \
                       f"{spec.get('min_nodes', 1)} nodes" + (f", max size {spec['max_size']:g} mm" if "max_size" in spec else "")
        size = truth["mesh"].get("max_size")
        checks.append((f"{name} meshed" + (f" at {size:g} mm" if size is not None else ""), check_mesh))
    if truth.get("results"):
        wanted: Mapping[str, Any] = truth["results"]
        rel = float(wanted.get("tolerance", 0.02))
        for key, unit in (("max_displacement", "mm"), ("max_von_mises", "MPa")):
            if key not in wanted:
                continue

            def check_result(key: str = key, unit: str = unit, spec: Mapping[str, Any] = wanted) -> None:
                results = [o for o in model()["objects"] if o.get("result")]
                assert results, f"{name}: no result object (the analysis was not solved, or not saved after)"
                want = float(spec[key])
                got = [o.get(key) for o in results]
                assert any(_rel_close(g, want, rel) for g in got), (
                    f"{name}: {key.replace('_', ' ')} {got} {unit}, expected {want:.4g} {unit} (±{rel:.0%})")
            checks.append((f"{name} {key.replace('_', ' ')} {wanted[key]:.4g} {unit}", check_result))
    return checks


KINDS = {"fem": fem_checks}
