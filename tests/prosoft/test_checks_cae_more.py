"""The Part Design and FEM evaluators of tasks/freecad_more.json and tasks/fem_more.json without docker: the result
each task asks for passes every milestone, near misses (the right operation with a wrong parameter, another
operation, the start file saved unchanged, a change never recomputed, a file of the wrong type under the expected
name) fail the milestone that names them, and a missing artifact fails every milestone without asking the
container.

Documents are the start files (fixtures/prosoft/cae_more) with their Document.xml edited in the zip the way
FreeCAD saves a new feature (an object of its type, its properties, the body's Tip moved to it; a sketch's named
constraint changed); what freecadcmd computes in the container (a body's solid, an analysis's members) comes
from a stand-in environment answering with the JSON line the evaluator's script prints. CalculiX's files are
written here in its formats (.inp keyword lines, .frd fixed-width fields); the .dat is one CalculiX wrote
(fixtures/prosoft/cae_more/beam_frequency.dat). The ground truths are those of the generated tasks.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Mapping

import pytest
from lxml import etree

from suites.prosoft.checks.fem_more import parse_dat_frequencies, parse_frd, parse_inp

from .evaluation import failed, milestones
from .test_checks_fem import model as fem_model

ROOT = Path(__file__).resolve().parents[2]
MORE = ROOT / "fixtures" / "prosoft" / "cae_more"
REF = json.loads((MORE / "reference.json").read_text())
PD = REF["part_design"]
TASKS = {t["id"]: t for name in ("freecad_more", "fem_more")
         for t in json.loads((ROOT / f"suites/prosoft/tasks/{name}.json").read_text())["tasks"]}


class StandIn:
    """Answers ``run`` like the container: FreeCAD's banner, then the JSON line of the evaluator's script."""

    def __init__(self, answer: Mapping[str, Any] | None) -> None:
        self.answer, self.calls = answer, []  # type: ignore[var-annotated]

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        self.calls.append(argv)
        assert self.answer is not None, "the container must not be asked"
        return {"returncode": 0, "stdout": "FreeCAD 0.20.2\n" + json.dumps(self.answer) + "\n", "stderr": ""}


def evaluate(task_id: str, files: Mapping[str, Path], answer: Mapping[str, Any] | None = None,
             env: StandIn | None = None) -> dict[str, str | None]:
    """Every milestone of the task (each step of a pipeline) -> None (passed) or its message."""
    task = TASKS[task_id]
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [
        dict(task["ground_truth"], template=task["template"])]
    ctx_task = SimpleNamespace(id=task_id, extra={"artifacts": task["artifacts"]})
    env = env or StandIn(answer)
    out: dict[str, str | None] = {}
    for step in steps:
        out.update(milestones(step["template"], step, files, task=ctx_task, env=env))
    return out


# --- Part Design documents --------------------------------------------------------------------------------------

def document(path: Path, start: str, features: tuple[tuple[str, str, Mapping[str, Any]], ...] = (),
             tip: str | None = None, constraints: Mapping[str, float] | None = None) -> Path:
    """Start file ``start`` saved with ``features`` added ((type, name, {property: number}) each), the body's Tip
    moved to ``tip`` and named sketch constraints set (``{"Width": 50}``), as FreeCAD writes them."""
    with zipfile.ZipFile(MORE / start) as z:
        members = {i.filename: z.read(i.filename) for i in z.infolist()}
    root = etree.fromstring(members["Document.xml"])
    objects, data = root.find("Objects"), root.find("ObjectData")
    for kind, name, props in features:
        etree.SubElement(objects, "Object", type=kind, name=name, id="99")
        obj = etree.SubElement(data, "Object", name=name)
        properties = etree.SubElement(obj, "Properties", Count=str(len(props) + 1), TransientCount="0")
        label = etree.SubElement(properties, "Property", name="Label", type="App::PropertyString")
        etree.SubElement(label, "String", value=name)
        for prop, value in props.items():
            holder = etree.SubElement(properties, "Property", name=prop, type="App::PropertyFloat")
            etree.SubElement(holder, "Integer" if isinstance(value, int) else "Float", value=str(value))
    if tip is not None:
        body = data.find("Object[@name='Body']")
        body.find("Properties/Property[@name='Tip']/Link").set("value", tip)
    for name, value in (constraints or {}).items():
        found = root.findall(f".//Constrain[@Name='{name}']")
        assert found, name
        found[0].set("Value", f"{value:.16f}")
    members["Document.xml"] = etree.tostring(root, xml_declaration=True, encoding="utf-8")
    with zipfile.ZipFile(path, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return path


def body(tip: str, tip_type: str, solid: Mapping[str, Any] | None, **changes: Any) -> dict[str, Any]:
    """What the evaluator's freecadcmd script prints for a body ending in ``tip`` with that solid."""
    entry: dict[str, Any] = {"name": "Body", "tip": tip, "tip_type": tip_type}
    if solid is not None:
        entry.update({k: v for k, v in solid.items()}, **changes)
    return {"bodies": [entry]}


def feature(kind: str, name: str, **props: Any) -> tuple[str, str, dict[str, Any]]:
    return (f"PartDesign::{kind}", name, props)


def shifted(key: str, volume: float) -> dict[str, Any]:
    """Reference ``key``'s solid with another volume (the same operation with another parameter)."""
    return dict(PD[key], volume=volume)


Build = Callable[[Path], dict[str, Path]]
PD_CASES: dict[str, tuple[Build, dict[str, Any], list[tuple[str, Build, dict[str, Any] | None, set[str]]]]] = {}


def pd_case(task_id: str, right: Build, answer: dict[str, Any],
            *near: tuple[str, Build, dict[str, Any] | None, set[str]]) -> None:
    PD_CASES[task_id] = (right, answer, list(near))


def part(start: str, *features: tuple[str, str, dict[str, Any]], tip: str | None = None,
         constraints: Mapping[str, float] | None = None) -> Build:
    return lambda t: {"part": document(t / "part.FCStd", start, features, tip, constraints)}


def labels(task_id: str, *words: str) -> set[str]:
    """The task's milestones whose label holds any of ``words``."""
    task = TASKS[task_id]
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [
        dict(task["ground_truth"], template=task["template"])]
    every = [label for step in steps for label in milestones(step["template"], step, {})]
    found = {label for label in every if any(w in label for w in words)}
    assert found, (task_id, words, every)
    return found


PAD = feature("Pad", "Pad", Length=15.0)
pd_case("freecad-pd-pad", part("pd_sketch.FCStd", PAD, tip="Pad"), body("Pad", "PartDesign::Pad", PD["pad15"]),
        ("padded 10 mm", part("pd_sketch.FCStd", feature("Pad", "Pad", Length=10.0), tip="Pad"),
         body("Pad", "PartDesign::Pad", PD["block"]), labels("freecad-pd-pad", "solid")),
        ("the sketch saved unpadded", part("pd_sketch.FCStd"), body("Sketch", "Sketcher::SketchObject", None),
         labels("freecad-pd-pad", "Pad", "solid")),
        ("padded the other way (below the sketch)", part("pd_sketch.FCStd", PAD, tip="Pad"),
         body("Pad", "PartDesign::Pad", PD["pad15"], bbox=[-30, -20, -15, 30, 20, 0]), labels("freecad-pd-pad", "solid")))
POCKET = feature("Pocket", "Pocket", Type=1)
pd_case("freecad-pd-pocket", part("pd_plate_sketch.FCStd", POCKET, tip="Pocket"),
        body("Pocket", "PartDesign::Pocket", PD["pocket"]),
        ("a 5 mm deep pocket (the default length)", part("pd_plate_sketch.FCStd", POCKET, tip="Pocket"),
         body("Pocket", "PartDesign::Pocket", shifted("pocket", 36000 - math.pi * 16 * 5), holes=[]),
         labels("freecad-pd-pocket", "solid")),
        ("a pad of the circle instead", part("pd_plate_sketch.FCStd", feature("Pad", "Pad001", Length=5.0), tip="Pad001"),
         body("Pad001", "PartDesign::Pad", shifted("plate", 36000 + math.pi * 16 * 5), holes=[]),
         labels("freecad-pd-pocket", "Pocket", "solid")),
        ("unchanged", part("pd_plate_sketch.FCStd"), body("Pad", "PartDesign::Pad", PD["plate"]),
         labels("freecad-pd-pocket", "Pocket", "solid")))
HOLE = feature("Hole", "Hole", Diameter=10.0)
pd_case("freecad-pd-hole", part("pd_plate_sketch.FCStd", HOLE, tip="Hole"), body("Hole", "PartDesign::Hole", PD["hole"]),
        ("the default 6 mm hole", part("pd_plate_sketch.FCStd", feature("Hole", "Hole", Diameter=6.0), tip="Hole"),
         body("Hole", "PartDesign::Hole", shifted("hole", 36000 - math.pi * 9 * 10), holes=[[-20.0, 0.0, 3.0]]),
         labels("freecad-pd-hole", "Diameter", "solid")),
        ("a pocket of the circle (8 mm) instead", part("pd_plate_sketch.FCStd", POCKET, tip="Pocket"),
         body("Pocket", "PartDesign::Pocket", PD["pocket"]), labels("freecad-pd-hole", "Hole", "Diameter", "solid")))
FILLET = feature("Fillet", "Fillet", Radius=2.0)
pd_case("freecad-pd-fillet", part("pd_block.FCStd", FILLET, tip="Fillet"), body("Fillet", "PartDesign::Fillet", PD["fillet"]),
        ("a 1 mm fillet", part("pd_block.FCStd", feature("Fillet", "Fillet", Radius=1.0), tip="Fillet"),
         body("Fillet", "PartDesign::Fillet", shifted("fillet", 23906.5)), labels("freecad-pd-fillet", "Radius", "solid")),
        ("only the four top edges", part("pd_block.FCStd", FILLET, tip="Fillet"),
         body("Fillet", "PartDesign::Fillet", shifted("fillet", 24000 - (4 - math.pi) * 200 * 4 / 4)),
         labels("freecad-pd-fillet", "solid")),
        ("a chamfer instead", part("pd_block.FCStd", feature("Chamfer", "Chamfer", Size=2.0), tip="Chamfer"),
         body("Chamfer", "PartDesign::Chamfer", shifted("chamfer", 23100.0)),
         labels("freecad-pd-fillet", "Fillet", "Radius", "solid")))
CHAMFER = feature("Chamfer", "Chamfer", Size=1.5)
pd_case("freecad-pd-chamfer", part("pd_block.FCStd", CHAMFER, tip="Chamfer"),
        body("Chamfer", "PartDesign::Chamfer", PD["chamfer"]),
        ("a 1 mm chamfer (the default)", part("pd_block.FCStd", feature("Chamfer", "Chamfer", Size=1.0), tip="Chamfer"),
         body("Chamfer", "PartDesign::Chamfer", shifted("chamfer", 23680.0)), labels("freecad-pd-chamfer", "Size", "solid")),
        ("chamfered, then the Pad set as tip again", part("pd_block.FCStd", CHAMFER, tip="Pad"),
         body("Pad", "PartDesign::Pad", PD["block"]), labels("freecad-pd-chamfer", "ends in", "solid")))
REVOLUTION = feature("Revolution", "Revolution", Angle=360.0)
pd_case("freecad-pd-revolution", part("pd_profile.FCStd", REVOLUTION, tip="Revolution"),
        body("Revolution", "PartDesign::Revolution", PD["revolution"]),
        ("half a turn", part("pd_profile.FCStd", feature("Revolution", "Revolution", Angle=180.0), tip="Revolution"),
         body("Revolution", "PartDesign::Revolution", shifted("revolution", PD["revolution"]["volume"] / 2),
              bbox=[-20, 0, 0, 20, 20, 30], holes=[]), labels("freecad-pd-revolution", "solid")),
        ("about the horizontal axis", part("pd_profile.FCStd", REVOLUTION, tip="Revolution"),
         body("Revolution", "PartDesign::Revolution", shifted("revolution", math.pi * 15 * 15 * 10 * 2),
              bbox=[10, -30, -30, 20, 30, 30], holes=[]), labels("freecad-pd-revolution", "solid")),
        ("a pad of the profile", part("pd_profile.FCStd", feature("Pad", "Pad", Length=10.0), tip="Pad"),
         body("Pad", "PartDesign::Pad", {"volume": 3000.0, "bbox": [10, -10, 0, 20, 0, 30], "holes": [], "valid": True,
                                         "solids": 1}), labels("freecad-pd-revolution", "Revolution", "solid")))
MIRRORED = feature("Mirrored", "Mirrored")
pd_case("freecad-pd-mirror", part("pd_plate_hole.FCStd", MIRRORED, tip="Mirrored"),
        body("Mirrored", "PartDesign::Mirrored", PD["mirrored"]),
        ("mirrored across the XZ plane (onto itself)", part("pd_plate_hole.FCStd", MIRRORED, tip="Mirrored"),
         body("Mirrored", "PartDesign::Mirrored", PD["plate_hole"]), labels("freecad-pd-mirror", "solid")),
        ("unchanged", part("pd_plate_hole.FCStd"), body("Pocket", "PartDesign::Pocket", PD["plate_hole"]),
         labels("freecad-pd-mirror", "Mirrored", "solid")))
LINEAR = feature("LinearPattern", "LinearPattern", Occurrences=3)
pd_case("freecad-pd-linear-pattern", part("pd_plate_hole.FCStd", LINEAR, tip="LinearPattern"),
        body("LinearPattern", "PartDesign::LinearPattern", PD["linear"]),
        ("2 occurrences", part("pd_plate_hole.FCStd", feature("LinearPattern", "LinearPattern", Occurrences=2),
                               tip="LinearPattern"),
         body("LinearPattern", "PartDesign::LinearPattern", PD["mirrored"]),
         labels("freecad-pd-linear-pattern", "Occurrences", "solid")),
        ("3 along Y (holes off the plate)", part("pd_plate_hole.FCStd", LINEAR, tip="LinearPattern"),
         body("LinearPattern", "PartDesign::LinearPattern", shifted("linear", 35000.0),
              holes=[[-20.0, 0.0, 4.0]]), labels("freecad-pd-linear-pattern", "solid")),
        ("a polar pattern of 3", part("pd_plate_hole.FCStd", feature("PolarPattern", "PolarPattern", Occurrences=3),
                                      tip="PolarPattern"),
         body("PolarPattern", "PartDesign::PolarPattern", shifted("linear", 34492.0),
              holes=[[-20.0, 0.0, 4.0], [10.0, -17.321, 4.0], [10.0, 17.321, 4.0]]),
         labels("freecad-pd-linear-pattern", "LinearPattern", "solid")))
POLAR = feature("PolarPattern", "PolarPattern", Occurrences=4)
pd_case("freecad-pd-polar-pattern", part("pd_plate_hole.FCStd", POLAR, tip="PolarPattern"),
        body("PolarPattern", "PartDesign::PolarPattern", PD["polar"]),
        ("over 180 degrees (two holes on top of each other)", part("pd_plate_hole.FCStd", POLAR, tip="PolarPattern"),
         body("PolarPattern", "PartDesign::PolarPattern", shifted("polar", 34492.0),
              holes=[[-20.0, 0.0, 4.0], [0.0, -20.0, 4.0], [20.0, 0.0, 4.0]]), labels("freecad-pd-polar-pattern", "solid")),
        ("a linear pattern of 4", part("pd_plate_hole.FCStd", feature("LinearPattern", "LinearPattern", Occurrences=4),
                                       tip="LinearPattern"),
         body("LinearPattern", "PartDesign::LinearPattern", PD["polar"]),
         labels("freecad-pd-polar-pattern", "PolarPattern")))
pd_case("freecad-pd-sketch-width", part("pd_block.FCStd", constraints={"Width": 50.0}),
        body("Pad", "PartDesign::Pad", PD["width50"]),
        ("the width changed, never recomputed", part("pd_block.FCStd", constraints={"Width": 50.0}),
         body("Pad", "PartDesign::Pad", PD["block"]), labels("freecad-pd-sketch-width", "solid")),
        ("the length set to 50 instead", part("pd_block.FCStd", constraints={"Length": 50.0}),
         body("Pad", "PartDesign::Pad", shifted("block", 20000.0), bbox=[-25, -20, 0, 25, 20, 10]),
         labels("freecad-pd-sketch-width", "Width", "Length", "solid")),
        ("the pad stretched by its own length instead", part("pd_block.FCStd"),
         body("Pad", "PartDesign::Pad", shifted("block", 30000.0), bbox=[-30, -20, 0, 30, 20, 12.5]),
         labels("freecad-pd-sketch-width", "Width", "solid")))
pd_case("freecad-pd-pad-fillet", part("pd_sketch.FCStd", PAD, FILLET, tip="Fillet"),
        body("Fillet", "PartDesign::Fillet", PD["pad15_fillet"]),
        ("padded 10, then filleted", part("pd_sketch.FCStd", feature("Pad", "Pad", Length=10.0), FILLET, tip="Fillet"),
         body("Fillet", "PartDesign::Fillet", PD["fillet"]), labels("freecad-pd-pad-fillet", "solid")),
        ("padded, never filleted", part("pd_sketch.FCStd", PAD, tip="Pad"), body("Pad", "PartDesign::Pad", PD["pad15"]),
         labels("freecad-pd-pad-fillet", "Fillet", "solid")))
pd_case("freecad-pd-pocket-pattern", part("pd_plate_sketch.FCStd", POCKET, LINEAR, tip="LinearPattern"),
        body("LinearPattern", "PartDesign::LinearPattern", PD["pocket_linear"]),
        ("pocketed only", part("pd_plate_sketch.FCStd", POCKET, tip="Pocket"), body("Pocket", "PartDesign::Pocket", PD["pocket"]),
         labels("freecad-pd-pocket-pattern", "LinearPattern", "solid")),
        ("patterned over 20 mm (holes overlapping)", part("pd_plate_sketch.FCStd", POCKET, LINEAR, tip="LinearPattern"),
         body("LinearPattern", "PartDesign::LinearPattern", shifted("pocket_linear", 34900.0),
              holes=[[-20.0, 0.0, 4.0], [-10.0, 0.0, 4.0], [0.0, 0.0, 4.0]]), labels("freecad-pd-pocket-pattern", "solid")))
pd_case("freecad-pd-hole-mirror", part("pd_plate_sketch.FCStd", HOLE, MIRRORED, tip="Mirrored"),
        body("Mirrored", "PartDesign::Mirrored", PD["hole_mirrored"]),
        ("a pocket mirrored instead of a hole", part("pd_plate_sketch.FCStd", POCKET, MIRRORED, tip="Mirrored"),
         body("Mirrored", "PartDesign::Mirrored", PD["mirrored"]), labels("freecad-pd-hole-mirror", "Hole", "solid")),
        ("the hole not mirrored", part("pd_plate_sketch.FCStd", HOLE, tip="Hole"), body("Hole", "PartDesign::Hole", PD["hole"]),
         labels("freecad-pd-hole-mirror", "Mirrored", "solid")))
pd_case("freecad-pd-width-chamfer", part("pd_block.FCStd", CHAMFER, tip="Chamfer", constraints={"Width": 50.0}),
        body("Chamfer", "PartDesign::Chamfer", PD["width50_chamfer"]),
        ("chamfered before widening, never recomputed", part("pd_block.FCStd", CHAMFER, tip="Chamfer",
                                                             constraints={"Width": 50.0}),
         body("Chamfer", "PartDesign::Chamfer", PD["chamfer"]), labels("freecad-pd-width-chamfer", "solid")),
        ("widened, not chamfered", part("pd_block.FCStd", constraints={"Width": 50.0}),
         body("Pad", "PartDesign::Pad", PD["width50"]), labels("freecad-pd-width-chamfer", "Chamfer", "solid")))


@pytest.mark.parametrize("task_id", sorted(PD_CASES))
def test_the_part_each_task_asks_for_passes(tmp_path: Path, task_id: str) -> None:
    right, answer, _ = PD_CASES[task_id]
    result = evaluate(task_id, right(tmp_path), answer)
    assert result and not failed(result), result


@pytest.mark.parametrize("task_id,what,build,answer,must_fail", [
    (t, w, b, a, f) for t, (_, _, near) in sorted(PD_CASES.items()) for w, b, a, f in near])
def test_part_design_near_misses_fail_the_milestones_that_name_them(tmp_path: Path, task_id: str, what: str,
                                                                    build: Build, answer: dict[str, Any] | None,
                                                                    must_fail: set[str]) -> None:
    result = evaluate(task_id, build(tmp_path), answer)
    assert set(failed(result)) == must_fail, (what, result)


def test_every_part_design_task_has_cases() -> None:
    assert sorted(PD_CASES) == sorted(t for t, task in TASKS.items()
                                      if task["template"] == "partdesign"), "a task without its near misses"


@pytest.mark.parametrize("task_id", sorted(PD_CASES))
def test_part_design_wrong_files_fail_without_asking_the_container(tmp_path: Path, task_id: str) -> None:
    env = StandIn(None)
    missing = evaluate(task_id, {}, env=env)
    assert missing and all(m and "was not produced" in m for m in missing.values())
    png = tmp_path / "part.FCStd"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    wrong = evaluate(task_id, {"part": png}, env=env)
    assert all(m and "is not a FreeCAD document" in m and "PNG" in m for m in wrong.values()), wrong
    assert not env.calls


def test_part_design_freecad_errors_and_bodiless_documents_are_missed_milestones(tmp_path: Path) -> None:
    build, _, _ = PD_CASES["freecad-pd-fillet"]
    files = build(tmp_path)
    refused = evaluate("freecad-pd-fillet", files, {"error": "FreeCAD cannot open the file: broken"})
    assert refused["part solid 23633.0 mm³ 0 hole(s) spanning (-30, -20, 0)-(30, 20, 10)"] == (
        "part: FreeCAD cannot open the file: broken")
    empty = evaluate("freecad-pd-fillet", files, {"bodies": []})
    assert "no Part Design body" in str(empty["part solid 23633.0 mm³ 0 hole(s) spanning (-30, -20, 0)-(30, 20, 10)"])
    broken = evaluate("freecad-pd-fillet", files, body("Fillet", "PartDesign::Fillet", PD["fillet"], valid=False))
    assert failed(broken) == [label for label in broken if "solid" in label]


def test_the_reference_solids_are_the_geometry() -> None:
    """The figures the tasks check are the parts' geometry, not an artefact of a run."""
    assert PD["pad15"]["volume"] == pytest.approx(60 * 40 * 15)
    assert PD["pocket"]["volume"] == pytest.approx(60 * 60 * 10 - math.pi * 16 * 10)
    assert PD["hole"]["volume"] == pytest.approx(60 * 60 * 10 - math.pi * 25 * 10)
    assert PD["linear"]["volume"] == pytest.approx(60 * 60 * 10 - 3 * math.pi * 16 * 10)
    assert PD["polar"]["volume"] == pytest.approx(60 * 60 * 10 - 4 * math.pi * 16 * 10)
    assert PD["revolution"]["volume"] == pytest.approx(math.pi * (20 ** 2 - 10 ** 2) * 30)
    assert PD["chamfer"]["volume"] == pytest.approx(23523.0)  # 12 edges less 1.125 mm² each, corners added back
    assert PD["chamfer"]["volume"] < PD["fillet"]["volume"] < PD["block"]["volume"] - 100


# --- the ring's STL --------------------------------------------------------------------------------------------

def ring_stl(path: Path, inner: float = 10, outer: float = 20, height: float = 30, segments: int = 96,
             turn: float = 2 * math.pi) -> Path:
    """A closed tube as FreeCAD tessellates it: outer and inner walls, top and bottom rings (binary STL)."""
    tris = []
    full = abs(turn - 2 * math.pi) < 1e-9

    def p(r: float, a: float, z: float) -> tuple[float, float, float]:
        return (r * math.cos(a), r * math.sin(a), z)
    for i in range(segments):
        a0, a1 = turn * i / segments, turn * (i + 1) / segments
        o0, o1, i0, i1 = (p(outer, a0, 0), p(outer, a1, 0), p(inner, a0, 0), p(inner, a1, 0))
        O0, O1, I0, I1 = (p(outer, a0, height), p(outer, a1, height), p(inner, a0, height), p(inner, a1, height))
        tris += [(o0, o1, O1), (o0, O1, O0), (i0, I1, i1), (i0, I0, I1), (O0, O1, I1), (O0, I1, I0),
                 (o0, i1, o1), (o0, i0, i1)]
    if not full:
        for a, flip in ((0.0, True), (turn, False)):
            q = [p(inner, a, 0), p(outer, a, 0), p(outer, a, height), p(inner, a, height)]
            quad = [(q[0], q[2], q[1]), (q[0], q[3], q[2])] if flip else [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
            tris += quad
    data = bytearray(b"\0" * 80 + struct.pack("<I", len(tris)))
    for t in tris:
        data += struct.pack("<12fH", 0, 0, 0, *t[0], *t[1], *t[2], 0)
    path.write_bytes(bytes(data))
    return path


def test_the_exported_ring(tmp_path: Path) -> None:
    task = "freecad-pd-revolve-stl"
    assert not failed(evaluate(task, {"mesh": ring_stl(tmp_path / "ring.stl")}))
    # half a turn; a solid cylinder (the axis through the profile); the profile itself padded
    half = evaluate(task, {"mesh": ring_stl(tmp_path / "half.stl", turn=math.pi)})
    assert failed(half) == list(half)
    solid = evaluate(task, {"mesh": ring_stl(tmp_path / "solid.stl", inner=1e-3, outer=20)})
    assert failed(solid) == [label for label in solid if "volume" in label]
    png = tmp_path / "png.stl"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert all(m and "PNG" in m for m in evaluate(task, {"mesh": png}).values())
    assert all(m and "was not produced" in m for m in evaluate(task, {}).values())


# --- FEM: the analysis documents --------------------------------------------------------------------------------

def fcstd_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("Document.xml", "<Document/>")
    return path


def analysis(*extra: dict[str, Any], solver: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What checks/fem_more.py's script prints for the beam's analysis with ``extra`` members."""
    solver_props = {"AnalysisType": "static", "EigenmodesCount": "10", "GeometricalNonlinearity": "linear"}
    objects = [
        {"name": "CalculiX", "label": "CalculiX", "type": "Fem::FemSolverObjectPython", "proxy": "Fem::SolverCcxTools",
         "solver": {**solver_props, **(solver or {})}},
        {"name": "Force", "label": "Force", "type": "Fem::ConstraintForce", "proxy": "", "refs": [["Beam", ["Face6"]]]},
        *extra]
    return {"analyses": 1, "objects": objects}


def pressure(value: float = 1.0, face: str = "Face6") -> dict[str, Any]:
    return {"name": "Pressure", "label": "Pressure", "type": "Fem::ConstraintPressure", "proxy": "",
            "refs": [["Beam", [face]]], "pressure": value, "reversed": False}


def weight(direction: list[float]) -> dict[str, Any]:
    return {"name": "SelfWeight", "label": "SelfWeight", "type": "Fem::ConstraintPython",
            "proxy": "Fem::ConstraintSelfWeight", "gravity": direction}


def modes(freqs: list[float]) -> list[dict[str, Any]]:
    return [{"name": f"Mode{i}", "label": f"Mode{i}", "type": "Fem::FemResultObjectPython", "proxy": "Fem::ResultMechanical",
             "eigenfrequency": f} for i, f in enumerate(freqs, 1)]


def maxima(key: str, scale: float = 1.0) -> dict[str, float]:
    return {"max_displacement": REF[key]["max_displacement"] * scale, "max_von_mises": REF[key]["max_von_mises"] * scale}


def text(name: str, content: str) -> Build:
    def build(t: Path) -> dict[str, Path]:
        (t / name).write_text(content)
        return {name.split(".")[0]: t / name}
    return build


NODES, VOLUMES = REF["beam_base"]["nodes"], REF["beam_base"]["volumes"]


def inp_text(nodes: int = NODES, elements: tuple[str, int] = ("C3D10", VOLUMES), elastic: tuple[float, float] | None = None,
             loads: int = 0, total: float = -1000.0, fixed: int = 0) -> str:
    """An input deck as FreeCAD writes it: the mesh (a node per line, an element per line), then optionally the
    fixed node set and *BOUNDARY by set name, the material, and *CLOAD spreading ``total`` over ``loads`` nodes."""
    lines = ["** written by FreeCAD inp file writer for CalculiX,Abaqus meshes", "** Nodes", "*Node, NSET=Nall"]
    lines += [f"{i}, {i * 0.1:.13E}, 0.0000000000000E+00, 1.0000000000000E+01" for i in range(1, nodes + 1)]
    lines += [f"*Element, TYPE={elements[0]}, ELSET=Evolumes"]
    lines += [f"{i}, " + ", ".join(str((i + k) % nodes + 1) for k in range(10 if elements[0] == "C3D10" else 4))
              for i in range(1, elements[1] + 1)]
    if fixed:
        lines += ["*NSET,NSET=Fixed", *(f"{i}," for i in range(1, fixed + 1))]
    if elastic:
        lines += ["*MATERIAL, NAME=Steel", "*ELASTIC", f"{elastic[0]:.0f},{elastic[1]:.3f}"]
    lines += ["*STEP", "*STATIC"]
    if fixed:
        lines += ["*BOUNDARY", "Fixed,1", "Fixed,2", "Fixed,3"]
    if loads:
        lines += ["*CLOAD", "** Force"] + [f"{i},3,{total / loads:.13E}" for i in range(1, loads + 1)]
    return "\n".join([*lines, "*END STEP", ""])


def frd_text(disp: float, mises: float, nodes: int = 5) -> str:
    """A CalculiX .frd: header, node block, then DISP and STRESS blocks (12-character fields, no separators);
    the largest displacement and von Mises stress (a pure normal stress) at the last node."""
    head = ["    1C", "    1UPGM               CalculiX", f"    2C                          {nodes:>4}            1"]
    head += [f" -1{i:>10}{i:12.5E}{0.0:12.5E}{0.0:12.5E}" for i in range(1, nodes + 1)] + [" -3"]
    out = [*head, "    1PSTEP                         1           1           1",
           f"  100CL  101 1.000000000       {nodes:>4}                     0    1           1",
           " -4  DISP        4    1", " -5  D1          1    2    1    0"]
    out += [f" -1{i:>10}{0.0:12.5E}{-disp * i / nodes / math.sqrt(2):12.5E}{-disp * i / nodes / math.sqrt(2):12.5E}"
            for i in range(1, nodes + 1)] + [" -3"]
    out += [" -4  STRESS      6    1", " -5  SXX         1    4    1    1"]
    out += [f" -1{i:>10}{mises * i / nodes:12.5E}" + f"{0.0:12.5E}" * 5 for i in range(1, nodes + 1)] + [" -3"]
    return "\n".join([*out, "9999", ""])


FEM_CASES: dict[str, tuple[Build, Any, list[tuple[str, Build, Any, set[str]]]]] = {}


def fem_case(task_id: str, right: Build, answer: Any, *near: tuple[str, Build, Any, set[str]]) -> None:
    FEM_CASES[task_id] = (right, answer, list(near))


def model_file(t: Path) -> dict[str, Path]:
    return {"model": fcstd_zip(t / "beam.FCStd")}


def with_files(*builds: Build) -> Build:
    def build(t: Path) -> dict[str, Path]:
        out: dict[str, Path] = {}
        for b in builds:
            out.update(b(t))
        return out
    return build


ALU = 70000.0
fem_case("fem-material-aluminium", model_file, fem_model(young=ALU),
         ("Aluminum-6061-T6 (69000 MPa)", model_file, fem_model(young=69000.0), labels("fem-material-aluminium", "material")),
         ("unchanged steel", model_file, fem_model(), labels("fem-material-aluminium", "material")))
fem_case("fem-fixed-end", model_file, fem_model(fixed=["Face1"]),
         ("the loaded end held instead", model_file, fem_model(fixed=["Face2"]), labels("fem-fixed-end", "fixed")),
         ("both end faces held", model_file, fem_model(fixed=["Face1", "Face2"]), labels("fem-fixed-end", "fixed")),
         ("never added", model_file, fem_model(fixed=None), labels("fem-fixed-end", "fixed")))
fem_case("fem-pressure-top", model_file, {"fem_more": analysis(pressure()), "fem": fem_model()},
         ("1 MPa on the bottom face", model_file, {"fem_more": analysis(pressure(face="Face5")), "fem": fem_model()},
          labels("fem-pressure-top", "pressure")),
         ("0.1 MPa", model_file, {"fem_more": analysis(pressure(0.1)), "fem": fem_model()},
          labels("fem-pressure-top", "pressure")),
         ("no pressure (a second force added instead)", model_file, {"fem_more": analysis(), "fem": fem_model()},
          labels("fem-pressure-top", "pressure")),
         ("the force replaced by the pressure", model_file, {"fem_more": analysis(pressure()), "fem": fem_model(force=0)},
          labels("fem-pressure-top", "force")))
fem_case("fem-self-weight", model_file, analysis(weight([0, 0, -1])),
         ("gravity pointing up", model_file, analysis(weight([0, 0, 1])), labels("fem-self-weight", "weight")),
         ("never added", model_file, analysis(), labels("fem-self-weight", "weight")))
fem_case("fem-frequency-setup", model_file, analysis(solver={"AnalysisType": "frequency", "EigenmodesCount": "6"}),
         ("frequency with the default 10 modes", model_file, analysis(solver={"AnalysisType": "frequency"}),
          labels("fem-frequency-setup", "EigenmodesCount")),
         ("6 modes of a static analysis", model_file, analysis(solver={"EigenmodesCount": "6"}),
          labels("fem-frequency-setup", "AnalysisType")),
         ("a buckling analysis", model_file, analysis(solver={"AnalysisType": "buckling", "EigenmodesCount": "6"}),
          labels("fem-frequency-setup", "AnalysisType")))
fem_case("fem-read-displacement", text("answer.txt", "0.716\n"), None,
         ("rounded to 0.7", text("answer.txt", "0.7"), None, labels("fem-read-displacement", "answer")),
         ("in metres", text("answer.txt", "0.000716"), None, labels("fem-read-displacement", "answer")),
         ("the von Mises maximum", text("answer.txt", "294.01"), None, labels("fem-read-displacement", "answer")),
         ("words, no number first", text("answer.txt", "max 0.716 mm"), None, labels("fem-read-displacement", "answer")))
fem_case("fem-export-mesh", text("mesh.inp", inp_text()), None,
         ("a first-order mesh", text("mesh.inp", inp_text(nodes=480, elements=("C3D4", VOLUMES))), None,
          labels("fem-export-mesh", "nodes", "C3D10")),
         ("a UNV file under the name", text("mesh.inp", "    -1\n  2411\n         1         1         1        11\n"),
          None, labels("fem-export-mesh", "nodes", "C3D10")),
         ("a PNG under the name", lambda t: {"mesh": _png(t / "mesh.inp")}, None, labels("fem-export-mesh", "nodes", "C3D10")))
DECK = inp_text(elastic=(210000, 0.3), loads=400, total=-1000.0, fixed=69)
fem_case("fem-write-inp", text("inp.inp", DECK), None,
         ("the mesh alone (exported, not the solver's deck)", text("inp.inp", inp_text()), None,
          labels("fem-write-inp", "elastic", "loads", "holds")),
         ("the force changed to 2500 N first", text("inp.inp", inp_text(elastic=(210000, 0.3), loads=400, total=-2500.0,
                                                                      fixed=69)), None, labels("fem-write-inp", "loads")),
         ("the material changed to aluminium first", text("inp.inp", inp_text(elastic=(70000, 0.35), loads=400,
                                                                             total=-1000.0, fixed=69)), None,
          labels("fem-write-inp", "elastic")),
         ("the results (.frd) under the name", text("inp.inp", frd_text(0.7, 294)), None,
          labels("fem-write-inp", "nodes", "elastic", "loads", "holds")))
PLATE = maxima("plate")
fem_case("fem-plate-solve", text("frd.frd", frd_text(PLATE["max_displacement"], PLATE["max_von_mises"])), None,
         ("the beam's results", text("frd.frd", frd_text(*maxima("beam_base").values())), None,
          labels("fem-plate-solve", "max")),
         ("the plate in steel (a third of the displacement)", text("frd.frd", frd_text(
             PLATE["max_displacement"] / 3, PLATE["max_von_mises"])), None, labels("fem-plate-solve", "displacement")),
         ("an empty file", text("frd.frd", ""), None, labels("fem-plate-solve", "max")),
         ("the input deck under the name", text("frd.frd", DECK), None, labels("fem-plate-solve", "max")))
RESULT = {"name": "CCX_Results", "label": "CCX_Results", "type": "Fem::FemResultObjectPython", "in_analysis": True,
          "result": True}
fem_case("fem-aluminium-solve", model_file, fem_model(young=ALU, result=maxima("beam_aluminium")),
         ("aluminium set, the steel results kept", model_file, fem_model(young=ALU, result=maxima("beam_base")),
          labels("fem-aluminium-solve", "max")),
         ("solved, the material change not saved", model_file, fem_model(result=maxima("beam_base")),
          labels("fem-aluminium-solve", "material", "max")))
fem_case("fem-fixed-solve", model_file, fem_model(fixed=["Face1"], result=maxima("beam_nofixed_fixed")),
         ("fixed, never solved", model_file, fem_model(fixed=["Face1"]), labels("fem-fixed-solve", "max")),
         ("the other end fixed and solved", model_file, fem_model(fixed=["Face2"], result=maxima("beam_base", 0.4)),
          labels("fem-fixed-solve", "fixed", "max")))
fem_case("fem-pressure-solve", model_file, {"fem_more": analysis(pressure()), "fem": fem_model(result=maxima("beam_pressure"))},
         ("pressure added, the old results kept", model_file,
          {"fem_more": analysis(pressure()), "fem": fem_model(result=maxima("beam_base"))},
          labels("fem-pressure-solve", "max")),
         ("the force replaced by the pressure", model_file,
          {"fem_more": analysis(pressure()), "fem": fem_model(result=maxima("beam_base"))},
          labels("fem-pressure-solve", "max")),
         ("pressure on the bottom face, solved", model_file,
          {"fem_more": analysis(pressure(face="Face5")), "fem": fem_model(result=maxima("beam_base", 0.0))},
          labels("fem-pressure-solve", "pressure", "max")))
FREQ = REF["beam_frequency"]["frequencies"]
DAT = MORE / "beam_frequency.dat"


def dat_text(freqs: list[float]) -> str:
    """CalculiX's eigenvalue table for these frequencies (Hz), as in a .dat."""
    rows = [f"{i:>7}   {(2 * math.pi * f) ** 2:.7E}   {2 * math.pi * f:.7E}   {f:.7E}   0.0000000E+00"
            for i, f in enumerate(freqs, 1)]
    return "\n".join(["", "     E I G E N V A L U E   O U T P U T", "", " MODE NO    EIGENVALUE", "", *rows, "",
                      "     P A R T I C I P A T I O N   F A C T O R S", ""])
fem_case("fem-frequency-solve", with_files(model_file, lambda t: {"dat": DAT}),
         {"fem_more": analysis(*modes(FREQ), solver={"AnalysisType": "frequency", "EigenmodesCount": "6"})},
         ("frequency set, solved as static before", with_files(model_file, text("dat.dat", "\n S T E P       1\n")),
          {"fem_more": analysis(solver={"AnalysisType": "frequency"})},
          labels("fem-frequency-solve", "eigenfrequencies")),
         ("aluminium's modes (the material changed too)", with_files(model_file, text("dat.dat", dat_text(
             [f * 0.987 for f in FREQ]))),
          {"fem_more": analysis(*modes([f * 0.987 for f in FREQ]), solver={"AnalysisType": "frequency"})},
          labels("fem-frequency-solve", "eigenfrequencies")))
MESH_3 = json.loads((ROOT / "fixtures/prosoft/fem/reference.json").read_text())["mesh_3"]
fem_case("fem-mesh-solve", model_file, fem_model(nodes=4287, max_size=3.0, result={
             "max_displacement": MESH_3["max_displacement"] * 1.002, "max_von_mises": MESH_3["max_von_mises"] * 0.99}),
         ("meshed at 3 mm, never solved", model_file, fem_model(nodes=4287, max_size=3.0), labels("fem-mesh-solve", "max")),
         ("solved on a 5 mm mesh", model_file, fem_model(nodes=1400, max_size=5.0, result=maxima("beam_base", 0.95)),
          labels("fem-mesh-solve", "meshed", "max")))
STRESS = f"{REF['beam_base']['max_von_mises']:.1f}"
REPORT = with_files(text("frd.frd", frd_text(*maxima("beam_base").values())),
                    text("displacement.txt", "0.7158"), text("stress.txt", STRESS))
fem_case("fem-solve-report", REPORT, None,
         ("the two numbers swapped", with_files(text("frd.frd", frd_text(*maxima("beam_base").values())),
                                                 text("displacement.txt", STRESS), text("stress.txt", "0.7158")), None,
          labels("fem-solve-report", "output")),
         ("the stress in Pa", with_files(text("frd.frd", frd_text(*maxima("beam_base").values())),
                                         text("displacement.txt", "0.7158"), text("stress.txt", "294010000")), None,
          labels("fem-solve-report", "stress")),
         ("numbers written, the solver never run", with_files(text("displacement.txt", "0.7158"),
                                                               text("stress.txt", STRESS)), None,
          labels("fem-solve-report", "max")))


def _png(path: Path) -> Path:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    return path


class PerKind(StandIn):
    """Answers each evaluator's script by its kind: fem.py's script reads ``in_analysis``, fem_more.py's not."""

    def __init__(self, answers: Mapping[str, Any]) -> None:
        super().__init__(answers)
        self.answers = answers

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        kind = "fem_more" if '"proxy"' in argv[-1] else "fem"
        self.answer = self.answers.get(kind)
        return super().run(argv, timeout)


def _env(answer: Any) -> StandIn:
    if isinstance(answer, Mapping) and set(answer) <= {"fem", "fem_more"} and answer:
        return PerKind(answer)
    return StandIn(answer)


@pytest.mark.parametrize("task_id", sorted(FEM_CASES))
def test_the_analysis_each_task_asks_for_passes(tmp_path: Path, task_id: str) -> None:
    right, answer, _ = FEM_CASES[task_id]
    result = evaluate(task_id, right(tmp_path), env=_env(answer))
    assert result and not failed(result), result


@pytest.mark.parametrize("task_id,what,build,answer,must_fail", [
    (t, w, b, a, f) for t, (_, _, near) in sorted(FEM_CASES.items()) for w, b, a, f in near])
def test_fem_near_misses_fail_the_milestones_that_name_them(tmp_path: Path, task_id: str, what: str, build: Build,
                                                            answer: Any, must_fail: set[str]) -> None:
    result = evaluate(task_id, build(tmp_path), env=_env(answer))
    assert set(failed(result)) == must_fail, (what, result)


def test_every_fem_task_has_cases() -> None:
    assert sorted(FEM_CASES) == sorted(t for t in TASKS if t.startswith("fem-")), "a task without its near misses"


@pytest.mark.parametrize("task_id", sorted(FEM_CASES))
def test_fem_missing_files_fail_every_milestone_without_asking_the_container(task_id: str) -> None:
    env = StandIn(None)
    result = evaluate(task_id, {}, env=env)
    assert result and all(m and "was not produced" in m for m in result.values()) and not env.calls


def test_fem_documents_that_are_no_freecad_documents_or_have_no_analysis(tmp_path: Path) -> None:
    env = StandIn(None)
    odt = tmp_path / "beam.FCStd"
    with zipfile.ZipFile(odt, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", "<x/>")
    result = evaluate("fem-self-weight", {"model": odt}, env=env)
    assert all(m and "OpenDocument text" in m for m in result.values()) and not env.calls
    model = model_file(tmp_path)
    assert all("no FEM analysis" in str(m) for m in evaluate("fem-self-weight", model, {"analyses": 0, "objects": []}).values())
    refused = evaluate("fem-self-weight", model, {"error": "FreeCAD cannot open the file: bad"})
    assert all("cannot open" in str(m) for m in refused.values())
    no_solver = evaluate("fem-frequency-setup", model, {"analyses": 1, "objects": []})
    assert all("no CalculiX solver" in str(m) for m in no_solver.values())


# --- CalculiX's files, read on the host ---------------------------------------------------------------------------

def test_the_readers_on_calculix_formats(tmp_path: Path) -> None:
    assert parse_dat_frequencies(DAT) == pytest.approx(FREQ)
    table = tmp_path / "t.dat"
    table.write_text(dat_text([100.0, 200.5]))
    assert parse_dat_frequencies(table) == pytest.approx([100.0, 200.5])
    deck = tmp_path / "deck.inp"
    deck.write_text(DECK)
    got = parse_inp(deck)
    assert got["nodes"] == NODES and got["elements"] == {"C3D10": VOLUMES} and got["elastic"] == [210000, 0.3]
    assert got["cload"][2] == pytest.approx(-1000) and got["boundary_nodes"] == 69
    frd = tmp_path / "r.frd"
    frd.write_text(frd_text(0.5, 100.0))
    assert parse_frd(frd) == {"max_displacement": pytest.approx(0.5, rel=1e-4),
                              "max_von_mises": pytest.approx(100.0, rel=1e-4), "nodes": 5}
    # negative fields run together without a space; an element's nodes continued on a second line
    frd.write_text("    1C\n -4  DISP        4    1\n -1         1-1.00000E+00-1.00000E+00-1.00000E+00\n -3\n")
    assert parse_frd(frd)["max_displacement"] == pytest.approx(math.sqrt(3))
    deck.write_text("*NODE\n1,0,0,0\n2,1,0,0\n*ELEMENT, TYPE=C3D20\n1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,\n"
                    "16, 17, 18, 19, 20\n2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,\n16, 17, 18, 19, 20\n")
    assert parse_inp(deck)["elements"] == {"C3D20": 2}


def test_task_files() -> None:
    from collections import Counter

    for prefix in ("freecad-pd-", "fem-"):
        levels = Counter(t["level"] for i, t in TASKS.items() if i.startswith(prefix))
        assert levels["L1"] >= 8 and levels["L2"] >= 5, (prefix, levels)
    for task in TASKS.values():
        assert task["demonstration"]["actions"] and task["artifacts"] and task["apps"], task["id"]
        for item in task["start_files"]:
            assert (ROOT / item["src"]).is_file(), f"{task['id']}: {item['src']}"
    starts = Counter((tuple(f["src"] for f in t["start_files"]), json.dumps(t["ground_truth"], sort_keys=True))
                     for t in TASKS.values())
    assert max(starts.values()) == 1, "two tasks share their start files and their expected result"
