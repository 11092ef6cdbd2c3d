"""The engineering evaluators (QGIS, FreeCAD, KiCad) without docker: a correct artifact passes every milestone,
each kind of wrong artifact fails the milestone that names it, a missing artifact fails (never errors).

Artifacts are built here from the start files (fixtures/prosoft/engineering) the way the programs save them:
KiCad s-expressions edited as text, FreeCAD's Document.xml edited inside the .FCStd zip, GeoJSON/CSV/.qgs
written with json/csv/zipfile, STL and STEP written by hand. The ground truths are those of the generated tasks
(suites/prosoft/tasks/engineering.json), so a change of a task's truth is tested too. The one figure computed
in the container (a FreeCAD solid's volume, by freecadcmd) comes from a stand-in environment here.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping

import pytest

from suites.prosoft.checks import kicad
from suites.prosoft.checks.freecad import stl_triangles

from .evaluation import failed, milestones, truth_of as shared_truth_of

ROOT = Path(__file__).resolve().parents[2]
ENG = ROOT / "fixtures" / "prosoft" / "engineering"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/engineering.json").read_text())["tasks"]}


class FakeEnv:
    """Answers ``run`` like the container would for the FreeCAD shape script: one JSON line."""

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self.answer, self.calls = dict(answer), []  # type: ignore[var-annotated]

    def run(self, argv: list[str], timeout: float = 60) -> dict[str, Any]:
        self.calls.append(argv)
        return {"returncode": 0, "stdout": "FreeCAD banner\n" + json.dumps(self.answer) + "\n", "stderr": ""}


def run(kind: str, truth: Mapping[str, Any], artifacts: Mapping[str, Path], task_id: str = "",
        env: Any = None) -> dict[str, str | None]:
    """Each milestone's label -> None (passed) or its assertion message."""
    task = SimpleNamespace(id=task_id, extra={"artifacts": (TASKS.get(task_id) or {}).get("artifacts", {})})
    return milestones(kind, truth, artifacts, task=task, env=env)


def truth_of(task_id: str, kind: str) -> dict[str, Any]:
    return shared_truth_of(TASKS, task_id, kind)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- the tasks as a whole --------------------------------------------------------------------------------------

def test_task_file_shape() -> None:
    from collections import Counter

    levels = Counter(t["level"] for t in TASKS.values())
    assert levels["L1"] >= 14 and levels["L2"] >= 10 and levels["L3"] >= 3
    for program in ("qgis", "freecad", "kicad"):
        assert sum(1 for t in TASKS.values() if t["id"].startswith(program)) >= 7, program
    assert sum(1 for t in TASKS.values() if t.get("knowledge")) * 3 >= len(TASKS)
    for task in TASKS.values():
        assert task["demonstration"]["actions"] and task["artifacts"], task["id"]
        for item in task["start_files"]:
            assert (ROOT / item["src"]).is_file(), f"{task['id']}: {item['src']}"


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_missing_artifacts_fail_every_milestone(task_id: str) -> None:
    task = TASKS[task_id]
    steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
    for step in steps:
        kind = step.get("template", task["template"])
        result = run(kind, step, {}, task_id, env=FakeEnv({"error": "must not be asked"}))
        assert result and all(message for message in result.values()), (task_id, result)


# --- KiCad -----------------------------------------------------------------------------------------------------

def test_schematic_value_change(tmp_path: Path) -> None:
    truth = truth_of("kicad-sch-value", "kicad_sch")
    original = (ENG / "divider.kicad_sch").read_text()
    assert failed(run("kicad_sch", truth, {"schematic": ENG / "divider.kicad_sch"})) == ["schematic R3 = 2k2"]
    edited = original.replace('(property "Value" "1k"', '(property "Value" "2k2"').replace(
        '(value "1k")', '(value "2k2")')
    assert not failed(run("kicad_sch", truth, {"schematic": write(tmp_path / "a.kicad_sch", edited)}))
    both = edited.replace('(property "Value" "10k"', '(property "Value" "22k"', 1)
    assert failed(run("kicad_sch", truth, {"schematic": write(tmp_path / "b.kicad_sch", both)})) == [
        "schematic other parts unchanged"]


def test_schematic_annotation(tmp_path: Path) -> None:
    truth = truth_of("kicad-sch-annotate", "kicad_sch")
    start = (ENG / "filter.kicad_sch").read_text()
    assert failed(run("kicad_sch", truth, {"schematic": ENG / "filter.kicad_sch"})) == [
        "schematic every part annotated, references unique"]
    counter = {"R": 0, "C": 0}

    def number(match: re.Match) -> str:
        counter[match.group(2)] += 1
        return f"{match.group(1)}{match.group(2)}{counter[match.group(2)]}\""
    # the property and the instance of each symbol: number them in file order, both lists alike
    props, _, instances = start.partition("(symbol_instances")
    annotated = re.sub(r'(\(property "Reference" ")([RC])\?"', number, props)
    counter = {"R": 0, "C": 0}
    annotated += "(symbol_instances" + re.sub(r'(\(reference ")([RC])\?"', number, instances)
    assert not failed(run("kicad_sch", truth, {"schematic": write(tmp_path / "a.kicad_sch", annotated)}))
    twice = annotated.replace('(reference "R2")', '(reference "R1")')
    assert "references used twice" in run("kicad_sch", truth, {"schematic": write(tmp_path / "b.kicad_sch", twice)})[
        "schematic every part annotated, references unique"]


def test_schematic_text_and_broken_file(tmp_path: Path) -> None:
    truth = truth_of("kicad-sch-text", "kicad_sch")
    text = (ENG / "divider.kicad_sch").read_text()
    with_text = text.replace("\n  (sheet_instances", '\n  (text "Rev B" (at 66.04 132.08 0)\n    (effects (font '
                             '(size 1.27 1.27)) (justify left bottom))\n  )\n\n  (sheet_instances')
    assert not failed(run("kicad_sch", truth, {"schematic": write(tmp_path / "a.kicad_sch", with_text)}))
    assert failed(run("kicad_sch", truth, {"schematic": ENG / "divider.kicad_sch"})) == ["schematic text 'Rev B'"]
    broken = run("kicad_sch", truth, {"schematic": write(tmp_path / "b.kicad_sch", text[:500])})
    assert all(message and "not a KiCad file" in message for message in broken.values())


def netlist_text(values: Mapping[str, str], nets: Mapping[str, list[str]]) -> str:
    comps = "".join(f'    (comp (ref "{r}") (value "{v}") (footprint "x"))\n' for r, v in values.items())
    body = ""
    for code, (name, nodes) in enumerate(nets.items(), start=1):
        body += f'    (net (code "{code}") (name "/{name}")\n'
        body += "".join(f'      (node (ref "{n.split(".")[0]}") (pin "{n.split(".")[1]}"))\n' for n in nodes) + "    )\n"
    return f'(export (version "E")\n  (components\n{comps}  )\n  (nets\n{body}  )\n)\n'


def test_netlist(tmp_path: Path) -> None:
    truth = truth_of("kicad-sch-netlist", "kicad_netlist")
    good = write(tmp_path / "a.net", netlist_text(truth["components"], truth["nets"]))
    assert not failed(run("kicad_netlist", truth, {"netlist": good}))
    wrong = dict(truth["nets"], GND=["R2.2", "C1.2"])
    assert failed(run("kicad_netlist", truth, {"netlist": write(tmp_path / "b.net", netlist_text(
        truth["components"], wrong))})) == ["netlist net GND"]
    assert failed(run("kicad_netlist", truth, {"netlist": write(tmp_path / "c.net", netlist_text(
        {**truth["components"], "R3": "2k2"}, truth["nets"]))})) == ["netlist lists the 5 components"]


def board(extra: str = "") -> str:
    """The start board with ``extra`` elements (tracks, texts) before its closing parenthesis."""
    text = (ENG / "divider.kicad_pcb").read_text()
    return text.replace("\n\n)\n", "\n" + extra + "\n)\n") if extra else text


SEGMENT = '  (segment (start 110.9125 106) (end 125.0875 106) (width 0.25) (layer "F.Cu") (net 2) (tstamp a))'


def test_board_track(tmp_path: Path) -> None:
    truth = truth_of("kicad-pcb-track", "kicad_pcb")
    label = "board track R1.2-R3.1 on MID"
    assert failed(run("kicad_pcb", truth, {"board": ENG / "divider.kicad_pcb"})) == [label]
    assert not failed(run("kicad_pcb", truth, {"board": write(tmp_path / "a.kicad_pcb", board(extra=SEGMENT))}))
    # two segments with a bend still join the pads
    bent = ('  (segment (start 110.9125 106) (end 118 103) (width 0.25) (layer "F.Cu") (net 2) (tstamp a))\n'
            '  (segment (start 118 103) (end 125.0875 106) (width 0.25) (layer "F.Cu") (net 2) (tstamp b))')
    assert not failed(run("kicad_pcb", truth, {"board": write(tmp_path / "b.kicad_pcb", board(extra=bent))}))
    short = SEGMENT.replace("(end 125.0875 106)", "(end 118 106)")
    assert "do not join" in (run("kicad_pcb", truth, {"board": write(tmp_path / "c.kicad_pcb", board(extra=short))})[label]
                             or "")
    other_net = SEGMENT.replace("(net 2)", "(net 1)")
    assert failed(run("kicad_pcb", truth, {"board": write(tmp_path / "d.kicad_pcb", board(extra=other_net))})) == [label]


def move_r3(text: str, at: str = "(at 128 118 90)") -> str:
    start = text.index('(fp_text reference "R3"')
    head = text.rindex("(footprint", 0, start)
    return text[:head] + text[head:start].replace("(at 126 106)", at) + text[start:]


def test_board_move_and_text(tmp_path: Path) -> None:
    truth = truth_of("kicad-pcb-move", "kicad_pcb")
    moved = write(tmp_path / "a.kicad_pcb", move_r3((ENG / "divider.kicad_pcb").read_text()))
    assert not failed(run("kicad_pcb", truth, {"board": moved}))
    unrotated = write(tmp_path / "b.kicad_pcb", move_r3((ENG / "divider.kicad_pcb").read_text(), "(at 128 118)"))
    assert "rotated 0°" in (run("kicad_pcb", truth, {"board": unrotated})[
        "board footprint R3 at [128, 118], rotation 90"] or "")
    also_r1 = moved.read_text().replace("(at 110 106)", "(at 111 106)", 1)
    assert failed(run("kicad_pcb", truth, {"board": write(tmp_path / "c.kicad_pcb", also_r1)})) == [
        "board other footprints in place"]
    # a rotated footprint's pads turn with it: pad 1 of R3 lies below its centre
    pads = kicad.board_footprints(kicad.read(moved, "kicad_pcb"))["R3"]["pads"]
    assert pads["1"][:2] == pytest.approx((128, 118.9125))

    text_truth = truth_of("kicad-pcb-text", "kicad_pcb")
    silk = '  (gr_text "RC-DIV v1" (at 119.38 121.92) (layer "F.SilkS") (tstamp t)\n    (effects (font (size 1.5 1.5)))\n  )'
    assert not failed(run("kicad_pcb", text_truth, {"board": write(tmp_path / "d.kicad_pcb", board(extra=silk))}))
    copper = silk.replace("F.SilkS", "F.Cu")
    assert failed(run("kicad_pcb", text_truth, {"board": write(tmp_path / "e.kicad_pcb", board(extra=copper))}))


# --- FreeCAD ---------------------------------------------------------------------------------------------------

def fcstd(path: Path, edit: Any) -> Path:
    """bracket.FCStd with its Document.xml passed through ``edit``."""
    with zipfile.ZipFile(ENG / "bracket.FCStd") as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "Document.xml":
                data = edit(data.decode()).encode()
            dst.writestr(item, data)
    return path


def relabel(xml: str, name: str, label: str) -> str:
    head = xml.index(f'<Object name="{name}"', xml.index("<ObjectData"))
    start = xml.index('<Property name="Label"', head)
    end = xml.index("</Property>", start)
    return xml[:start] + re.sub(r'<String value="[^"]*"', f'<String value="{label}"', xml[start:end], count=1) + xml[end:]


def set_float(xml: str, name: str, prop: str, value: float) -> str:
    head = xml.index(f'<Object name="{name}"', xml.index("<ObjectData"))
    start = xml.index(f'<Property name="{prop}"', head)
    end = xml.index("</Property>", start)
    return xml[:start] + re.sub(r'<Float value="[^"]*"', f'<Float value="{value}"', xml[start:end], count=1) + xml[end:]


def add_cut(xml: str, base: str = "Box", tool: str = "Cylinder") -> str:
    xml = xml.replace('<Objects Count="2"', '<Objects Count="3"')
    xml = xml.replace("</Objects>", '<Object type="Part::Cut" name="Cut" id="3"/>\n</Objects>', 1)
    data = ('<Object name="Cut"><Properties Count="3">'
            '<Property name="Label" type="App::PropertyString"><String value="Cut"/></Property>'
            f'<Property name="Base" type="App::PropertyLink"><Link value="{base}"/></Property>'
            f'<Property name="Tool" type="App::PropertyLink"><Link value="{tool}"/></Property>'
            "</Properties></Object>\n")
    return xml.replace("</ObjectData>", data + "</ObjectData>", 1)


def test_document_labels_and_properties(tmp_path: Path) -> None:
    rename = truth_of("freecad-rename-box", "fcstd")
    assert failed(run("fcstd", rename, {"part": ENG / "bracket.FCStd"})) == ["part Box labelled 'Plate'"]
    assert not failed(run("fcstd", rename, {"part": fcstd(tmp_path / "a.FCStd", lambda x: relabel(x, "Box", "Plate"))}))
    length = truth_of("freecad-box-length", "fcstd")
    assert failed(run("fcstd", length, {"part": ENG / "bracket.FCStd"})) == ["part Box.Length = 80"]
    longer = fcstd(tmp_path / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80))
    assert not failed(run("fcstd", length, {"part": longer}))
    # the object is found by its label too
    assert not failed(run("fcstd", {"properties": {"Plate.Length": 80}}, {"part": fcstd(
        tmp_path / "c.FCStd", lambda x: relabel(set_float(x, "Box", "Length", 80), "Box", "Plate"))}))
    not_zip = write(tmp_path / "d.FCStd", "not a zip")
    assert "not a FreeCAD document" in (run("fcstd", length, {"part": not_zip})["part Box.Length = 80"] or "")


def test_document_cut_and_its_shape(tmp_path: Path) -> None:
    truth = truth_of("freecad-cut-hole", "fcstd")
    cut = fcstd(tmp_path / "a.FCStd", add_cut)
    good = {"name": "Cut", "valid": True, "solids": 1, "volume": 23214.6018, "bbox": [0, 0, 0, 60, 40, 10]}
    env = FakeEnv(good)
    assert not failed(run("fcstd", truth, {"part": cut}, "freecad-cut-hole", env))
    assert env.calls and env.calls[0][:2] == ["freecadcmd", "-c"] and "/root/work/bracket.FCStd" in env.calls[0][2]
    uncut = run("fcstd", truth, {"part": ENG / "bracket.FCStd"}, "freecad-cut-hole", FakeEnv(good))
    assert set(failed(uncut)) == set(uncut)  # no Part::Cut: every milestone fails, the shape one included
    reversed_cut = fcstd(tmp_path / "b.FCStd", lambda x: add_cut(x, "Cylinder", "Box"))
    assert failed(run("fcstd", truth, {"part": reversed_cut}, "freecad-cut-hole", FakeEnv(good))) == [
        "part Part::Cut of Base Box, Tool Cylinder"]
    solid_box = dict(good, volume=24000.0)
    assert failed(run("fcstd", truth, {"part": cut}, "freecad-cut-hole", FakeEnv(solid_box))) == [
        "part Part::Cut shape"]


def stl_binary(path: Path, size: tuple[float, float, float]) -> Path:
    x, y, z = size
    v = [(0, 0, 0), (x, 0, 0), (x, y, 0), (0, y, 0), (0, 0, z), (x, 0, z), (x, y, z), (0, y, z)]
    faces = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4), (1, 2, 6), (1, 6, 5), (2, 3, 7),
             (2, 7, 6), (3, 0, 4), (3, 4, 7)]
    data = b"\0" * 80 + struct.pack("<I", len(faces))
    for face in faces:
        data += struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *v[i]) for i in face) + b"\0\0"
    path.write_bytes(data)
    return path


def test_stl_mesh(tmp_path: Path) -> None:
    truth = truth_of("freecad-export-stl", "stl")
    assert not failed(run("stl", truth, {"mesh": stl_binary(tmp_path / "a.stl", (60, 40, 10))}))
    assert set(failed(run("stl", truth, {"mesh": stl_binary(tmp_path / "b.stl", (80, 40, 10))}))) == {
        "mesh bounding box (0, 0, 0)-(60, 40, 10)", "mesh volume 24000 mm³"}
    ascii_stl = "solid box\n" + "".join(
        f"facet normal 0 0 0\nouter loop\n{''.join(f'vertex {a} {b} {c}' + chr(10) for a, b, c in tri)}endloop\n"
        "endfacet\n" for tri in stl_triangles(tmp_path / "a.stl")) + "endsolid box\n"
    assert not failed(run("stl", truth, {"mesh": write(tmp_path / "c.stl", ascii_stl)}))
    assert failed(run("stl", truth, {"mesh": write(tmp_path / "d.stl", "hello")}))


def step_text(size: tuple[float, float, float]) -> str:
    x, y, z = size
    corners = [(a, b, c) for a in (0, x) for b in (0, y) for c in (0, z)]
    lines = ["ISO-10303-21;", "HEADER;", "ENDSEC;", "DATA;", "#1 = MANIFOLD_SOLID_BREP('',#2);",
             "#2 = CARTESIAN_POINT('',(-100.,-100.,-100.));"]  # an axis point far outside: not a vertex
    for i, (a, b, c) in enumerate(corners):
        lines.append(f"#{10 + 2 * i} = VERTEX_POINT('',#{11 + 2 * i});")
        lines.append(f"#{11 + 2 * i} = CARTESIAN_POINT('',({a:.1f},{b:.1f},{c:.1f}));")
    return "\n".join(lines + ["ENDSEC;", "END-ISO-10303-21;"]) + "\n"


def test_step_file(tmp_path: Path) -> None:
    truth = truth_of("freecad-export-step", "step")
    assert not failed(run("step", truth, {"step": write(tmp_path / "a.step", step_text((60, 40, 10)))}))
    assert failed(run("step", truth, {"step": write(tmp_path / "b.step", step_text((80, 40, 10)))})) == [
        "step bounding box (0, 0, 0)-(60, 40, 10)"]
    bad = run("step", truth, {"step": write(tmp_path / "c.step", "solid x")})
    assert all(message and "not a STEP file" in message for message in bad.values())


# --- QGIS ------------------------------------------------------------------------------------------------------

def parcels() -> dict[str, Any]:
    return json.loads((ENG / "parcels.geojson").read_text())


def geojson(path: Path, data: Mapping[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_geojson_selection(tmp_path: Path) -> None:
    truth = truth_of("qgis-select-parks", "geojson")
    data = parcels()
    parks = dict(data, features=[f for f in data["features"] if f["properties"]["landuse"] == "park"])
    assert not failed(run("geojson", truth, {"layer": geojson(tmp_path / "a.geojson", parks)}))
    assert set(failed(run("geojson", truth, {"layer": ENG / "parcels.geojson"}))) == {
        "layer has 3 features", "layer holds the right features"}
    multi = dict(parks, features=[dict(f, geometry={"type": "MultiPolygon", "coordinates": [f["geometry"]["coordinates"]]})
                                  for f in parks["features"]])
    assert not failed(run("geojson", truth, {"layer": geojson(tmp_path / "b.geojson", multi)}))
    assert "not GeoJSON" in (run("geojson", truth, {"layer": write(tmp_path / "c.geojson", "{")})["layer has 3 features"]
                             or "")


def test_geojson_reprojection_and_area_field(tmp_path: Path) -> None:
    truth = truth_of("qgis-reproject-wgs84", "geojson")
    label = "layer coordinates within [14.99, 45.15, 15.01, 45.16]"
    assert failed(run("geojson", truth, {"layer": ENG / "parcels.geojson"})) == [label]
    data = parcels()
    for f in data["features"]:  # near-enough degrees: 1 m is about 1/78700 degree of longitude here
        f["geometry"]["coordinates"] = [[[15 + (x - 500000) / 78700, 45.1535 + (y - 5000000) / 111100]
                                         for x, y in ring] for ring in f["geometry"]["coordinates"]]
    assert not failed(run("geojson", truth, {"layer": geojson(tmp_path / "a.geojson", data)}))

    area = truth_of("qgis-area-field", "geojson")
    data = parcels()
    for f in data["features"]:
        ring = f["geometry"]["coordinates"][0]
        f["properties"]["area_m2"] = (ring[1][0] - ring[0][0]) * (ring[2][1] - ring[1][1]) * 1.0008  # ellipsoidal
    assert not failed(run("geojson", area, {"layer": geojson(tmp_path / "b.geojson", data)}))
    data["features"][2]["properties"]["area_m2"] = 100
    assert failed(run("geojson", area, {"layer": geojson(tmp_path / "c.geojson", data)})) == ["layer field area_m2 values"]
    assert set(failed(run("geojson", area, {"layer": ENG / "parcels.geojson"}))) == {
        "layer fields id, name, landuse, area_m2", "layer field area_m2 values"}


def test_csv_export(tmp_path: Path) -> None:
    truth = truth_of("qgis-export-csv", "csv_table")
    rows = [(f["properties"]["id"], f["properties"]["name"], f["properties"]["landuse"]) for f in parcels()["features"]]
    text = "id,name,landuse\n" + "".join(f'"{i}",{n},{u}\n' for i, n, u in rows)
    assert not failed(run("csv_table", truth, {"table": write(tmp_path / "a.csv", text)}))
    assert set(failed(run("csv_table", truth, {"table": write(tmp_path / "b.csv", text.replace(",park", ",forest"))}))) == {
        "table column landuse values"}
    assert failed(run("csv_table", truth, {"table": write(tmp_path / "c.csv", "\n".join(text.splitlines()[:4]))})) == [
        "table has 8 rows", "table column landuse values"]


QGS = """<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<qgis projectname="" version="3.22.16-Białowieża">
  <projectCrs><spatialrefsys><authid>EPSG:32633</authid></spatialrefsys></projectCrs>
  <projectlayers>
    <maplayer type="vector" geometry="Polygon">
      <datasource>./parcels.geojson</datasource>
      <layername>{name}</layername>
      <provider encoding="UTF-8">ogr</provider>
    </maplayer>
  </projectlayers>
</qgis>
"""


def test_project_file(tmp_path: Path) -> None:
    truth = truth_of("qgis-rename-save-project", "qgs")
    qgz = tmp_path / "site.qgz"
    with zipfile.ZipFile(qgz, "w") as z:
        z.writestr("site.qgs", QGS.format(name="Parcels 2026"))
        z.writestr("site.qgd", b"")
    assert not failed(run("qgs", truth, {"project": qgz}))
    plain = write(tmp_path / "site.qgs", QGS.format(name="parcels"))
    assert failed(run("qgs", truth, {"project": plain})) == ["project layer Parcels 2026"]
    assert not failed(run("qgs", truth_of("qgis-save-project", "qgs"), {"project": plain}))
    assert "not a QGIS project" in (run("qgs", truth, {"project": write(tmp_path / "x.qgs", "<a>")})[
        "project layer Parcels 2026"] or "")
