"""Writes tasks/fem.json: structural analysis in FreeCAD's FEM workbench with CalculiX (ANSYS's stand-in) on a
steel cantilever, run in cua-desktop-arena.

Start files come from ``fixtures/prosoft/fem/`` (``make_fixtures.py`` there runs ``fem_beam.py`` in the image):
``beam.FCStd`` (Part box 100 x 10 x 10 mm with an analysis: CalculiX solver, steel, Fixed on Face1 at x = 0,
Force 1000 N down on the top face Face6, a Gmsh mesh of 4 mm), ``beam_nofixed.FCStd`` (no fixed constraint),
``beam_nomesh.FCStd`` (the mesh not generated), ``reference.json`` (what CalculiX gives for each variant a task
asks for) and ``user.cfg`` (FreeCAD starts in the FEM workbench). The evaluator is ``checks/fem.py`` (kind
``fem``: the saved document read by freecadcmd in the container). Each L1 task is one core function of an FEA
program (solving; a load's magnitude; meshing); the L2 tasks change the load and solve. The other start file
(``beam_nofixed``) and reference variants (aluminium, a 3 mm mesh) are there for tasks on supports and
materials that still need their demonstrations.
Demonstrations use FreeCAD's tree, task panels and menus. Run from the repository root::

    python suites/prosoft/make/fem.py
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import C, K, T, W, task, write  # noqa: E402

WORK = "/root/work"
FIX = "fixtures/prosoft/fem"
REF = json.loads((Path(__file__).resolve().parents[3] / FIX / "reference.json").read_text())
TAGS = ["freecad", "fem", "cad"]
APPS = ["fem"]
MODEL = f"{WORK}/beam.FCStd"
CARD = ["beam.FCStd: a steel cantilever, Part box 'Beam' 100 x 10 x 10 mm along x; its FEM 'Analysis' holds the "
        "CalculiX solver, the material 'Steel' (E 210000 MPa), 'Fixed' on the end face at x = 0 (Face1), 'Force' "
        "1000 N pointing down on the top face (Face6) and the Gmsh mesh 'BeamMesh' (max element size 4 mm).",
        "Double-click an object of the analysis in the tree to edit it in its task panel (the force's load in N, the "
        "material card and its Young's modulus, the mesh's max element size; Apply/OK meshes); OK closes the panel.",
        "Solve > Run solver calculations (or double-click the solver: Write .inp file, then Run CalculiX) runs "
        "CalculiX; the results appear as CCX_Results in the analysis. Ctrl+S saves the document with its results.",
        "FEM > Mechanical constraints > Constraint fixed: pick the faces in the 3D view (Add), then OK."]


def start(name="beam.FCStd"):
    return {"start_files": [{"src": f"{FIX}/{name}", "dest": MODEL},
                            {"src": f"{FIX}/user.cfg", "dest": "/root/.config/FreeCAD/user.cfg"}],
            "start_command": ["env", "QTWEBENGINE_DISABLE_SANDBOX=1", "freecad", MODEL],
            "window": "FreeCAD", "window_timeout_s": 240, "artifacts": {"model": MODEL}}


def results(key, tolerance=0.02):
    """The result maxima CalculiX gave for variant ``key`` (reference.json); the tolerance covers Gmsh meshing
    the same part a little differently from run to run (max displacement within 0.5 %, von Mises within 3 %)."""
    return {"max_displacement": round(REF[key]["max_displacement"], 5),
            "max_von_mises": round(REF[key]["max_von_mises"], 3), "tolerance": tolerance}


def scaled(key, factor, tolerance=0.02):
    """A linear analysis scales with its load: ``key``'s maxima times ``factor`` (the same stored mesh)."""
    return {"max_displacement": round(REF[key]["max_displacement"] * factor, 5),
            "max_von_mises": round(REF[key]["max_von_mises"] * factor, 3), "tolerance": tolerance}


SAVE = [K("ctrl", "s"), W(3)]
# the tree as FreeCAD opens beam.FCStd: expand the analysis, double-click it (the active analysis: the solver
# commands need one); its members then sit in these rows
ACTIVATE = [C(34, 315), W(1), {"type": "double_click", "target": {"x": 96, "y": 315}}, W(1.5)]
SOLVER, FORCE = C(116, 334), C(108, 390)
FORCE_VALUE = {"type": "double_click", "target": {"x": 180, "y": 536}}  # the Force row of the Data tab
# Solve > Run solver calculations with the solver selected: writes the .inp, runs ccx, loads CCX_Results
SOLVE = [SOLVER, W(0.5), C(346, 9), W(1), C(426, 324), W(30)]


# Mesh > FEM mesh from shape by Gmsh with the beam selected: its task panel, the max element size, Apply (runs
# Gmsh), OK; the new mesh joins the active analysis
GMSH = [C(88, 296), W(0.5), C(298, 9), W(1), C(405, 33), W(3)]
MAX_SIZE, APPLY, PANEL_OK = {"type": "double_click", "target": {"x": 258, "y": 429}}, C(263, 263), C(105, 263)


def mesh(size):
    return [*GMSH, MAX_SIZE, W(0.5), K("ctrl", "a"), T(str(size)), W(0.5), APPLY, W(15), PANEL_OK, W(1.5)]


def set_force(newtons):
    return [FORCE, W(1), FORCE_VALUE, W(0.7), K("ctrl", "a"), T(f"{newtons}\n"), W(1)]


tasks = [
    task("fem-solve", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench with a complete static analysis of a steel cantilever (mesh, "
         "material, fixed end, 1000 N load). Run the CalculiX solver and save the document with its results.",
         "fem", {"results": results("base", tolerance=0.02)}, start(), [*ACTIVATE, *SOLVE, *SAVE],
         tags=TAGS, apps=APPS, knowledge=CARD, time_limit_s=1200),
    task("fem-force", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Change the load of the force constraint 'Force' from 1000 N "
         "to 2500 N (same face, same direction) and save the document.",
         "fem", {"force": {"value": 2500, "face": "Face6"}}, start(), [*ACTIVATE, *set_force(2500), *SAVE],
         tags=TAGS, apps=APPS, knowledge=CARD),
    task("fem-mesh", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench; its analysis has no usable mesh yet. Mesh the beam with Gmsh "
         "(Mesh > FEM mesh from shape by Gmsh) with a maximum element size of 3 mm, inside the analysis, and save "
         "the document.",
         "fem", {"mesh": {"max_size": 3, "min_nodes": 3000}}, start("beam_nomesh.FCStd"),
         [*ACTIVATE, *mesh(3), *SAVE], tags=TAGS, apps=APPS, knowledge=CARD),
    task("fem-force-solve", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. Raise the load of the force constraint 'Force' from 1000 N "
         "to 2500 N, run the CalculiX solver on the changed model, and save the document with its results.",
         "fem", {"force": {"value": 2500, "face": "Face6"}, "results": results("force_2500", tolerance=0.02)},
         start(), [*ACTIVATE, *set_force(2500), *SOLVE, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD,
         time_limit_s=1200),
    task("fem-halve-load-solve", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. The cantilever's load is to be halved: set the force "
         "constraint 'Force' to 500 N, run the CalculiX solver, and save the document with its results.",
         "fem", {"force": {"value": 500, "face": "Face6"}, "results": scaled("base", 0.5)},
         start(), [*ACTIVATE, *set_force(500), *SOLVE, *SAVE], tags=TAGS, apps=APPS, knowledge=CARD,
         time_limit_s=1200),
]

if __name__ == "__main__":
    write("fem", tasks)
