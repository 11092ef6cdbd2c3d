"""Writes tasks/librecad.json: 2D drafting in LibreCAD (AutoCAD's stand-in) on a DXF floor plan, run in
cua-desktop-arena.

Start file ``fixtures/prosoft/librecad/plan.dxf`` (``make_fixtures.py`` there: walls on layer WALLS, a column
circle on COLUMNS, the title text on 0), LibreCAD's settings in ``LibreCAD.conf`` (no first-start dialog, the
command line docked). The evaluator is ``checks/librecad.py`` (kind ``dxf``, the saved drawing read with ezdxf).
Each L1 task is one core function of a drafting program: a line, a circle, a rectangle by coordinates, a new
layer with a colour, a linear dimension, moving an entity, erasing one, saving in another DXF version; the
L2 tasks chain several. Demonstrations use LibreCAD's command line (AutoCAD's way: ``line``, then the points as
``x,y``; ``Escape`` ends a command) and its dialogs and dock widgets. Run from the repository root::

    python suites/prosoft/make/librecad.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, GONE, K, P, T, W, WIN, fixtures_module, task, write  # noqa: E402
START = fixtures_module("librecad").START

WORK = "/root/work"
FIX = "fixtures/prosoft/librecad"
TAGS = ["librecad", "cad"]
APPS = ["librecad"]
PLAN = f"{WORK}/plan.dxf"
CARD = ["plan.dxf: walls on layer WALLS (0,0)-(200,0)-(200,120)-(0,120), a column (circle r 10 at 150,60) on layer "
        "COLUMNS, the text 'PLAN A' on layer 0 at (10,130); units mm.",
        "LibreCAD's command line (bottom dock) takes AutoCAD-like commands: 'line' (then points typed as x,y and "
        "Enter), 'circle' (centre, then a point on the circle or the radius), 'rectangle' (two corners), 'dh'/'dv' "
        "horizontal/vertical dimension (two points, then where the line goes), 'mv' move, 'er' erase; Escape ends a "
        "command. Relative points: @dx,dy.",
        "Layers: the Layer List dock ('+' adds a layer: name and colour); new entities go on the current (selected) "
        "layer. File > Save (Ctrl+S) keeps DXF; File > Save As picks the DXF version."]


def start(artifacts=None):
    return {"start_files": [{"src": f"{FIX}/plan.dxf", "dest": PLAN},
                            {"src": f"{FIX}/LibreCAD.conf", "dest": "/root/.config/LibreCAD/LibreCAD.conf"}],
            "start_command": ["librecad", PLAN], "window": "LibreCAD.*plan\\.dxf", "window_timeout_s": 120,
            # LibreCAD opens smaller than the screen, its command line below the screen's edge: maximise it
            "start_commands": [MAXIMIZE], "artifacts": {"drawing": PLAN, **(artifacts or {})}}


MAXIMIZE = {"command": ["wmctrl", "-r", "LibreCAD", "-b", "add,maximized_vert,maximized_horz"], "window": "LibreCAD"}


CMD_LINE = C(1115, 682)  # the command line's input field (the "Command line" dock, bottom right)


def px(x, y):
    """The screen point of drawing point (x, y) once 'za' (zoom auto) fitted plan.dxf: 4.045 px per unit."""
    return C(round(93 + 4.045 * x), round(671 - 4.042 * y))


def cmd(*entries):
    """Click into the command line and type each entry (a command or a point) with Enter after it. LibreCAD opens
    the drawing away from its entities: 'za' (zoom auto) first shows it whole."""
    out = [CMD_LINE, W(0.5), T("za\n"), W(1)]
    for entry in entries:
        out += [T(entry + "\n"), W(0.7)]
    return out


ESC = [P("escape"), W(0.5), P("escape"), W(0.5)]
SAVE = [K("ctrl", "s"), W(2)]
# a moved entity stays selected: Escape leaves the selection before the next pick
MOVE_COLUMN = [*cmd(), px(160, 60), W(0.7), CMD_LINE, T("mv\n"), W(1), T("150,60\n"), W(0.7), T("170,70\n"),
               WIN("Move/Copy Options", 15), W(0.5), P("enter"), GONE("Move/Copy Options", 15), W(0.5), *ESC]
ERASE_TITLE = [*cmd(), C(160, 137), W(0.7), P("delete"), W(1), *ESC]  # the text 'PLAN A' at the top left
# the Layer List dock as LibreCAD opens maximised: its '+' button, the WALLS row (clicked: the current layer)
WALLS_ROW = C(1142, 447)
LAYER_ADD, LAYER_NAME, LAYER_COLOUR, RED, LAYER_OK = C(1166, 352), C(683, 268), C(665, 362), C(636, 63), C(632, 470)
NEW_RED_LAYER = [LAYER_ADD, WIN("Layer Settings", 15), W(0.5), LAYER_NAME, K("ctrl", "a"), T("FURNITURE"),
                 LAYER_COLOUR, W(1), RED, W(0.5), LAYER_OK, GONE("Layer Settings", 15), W(0.5)]
# File > Save as...: the Qt dialog; its type list, then DXF R12, the path typed in the name field
SAVE_AS_R12 = [C(36, 29), W(1), C(80, 165), WIN("Save Drawing As", 15), W(1), C(630, 553), W(1), C(536, 654),
               W(0.7), {"type": "double_click", "target": {"x": 630, "y": 522}}, K("ctrl", "a"),
               T(f"{WORK}/plan_r12.dxf\n"), GONE("Save Drawing As", 15), W(1)]


def keep_except(**drop):
    """The start file's entities but those the task changes (``drop``: group -> indexes to leave out)."""
    return {group: [item for i, item in enumerate(items) if i not in drop.get(group, ())]
            for group, items in START.items()}


def dxf(**truth):
    return {"keep": keep_except(), **truth}


tasks = [
    task("librecad-line", "L1",
         "plan.dxf is open in LibreCAD. Draw a line (a partition wall) from (0, 60) to (200, 60) on layer 0 and save "
         "the drawing (keep it DXF).",
         "dxf", dxf(lines=[{"start": [0, 60], "end": [200, 60], "layer": "0"}]), start(),
         [*cmd("line", "0,60", "200,60"), *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-circle", "L1",
         "plan.dxf is open in LibreCAD. Draw a circle with its centre at (50, 60) and a radius of 15 on layer 0, and "
         "save the drawing.",
         "dxf", dxf(circles=[{"center": [50, 60], "radius": 15, "layer": "0"}]), start(),
         [*cmd("circle", "50,60", "65,60"), *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-rectangle", "L1",
         "plan.dxf is open in LibreCAD. Draw a rectangle (a table) with the corners (20, 20) and (60, 40) on layer 0, "
         "and save the drawing.",
         "dxf", dxf(rectangles=[{"corners": [[20, 20], [60, 40]], "layer": "0"}]), start(),
         [*cmd("rectangle", "20,20", "60,40"), *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-dimension", "L1",
         "plan.dxf is open in LibreCAD. Add a horizontal dimension of the bottom wall, from (0, 0) to (200, 0), with "
         "its dimension line 15 units below the wall (y = -15), and save the drawing.",
         "dxf", dxf(dimensions=[{"measurement": 200, "kind": "linear"}]), start(),
         [*cmd("dh", "0,0", "200,0", "100,-15"), *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-move", "L1",
         "plan.dxf is open in LibreCAD. Move the column (the circle of radius 10 at (150, 60) on layer COLUMNS) by 20 "
         "units right and 10 units up, to (170, 70), and save the drawing.",
         "dxf", {"circles": [{"center": [170, 70], "radius": 10, "layer": "COLUMNS"}],
                 "absent": {"circles": [START["circles"][0]]}, "keep": keep_except(circles=[0])}, start(),
         [*MOVE_COLUMN, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-erase", "L1",
         "plan.dxf is open in LibreCAD. Delete the text 'PLAN A' (leave everything else) and save the drawing.",
         "dxf", {"absent": {"texts": [START["texts"][0]]}, "keep": keep_except(texts=[0])}, start(),
         [*ERASE_TITLE, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-layer", "L1",
         "plan.dxf is open in LibreCAD. Add a new layer named FURNITURE with the colour red and save the drawing.",
         "dxf", dxf(layers={"FURNITURE": {"color": 1}}), start(), [*NEW_RED_LAYER, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("librecad-save-r12", "L1",
         "plan.dxf is open in LibreCAD. Save a copy of the drawing in the old DXF R12 format as "
         "/root/work/plan_r12.dxf (File > Save As, file type DXF R12).",
         "dxf", {"artifact": "copy", "version": "AC1009", "keep": keep_except()},
         start({"copy": f"{WORK}/plan_r12.dxf"}), SAVE_AS_R12, tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-furniture", "L2",
         "plan.dxf is open in LibreCAD. Add a layer FURNITURE in red, and on it draw a table: a rectangle with the "
         "corners (120, 70) and (160, 100), and a round stool: a circle with centre (140, 50) and radius 8. Save "
         "the drawing.",
         "dxf", dxf(layers={"FURNITURE": {"color": 1}},
                    rectangles=[{"corners": [[120, 70], [160, 100]], "layer": "FURNITURE"}],
                    circles=[{"center": [140, 50], "radius": 8, "layer": "FURNITURE"}]),
         start(), [*NEW_RED_LAYER, *cmd("rectangle", "120,70", "160,100"), *ESC, *cmd("circle", "140,50", "148,50"),
                   *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-partition-dim", "L2",
         "plan.dxf is open in LibreCAD. On layer WALLS draw a partition wall, a line from (100, 0) to (100, 120), "
         "then add a vertical dimension of it with the dimension line at x = 115, and save the drawing.",
         "dxf", dxf(lines=[{"start": [100, 0], "end": [100, 120], "layer": "WALLS"}],
                    dimensions=[{"measurement": 120, "kind": "linear"}]),
         start(), [WALLS_ROW, W(1), *cmd("line", "100,0", "100,120"), *ESC, *cmd("dv", "100,0", "100,120", "115,60"),
                   *ESC, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("librecad-erase-move", "L2",
         "plan.dxf is open in LibreCAD. Delete the title text 'PLAN A', then move the column (the circle of radius 10 "
         "at (150, 60), layer COLUMNS) to (170, 70), keeping everything else as it is, and save the drawing.",
         "dxf", {"circles": [{"center": [170, 70], "radius": 10, "layer": "COLUMNS"}],
                 "absent": {"texts": [START["texts"][0]], "circles": [START["circles"][0]]},
                 "keep": keep_except(texts=[0], circles=[0])},
         start(), [*ERASE_TITLE, *MOVE_COLUMN, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
]

if __name__ == "__main__":
    write("librecad", tasks)
