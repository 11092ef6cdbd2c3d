"""Writes tasks/librecad_more.json: more 2D drafting in LibreCAD (AutoCAD's stand-in), beside ``make/librecad.py``'s
first 11 tasks, run in cua-desktop-arena.

Each L1 task is a core drafting function the first tasks do not use: a three-point arc, a closed polyline, a
parallel (offset) line, a mirrored copy; the L2 tasks chain those with trimming, hatching, block insertion, text and
layer states. Start files: the first tasks' ``fixtures/prosoft/librecad/plan.dxf`` (read-only) and
``fixtures/prosoft/drafting_more/room.dxf`` (``make_fixtures.py`` there: a room with a partition that sticks out
past its walls, a rug as a closed polyline, a note, and a block CHAIR defined but not placed). The evaluator is
``checks/librecad_more.py`` (kind ``dxf_more``, the saved DXF read with ezdxf). Demonstrations type LibreCAD's
commands into its command line (``a`` arc, ``pl`` polyline, ``o`` parallel, ``mi`` mirror, ``tm`` trim, ``ha``
hatch, ``txt`` text) and use its dialogs and dock widgets (Layer List, Block List). Run from the repository root::

    python suites/prosoft/make/librecad_more.py
"""
import importlib
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def fresh_import(name, path=None):
    """Import the generator ``make/<name>.py`` (or the module at ``path``) with its own ``make_fixtures``: each
    generator imports the ``make_fixtures`` of its fixture folder under that one name, so a module cached by an
    earlier generator would be the wrong one."""
    sys.modules.pop("make_fixtures", None)
    if path is None:
        module = importlib.import_module(name)
    else:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    sys.modules.pop("make_fixtures", None)
    return module


librecad = fresh_import("librecad")
drafting = fresh_import("drafting_more_fixtures", HERE.parents[2] / "fixtures/prosoft/drafting_more/make_fixtures.py")
from common import GONE, WIN, C, K, P, T, W, task, write  # noqa: E402

APPS, CARD, CMD_LINE, ESC, MAXIMIZE, SAVE, TAGS, WALLS_ROW, WORK = (
    librecad.APPS, librecad.CARD, librecad.CMD_LINE, librecad.ESC, librecad.MAXIMIZE, librecad.SAVE, librecad.TAGS,
    librecad.WALLS_ROW, librecad.WORK)
cmd, keep_except, px, plan_start = librecad.cmd, librecad.keep_except, librecad.px, librecad.start
ROOM_START = drafting.START

FIX = "fixtures/prosoft/drafting_more"
MORE_CARD = CARD[1:2] + [
    "More commands: 'a' arc through three points (start, a point on the arc, end); 'pl' polyline (points, then "
    "'c' closes it and ends the command); 'o' parallel/offset (type the distance, then click the entity on the "
    "side where the copy goes); 'mi' mirror (select, Enter, two points of the axis; a dialog asks whether to keep "
    "the original); 'tm' trim (click the cutting edge, then the part to cut away); 'txt' text (a dialog takes the "
    "text and height, then the insertion point).",
    "Draw > Hatch (command 'ha') hatches the selected closed contour: select it, Enter, then pick the pattern and "
    "scale in the dialog. Blocks: the Block List dock lists the drawing's blocks; select one and use 'Insert' to "
    "place it (angle and factor in the tool options, then the insertion point).",
    "Layer List dock: the eye icon hides (freezes) a layer, the padlock locks it; a click on a layer's name makes "
    "it the current layer. File > Save (Ctrl+S) keeps DXF."]


def librecad_on(src, name, artifact="drawing"):
    """LibreCAD (maximised, with the first tasks' settings) on the start file ``src`` copied to /root/work/``name``,
    which is the task's artifact."""
    path, base = f"{WORK}/{name}", plan_start()
    return {**base, "start_files": [{"src": src, "dest": path}, base["start_files"][1]],
            "start_command": ["librecad", path], "window": "LibreCAD.*" + name.replace(".", "\\."),
            "artifacts": {artifact: path}}


def room_start():
    return librecad_on(f"{FIX}/room.dxf", "room.dxf")


def room_keep(**drop):
    """room.dxf's entities but those the task changes (``drop``: group -> indexes to leave out)."""
    return {group: [item for i, item in enumerate(items) if i not in drop.get(group, ())]
            for group, items in ROOM_START.items()}


def plan(**truth):
    return {"keep": keep_except(), **truth}


def lc(id, level, instruction, truth, start, demo):
    return task(id, level, instruction, "dxf_more", truth, start, demo, tags=TAGS, apps=APPS, knowledge=MORE_CARD)


def pick(point):
    """Move onto an entity, let LibreCAD highlight it, then click (a click arriving with the motion can miss)."""
    return [{"type": "move", "target": point["target"]}, W(0.5), point, W(1)]


# the door swing of plan.dxf: a quarter arc centred on the hinge (30, 0), radius 20, from (50, 0) to (30, 20)
DOOR_ARC = {"center": [30, 0], "radius": 20, "start_angle": 0, "end_angle": 90}
ARC = [*cmd("a", "50,0", "42,16", "30,20"), *ESC]
TABLE = [[120, 15], [180, 15], [150, 40]]
POLY = [*cmd("pl", *(f"{x},{y}" for x, y in TABLE), "c"), *ESC]
# parallel to the top wall (y = 120), 10 inside: distance typed, the wall clicked below it (the copy's side)
OFFSET = [*cmd("o", "10"), *pick(px(60, 117)), *ESC]
OFFSET_BOTTOM = [*cmd("o", "10"), *pick(px(60, 3)), *ESC]
# mirror the column about the vertical x = 100: click it, 'mi', Enter, the axis' two points, keep the original
MIRROR_OPTIONS = "Mirroring Options"
MIRROR = [*cmd(), *pick(px(160, 60)), CMD_LINE, T("mi\n"), W(1), T("100,0\n"), W(0.7), T("100,120\n"),
          WIN(MIRROR_OPTIONS, 15), W(0.5), K("alt", "k"), W(0.3), P("enter"), GONE(MIRROR_OPTIONS, 15), W(0.5), *ESC]



def room_px(x, y):
    """The screen point of room.dxf's point (x, y) once 'za' fitted it: 4.494 px per unit."""
    return C(round(138 + 4.494 * x), round(627 - 4.49 * y))


# the Layer List dock with room.dxf: rows 0, Defpoints, FURNITURE, NOTES, WALLS; a click on a name makes the layer
# current, the eye column hides (freezes) it, the padlock column locks it
ROOM_ROWS = {"0": 385, "Defpoints": 406, "FURNITURE": 427, "NOTES": 448, "WALLS": 469}
NAME_X, EYE_X, LOCK_X = 1157, 989, 1016
LAYER_TAB, BLOCK_TAB, CHAIR_ROW, INSERT_BLOCK, INSERT_ANGLE = C(1234, 525), C(1147, 525), C(1029, 401), C(1222, 376), C(
    548, 101)
HATCH_DIALOG = "Choose Hatch Attributes"
PATTERN, SCALE, HATCH_OK = C(530, 338), C(554, 384), C(711, 492)


def layer_click(name, column):
    return [C(column, ROOM_ROWS[name]), W(1)]


def hatch_rug(pattern, scale):
    """Select the rug (its top edge), 'ha', the pattern typed into the opened list, the scale, OK."""
    return [*cmd(), *pick(room_px(40, 50)), CMD_LINE, T("ha\n"), WIN(HATCH_DIALOG, 15), W(1), PATTERN, W(1),
            T(pattern), W(0.5), P("enter"), W(0.7), SCALE, K("ctrl", "a"), T(str(scale)), W(0.5), HATCH_OK,
            GONE(HATCH_DIALOG, 15), W(1), *ESC]


def chairs(angle, *points):
    return [BLOCK_TAB, W(1.5), CHAIR_ROW, W(0.7), INSERT_BLOCK, W(1.5), INSERT_ANGLE, K("ctrl", "a"),
            T(f"{angle}\n"), W(0.5), CMD_LINE, W(0.5), *[a for x, y in points for a in (T(f"{x},{y}\n"), W(1))],
            *ESC, LAYER_TAB, W(1.5)]


def trim(limit, keep):
    """'tm', the cutting edge, then the part of the trimmed entity to keep."""
    return [*cmd("tm"), *pick(limit), *pick(keep), *ESC]


RUG = [list(p) for p in drafting.RUG]
PARTITION = {"start": [80, -10], "end": [80, 110], "layer": "WALLS"}

tasks = [
    lc("librecad-arc", "L1",
       "plan.dxf is open in LibreCAD. Draw the swing of a door as an arc through three points: from (50, 0) through "
       "(42, 16) to (30, 20) (a quarter circle of radius 20 around the hinge at (30, 0)), on layer 0, and save the "
       "drawing.",
       plan(arcs=[{**DOOR_ARC, "layer": "0"}]), plan_start(), [*ARC, *SAVE]),
    lc("librecad-polyline", "L1",
       "plan.dxf is open in LibreCAD. Draw a triangular table as one closed polyline through (120, 15), (180, 15) "
       "and (150, 40) on layer 0, and save the drawing.",
       plan(polylines=[{"points": TABLE, "closed": True, "layer": "0"}]), plan_start(), [*POLY, *SAVE]),
    lc("librecad-offset", "L1",
       "plan.dxf is open in LibreCAD. Draw a line parallel to the top wall (y = 120), 10 units inside the room "
       "(an offset: the new line from (0, 110) to (200, 110)), and save the drawing.",
       plan(lines=[{"start": [0, 110], "end": [200, 110]}]), plan_start(), [*OFFSET, *SAVE]),
    lc("librecad-mirror", "L1",
       "plan.dxf is open in LibreCAD. Mirror the column (the circle of radius 10 at (150, 60), layer COLUMNS) about "
       "the vertical line x = 100, keeping the original, so that a second column stands at (50, 60); save the "
       "drawing.",
       plan(circles=[{"center": [50, 60], "radius": 10, "layer": "COLUMNS"}]), plan_start(), [*MIRROR, *SAVE]),
    lc("librecad-rug-hatch", "L2",
       "room.dxf is open in LibreCAD. Make FURNITURE the current layer and hatch the rug (the closed polyline from "
       "(20, 20) to (60, 50)) with the pattern ANSI31 at scale 0.5, so that the hatch lies on layer FURNITURE; then "
       "hide (freeze) the layer NOTES, and save the drawing.",
       {"hatches": [{"pattern": "ANSI31", "scale": 0.5, "boundary": RUG, "layer": "FURNITURE"}],
        "layer_state": {"NOTES": {"hidden": True}, "WALLS": {"hidden": False}}, "keep": room_keep()},
       room_start(), [*layer_click("FURNITURE", NAME_X), *hatch_rug("ansi31", 0.5), *layer_click("NOTES", EYE_X),
                      *SAVE]),
    lc("librecad-chairs", "L2",
       "room.dxf is open in LibreCAD. On layer FURNITURE, place two copies of the block CHAIR, each rotated 90 "
       "degrees, with their base points at (120, 30) and (140, 30); then lock the layer WALLS so that the walls "
       "cannot be changed by mistake, and save the drawing.",
       {"inserts": [{"block": "CHAIR", "at": [x, 30], "rotation": 90, "layer": "FURNITURE"} for x in (120, 140)],
        "layer_state": {"WALLS": {"locked": True, "hidden": False}}, "keep": room_keep()},
       room_start(), [*layer_click("FURNITURE", NAME_X), *chairs(90, (120, 30), (140, 30)),
                      *layer_click("WALLS", LOCK_X), *SAVE]),
    lc("librecad-trim-partition", "L2",
       "room.dxf is open in LibreCAD. The partition wall (the line at x = 80) sticks out 10 units past the outer "
       "walls at both ends: trim it so that it runs exactly from (80, 0) to (80, 100), then add a vertical "
       "dimension of it with the dimension line at x = 90, and save the drawing.",
       {"lines": [{"start": [80, 0], "end": [80, 100], "layer": "WALLS"}],
        "dimensions": [{"measurement": 100, "kind": "linear"}],
        "absent": {"lines": [PARTITION]}, "keep": room_keep(lines=[4])},
       room_start(), [*trim(room_px(40, 0), room_px(80, 90)), *trim(room_px(40, 100), room_px(80, 10)),
                      *cmd("dv", "80,0", "80,100", "90,50"), *ESC, *SAVE]),
    lc("librecad-door", "L2",
       "plan.dxf is open in LibreCAD. On layer WALLS draw a door in the bottom wall: the door leaf as a line from "
       "(30, 0) to (30, 20) and its swing as an arc from (50, 0) through (42, 16) to (30, 20); save the drawing.",
       plan(lines=[{"start": [30, 0], "end": [30, 20], "layer": "WALLS"}], arcs=[{**DOOR_ARC, "layer": "WALLS"}]),
       plan_start(), [WALLS_ROW, W(1), *cmd("line", "30,0", "30,20"), *ESC, *ARC, *SAVE]),
    lc("librecad-mirror-offset", "L2",
       "plan.dxf is open in LibreCAD. Mirror the column (the circle of radius 10 at (150, 60)) about the vertical "
       "line x = 100, keeping the original, and draw a beam line parallel to the bottom wall, 10 units inside the "
       "room (from (0, 10) to (200, 10)); save the drawing.",
       plan(circles=[{"center": [50, 60], "radius": 10, "layer": "COLUMNS"}],
            lines=[{"start": [0, 10], "end": [200, 10]}]),
       plan_start(), [*MIRROR, *OFFSET_BOTTOM, *SAVE]),
]

if __name__ == "__main__":
    write("librecad_more", tasks)
