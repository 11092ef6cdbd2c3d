"""Writes tasks/l4_more.json: L4 open creation on programs that had none (LibreCAD, BKChem, GIMP, VS Code, QGIS,
FreeCAD), beside ``make/l4.py``'s eight on the office programs, Inkscape and R.

Each task asks the agent to make something of its own (a floor plan, a title sheet, a flavour ester, a web banner,
a small command-line tool, a thematic map, a mounting plate) and is scored by checkable constraints on the saved
file plus a rubric that ``--cua-judge`` grades (kind ``creation_more``, ``checks/l4_more.py``; without a judge the
task is partially scored). Every task carries a knowledge card and a demonstration that meets its constraints,
through the program's interface: LibreCAD's command line, BKChem's Read SMILES, GIMP's menus, VS Code's editor,
and the QGIS and FreeCAD Python consoles. Start files: ``fixtures/prosoft/drafting_more/`` (``blank.dxf``,
``banner.png``, ``vscode_settings.json``; ``make_fixtures.py`` there). Run from the repository root::

    python suites/prosoft/make/l4_more.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402
import librecad_more  # noqa: E402
from librecad_more import fresh_import  # noqa: E402

chem = fresh_import("chem")
vscode = fresh_import("vscode")
librecad = fresh_import("librecad")
engineering = fresh_import("engineering")
imaging = fresh_import("imaging")
taguette = fresh_import("taguette")
circuit = fresh_import("circuit")

WORK = "/root/work"
FIX = "fixtures/prosoft/drafting_more"


def creation(id, instruction, artifact, fmt, constraints, rubric, start, demo, apps, knowledge, **extra):
    return task(id, "L4", instruction, "creation_more",
                {"artifact": artifact, "format": fmt, "constraints": constraints, "rubric": rubric}, start, demo,
                tags=[*apps, "creation"], apps=apps, knowledge=knowledge, **extra)


# --- BKChem ---------------------------------------------------------------------------------------------------------
ESTER = "CCCCOC(=O)C"  # butyl acetate: the smell of bananas and pears
ester = creation(
    "bkchem-l4-flavour-ester",
    "BKChem is open with an empty drawing. Draw the structure of an ester that could serve as a fruit flavour (your "
    "choice), with at least five carbon atoms, laid out clearly, and save it in BKChem's format as "
    "/root/work/ester.cdml.",
    "molecule", "cdml", {"atoms": {"C": 5, "O": 2}, "groups": ["ester"]},
    ["The drawing shows one complete molecule, no stray atoms or bonds.",
     "The ester group (a carbon with a double-bonded O and a single-bonded O leading to another carbon) is "
     "recognisable.",
     "The structure is laid out clearly: bonds do not cross and labels do not overlap."],
    {**chem.start(), "artifacts": {"molecule": f"{WORK}/ester.cdml"}},
    [*chem.read_smiles(ESTER), *chem.save_as(f"{WORK}/ester.cdml")], ["bkchem"],
    [chem.CARD, "Esters R-C(=O)-O-R' give many fruit flavours: ethyl butanoate (pineapple, CCCC(=O)OCC), isoamyl "
     "acetate (banana, CC(C)CCOC(=O)C), butyl acetate (CCCCOC(=O)C)."])

# --- GIMP -----------------------------------------------------------------------------------------------------------
GIMP_START = imaging.gimp_start()
# Filters > Render > Noise > Plasma... (menu items clicked: the menus open at fixed places), then OK in its dialog
PLASMA = [C(417, 32), W(1.5), C(445, 427), W(1.5), C(752, 452), W(1.5), C(962, 502), WIN("^Plasma$", 30), W(2),
          C(1098, 641), GONE("^Plasma$", 60), W(2)]
banner = creation(
    "gimp-l4-web-banner",
    "banner.png (1200 x 400 px, white) is open in GIMP. Turn it into a colourful web banner background for a summer "
    "music festival: at least three clearly different colours, no plain white left, the size kept. Export it as "
    "PNG to /root/work/festival.png.",
    "banner", "png", {"image": {"width": 1200, "height": 400}, "ink": 0.9, "colours": 3},
    ["The picture is colourful and lively, fitting a summer music festival.",
     "The colours blend or are arranged pleasingly (no harsh noise, no visible seams).",
     "The banner would leave room for a title to be set on it later."],
    {**GIMP_START, "start_files": [{"src": f"{FIX}/banner.png", "dest": f"{WORK}/banner.png"},
                                   *GIMP_START["start_files"][1:]],
     "start_command": ["gimp", "--no-splash", f"{WORK}/banner.png"], "window": "\\[banner\\].*GIMP",
     "artifacts": {"banner": f"{WORK}/festival.png"}},
    [W(2), C(640, 420), W(0.5), *PLASMA, *imaging.gimp_export(f"{WORK}/festival.png")], ["gimp"],
    [imaging.GIMP_CARD, "Filters > Render > Noise > Plasma fills the layer with soft colour clouds; Filters > "
     "Render > Pattern has gradients and patterns; the Blend tool (G) draws gradients; Colors > Colorize tints."])

# --- VS Code --------------------------------------------------------------------------------------------------------
TOOL = f"{WORK}/tool"
VS_LAUNCH = vscode.LAUNCH.replace(vscode.PROJECT, TOOL)
STATS_PY = ('"""Print the mean and the median of the numbers given on the command line."""\n'
            "import statistics\nimport sys\n\n\n"
            "def mean(values): return sum(values) / len(values)\n\n\n"
            "def median(values): return statistics.median(values)\n\n\n"
            "numbers = [float(arg) for arg in sys.argv[1:]]\n"
            'print(f"mean: {mean(numbers):.2f}")\n'
            'print(f"median: {median(numbers):.2f}")\n')
stats = creation(
    "vscode-l4-stats-tool",
    "VS Code is open on the folder /root/work/tool with an empty stats.py. Write in stats.py a small command-line "
    "tool in Python: given numbers as arguments it prints two lines, 'mean: M' and 'median: D', each rounded to "
    "two decimals (python3 stats.py 3 1 4 1 5 prints 'mean: 2.80' and 'median: 3.00'). Give the module a "
    "docstring, put the computations in functions of their own, keep it readable, and save the file.",
    "script", "py",
    {"functions": 2, "docstring": True, "output": {"args": [3, 1, 4, 1, 5], "stdout": "mean: 2.80\nmedian: 3.00"}},
    ["The code is easy to read: clear names, one job per function.",
     "The module docstring says what the tool does and how to call it.",
     "The script handles its input in a sensible way (numbers from the command line, no hard-coded values)."],
    {"start_files": [{"src": f"{FIX}/vscode_settings.json", "dest": f"{vscode.USER}/settings.json"},
                     {"src": f"{FIX}/stats.py", "dest": f"{TOOL}/stats.py"}],
     "start_command": ["sh", "-c", VS_LAUNCH], "window": "^tool - code-server$", "window_timeout_s": 180,
     "artifacts": {"script": f"{TOOL}/stats.py"}},
    [W(3), C(800, 400), W(2), K("f1"), W(1.5), P("backspace"), W(0.5), T("stats.py"), W(2), P("enter"),
     WIN("^stats\\.py - tool - code-server$", 30), W(2), T(STATS_PY), W(1), K("ctrl", "s"), SAVED(f"{TOOL}/stats.py")],
    ["vscode"],
    ["VS Code: F1 opens the Command Palette; Backspace over its '>' turns it into Go to File (type a file name, "
     "Enter opens it); Ctrl+S saves; the integrated terminal (Ctrl+`) runs python3.",
     "Python: sys.argv[1:] holds the arguments as strings; statistics.median; f'{x:.2f}' rounds to two decimals; a "
     "module docstring is the first statement of the file."])

# --- LibreCAD -------------------------------------------------------------------------------------------------------


def lc_start(name, artifact):
    """LibreCAD on a copy of the empty blank.dxf named ``name``."""
    return librecad_more.librecad_on(f"{FIX}/blank.dxf", name, artifact)


def new_layer(name):
    """The Layer List's '+': the Layer Settings dialog, the name, OK (the new layer becomes the current one)."""
    return [librecad.LAYER_ADD, WIN("Layer Settings", 15), W(0.5), librecad.LAYER_NAME, K("ctrl", "a"), T(name),
            W(0.3), librecad.LAYER_OK, GONE("Layer Settings", 15), W(0.5)]


def text_at(text, height, point):
    """'txt': the Text dialog (text, height, OK), then a click where the text goes; Escape ends the tool."""
    return [*librecad.cmd("txt"), WIN("^Text$", 15), W(0.5), T(text), W(0.3), C(568, 293), K("ctrl", "a"),
            T(str(height)), W(0.3), C(770, 566), GONE("^Text$", 15), W(1), {"type": "move", "target": point},
            W(0.7), {"type": "click", "target": point}, W(1), *librecad.ESC]


floor_plan = creation(
    "librecad-l4-floor-plan",
    "flat.dxf (empty, millimetres) is open in LibreCAD. Draw the floor plan of a small flat, 10 m x 6 m: the outer "
    "walls as a 10000 x 6000 rectangle, at least one interior wall, at least one door drawn with its swing (an "
    "arc), the room names LIVING and BEDROOM as text, and at least one dimension; keep walls, doors and text on "
    "layers of their own (not layer 0). Make it read like an architect's sketch and save the drawing (DXF).",
    "plan", "dxf",
    {"outline": {"size": [10000, 6000], "tolerance": 1}, "texts": ["LIVING", "BEDROOM"],
     "entities": {"ARC": 1, "DIMENSION": 1}, "layers": 2},
    ["The outer walls, the interior wall(s) and the door(s) form a plausible flat layout.",
     "The room names sit inside the rooms they name and are readable.",
     "The dimension(s) are placed outside the walls and show the right lengths."],
    lc_start("flat.dxf", "plan"),
    [*new_layer("WALLS"), *librecad.cmd("rectangle", "0,0", "10000,6000"), *librecad.ESC,
     *librecad.cmd("line", "6000,0", "6000,6000"), *librecad.ESC, *new_layer("DOORS"),
     *librecad.cmd("a", "2000,0", "1600,800", "1000,1000"), *librecad.ESC,
     *librecad.cmd("line", "1000,0", "1000,1000"), *librecad.ESC, *new_layer("TEXT"),
     *text_at("LIVING", 300, {"x": 240, "y": 416}), *text_at("BEDROOM", 300, {"x": 686, "y": 416}),
     *librecad.cmd("dh", "0,0", "10000,0", "5000,-800"), *librecad.ESC, *librecad.SAVE], ["librecad"],
    [*librecad.CARD[1:], "Text: the command 'txt' opens the Text dialog (text, height); after OK the text follows "
     "the pointer and a click places it. An architect's plan: walls thick or on their own layer, doors as a "
     "leaf with a quarter-circle swing, room names centred in the rooms, dimensions outside the outline."],
    max_steps=200, time_limit_s=1200)

sheet = creation(
    "librecad-l4-title-sheet",
    "a4_sheet.dxf (empty, millimetres) is open in LibreCAD. Draw an A4 landscape drawing sheet for a part drawing: "
    "the sheet border as a 297 x 210 rectangle, and a title block in the lower-right corner holding the title "
    "'MOUNTING PLATE', the scale 'SCALE 1:1' and the sheet size 'A4'; everything must stay inside the sheet. Make "
    "it look like a proper engineering drawing sheet and save the drawing (DXF).",
    "sheet", "dxf",
    {"outline": {"size": [297, 210], "tolerance": 0.5}, "texts": ["MOUNTING PLATE", "SCALE 1:1", "A4"],
     "extents": {"max": [297.5, 210.5]}},
    ["The title block sits in the lower-right corner and is divided into tidy fields.",
     "The title is the most prominent text of the block; scale and sheet size are smaller.",
     "Nothing overlaps or sticks out of the sheet border."],
    lc_start("a4_sheet.dxf", "sheet"),
    [*librecad.cmd("rectangle", "0,0", "297,210"), *librecad.ESC, *librecad.cmd("rectangle", "187,0", "297,40"),
     *librecad.ESC, *librecad.cmd("line", "187,20", "297,20"), *librecad.ESC, *librecad.cmd("line", "262,0", "262,20"),
     *librecad.ESC, *text_at("MOUNTING PLATE", 5, {"x": 609, "y": 602}),
     *text_at("SCALE 1:1", 3.5, {"x": 609, "y": 653}), *text_at("A4", 3.5, {"x": 809, "y": 653}), *librecad.SAVE],
    ["librecad"],
    [*librecad.CARD[1:], "Text: the command 'txt' opens the Text dialog (text, height); after OK the text follows "
     "the pointer and a click places it. ISO 5457: A4 is 297 x 210 mm; the title block sits in the lower-right "
     "corner, 180 mm wide at most."], max_steps=150, time_limit_s=1200)

# --- QGIS -----------------------------------------------------------------------------------------------------------
MAP = f"{WORK}/landuse_map.png"
QGIS_CONSOLE = [
    'lay = iface.activeLayer(); cols = {"residential": "#e8c07d", "park": "#4c9a4c", "commercial": "#c0504d"}',
    "cats = [QgsRendererCategory(v, QgsSymbol.defaultSymbol(lay.geometryType()), v) for v in cols]; "
    "[c.symbol().setColor(QColor(cols[c.value()])) for c in cats]; "
    'lay.setRenderer(QgsCategorizedSymbolRenderer("landuse", cats)); lay.triggerRepaint()',
    "s = QgsMapSettings(); s.setLayers([lay]); s.setDestinationCrs(lay.crs()); "
    "s.setExtent(lay.extent().buffered(20)); s.setOutputSize(QSize(1600, 1000)); s.setBackgroundColor(QColor('white'))",
    f'j = QgsMapRendererParallelJob(s); j.start(); j.waitForFinished(); j.renderedImage().save("{MAP}")']
landuse_map = creation(
    "qgis-l4-landuse-map",
    "parcels.geojson is open in QGIS. Make a land-use map of the parcels for a planning report: colour the parcels "
    "by their landuse (residential, park, commercial) in clearly different colours that suit each use, and export "
    "the map as a 1600 x 1000 pixel PNG to /root/work/landuse_map.png.",
    "map", "png", {"image": {"width": 1600, "height": 1000}, "ink": 0.1, "colours": 4},
    ["The parcels are coloured by land use, each use in its own colour (parks green or similar).",
     "The parcels fill most of the picture; none is cut off at the edges.",
     "The map is clean: no stray layers, labels or decorations that hide the parcels."],
    engineering.qgis({"map": MAP}),
    [W(3), K("ctrl", "alt", "p"), W(4), C(790, 716), *[a for line in QGIS_CONSOLE for a in (T(line + "\n"), W(2))],
     SAVED(MAP)], ["qgis"],
    [*engineering.QGIS_CARD, "Layer Properties > Symbology > Categorized on the field landuse gives each value its "
     "own colour; Project > Import/Export > Export Map to Image sets the size in pixels (or a Print Layout)."])

# --- FreeCAD --------------------------------------------------------------------------------------------------------
PLATE = f"{WORK}/plate.FCStd"
FC = engineering.freecad({})
FC_START = {**FC, "start_files": [f for f in FC["start_files"] if not f["dest"].endswith(".FCStd")],
            "start_command": ["sh", "-c", f"mkdir -p {WORK} && exec env QTWEBENGINE_DISABLE_SANDBOX=1 freecad"],
            "artifacts": {"part": PLATE}}
# View > Panels > Python console (menu items clicked), then a click into the console
FC_CONSOLE = [C(100, 9), W(1.5), C(131, 592), W(1.5), C(520, 664), W(2), C(640, 700), W(1)]
FC_LINES = [
    'doc = App.newDocument("plate")',
    'plate = doc.addObject("Part::Box", "Plate"); plate.Length = 80; plate.Width = 50; plate.Height = 6',
    'holes = [doc.addObject("Part::Cylinder", "Hole") for k in range(4)]',
    '[(setattr(h, "Radius", 3), setattr(h, "Height", 6), setattr(h, "Placement", App.Placement(App.Vector(x, y, 0), '
    'App.Rotation()))) for h, (x, y) in zip(holes, [(8, 8), (72, 8), (8, 42), (72, 42)])]',
    'fuse = doc.addObject("Part::MultiFuse", "Holes"); fuse.Shapes = holes; cut = doc.addObject("Part::Cut", '
    '"MountingPlate"); cut.Base = plate; cut.Tool = fuse; doc.recompute()',
    f'Gui.activeDocument().activeView().viewIsometric(); Gui.SendMsgToActiveView("ViewFit"); doc.saveAs("{PLATE}")']
plate = creation(
    "freecad-l4-mounting-plate",
    "FreeCAD is open with no document. Design a mounting plate for a small sensor board: a plate 80 x 50 x 6 mm "
    "with at least four through holes for screws, placed sensibly (e.g. near the corners), made as a solid with "
    "the holes cut out. Save the document as /root/work/plate.FCStd.",
    "part", "fcstd",
    {"solid": {"object": "Part::Cut|Part::Feature|PartDesign::Body", "size": [80, 50, 6], "tolerance": 0.01,
               "volume_below": 0.995}},
    ["The plate has at least four holes that go all the way through.",
     "The holes are placed symmetrically or sensibly for mounting (near the corners, clear of the edges).",
     "The model is one clean solid (no stray bodies floating around it)."],
    FC_START, [W(3), *FC_CONSOLE, *[a for line in FC_LINES for a in (T(line + "\n"), W(2))], SAVED(PLATE)],
    ["freecad"],
    [*engineering.FREECAD_CARD[1:], "Part workbench: Part > Primitives (Box, Cylinder), Part > Boolean > Cut (select "
     "the base, then the tool); a Cylinder's Placement sets where it stands. View > Panels > Python console runs "
     "FreeCAD's Python (App.newDocument, doc.addObject, doc.recompute, doc.saveAs). File > Save As writes .FCStd."])

# --- ImageJ ---------------------------------------------------------------------------------------------------------
FIGURE = f"{WORK}/cells_figure.png"
cells_figure = creation(
    "imagej-l4-cells-figure",
    "cells.tif (256 x 256 pixels, grey) is open in ImageJ. Prepare it as a figure for a poster: show the "
    "intensities with a colour lookup table that reads well, add a scale bar, keep the image's size, and save it "
    "as PNG to /root/work/cells_figure.png.",
    "figure", "png", {"image": {"width": 256, "height": 256}, "ink": 0.3, "colours": 3},
    ["The intensities are shown in colour with a lookup table that makes bright and dim cells easy to tell apart.",
     "A scale bar is visible and does not cover any cell.",
     "The figure is not distorted or cropped: the cells look as in the original image."],
    {**imaging.imagej_start(), "artifacts": {"figure": FIGURE}},
    [W(2), *imaging.ij_command("Fire"), *imaging.ij_command("Scale Bar..."), WIN("^Scale Bar$", 20), W(1),
     P("enter"), GONE("^Scale Bar$", 20), W(1), *imaging.ij_save_as("PNG...", FIGURE), SAVED(FIGURE)], ["imagej"],
    [imaging.IJ_CARD, "Image > Lookup Tables (Fire, Green, ...) colours a grey image; Analyze > Tools > Scale Bar "
     "draws a scale bar (an overlay: Image > Overlay > Flatten burns it in); File > Save As > PNG keeps the "
     "image's size. The Command Finder (Ctrl+L) runs any command by name."])

# --- KiCad ----------------------------------------------------------------------------------------------------------
# File > Page Settings...: the title block's fields (date, revision, title, company, comment 1), OK
PAGE_SETTINGS = [C(20, 29), W(1.5), C(80, 286), WIN("^Page Settings$", 20), W(1.5)]
PAGE_FIELDS = {"date": (626, 265), "rev": (713, 297), "title": (713, 329), "company": (713, 361),
               "comment": (713, 393)}
RELEASE = {"date": "2026-12-07", "rev": "A", "title": "RC divider and filter", "company": "Harbor Light Studio",
           "comment": "Halves VIN and low-pass filters the output"}
release = creation(
    "kicad-l4-release-sheet",
    "divider.kicad_sch (an RC divider and filter) is open in the KiCad schematic editor. Prepare the sheet for "
    "release: fill in the title block (a descriptive title, the revision, the date and your company) and place a "
    "note on the sheet that tells a reader what the circuit does, in at least five words. Do not change the "
    "circuit itself; save the schematic.",
    "schematic", "kicad_sch",
    {"title_block": ["title", "rev", "date", "company"], "note_words": 5, "keep_values": engineering.VALUES},
    ["The title describes the circuit (not a placeholder such as 'Untitled').",
     "The note explains the circuit's purpose or behaviour correctly (a divider with RC filtering).",
     "Revision and date are plausible values for a first release."],
    engineering.kicad("eeschema", engineering.SCH, {"schematic": f"{WORK}/{engineering.SCH}"}),
    [W(2), *PAGE_SETTINGS, *[a for key, (x, y) in PAGE_FIELDS.items() for a in (C(x, y), W(0.3), T(RELEASE[key]))],
     W(0.5), C(1035, 701), GONE("^Page Settings$", 20), W(1),
     *engineering.sch_text("R1 and R2 halve VIN, R3 and C2 low-pass filter it"), W(1), K("ctrl", "s"),
     SAVED(f"{WORK}/{engineering.SCH}")], ["kicad"],
    [*engineering.KICAD_CARD, "File > Page Settings holds the title block: issue date, revision, title, company "
     "and comments. Place > Text (T) puts a note on the sheet: type it in the dialog, OK, then click where it goes."])

# --- Taguette -------------------------------------------------------------------------------------------------------
NEW_TAGS = {"flexibility": "Choosing when and where the work gets done",
            "childcare": "Looking after children during the working day",
            "workspace": "How people set up their place of work at home"}


def new_tag(name, description):
    """The Highlights tab's Create a tag: the name (focused), the description, Save."""
    return [C(*taguette.TAB["highlights"]), W(1.2), C(*taguette.CREATE_TAG), W(1.2), T(name),
            C(*taguette.NEW_TAG_DIALOG["description"]), T(description), C(*taguette.NEW_TAG_DIALOG["save"]), W(1.5)]


def in_document(name):
    return [C(*taguette.TAB["documents"]), W(1), C(*taguette.DOC_ROW[name]), W(2)]


codebook = creation(
    "taguette-l4-codebook",
    "Taguette is open with the project 'Remote work interviews'. Extend its codebook for a new research question, "
    "how remote work changes the balance of work and private life: add at least three new tags, each with a "
    "description of at least five words that says when to apply it, and code at least two passages of the "
    "interviews with your new tags. Keep the existing documents.",
    "db", "taguette", {"new_tags": {"count": 3, "description_words": 5}, "coded": 2, "keeps_documents": True},
    ["The new tags fit the research question (work-life balance) and do not duplicate existing tags.",
     "Each description tells a coder when to apply the tag.",
     "The coded passages match the tags they carry."],
    taguette.START,
    [*taguette.OPEN_PROJECT, *[a for tag, text in NEW_TAGS.items() for a in new_tag(tag, text)],
     *in_document("Interview B"), *taguette.highlight(2, "workspace"), *in_document("Interview A"),
     *taguette.highlight(0, "flexibility"), W(2)], ["taguette"],
    [taguette.CARD, "A codebook entry: a short tag name and a description that says when a passage gets the tag "
     "(and when not). Highlights tab > Create a tag adds one; to code a passage select it and press n."],
    max_steps=80)

# --- ngspice --------------------------------------------------------------------------------------------------------
BODE = f"{WORK}/bode.txt"
filter_design = creation(
    "ngspice-l4-filter-design",
    "ngspice's console is open with rc.cir (an RC low-pass, R1 1k and C1 1u). Redesign it for an audio tone "
    "control: choose standard component values (E12 series) for R1 and C1 so that the corner (-3 dB) frequency "
    "lies between 950 and 1050 Hz, set them in ngspice (alter), run an AC sweep from 10 Hz to 100 kHz and write "
    "the gain in dB, vdb(out), over frequency to /root/work/bode.txt with wrdata.",
    "bode", "wrdata",
    {"x_range": [10, 100000], "crossing": {"level": -3, "between": [950, 1050]},
     "rolloff": {"from": 10000, "to": 100000, "at_least": 15}},
    ["R1 and C1 are standard E12 values that a workshop would stock.",
     "The plot shows a first-order low-pass: flat below the corner, falling 20 dB per decade above it.",
     "The sweep has enough points per decade to show the corner smoothly."],
    {**circuit.start("rc.cir", {"bode": BODE})},
    circuit.say("alter r1 = 3.3k", "alter c1 = 47n", "ac dec 20 10 100k", f"wrdata {BODE} vdb(out)") + [SAVED(BODE)],
    ["ngspice"],
    [*circuit.CARD, "An RC low-pass's corner frequency is 1 / (2 pi R C); E12 values: 1.0 1.2 1.5 1.8 2.2 2.7 3.3 "
     "3.9 4.7 5.6 6.8 8.2 times a power of ten."])

TASKS = [ester, banner, stats, floor_plan, sheet, landuse_map, plate, cells_figure, release, codebook, filter_design]

if __name__ == "__main__":
    write("l4_more", TASKS)
