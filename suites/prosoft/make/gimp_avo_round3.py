"""Writes tasks/gimp_avo_round3.json: a third round of GIMP (Photoshop's stand-in) and Avogadro (3D chemistry)
tasks, each L1 on a core function no earlier task of the program uses. Run
``python suites/prosoft/make/gimp_avo_round3.py`` from the repository root.

GIMP starts from ``fixtures/prosoft/design/poster.png`` (300x200) with the profile of ``make/design_more.py``;
Avogadro from the molecules of ``fixtures/prosoft/imaging/``. Evaluators: ``checks/gimp_avo_round3.py``
(gimp_round3: offsets, 1-bit palettes, print resolution, JPEG quality, colour to alpha; molecule_round3: PDB
files and bond geometry) beside ``checks/gimp_more.py``'s gimp_adjusted.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402
from design_more import GIMP_START, SRC, WORK, gimp_export, gimp_run  # noqa: E402
from imaging import AVO_ADD_H, AVO_CARD  # noqa: E402

HIGH = {"max_steps": 60, "time_limit_s": 900}
KNOW = ("GIMP 2.10: the '/' key searches every menu command (Enter runs the selected match). Layer > Transform > "
        "Offset (Shift+Ctrl+O: X, Y, edge behaviour Wrap around); Image > Mode > Indexed (a black and white 1-bit "
        "palette, or an optimum palette of N colours); Select > All (Ctrl+A) and Select > Shrink; Image > Crop to "
        "Selection; Image > Print Size (X/Y resolution in pixels/in); Colors > Color to Alpha (white by default). "
        "File > Export As (Shift+Ctrl+E) writes PNG, JPEG, ... chosen by the file name's extension; the JPEG "
        "dialog sets the Quality (0-100).")

TC = lambda x, y: {"type": "triple_click", "target": {"x": x, "y": y}}  # noqa: E731


def offset(dx, dy):
    """Layer > Transform > Offset (Shift+Ctrl+O): X and Y after the presets, Wrap around is the default."""
    return [K("shift", "ctrl", "o"), WIN("^Offset"), W(1), P("tab"), W(0.7), K("ctrl", "a"), T(str(dx)), W(0.5),
            P("tab"), W(0.7), K("ctrl", "a"), T(str(dy)), W(0.5), P("tab"), W(1.5), K("alt", "o"), GONE("^Offset"),
            W(1)]


def indexed(colours):
    """Image > Mode > Indexed: the optimum palette's maximum number of colours (its field clicked), Convert."""
    return [K("alt", "i"), P("m"), P("i"), WIN("^Indexed Color Conversion$"), W(1), TC(675, 331), W(0.5),
            K("ctrl", "a"), T(str(colours)), P("tab"), W(1), C(826, 625), GONE("^Indexed Color Conversion$", 60), W(1)]


def crop_inset(px):
    """Select > All, Select > Shrink by ``px``, Image > Crop to Selection."""
    return [K("ctrl", "a"), W(1), *gimp_run("shrink", dialog="Shrink Selection"), K("ctrl", "a"), T(str(px)), W(0.5),
            P("enter"), GONE("^Shrink Selection$"), W(1), *gimp_run("crop to selection"), W(1)]


def print_resolution(dpi):
    """Image > Print Size: the X resolution (the chain sets Y too), OK."""
    return [*gimp_run("print size", dialog="Set Image Print Resolution"), W(1), TC(612, 441), W(0.5), K("ctrl", "a"),
            T(str(dpi)), P("tab"), W(1), K("alt", "o"), GONE("^Set Image Print Resolution$"), W(1)]


COLOR_TO_ALPHA = [*gimp_run("color to alpha", dialog="Color to Alpha"), W(1), K("alt", "o"), GONE("^Color to Alpha$"),
                  W(1)]


def jpeg_export(path, quality):
    """File > Export As a .jpg: the Quality field of the JPEG dialog (clicked), Export."""
    return [K("shift", "ctrl", "e"), WIN("^Export Image$"), W(0.7), K("ctrl", "a"), T(path + "\n"),
            WIN("^Export Image as JPEG$"), W(1.5), TC(752, 208), W(0.5), K("ctrl", "a"), T(str(quality)), P("tab"),
            W(1), C(742, 634), SAVED(path, 60)]


def gimp_task(id, level, instruction, truth, demo, out, export=True):
    truth = {"artifact": "image", "source": SRC, **truth}
    return task(id, level, instruction, "gimp_round3", truth, GIMP_START,
                [W(2), *demo, *(gimp_export(out) if export else []), GONE("^Export Image", 60)],
                tags=["gimp"], artifacts={"image": out}, knowledge=KNOW, **HIGH)


gimp = [
    gimp_task("gimp-offset-wrap", "L1",
              f"poster.png (300x200) is open in GIMP. Offset the layer by half its size, 150 px right and 100 px "
              f"down, with the edges wrapping around (Layer > Transform > Offset), and export it as PNG to "
              f"{WORK}/tile.png.",
              {"format": "PNG", "size": [300, 200], "ops": [["offset", 150, 100]], "tolerance": 1},
              offset(150, 100), f"{WORK}/tile.png"),
    gimp_task("gimp-indexed-colours", "L1",
              f"poster.png is open in GIMP. Convert it to indexed colour with an optimum palette of at most 8 colours "
              f"(Image > Mode > Indexed, no dithering) and export it as PNG to {WORK}/indexed.png.",
              {"format": "PNG", "size": [300, 200], "palette": 8, "ops": [], "tolerance": 26},
              indexed(8), f"{WORK}/indexed.png"),
    gimp_task("gimp-crop-selection", "L1",
              f"poster.png (300x200) is open in GIMP. Select all, shrink the selection by 20 px (Select > Shrink), "
              f"crop the image to the selection (Image > Crop to Selection) and export it as PNG to "
              f"{WORK}/inner.png.",
              {"format": "PNG", "size": [260, 160], "ops": [["crop", 20, 20, 280, 180]], "tolerance": 1},
              crop_inset(20), f"{WORK}/inner.png"),
    gimp_task("gimp-print-resolution", "L1",
              f"poster.png is open in GIMP. Set its print resolution to 300 pixels per inch (Image > Print Size; the "
              f"pixels stay as they are) and export it as PNG to {WORK}/print.png.",
              {"format": "PNG", "size": [300, 200], "dpi": 300, "ops": [], "tolerance": 1},
              print_resolution(300), f"{WORK}/print.png"),
    gimp_task("gimp-color-to-alpha", "L1",
              f"poster.png is open in GIMP. Make its white transparent with Colors > Color to Alpha (colour white) "
              f"and export it as PNG to {WORK}/cutout.png.",
              {"format": "PNG", "size": [300, 200], "alpha": "white", "ops": [], "tolerance": 1},
              COLOR_TO_ALPHA, f"{WORK}/cutout.png"),
    gimp_task("gimp-jpeg-quality", "L1",
              f"poster.png is open in GIMP. Export it as a JPEG with quality 50 to {WORK}/poster_q50.jpg.",
              {"format": "JPEG", "size": [300, 200], "jpeg_quality": 50, "ops": [], "tolerance": 6},
              jpeg_export(f"{WORK}/poster_q50.jpg", 50), f"{WORK}/poster_q50.jpg", export=False),
    gimp_task("gimp-seamless-tile-jpeg", "L2",
              f"poster.png (300x200) is open in GIMP. Prepare a tile for a web background: offset the layer by half "
              f"its size (150 px right, 100 px down, wrap around) and export it as a JPEG of quality 70 to "
              f"{WORK}/tile.jpg.",
              {"format": "JPEG", "size": [300, 200], "jpeg_quality": 70, "ops": [["offset", 150, 100]],
               "tolerance": 6},
              [*offset(150, 100), *jpeg_export(f"{WORK}/tile.jpg", 70)], f"{WORK}/tile.jpg", export=False),
    gimp_task("gimp-inset-indexed", "L2",
              f"poster.png (300x200) is open in GIMP. Trim 25 px from every side (select all, shrink the selection "
              f"by 25 px, crop to the selection), convert the result to indexed colour with an optimum palette of at "
              f"most 6 colours, and export it as PNG to {WORK}/inset.png.",
              {"format": "PNG", "size": [250, 150], "palette": 6, "ops": [["crop", 25, 25, 275, 175]],
               "tolerance": 22},
              [*crop_inset(25), *indexed(6)], f"{WORK}/inset.png"),
    gimp_task("gimp-print-crop", "L2",
              f"poster.png (300x200) is open in GIMP. Trim 50 px from every side (select all, shrink the selection "
              f"by 50 px, crop to the selection), set the print resolution to 150 pixels per inch, and export it as "
              f"PNG to {WORK}/print_crop.png.",
              {"format": "PNG", "size": [200, 100], "dpi": 150, "ops": [["crop", 50, 50, 250, 150]], "tolerance": 1},
              [*crop_inset(50), *print_resolution(150)], f"{WORK}/print_crop.png"),
    gimp_task("gimp-cutout-tile", "L2",
              f"poster.png (300x200) is open in GIMP. Make its white transparent (Colors > Color to Alpha, white), "
              f"offset the layer by half its size (150 px right, 100 px down, wrap around), and export it as PNG to "
              f"{WORK}/cutout_tile.png.",
              {"format": "PNG", "size": [300, 200], "alpha": "white", "ops": [["offset", 150, 100]], "tolerance": 1},
              [*COLOR_TO_ALPHA, *offset(150, 100)], f"{WORK}/cutout_tile.png"),
]

IMG = "fixtures/prosoft/imaging"
KNOW_AVO = (AVO_CARD + " Input > GAMESS opens the GAMESS input generator: Calculate (Single Point, Equilibrium "
            "Geometry = RUNTYP=OPTIMIZE, Transition State, Frequencies = RUNTYP=HESSIAN), With (method and basis "
            "set), In (gas or a solvent), Multiplicity, Charge; the text below shows the input, Save File... "
            "writes it. Input > LAMMPS sets up a molecular dynamics run (units, ensemble, temperatures, time step, "
            "Total Steps); Generate... writes <Filename Base>.lmp into the folder chosen.")


def avo_start(name):
    return {"start_files": [{"src": f"{IMG}/{name}", "dest": f"{WORK}/{name}"}],
            "start_command": ["avogadro2", f"{WORK}/{name}"], "window": "Avogadro 1[.]97", "window_timeout_s": 120}


GAMESS = [K("alt", "i"), W(1), P("g"), WIN("^GAMESS Input$"), W(2)]  # Input > GAMESS...


def combo(x, y, key, times):
    """A combo box of the GAMESS dialog: opened by a click, ``times`` steps up or down its list, Enter."""
    return [C(x, y), W(1.5), *[P(key)] * times, W(0.5), P("enter"), W(1.5)]


def gamess_save(path):
    """Save File...: the path in the file dialog's name field."""
    return [C(675, 656), W(3), K("ctrl", "a"), T(path + "\n"), SAVED(path, 60)]


def avo_task(id, level, instruction, truth, start, demo, out):
    return task(id, level, instruction, "gamess_input", {"artifact": "input", **truth}, avo_start(start),
                [W(2), *demo], tags=["avogadro"], artifacts={"input": out}, knowledge=KNOW_AVO, **HIGH)


avogadro = [
    avo_task("avogadro-gamess-optimize", "L1",
             f"ethanol.xyz is open in Avogadro. Generate a GAMESS input file for a geometry optimisation of the "
             f"molecule (Input > GAMESS, Calculate: Equilibrium Geometry; keep the other settings) and save it to "
             f"{WORK}/ethanol_opt.inp.",
             {"formula": "C2H6O", "keeps": {"source": "imaging/ethanol.xyz"}, "keywords": {"RUNTYP": "OPTIMIZE"}},
             "ethanol.xyz", [*GAMESS, *combo(240, 143, "down", 1), *gamess_save(f"{WORK}/ethanol_opt.inp")],
             f"{WORK}/ethanol_opt.inp"),
    avo_task("avogadro-gamess-frequencies", "L2",
             f"ethanol_heavy.mol (ethanol without its hydrogens) is open in Avogadro. Add the missing hydrogens, "
             f"then generate a GAMESS input for a vibrational frequency calculation (Calculate: Frequencies) at the "
             f"Hartree-Fock level (RHF) with the 6-31G(d) basis set, and save it to {WORK}/ethanol_freq.inp.",
             {"formula": "C2H6O", "keeps": {"source": "imaging/ethanol_heavy.mol", "heavy_only": True},
              "keywords": {"RUNTYP": "HESSIAN", "SCFTYP": "RHF", "GBASIS": "N31", "NGAUSS": "6", "NDFUNC": "1"},
              "absent": ["DFTTYP"]},
             "ethanol_heavy.mol",
             [*AVO_ADD_H, *GAMESS, *combo(240, 143, "down", 3), *combo(197, 174, "up", 1), *combo(314, 174, "down", 1),
              *gamess_save(f"{WORK}/ethanol_freq.inp")], f"{WORK}/ethanol_freq.inp"),
    avo_task("avogadro-gamess-water", "L2",
             f"acetic_acid.xyz is open in Avogadro. Prepare a GAMESS geometry optimisation of acetic acid in water: "
             f"Input > GAMESS with Calculate: Equilibrium Geometry and In: Water (the other settings as they are), "
             f"and save the input file to {WORK}/acetic_water.inp.",
             {"formula": "C2H4O2", "keeps": {"source": "imaging/acetic_acid.xyz"},
              "keywords": {"RUNTYP": "OPTIMIZE", "SOLVNT": "WATER"}},
             "acetic_acid.xyz",
             [*GAMESS, *combo(240, 143, "down", 1), *combo(197, 205, "down", 1),
              *gamess_save(f"{WORK}/acetic_water.inp")], f"{WORK}/acetic_water.inp"),
]


def lammps(base, steps):
    """Input > LAMMPS: the file name base and the total steps, Generate..., the work folder chosen (double click
    on it in the home folder, Choose)."""
    return [K("alt", "i"), W(1), P("l"), WIN("^LAMMPS Input$"), W(2), TC(186, 74), W(0.5), K("ctrl", "a"), T(base),
            P("tab"), W(0.7), TC(370, 313), W(0.5), K("ctrl", "a"), T(str(steps)), P("tab"), W(1.5), C(669, 692),
            WIN("^Select output directory$"), W(2), {"type": "double_click", "target": {"x": 257, "y": 252}}, W(2),
            C(684, 501), GONE("^Select output directory$"), W(2)]


avogadro.append(
    task("avogadro-lammps-md", "L1",
         f"ethanol.xyz is open in Avogadro. Generate a LAMMPS input for a molecular dynamics run of 1000 steps "
         f"(Input > LAMMPS: Filename Base 'ethanol', Total Steps 1000, the other settings as they are; Generate... "
         f"into the folder {WORK}), so that {WORK}/ethanol.lmp is written.",
         "lammps_input", {"artifact": "input", "commands": {"run": "1000", "units": "real"}, "mentions": {"fix": "nvt"}},
         avo_start("ethanol.xyz"), [W(2), *lammps("ethanol", 1000)],
         tags=["avogadro"], artifacts={"input": f"{WORK}/ethanol.lmp"}, knowledge=KNOW_AVO, **HIGH))

if __name__ == "__main__":
    write("gimp_avo_round3", gimp + avogadro)
