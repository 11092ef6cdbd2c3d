"""Writes tasks/fem_more.json: more structural analysis in FreeCAD's FEM workbench with CalculiX (ANSYS's
stand-in), run in cua-desktop-arena: each L1 task one more core function of an FEA program (a material, a
support, a pressure, self weight, a modal analysis set up, a result read out, the mesh exported, the solver's
input deck written, another part solved), the L2 tasks a change and its solution.

Start files: ``fixtures/prosoft/cae_more/``: the steel cantilever of ``fixtures/prosoft/fem/`` made again with the
GUI up (its view providers saved: task panels open on double-click; ``beam.FCStd``, ``beam_nofixed.FCStd``,
``beam_nomesh.FCStd``), ``beam_solved.FCStd``, ``plate_fem.FCStd``, ``fem-user.cfg`` (FreeCAD keeps the
solver's files beside the document: ``/root/work/beam/CalculiX/BeamMesh.*`` for ``/root/work/beam.FCStd``), and
``reference.json`` (CalculiX's results for each variant, computed on the start files' own meshes). Evaluators: ``checks/fem.py`` (kind ``fem``), ``checks/fem_more.py`` (``fem_more``,
``ccx_inp``, ``ccx_frd``, ``ccx_dat``) and ``r_output`` for numbers read out. Run from the repository root::

    python suites/prosoft/make/fem_more.py
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SAVED, C, K, P, T, W, task, write  # noqa: E402
from fem import ACTIVATE, CARD, FIX  # noqa: E402

WORK = "/root/work"
MORE = "fixtures/prosoft/cae_more"
ROOT = Path(__file__).resolve().parents[3]
REF = json.loads((ROOT / MORE / "reference.json").read_text())
OLD_REF = json.loads((ROOT / FIX / "reference.json").read_text())
TAGS = ["freecad", "fem", "cad"]
APPS = ["fem"]
PLATE_FRD = f"{WORK}/plate_fem/CalculiX/PlateMesh.frd"
CCX_DIR = f"{WORK}/beam/CalculiX"  # the solver's files beside /root/work/beam.FCStd (fem-user.cfg)
SAVE = [K("ctrl", "s"), W(3)]


def start(name="beam.FCStd", src=MORE, doc="beam.FCStd", saved=True, **artifacts):
    """The document opened in FreeCAD; its artifacts: the document itself (unless the task does not save it)
    and ``artifacts``."""
    model = f"{WORK}/{doc}"
    return {"start_files": [{"src": f"{src}/{name}", "dest": model},
                            {"src": f"{MORE}/fem-user.cfg", "dest": "/root/.config/FreeCAD/user.cfg"}],
            "start_command": ["env", "QTWEBENGINE_DISABLE_SANDBOX=1", "freecad", model],
            "window": "FreeCAD", "window_timeout_s": 240,
            "artifacts": {**({"model": model} if saved else {}), **artifacts}}


def maxima(key, tolerance=0.005):
    """CalculiX's maxima for ``key`` (reference.json): the same stored mesh, so the same figures up to the
    solver's own rounding."""
    return {"max_displacement": round(REF[key]["max_displacement"], 5),
            "max_von_mises": round(REF[key]["max_von_mises"], 3), "tolerance": tolerance}


MORE_CARD = CARD + [
    "FEM > Mechanical constraints: Constraint fixed, Constraint force, Constraint pressure (a face and the "
    "pressure in MPa), Constraint self weight (gravity, no selection). Faces are picked in the 3D view (Add), "
    "then OK.",
    "Double-click the material 'Steel' to pick another card (e.g. Aluminum-Generic, E 70000 MPa). The solver's "
    "properties (AnalysisType static / frequency, EigenmodesCount) are in its Data tab; double-clicking it opens "
    "the CalculiX task panel (Write .inp file, Run CalculiX).",
    "The solver writes its files beside the document: /root/work/beam/CalculiX/BeamMesh.inp (input deck), "
    ".frd (results), .dat (printed output, the eigenvalue table of a frequency analysis).",
    "Double-click CCX_Results to see the result task panel (displacement magnitude, von Mises stress, min and max). "
    "View > Panels > Python console runs Python: App.ActiveDocument.CCX_Results.DisplacementLengths, .vonMises.",
]

# the tree as FreeCAD opens the beam: ACTIVATE (fem.py) expands the analysis and makes it active; its members
# then sit in these rows
SOLVER, MATERIAL, MESH_ROW = (116, 334), (107, 352), (125, 409)
DOUBLE = lambda x, y: {"type": "double_click", "target": {"x": x, "y": y}}  # noqa: E731
PANEL_OK = C(119, 263)  # a constraint's task panel


def run(frd=f"{CCX_DIR}/BeamMesh.frd"):
    """Solve > Run solver calculations with the solver selected (a click on the menu item that came too early is
    repeated: once the solver runs, the second lands on the 3D view's background); done when CalculiX has
    written its results and FreeCAD has loaded them."""
    return [C(*SOLVER), W(1), C(346, 9), W(1.5), C(426, 324), W(2), C(426, 324), *[SAVED(frd, 60)] * 4, W(8)]

# Model > Mechanical constraints > (item): the constraint's task panel opens
MECHANICAL = [C(248, 9), W(1), C(327, 181), W(1)]
# the 3D view as the document opens (isometric, fitted): a point of the top face between the force's arrows
TOP_FACE = C(780, 484)


def material(card):
    """Double-click the material: its task panel; the card picked by typing its name into the open list."""
    return [DOUBLE(*MATERIAL), W(3), C(230, 393), W(1.5), T(card), W(1), P("enter"), W(1.5), C(180, 263), W(1.5)]


def pressure(mpa):
    """Constraint pressure: Add, then the top face in the 3D view, the pressure, OK."""
    return [*MECHANICAL, C(616, 327), W(3), C(93, 366), W(1), TOP_FACE, W(1.5),
            {"type": "triple_click", "target": {"x": 175, "y": 605}}, K("ctrl", "a"), T(f"{mpa} MPa"), W(1),
            PANEL_OK, W(1.5)]


# Constraint fixed with the left view (key 6 in the 3D view): the end face x = 0 fills the middle of the view
FIX_END = [C(1100, 650), P("6"), W(1.5), *MECHANICAL, C(605, 181), W(3), C(93, 366), W(1), C(780, 520), W(1.5),
           PANEL_OK, W(1.5)]
SELF_WEIGHT = [*MECHANICAL, C(624, 374), W(3)]
# the solver's Data tab: Analysis Type (a list) and Eigenmodes count
FREQUENCY = [C(*SOLVER), W(1), DOUBLE(180, 577), W(1), C(148, 604), W(1), DOUBLE(180, 682), W(1), K("ctrl", "a"),
             T("6\n"), W(1)]
# View > Panels > Python console, the prompt clicked
CONSOLE = [C(101, 9), W(1), C(131, 544), W(1), C(520, 616), W(1.5), C(640, 735), W(0.5)]
# double-click the solver: its task panel, Write .inp file, Close
WRITE_INP = [DOUBLE(*SOLVER), W(3), C(97, 523), W(8), C(170, 263), W(1.5)]
# double-click the mesh: its Gmsh panel, the max element size, Apply (runs Gmsh), OK
MESH_3 = [DOUBLE(*MESH_ROW), W(3), DOUBLE(258, 429), W(0.5), K("ctrl", "a"), T("3"), W(0.5), C(263, 263), W(15),
          C(105, 263), W(3)]
# File > Export with the mesh selected: 'Files of type' FEM mesh formats (typed into the open list), the name
EXPORT_MESH = [C(*MESH_ROW), W(1), K("ctrl", "e"), W(3), C(636, 571), W(1.5), T("FEM mesh fo"), P("enter"), W(1),
               C(637, 539), K("ctrl", "a"), T(f"{WORK}/beam_mesh.inp\n"), W(5)]


def write_number(path, expression):
    return T(f'open("{path}", "w").write("%.4f" % ({expression}))\n')


MAX_DISP = "max(App.ActiveDocument.CCX_Results.DisplacementLengths)"
MAX_MISES = "max(App.ActiveDocument.CCX_Results.vonMises)"

tasks = [
    task("fem-material-aluminium", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Change the analysis's solid material from steel to "
         "FreeCAD's 'Aluminum-Generic' card (Young's modulus 70000 MPa) and save the document.",
         "fem", {"material": {"youngs_modulus": 70000}}, start(),
         [*ACTIVATE, *material("Aluminum-G"), *SAVE], tags=TAGS, apps=APPS, knowledge=MORE_CARD),
    task("fem-fixed-end", "L1",
         "beam_nofixed.FCStd is open in FreeCAD's FEM workbench as beam.FCStd: its analysis has no support yet. "
         "Add a fixed constraint holding the end face at x = 0 (Face1 of the Beam) to the analysis and save the "
         "document.",
         "fem", {"fixed": {"faces": ["Face1"]}}, start("beam_nofixed.FCStd"),
         [*ACTIVATE, *FIX_END, *SAVE], tags=TAGS, apps=APPS,
         knowledge=MORE_CARD),
    task("fem-pressure-top", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Add a pressure constraint of 1 MPa on the top face of the "
         "Beam (Face6, z = 10 mm) to the analysis, keeping the existing force, and save the document.",
         "pipeline", {"steps": [{"template": "fem_more", "pressure": {"value": 1, "face": "Face6"}},
                                {"template": "fem", "force": {"value": 1000, "face": "Face6"}}]}, start(),
         [*ACTIVATE, *pressure(1), *SAVE], tags=TAGS, apps=APPS,
         knowledge=MORE_CARD),
    task("fem-self-weight", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Add the beam's own weight to the analysis (a self-weight "
         "constraint, gravity pointing down along -z) and save the document.",
         "fem_more", {"self_weight": {"direction": [0, 0, -1]}}, start(),
         [*ACTIVATE, *SELF_WEIGHT, *SAVE], tags=TAGS, apps=APPS,
         knowledge=MORE_CARD),
    task("fem-frequency-setup", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Set the CalculiX solver up for a modal analysis: analysis "
         "type 'frequency' with 6 eigenmodes, and save the document.",
         "fem_more", {"solver": {"AnalysisType": "frequency", "EigenmodesCount": "6"}}, start(),
         [*ACTIVATE, *FREQUENCY, *SAVE], tags=TAGS,
         apps=APPS, knowledge=MORE_CARD),
    task("fem-read-displacement", "L1",
         "beam_solved.FCStd is open in FreeCAD's FEM workbench with the cantilever's CalculiX results (CCX_Results). "
         "Read the maximum displacement magnitude of the result and write it in mm, with at least three decimals, "
         "as the only content of /root/work/max_displacement.txt.",
         "r_output", {"outputs": {"answer": {"number": round(REF["beam_base"]["max_displacement"], 4),
                                             "tolerance": 0.001}}},
         start("beam_solved.FCStd", doc="beam_solved.FCStd", saved=False, answer=f"{WORK}/max_displacement.txt"),
         [*CONSOLE, write_number(f"{WORK}/max_displacement.txt", MAX_DISP), W(2)],
         tags=[*TAGS, "console"], apps=APPS, knowledge=MORE_CARD),
    task("fem-export-mesh", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Export the beam's FEM mesh (BeamMesh) in the Abaqus/"
         "CalculiX input format to /root/work/beam_mesh.inp.",
         "ccx_inp", {"artifact": "mesh", "nodes": REF["beam_base"]["nodes"],
                     "elements": {"C3D10": REF["beam_base"]["volumes"]}},
         start(saved=False, mesh=f"{WORK}/beam_mesh.inp"),
         [*ACTIVATE, *EXPORT_MESH], tags=TAGS, apps=APPS, knowledge=MORE_CARD),
    task("fem-write-inp", "L1",
         "beam.FCStd is open in FreeCAD's FEM workbench. Write the CalculiX input file of the analysis (the solver's "
         "'Write .inp file'; FreeCAD puts it beside the document, in /root/work/beam/CalculiX/) without changing "
         "the model.",
         "ccx_inp", {"artifact": "inp", "nodes": REF["beam_base"]["nodes"], "elastic": [210000, 0.3],
                     "cload": [0, 0, -1000], "boundary_nodes": 20},
         start(saved=False, inp=f"{CCX_DIR}/BeamMesh.inp"),
         [*ACTIVATE, *WRITE_INP], tags=TAGS, apps=APPS, knowledge=MORE_CARD),
    task("fem-plate-solve", "L1",
         "plate_fem.FCStd is open in FreeCAD's FEM workbench: an aluminium plate 100 x 40 x 5 mm with a 16 mm hole, "
         "fixed at one end and pulled with 4000 N at the other, meshed. Run the CalculiX solver on its analysis.",
         "ccx_frd", {"artifact": "frd", **maxima("plate")},
         start("plate_fem.FCStd", doc="plate_fem.FCStd", saved=False, frd=PLATE_FRD), [*ACTIVATE, *run(PLATE_FRD)],
         tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    # --- L2 ---
    task("fem-aluminium-solve", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. The cantilever is to be made of aluminium: switch its "
         "material to FreeCAD's 'Aluminum-Generic' card, run the CalculiX solver, and save the document with its "
         "results.",
         "fem", {"material": {"youngs_modulus": 70000}, "results": maxima("beam_aluminium")}, start(),
         [*ACTIVATE, *material("Aluminum-G"), *run(), *SAVE],
         tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    task("fem-fixed-solve", "L2",
         "beam_nofixed.FCStd is open in FreeCAD's FEM workbench as beam.FCStd, without a support. Fix the end face "
         "at x = 0 (Face1), run the CalculiX solver, and save the document with its results.",
         "fem", {"fixed": {"faces": ["Face1"]}, "results": maxima("beam_nofixed_fixed")}, start("beam_nofixed.FCStd"),
         [*ACTIVATE, *FIX_END, *run(), *SAVE],
         tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    task("fem-pressure-solve", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. Add a pressure of 1 MPa on the beam's top face (Face6) on "
         "top of the existing 1000 N force, run the CalculiX solver, and save the document with its results.",
         "pipeline", {"steps": [{"template": "fem_more", "pressure": {"value": 1, "face": "Face6"}},
                                {"template": "fem", "results": maxima("beam_pressure")}]},
         start(),
         [*ACTIVATE, *pressure(1), *run(), *SAVE], tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    task("fem-frequency-solve", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. Run a modal analysis of the cantilever: set the CalculiX "
         "solver to analysis type 'frequency' with 6 eigenmodes, run it, and save the document with its results.",
         "pipeline", {"steps": [
             {"template": "fem_more", "solver": {"AnalysisType": "frequency"},
              "eigenfrequencies": {"hz": REF["beam_frequency"]["frequencies"][:3], "tolerance": 0.005}},
             {"template": "ccx_dat", "frequencies": REF["beam_frequency"]["frequencies"], "tolerance": 0.005}]},
         start(dat=f"{CCX_DIR}/BeamMesh.dat"),
         [*ACTIVATE, *FREQUENCY, *run(), *SAVE], tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    task("fem-mesh-solve", "L2",
         "beam_nomesh.FCStd is open in FreeCAD's FEM workbench as beam.FCStd; its mesh has no elements. Mesh the beam "
         "with Gmsh at a maximum element size of 3 mm, run the CalculiX solver, and save the document with its "
         "results.",
         "fem", {"mesh": {"max_size": 3, "min_nodes": 3000},
                 "results": {"max_displacement": round(OLD_REF["mesh_3"]["max_displacement"], 5),
                             "max_von_mises": round(OLD_REF["mesh_3"]["max_von_mises"], 3), "tolerance": 0.03}},
         start("beam_nomesh.FCStd"),
         [*ACTIVATE, *MESH_3, *run(), *SAVE], tags=TAGS, apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
    task("fem-solve-report", "L2",
         "beam.FCStd is open in FreeCAD's FEM workbench. Run the CalculiX solver, then write the maximum "
         "displacement magnitude in mm to /root/work/max_displacement.txt and the maximum von Mises stress in MPa "
         "to /root/work/max_von_mises.txt (each file just the number, at least three significant digits).",
         "pipeline", {"steps": [
             {"template": "ccx_frd", "artifact": "frd", **maxima("beam_base")},
             {"template": "r_output", "outputs": {
                 "displacement": {"number": round(REF["beam_base"]["max_displacement"], 4), "tolerance": 0.002},
                 "stress": {"number": round(REF["beam_base"]["max_von_mises"], 1), "tolerance": 1.0}}}]},
         start(saved=False, frd=f"{CCX_DIR}/BeamMesh.frd", displacement=f"{WORK}/max_displacement.txt",
               stress=f"{WORK}/max_von_mises.txt"), [*ACTIVATE, *run(), *CONSOLE, write_number(f"{WORK}/max_displacement.txt", MAX_DISP), W(1),
          write_number(f"{WORK}/max_von_mises.txt", MAX_MISES), W(2)],
         tags=[*TAGS, "console"], apps=APPS, knowledge=MORE_CARD, time_limit_s=1200),
]

if __name__ == "__main__":
    write("fem_more", tasks)
