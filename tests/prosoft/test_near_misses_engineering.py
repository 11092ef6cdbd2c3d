"""Near misses for the engineering evaluator kinds (QGIS: geojson, csv_table, qgs; FreeCAD: fcstd, stl, step;
KiCad: kicad_sch, kicad_netlist, kicad_pcb); the runner and the scenarios are those of ``test_near_misses.py``.
The artifacts are built as ``test_checks_engineering.py`` builds them (KiCad files edited as text, FreeCAD's
Document.xml edited in the zip, GeoJSON/CSV/.qgz written with json/csv/zipfile, STL/STEP by hand)."""

from __future__ import annotations

import zipfile
from pathlib import Path
import pytest

from .test_checks_engineering import (QGS, SEGMENT, FakeEnv, add_cut, board, fcstd, geojson, move_r3, netlist_text,
                                      parcels, set_float, step_text, stl_binary)
from .test_near_misses import ALL, Case, check_case, copy, empty, png_file, text

ENG = Path(__file__).resolve().parents[2] / "fixtures" / "prosoft" / "engineering"
COMPONENTS = {"R1": "10k", "R2": "10k", "C1": "100n", "R3": "1k", "C2": "1u"}
NETS = {"VIN": ["R1.1"], "MID": ["R1.2", "R2.1", "C1.1", "R3.1"], "OUT": ["R3.2", "C2.1"],
        "GND": ["R2.2", "C1.2", "C2.2"]}
CUT = {"name": "Cut", "valid": True, "solids": 1, "volume": 23214.6018, "bbox": [0, 0, 0, 60, 40, 10]}


def landuse(path: Path, use: str) -> Path:
    data = parcels()
    return geojson(path, dict(data, features=[f for f in data["features"] if f["properties"]["landuse"] == use]))


def parcels_csv(path: Path, columns: tuple[str, ...] = ("id", "name", "landuse")) -> Path:
    rows = [[str(f["properties"][c]) for c in columns] for f in parcels()["features"]]
    return text(path, ",".join(columns) + "\n" + "".join(",".join(r) + "\n" for r in rows))


def qgz(path: Path, name: str, inner: str = "site.qgs") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(inner, QGS.format(name=name))
        z.writestr("site.qgd", b"")
    return path


def schematic(path: Path, values: dict[str, str]) -> Path:
    """divider.kicad_sch with these parts' values changed (property and instance alike)."""
    sch = (ENG / "divider.kicad_sch").read_text()
    for old, new in values.items():
        assert f'(property "Value" "{old}"' in sch, old
        sch = sch.replace(f'(property "Value" "{old}"', f'(property "Value" "{new}"', 1).replace(
            f'(value "{old}")', f'(value "{new}")', 1)
    return text(path, sch)


def r3_value(path: Path, value: str) -> Path:
    """divider.kicad_sch with R3 (the only 1k part) set to ``value``."""
    return schematic(path, {"1k": value})


def value_netlist(path: Path, **changes: str) -> Path:
    return text(path, netlist_text({**COMPONENTS, **changes}, NETS))


def sch_and_net(t: Path, sch: dict[str, str] | None, net: dict[str, str] | None) -> dict[str, Path]:
    out = {}
    if sch is not None:
        out["schematic"] = schematic(t / "divider.kicad_sch", sch) if sch else copy(ENG / "divider.kicad_sch",
                                                                                      t / "divider.kicad_sch")
    if net is not None:
        out["netlist"] = value_netlist(t / "divider.net", **net)
    return out


NEW_VALUES = {"1k": "2k2", "1u": "470n"}
SCH_VALUES = {"schematic R3 = 2k2", "schematic C2 = 470n"}
NET_LABELS = {"netlist lists the 5 components", *(f"netlist net {n}" for n in NETS)}

CASES: list[Case] = [
    # geojson (QGIS selection saved as GeoJSON)
    Case("geojson/correct", "correct", lambda t: {"layer": landuse(t / "parks.geojson", "park")}, set(),
         task="qgis-select-parks"),
    Case("geojson/wrong-param: commercial, not park", "wrong-param",
         lambda t: {"layer": landuse(t / "parks.geojson", "commercial")},
         {"layer has 3 features", "layer holds the right features", "layer polygon areas"}, task="qgis-select-parks"),
    Case("geojson/wrong-place", "wrong-place", lambda t: {}, ALL, task="qgis-select-parks"),
    Case("geojson/unsaved: exported before selecting", "unsaved",
         lambda t: {"layer": copy(ENG / "parcels.geojson", t / "parks.geojson")},
         {"layer has 3 features", "layer holds the right features"}, task="qgis-select-parks"),
    Case("geojson/wrong-type: empty file", "wrong-type", lambda t: {"layer": empty(t / "parks.geojson")}, ALL,
         task="qgis-select-parks", says="artifact 'layer' (parks.geojson) is not a text file: it is an empty file"),
    # csv_table (QGIS export as CSV)
    Case("csv-table/correct", "correct", lambda t: {"table": parcels_csv(t / "parcels.csv")}, set(),
         task="qgis-export-csv"),
    Case("csv-table/wrong-param: landuse not exported", "wrong-param",
         lambda t: {"table": parcels_csv(t / "parcels.csv", ("id", "name"))},
         {"table columns id, name, landuse", "table column landuse values"}, task="qgis-export-csv"),
    Case("csv-table/wrong-place", "wrong-place", lambda t: {}, ALL, task="qgis-export-csv"),
    Case("csv-table/unsaved: the export cancelled after the file was created", "unsaved",
         lambda t: {"table": empty(t / "parcels.csv")}, ALL, task="qgis-export-csv"),
    Case("csv-table/wrong-type: an XLSX under .csv", "wrong-type",
         lambda t: {"table": copy(ENG / "measurements.xlsx", t / "parcels.csv")}, ALL, task="qgis-export-csv",
         says="is not a text file: it is an Excel workbook (.xlsx)"),
    # qgs (QGIS project)
    Case("qgs/correct", "correct", lambda t: {"project": qgz(t / "site.qgz", "Parcels 2026")}, set(),
         task="qgis-rename-save-project"),
    Case("qgs/wrong-param: Parcels 2025", "wrong-param", lambda t: {"project": qgz(t / "site.qgz", "Parcels 2025")},
         {"project layer Parcels 2026"}, task="qgis-rename-save-project"),
    Case("qgs/wrong-place", "wrong-place", lambda t: {}, ALL, task="qgis-rename-save-project"),
    Case("qgs/unsaved: saved before the rename", "unsaved", lambda t: {"project": qgz(t / "site.qgz", "parcels")},
         {"project layer Parcels 2026"}, task="qgis-rename-save-project"),
    Case("qgs/wrong-type: a zip without a project", "wrong-type",
         lambda t: {"project": qgz(t / "site.qgz", "Parcels 2026", inner="site.txt")}, ALL,
         task="qgis-rename-save-project", says="is not a QGIS project (.qgs or .qgz): it is a zip archive"),
    # fcstd (FreeCAD document)
    Case("fcstd/correct", "correct", lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80))},
         set(), task="freecad-box-length"),
    Case("fcstd/wrong-param: 70 mm", "wrong-param",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 70))},
         {"part Box.Length = 80"}, task="freecad-box-length"),
    Case("fcstd/wrong-place", "wrong-place", lambda t: {}, ALL, task="freecad-box-length"),
    Case("fcstd/unsaved", "unsaved", lambda t: {"part": copy(ENG / "bracket.FCStd", t / "b.FCStd")},
         {"part Box.Length = 80"}, task="freecad-box-length"),
    Case("fcstd/wrong-type: an ODT under .FCStd", "wrong-type",
         lambda t: {"part": copy(ENG.parent / "l4" / "letterhead.odt", t / "b.FCStd")}, ALL,
         task="freecad-box-length", says="is not a FreeCAD document (.FCStd): it is an OpenDocument text (.odt)"),
    Case("fcstd-cut/correct", "correct", lambda t: {"part": fcstd(t / "b.FCStd", add_cut)}, set(),
         task="freecad-cut-hole", env=FakeEnv(CUT)),
    Case("fcstd-cut/wrong-param: Box cut out of the Cylinder", "wrong-param",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: add_cut(x, "Cylinder", "Box"))},
         {"part Part::Cut of Base Box, Tool Cylinder"}, task="freecad-cut-hole", env=FakeEnv(CUT)),
    Case("fcstd-cut/unsaved", "unsaved", lambda t: {"part": copy(ENG / "bracket.FCStd", t / "b.FCStd")}, ALL,
         task="freecad-cut-hole", env=FakeEnv({"error": "must not be asked"})),
    Case("fcstd-cut/wrong-type: empty", "wrong-type", lambda t: {"part": empty(t / "b.FCStd")}, ALL,
         task="freecad-cut-hole", env=FakeEnv({"error": "must not be asked"}), says="it is an empty file"),
    # stl
    Case("stl/correct", "correct", lambda t: {"mesh": stl_binary(t / "box.stl", (60, 40, 10))}, set(),
         task="freecad-export-stl"),
    Case("stl/wrong-param: 80 mm long", "wrong-param", lambda t: {"mesh": stl_binary(t / "box.stl", (80, 40, 10))},
         ALL, task="freecad-export-stl"),
    Case("stl/wrong-place", "wrong-place", lambda t: {}, ALL, task="freecad-export-stl"),
    Case("stl/unsaved: the box exported before the cut", "unsaved",
         lambda t: {"mesh": stl_binary(t / "plate.stl", (60, 40, 10))}, {"mesh volume 23214.6 mm³"},
         task="freecad-cut-export-stl"),
    Case("stl/wrong-type: a PNG under .stl", "wrong-type", lambda t: {"mesh": png_file(t / "box.stl")}, ALL,
         task="freecad-export-stl", says="is not an STL mesh: it is a PNG image"),
    # step (with the fcstd step of the same task)
    Case("step/correct", "correct",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80)),
                    "step": text(t / "box80.step", step_text((80, 40, 10)))}, set(), task="freecad-resize-export-step"),
    Case("step/wrong-param: exported 70 mm", "wrong-param",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80)),
                    "step": text(t / "box80.step", step_text((70, 40, 10)))},
         {"step bounding box (0, 0, 0)-(80, 40, 10)"}, task="freecad-resize-export-step"),
    Case("step/wrong-place: the STEP saved elsewhere", "wrong-place",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80))},
         {"step has 1 solid(s)", "step bounding box (0, 0, 0)-(80, 40, 10)"}, task="freecad-resize-export-step"),
    Case("step/unsaved: the document not saved", "unsaved",
         lambda t: {"part": copy(ENG / "bracket.FCStd", t / "b.FCStd"),
                    "step": text(t / "box80.step", step_text((80, 40, 10)))},
         {"part Box.Length = 80"}, task="freecad-resize-export-step"),
    Case("step/wrong-type: an STL under .step", "wrong-type",
         lambda t: {"part": fcstd(t / "b.FCStd", lambda x: set_float(x, "Box", "Length", 80)),
                    "step": stl_binary(t / "box80.step", (80, 40, 10))},
         {"step has 1 solid(s)", "step bounding box (0, 0, 0)-(80, 40, 10)"}, task="freecad-resize-export-step",
         says="is not a STEP file"),
    # kicad_sch
    Case("kicad-sch/correct", "correct", lambda t: {"schematic": r3_value(t / "d.kicad_sch", "2k2")}, set(),
         task="kicad-sch-value"),
    Case("kicad-sch/wrong-param: 2k", "wrong-param", lambda t: {"schematic": r3_value(t / "d.kicad_sch", "2k")},
         {"schematic R3 = 2k2"}, task="kicad-sch-value"),
    Case("kicad-sch/wrong-param: R2 changed instead", "wrong-param",
         lambda t: {"schematic": text(t / "d.kicad_sch", (ENG / "divider.kicad_sch").read_text().replace(
             '(property "Value" "10k"', '(property "Value" "2k2"', 1))},
         {"schematic R3 = 2k2", "schematic other parts unchanged"}, task="kicad-sch-value"),
    Case("kicad-sch/wrong-place", "wrong-place", lambda t: {}, ALL, task="kicad-sch-value"),
    Case("kicad-sch/unsaved", "unsaved", lambda t: {"schematic": copy(ENG / "divider.kicad_sch", t / "d.kicad_sch")},
         {"schematic R3 = 2k2"}, task="kicad-sch-value"),
    Case("kicad-sch/wrong-type: the board under .kicad_sch", "wrong-type",
         lambda t: {"schematic": copy(ENG / "divider.kicad_pcb", t / "d.kicad_sch")}, ALL, task="kicad-sch-value",
         says="expected a (kicad_sch ...) file"),
    Case("kicad-sch/wrong-type: empty", "wrong-type", lambda t: {"schematic": empty(t / "d.kicad_sch")}, ALL,
         task="kicad-sch-value", says="is not a text file: it is an empty file"),
    # kicad_netlist (with the schematic step of the same task)
    Case("kicad-net/correct", "correct", lambda t: sch_and_net(t, NEW_VALUES, {"R3": "2k2", "C2": "470n"}), set(),
         task="kicad-sch-value-netlist"),
    Case("kicad-net/wrong-param: C2 left at 1u", "wrong-param",
         lambda t: sch_and_net(t, {"1k": "2k2"}, {"R3": "2k2"}),
         {"schematic C2 = 470n", "netlist lists the 5 components"}, task="kicad-sch-value-netlist"),
    Case("kicad-net/wrong-place: the netlist saved elsewhere", "wrong-place",
         lambda t: sch_and_net(t, NEW_VALUES, None), NET_LABELS, task="kicad-sch-value-netlist"),
    Case("kicad-net/unsaved: the schematic not saved", "unsaved",
         lambda t: sch_and_net(t, {}, {"R3": "2k2", "C2": "470n"}), SCH_VALUES, task="kicad-sch-value-netlist"),
    Case("kicad-net/wrong-type: a SPICE netlist", "wrong-type",
         lambda t: {**sch_and_net(t, NEW_VALUES, None), "netlist": text(t / "divider.net", SPICE)}, NET_LABELS,
         task="kicad-sch-value-netlist", says="not a KiCad file"),
    # kicad_pcb
    Case("kicad-pcb/correct", "correct",
         lambda t: {"board": text(t / "d.kicad_pcb", move_r3((ENG / "divider.kicad_pcb").read_text()))}, set(),
         task="kicad-pcb-move"),
    Case("kicad-pcb/wrong-param: not rotated", "wrong-param",
         lambda t: {"board": text(t / "d.kicad_pcb", move_r3((ENG / "divider.kicad_pcb").read_text(), "(at 128 118)"))},
         {"board footprint R3 at [128, 118], rotation 90"}, task="kicad-pcb-move"),
    Case("kicad-pcb/wrong-place", "wrong-place", lambda t: {}, ALL, task="kicad-pcb-move"),
    Case("kicad-pcb/unsaved", "unsaved", lambda t: {"board": text(t / "d.kicad_pcb", board())},
         {"board footprint R3 at [128, 118], rotation 90"}, task="kicad-pcb-move"),
    Case("kicad-pcb/wrong-type: the schematic under .kicad_pcb", "wrong-type",
         lambda t: {"board": copy(ENG / "divider.kicad_sch", t / "d.kicad_pcb")}, ALL, task="kicad-pcb-move",
         says="expected a (kicad_pcb ...) file"),
    Case("kicad-pcb-track/correct", "correct", lambda t: {"board": text(t / "d.kicad_pcb", board(extra=SEGMENT))},
         set(), task="kicad-pcb-track"),
    Case("kicad-pcb-track/wrong-param: on another net", "wrong-param",
         lambda t: {"board": text(t / "d.kicad_pcb", board(extra=SEGMENT.replace("(net 2)", "(net 1)")))},
         {"board track R1.2-R3.1 on MID"}, task="kicad-pcb-track"),
]

SPICE = "* divider\nR1 VIN MID 10k\nR2 MID 0 10k\nC1 MID 0 100n\nR3 MID OUT 2k2\nC2 OUT 0 470n\n.end\n"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_engineering_near_miss(case: Case, tmp_path: Path) -> None:
    check_case(case, tmp_path)
