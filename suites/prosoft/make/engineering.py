"""Writes tasks/engineering.json: the QGIS (GIS), FreeCAD (CAD) and KiCad (electronics) tasks, and the pipelines
that carry what they compute into LibreOffice Calc or Writer.

Start files come from ``fixtures/prosoft/engineering`` (``make_fixtures.py`` there); each program gets settings
that keep its first-start dialogs away. Evaluators: ``checks/qgis.py``, ``checks/freecad.py``,
``checks/kicad.py`` (and the office kinds for the pipelines' second step). Run from the repository root::

    python suites/prosoft/make/engineering.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, GONE, K, P, SAVE, T, W, WIN, fixtures_module, task, write  # noqa: E402
_FX = fixtures_module("engineering")
PARTS, PCB_AT, parcel_area = _FX.PARTS, _FX.PCB_AT, _FX.parcel_area

WORK = "/root/work"
FIX = "fixtures/prosoft/engineering"


def files(*names, **extra):
    """Start files: fixtures copied to /root/work (``extra``: fixture name -> container path)."""
    return ([{"src": f"{FIX}/{n}", "dest": f"{WORK}/{n}"} for n in names]
            + [{"src": f"{FIX}/{src}", "dest": dest} for src, dest in extra.items()])


# --- QGIS ------------------------------------------------------------------------------------------------------

QGIS_INI = "/root/.local/share/QGIS/QGIS3/profiles/default/QGIS/QGIS3.ini"


QGIS_CMD = ["qgis", "--nologo", "--noversioncheck", f"{WORK}/parcels.geojson"]
# QGIS opens a window smaller than the screen: maximise it (openbox has no rule for it), then let it settle
MAXIMIZE = {"command": ["wmctrl", "-r", "QGIS", "-b", "add,maximized_vert,maximized_horz"], "window": "QGIS"}


def qgis(artifacts):
    return {"start_files": files("parcels.geojson", **{"QGIS3.ini": QGIS_INI}),
            "start_command": QGIS_CMD, "window": "QGIS", "window_timeout_s": 240,
            "start_commands": [MAXIMIZE], "artifacts": artifacts}


LAYER_MENU, SAVE_AS = C(172, 29), C(209, 411)  # Layer menu; its "Save As..." item (maximised window)
FORMAT, FILE_NAME, CRS, SELECTED_ONLY, OK = C(672, 85), C(655, 116), C(656, 178), C(363, 258), C(788, 661)


def save_as(fmt, path, crs=None, selected=False):
    """Layer > Save As...: pick the format by typing its name in the open list, the file name, optionally the
    CRS entry (by its first word) and 'Save only selected features', then OK."""
    steps = [LAYER_MENU, W(2), SAVE_AS, W(3), FORMAT, W(1.5), T(fmt), P("enter"), W(1.5), FILE_NAME, T(path)]
    if crs:
        steps += [CRS, W(1.5), T(crs), P("enter"), W(1)]
    if selected:
        steps += [SELECTED_ONLY, W(0.5)]
    return steps + [OK, W(4)]


# the Select by Expression dialog opens where QGIS3.ini's saved geometry puts it; Escape closes it
SELECT_PARKS = [K("ctrl", "F3"), W(3), C(360, 330), T("\"landuse\" = 'park'"), W(1), C(880, 627), W(1.5),
                P("escape"), W(1.5)]


PARCEL_IDS = list(range(1, 9))
AREAS = {str(i): parcel_area(i) for i in PARCEL_IDS}
LANDUSE = {"1": "residential", "2": "residential", "3": "park", "4": "commercial", "5": "park", "6": "residential",
           "7": "commercial", "8": "park"}
PARKS = [3, 5, 8]
QGIS_CARD = ["Layer > Save As... (also right-click the layer > Export > Save Features As...) writes a layer to "
             "another format or CRS; 'Save only selected features' exports a selection.",
             "Select Features by Expression: Ctrl+F3; expressions like \"landuse\" = 'park'; $area is a polygon's "
             "area in the layer's units (metres in a projected CRS such as UTM 33N, EPSG:32633).",
             "Field Calculator: Ctrl+I (the layer switches to edit mode); save edits with Layer > Save Layer Edits.",
             "Processing Toolbox: Ctrl+Alt+T; Vector > Geoprocessing Tools > Buffer. Python console: Ctrl+Alt+P, "
             "iface.activeLayer() is the selected layer."]

PARCEL_FIELDS = ["id", "name", "landuse"]
qgis_tasks = [
    task("qgis-export-csv", "L1",
         "parcels.geojson is open in QGIS. Export the parcels layer to a CSV file /root/work/parcels.csv "
         "(Layer > Save As..., format Comma Separated Value) with its attributes id, name and landuse.",
         "csv_table", {"artifact": "table", "count": 8, "columns": PARCEL_FIELDS, "values": {"landuse": LANDUSE}},
         qgis({"table": f"{WORK}/parcels.csv"}), save_as("Comma", f"{WORK}/parcels.csv"),
         tags=["qgis", "gis"], knowledge=QGIS_CARD),
    task("qgis-reproject-wgs84", "L1",
         "parcels.geojson (UTM zone 33N, EPSG:32633) is open in QGIS. Save the parcels layer as GeoJSON in WGS 84 "
         "(EPSG:4326, longitude/latitude) to /root/work/parcels_wgs84.geojson.",
         "geojson", {"artifact": "layer", "count": 8, "fields": PARCEL_FIELDS, "bounds": [14.99, 45.15, 15.01, 45.16]},
         qgis({"layer": f"{WORK}/parcels_wgs84.geojson"}),
         save_as("GeoJSON", f"{WORK}/parcels_wgs84.geojson", crs="Default"), tags=["qgis", "gis"]),
    task("qgis-count-parks-console", "L1",
         "parcels.geojson is open in QGIS. Using the QGIS Python console (Plugins > Python Console), count the "
         "parcels whose landuse is 'park' and write just that number to /root/work/parks_count.txt.",
         "r_output", {"outputs": {"count": {"number": 3, "tolerance": 0}}},
         qgis({"count": f"{WORK}/parks_count.txt"}),
         [K("ctrl", "alt", "p"), W(4), C(790, 716),
          T('lay = iface.activeLayer(); n = sum(1 for f in lay.getFeatures() if f["landuse"] == "park"); '
            'open("/root/work/parks_count.txt", "w").write(str(n))\n'), W(2)],
         tags=["qgis", "gis", "console"], knowledge=QGIS_CARD),
    task("qgis-save-project", "L1",
         "parcels.geojson is open in QGIS in a new project. Save the project as /root/work/site.qgz "
         "(Project > Save As...).",
         "qgs", {"artifact": "project", "layers": [{"source": "parcels.geojson", "provider": "ogr"}],
                 "crs": "EPSG:32633"},
         qgis({"project": f"{WORK}/site.qgz"}),
         [K("ctrl", "shift", "s"), W(3), T(f"{WORK}/site.qgz\n"), W(3)], tags=["qgis", "gis"]),
    task("qgis-select-parks", "L2",
         "parcels.geojson is open in QGIS. Select the parcels whose landuse is 'park' (Select Features by "
         "Expression) and save only the selected features as GeoJSON to /root/work/parks.geojson, keeping the "
         "layer's CRS (EPSG:32633).",
         "geojson", {"artifact": "layer", "count": 3, "ids": {"field": "id", "values": PARKS},
                     "areas": {str(i): AREAS[str(i)] for i in PARKS}, "geometry": "Polygon"},
         qgis({"layer": f"{WORK}/parks.geojson"}),
         [*SELECT_PARKS, *save_as("GeoJSON", f"{WORK}/parks.geojson", selected=True)],
         tags=["qgis", "gis"], knowledge=QGIS_CARD),
    task("qgis-parks-wgs84", "L2",
         "parcels.geojson is open in QGIS. Select the park parcels (landuse = 'park') and save only them as "
         "GeoJSON in WGS 84 (EPSG:4326) to /root/work/parks_wgs84.geojson.",
         "geojson", {"artifact": "layer", "count": 3, "ids": {"field": "id", "values": PARKS},
                     "bounds": [14.99, 45.15, 15.01, 45.16]},
         qgis({"layer": f"{WORK}/parks_wgs84.geojson"}),
         [*SELECT_PARKS, *save_as("GeoJSON", f"{WORK}/parks_wgs84.geojson", crs="Default", selected=True)],
         tags=["qgis", "gis"]),
    task("qgis-area-field", "L2",
         "parcels.geojson is open in QGIS. Add a field area_m2 to the parcels layer holding each parcel's planar "
         "area in square metres (Field Calculator, expression area($geometry)), and save the layer edits so "
         "that parcels.geojson itself holds the new field.",
         "geojson", {"artifact": "layer", "count": 8, "fields": [*PARCEL_FIELDS, "area_m2"],
                     "values": {"area_m2": AREAS}, "tolerance": 12},
         qgis({"layer": f"{WORK}/parcels.geojson"}),
         [LAYER_MENU, W(1.5), C(244, 284), WIN("Features Total"), W(1.5), K("ctrl", "i"), WIN("Field Calculator$"),
          W(1.5), C(547, 138), T("area_m2"), C(420, 350), T("area($geometry)"), W(1), C(746, 628),
          GONE("Field Calculator$"), W(1), C(168, 90), W(3)],
         tags=["qgis", "gis"], knowledge=QGIS_CARD),
    task("qgis-rename-save-project", "L2",
         "parcels.geojson is open in QGIS. Rename the layer to 'Parcels 2026' in the Layers panel and save the "
         "project as /root/work/site.qgz.",
         "qgs", {"artifact": "project", "layers": [{"source": "parcels.geojson", "name": "Parcels 2026"}],
                 "crs": "EPSG:32633"},
         qgis({"project": f"{WORK}/site.qgz"}),
         [C(92, 410), W(0.5), P("F2"), W(0.5), K("ctrl", "a"), T("Parcels 2026\n"), W(1), K("ctrl", "shift", "s"),
          W(3), T(f"{WORK}/site.qgz\n"), W(3)], tags=["qgis", "gis"], knowledge=QGIS_CARD),
]
for _task in qgis_tasks:  # QGIS may still be drawing the map when the screen first looks settled
    _task["demonstration"]["actions"].insert(0, W(3))

# --- FreeCAD ---------------------------------------------------------------------------------------------------

FREECAD_CFG = "/root/.config/FreeCAD/user.cfg"


def freecad(artifacts):
    # QtWebEngine (FreeCAD's start page) refuses to run as root with its sandbox on: the process exits
    return {"start_files": files("bracket.FCStd", **{"freecad-user.cfg": FREECAD_CFG}),
            "start_command": ["env", "QTWEBENGINE_DISABLE_SANDBOX=1", "freecad", f"{WORK}/bracket.FCStd"],
            "window": "FreeCAD", "window_timeout_s": 240, "artifacts": {"part": f"{WORK}/bracket.FCStd", **artifacts}}


BOX, CYLINDER, CUT_BUTTON = C(82, 256), C(96, 274), C(656, 121)  # Model tree rows; Part toolbar's Cut
LENGTH_VALUE = (188, 639)  # the Length row's value in the Data tab of the property view (Box selected)


def export(path, file_type=None):
    """File > Export (Ctrl+E). The exporter follows the 'Files of type' entry (3MF, a mesh format, by default):
    a mesh takes any mesh extension, a STEP file needs its entry picked (typed into the open list)."""
    pick = [C(636, 571), W(1.5), T(file_type), P("enter"), W(1), C(637, 539), K("ctrl", "a")] if file_type else []
    return [K("ctrl", "e"), W(3), *pick, T(path + "\n"), W(4)]


def set_length(value):
    return [BOX, W(1), {"type": "double_click", "target": {"x": LENGTH_VALUE[0], "y": LENGTH_VALUE[1]}}, W(1),
            K("ctrl", "a"), T(f"{value}\n"), W(1)]


CUT = [BOX, W(0.5), K("shift", "down"), W(0.5), CUT_BUTTON, W(3)]


BOX_BBOX = [0, 0, 0, 60, 40, 10]
HOLE_VOLUME = 3.141592653589793 * 25 * 10
CUT_VOLUME = 60 * 40 * 10 - HOLE_VOLUME  # 23214.60
FREECAD_CARD = ["bracket.FCStd holds Box (Part::Box, 60 x 40 x 10 mm at the origin) and Cylinder (Part::Cylinder, "
                "radius 5 mm, height 10 mm, placed at x=30, y=20).",
                "Rename an object: select it in the Model tree and press F2. Its properties (Length, Width, Height, "
                "Radius, Placement) are edited in the Data tab under the tree; Ctrl+R recomputes.",
                "Part > Boolean > Cut subtracts the second selected object from the first (select Box, then "
                "Ctrl+click Cylinder).",
                "File > Export (Ctrl+E) writes the selected objects; the file name's extension picks the format "
                "(.stl mesh, .step solid). Python console: View > Panels > Python console; "
                "App.ActiveDocument.getObject('Box').Shape.Volume."]

freecad_tasks = [
    task("freecad-rename-box", "L1",
         "bracket.FCStd is open in FreeCAD. Rename the object 'Box' to 'Plate' (its label in the Model tree) and "
         "save the document.",
         "fcstd", {"labels": {"Box": "Plate", "Cylinder": "Cylinder"}}, freecad({}),
         [BOX, W(1), P("F2"), W(0.5), K("ctrl", "a"), T("Plate\n"), W(1), *SAVE], tags=["freecad", "cad"],
         knowledge=FREECAD_CARD),
    task("freecad-box-length", "L1",
         "bracket.FCStd is open in FreeCAD. Change the length of the Box from 60 mm to 80 mm and save the "
         "document.",
         "fcstd", {"properties": {"Box.Length": 80, "Box.Width": 40, "Box.Height": 10}}, freecad({}),
         [*set_length(80), K("ctrl", "r"), W(1), *SAVE], tags=["freecad", "cad"], knowledge=FREECAD_CARD),
    task("freecad-export-stl", "L1",
         "bracket.FCStd is open in FreeCAD. Export the Box object as an STL mesh to /root/work/box.stl.",
         "stl", {"artifact": "mesh", "bbox": BOX_BBOX, "volume": 24000}, freecad({"mesh": f"{WORK}/box.stl"}),
         [BOX, W(1), *export(f"{WORK}/box.stl")], tags=["freecad", "cad"]),
    task("freecad-export-step", "L1",
         "bracket.FCStd is open in FreeCAD. Export the Box object as a STEP file to /root/work/box.step.",
         "step", {"artifact": "step", "solids": 1, "bbox": BOX_BBOX}, freecad({"step": f"{WORK}/box.step"}),
         [BOX, W(1), *export(f"{WORK}/box.step", "STEP")], tags=["freecad", "cad"], knowledge=FREECAD_CARD),
    task("freecad-cut-hole", "L2",
         "bracket.FCStd is open in FreeCAD. Cut the Cylinder out of the Box (Part Boolean Cut: Box minus "
         "Cylinder) to make a plate with a hole, and save the document.",
         "fcstd", {"types": {"Part::Cut": 1}, "links": {"Part::Cut": {"Base": "Box", "Tool": "Cylinder"}},
                   "shape": {"object": "Part::Cut", "volume": CUT_VOLUME, "bbox": BOX_BBOX}},
         freecad({}), [*CUT, *SAVE], tags=["freecad", "cad"], knowledge=FREECAD_CARD),
    task("freecad-cut-export-stl", "L2",
         "bracket.FCStd is open in FreeCAD. Cut the Cylinder out of the Box (Part Boolean Cut) and export the "
         "resulting plate with the hole as an STL mesh to /root/work/plate.stl.",
         "stl", {"artifact": "mesh", "bbox": BOX_BBOX, "volume": CUT_VOLUME, "volume_tolerance": 0.005},
         freecad({"mesh": f"{WORK}/plate.stl"}),
         [*CUT, BOX, W(1), *export(f"{WORK}/plate.stl")], tags=["freecad", "cad"], knowledge=FREECAD_CARD),
    task("freecad-resize-export-step", "L2",
         "bracket.FCStd is open in FreeCAD. Make the Box 80 mm long (instead of 60 mm), save the document, and "
         "export the Box as a STEP file to /root/work/box80.step.",
         "pipeline", {"steps": [
             {"template": "fcstd", "properties": {"Box.Length": 80}},
             {"template": "step", "artifact": "step", "solids": 1, "bbox": [0, 0, 0, 80, 40, 10]}]},
         freecad({"step": f"{WORK}/box80.step"}),
         [*set_length(80), K("ctrl", "r"), W(1), *SAVE, BOX, W(1), *export(f"{WORK}/box80.step", "STEP")],
         tags=["freecad", "cad"], apps=["freecad"]),
]

# --- KiCad -----------------------------------------------------------------------------------------------------

KICAD_CFG = "/root/.config/kicad/6.0"


def kicad(program, main, artifacts, extra=()):
    names = {"eeschema": "Schematic Editor", "pcbnew": "PCB Editor"}
    return {"start_files": files(main, "divider.kicad_pro", *extra,
                                 **{"kicad_common.json": f"{KICAD_CFG}/kicad_common.json",
                                    "sym-lib-table": f"{KICAD_CFG}/sym-lib-table",
                                    "fp-lib-table": f"{KICAD_CFG}/fp-lib-table"}),
            # the document's name in the title: the editor's window maps before the file is loaded (its title is
            # "[no schematic loaded]" then), and input sent meanwhile is lost
            "start_command": [program, f"{WORK}/{main}"], "window": f"^{Path(main).stem} .*{names[program]}",
            "window_timeout_s": 240,
            "artifacts": artifacts}


VALUES = {ref: value for ref, value, *_ in PARTS}
KICAD_CARD = ["divider.kicad_sch: R1 10k, R2 10k, C1 100n, R3 1k, C2 1u; nets VIN, MID, OUT, GND (net labels).",
              "Schematic editor: select a symbol and press V to edit its value (or E for all its fields; Edit > "
              "Find and Replace, Ctrl+Alt+F, works too); Tools > Annotate Schematic "
              "numbers R? and C?; Place > Text (T); File > Export > Netlist writes the netlist; Ctrl+S saves.",
              "PCB editor: E edits the selected footprint (position X/Y in mm); Place > Text adds board text; "
              "Tools > Scripting Console runs Python with the pcbnew module (pcbnew.GetBoard())."]

SCH = "divider.kicad_sch"
NETLIST = [C(19, 31), W(1.5), C(52, 234), W(1), P("right"), W(0.5), P("down"), P("enter"), W(3), C(849, 592), W(3),
           K("ctrl", "a"), T(f"{WORK}/divider.net\n"), W(3)]
ANNOTATE = [C(265, 31), W(1.5), C(344, 285), W(2.5), C(945, 625), W(2), C(850, 625), W(1)]
NET_NODES = {"VIN": ["R1.1"], "MID": ["R1.2", "R2.1", "C1.1", "R3.1"], "OUT": ["R3.2", "C2.1"],
             "GND": ["R2.2", "C1.2", "C2.2"]}


SYMBOL_AT = {"R3": (643, 287), "C2": (715, 357)}  # symbol bodies on the sheet as the editor opens it


def edit_value(ref, new):
    """Select the symbol, V (Edit Value): the dialog opens with the value selected; Enter confirms. (The Find and
    Replace dialog opens at different places from run to run; this path is keyboard-only once selected.)"""
    x, y = SYMBOL_AT[ref]
    return [C(x, y), W(1), P("v"), W(2.5), K("ctrl", "a"), T(new + "\n"), W(1.5), P("escape"), W(0.5)]


def sch_text(text, x=400, y=480):
    return [{"type": "move", "target": {"x": x, "y": y}}, P("t"), W(1), C(x, y), W(2.5), C(675, 325), T(text),
            C(838, 565), W(1.5), C(x, y), W(1), P("escape")]


# the board view fits the outline (100, 100)-(140, 125) mm to x 100-980, y 149-698 px: 22 px per mm
def px(x, y):
    return C(round(100 + (x - 100) * 22), round(149 + (y - 100) * 21.96))


TRACK_R1_R3 = [W(2), C(1078, 245), W(2), px(110.9125, 106), W(1.5), {"type": "move", "target": {"x": 500, "y": 281}},
               W(0.5), {"type": "move", "target": {"x": 652, "y": 281}}, W(1.5), px(125.0875, 106), W(1.5),
               P("escape"), W(0.5), P("escape"), W(0.5)]


def pcb_text(text):
    return [C(1078, 574), W(1), C(540, 610), W(2.5), C(650, 220), T(text), C(560, 343), W(1.5), C(536, 520), W(1),
            C(859, 563), W(1.5), C(540, 610), W(1), P("escape")]


def field(x, y, value):
    return [{"type": "double_click", "target": {"x": x, "y": y}}, K("ctrl", "a"), T(value)]


MOVE_R3 = [C(672, 283), W(1), P("e"), W(3), *field(370, 431, "128"), *field(370, 460, "118"), C(249, 641), W(0.5),
           C(986, 765), W(2), P("escape")]
OTHER_AT = {ref: list(PCB_AT[ref]) for ref in PCB_AT if ref != "R3"}

kicad_tasks = [
    task("kicad-sch-value", "L1",
         "divider.kicad_sch is open in the KiCad schematic editor. Change the value of resistor R3 from 1k to 2k2 "
         "and save the schematic.",
         "kicad_sch", {"values": {"R3": "2k2"}, "keep_values": {r: v for r, v in VALUES.items() if r != "R3"}},
         kicad("eeschema", SCH, {"schematic": f"{WORK}/{SCH}"}), [*edit_value("R3", "2k2"), *SAVE],
         tags=["kicad", "electronics"], knowledge=KICAD_CARD),
    task("kicad-sch-annotate", "L1",
         "filter.kicad_sch is open in the KiCad schematic editor; its parts are not annotated yet (R?, C?). "
         "Annotate the schematic (Tools > Annotate Schematic) so that every part has a unique reference, and "
         "save it.",
         "kicad_sch", {"annotated": {"R": 3, "C": 2}, "symbols": 5},
         kicad("eeschema", "filter.kicad_sch", {"schematic": f"{WORK}/filter.kicad_sch"}), [*ANNOTATE, *SAVE],
         tags=["kicad", "electronics"], knowledge=KICAD_CARD),
    task("kicad-sch-text", "L1",
         "divider.kicad_sch is open in the KiCad schematic editor. Place the text 'Rev B' anywhere on the sheet "
         "and save the schematic.",
         "kicad_sch", {"texts": ["Rev B"], "keep_values": VALUES},
         kicad("eeschema", SCH, {"schematic": f"{WORK}/{SCH}"}), [*sch_text("Rev B"), *SAVE],
         tags=["kicad", "electronics"]),
    task("kicad-sch-netlist", "L1",
         "divider.kicad_sch is open in the KiCad schematic editor. Export its netlist in the KiCad format to "
         "/root/work/divider.net (File > Export > Netlist).",
         "kicad_netlist", {"components": VALUES, "nets": NET_NODES},
         kicad("eeschema", SCH, {"netlist": f"{WORK}/divider.net"}), NETLIST, tags=["kicad", "electronics"],
         knowledge=KICAD_CARD),
    task("kicad-pcb-move", "L1",
         "divider.kicad_pcb is open in the KiCad PCB editor. Move footprint R3 to X = 128 mm, Y = 118 mm, "
         "rotated by 90 degrees, and save the board.",
         "kicad_pcb", {"footprints": {"R3": {"at": [128, 118], "rotation": 90}}, "keep_at": OTHER_AT},
         kicad("pcbnew", "divider.kicad_pcb", {"board": f"{WORK}/divider.kicad_pcb"}), [*MOVE_R3, *SAVE],
         tags=["kicad", "electronics"], knowledge=KICAD_CARD),
    task("kicad-pcb-track", "L1",
         "divider.kicad_pcb is open in the KiCad PCB editor. Route a track on F.Cu for net MID from pad 2 of R1 "
         "to pad 1 of R3, and save the board.",
         "kicad_pcb", {"tracks": [{"net": "MID", "from": "R1.2", "to": "R3.1"}], "keep_at": {r: list(a) for r, a in PCB_AT.items()}},
         kicad("pcbnew", "divider.kicad_pcb", {"board": f"{WORK}/divider.kicad_pcb"}), [*TRACK_R1_R3, *SAVE],
         tags=["kicad", "electronics"]),
    task("kicad-pcb-text", "L1",
         "divider.kicad_pcb is open in the KiCad PCB editor. Add the board text 'RC-DIV v1' on the front "
         "silkscreen layer (F.Silkscreen) inside the board outline, and save the board.",
         "kicad_pcb", {"texts": [{"text": "RC-DIV v1", "layer": "F.SilkS"}]},
         kicad("pcbnew", "divider.kicad_pcb", {"board": f"{WORK}/divider.kicad_pcb"}), [*pcb_text("RC-DIV v1"), *SAVE],
         tags=["kicad", "electronics"], knowledge=KICAD_CARD),
    task("kicad-sch-annotate-netlist", "L2",
         "filter.kicad_sch is open in the KiCad schematic editor with unannotated parts. Annotate it, save it, "
         "and export its netlist in the KiCad format to /root/work/divider.net.",
         "pipeline", {"steps": [{"template": "kicad_sch", "annotated": {"R": 3, "C": 2}},
                                {"template": "kicad_netlist", "components": VALUES}]},
         kicad("eeschema", "filter.kicad_sch", {"schematic": f"{WORK}/filter.kicad_sch",
                                                 "netlist": f"{WORK}/divider.net"}),
         [*ANNOTATE, *SAVE, *NETLIST], tags=["kicad", "electronics"], apps=["kicad"], knowledge=KICAD_CARD),
    task("kicad-sch-value-netlist", "L2",
         "divider.kicad_sch is open in the KiCad schematic editor. Change R3's value from 1k to 2k2 and C2's "
         "from 1u to 470n, save the schematic, and export the netlist in the KiCad format to "
         "/root/work/divider.net.",
         "pipeline", {"steps": [
             {"template": "kicad_sch", "values": {"R3": "2k2", "C2": "470n"},
              "keep_values": {r: v for r, v in VALUES.items() if r not in ("R3", "C2")}},
             {"template": "kicad_netlist", "components": {**VALUES, "R3": "2k2", "C2": "470n"}, "nets": NET_NODES}]},
         kicad("eeschema", SCH, {"schematic": f"{WORK}/{SCH}", "netlist": f"{WORK}/divider.net"}),
         [*edit_value("R3", "2k2"), *edit_value("C2", "470n"), *SAVE, *NETLIST],
         tags=["kicad", "electronics"], apps=["kicad"], knowledge=KICAD_CARD),
    task("kicad-pcb-track-text", "L2",
         "divider.kicad_pcb is open in the KiCad PCB editor. Route the MID net from pad 2 of R1 to pad 1 of R3 "
         "on F.Cu, add the board text 'RC-DIV v1' on F.Silkscreen inside the outline, and save the board.",
         "kicad_pcb", {"tracks": [{"net": "MID", "from": "R1.2", "to": "R3.1"}],
                       "texts": [{"text": "RC-DIV v1", "layer": "F.SilkS"}],
                       "keep_at": {r: list(a) for r, a in PCB_AT.items()}},
         kicad("pcbnew", "divider.kicad_pcb", {"board": f"{WORK}/divider.kicad_pcb"}),
         [*TRACK_R1_R3, W(1), *pcb_text("RC-DIV v1"), *SAVE], tags=["kicad", "electronics"], knowledge=KICAD_CARD),
]

# --- pipelines -------------------------------------------------------------------------------------------------

CALC = {"command": ["soffice", "--norestore", "--calc", f"{WORK}/measurements.xlsx"], "window": "measurements\\.xlsx",
        "window_timeout_s": 180}
CALC_FILE = {"src": f"{FIX}/measurements.xlsx", "dest": f"{WORK}/measurements.xlsx"}


def pipeline(id, instruction, first, first_truth, program_demo, rows, apps, knowledge=None):
    """Calc (measurements.xlsx) is started first, the engineering program last (it has the focus): the program
    produces its file, then Alt+Tab to Calc, the rows typed from A3 down, saved in its format."""
    start = {"start_files": [*first["start_files"], CALC_FILE],
             "start_commands": [CALC, {"command": first["start_command"], "window": first["window"],
                                       "window_timeout_s": first["window_timeout_s"]}, *first.get("start_commands", [])],
             "artifacts": {**first["artifacts"], "workbook": f"{WORK}/measurements.xlsx"}}
    values = {}
    for i, (label, value) in enumerate(rows, start=3):
        values[f"A{i}"], values[f"B{i}"] = label, value
    typed = "".join(f"{label}\t{value}\n" for label, value in rows)
    demo = [*program_demo, W(1), K("alt", "tab"), W(2), K("ctrl", "home"), P("down"), P("down"), T(typed), *SAVE]
    calc_truth = {"template": "calc", "values": values, "unchanged_from": "engineering/measurements.xlsx"}
    return task(id, "L3", instruction, "pipeline", {"steps": [first_truth, calc_truth]}, start, demo,
                tags=[apps[0], "calc", "pipeline"], apps=apps, knowledge=knowledge, max_steps=80, time_limit_s=1200)


pipelines = [
    pipeline("pipe-qgis-calc-parks",
             "QGIS (parcels.geojson) and LibreOffice Calc (measurements.xlsx) are open. In QGIS, select the parcels "
             "whose landuse is 'park' and save only them as GeoJSON to /root/work/parks.geojson (keep EPSG:32633). "
             "Then in Calc put 'Park parcels' in A3 and their number in B3, 'Park area m2' in A4 and their total "
             "area in square metres in B4, and save the workbook in its current format.",
             qgis({"layer": f"{WORK}/parks.geojson"}),
             {"template": "geojson", "artifact": "layer", "count": 3, "ids": {"field": "id", "values": PARKS}},
             [W(3), *SELECT_PARKS, *save_as("GeoJSON", f"{WORK}/parks.geojson", selected=True)],
             [("Park parcels", 3), ("Park area m2", sum(AREAS[str(i)] for i in PARKS))], ["qgis", "calc"],
             knowledge=QGIS_CARD),
    pipeline("pipe-freecad-calc-volume",
             "FreeCAD (bracket.FCStd) and LibreOffice Calc (measurements.xlsx) are open. In FreeCAD, cut the "
             "Cylinder out of the Box (Part Boolean Cut) and save the document. Then in Calc put 'Plate volume mm3' "
             "in A3 and the volume of the cut plate in cubic millimetres, rounded to one decimal, in B3, and save "
             "the workbook in its current format.",
             freecad({}),
             {"template": "fcstd", "links": {"Part::Cut": {"Base": "Box", "Tool": "Cylinder"}},
              "shape": {"object": "Part::Cut", "volume": CUT_VOLUME}},
             [*CUT, *SAVE], [("Plate volume mm3", round(CUT_VOLUME, 1))], ["freecad", "calc"],
             knowledge=FREECAD_CARD + ["A box's volume is length x width x height; a cylinder's is pi r^2 h."]),
    pipeline("pipe-kicad-calc-netlist",
             "The KiCad schematic editor (divider.kicad_sch) and LibreOffice Calc (measurements.xlsx) are open. "
             "In KiCad, export the netlist in the KiCad format to /root/work/divider.net. Then in Calc put "
             "'Components' in A3 and the number of components in the netlist in B3, 'Nets' in A4 and the number "
             "of nets in B4, and save the workbook in its current format.",
             kicad("eeschema", SCH, {"netlist": f"{WORK}/divider.net"}),
             {"template": "kicad_netlist", "components": VALUES, "nets": NET_NODES},
             NETLIST, [("Components", 5), ("Nets", 4)], ["kicad", "calc"], knowledge=KICAD_CARD),
]

if __name__ == "__main__":
    write("engineering", qgis_tasks + freecad_tasks + kicad_tasks + pipelines)
