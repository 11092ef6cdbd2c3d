"""Writes tasks/chem_more.json: more BKChem tasks (the ChemDraw stand-in), L1 and L2, each L1 one more core function
of the editor than ``make/chem.py`` covers: a ring template, a charge mark, a molecule's name, an SVG export, a
mirror; the L2 tasks combine them with the first functions (element, SMILES, exports) and the Align menu. Run
``python suites/prosoft/make/chem_more.py`` from the repository root.

Start files: ``fixtures/prosoft/multisim_chem_more/`` (hexane, propylamine, two chains in one drawing) and, read-only,
``fixtures/prosoft/chem/`` (propane, ethanol). Evaluators: ``checks/chem_more.py`` (``chem_charge``,
``chem_transform``, ``chem_name``, ``chem_svg``, ``chem_align``) and ``checks/chem.py`` (``chem_extend``,
``chem_smiles``). The screen geometry and the ways around BKChem's quirks are those of ``make/chem.py``: its tools
and menus are clicked; atoms are clicked at the screen points where BKChem draws them, after the pointer rests on
them. BKChem's text tool and its bond-type tools (wedge, hatch) are not used: the executor's click (pyautogui) moves
the pointer while the button is down, even a bare press and release, and BKChem takes that for a drag there (the
text is not started, the bond not changed); the charge marks and templates act on the press and work.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chem import (CARD, CHAIN, LIMITS, MENU, TOOLS, W, atom_point, click, export, keeps, point_at,  # noqa: E402
                  read_smiles, save_as, set_element)
from chem import SAVE as SAVE_MENU  # noqa: E402
from chem import start as chem_start  # noqa: E402
from common import GONE, SAVED, WIN, K, P, T, task, write  # noqa: E402

MORE = "fixtures/prosoft/multisim_chem_more"
WORK = "/root/work"

TEMPLATES = {"benzene": (26, 101), "cyclohexane": (212, 101)}  # the template tool's second row
MARK_TOOL, MARKS = (181, 70), {"plus": (150, 101), "minus": (181, 101)}  # charge marks
OBJECT, MIRRORS = (147, 41), {"vertical": (168, 160), "horizontal": (168, 178)}  # Object > ... mirror
SET_NAME = (227, 258)  # Chemistry > Set molecule name
ALIGN, ALIGN_ITEMS = (101, 41), {"top": (96, 61)}
SVG_ITEM = (259, 205)  # File > Export > SVG


def start(name=None, folder=MORE):
    """BKChem with a start file of this folder (``folder``: another fixture folder), or an empty drawing."""
    data = chem_start(name)
    if name:
        data["start_files"] = [{"src": f"{folder}/{name}", "dest": f"{WORK}/{name}"}]
    return data


def template(name, atom_cm=None, paper_px=None):
    """The template tool, a template, then a click on an atom (the ring takes that atom as one of its own) or on
    the empty paper (the ring lands there)."""
    target = atom_point(*atom_cm) if atom_cm else paper_px
    return [click(TOOLS["template"]), W(0.6), click(TEMPLATES[name]), W(0.5), *point_at(target), W(1)]


def charge(atom_cm, sign="plus"):
    return [click(MARK_TOOL), W(0.6), click(MARKS[sign]), W(0.5), *point_at(atom_point(*atom_cm)), W(1)]


def select_all():
    return [click(TOOLS["edit"]), W(0.5), K("ctrl", "shift", "a"), W(0.5)]


def set_name(name):
    """Everything selected, Chemistry > Set molecule name, the name typed, Tab to OK, Space."""
    return [*select_all(), click(MENU["chemistry"]), W(0.8), click(SET_NAME), WIN("^Name$"), W(0.5), T(name), W(0.3),
            P("tab"), P("space"), GONE("^Name$"), W(0.8)]


def mirror(which):
    return [*select_all(), click(OBJECT), W(0.8), click(MIRRORS[which]), W(1)]


def export_svg(path):
    return [click(MENU["file"]), W(0.8), click((34, 201)), W(0.8), click(SVG_ITEM), W(1), WIN("^Export"), W(0.5),
            T(path + "\n"), SAVED(path)]


def align(edge):
    return [*select_all(), click(ALIGN), W(0.8), click(ALIGN_ITEMS[edge]), W(1)]


def keeps_more(source, atoms):
    return {"source": f"multisim_chem_more/{source}", "atoms": list(atoms), "tol": 0.05}


CARD_MORE = (CARD + " The template tool (the ring icon) shows ring templates (benzene, cyclohexane, ...): a click "
             "on the paper places one, a click on an atom builds the ring on that atom. The charge tool (the "
             "circled plus) adds a plus or minus charge mark to the atom clicked. With the molecule selected (edit "
             "mode, Ctrl+Shift+A selects everything): Chemistry > Set molecule name names it, Object > Vertical "
             "mirror flips it left to right (Horizontal mirror top to bottom), Align > Top/Bottom/... aligns the "
             "selected molecules. File > Export > SVG writes a picture.")
TAGS = {"tags": ["bkchem"], "apps": ["bkchem"], "knowledge": CARD_MORE, **LIMITS}

tasks = [
    task("chem-template-ethylbenzene", "L1",
         "propane.cdml (three carbons) is open in BKChem. With BKChem's benzene ring template, build a benzene "
         "ring on the carbon at the right end of the chain (that carbon becomes one of the ring's atoms), giving "
         "ethylbenzene, and save the file.",
         "chem_extend", {"artifact": "molecule", "format": "cdml", "smiles": "CCC1=CC=CC=C1",
                         "keeps": keeps("propane.cdml", [0, 1, 2])}, start("propane.cdml", "fixtures/prosoft/chem"),
         [*template("benzene", CHAIN[2]), *SAVE_MENU], artifacts={"molecule": f"{WORK}/propane.cdml"}, **TAGS),
    task("chem-charge-ammonium", "L1",
         "propylamine.cdml (CCCN) is open in BKChem. Give the nitrogen a positive charge (BKChem's charge tool, "
         "the plus mark), making the propylammonium ion, and save the file.",
         "chem_charge", {"artifact": "molecule", "format": "cdml", "smiles": "CCCN", "charges": {"N": 1},
                         "keeps": keeps_more("propylamine.cdml", range(4))}, start("propylamine.cdml"),
         [*charge(CHAIN[3]), *SAVE_MENU], artifacts={"molecule": f"{WORK}/propylamine.cdml"}, **TAGS),
    task("chem-molecule-name", "L1",
         "hexane.cdml is open in BKChem. Name the molecule 'n-hexane' (Chemistry > Set molecule name, with the "
         "molecule selected) and save the file.",
         "chem_name", {"artifact": "molecule", "name": "n-hexane", "same_as": "multisim_chem_more/hexane.cdml"},
         start("hexane.cdml"), [*set_name("n-hexane"), *SAVE_MENU], artifacts={"molecule": f"{WORK}/hexane.cdml"},
         **TAGS),
    task("chem-export-svg", "L1",
         "ethanol.cdml (C-C-O) is open in BKChem. Export the drawing as an SVG picture to /root/work/ethanol.svg "
         "(File > Export > SVG).",
         "chem_svg", {"artifact": "drawing", "bonds": 2, "labels": ["O"]},
         start("ethanol.cdml", "fixtures/prosoft/chem"), export_svg(f"{WORK}/ethanol.svg"),
         artifacts={"drawing": f"{WORK}/ethanol.svg"}, **TAGS),
    task("chem-mirror", "L1",
         "propylamine.cdml (CCCN, the nitrogen at the right end) is open in BKChem. Mirror the molecule left to "
         "right (Object > Vertical mirror, with the molecule selected) so that the nitrogen ends up on the left, "
         "and save the file.",
         "chem_transform", {"artifact": "molecule", "source": "multisim_chem_more/propylamine.cdml",
                            "transform": "mirror_x"},
         start("propylamine.cdml"), [*mirror("vertical"), *SAVE_MENU],
         artifacts={"molecule": f"{WORK}/propylamine.cdml"}, **TAGS),
    task("chem-ethylbenzene-molfile", "L2",
         "propane.cdml is open in BKChem. Turn it into ethylbenzene by building a benzene ring (the ring template) "
         "on the carbon at the right end of the chain, save the file, and export the structure as an MDL Molfile "
         "to /root/work/ethylbenzene.mol.",
         "pipeline", {"steps": [
             {"template": "chem_extend", "artifact": "molecule", "format": "cdml", "smiles": "CCC1=CC=CC=C1",
              "keeps": keeps("propane.cdml", [0, 1, 2])},
             {"template": "chem_smiles", "artifact": "mol", "format": "mol", "smiles": "CCC1=CC=CC=C1"}]},
         start("propane.cdml", "fixtures/prosoft/chem"),
         [*template("benzene", CHAIN[2]), *SAVE_MENU, *export("molfile", f"{WORK}/ethylbenzene.mol")],
         artifacts={"molecule": f"{WORK}/propane.cdml", "mol": f"{WORK}/ethylbenzene.mol"}, **TAGS),
    task("chem-ammonium-molfile", "L2",
         "propylamine.cdml is open in BKChem. Make it the propylammonium ion (a positive charge on the nitrogen, "
         "with the charge tool), save the file, and export the ion as an MDL Molfile to "
         "/root/work/propylammonium.mol.",
         "pipeline", {"steps": [
             {"template": "chem_charge", "artifact": "molecule", "format": "cdml", "smiles": "CCCN",
              "charges": {"N": 1}, "keeps": keeps_more("propylamine.cdml", range(4))},
             {"template": "chem_charge", "artifact": "mol", "format": "mol", "smiles": "CCCN", "charges": {"N": 1}}]},
         start("propylamine.cdml"), [*charge(CHAIN[3]), *SAVE_MENU, *export("molfile", f"{WORK}/propylammonium.mol")],
         artifacts={"molecule": f"{WORK}/propylamine.cdml", "mol": f"{WORK}/propylammonium.mol"}, **TAGS),
    task("chem-ethoxide", "L2",
         "propane.cdml (three carbons) is open in BKChem. Turn it into the ethoxide ion, CC[O-]: change the carbon "
         "at the right end into an oxygen and give that oxygen a negative charge (the charge tool's minus mark); "
         "save the file.",
         "chem_charge", {"artifact": "molecule", "format": "cdml", "smiles": "CCO", "charges": {"O": -1},
                         "keeps": keeps("propane.cdml", [0, 1])}, start("propane.cdml", "fixtures/prosoft/chem"),
         [*set_element(CHAIN[2], "O"), *charge(CHAIN[2], "minus"), *SAVE_MENU],
         artifacts={"molecule": f"{WORK}/propane.cdml"}, **TAGS),
    task("chem-cyclohexane-named", "L2",
         "BKChem is open with an empty drawing. Place a cyclohexane ring (the ring template) on the paper, name "
         "the molecule 'cyclohexane' (Chemistry > Set molecule name), and save the drawing in BKChem's format as "
         "/root/work/cyclohexane.cdml.",
         "chem_name", {"artifact": "molecule", "name": "cyclohexane", "smiles": "C1CCCCC1"}, start(),
         [*template("cyclohexane", paper_px=(300, 300)), *set_name("cyclohexane"),
          *save_as(f"{WORK}/cyclohexane.cdml")],
         artifacts={"molecule": f"{WORK}/cyclohexane.cdml"}, **TAGS),
    task("chem-align-top-svg", "L2",
         "two_chains.cdml (ethane and butane, at different heights) is open in BKChem. Select both molecules and "
         "align their tops (Align > Top), save the file, and export the drawing as SVG to /root/work/chains.svg.",
         "pipeline", {"steps": [
             {"template": "chem_align", "artifact": "molecule", "source": "multisim_chem_more/two_chains.cdml",
              "edge": "top"},
             {"template": "chem_svg", "artifact": "drawing", "bonds": 4}]},
         start("two_chains.cdml"), [*align("top"), *SAVE_MENU, *export_svg(f"{WORK}/chains.svg")],
         artifacts={"molecule": f"{WORK}/two_chains.cdml", "drawing": f"{WORK}/chains.svg"}, **TAGS),
    task("chem-acetamide-svg", "L2",
         "BKChem is open with an empty drawing. Draw acetamide from its SMILES, CC(=O)N (Chemistry > Read SMILES), "
         "save it in BKChem's format as /root/work/acetamide.cdml, and export it as SVG to "
         "/root/work/acetamide.svg.",
         "pipeline", {"steps": [
             {"template": "chem_smiles", "artifact": "molecule", "format": "cdml", "smiles": "CC(=O)N"},
             {"template": "chem_svg", "artifact": "drawing", "bonds": 3, "labels": ["O"]}]},
         start(), [*read_smiles("CC(=O)N"), *save_as(f"{WORK}/acetamide.cdml"), *export_svg(f"{WORK}/acetamide.svg")],
         artifacts={"molecule": f"{WORK}/acetamide.cdml", "drawing": f"{WORK}/acetamide.svg"}, **TAGS),
]

if __name__ == "__main__":
    write("chem_more", tasks)
