"""Writes tasks/chem.json: BKChem tasks (the ChemDraw stand-in: 2D structures), L1 and L2. Run
``python suites/prosoft/make/chem.py`` from the repository root.

Start files come from ``fixtures/prosoft/chem/`` (``make_fixtures.py`` there: molecules as BKChem's CDML near the
top left of the paper); the evaluator is ``checks/chem.py``. BKChem is a Tk program: no accessibility tree, and
its menus do not take Alt+letter reliably (two entries of File > Export share an underlined letter), so the
demonstrations click its menus and tools, and the atoms at the screen points where BKChem draws them:

- BKChem's window opens at the top left (openbox), 640x500; a start file's atom at (x, y) cm shows at
  ``atom_point(x, y)``. BKChem starts in draw mode: a click on an atom draws a new bond (and carbon) from it, a
  click on a bond with the double-bond tool makes it double. In edit mode (the arrow) a click selects an atom;
  the text field above the paper (the "edit pool") then sets its element on Enter.
- Chemistry > Read SMILES asks for the SMILES in a dialog (Tab to OK, Space); File > Save As and File > Export >
  Molfile / CML ask for the path in a Tk file dialog (the name field has the focus); exports need the molecule
  selected (Edit > Select all).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GONE, SAVED, WIN, C, K, P, T, W, task, write  # noqa: E402

FIX = "fixtures/prosoft/chem"
WORK = "/root/work"
LIMITS = {"max_steps": 80, "time_limit_s": 900}

# screen geometry of BKChem's window in the container (measured on its screenshots)
MENU = {"file": (28, 41), "edit": (63, 41), "chemistry": (206, 41)}
FILE_ITEMS = {"save": (30, 80), "save_as": (42, 98), "export": (34, 201)}
EXPORT_ITEMS = {"cml": (259, 241), "molfile": (264, 277)}
TOOLS = {"edit": (26, 70), "draw": (57, 70), "template": (88, 70)}
BOND_TOOLS = {"single": (160, 101), "double": (191, 101), "triple": (222, 101)}
EDIT_POOL = (240, 132)
ORIGIN, SCALE = (15.6, 179.6), 39.6  # screen point of the paper's (0, 0) cm, pixels per cm (a start file)


def atom_point(x_cm, y_cm):
    return round(ORIGIN[0] + SCALE * x_cm), round(ORIGIN[1] + SCALE * y_cm)


# the start files' atoms (make_fixtures.chain: x0 4.0, y0 4.0, bonds 0.606 / 0.35 cm)
CHAIN = [(4.0, 4.0), (4.606, 3.65), (5.212, 4.0), (5.818, 3.65), (6.424, 4.0)]


def start(name=None):
    files = [{"src": f"{FIX}/{name}", "dest": f"{WORK}/{name}"}] if name else []
    # an empty drawing: /root/work made first, for the Save As the task asks for
    command = ["bkchem", f"{WORK}/{name}"] if name else ["sh", "-c", f"mkdir -p {WORK} && exec bkchem"]
    return {"start_files": files, "start_command": command,
            "window": "^BKChem$", "window_timeout_s": 120}


def click(point):
    return C(*point)


def point_at(point):
    """Move onto an atom or bond, let BKChem see the pointer there (it marks the item under it), then click:
    a click that arrives with the motion lands on nothing on a loaded machine."""
    return [{"type": "move", "target": {"x": point[0], "y": point[1]}}, W(0.6), C(*point)]


def menu(top, item, wait=0.8):
    return [click(MENU[top]), W(wait), click(item), W(0.8)]


SAVE = [*menu("file", FILE_ITEMS["save"]), W(1)]


def save_as(path):
    return [*menu("file", FILE_ITEMS["save_as"]), WIN("^Save As"), W(0.5), T(path + "\n"), SAVED(path)]


def export(kind, path):
    """Select everything (exports need it), File > Export > kind, the path, Enter; a "Normalize bond
    length?" question (CML) is answered No so that the coordinates stay those of the drawing."""
    steps = [click(TOOLS["edit"]), W(0.5), K("ctrl", "shift", "a"), W(0.5), click(MENU["file"]), W(0.8),
             click(FILE_ITEMS["export"]), W(0.8), click(EXPORT_ITEMS[kind]), W(1)]
    if kind == "cml":
        steps += [WIN("^Normalize bond length"), W(0.3), P("tab"), W(0.2), P("space"), W(0.5)]
    return steps + [WIN("^Export"), W(0.5), T(path + "\n"), SAVED(path)]


def read_smiles(smiles):
    return [*menu("chemistry", (215, 160)), WIN("^Smiles$"), W(0.5), T(smiles), W(0.3), P("tab"), P("space"),
            GONE("^Smiles$"), W(1)]


def set_element(atom, symbol):
    """Edit mode, select the atom, type its new symbol in the edit pool, Enter."""
    return [click(TOOLS["edit"]), W(0.5), *point_at(atom_point(*atom)), W(0.5), click(EDIT_POOL), W(0.3), T(symbol),
            P("enter"), W(0.8)]


def grow(atom, order=1):
    """Draw mode, the bond tool of that order, a click on the atom: a new bond and carbon from it. The
    executor's click moves the pointer between press and release, which BKChem's draw mode takes for a drag
    of no length: the new atom lands 0.7 cm to the right of the atom (``grown``), not on the zig-zag."""
    tool = {1: "single", 2: "double", 3: "triple"}[order]
    return [click(TOOLS["draw"]), W(0.5), click(BOND_TOOLS[tool]), W(0.4), *point_at(atom_point(*atom)), W(0.8)]


def grown(atom):
    return (round(atom[0] + 0.7, 3), atom[1])


def delete(atom):
    return [click(TOOLS["edit"]), W(0.5), *point_at(atom_point(*atom)), W(0.5), P("delete"), W(0.8)]


CARD = ("BKChem 0.14: Chemistry > Read SMILES draws a structure from a SMILES string; in draw mode (the pencil) a "
        "click on an atom adds a bond and a carbon, a click on a bond with the double/triple bond tool changes its "
        "order; in edit mode (the arrow) click an atom to select it, then type an element symbol in the text field "
        "above the paper and press Enter, or press Delete to remove it. File > Save writes BKChem's CDML; "
        "File > Export > Molfile / CML write other formats of the selected molecule (Edit > Select all first).")


def keeps(source, atoms):
    return {"source": f"chem/{source}", "atoms": list(atoms), "tol": 0.05}


tasks = [
    task("chem-smiles-acetic-acid", "L1",
         "BKChem is open with an empty drawing. Draw acetic acid by entering its SMILES, CC(=O)O, with Chemistry > "
         "Read SMILES, and save the drawing in BKChem's format as /root/work/acetic_acid.cdml.",
         "chem_smiles", {"artifact": "molecule", "format": "cdml", "smiles": "CC(=O)O"}, start(),
         [*read_smiles("CC(=O)O"), *save_as(f"{WORK}/acetic_acid.cdml")],
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/acetic_acid.cdml"}, knowledge=CARD,
         **LIMITS),
    task("chem-element-propylamine", "L1",
         "butane.cdml (a chain of four carbons) is open in BKChem. Change the carbon at the right end of the chain "
         "into a nitrogen (making propylamine, CCCN) and save the file.",
         "chem_element", {"artifact": "molecule", "format": "cdml", "smiles": "CCCN",
                          "keeps": keeps("butane.cdml", [0, 1, 2])}, start("butane.cdml"),
         [*set_element(CHAIN[3], "N"), *SAVE],
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/butane.cdml"}, knowledge=CARD, **LIMITS),
    task("chem-bond-propene", "L1",
         "ethane.cdml (two carbons) is open in BKChem. Bond a third carbon to the right-hand carbon with a double "
         "bond (use the double bond tool), giving propene (CC=C), and save the file.",
         "chem_bond", {"artifact": "molecule", "format": "cdml", "smiles": "CC=C",
                       "keeps": keeps("ethane.cdml", [0, 1])}, start("ethane.cdml"),
         [*grow(CHAIN[1], order=2), *SAVE],
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/ethane.cdml"}, knowledge=CARD, **LIMITS),
    task("chem-extend-ether", "L1",
         "ethanol.cdml (C-C-O) is open in BKChem. Add a carbon bonded to the oxygen, making methoxyethane "
         "(CCOC), and save the file.",
         "chem_extend", {"artifact": "molecule", "format": "cdml", "smiles": "CCOC",
                         "keeps": keeps("ethanol.cdml", [0, 1, 2])}, start("ethanol.cdml"),
         [*grow(CHAIN[2]), *SAVE],
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/ethanol.cdml"}, knowledge=CARD, **LIMITS),
    task("chem-delete-atom", "L1",
         "pentane.cdml (a chain of five carbons) is open in BKChem. Delete the carbon at the right end of the "
         "chain, leaving butane, and save the file.",
         "chem_extend", {"artifact": "molecule", "format": "cdml", "smiles": "CCCC",
                         "keeps": keeps("pentane.cdml", [0, 1, 2, 3])}, start("pentane.cdml"),
         [*delete(CHAIN[4]), *SAVE],
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/pentane.cdml"}, knowledge=CARD, **LIMITS),
    task("chem-export-molfile", "L1",
         "acetic_acid.cdml is open in BKChem. Export the structure as an MDL Molfile to /root/work/acetic_acid.mol "
         "(File > Export > Molfile).",
         "chem_export", {"artifact": "molecule", "format": "mol", "same_as": "chem/acetic_acid.cdml"},
         start("acetic_acid.cdml"), export("molfile", f"{WORK}/acetic_acid.mol"),
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/acetic_acid.mol"}, knowledge=CARD,
         **LIMITS),
    task("chem-export-cml", "L1",
         "ethanol.cdml is open in BKChem. Export the structure as CML (Chemical Markup Language, File > Export > "
         "CML) to /root/work/ethanol.cml.",
         "chem_export", {"artifact": "molecule", "format": "cml", "same_as": "chem/ethanol.cdml"},
         start("ethanol.cdml"), export("cml", f"{WORK}/ethanol.cml"),
         tags=["bkchem"], apps=["bkchem"], artifacts={"molecule": f"{WORK}/ethanol.cml"}, knowledge=CARD, **LIMITS),
    task("chem-smiles-thiol-molfile", "L2",
         "BKChem is open with an empty drawing. Draw ethanethiol (SMILES CCS) with Chemistry > Read SMILES, save "
         "the drawing in BKChem's format as /root/work/ethanethiol.cdml, and also export it as an MDL Molfile to "
         "/root/work/ethanethiol.mol.",
         "pipeline", {"steps": [
             {"template": "chem_smiles", "artifact": "cdml", "format": "cdml", "smiles": "CCS"},
             {"template": "chem_smiles", "artifact": "mol", "format": "mol", "smiles": "CCS"}]},
         start(),
         [*read_smiles("CCS"), *save_as(f"{WORK}/ethanethiol.cdml"),
          *export("molfile", f"{WORK}/ethanethiol.mol")],
         tags=["bkchem"], apps=["bkchem"],
         artifacts={"cdml": f"{WORK}/ethanethiol.cdml", "mol": f"{WORK}/ethanethiol.mol"}, knowledge=CARD,
         **LIMITS),
    task("chem-chloropropane", "L2",
         "propane.cdml (three carbons) is open in BKChem. Turn it into 1-chloropropane (CCCCl): bond a new atom to "
         "the carbon at the right end and make that atom a chlorine; save the file, and export the structure as an "
         "MDL Molfile to /root/work/chloropropane.mol.",
         "pipeline", {"steps": [
             {"template": "chem_extend", "artifact": "molecule", "format": "cdml", "smiles": "CCCCl",
              "keeps": keeps("propane.cdml", [0, 1, 2])},
             {"template": "chem_smiles", "artifact": "mol", "format": "mol", "smiles": "CCCCl"}]},
         start("propane.cdml"),
         [*grow(CHAIN[2]), *set_element(grown(CHAIN[2]), "Cl"), *SAVE, *export("molfile", f"{WORK}/chloropropane.mol")],
         tags=["bkchem"], apps=["bkchem"],
         artifacts={"molecule": f"{WORK}/propane.cdml", "mol": f"{WORK}/chloropropane.mol"}, knowledge=CARD,
         **LIMITS),
]

if __name__ == "__main__":
    write("chem", tasks)
