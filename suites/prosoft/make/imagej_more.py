"""Writes tasks/imagej_more.json: more ImageJ tasks (ImageJ is ProSoftArena's own program here), one core function
of the program per L1 task (threshold to a mask, median filter, edge detection, rotation, spatial calibration, Z
projection of a stack, pixel arithmetic) and four L2 tasks that chain them (count the spots of a stack, measure
calibrated particle areas, a rotated and cropped edge map, a 16-bit picture cleaned up). Run
``python suites/prosoft/make/imagej_more.py`` from the repository root.

Start files: ``fixtures/prosoft/imaging/`` (cells.tif, cells16.tif, IJ_Prefs.txt, read only) and
``fixtures/prosoft/science_more/stack.tif`` (its ``make_fixtures.py``). Evaluators: ``checks/imagej_more.py``
(imagej_processed, imagej_mask, imagej_calibration) and ``checks/imagej.py`` (imagej_image, imagej_results).
Demonstrations run each command through ImageJ's Command Finder (Ctrl+L), as ``make/imaging.py``'s do.
"""
import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, WIN, C, K, P, T, W, task, write  # noqa: E402
from imaging import CELL_AREAS, IJ_COUNT, ij_command, imagej_start  # noqa: E402

_spec = importlib.util.spec_from_file_location(  # science_more's make_fixtures.py, under a name of its own
    "science_fixtures", Path(__file__).resolve().parents[3] / "fixtures" / "prosoft" / "science_more" / "make_fixtures.py")
SCIENCE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(SCIENCE)
STACK_DISKS, STACK_SIZE = SCIENCE.STACK_DISKS, SCIENCE.STACK_SIZE

WORK = "/root/work"
LIMITS = {"L1": {"max_steps": 60, "time_limit_s": 900}, "L2": {"max_steps": 100, "time_limit_s": 1200}}
CELLS = "imaging/cells.tif"
STACK = "science_more/stack.tif"
# the background of cells.tif is 12..27, its cells 160..220; the stack's maximum projection: background up to 25,
# spots 90..230
CELLS_BETWEEN, STACK_BETWEEN = [27, 160], [25, 90]
SCALE = {"pixels": 50, "known": 10, "unit": "um"}  # Set Scale: 50 px are 10 µm, so a pixel is 0.2 µm
PIXEL_UM = SCALE["known"] / SCALE["pixels"]
CROP = (60, 40, 190, 200)  # left, top, right, bottom of the L2 crop (after the rotation)


def stack_start():
    start = imagej_start()
    start["start_files"] = [{"src": "fixtures/prosoft/science_more/stack.tif", "dest": f"{WORK}/stack.tif"},
                            *start["start_files"][1:]]
    start.update(start_command=["imagej", f"{WORK}/stack.tif"], window="^stack[.]tif$")
    return start


def disk_area(r):
    return sum(1 for dy in range(-r, r + 1) for dx in range(-r, r + 1) if dx * dx + dy * dy <= r * r)


SPOT_AREAS = sorted(disk_area(r) for _, _, r, _ in STACK_DISKS)


def ij_save_as(kind, path):
    """File > Save As > <kind> through the Command Finder; the path typed once the file dialog shows (it takes
    seconds to open under load, and keys sent before are lost)."""
    return [*ij_command(kind), WIN("^Save as "), W(0.7), K("ctrl", "a"), T(path + "\n"), W(2)]


def ij_save_results(path):
    """The Results window's File > Save As (Ctrl+S), the path typed once its dialog shows."""
    return [K("ctrl", "s"), WIN("^Save Table$"), W(0.7), K("ctrl", "a"), T(path + "\n"), W(2)]


def field(value):
    """One field of an ImageJ dialog typed, then Tab to the next (AWT moves the focus late under load)."""
    return [T(str(value)), W(0.5), P("tab"), W(0.7)]


# Analyze > Set Scale: Distance in pixels, Known distance, Pixel aspect ratio (kept), Unit of length; Enter = OK
# Analyze Particles on a calibrated image: its dialog has one more field (Pixel units) before Display results
IJ_COUNT_CALIBRATED = [*ij_command("Convert to Mask"), *ij_command("Analyze Particles..."),
                       *[a for _ in range(4) for a in (P("tab"), W(0.6))], P("space"), W(0.7),
                       *[a for _ in range(4) for a in (K("shift", "tab"), W(0.6))], P("enter"), W(3)]
SET_SCALE = [*ij_command("Set Scale..."), W(0.5), *field(SCALE["pixels"]), *field(SCALE["known"]), P("tab"), W(0.7),
             T(SCALE["unit"]), W(0.5), P("enter"), W(1.5)]


def ij_pick(name, row):
    """The Command Finder's ``row``-th match for ``name`` (it matches substrings: "Z Project..." lists "Grouped Z
    Project..." first)."""
    return [K("ctrl", "l"), WIN("^Command Finder$"), T(name), W(1), *[P("down")] * row, P("enter"), W(2)]


# Image > Stacks > Z Project: the dialog opens centred over ImageJ's window; its projection type (a Choice,
# Average Intensity by default) is picked from its list, then OK
Z_PROJECT = [*ij_pick("Z Project...", 2), WIN("^ZProjection$"), W(0.7), C(687, 258), W(1), C(657, 298), W(1),
             C(731, 300), GONE("^ZProjection$"), W(1.5)]
IJ_CARD = ("ImageJ 1.53: Ctrl+L (Command Finder) runs any command by name. Process > Binary > Convert to Mask "
           "thresholds automatically (default IsoData); Process > Filters > Median (radius in px); Process > Find "
           "Edges (Sobel); Process > Math > Subtract/Add; Image > Transform > Rotate 90 Degrees Right; Analyze > Set "
           "Scale (distance in pixels, known distance, unit: 'um' is micrometres), the calibration is kept in a "
           "TIFF; Image > Stacks > Z Project (Max Intensity); Analyze > Analyze Particles with 'Display results' "
           "lists one row per particle (Area in calibrated units); File > Save As > PNG/Tiff; in the Results "
           "window File > Save As writes CSV.")


def ij_task(id, level, instruction, template, truth, start, demo, out, artifact="image", knowledge=None):
    return task(id, level, instruction, template, truth, start, demo, tags=["imagej"], artifacts={artifact: out},
                knowledge=knowledge, **LIMITS[level])


tasks = [
    ij_task("imagej-mask", "L1",
            "cells.tif is open in ImageJ: bright cells on a dark background. Turn it into a binary mask of the cells "
            "(Process > Binary > Convert to Mask, the default threshold) and save the mask as PNG to "
            "/root/work/cells_mask.png.",
            "imagej_mask", {"artifact": "image", "format": "PNG", "source": CELLS, "between": CELLS_BETWEEN},
            imagej_start(), [*ij_command("Convert to Mask"), *ij_save_as("PNG...", f"{WORK}/cells_mask.png")],
            f"{WORK}/cells_mask.png", knowledge=IJ_CARD),
    ij_task("imagej-median", "L1",
            "cells.tif is open in ImageJ. Remove its noise with a median filter of radius 2 pixels (Process > Filters "
            "> Median) and save the result as TIFF to /root/work/cells_median.tif.",
            "imagej_processed", {"artifact": "image", "format": "TIFF", "size": [256, 256], "source": CELLS,
                                 "ops": [["median", 2]], "tolerance": 0.2},
            imagej_start(), [*ij_command("Median..."), T("2\n"), W(2), *ij_save_as("Tiff...", f"{WORK}/cells_median.tif")],
            f"{WORK}/cells_median.tif"),
    ij_task("imagej-find-edges", "L1",
            "cells.tif is open in ImageJ. Detect the edges of the cells (Process > Find Edges) and save the result "
            "as PNG to /root/work/cells_edges.png.",
            "imagej_processed", {"artifact": "image", "format": "PNG", "size": [256, 256], "source": CELLS,
                                 "ops": [["edges"]], "tolerance": 0.5},
            imagej_start(), [*ij_command("Find Edges"), *ij_save_as("PNG...", f"{WORK}/cells_edges.png")],
            f"{WORK}/cells_edges.png", knowledge=IJ_CARD),
    ij_task("imagej-rotate-right", "L1",
            "cells.tif is open in ImageJ. Rotate the image 90 degrees clockwise (Image > Transform > Rotate 90 "
            "Degrees Right) and save it as PNG to /root/work/cells_rotated.png.",
            "imagej_image", {"artifact": "image", "source": CELLS, "format": "PNG", "size": [256, 256],
                             "ops": [["rotate", 90]], "tolerance": 0.5},
            imagej_start(), [*ij_command("Rotate 90 Degrees Right"), *ij_save_as("PNG...", f"{WORK}/cells_rotated.png")],
            f"{WORK}/cells_rotated.png"),
    ij_task("imagej-set-scale", "L1",
            "cells.tif is open in ImageJ. Calibrate it (Analyze > Set Scale): 50 pixels are 10 micrometres (unit "
            "um). Save the calibrated image as TIFF to /root/work/cells_scaled.tif.",
            "imagej_calibration", {"artifact": "image", "unit": "micron", "pixel_width": PIXEL_UM, "source": CELLS},
            imagej_start(), [*SET_SCALE, *ij_save_as("Tiff...", f"{WORK}/cells_scaled.tif")],
            f"{WORK}/cells_scaled.tif", knowledge=IJ_CARD),
    ij_task("imagej-z-project", "L1",
            f"stack.tif is open in ImageJ: a stack of {len(STACK_DISKS)} slices. Make its maximum intensity "
            "projection (Image > Stacks > Z Project, Max Intensity) and save the projection as TIFF to "
            "/root/work/stack_max.tif.",
            "imagej_processed", {"artifact": "image", "format": "TIFF", "size": [STACK_SIZE, STACK_SIZE],
                                 "source": STACK, "ops": [["zproject", "max"]], "tolerance": 0.2},
            stack_start(), [*Z_PROJECT, *ij_save_as("Tiff...", f"{WORK}/stack_max.tif")],
            f"{WORK}/stack_max.tif", knowledge=IJ_CARD),
    ij_task("imagej-subtract", "L1",
            "cells.tif is open in ImageJ. Subtract the constant 25 from every pixel (Process > Math > Subtract) to "
            "remove the background offset, and save the result as PNG to /root/work/cells_minus25.png.",
            "imagej_processed", {"artifact": "image", "format": "PNG", "size": [256, 256], "source": CELLS,
                                 "ops": [["subtract", 25]], "tolerance": 0.2},
            imagej_start(), [*ij_command("Subtract..."), T("25\n"), W(2), *ij_save_as("PNG...", f"{WORK}/cells_minus25.png")],
            f"{WORK}/cells_minus25.png"),
    # --- L2 ---
    ij_task("imagej-stack-spots", "L2",
            "stack.tif is open in ImageJ: one bright spot per slice. Make the maximum intensity projection of the "
            "stack, turn the projection into a binary mask, run Analyze Particles with 'Display results' so that "
            "the Results table has one row per spot with its Area, and save that table as CSV to "
            "/root/work/spots.csv.",
            "imagej_results", {"artifact": "results", "columns": ["Area"], "rows": len(STACK_DISKS),
                               "values": {"Area": {"values": SPOT_AREAS, "tol": 0}}},
            stack_start(), [*Z_PROJECT, *IJ_COUNT, *ij_save_results(f"{WORK}/spots.csv")],
            f"{WORK}/spots.csv", artifact="results", knowledge=IJ_CARD),
    ij_task("imagej-calibrated-areas", "L2",
            "cells.tif is open in ImageJ. Calibrate it so that 50 pixels are 10 micrometres (Analyze > Set Scale, "
            "unit um), segment the cells (e.g. Process > Binary > Convert to Mask), run Analyze Particles with "
            "'Display results' and save the Results table, whose Area column is then in square micrometres, as "
            "CSV to /root/work/cell_areas_um2.csv.",
            "imagej_results", {"artifact": "results", "columns": ["Area"], "rows": len(CELL_AREAS),
                               "values": {"Area": {"values": [round(a * PIXEL_UM ** 2, 4) for a in CELL_AREAS],
                                                   "tol": 0.01}}},
            imagej_start(), [*SET_SCALE, *IJ_COUNT_CALIBRATED, *ij_save_results(f"{WORK}/cell_areas_um2.csv")],
            f"{WORK}/cell_areas_um2.csv", artifact="results", knowledge=IJ_CARD),
    ij_task("imagej-rotate-crop-edges", "L2",
            f"cells.tif is open in ImageJ. Rotate it 90 degrees clockwise, then crop the rotated image to the "
            f"rectangle at x={CROP[0]}, y={CROP[1]} of width {CROP[2] - CROP[0]} and height {CROP[3] - CROP[1]} "
            "pixels (Edit > Selection > Specify, Image > Crop), detect the edges (Process > Find Edges), and save "
            "the result as PNG to /root/work/edges_crop.png.",
            "imagej_processed", {"artifact": "image", "format": "PNG", "size": [CROP[2] - CROP[0], CROP[3] - CROP[1]],
                                 "source": CELLS, "ops": [["rotate", 90], ["crop", *CROP], ["edges"]],
                                 "tolerance": 0.5},
            imagej_start(),
            [*ij_command("Rotate 90 Degrees Right"), *ij_command("Specify..."), *field(CROP[2] - CROP[0]),
             *field(CROP[3] - CROP[1]), *field(CROP[0]), T(str(CROP[1])), W(1), P("enter"), W(1.5),
             *ij_command("Crop"), *ij_command("Find Edges"), *ij_save_as("PNG...", f"{WORK}/edges_crop.png")],
            f"{WORK}/edges_crop.png", knowledge=IJ_CARD),
    ij_task("imagej-clean-16bit", "L2",
            "cells16.tif (16-bit) is open in ImageJ. Convert it to 8-bit (Image > Type > 8-bit), subtract 20 from "
            "every pixel (Process > Math > Subtract), apply a median filter of radius 1 (Process > Filters > "
            "Median), and save the result as TIFF to /root/work/cells_clean.tif.",
            "imagej_processed", {"artifact": "image", "format": "TIFF", "mode": "L", "source": "imaging/cells16.tif",
                                 "ops": [["to8bit"], ["subtract", 20], ["median", 1]], "tolerance": 0.3},
            imagej_start("cells16.tif"),
            [*ij_command("8-bit"), *ij_command("Subtract..."), T("20\n"), W(2), *ij_command("Median..."), T("1\n"),
             W(2), *ij_save_as("Tiff...", f"{WORK}/cells_clean.tif")],
            f"{WORK}/cells_clean.tif", knowledge=IJ_CARD),
]

if __name__ == "__main__":
    write("imagej_more", tasks)
