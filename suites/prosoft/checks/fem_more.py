"""More FEM evaluators (FreeCAD's FEM workbench with CalculiX, ANSYS's stand-in): what the analysis document
holds beyond ``checks/fem.py``'s kind (pressure loads, self weight, the solver's settings, eigenfrequencies of a
saved frequency analysis), and CalculiX's own files read on the host: the input deck (``.inp``, also FreeCAD's
Abaqus mesh export), the result file (``.frd``) and the printed output (``.dat``).

Kinds and their ground truth:

- ``fem_more`` (the saved ``.FCStd``, read by ``freecadcmd`` in the container): ``artifact`` (default ``model``);
  ``pressure`` {"value": MPa, "face": "Face6"} (a pressure constraint of the analysis); ``self_weight``
  {"direction": [x, y, z]} (a self-weight constraint of the analysis, gravity along that unit vector);
  ``solver`` {property: value} (the analysis's CalculiX solver, e.g. {"AnalysisType": "frequency"});
  ``eigenfrequencies`` {"hz": [f1, f2, ...], "tolerance": relative (default 0.01)} (the saved result objects'
  lowest eigenfrequencies, in order)
- ``ccx_inp`` (an Abaqus/CalculiX input file): ``artifact`` (default ``inp``); ``nodes`` (count), ``elements``
  {"C3D10": count} (at least 1 when the count is null), ``elastic`` [E MPa, nu] (the material's first
  *ELASTIC line), ``cload`` [Fx, Fy, Fz] (the sum of the *CLOAD lines, N, within ``tolerance`` relative, default
  0.01, of the total's magnitude), ``boundary_nodes`` (at least that many nodes held by *BOUNDARY)
- ``ccx_frd`` (CalculiX's ASCII results): ``artifact`` (default ``frd``); ``max_displacement`` mm and
  ``max_von_mises`` MPa over the nodes of the first step, within ``tolerance`` (relative, default 0.01)
- ``ccx_dat`` (CalculiX's printed output): ``artifact`` (default ``dat``); ``frequencies`` [Hz, ...] (the first
  rows of the eigenvalue table, cycles per time), ``tolerance`` relative (default 0.01)

A missing file fails its milestones; a file of another kind under the name (an empty file, a result file for an
input deck, a FreeCAD document for a result file) fails them naming what it is.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, container_path, load, run_json

# --- the saved analysis (freecadcmd) ------------------------------------------------------------------------------

READ_SCRIPT = """
import json
import FreeCAD as App
try:
    doc = App.openDocument(PATH)
except Exception as exc:
    print(json.dumps({"error": "FreeCAD cannot open the file: %s" % exc}))
    raise SystemExit(0)
members = set()
analyses = [o for o in doc.Objects if o.isDerivedFrom("Fem::FemAnalysis")]
for a in analyses:
    members.update(o.Name for o in a.Group)
out = {"analyses": len(analyses), "objects": []}
for o in doc.Objects:
    if o.Name not in members:
        continue
    proxy = getattr(getattr(o, "Proxy", None), "Type", "")
    info = {"name": o.Name, "label": o.Label, "type": o.TypeId, "proxy": proxy}
    if o.isDerivedFrom("Fem::Constraint"):
        info["refs"] = [[ref[0].Name, list(ref[1])] for ref in o.References]
    if o.TypeId == "Fem::ConstraintPressure":
        info["pressure"] = float(o.Pressure)
        info["reversed"] = bool(o.Reversed)
    if proxy == "Fem::ConstraintSelfWeight":
        info["gravity"] = [o.Gravity_x, o.Gravity_y, o.Gravity_z]
    if proxy.startswith("Fem::SolverCcx") or proxy == "Fem::SolverCalculix":
        info["solver"] = {p: str(getattr(o, p)) for p in ("AnalysisType", "EigenmodesCount",
                          "GeometricalNonlinearity", "EigenmodeLowLimit", "EigenmodeHighLimit") if hasattr(o, p)}
    if o.isDerivedFrom("Fem::FemResultObject"):
        info["eigenfrequency"] = float(getattr(o, "EigenmodeFrequency", 0) or 0)
    out["objects"].append(info)
print(json.dumps(out))
"""


def read_analysis(ctx: EvalContext, name: str) -> dict[str, Any]:
    """What FreeCAD sees in the analysis of the saved document (READ_SCRIPT): a missing file or one that is no
    FreeCAD document fails before the container is asked; FreeCAD's own refusal is a missed milestone."""
    load(ctx, name, "fcstd", lambda path: None)
    code = READ_SCRIPT.replace("PATH", json.dumps(container_path(ctx, name)))
    model = dict(run_json(ctx, ["freecadcmd", "-c", code], f"{name}: reading the analysis", timeout=180))
    assert "error" not in model, f"{name}: {model['error']}"
    assert model.get("analyses"), f"{name}: no FEM analysis in the document"
    return model


def _vector_close(got: Any, want: list[float], tol: float = 1e-6) -> bool:
    return isinstance(got, list) and len(got) == len(want) and all(abs(float(g) - w) <= tol for g, w in zip(got, want))


def fem_more_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "model")
    cache: dict[str, dict[str, Any]] = {}

    def objects(predicate: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        if "model" not in cache:
            cache["model"] = read_analysis(ctx, name)
        return [o for o in cache["model"]["objects"] if predicate(o)]

    checks: list[Check] = []
    if truth.get("pressure"):
        spec = truth["pressure"]

        def check_pressure() -> None:
            found = objects(lambda o: "pressure" in o)
            assert found, f"{name}: the analysis has no pressure constraint"
            want = float(spec["value"])
            ok = [p for p in found if math.isclose(p["pressure"], want, rel_tol=1e-6)
                  and ("face" not in spec or any(spec["face"] in subs for _, subs in p["refs"]))]
            assert ok, (f"{name}: pressure constraints {[(p['pressure'], p['refs']) for p in found]}, expected "
                        f"{want:g} MPa" + (f" on {spec['face']}" if "face" in spec else ""))
        checks.append((f"{name} pressure {spec['value']:g} MPa" + (f" on {spec['face']}" if "face" in spec else ""),
                       check_pressure))
    if truth.get("self_weight"):
        direction = [float(v) for v in truth["self_weight"]["direction"]]

        def check_weight() -> None:
            found = objects(lambda o: "gravity" in o)
            assert found, f"{name}: the analysis has no self-weight constraint"
            assert any(_vector_close(o["gravity"], direction) for o in found), (
                f"{name}: gravity {[o['gravity'] for o in found]}, expected {direction}")
        checks.append((f"{name} self weight along {direction}", check_weight))
    for prop, value in sorted((truth.get("solver") or {}).items()):
        def check_solver(prop: str = prop, value: Any = value) -> None:
            solvers = objects(lambda o: "solver" in o)
            assert solvers, f"{name}: the analysis has no CalculiX solver"
            got = [s["solver"].get(prop) for s in solvers]
            assert str(value) in got, f"{name}: solver {prop} is {got}, expected {value!r}"
        checks.append((f"{name} solver {prop} = {value}", check_solver))
    if truth.get("eigenfrequencies"):
        spec = truth["eigenfrequencies"]

        def check_modes() -> None:
            found = sorted(o["eigenfrequency"] for o in objects(lambda o: bool(o.get("eigenfrequency"))))
            assert found, f"{name}: no eigenmode results (a frequency analysis was not solved, or not saved after)"
            assert_frequencies(name, found, spec["hz"], float(spec.get("tolerance", 0.01)))
        checks.append((f"{name} eigenfrequencies {', '.join(f'{f:.4g}' for f in spec['hz'])} Hz", check_modes))
    return checks


def assert_frequencies(name: str, got: list[float], want: list[float], rel: float) -> None:
    """The lowest ``len(want)`` of ``got`` are ``want``, each within ``rel``."""
    shown = ", ".join(f"{f:.5g}" for f in got[:len(want) + 2])
    assert len(got) >= len(want) and all(math.isclose(g, w, rel_tol=rel) for g, w in zip(got, want)), (
        f"{name}: eigenfrequencies {shown} Hz, expected {', '.join(f'{w:.5g}' for w in want)} (±{rel:.0%})")


# --- CalculiX files on the host -----------------------------------------------------------------------------------

def _text(path: Path) -> str:
    return path.read_bytes().decode("latin-1")


def parse_inp(path: Path) -> dict[str, Any]:
    """Nodes, elements by type, the first *ELASTIC line, the summed *CLOAD and the nodes in *BOUNDARY of an
    Abaqus/CalculiX input file (keywords case-insensitive; node sets named in *BOUNDARY or *CLOAD are resolved)."""
    text = _text(path)
    blocks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("**"):
            continue
        if stripped.startswith("*"):
            blocks.append((stripped, []))
        elif blocks:
            blocks[-1][1].append(stripped)
    if not blocks:
        raise AssertionError(f"{path.name}: not a CalculiX input file (no keyword lines)")
    nodes: set[int] = set()
    elements: dict[str, int] = {}
    sets: dict[str, set[int]] = {}
    elastic: list[float] | None = None
    cload = [0.0, 0.0, 0.0]
    boundary: set[int] = set()
    boundary_refs: list[str] = []
    for head, lines in blocks:
        keyword = head.split(",")[0].strip().upper()
        options = {k.strip().upper(): v.strip() for k, _, v in (p.partition("=") for p in head.split(",")[1:])}
        rows = [[v.strip() for v in ln.split(",") if v.strip()] for ln in lines]
        if keyword == "*NODE":
            nodes.update(int(r[0]) for r in rows if r)
            if "NSET" in options:
                sets.setdefault(options["NSET"].upper(), set()).update(int(r[0]) for r in rows if r)
        elif keyword == "*ELEMENT":
            kind = options.get("TYPE", "?").upper()
            # an element's node list may continue on the next line (a line ending with a comma)
            count = sum(1 for ln in lines if not ln.startswith(",")) - sum(1 for ln in lines[:-1] if ln.endswith(","))
            elements[kind] = elements.get(kind, 0) + count
        elif keyword == "*NSET":
            members = sets.setdefault(options.get("NSET", "").upper(), set())
            for r in rows:
                for v in r:
                    if v.lstrip("-").isdigit():
                        members.add(int(v))
                    else:
                        members.update(sets.get(v.upper(), set()))
        elif keyword == "*ELASTIC" and elastic is None and rows:
            elastic = [float(v) for v in rows[0][:2]]
        elif keyword == "*CLOAD":
            for r in rows:
                if len(r) >= 3:
                    dof, value = int(r[1]), float(r[2])
                    count = 1 if r[0].lstrip("-").isdigit() else len(sets.get(r[0].upper(), ()))
                    if 1 <= dof <= 3:
                        cload[dof - 1] += value * count
        elif keyword == "*BOUNDARY":
            for r in rows:
                if r and r[0].lstrip("-").isdigit():
                    boundary.add(int(r[0]))
                elif r:
                    boundary_refs.append(r[0].upper())
    for ref in boundary_refs:
        boundary.update(sets.get(ref, set()))
    return {"nodes": len(nodes), "elements": elements, "elastic": elastic, "cload": cload,
            "boundary_nodes": len(boundary)}


def ccx_inp_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "inp")

    def deck() -> dict[str, Any]:
        return load(ctx, name, "text", parse_inp)

    checks: list[Check] = []
    if "nodes" in truth:
        def check_nodes() -> None:
            got = deck()["nodes"]
            assert got == truth["nodes"], f"{name}: {got} nodes, expected {truth['nodes']}"
        checks.append((f"{name} has {truth['nodes']} nodes", check_nodes))
    for kind, count in sorted((truth.get("elements") or {}).items()):
        def check_elements(kind: str = kind, count: int | None = count) -> None:
            got = deck()["elements"]
            n = got.get(kind.upper(), 0)
            assert (n >= 1 if count is None else n == count), f"{name}: elements {got}, expected {count or 'some'} {kind}"
        checks.append((f"{name} {kind} elements", check_elements))
    if truth.get("elastic"):
        def check_elastic() -> None:
            got = deck()["elastic"]
            assert got is not None, f"{name}: no *ELASTIC material"
            assert all(math.isclose(g, w, rel_tol=1e-6) for g, w in zip(got, truth["elastic"])), (
                f"{name}: *ELASTIC {got}, expected {truth['elastic']}")
        checks.append((f"{name} elastic {truth['elastic']}", check_elastic))
    if truth.get("cload"):
        def check_cload() -> None:
            got, want = deck()["cload"], [float(v) for v in truth["cload"]]
            tol = float(truth.get("tolerance", 0.01)) * max(1.0, math.sqrt(sum(w * w for w in want)))
            assert all(abs(g - w) <= tol for g, w in zip(got, want)), (
                f"{name}: the point loads sum to {[round(g, 3) for g in got]} N, expected {want}")
        checks.append((f"{name} loads sum to {truth['cload']} N", check_cload))
    if truth.get("boundary_nodes"):
        def check_boundary() -> None:
            got = deck()["boundary_nodes"]
            assert got >= truth["boundary_nodes"], (
                f"{name}: {got} node(s) held by *BOUNDARY, expected at least {truth['boundary_nodes']}")
        checks.append((f"{name} holds at least {truth['boundary_nodes']} nodes", check_boundary))
    return checks


_FRD_VALUE = re.compile(r"[-+ ]\d\.\d+E[-+]\d\d")


def parse_frd(path: Path) -> dict[str, Any]:
    """The first step's nodal displacement magnitudes and von Mises stresses of a CalculiX .frd (ASCII): the
    maxima over the nodes. Values are 12-character fields, written without separators."""
    text = _text(path)
    if "CalculiX" not in text[:2000] and not text.lstrip().startswith("1C"):
        raise AssertionError(f"{path.name}: not a CalculiX result file")
    blocks: dict[str, list[list[float]]] = {}
    current: str | None = None
    for line in text.splitlines():
        if line.startswith(" -4"):
            label = line[3:].split()[0].upper()
            current = label if label not in blocks else None  # the first step of each result only
            if current:
                blocks[current] = []
        elif line.startswith(" -3"):
            current = None
        elif current and line.startswith(" -1"):
            blocks[current].append([float(v) for v in _FRD_VALUE.findall(line[13:])])
    if "DISP" not in blocks and "STRESS" not in blocks:
        raise AssertionError(f"{path.name}: no displacement or stress results in the file")
    disp = [math.sqrt(sum(v * v for v in row[:3])) for row in blocks.get("DISP", []) if len(row) >= 3]
    mises = []
    for row in blocks.get("STRESS", []):
        if len(row) >= 6:
            sxx, syy, szz, sxy, syz, szx = row[:6]
            mises.append(math.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2)
                                   + 3 * (sxy ** 2 + syz ** 2 + szx ** 2)))
    return {"max_displacement": max(disp) if disp else None, "max_von_mises": max(mises) if mises else None,
            "nodes": len(disp)}


def ccx_frd_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "frd")
    rel = float(truth.get("tolerance", 0.01))
    checks: list[Check] = []
    for key, unit in (("max_displacement", "mm"), ("max_von_mises", "MPa")):
        if key not in truth:
            continue

        def check(key: str = key, unit: str = unit) -> None:
            got = load(ctx, name, "text", parse_frd)[key]
            want = float(truth[key])
            assert got is not None, f"{name}: no {key.split('_', 1)[1].replace('_', ' ')} results"
            assert math.isclose(got, want, rel_tol=rel), (
                f"{name}: {key.replace('_', ' ')} {got:.5g} {unit}, expected {want:.5g} {unit} (±{rel:.0%})")
        checks.append((f"{name} {key.replace('_', ' ')} {truth[key]:.4g} {unit}", check))
    return checks


def parse_dat_frequencies(path: Path) -> list[float]:
    """The eigenfrequencies (cycles per time) in the eigenvalue table of a CalculiX .dat, in mode order."""
    text = _text(path)
    start = text.find("E I G E N V A L U E   O U T P U T")
    if start < 0:
        return []
    out = []
    for line in text[start:].splitlines()[1:]:
        parts = line.split()
        if parts and parts[0].isdigit() and len(parts) >= 4:
            out.append(float(parts[3]))
        elif out and "P A R T I C I P A T I O N" in line:
            break
    return out


def ccx_dat_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "dat")
    want = [float(f) for f in truth["frequencies"]]

    def check() -> None:
        got = load(ctx, name, "text", parse_dat_frequencies)
        assert got, f"{name}: no eigenvalue output (not a frequency analysis)"
        assert_frequencies(name, got, want, float(truth.get("tolerance", 0.01)))
    return [(f"{name} eigenfrequencies {', '.join(f'{f:.4g}' for f in want)} Hz", check)]


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "fem_more": fem_more_checks, "ccx_inp": ccx_inp_checks, "ccx_frd": ccx_frd_checks, "ccx_dat": ccx_dat_checks}
