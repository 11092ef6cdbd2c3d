"""Writes tasks/imaging.json: GIMP, ImageJ and Avogadro tasks (L1, L2) and their pipelines with LibreOffice
Calc/Writer and R (L3). Run ``python suites/prosoft/make/imaging.py`` from the repository root.

Start files come from ``fixtures/prosoft/imaging/`` (``make_fixtures.py`` there); the evaluators are
``checks/gimp.py`` (gimp_image, docx_image), ``checks/imagej.py`` (imagej_image, imagej_results) and
``checks/avogadro.py`` (molecule). Demonstrations are keyboard-first:

- GIMP runs in single-window mode filling the screen (``gimp_sessionrc``); operations are run through GIMP's own
  "Search and Run a Command" (the ``/`` key, Help menu), which takes the first match on Enter, or a menu
  accelerator; exports go through File > Export As (Shift+Ctrl+E): a path typed in the name field, Enter,
  Enter on the format's options dialog.
- ImageJ commands are run through its Command Finder (Ctrl+L, then the command's name, Down, Enter; the finder
  closes after running, ``IJ_Prefs.txt``); Ctrl+M measures, Ctrl+S in the Results window saves the table.
- Avogadro: menus by accelerators (Build > Hydrogens, File > Save As for .cjson/.cml, File > Export > Molecule
  for .xyz/.mol: Save As offers only the two lossless formats), the Atomic Coordinate Editor for edits.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402

FIX = "fixtures/prosoft/imaging"
WORK = "/root/work"
HIGH = {"max_steps": 60, "time_limit_s": 900}
REPORT = ["Quarterly Report", "Spending stayed within the plan for the first two quarters.",
          "Travel fell while training grew, as agreed in January."]
CELL_AREAS = [113, 149, 197, 253, 253, 317, 317, 377, 441, 441, 529, 613]  # make_fixtures.cell_areas(), sorted
CELLS_MEAN = 30.214  # mean gray value of cells.tif (ImageJ rounds to 3 decimals)
ROI = (120, 80, 40, 40)  # x, y, w, h of the ROI task: one cell and its surroundings
ROI_MEAN = 82.308


# --- start states -------------------------------------------------------------------------------------------

def gimp_start(name="photo.png"):
    stem = name.rsplit(".", 1)[0]
    return {"start_files": [{"src": f"{FIX}/{name}", "dest": f"{WORK}/{name}"},
                            {"src": f"{FIX}/gimp_sessionrc", "dest": "/root/.config/GIMP/2.10/sessionrc"},
                            {"src": f"{FIX}/gimp_gimprc", "dest": "/root/.config/GIMP/2.10/gimprc"}],
            "start_command": ["gimp", "--no-splash", f"{WORK}/{name}"],
            "window": f"\\[{stem}\\].*GIMP", "window_timeout_s": 240}


def imagej_start(name="cells.tif"):
    return {"start_files": [{"src": f"{FIX}/{name}", "dest": f"{WORK}/{name}"},
                            {"src": f"{FIX}/IJ_Prefs.txt", "dest": "/root/.imagej/IJ_Prefs.txt"}],
            "start_command": ["imagej", f"{WORK}/{name}"], "window": f"^{name.replace('.', '[.]')}$",
            "window_timeout_s": 120}


def avogadro_start(name=None):
    files = [{"src": f"{FIX}/{name}", "dest": f"{WORK}/{name}"}] if name else []
    return {"start_files": files, "start_command": ["avogadro2"] + ([f"{WORK}/{name}"] if name else []),
            "window": "Avogadro 1[.]97", "window_timeout_s": 120}


# --- demonstration pieces -----------------------------------------------------------------------------------

def gimp_run(command, pick=0, dialog=None):
    """GIMP's Search and Run a Command: Enter runs the selected match (the first, or ``pick`` rows down); the
    search closes, and the command's ``dialog`` (its window title) shows when it has one. The waits after a
    window shows give it the focus (GTK queues the keys sent while a command runs)."""
    opened = [WIN(f"^{dialog}$"), W(0.7)] if dialog else [W(0.7)]
    return [P("/"), WIN("^Search Actions$"), W(0.5), T(command), W(1.2), *[P("down")] * pick, P("enter"),
            GONE("^Search Actions$"), *opened]


def gimp_export(path):
    """File > Export As: the path typed in the file dialog, then Export in the format's options dialog; done
    when the file is written."""
    return [K("shift", "ctrl", "e"), WIN("^Export Image$"), W(0.7), K("ctrl", "a"), T(path + "\n"),
            WIN("^Export Image as "), W(0.7), P("enter"), SAVED(path)]


def gimp_scale(width):
    """Image > Scale Image: the width typed, Tab (the chained height follows), Alt+S (Scale)."""
    return [K("alt", "i"), P("s"), W(2), T(f"{width}\t"), W(1), K("alt", "s"), W(2)]


def ij_command(name):
    """ImageJ's Command Finder: type the command, pick the first match, run it."""
    return [K("ctrl", "l"), WIN("^Command Finder$"), T(name), W(1), P("down"), P("enter"), W(2)]


def ij_save_as(kind, path):
    """File > Save As > <kind> through the Command Finder, then the path in the file dialog."""
    return [*ij_command(kind), K("ctrl", "a"), T(path + "\n"), W(2)]


def ij_save_results(path):
    """The Results window has the focus after measuring: its File > Save As (Ctrl+S)."""
    return [K("ctrl", "s"), W(2), K("ctrl", "a"), T(path + "\n"), W(2)]


# Edit > Selection > Specify: Width, Height, X, Y; each field is typed on its own after Tab has moved the focus
# (AWT moves it late under load) and Enter in a field is OK
IJ_SPECIFY_ROI = [*ij_command("Specify..."), T(str(ROI[2])), W(0.5), P("tab"), W(0.7), T(str(ROI[3])), W(0.5),
                  P("tab"), W(0.7), T(str(ROI[0])), W(0.5), P("tab"), W(0.7), T(str(ROI[1])), W(1), P("enter"),
                  W(1.5)]
IJ_COUNT = [*ij_command("Convert to Mask"),
            *ij_command("Analyze Particles..."),
            # Size, Circularity, Show, then the first checkbox: Display results; back to a field, Enter = OK
            P("tab"), W(0.5), P("tab"), W(0.5), P("tab"), W(0.7), P("space"), W(0.7), K("shift", "tab"), W(0.5),
            K("shift", "tab"), W(0.5), K("shift", "tab"), W(0.7), P("enter"), W(3)]


def avo_export(path):
    """File > Export > Molecule... (any format by its extension)."""
    return [K("alt", "f"), P("e"), P("m"), W(2), T(path + "\n"), W(2.5)]


def avo_save_as(path):
    """File > Save As (Chemical JSON or CML)."""
    return [K("alt", "f"), P("a"), W(2), T(path + "\n"), W(2.5)]


AVO_ADD_H = [K("ctrl", "alt", "h"), W(1.5)]  # Build > Hydrogens > Adjust Hydrogens
AVO_REMOVE_H = [K("alt", "b"), P("h"), P("r"), W(1.5)]  # Build > Hydrogens > Remove All Hydrogens


def avo_coordinates(text):
    """Build > Atomic Coordinate Editor: replace the text, Apply, close."""
    return [K("alt", "b"), P("c"), P("enter"), W(2), C(420, 420), K("ctrl", "a"), T(text), W(1), C(618, 496), W(1.5),
            P("escape"), W(1)]


# --- knowledge cards ----------------------------------------------------------------------------------------

GIMP_CARD = ("GIMP 2.10: Image > Transform holds Flip Horizontally/Vertically and the rotations; Image > Scale Image "
             "sets the size in pixels (the chain keeps the aspect ratio); Image > Mode > Grayscale; Colors > Invert; "
             "Filters > Blur > Gaussian Blur (Size X/Y = standard deviation in px); Image > Crop to Content removes "
             "a plain border. File > Save writes only .xcf: a PNG or JPEG is made with File > Export As "
             "(Shift+Ctrl+E), whose file name decides the format. The '/' key searches every menu command (Colors > Invert is the second match for 'invert', after Select > Invert).")
IJ_CARD = ("ImageJ 1.53: Edit > Invert (Ctrl+Shift+I); Image > Type > 8-bit scales 16-bit data from its display "
           "range (min..max) onto 0..255; Process > Filters > Gaussian Blur (sigma in px); Process > Binary > "
           "Convert to Mask thresholds automatically; Analyze > Analyze Particles lists one row per particle when "
           "'Display results' is ticked; Analyze > Measure (Ctrl+M) measures the selection or the whole image; "
           "Edit > Selection > Specify sets a rectangle by numbers; File > Save As > PNG/Tiff; in the Results "
           "window File > Save As writes CSV. Ctrl+L (Command Finder) runs any command by name.")
AVO_CARD = ("Avogadro 1.97: Build > Hydrogens > Add Hydrogens / Adjust Hydrogens (Ctrl+Alt+H) / Remove All "
            "Hydrogens; Build > Atomic Coordinate Editor edits atoms as text (element x y z, Angstrom), Apply "
            "rebuilds bonds; File > Save As writes Chemical JSON or CML; other formats (XYZ, MDL .mol, PDB) are "
            "written by File > Export > Molecule, chosen by the file extension. Hill formula: C, then H, then the "
            "other elements alphabetically; molar masses C 12.011, H 1.008, O 15.999, S 32.06.")


# --- GIMP ---------------------------------------------------------------------------------------------------

def gimp_truth(artifact="image", **truth):
    return {"artifact": artifact, "source": "imaging/photo.png", **truth}


gimp = [
    task("gimp-flip-horizontal", "L1",
         "photo.png is open in GIMP. Flip the image horizontally (mirror it left to right) and export it as PNG to "
         "/root/work/flipped.png.",
         "gimp_image", gimp_truth(format="PNG", size=[320, 240], ops=[["flip_h"]], tolerance=3), gimp_start(),
         [K("alt", "i"), P("t"), P("h"), W(1.5), *gimp_export(f"{WORK}/flipped.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/flipped.png"}, knowledge=GIMP_CARD, **HIGH),
    task("gimp-rotate-90", "L1",
         "photo.png is open in GIMP. Rotate the whole image 90 degrees clockwise and export it as PNG to "
         "/root/work/rotated.png.",
         "gimp_image", gimp_truth(format="PNG", size=[240, 320], ops=[["rotate", 90]], tolerance=3), gimp_start(),
         [K("alt", "i"), P("t"), P("c"), W(1.5), *gimp_export(f"{WORK}/rotated.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/rotated.png"}, **HIGH),
    task("gimp-scale-half", "L1",
         "photo.png (320x240) is open in GIMP. Scale the image to 160x120 pixels and export it as PNG to "
         "/root/work/small.png.",
         "gimp_image", gimp_truth(format="PNG", size=[160, 120], ops=[["scale", 160, 120]], tolerance=4),
         gimp_start(), [*gimp_scale(160), *gimp_export(f"{WORK}/small.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/small.png"}, knowledge=GIMP_CARD, **HIGH),
    task("gimp-grayscale", "L1",
         "photo.png is open in GIMP. Convert the image to grayscale (Image > Mode) and export it as PNG to "
         "/root/work/gray.png.",
         "gimp_image", gimp_truth(format="PNG", gray=True, ops=[["gray"]], tolerance=3), gimp_start(),
         [K("alt", "i"), P("m"), P("g"), W(2), *gimp_export(f"{WORK}/gray.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/gray.png"}, **HIGH),
    task("gimp-invert", "L1",
         "photo.png is open in GIMP. Invert its colours (Colors > Invert) and export it as PNG to "
         "/root/work/inverted.png.",
         "gimp_image", gimp_truth(format="PNG", size=[320, 240], ops=[["invert"]], tolerance=3), gimp_start(),
         [*gimp_run("invert", pick=1), *gimp_export(f"{WORK}/inverted.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/inverted.png"}, **HIGH),
    task("gimp-gray-thumbnail", "L2",
         "photo.png is open in GIMP. Make a grayscale thumbnail: scale the image to 200x150 pixels, convert it to "
         "grayscale, and export it as a JPEG to /root/work/thumb.jpg.",
         "gimp_image", gimp_truth(format="JPEG", size=[200, 150], gray=True, ops=[["scale", 200, 150], ["gray"]],
                                  tolerance=5), gimp_start(),
         [*gimp_scale(200), K("alt", "i"), P("m"), P("g"), W(2), *gimp_export(f"{WORK}/thumb.jpg")],
         tags=["gimp"], artifacts={"image": f"{WORK}/thumb.jpg"}, knowledge=GIMP_CARD, **HIGH),
    task("gimp-crop-flip", "L2",
         "framed.png is open in GIMP: a picture on a plain white border. Crop the image to its content (remove the "
         "white border), flip it vertically (upside down), and export it as PNG to /root/work/cropped.png.",
         "gimp_image", {"artifact": "image", "source": "imaging/framed.png", "format": "PNG", "size": [200, 140],
                        "ops": [["crop", 40, 30, 240, 170], ["flip_v"]], "tolerance": 3}, gimp_start("framed.png"),
         [*gimp_run("crop to content"), K("alt", "i"), P("t"), P("v"), W(1.5), *gimp_export(f"{WORK}/cropped.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/cropped.png"}, **HIGH),
    task("gimp-blur-invert", "L2",
         "photo.png is open in GIMP. Apply a Gaussian blur of size 3 px (Filters > Blur > Gaussian Blur, Size X "
         "and Y = 3), then invert the colours, and export the result as PNG to /root/work/soft.png.",
         "gimp_image", gimp_truth(format="PNG", size=[320, 240], ops=[["blur", 3], ["invert"]], tolerance=3.5,
                                  blurrier_than={"source": "imaging/photo.png", "ops": [["invert"]], "factor": 1.5}),
         gimp_start(),
         [*gimp_run("gaussian blur", dialog="Gaussian Blur"), P("tab"), W(0.7), K("ctrl", "a"), T("3"), W(0.5),
          P("tab"), W(1.5), K("alt", "o"), GONE("^Gaussian Blur$"), W(1),
          *gimp_run("invert", pick=1), *gimp_export(f"{WORK}/soft.png")],
         tags=["gimp"], artifacts={"image": f"{WORK}/soft.png"}, knowledge=GIMP_CARD, **HIGH),
    task("gimp-rotate-upscale", "L2",
         "photo.png (320x240) is open in GIMP. Rotate the image by 180 degrees, scale it up to 480x360 pixels, "
         "and export it as a JPEG to /root/work/big.jpg.",
         "gimp_image", gimp_truth(format="JPEG", size=[480, 360], ops=[["rotate", 180], ["scale", 480, 360]],
                                  tolerance=5), gimp_start(),
         [K("alt", "i"), P("t"), P("1"), W(1.5), *gimp_scale(480), *gimp_export(f"{WORK}/big.jpg")],
         tags=["gimp"], artifacts={"image": f"{WORK}/big.jpg"}, **HIGH),
]


# --- ImageJ -------------------------------------------------------------------------------------------------

def ij_truth(**truth):
    return {"artifact": "image", "source": "imaging/cells.tif", **truth}


imagej = [
    task("imagej-invert", "L1",
         "cells.tif is open in ImageJ. Invert the image (Edit > Invert) and save it as PNG to "
         "/root/work/cells_inverted.png.",
         "imagej_image", ij_truth(format="PNG", size=[256, 256], ops=[["invert"]], tolerance=1), imagej_start(),
         [K("ctrl", "shift", "i"), W(1.5), *ij_save_as("PNG...", f"{WORK}/cells_inverted.png")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cells_inverted.png"}, knowledge=IJ_CARD, **HIGH),
    task("imagej-8bit", "L1",
         "cells16.tif (16-bit) is open in ImageJ. Convert it to 8-bit (Image > Type > 8-bit) and save it as TIFF "
         "to /root/work/cells8.tif.",
         "imagej_image", {"artifact": "image", "source": "imaging/cells16.tif", "format": "TIFF", "mode": "L",
                          "ops": [["to8bit"]], "tolerance": 2}, imagej_start("cells16.tif"),
         [*ij_command("8-bit"), *ij_save_as("Tiff...", f"{WORK}/cells8.tif")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cells8.tif"}, knowledge=IJ_CARD, **HIGH),
    task("imagej-flip", "L1",
         "cells.tif is open in ImageJ. Flip the image horizontally (Image > Transform > Flip Horizontally) and "
         "save it as PNG to /root/work/cells_flipped.png.",
         "imagej_image", ij_truth(format="PNG", size=[256, 256], ops=[["flip_h"]], tolerance=1), imagej_start(),
         [*ij_command("Flip Horizontally"), *ij_save_as("PNG...", f"{WORK}/cells_flipped.png")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cells_flipped.png"}, **HIGH),
    task("imagej-blur", "L1",
         "cells.tif is open in ImageJ. Apply a Gaussian blur with sigma 3 (Process > Filters > Gaussian Blur) and "
         "save the image as TIFF to /root/work/cells_blur.tif.",
         "imagej_image", ij_truth(format="TIFF", size=[256, 256], ops=[["blur", 3]], tolerance=1,
                                  blurrier_than={"source": "imaging/cells.tif", "factor": 3}), imagej_start(),
         [*ij_command("Gaussian Blur..."), T("3\n"), W(2), *ij_save_as("Tiff...", f"{WORK}/cells_blur.tif")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cells_blur.tif"}, **HIGH),
    task("imagej-measure", "L1",
         "cells.tif is open in ImageJ. Measure the whole image (Analyze > Measure) and save the Results table as "
         "CSV to /root/work/measure.csv.",
         "imagej_results", {"artifact": "results", "columns": ["Area", "Mean"], "rows": 1,
                            "row": {"Area": {"value": 65536, "tol": 0}, "Mean": {"value": CELLS_MEAN, "tol": 0.01}}},
         imagej_start(), [K("ctrl", "m"), W(2), *ij_save_results(f"{WORK}/measure.csv")],
         tags=["imagej"], artifacts={"results": f"{WORK}/measure.csv"}, **HIGH),
    task("imagej-count-cells", "L2",
         "cells.tif is open in ImageJ: bright cells on a dark background. Segment the cells (for example Process > "
         "Binary > Convert to Mask), run Analyze > Analyze Particles with 'Display results' so that the Results "
         "table has one row per cell with its Area, and save that table as CSV to /root/work/particles.csv.",
         "imagej_results", {"artifact": "results", "columns": ["Area"], "rows": 12,
                            "values": {"Area": {"values": CELL_AREAS, "tol": 0}},
                            "sum": {"Area": {"value": sum(CELL_AREAS), "rel": 0.001}}},
         imagej_start(), [*IJ_COUNT, *ij_save_results(f"{WORK}/particles.csv")],
         tags=["imagej"], artifacts={"results": f"{WORK}/particles.csv"}, knowledge=IJ_CARD, **HIGH),
    task("imagej-roi-mean", "L2",
         f"cells.tif is open in ImageJ. Select the rectangle at x={ROI[0]}, y={ROI[1]} of width {ROI[2]} and "
         f"height {ROI[3]} pixels (Edit > Selection > Specify), measure it (Analyze > Measure) and save the "
         "Results table as CSV to /root/work/roi.csv.",
         "imagej_results", {"artifact": "results", "columns": ["Area", "Mean"], "rows": 1,
                            "row": {"Area": {"value": ROI[2] * ROI[3], "tol": 0},
                                    "Mean": {"value": ROI_MEAN, "tol": 0.01}}},
         imagej_start(),
         [*IJ_SPECIFY_ROI,
          K("ctrl", "m"), W(2), *ij_save_results(f"{WORK}/roi.csv")],
         tags=["imagej"], artifacts={"results": f"{WORK}/roi.csv"}, **HIGH),
    task("imagej-crop", "L2",
         f"cells.tif is open in ImageJ. Crop it to the rectangle at x={ROI[0]}, y={ROI[1]} of width {ROI[2]} and "
         f"height {ROI[3]} pixels (Edit > Selection > Specify, then Image > Crop), invert the cropped image, and "
         "save it as TIFF to /root/work/cell_crop.tif.",
         "imagej_image", ij_truth(format="TIFF", size=[ROI[2], ROI[3]],
                                  ops=[["crop", ROI[0], ROI[1], ROI[0] + ROI[2], ROI[1] + ROI[3]], ["invert"]],
                                  tolerance=1), imagej_start(),
         [*IJ_SPECIFY_ROI,
          *ij_command("Crop"), K("ctrl", "shift", "i"), W(1.5), *ij_save_as("Tiff...", f"{WORK}/cell_crop.tif")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cell_crop.tif"}, knowledge=IJ_CARD, **HIGH),
    task("imagej-8bit-blur", "L2",
         "cells16.tif (16-bit) is open in ImageJ. Convert it to 8-bit, apply a Gaussian blur with sigma 2, and "
         "save the result as PNG to /root/work/cells_smooth.png.",
         "imagej_image", {"artifact": "image", "source": "imaging/cells16.tif", "format": "PNG", "mode": "L",
                          "ops": [["to8bit"], ["blur", 2]], "tolerance": 1.5,
                          "blurrier_than": {"source": "imaging/cells16.tif", "ops": [["to8bit"]], "factor": 2}},
         imagej_start("cells16.tif"),
         [*ij_command("8-bit"), *ij_command("Gaussian Blur..."), T("2\n"), W(2),
          *ij_save_as("PNG...", f"{WORK}/cells_smooth.png")],
         tags=["imagej"], artifacts={"image": f"{WORK}/cells_smooth.png"}, **HIGH),
]


# --- Avogadro -----------------------------------------------------------------------------------------------

ETHANOL_KEEPS = {"source": "imaging/ethanol_heavy.mol", "heavy_only": True}
THIOL_TEXT = "C -0.0467 0.0 0.0\nC 1.4733 0.0 0.0\nS 1.9533 1.3462 0.0"
METHANOL_TEXT = "C 0.0 0.0 0.0\nO 1.43 0.0 0.0"

avogadro = [
    task("avogadro-add-hydrogens", "L1",
         "ethanol_heavy.mol (ethanol without its hydrogens) is open in Avogadro. Add the missing hydrogens and "
         "export the molecule as an MDL molfile to /root/work/ethanol.mol.",
         "molecule", {"artifact": "molecule", "format": "mol", "formula": "C2H6O", "bonds": 8, "keeps": ETHANOL_KEEPS},
         avogadro_start("ethanol_heavy.mol"), [*AVO_ADD_H, *avo_export(f"{WORK}/ethanol.mol")],
         tags=["avogadro"], artifacts={"molecule": f"{WORK}/ethanol.mol"}, knowledge=AVO_CARD, **HIGH),
    task("avogadro-remove-hydrogens", "L1",
         "methanol.mol is open in Avogadro. Remove all hydrogens and export the heavy atoms as XYZ to "
         "/root/work/methanol_heavy.xyz.",
         "molecule", {"artifact": "molecule", "format": "xyz", "formula": "CO",
                      "keeps": {"source": "imaging/methanol.mol", "heavy_only": True}},
         avogadro_start("methanol.mol"), [*AVO_REMOVE_H, *avo_export(f"{WORK}/methanol_heavy.xyz")],
         tags=["avogadro"], artifacts={"molecule": f"{WORK}/methanol_heavy.xyz"}, **HIGH),
    task("avogadro-xyz-to-cml", "L1",
         "ethanol.xyz is open in Avogadro. Save the molecule in Chemical Markup Language to /root/work/ethanol.cml "
         "(with its bonds).",
         "molecule", {"artifact": "molecule", "format": "cml", "formula": "C2H6O", "bonds": 8,
                      "keeps": {"source": "imaging/ethanol.xyz"}},
         avogadro_start("ethanol.xyz"), avo_save_as(f"{WORK}/ethanol.cml"),
         tags=["avogadro"], artifacts={"molecule": f"{WORK}/ethanol.cml"}, **HIGH),
    task("avogadro-xyz-to-mol", "L1",
         "acetic_acid.xyz is open in Avogadro. Export it as an MDL molfile with its bonds to "
         "/root/work/acetic_acid.mol.",
         "molecule", {"artifact": "molecule", "format": "mol", "formula": "C2H4O2", "bonds": 7,
                      "keeps": {"source": "imaging/acetic_acid.xyz"}},
         avogadro_start("acetic_acid.xyz"), avo_export(f"{WORK}/acetic_acid.mol"),
         tags=["avogadro"], artifacts={"molecule": f"{WORK}/acetic_acid.mol"}, knowledge=AVO_CARD, **HIGH),
    task("avogadro-ethanethiol", "L2",
         "ethanol_heavy.mol (C-C-O, no hydrogens) is open in Avogadro. Turn it into ethanethiol: change the oxygen "
         "atom into sulfur (same position), add the hydrogens, and export the molecule as an MDL molfile to "
         "/root/work/ethanethiol.mol.",
         "molecule", {"artifact": "molecule", "format": "mol", "formula": "C2H6S", "bonds": 8, "bonded": [["C", "S"]],
                      "keeps": {"source": "imaging/ethanol_heavy.mol", "elements": ["C"]}},
         avogadro_start("ethanol_heavy.mol"),
         [*avo_coordinates(THIOL_TEXT), *AVO_ADD_H, *avo_export(f"{WORK}/ethanethiol.mol")],
         tags=["avogadro"], artifacts={"molecule": f"{WORK}/ethanethiol.mol"}, knowledge=AVO_CARD, **HIGH),
    task("avogadro-ethanol-two-formats", "L2",
         "ethanol_heavy.mol is open in Avogadro. Add the missing hydrogens, then save the molecule both as CML to "
         "/root/work/ethanol.cml and as XYZ to /root/work/ethanol.xyz.",
         "pipeline", {"steps": [
             {"template": "molecule", "artifact": "cml", "format": "cml", "formula": "C2H6O", "bonds": 8,
              "keeps": ETHANOL_KEEPS},
             {"template": "molecule", "artifact": "xyz", "format": "xyz", "formula": "C2H6O", "keeps": ETHANOL_KEEPS}]},
         avogadro_start("ethanol_heavy.mol"),
         [*AVO_ADD_H, *avo_save_as(f"{WORK}/ethanol.cml"), *avo_export(f"{WORK}/ethanol.xyz")],
         tags=["avogadro"], artifacts={"cml": f"{WORK}/ethanol.cml", "xyz": f"{WORK}/ethanol.xyz"}, **HIGH),
    task("avogadro-build-methanol", "L2",
         "Avogadro is open with an empty molecule. Build methanol: a carbon atom at (0, 0, 0) and an oxygen atom "
         "at (1.43, 0, 0) Angstrom, bonded; add the hydrogens; and export it as an MDL molfile to "
         "/root/methanol.mol (in the home folder).",
         "molecule", {"artifact": "molecule", "format": "mol", "formula": "CH4O", "bonds": 5, "bonded": [["C", "O"]]},
         avogadro_start(), [*avo_coordinates(METHANOL_TEXT), *AVO_ADD_H, *avo_export("/root/methanol.mol")],
         tags=["avogadro"], artifacts={"molecule": "/root/methanol.mol"}, knowledge=AVO_CARD, **HIGH),
]


# --- pipelines (L3) -----------------------------------------------------------------------------------------

def calc_with(name):
    return {"src": f"{FIX}/{name}", "dest": f"{WORK}/{name}"}, {
        "command": ["soffice", "--norestore", "--calc", f"{WORK}/{name}"], "window": name.replace(".", "[.]"),
        "window_timeout_s": 180}


def both(first_files, first_cmd, second_files, second_cmd):
    """Start the first program, then the second (which has the focus)."""
    return {"start_files": [*first_files, *second_files], "start_commands": [first_cmd, second_cmd]}


R_CMD = ["xterm", "-T", "R console", "-geometry", "120x30+0+0", "-e", "R", "--quiet", "--no-save"]
CALC_CELLS, CALC_CELLS_CMD = calc_with("cells.xlsx")
CALC_MOLS, CALC_MOLS_CMD = calc_with("molecules.xlsx")
IJ = imagej_start()
IJ_CMD = {"command": IJ["start_command"], "window": IJ["window"], "window_timeout_s": 120}
GIMP = gimp_start()
GIMP_CMD = {"command": GIMP["start_command"], "window": GIMP["window"], "window_timeout_s": 240}
AVO = avogadro_start("ethanol_heavy.mol")
AVO_CMD = {"command": AVO["start_command"], "window": AVO["window"], "window_timeout_s": 120}
WRITER_CMD = {"command": ["soffice", "--norestore", "--writer", f"{WORK}/report.docx"], "window": "report[.]docx",
              "window_timeout_s": 180}
PARTICLES = {"template": "imagej_results", "artifact": "results", "columns": ["Area"], "rows": 12,
             "sum": {"Area": {"value": sum(CELL_AREAS), "rel": 0.001}}}

pipelines = [
    task("pipe-imagej-calc-cells", "L3",
         "Two programs are open: ImageJ with cells.tif and cells.xlsx in LibreOffice Calc. In ImageJ, count the "
         "cells: segment them (e.g. Process > Binary > Convert to Mask), run Analyze Particles with 'Display "
         "results', and save the Results table as CSV to /root/work/particles.csv. Then in Calc fill row 3: "
         "'cells.tif' in A3, the number of cells in B3 and their total area in pixels in C3; save the workbook "
         "(keep the format).",
         "pipeline", {"steps": [PARTICLES, {"template": "calc", "artifact": "workbook",
                                            "values": {"A3": "cells.tif", "B3": 12, "C3": sum(CELL_AREAS)},
                                            "unchanged_from": "imaging/cells.xlsx"}]},
         both([CALC_CELLS], CALC_CELLS_CMD, IJ["start_files"], IJ_CMD),
         [*IJ_COUNT, *ij_save_results(f"{WORK}/particles.csv"), C(300, 650), W(1.5), K("ctrl", "home"),
          P("down"), P("down"), T(f"cells.tif\t12\t{sum(CELL_AREAS)}\n"), K("ctrl", "s"), W(3)],
         tags=["imagej", "calc", "pipeline"], apps=["imagej", "calc"], knowledge=IJ_CARD,
         artifacts={"results": f"{WORK}/particles.csv", "workbook": f"{WORK}/cells.xlsx"}, **HIGH),
    task("pipe-imagej-r-area", "L3",
         "Two programs are open: ImageJ with cells.tif and an R console. In ImageJ, measure every cell: segment the "
         "cells, run Analyze Particles with 'Display results', and save the Results table as CSV to "
         "/root/work/particles.csv. Then in R read that file and write the mean cell area (the mean of the Area "
         "column, just the number) to /root/work/mean_area.txt.",
         "pipeline", {"steps": [PARTICLES, {"template": "r_output", "outputs": {
             "mean_area": {"number": round(sum(CELL_AREAS) / 12, 3), "tolerance": 0.01}}}]},
         both([], {"command": R_CMD, "window": "^R console$", "window_timeout_s": 60}, IJ["start_files"], IJ_CMD),
         [*IJ_COUNT, *ij_save_results(f"{WORK}/particles.csv"), C(200, 300), W(1),
          T('d <- read.csv("/root/work/particles.csv")\n'), T('write(mean(d$Area), "/root/work/mean_area.txt")\n'),
          W(2)],
         tags=["imagej", "r", "pipeline"], apps=["imagej", "r"],
         artifacts={"results": f"{WORK}/particles.csv", "mean_area": f"{WORK}/mean_area.txt"}, **HIGH),
    task("pipe-gimp-writer-figure", "L3",
         "Two programs are open: GIMP with photo.png and report.docx in LibreOffice Writer. In GIMP, scale the photo "
         "to 160x120 pixels and export it as PNG to /root/work/figure.png. Then insert /root/work/figure.png as a "
         "picture at the end of the report in Writer and save the document (keep the Word format).",
         "pipeline", {"steps": [
             gimp_truth(template="gimp_image", artifact="figure", format="PNG", size=[160, 120],
                        ops=[["scale", 160, 120]], tolerance=4),
             {"template": "docx_image", "artifact": "document", "size": [160, 120], "source": "imaging/photo.png",
              "ops": [["scale", 160, 120]], "tolerance": 4},
             {"template": "writer", "artifact": "document", "keeps": REPORT}]},
         both([{"src": "fixtures/prosoft/report.docx", "dest": f"{WORK}/report.docx"}], WRITER_CMD,
              GIMP["start_files"], GIMP_CMD),
         [*gimp_scale(160), *gimp_export(f"{WORK}/figure.png"), K("alt", "tab"), W(2), K("ctrl", "end"),
          K("alt", "i"), P("i"), W(3), K("ctrl", "l"), W(1), T(f"{WORK}/figure.png\n"), W(4), K("ctrl", "s"), W(4)],
         tags=["gimp", "writer", "pipeline"], apps=["gimp", "writer"], knowledge=GIMP_CARD,
         artifacts={"figure": f"{WORK}/figure.png", "document": f"{WORK}/report.docx"}, **HIGH),
    task("pipe-avogadro-calc-formula", "L3",
         "Two programs are open: Avogadro with ethanol_heavy.mol (ethanol without hydrogens) and molecules.xlsx in "
         "LibreOffice Calc. In Avogadro, add the hydrogens and export the molecule as an MDL molfile to "
         "/root/work/ethanol.mol. Then in Calc fill row 3: 'ethanol' in A3, its Hill formula in B3 and its molar "
         "mass in g/mol rounded to two decimals in C3; save the workbook (keep the format).",
         "pipeline", {"steps": [
             {"template": "molecule", "artifact": "molecule", "format": "mol", "formula": "C2H6O", "bonds": 8,
              "keeps": ETHANOL_KEEPS},
             {"template": "calc", "artifact": "workbook", "values": {"A3": "ethanol", "B3": "C2H6O", "C3": 46.07},
              "unchanged_from": "imaging/molecules.xlsx"}]},
         both([CALC_MOLS], CALC_MOLS_CMD, AVO["start_files"], AVO_CMD),
         [*AVO_ADD_H, *avo_export(f"{WORK}/ethanol.mol"), C(1100, 700), W(1.5), K("ctrl", "home"), P("down"),
          P("down"), T("ethanol\tC2H6O\t46.07\n"), K("ctrl", "s"), W(3)],
         tags=["avogadro", "calc", "pipeline"], apps=["avogadro", "calc"], knowledge=AVO_CARD,
         artifacts={"molecule": f"{WORK}/ethanol.mol", "workbook": f"{WORK}/molecules.xlsx"}, **HIGH),
]

if __name__ == "__main__":
    write("imaging", gimp + imagej + avogadro + pipelines)
