"""The evaluators of the drafting tasks added by make/librecad_more.py, make/pipelines_more.py and make/l4_more.py,
without docker: the result each task asks for passes every milestone, near misses (the right operation with a
wrong parameter, the right entity on the wrong layer, the change never saved, another file type under the
expected name) fail the milestone that names them, and a missing artifact fails every milestone without an
error. Drawings are built here with ezdxf from the start files, the way LibreCAD saves them (DXF 2007); the
ground truths are the generated tasks' (suites/prosoft/tasks/*_more.json).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable

import pytest

from .evaluation import failed, milestones, truth_of

ezdxf = pytest.importorskip("ezdxf")

ROOT = Path(__file__).resolve().parents[2]
PLAN = ROOT / "fixtures" / "prosoft" / "librecad" / "plan.dxf"
ROOM = ROOT / "fixtures" / "prosoft" / "drafting_more" / "room.dxf"
LC = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/librecad_more.json").read_text())["tasks"]}
Edit = Callable[[Any], None]


def truth(task_id: str) -> dict[str, Any]:
    return truth_of(LC, task_id, "dxf_more")


def start_of(task_id: str) -> Path:
    return ROOM if any(f["dest"].endswith("room.dxf") for f in LC[task_id]["start_files"]) else PLAN


def run(task_id: str, path: Path | None) -> dict[str, str | None]:
    return milestones("dxf_more", truth(task_id), {"drawing": path} if path else {})


def drawing(tmp_path: Path, start: Path, edit: Edit, name: str = "saved.dxf") -> Path:
    """``start`` with ``edit(doc)`` applied, saved as LibreCAD saves (DXF 2007)."""
    doc = ezdxf.readfile(str(start))
    edit(doc)
    doc.dxfversion = "AC1021"
    path = tmp_path / name
    doc.saveas(str(path))
    return path


def both(*edits: Edit) -> Edit:
    def edit(doc: Any) -> None:
        for e in edits:
            e(doc)
    return edit


def noop(doc: Any) -> None:
    return None


def line(a: tuple[float, float], b: tuple[float, float], layer: str = "0") -> Edit:
    return lambda doc: doc.modelspace().add_line(a, b, dxfattribs={"layer": layer})


def circle(c: tuple[float, float], r: float, layer: str = "0") -> Edit:
    return lambda doc: doc.modelspace().add_circle(c, r, dxfattribs={"layer": layer})


def arc(c: tuple[float, float], r: float, start: float, end: float, layer: str = "0") -> Edit:
    return lambda doc: doc.modelspace().add_arc(c, r, start, end, dxfattribs={"layer": layer})


def arc3(p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float], layer: str = "0") -> Edit:
    """An arc through three points, stored counter-clockwise as LibreCAD stores a clockwise one (start and end
    swapped)."""
    (ax, ay), (bx, by), (cx, cy) = p1, p2, p3
    d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ux = ((ax**2 + ay**2) * (by - cy) + (bx**2 + by**2) * (cy - ay) + (cx**2 + cy**2) * (ay - by)) / d
    uy = ((ax**2 + ay**2) * (cx - bx) + (bx**2 + by**2) * (ax - cx) + (cx**2 + cy**2) * (bx - ax)) / d
    r = math.dist((ux, uy), p1)
    a1, a3 = (math.degrees(math.atan2(y - uy, x - ux)) % 360 for x, y in (p1, p3))
    return arc((ux, uy), r, min(a1, a3), max(a1, a3), layer)


def poly(points: list[tuple[float, float]], closed: bool = True, layer: str = "0", repeat_first: bool = False
         ) -> Edit:
    pts = [*points, points[0]] if repeat_first else points
    return lambda doc: doc.modelspace().add_lwpolyline(pts, close=closed and not repeat_first,
                                                       dxfattribs={"layer": layer})


def erase(kind: str, test: Callable[[Any], bool]) -> Edit:
    def edit(doc: Any) -> None:
        for e in list(doc.modelspace().query(kind)):
            if test(e):
                doc.modelspace().delete_entity(e)
    return edit


def text(value: str, at: tuple[float, float], height: float = 5, layer: str = "0") -> Edit:
    return lambda doc: doc.modelspace().add_text(value, height=height, dxfattribs={"layer": layer, "insert": at})


def hatch(boundary: list[tuple[float, float]], pattern: str = "ANSI31", scale: float = 1.0, layer: str = "0",
          solid: bool = False) -> Edit:
    def edit(doc: Any) -> None:
        h = doc.modelspace().add_hatch(dxfattribs={"layer": layer})
        if solid:
            h.set_solid_fill()
        else:
            h.set_pattern_fill(pattern, scale=scale)
        h.paths.add_polyline_path(boundary, is_closed=True)
    return edit


def insert(block: str, at: tuple[float, float], rotation: float = 0, scale: float = 1, layer: str = "0") -> Edit:
    return lambda doc: doc.modelspace().add_blockref(
        block, at, dxfattribs={"layer": layer, "rotation": rotation, "xscale": scale, "yscale": scale})


def layer_state(name: str, hidden: bool | None = None, locked: bool | None = None, off: bool = False) -> Edit:
    def edit(doc: Any) -> None:
        layer = doc.layers.get(name)
        if hidden is not None:
            layer.off() if off and hidden else (layer.freeze() if hidden else layer.thaw())
        if locked is not None:
            layer.lock() if locked else layer.unlock()
    return edit


def move_line(start: tuple[float, float], end: tuple[float, float], new_start: tuple[float, float],
              new_end: tuple[float, float]) -> Edit:
    def edit(doc: Any) -> None:
        for e in doc.modelspace().query("LINE"):
            if tuple(e.dxf.start)[:2] == start and tuple(e.dxf.end)[:2] == end:
                e.dxf.start, e.dxf.end = new_start, new_end
    return edit


# the right drawing of each task and its near misses: (what is wrong, the edit, the milestone(s) that must fail)
RIGHT: dict[str, Edit] = {}
NEAR: dict[str, list[tuple[str, Edit, list[str]]]] = {}


def case(task_id: str, right: Edit, *near: tuple[str, Edit, list[str]]) -> None:
    RIGHT[task_id], NEAR[task_id] = right, list(near)


def labels(task_id: str, *prefixes: str) -> list[str]:
    """The task's milestone labels that start with one of ``prefixes`` (after the artifact name)."""
    names = list(milestones("dxf_more", truth(task_id), {}))
    out = [n for n in names if any(n.startswith(f"drawing {p}") for p in prefixes)]
    assert out, (task_id, prefixes, names)
    return out


TABLE = [(120, 15), (180, 15), (150, 40)]
case("librecad-arc", arc3((50, 0), (42, 16), (30, 20)),
     ("the arc the other way round (270 degrees)", arc((30, 0), 20, 90, 0), ["has arc"]),
     ("radius 25", arc((30, 0), 25, 0, 90), ["has arc"]),
     ("a full circle instead of the arc", circle((30, 0), 20), ["has arc"]),
     ("on layer WALLS", arc((30, 0), 20, 0, 90, layer="WALLS"), ["has arc"]))
case("librecad-polyline", poly(TABLE),
     ("left open", poly(TABLE, closed=False), ["has closed polyline"]),
     ("a vertex at (150, 45)", poly([(120, 15), (180, 15), (150, 45)]), ["has closed polyline"]),
     ("three separate lines", both(line(TABLE[0], TABLE[1]), line(TABLE[1], TABLE[2]), line(TABLE[2], TABLE[0])),
      ["has closed polyline"]),
     ("on layer COLUMNS", poly(TABLE, layer="COLUMNS"), ["has closed polyline"]))
case("librecad-offset", line((0, 110), (200, 110)),
     ("offset to the outside (y = 130)", line((0, 130), (200, 130)), ["has line ["]),
     ("offset by 15", line((0, 105), (200, 105)), ["has line ["]),
     ("the wall itself moved instead of copied", move_line((200, 120), (0, 120), (200, 110), (0, 110)), ["keeps"]))
case("librecad-mirror", circle((50, 60), 10, layer="COLUMNS"),
     ("mirrored about y = 60 (onto itself)", circle((150, 60), 10, layer="COLUMNS"), ["has circle"]),
     ("the original not kept", both(erase("CIRCLE", lambda e: True), circle((50, 60), 10, layer="COLUMNS")),
      ["keeps"]),
     ("the copy on layer 0", circle((50, 60), 10), ["has circle"]))
RUG = [(20, 20), (60, 20), (60, 50), (20, 50)]
case("librecad-rug-hatch", both(hatch(RUG, "ANSI31", 0.5, layer="FURNITURE"), layer_state("NOTES", hidden=True)),
     ("hatched at scale 1", both(hatch(RUG, "ANSI31", 1.0, layer="FURNITURE"), layer_state("NOTES", hidden=True)),
      ["has hatch"]),
     ("solid fill instead of ANSI31",
      both(hatch(RUG, solid=True, layer="FURNITURE"), layer_state("NOTES", hidden=True)), ["has hatch"]),
     ("the hatch on layer 0 (FURNITURE not made current)",
      both(hatch(RUG, "ANSI31", 0.5), layer_state("NOTES", hidden=True)), ["has hatch"]),
     ("the whole room hatched", both(hatch([(0, 0), (160, 0), (160, 100), (0, 100)], "ANSI31", 0.5,
                                           layer="FURNITURE"), layer_state("NOTES", hidden=True)), ["has hatch"]),
     ("NOTES switched off rather than frozen: hidden all the same (passes but for the hatch)",
      both(hatch(RUG, "ANSI31", 1.0, layer="FURNITURE"), layer_state("NOTES", hidden=True, off=True)), ["has hatch"]),
     ("WALLS hidden instead of NOTES",
      both(hatch(RUG, "ANSI31", 0.5, layer="FURNITURE"), layer_state("WALLS", hidden=True)),
      ["layer NOTES", "layer WALLS"]),
     ("the note erased instead of hidden",
      both(hatch(RUG, "ANSI31", 0.5, layer="FURNITURE"), erase("TEXT", lambda e: True)), ["layer NOTES", "keeps"]))
CHAIRS = both(insert("CHAIR", (120, 30), 90, layer="FURNITURE"), insert("CHAIR", (140, 30), 90, layer="FURNITURE"))
case("librecad-chairs", both(CHAIRS, layer_state("WALLS", locked=True)),
     ("not rotated", both(insert("CHAIR", (120, 30), layer="FURNITURE"), insert("CHAIR", (140, 30), layer="FURNITURE"),
                          layer_state("WALLS", locked=True)), ["has insert"]),
     ("the second chair at (150, 30)", both(insert("CHAIR", (120, 30), 90, layer="FURNITURE"),
                                            insert("CHAIR", (150, 30), 90, layer="FURNITURE"),
                                            layer_state("WALLS", locked=True)), ["has insert of block CHAIR at [140"]),
     ("WALLS frozen instead of locked", both(CHAIRS, layer_state("WALLS", hidden=True)), ["layer WALLS"]),
     ("WALLS locked and hidden", both(CHAIRS, layer_state("WALLS", hidden=True, locked=True)), ["layer WALLS"]),
     ("the chairs on layer 0", both(insert("CHAIR", (120, 30), 90), insert("CHAIR", (140, 30), 90),
                                    layer_state("WALLS", locked=True)), ["has insert"]),
     ("chairs drawn as loose lines (the block exploded)",
      both(line((115, 25), (125, 25)), line((135, 25), (145, 25)), layer_state("WALLS", locked=True)),
      ["has insert"]))
TRIMMED = move_line((80, -10), (80, 110), (80, 0), (80, 100))


def vdim(p1: tuple[float, float], p2: tuple[float, float], x: float) -> Edit:
    def edit(doc: Any) -> None:
        doc.modelspace().add_linear_dim(base=(x, p1[1]), p1=p1, p2=p2, angle=90).render()
    return edit


case("librecad-trim-partition", both(TRIMMED, vdim((80, 0), (80, 100), 90)),
     ("only the bottom end trimmed", both(move_line((80, -10), (80, 110), (80, 0), (80, 110)),
                                          vdim((80, 0), (80, 100), 90)), ["has line ["]),
     ("a new line drawn over the partition, which is left as it was",
      both(line((80, 0), (80, 100), layer="WALLS"), vdim((80, 0), (80, 100), 90)), ["no longer has"]),
     ("the partition erased and redrawn on layer 0",
      both(erase("LINE", lambda e: e.dxf.start[1] < 0), line((80, 0), (80, 100)), vdim((80, 0), (80, 100), 90)),
      ["has line ["]),
     ("the dimension measures the old length (120)", both(TRIMMED, vdim((80, -10), (80, 110), 90)),
      ["has linear dimension"]))
case("librecad-door", both(line((30, 0), (30, 20), layer="WALLS"), arc((30, 0), 20, 0, 90, layer="WALLS")),
     ("the leaf on layer 0", both(line((30, 0), (30, 20)), arc((30, 0), 20, 0, 90, layer="WALLS")), ["has line ["]),
     ("the swing opening outwards (below the wall)",
      both(line((30, 0), (30, 20), layer="WALLS"), arc((30, 0), 20, 270, 0, layer="WALLS")), ["has arc"]),
     ("no swing", line((30, 0), (30, 20), layer="WALLS"), ["has arc"]))
case("librecad-mirror-offset", both(circle((50, 60), 10, layer="COLUMNS"), line((0, 10), (200, 10))),
     ("the column moved, not copied", both(erase("CIRCLE", lambda e: True), circle((50, 60), 10, layer="COLUMNS"),
                                           line((0, 10), (200, 10))), ["keeps"]),
     ("the beam outside the room", both(circle((50, 60), 10, layer="COLUMNS"), line((0, -10), (200, -10))),
      ["has line ["]),
     ("the beam along the top wall", both(circle((50, 60), 10, layer="COLUMNS"), line((0, 110), (200, 110))),
      ["has line ["]))


@pytest.mark.parametrize("task_id", sorted(LC))
def test_the_asked_drawing_passes_and_the_start_file_does_not(tmp_path: Path, task_id: str) -> None:
    assert task_id in RIGHT, f"{task_id}: no right drawing in this test (add a case)"
    result = run(task_id, drawing(tmp_path, start_of(task_id), RIGHT[task_id]))
    assert not failed(result), result
    # the change never saved: the start file as it was
    assert failed(run(task_id, drawing(tmp_path, start_of(task_id), noop, name="unsaved.dxf")))


@pytest.mark.parametrize("task_id,what,edit,prefixes",
                         [(t, what, edit, p) for t, cases in sorted(NEAR.items()) for what, edit, p in cases])
def test_near_misses_fail_the_milestone_that_names_them(tmp_path: Path, task_id: str, what: str, edit: Edit,
                                                        prefixes: list[str]) -> None:
    result = run(task_id, drawing(tmp_path, start_of(task_id), edit))
    assert set(failed(result)) == set(labels(task_id, *prefixes)), (what, result)


@pytest.mark.parametrize("task_id", sorted(LC))
def test_a_missing_drawing_fails_every_milestone(task_id: str) -> None:
    result = run(task_id, None)
    assert result and all(message and "was not produced" in message for message in result.values())


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not a dxf", "0\nSECTION\n2\nENTITIES\n".encode(),
                                     "<svg xmlns='http://www.w3.org/2000/svg'/>".encode()])
@pytest.mark.parametrize("task_id", sorted(LC))
def test_another_file_under_the_drawings_name_fails_without_an_error(tmp_path: Path, content: bytes,
                                                                     task_id: str) -> None:
    (tmp_path / "room.dxf").write_bytes(content)
    result = run(task_id, tmp_path / "room.dxf")
    assert result and all(message for message in result.values())


# --- the pipelines' own kinds: svg_layers and impress_svg_layers ----------------------------------------------------
PIPES = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/pipelines_more.json").read_text())["tasks"]}
LC_NS = "https://librecad.org"


def plain_svg(layers: dict[str, list[str]], texts: list[str] = (), lc: bool = True) -> bytes:
    """An SVG as LibreCAD's plain export writes it (a group per layer, ``lc:layername``), with ``texts`` added
    as Inkscape adds a text; ``lc`` False: the groups without their layer names (a redrawn picture)."""
    groups = "".join(
        f'<g {"lc:layername=" + repr(name) if lc else ""} fill="none" stroke="black">{"".join(shapes)}</g>'
        for name, shapes in layers.items())
    words = "".join(f'<text x="10" y="10"><tspan>{t}</tspan></text>' for t in texts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:lc="{LC_NS}" width="200mm" height="135mm" '
            f'viewBox="0 0 200 135">{groups}{words}</svg>').encode()


WALLS4 = ['<line x1="0" y1="135" x2="200" y2="135"/>'] * 4
PLAN_LAYERS = {"0": [], "COLUMNS": ['<circle cx="150" cy="75" r="10"/>'], "WALLS": WALLS4,
               "FURNITURE": ['<circle cx="100" cy="75" r="15"/>']}


def pipe_step(task_id: str, template: str, index: int = 0) -> dict[str, Any]:
    return [dict(s) for s in PIPES[task_id]["ground_truth"]["steps"] if s["template"] == template][index]


def svg_file(tmp_path: Path, data: bytes, name: str = "sheet.svg") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_exported_and_titled_plan_passes_its_svg_steps(tmp_path: Path) -> None:
    plan = pipe_step("pipe-librecad-inkscape-impress", "svg_layers", 0)
    sheet = pipe_step("pipe-librecad-inkscape-impress", "svg_layers", 1)
    assert not failed(milestones("svg_layers", plan, {"plan_svg": svg_file(tmp_path, plain_svg(PLAN_LAYERS))}))
    titled = svg_file(tmp_path, plain_svg(PLAN_LAYERS, ["Ground floor"]))
    assert not failed(milestones("svg_layers", sheet, {"sheet": titled}))


@pytest.mark.parametrize("what,data,missed", [
    ("exported before the table was drawn (no FURNITURE layer)",
     plain_svg({k: v for k, v in PLAN_LAYERS.items() if k != "FURNITURE"}, ["Ground floor"]), ["layer FURNITURE"]),
    ("the title never added", plain_svg(PLAN_LAYERS), ["has the text"]),
    ("the title misspelt", plain_svg(PLAN_LAYERS, ["Groundfloor"]), ["has the text"]),
    ("a redrawn picture: the same shapes, no layers",
     plain_svg(PLAN_LAYERS, ["Ground floor"], lc=False), ["layer COLUMNS", "layer FURNITURE", "layer WALLS"]),
    ("one wall lost", plain_svg({**PLAN_LAYERS, "WALLS": WALLS4[:3]}, ["Ground floor"]), ["layer WALLS"]),
])
def test_sheet_near_misses_fail_the_milestone_that_names_them(tmp_path: Path, what: str, data: bytes,
                                                              missed: list[str]) -> None:
    truth = pipe_step("pipe-librecad-inkscape-impress", "svg_layers", 1)
    result = milestones("svg_layers", truth, {"sheet": svg_file(tmp_path, data)})
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


@pytest.mark.parametrize("content", [b"", PLAN.read_bytes(), b"\x89PNG\r\n\x1a\n0000"])
def test_another_file_under_the_svgs_name_fails_without_an_error(tmp_path: Path, content: bytes) -> None:
    truth = pipe_step("pipe-librecad-inkscape-impress", "svg_layers", 1)
    result = milestones("svg_layers", truth, {"sheet": svg_file(tmp_path, content)})
    assert result and all(message for message in result.values())


def _deck(tmp_path: Path, picture: tuple[str, bytes] | None, title: str = "Floor plan") -> Path:
    from .test_checks_office import deck, picture_frame

    slides = [(t, []) for t in PIPES["pipe-librecad-inkscape-impress"]["ground_truth"]["steps"][-1]["titles"][:3]]
    slides.append((title, []))
    if picture is None:
        return deck(tmp_path, slides)
    return deck(tmp_path, slides, extra={4: picture_frame(picture[0])}, files={picture[0]: picture[1]})


def test_the_slide_with_the_titled_plan_passes(tmp_path: Path) -> None:
    truth = pipe_step("pipe-librecad-inkscape-impress", "impress_svg_layers")
    path = _deck(tmp_path, ("Pictures/sheet.svg", plain_svg(PLAN_LAYERS, ["Ground floor"])))
    assert not failed(milestones("impress_svg_layers", truth, {"deck": path}))


@pytest.mark.parametrize("what,picture,title,missed", [
    ("no picture on the slide", None, "Floor plan", ["shows the SVG"]),
    ("LibreCAD's export without Inkscape's title", ("Pictures/p.svg", plain_svg(PLAN_LAYERS)), "Floor plan",
     ["shows the SVG"]),
    ("a PNG of the plan instead of the SVG", ("Pictures/p.png", b"\x89PNG\r\n\x1a\n" + b"0" * 64), "Floor plan",
     ["shows the SVG"]),
    ("the slide titled otherwise", ("Pictures/s.svg", plain_svg(PLAN_LAYERS, ["Ground floor"])), "Plan",
     ["slide titles"]),
])
def test_slide_near_misses_fail_the_milestone_that_names_them(tmp_path: Path, what: str, picture: Any, title: str,
                                                              missed: list[str]) -> None:
    truth = pipe_step("pipe-librecad-inkscape-impress", "impress_svg_layers")
    result = milestones("impress_svg_layers", truth, {"deck": _deck(tmp_path, picture, title)})
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def test_a_missing_deck_fails_every_milestone_without_an_error() -> None:
    truth = pipe_step("pipe-librecad-inkscape-impress", "impress_svg_layers")
    result = milestones("impress_svg_layers", truth, {})
    assert result and all(message and "was not produced" in message for message in result.values())


# --- L4 open creation on the new programs: creation_more ------------------------------------------------------------
L4 = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/l4_more.json").read_text())["tasks"]}


def constraints_of(task_id: str) -> dict[str, Any]:
    """The task's ground truth without its rubric (judged by a model, not here)."""
    return {k: v for k, v in L4[task_id]["ground_truth"].items() if k != "rubric"}


class LocalPython:
    """Answers ``run`` as the container would for ``python3 FILE ARGS``: the container path is mapped to the file
    written here and run with this interpreter."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        import subprocess
        import sys

        assert argv[0] == "python3", argv
        done = subprocess.run([sys.executable, str(self.files[argv[1]]), *argv[2:]], capture_output=True, text=True,
                              timeout=timeout)
        return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def creation(task_id: str, path: Path | None, env: Any = None) -> dict[str, str | None]:
    from types import SimpleNamespace

    truth = constraints_of(task_id)
    task = SimpleNamespace(id=task_id, extra={"artifacts": L4[task_id]["artifacts"]})
    return milestones("creation_more", truth, {truth["artifact"]: path} if path else {}, task=task, env=env)


def test_every_l4_task_has_constraints_a_rubric_and_a_demonstration() -> None:
    for task_id, task in L4.items():
        truth = task["ground_truth"]
        assert task["level"] == "L4" and task["template"] == "creation_more", task_id
        assert truth["constraints"] and len(truth["rubric"]) >= 3 and task["knowledge"], task_id
        assert task["demonstration"]["actions"], task_id
        assert len(task["demonstration"]["actions"]) <= task["limits"]["max_steps"], task_id


def test_without_a_judge_the_rubric_is_skipped_not_passed() -> None:
    from types import SimpleNamespace

    from pytest_cua.tasks.scoring import MilestoneSkipped
    from suites.prosoft.templates import KINDS

    checks = KINDS["creation_more"](SimpleNamespace(artifacts={}), L4["bkchem-l4-flavour-ester"]["ground_truth"])
    rubric = [check for label, check in checks if label.startswith("rubric: ")]
    assert len(rubric) == 3
    for check in rubric:
        with pytest.raises(MilestoneSkipped):
            check()


def flat(tmp_path: Path, *, size: tuple[float, float] = (10000, 6000), texts: tuple[str, ...] = ("LIVING", "BEDROOM"),
         arc_: bool = True, dim: bool = True, layers: tuple[str, str, str] = ("WALLS", "DOORS", "TEXT"),
         as_lines: bool = False) -> Path:
    """A floor plan as the task asks (outline, interior wall, door with swing, room names, a dimension, own
    layers), with one thing changed by the arguments."""
    doc = ezdxf.new("R2007")
    msp = doc.modelspace()
    for name in set(layers) - {"0"}:
        doc.layers.add(name)
    walls, doors, notes = layers
    w, h = size
    corners = [(0, 0), (w, 0), (w, h), (0, h)]
    if as_lines:
        for i in range(4):
            msp.add_line(corners[i], corners[(i + 1) % 4], dxfattribs={"layer": walls})
    else:
        msp.add_lwpolyline(corners, close=True, dxfattribs={"layer": walls})
    msp.add_line((6000, 0), (6000, h), dxfattribs={"layer": walls})
    msp.add_line((1000, 0), (1000, 1000), dxfattribs={"layer": doors})
    if arc_:
        msp.add_arc((1000, 0), 1000, 0, 90, dxfattribs={"layer": doors})
    for k, value in enumerate(texts):
        msp.add_text(value, height=300, dxfattribs={"layer": notes, "insert": (2000 + 5000 * k, 3000)})
    if dim:
        msp.add_linear_dim(base=(5000, -800), p1=(0, 0), p2=(w, 0), dxfattribs={"layer": notes}).render()
    path = tmp_path / "flat.dxf"
    doc.saveas(str(path))
    return path


def test_the_floor_plan_asked_for_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("librecad-l4-floor-plan", flat(tmp_path)))
    # the outline drawn as four lines is the same rectangle
    assert not failed(creation("librecad-l4-floor-plan", flat(tmp_path, as_lines=True)))


@pytest.mark.parametrize("what,changes,missed", [
    ("a 10 m x 5 m outline", {"size": (10000, 5000)}, ["outline"]),
    ("the bedroom not named", {"texts": ("LIVING",)}, ["'BEDROOM'"]),
    ("a door without its swing", {"arc_": False}, ["ARC"]),
    ("no dimension", {"dim": False}, ["DIMENSION"]),
    ("everything on layer 0", {"layers": ("0", "0", "0")}, ["layers"]),
])
def test_floor_plan_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str,
                                                                    changes: dict[str, Any], missed: list[str]) -> None:
    result = creation("librecad-l4-floor-plan", flat(tmp_path, **changes))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


STATS = L4["vscode-l4-stats-tool"]["artifacts"]["script"]
GOOD_STATS = ('"""Mean and median of the arguments."""\nimport statistics\nimport sys\n\n\n'
              "def mean(values):\n    return sum(values) / len(values)\n\n\n"
              "def median(values):\n    return statistics.median(values)\n\n\n"
              "if __name__ == '__main__':\n    numbers = [float(a) for a in sys.argv[1:]]\n"
              "    print(f'mean: {mean(numbers):.2f}')\n    print(f'median: {median(numbers):.2f}')\n")


def script(tmp_path: Path, text: str) -> tuple[Path, LocalPython]:
    path = tmp_path / "stats.py"
    path.write_text(text)
    return path, LocalPython({STATS: path})


def test_the_stats_tool_asked_for_passes_its_constraints(tmp_path: Path) -> None:
    path, env = script(tmp_path, GOOD_STATS)
    assert not failed(creation("vscode-l4-stats-tool", path, env))


@pytest.mark.parametrize("what,text,missed", [
    ("not rounded to two decimals", GOOD_STATS.replace(":.2f", ""), ["prints"]),
    ("the median computed as a mean", GOOD_STATS.replace("statistics.median(values)", "sum(values) / len(values)"),
     ["prints"]),
    ("no docstring", GOOD_STATS.split("\n", 1)[1], ["docstring"]),
    ("everything inline, no functions", '"""Mean and median."""\nimport statistics, sys\n'
     "n = [float(a) for a in sys.argv[1:]]\nprint(f'mean: {sum(n) / len(n):.2f}')\n"
     "print(f'median: {statistics.median(n):.2f}')\n", ["function"]),
    ("a syntax error", GOOD_STATS.replace("def mean(values):", "def mean(values)"),
     ["docstring", "function", "prints"]),
])
def test_stats_tool_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str, text: str,
                                                                    missed: list[str]) -> None:
    path, env = script(tmp_path, text)
    result = creation("vscode-l4-stats-tool", path, env)
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def ester_cdml(tmp_path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]]) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location("chem_fixtures", ROOT / "fixtures/prosoft/chem/make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "ester.cdml"
    path.write_text(module.cdml(atoms, bonds))
    return path


def molecule(smiles_like: str) -> tuple[list[tuple[str, float, float]], list[tuple[int, int, int]]]:
    """Chains written as element letters with the bonds given: a tiny builder for the structures below."""
    shapes = {
        # butyl acetate CCCCOC(=O)C: C0-C1-C2-C3-O4-C5(=O6)-C7
        "butyl acetate": ("CCCCOCOC", [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 1), (4, 5, 1), (5, 6, 2), (5, 7, 1)]),
        # ethyl acetate CCOC(=O)C: four carbons only
        "ethyl acetate": ("CCOCOC", [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 2), (3, 5, 1)]),
        # pentanoic acid CCCCC(=O)O: an acid, no ester
        "pentanoic acid": ("CCCCCOO", [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 1), (4, 5, 2), (4, 6, 1)]),
        # 2-hexanone CCCCC(=O)C: a ketone
        "hexanone": ("CCCCCOC", [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 1), (4, 5, 2), (4, 6, 1)]),
        # dipropyl ether CCCOCCC: two O missing
        "ether": ("CCCOCCC", [(k, k + 1, 1) for k in range(6)]),
    }
    elements, bonds = shapes[smiles_like]
    return [(e, 4.0 + 0.6 * k, 4.0 + 0.35 * (k % 2)) for k, e in enumerate(elements)], bonds


def test_the_flavour_ester_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("bkchem-l4-flavour-ester", ester_cdml(tmp_path, *molecule("butyl acetate"))))


@pytest.mark.parametrize("what,name,missed", [
    ("an ester of four carbons", "ethyl acetate", ["at least 5 C"]),
    ("the acid, not an ester", "pentanoic acid", ["ester group"]),
    ("a ketone", "hexanone", ["ester group", "at least 2 O"]),
    ("an ether", "ether", ["ester group", "at least 2 O"]),
])
def test_ester_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str, name: str,
                                                               missed: list[str]) -> None:
    result = creation("bkchem-l4-flavour-ester", ester_cdml(tmp_path, *molecule(name)))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def banner(tmp_path: Path, size: tuple[int, int] = (1200, 400), kind: str = "gradient") -> Path:
    from PIL import Image

    image = Image.new("RGB", size, "white")
    if kind == "gradient":  # hues across the width, as a colourful render does
        import colorsys

        for x in range(size[0]):
            r, g, b = colorsys.hsv_to_rgb(x / size[0], 0.7, 0.9)
            for y in range(size[1]):
                image.putpixel((x, y), (int(255 * r), int(255 * g), int(255 * b)))
    elif kind == "one colour":
        image = Image.new("RGB", size, (230, 120, 40))
    path = tmp_path / "festival.png"
    image.save(path)
    return path


def test_the_banner_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("gimp-l4-web-banner", banner(tmp_path)))


@pytest.mark.parametrize("what,kwargs,missed", [
    ("cropped to 1200 x 300", {"size": (1200, 300)}, ["1200 x 400"]),
    ("one flat colour", {"kind": "one colour"}, ["colours"]),
    ("left white", {"kind": "white"}, ["colours", "not blank"]),
])
def test_banner_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str, kwargs: dict[str, Any],
                                                                missed: list[str]) -> None:
    result = creation("gimp-l4-web-banner", banner(tmp_path, **kwargs))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def landuse(tmp_path: Path, colours: list[tuple[int, int, int]], size: tuple[int, int] = (1600, 1000)) -> Path:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for k, colour in enumerate(colours):
        draw.rectangle((100 + 450 * k, 200, 500 + 450 * k, 800), fill=colour, outline=(0, 0, 0))
    path = tmp_path / "landuse_map.png"
    image.save(path)
    return path


CATEGORY = [(232, 192, 125), (76, 154, 76), (192, 80, 77)]


def test_the_landuse_map_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("qgis-l4-landuse-map", landuse(tmp_path, CATEGORY)))


@pytest.mark.parametrize("what,colours,size,missed", [
    ("every parcel in QGIS's one default colour", [CATEGORY[0]] * 3, (1600, 1000), ["colours"]),
    ("exported at the canvas size", CATEGORY, (1280, 720), ["1600 x 1000"]),
])
def test_landuse_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str, colours: Any,
                                                                 size: Any, missed: list[str]) -> None:
    result = creation("qgis-l4-landuse-map", landuse(tmp_path, colours, size))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


class FakeFreeCAD:
    """Answers the FreeCAD shape script as freecadcmd would in the container (one JSON line)."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        return {"returncode": 0, "stdout": "FreeCAD 0.20\n" + json.dumps(self.answer) + "\n", "stderr": ""}


def fcstd(tmp_path: Path, objects: list[tuple[str, str]]) -> Path:
    """A .FCStd whose Document.xml lists these (name, type) objects (the shapes are measured by the fake)."""
    import zipfile

    body = "".join(f'<Object type="{t}" name="{n}"/>' for n, t in objects)
    data = "".join(f'<Object name="{n}"><Properties Count="1"><Property name="Label" type="App::PropertyString">'
                   f'<String value="{n}"/></Property></Properties></Object>' for n, _ in objects)
    path = tmp_path / "plate.FCStd"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("Document.xml", f'<?xml version="1.0"?><Document SchemaVersion="4"><Objects Count="{len(objects)}">'
                                   f"{body}</Objects><ObjectData>{data}</ObjectData></Document>")
    return path


PLATE_OBJECTS = [("Plate", "Part::Box"), ("Hole", "Part::Cylinder"), ("Holes", "Part::MultiFuse"),
                 ("MountingPlate", "Part::Cut")]
CUT_PLATE = {"name": "MountingPlate", "valid": True, "solids": 1, "volume": 80 * 50 * 6 - 4 * math.pi * 9 * 6,
             "bbox": [0, 0, 0, 80, 50, 6]}


def test_the_mounting_plate_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("freecad-l4-mounting-plate", fcstd(tmp_path, PLATE_OBJECTS), FakeFreeCAD(CUT_PLATE)))
    # stood on its edge it is the same plate
    upright = {**CUT_PLATE, "bbox": [0, 0, 0, 6, 80, 50]}
    assert not failed(creation("freecad-l4-mounting-plate", fcstd(tmp_path, PLATE_OBJECTS), FakeFreeCAD(upright)))


@pytest.mark.parametrize("what,objects,answer", [
    ("the plain box, no holes cut", [("Plate", "Part::Box")], {**CUT_PLATE, "name": "Plate", "volume": 24000.0}),
    ("a plate 80 x 50 x 5", PLATE_OBJECTS, {**CUT_PLATE, "bbox": [0, 0, 0, 80, 50, 5]}),
    ("the cut failed (no solid)", PLATE_OBJECTS, {**CUT_PLATE, "valid": False, "solids": 0}),
])
def test_plate_near_misses_fail_the_solid_constraint(tmp_path: Path, what: str, objects: Any,
                                                     answer: dict[str, Any]) -> None:
    result = creation("freecad-l4-mounting-plate", fcstd(tmp_path, objects), FakeFreeCAD(answer))
    assert failed(result) == [label for label in result if "is a solid" in label], (what, result)


@pytest.mark.parametrize("task_id", sorted(L4))
def test_a_missing_creation_fails_every_constraint(task_id: str) -> None:
    result = creation(task_id, None)
    assert result and all(message and "was not produced" in message for message in result.values())


@pytest.mark.parametrize("task_id", sorted(L4))
def test_another_file_under_the_creations_name_fails_without_an_error(tmp_path: Path, task_id: str) -> None:
    wrong = tmp_path / "wrong"
    # a PNG where a drawing, script, part or molecule is asked for; an SVG where a PNG is
    wrong.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>" if L4[task_id]["ground_truth"]["format"] == "png"
                      else banner(tmp_path).read_bytes())
    result = creation(task_id, wrong, FakeFreeCAD(CUT_PLATE))
    assert result and all(message for message in result.values()), result


def title_sheet(tmp_path: Path, *, border: tuple[float, float] = (297, 210), title_at: tuple[float, float] = (192, 27),
                texts: tuple[str, ...] = ("MOUNTING PLATE", "SCALE 1:1", "A4")) -> Path:
    doc = ezdxf.new("R2007")
    msp = doc.modelspace()
    w, h = border
    msp.add_lwpolyline([(0, 0), (w, 0), (w, h), (0, h)], close=True)
    msp.add_lwpolyline([(187, 0), (297, 0), (297, 40), (187, 40)], close=True)
    msp.add_line((187, 20), (297, 20))
    for k, value in enumerate(texts):
        at = title_at if k == 0 else (192 + 70 * (k - 1), 7)
        msp.add_text(value, height=5 if k == 0 else 3.5, dxfattribs={"insert": at})
    path = tmp_path / "a4_sheet.dxf"
    doc.saveas(str(path))
    return path


def test_the_title_sheet_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("librecad-l4-title-sheet", title_sheet(tmp_path)))


@pytest.mark.parametrize("what,changes,missed", [
    ("an A4 portrait border", {"border": (210, 297)}, ["outline", "fits"]),
    ("the title written past the border", {"title_at": (280, 27)}, ["fits"]),
    ("no sheet size", {"texts": ("MOUNTING PLATE", "SCALE 1:1")}, ["'A4'"]),
    ("the scale written 1:2", {"texts": ("MOUNTING PLATE", "SCALE 1:2", "A4")}, ["'SCALE 1:1'"]),
])
def test_title_sheet_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str,
                                                                     changes: dict[str, Any], missed: list[str]) -> None:
    result = creation("librecad-l4-title-sheet", title_sheet(tmp_path, **changes))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def cells_figure(tmp_path: Path, lut: bool = True, size: tuple[int, int] = (256, 256)) -> Path:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (256, 256), (0, 0, 120) if lut else (0, 0, 0))
    draw = ImageDraw.Draw(image)
    for k in range(8):
        colour = (255, 220 - 15 * k, 0) if lut else (230 - 10 * k,) * 3
        draw.ellipse((20 + 28 * k, 30 + 20 * (k % 3), 44 + 28 * k, 54 + 20 * (k % 3)), fill=colour)
    draw.rectangle((150, 235, 240, 240), fill=(255, 255, 255))  # the scale bar
    path = tmp_path / "cells_figure.png"
    image.resize(size).save(path)
    return path


def test_the_cells_figure_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("imagej-l4-cells-figure", cells_figure(tmp_path)))


@pytest.mark.parametrize("what,kwargs,missed", [
    ("left grey (no lookup table)", {"lut": False}, ["colours"]),
    ("scaled to 512 x 512", {"size": (512, 512)}, ["256 x 256"]),
])
def test_cells_figure_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str,
                                                                      kwargs: dict[str, Any], missed: list[str]) -> None:
    result = creation("imagej-l4-cells-figure", cells_figure(tmp_path, **kwargs))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


SCH = ROOT / "fixtures" / "prosoft" / "engineering" / "divider.kicad_sch"
TITLE = ('  (title_block\n    (title "{title}")\n    (date "2026-12-07")\n    (rev "{rev}")\n'
         '    (company "Harbor Light Studio")\n  )\n')


def released(tmp_path: Path, *, title: str = "RC divider and filter", rev: str = "A",
             note: str | None = "R1 and R2 halve VIN, R3 and C2 low-pass filter it", r3: str = "1k") -> Path:
    """divider.kicad_sch as KiCad saves it after Page Settings and Place > Text (with the asked changes)."""
    text = SCH.read_text()
    head, rest = text.split("\n", 1)
    body = head + "\n" + TITLE.format(title=title, rev=rev) + rest
    if note is not None:
        body = body.rstrip().rstrip(")") + f'  (text "{note}" (at 66.04 132.08 0)\n    (effects (font (size 1.27 1.27))))\n)\n'
    if r3 != "1k":
        body = body.replace('(property "Value" "1k"', f'(property "Value" "{r3}"', 1)
    path = tmp_path / "divider.kicad_sch"
    path.write_text(body)
    return path


def test_the_released_sheet_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("kicad-l4-release-sheet", released(tmp_path)))


@pytest.mark.parametrize("what,changes,missed", [
    ("no revision", {"rev": ""}, ["title block"]),
    ("the note is three words", {"note": "RC divider circuit"}, ["note"]),
    ("no note at all", {"note": None}, ["note"]),
    ("R3 changed while documenting", {"r3": "2k2"}, ["keeps"]),
])
def test_release_sheet_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str,
                                                                       changes: dict[str, Any],
                                                                       missed: list[str]) -> None:
    result = creation("kicad-l4-release-sheet", released(tmp_path, **changes))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def test_the_unsaved_schematic_fails_title_block_and_note(tmp_path: Path) -> None:
    result = creation("kicad-l4-release-sheet", SCH)
    assert sorted(failed(result)) == sorted(label for label in result if "title block" in label or "note" in label)


def test_the_judges_pictures_of_a_schematic_and_a_script_are_pngs(tmp_path: Path) -> None:
    from suites.prosoft.checks.l4_more import render_kicad, render_text

    for png in (render_kicad(released(tmp_path)), render_text(Path(__file__))):
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000


STUDY = ROOT / "fixtures" / "prosoft" / "taguette" / "study.sqlite3"
NEW = {"flexibility": "Choosing when and where the work gets done",
       "childcare": "Looking after children during the working day",
       "workspace": "How people set up their place of work at home"}


def study(tmp_path: Path, tags: dict[str, str] = NEW, coded: list[tuple[str, int, int]] = (
        ("workspace", 2, 0), ("flexibility", 1, 1)), drop_document: bool = False) -> Path:
    """The start database with ``tags`` added and passages coded: (tag, document id, offset of a new highlight)."""
    import shutil
    import sqlite3

    path = tmp_path / "study.sqlite3"
    shutil.copy(STUDY, path)
    conn = sqlite3.connect(path)
    ids = {}
    for name, description in tags.items():
        ids[name] = conn.execute("INSERT INTO tags (project_id, path, description) VALUES (1, ?, ?)",
                                 (name, description)).lastrowid
    for k, (tag, document, start) in enumerate(coded):
        highlight = conn.execute("INSERT INTO highlights (document_id, start_offset, end_offset, snippet) "
                                 "VALUES (?, ?, ?, ?)", (document, 1000 + start, 1040 + start + k, "a passage")).lastrowid
        conn.execute("INSERT INTO highlight_tags (highlight_id, tag_id) VALUES (?, ?)", (highlight, ids[tag]))
    if drop_document:
        conn.execute("DELETE FROM documents WHERE name = 'Interview B'")
    conn.commit()
    conn.close()
    return path


def test_the_extended_codebook_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("taguette-l4-codebook", study(tmp_path)))


@pytest.mark.parametrize("what,changes,missed", [
    ("two new tags only", {"tags": dict(list(NEW.items())[:2]), "coded": [("childcare", 2, 0)]}, ["described", "codes"]),
    ("descriptions of one word", {"tags": {k: "todo" for k in NEW}}, ["described"]),
    ("one passage coded", {"coded": [("workspace", 2, 0)]}, ["codes"]),
    ("an interview deleted (and its coded passage with it)", {"drop_document": True}, ["keeps", "codes"]),
])
def test_codebook_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str, changes: dict[str, Any],
                                                                  missed: list[str]) -> None:
    result = creation("taguette-l4-codebook", study(tmp_path, **changes))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def test_the_start_database_fails_the_new_tags_and_codes(tmp_path: Path) -> None:
    result = creation("taguette-l4-codebook", STUDY)
    assert sorted(failed(result)) == sorted(label for label in result if "new tags" in label)


def test_the_judges_picture_of_a_codebook_is_a_png(tmp_path: Path) -> None:
    from suites.prosoft.checks.l4_more import render_taguette

    assert render_taguette(study(tmp_path)).startswith(b"\x89PNG\r\n\x1a\n")


def bode(tmp_path: Path, r: float = 3300, c: float = 47e-9, start: float = 10, stop: float = 1e5,
         per_decade: int = 20, order: int = 1) -> Path:
    """What ``wrdata FILE vdb(out)`` writes after ``ac dec N START STOP`` on an RC low-pass (of ``order`` equal
    stages, ideal buffers between them)."""
    corner = 1 / (2 * math.pi * r * c)
    decades = math.log10(stop / start)
    rows = []
    for k in range(int(round(decades * per_decade)) + 1):
        f = start * 10 ** (k / per_decade)
        rows.append(f" {f:.6e}  {order * -10 * math.log10(1 + (f / corner) ** 2):.6e}")
    path = tmp_path / "bode.txt"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_the_filter_design_passes_its_constraints(tmp_path: Path) -> None:
    assert not failed(creation("ngspice-l4-filter-design", bode(tmp_path)))
    # 4.7k and 33n is another right design
    assert not failed(creation("ngspice-l4-filter-design", bode(tmp_path, r=4700, c=33e-9)))


@pytest.mark.parametrize("what,kwargs,missed", [
    ("1.5k and 100n: the corner at 1061 Hz", {"r": 1500, "c": 100e-9}, ["falls 3 dB"]),
    ("the start circuit left as it was (159 Hz)", {"r": 1000, "c": 1e-6}, ["falls 3 dB"]),
    ("swept only to 10 kHz", {"stop": 1e4}, ["sweeps", "rolls off"]),
])
def test_filter_design_near_misses_fail_the_constraint_that_names_them(tmp_path: Path, what: str,
                                                                       kwargs: dict[str, Any],
                                                                       missed: list[str]) -> None:
    result = creation("ngspice-l4-filter-design", bode(tmp_path, **kwargs))
    assert sorted(failed(result)) == sorted(label for label in result if any(m in label for m in missed)), (what, result)


def test_a_transients_data_under_the_sweeps_name_fails_every_curve_constraint(tmp_path: Path) -> None:
    path = tmp_path / "bode.txt"  # wrdata after tran: time from 0 s, the output voltage
    path.write_text("".join(f" {t * 1e-5:.6e}  {5 * (1 - math.exp(-t / 100)):.6e}\n" for t in range(500)))
    result = creation("ngspice-l4-filter-design", path)
    assert failed(result) == [label for label in result if not label.startswith("bode saved")], result


def test_the_judges_picture_of_a_sweep_is_a_png(tmp_path: Path) -> None:
    from suites.prosoft.checks.l4_more import render_bode

    assert render_bode(bode(tmp_path)).startswith(b"\x89PNG\r\n\x1a\n")
