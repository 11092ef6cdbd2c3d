"""Writes tasks/freecad_more.json: FreeCAD Part Design (SolidWorks' stand-in) in cua-desktop-arena, each L1 task one
core function of a parametric CAD program on a prepared body (pad, pocket, hole, fillet, chamfer, revolution,
mirror, linear and polar pattern, a sketch's dimension), the L2 tasks two of them in a row or one and an export.

Start files come from ``fixtures/prosoft/cae_more/`` (``make_fixtures.py`` there): one Body each, its sketches
fully constrained (``pd_sketch``: a 60 x 40 mm rectangle, constraints named Length and Width; ``pd_block``: it
padded 10 mm; ``pd_plate_sketch``: a 60 x 60 x 10 mm plate with a circle r 4 mm at (-20, 0) sketched on its
top; ``pd_plate_hole``: that circle pocketed through; ``pd_profile``: a 10 x 30 mm rectangle on the XZ plane,
10 mm off the Z axis), and ``reference.json`` (each result's volume, bounding box and holes, built by
freecadcmd). Evaluators: ``checks/freecad_more.py`` (kind ``partdesign``) and ``checks/freecad.py`` (``stl``).
Demonstrations use the Part Design toolbar, the task panels and the property view. Run from the repository
root::

    python suites/prosoft/make/freecad_more.py
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, T, W, task, write  # noqa: E402

WORK = "/root/work"
MORE = "fixtures/prosoft/cae_more"
REF = json.loads((Path(__file__).resolve().parents[3] / MORE / "reference.json").read_text())["part_design"]
TAGS = ["freecad", "cad", "partdesign"]
APPS = ["freecad"]
SAVE = [K("ctrl", "s"), W(3)]

# the Model tab and the body expanded: its features sit in rows 274 (Origin), 293, 312
START = [C(31, 176), W(1), C(34, 256), W(1)]
ROW_293, ROW_312 = (112, 293), (112, 312)  # the first feature or sketch after Origin; the one after it
DOUBLE = lambda x, y: {"type": "double_click", "target": {"x": x, "y": y}}  # noqa: E731
TRIPLE = lambda x, y: {"type": "triple_click", "target": {"x": x, "y": y}}  # noqa: E731
# the Part Design menu, a submenu, its item
ADDITIVE, SUBTRACTIVE, PATTERN, DRESS_UP = (394, 181), (400, 231), (360, 281), (388, 307)
PAD, REVOLUTION, POCKET, HOLE = (649, 181), (670, 205), (658, 231), (652, 255)
MIRRORED, LINEAR, POLAR, FILLET, CHAMFER = (663, 281), (679, 305), (675, 329), (652, 307), (664, 331)


def tool(row, submenu, item):
    """Select the tree row, then Part Design > submenu > item: its task panel opens."""
    return [C(*row), W(0.5), C(322, 9), W(1), C(*submenu), W(1), C(*item), W(3)]


def value(text):
    """The task panel's first field has the focus with its value selected."""
    return [K("ctrl", "a"), T(text), W(1)]


def occurrences(n, length=None):
    """A pattern's panel: Length (linear) and Occurrences at the foot of it."""
    steps = [TRIPLE(165, 716), K("ctrl", "a"), T(length), W(1)] if length else []
    return steps + [TRIPLE(195, 748), K("ctrl", "a"), T(str(n)), W(2)]


PAD_15 = [*tool(ROW_293, ADDITIVE, PAD), *value("15 mm"), C(117, 223), W(2)]
POCKET_THROUGH = [*tool(ROW_312, SUBTRACTIVE, POCKET), C(190, 304), W(1), C(158, 330), W(1.5), C(117, 223), W(2)]
# the Hole panel is wider than the combo view: OK with its defaults (a 6 mm hole 25 mm deep, through the
# 10 mm plate), then the Diameter in the Hole's Data tab
HOLE_10 = [*tool(ROW_312, SUBTRACTIVE, HOLE), C(220, 223), W(2), C(31, 176), W(1), C(105, 312), W(1.5),
           DOUBLE(180, 681), W(1), K("ctrl", "a"), T("10 mm\n"), W(1.5), K("ctrl", "r"), W(2)]
FILLET_2 = [*tool((102, 293), DRESS_UP, FILLET), *value("2 mm"), C(99, 223), W(2)]
CHAMFER_15 = [*tool((102, 293), DRESS_UP, CHAMFER), *value("1.5 mm"), C(97, 223), W(2)]
REVOLVE = [*tool(ROW_293, ADDITIVE, REVOLUTION), C(92, 223), W(2)]
MIRROR = [*tool(ROW_312, PATTERN, MIRRORED), C(107, 223), W(2)]
LINEAR_3 = [*tool(ROW_312, PATTERN, LINEAR), *occurrences(3, "40 mm"), C(107, 223), W(2)]
POLAR_4 = [*tool(ROW_312, PATTERN, POLAR), *occurrences(4), C(107, 223), W(2)]
# the sketch under the Pad, its Data tab's Constraints expanded: Width is the second named one
WIDTH_50 = [C(55, 293), W(1), C(*ROW_312), W(1), C(15, 681), W(1), DOUBLE(180, 722), W(1), K("ctrl", "a"),
            T("50 mm\n"), W(1), K("ctrl", "r"), W(2)]
EXPORT_BODY = [C(86, 256), W(1), K("ctrl", "e"), W(3), T(f"{WORK}/ring.stl\n"), W(4)]


def start(name, **artifacts):
    part = f"{WORK}/{name}"
    return {"start_files": [{"src": f"{MORE}/{name}", "dest": part},
                            {"src": f"{MORE}/user.cfg", "dest": "/root/.config/FreeCAD/user.cfg"}],
            "start_command": ["env", "QTWEBENGINE_DISABLE_SANDBOX=1", "freecad", part],
            "window": "FreeCAD", "window_timeout_s": 240, "artifacts": {"part": part, **artifacts}}


def solid(key, holes=True):
    """The expected solid of reference ``key``: volume, bounding box, and (``holes``) its holes."""
    ref = REF[key]
    out = {"volume": round(ref["volume"], 3), "bbox": ref["bbox"]}
    if holes:
        out["holes"] = ref["holes"]
    return out


CARD = ["Each document holds one Part Design Body. The Model tree lists its features; the last one shown (the "
        "Tip) is the body's solid.",
        "Select a sketch in the tree, then Pad, Pocket, Revolution or Hole (Part Design toolbar or menu); set the "
        "parameters in the task panel (Type: Dimension / Through all, Length, Angle, Axis) and press OK.",
        "Fillet and Chamfer: select the edges in the 3D view, or select the feature in the tree to use all its "
        "edges (the task panel's 'Use All Edges'); set Radius or Size, OK.",
        "Mirrored, Linear Pattern and Polar Pattern: select the feature to repeat (e.g. Pocket) in the tree, then the "
        "tool; pick the plane, direction or axis, Length/Angle and Occurrences; OK.",
        "A sketch's named constraints (Length, Width) are listed in its Data tab under Constraints and can be edited "
        "there; Ctrl+R recomputes. Ctrl+S saves; File > Export (Ctrl+E) exports the selected object."]

tasks = [
    task("freecad-pd-pad", "L1",
         "pd_sketch.FCStd is open in FreeCAD's Part Design workbench with a closed 60 x 40 mm sketch in its body. "
         "Pad the sketch 15 mm (a Pad feature) and save the document.",
         "partdesign", {"types": {"PartDesign::Pad": 1}, "tip": "PartDesign::Pad", "solid": solid("pad15")},
         start("pd_sketch.FCStd"), [*START, *PAD_15, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-pocket", "L1",
         "pd_plate_sketch.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate and, on its top, "
         "Sketch001 with a circle of radius 4 mm. Pocket Sketch001 through the whole plate (a Pocket feature) and "
         "save the document.",
         "partdesign", {"tip": "PartDesign::Pocket", "solid": solid("pocket")}, start("pd_plate_sketch.FCStd"),
         [*START, *POCKET_THROUGH, *SAVE],
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-hole", "L1",
         "pd_plate_sketch.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate and, on its top, "
         "Sketch001 with a circle. Make a Hole feature from Sketch001 with a diameter of 10 mm that goes right "
         "through the plate, and save the document.",
         "partdesign", {"tip": "PartDesign::Hole", "properties": {"PartDesign::Hole.Diameter": 10},
                        "solid": solid("hole")}, start("pd_plate_sketch.FCStd"),
         [*START, *HOLE_10, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-fillet", "L1",
         "pd_block.FCStd is open in FreeCAD's Part Design workbench: a 60 x 40 x 10 mm padded block. Round all 12 "
         "edges of the block with a 2 mm fillet (a Fillet feature) and save the document.",
         "partdesign", {"tip": "PartDesign::Fillet", "properties": {"PartDesign::Fillet.Radius": 2},
                        "solid": solid("fillet")}, start("pd_block.FCStd"),
         [*START, *FILLET_2, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-chamfer", "L1",
         "pd_block.FCStd is open in FreeCAD's Part Design workbench: a 60 x 40 x 10 mm padded block. Chamfer all 12 "
         "edges of the block by 1.5 mm (a Chamfer feature) and save the document.",
         "partdesign", {"tip": "PartDesign::Chamfer", "properties": {"PartDesign::Chamfer.Size": 1.5},
                        "solid": solid("chamfer")}, start("pd_block.FCStd"),
         [*START, *CHAMFER_15, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-revolution", "L1",
         "pd_profile.FCStd is open in FreeCAD's Part Design workbench with a rectangular sketch on the XZ plane, "
         "10 mm off the Z axis. Revolve the sketch a full 360 degrees about the sketch's vertical axis (the Z axis) "
         "into a ring (a Revolution feature) and save the document.",
         "partdesign", {"tip": "PartDesign::Revolution", "solid": solid("revolution")}, start("pd_profile.FCStd"),
         [*START, *REVOLVE, *SAVE],
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-mirror", "L1",
         "pd_plate_hole.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate centred on the "
         "origin with one hole (Pocket) at x = -20 mm. Mirror the Pocket across the YZ plane (a Mirrored feature) so "
         "that the plate has a second hole at x = 20 mm, and save the document.",
         "partdesign", {"tip": "PartDesign::Mirrored", "solid": solid("mirrored")}, start("pd_plate_hole.FCStd"),
         [*START, *MIRROR, *SAVE],
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-linear-pattern", "L1",
         "pd_plate_hole.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate with one hole "
         "(Pocket) at x = -20 mm. Repeat the Pocket in a Linear Pattern along the X axis: 3 occurrences over a "
         "length of 40 mm (holes at x = -20, 0 and 20 mm); save the document.",
         "partdesign", {"tip": "PartDesign::LinearPattern", "properties": {"PartDesign::LinearPattern.Occurrences": 3},
                        "solid": solid("linear")}, start("pd_plate_hole.FCStd"),
         [*START, *LINEAR_3, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-polar-pattern", "L1",
         "pd_plate_hole.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate centred on the "
         "origin with one hole (Pocket) at x = -20 mm. Repeat the Pocket in a Polar Pattern about the Z axis: 4 "
         "occurrences over 360 degrees; save the document.",
         "partdesign", {"tip": "PartDesign::PolarPattern", "properties": {"PartDesign::PolarPattern.Occurrences": 4},
                        "solid": solid("polar")}, start("pd_plate_hole.FCStd"),
         [*START, *POLAR_4, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-sketch-width", "L1",
         "pd_block.FCStd is open in FreeCAD's Part Design workbench: a block padded from a sketch whose constraints "
         "Length (60 mm) and Width (40 mm) are named. Change the sketch's Width constraint to 50 mm, recompute so "
         "that the block follows, and save the document.",
         "partdesign", {"sketch": {"Sketch.Width": 50, "Sketch.Length": 60}, "solid": solid("width50")},
         start("pd_block.FCStd"), [*START, *WIDTH_50, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    # --- L2 ---
    task("freecad-pd-pad-fillet", "L2",
         "pd_sketch.FCStd is open in FreeCAD's Part Design workbench with a closed 60 x 40 mm sketch. Pad it 15 mm, "
         "round all 12 edges of the padded block with a 2 mm fillet, and save the document.",
         "partdesign", {"types": {"PartDesign::Pad": 1}, "tip": "PartDesign::Fillet", "solid": solid("pad15_fillet")},
         start("pd_sketch.FCStd"), [*START, *PAD_15, *FILLET_2, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("freecad-pd-pocket-pattern", "L2",
         "pd_plate_sketch.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate with a circle "
         "(Sketch001) at x = -20 mm on its top. Pocket the circle through the plate, then repeat the pocket in a "
         "linear pattern along X (3 occurrences over 40 mm), and save the document.",
         "partdesign", {"types": {"PartDesign::Pocket": 1}, "tip": "PartDesign::LinearPattern",
                        "solid": solid("pocket_linear")}, start("pd_plate_sketch.FCStd"),
         [*START, *POCKET_THROUGH, *LINEAR_3, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-hole-mirror", "L2",
         "pd_plate_sketch.FCStd is open in FreeCAD's Part Design workbench: a 60 x 60 x 10 mm plate with a circle "
         "(Sketch001) at x = -20 mm on its top. Make a 10 mm Hole through the plate from Sketch001, mirror it "
         "across the YZ plane, and save the document.",
         "partdesign", {"types": {"PartDesign::Hole": 1}, "tip": "PartDesign::Mirrored",
                        "solid": solid("hole_mirrored")}, start("pd_plate_sketch.FCStd"),
         [*START, *HOLE_10, *MIRROR, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-width-chamfer", "L2",
         "pd_block.FCStd is open in FreeCAD's Part Design workbench (a 60 x 40 x 10 mm block from a sketch with named "
         "constraints Length and Width). Widen the block to 50 mm through the sketch's Width constraint, then "
         "chamfer all 12 edges by 1.5 mm, and save the document.",
         "partdesign", {"sketch": {"Sketch.Width": 50}, "tip": "PartDesign::Chamfer",
                        "solid": solid("width50_chamfer")}, start("pd_block.FCStd"),
         [*START, *WIDTH_50, *CHAMFER_15, *SAVE], tags=TAGS, apps=APPS,
         knowledge=CARD),
    task("freecad-pd-revolve-stl", "L2",
         "pd_profile.FCStd is open in FreeCAD's Part Design workbench with a rectangular sketch on the XZ plane. "
         "Revolve it 360 degrees about the Z axis (the sketch's vertical axis) into a ring, and export the ring's "
         "body as an STL mesh to /root/work/ring.stl.",
         "stl", {"artifact": "mesh", "bbox": REF["revolution"]["bbox"], "volume": round(REF["revolution"]["volume"], 1),
                 "tolerance": 0.05, "volume_tolerance": 0.01},
         start("pd_profile.FCStd", mesh=f"{WORK}/ring.stl"),
         [*START, *REVOLVE, *EXPORT_BODY], tags=TAGS, apps=APPS, knowledge=CARD),
]

if __name__ == "__main__":
    write("freecad_more", tasks)
