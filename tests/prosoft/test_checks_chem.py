"""The BKChem evaluators (checks/chem.py) without docker: CDML, molfiles and CML are written here the way BKChem
writes them (its CDML as in fixtures/prosoft/chem, its molfile V2000 without hydrogens, its CML with x2/y2); the
right structure passes, near misses (another isomer, a wrong element or bond order, the start file left unsaved,
a structure redrawn elsewhere, a file of another format) fail the milestone that names them, a missing artifact
fails (never errors). Ground truths are those of suites/prosoft/tasks/chem.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from suites.prosoft.checks import chem
from suites.prosoft.templates import KINDS, TEMPLATES

from .evaluation import failed, milestones, truth_of

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "prosoft" / "chem"
TASKS = {t["id"]: t for t in json.loads((ROOT / "suites/prosoft/tasks/chem.json").read_text())["tasks"]}


def load_fixtures():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("chem_fixtures", FIX / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FX = load_fixtures()


def cdml(tmp_path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]],
         name: str = "out.cdml") -> Path:
    path = tmp_path / name
    path.write_text(FX.cdml(atoms, bonds))
    return path


def molfile(tmp_path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]],
            name: str = "out.mol") -> Path:
    lines = ["", "  BKChem", "", f"{len(atoms):3d}{len(bonds):3d}  0  0  0  0  0  0  0  0999 V2000"]
    lines += [f"{x:10.4f}{-y:10.4f}{0.0:10.4f} {e:<3} 0  0  0  0  0  0  0  0  0  0  0  0" for e, x, y in atoms]
    lines += [f"{i + 1:3d}{j + 1:3d}{o:3d}  0  0  0  0" for i, j, o in bonds]
    path = tmp_path / name
    path.write_text("\n".join(lines + ["M  END", ""]))
    return path


def cml(tmp_path: Path, atoms: list[tuple[str, float, float]], bonds: list[tuple[int, int, int]]) -> Path:
    body = "".join(f'<atom id="a{k}" x2="{x}" y2="{y}" elementType="{e}"/>' for k, (e, x, y) in enumerate(atoms))
    links = "".join(f'<bond order="{o}" atomRefs2="a{i} a{j}"/>' for i, j, o in bonds)
    path = tmp_path / "out.cml"
    path.write_text(f'<?xml version="1.0"?><cml><molecule id="m"><atomArray>{body}</atomArray>'
                    f"<bondArray>{links}</bondArray></molecule></cml>")
    return path


def run(task_id: str, kind: str, artifacts: dict[str, Path]) -> dict[str, str | None]:
    return milestones(kind, truth_of(TASKS, task_id, kind), artifacts)


def chain(elements: str) -> list[tuple[str, float, float]]:
    return FX.chain(elements)


def single(n: int) -> list[tuple[int, int, int]]:
    return [(k, k + 1, 1) for k in range(n - 1)]


# --- the reader and the comparison ---------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, same", [
    ("CCO", "OCC", True), ("CC(=O)O", "OC(C)=O", True), ("CC(=O)O", "OCC=O", False), ("CCCN", "CC(C)N", False),
    ("C1=CC=CC=C1", "C=1C=CC=CC=1", True), ("C1CCCCC1", "CCCCCC", False), ("C=CCCl", "ClCC=C", True),
    ("C=CCCl", "CC=CCl", False)])
def test_same_structure(a: str, b: str, same: bool) -> None:
    assert chem.same_structure(chem.parse_smiles(a), chem.parse_smiles(b)) is same


def test_formula_counts_implicit_hydrogens() -> None:
    assert chem.formula(chem.parse_smiles("CC(=O)O")) == "C2H4O2"
    assert chem.formula(chem.parse_smiles("CCS")) == "C2H6S"
    assert chem.formula(chem.parse_smiles("C=CCCl")) == "C3H5Cl"


def test_bad_smiles_in_a_ground_truth_is_an_error() -> None:
    with pytest.raises(ValueError, match="SMILES"):
        chem.parse_smiles("c1ccccc1")
    with pytest.raises(ValueError, match="unclosed"):
        chem.parse_smiles("C1CC")


def test_every_chem_task_uses_known_kinds_and_its_start_files() -> None:
    assert len(TASKS) >= 9
    for task in TASKS.values():
        assert task["template"] in TEMPLATES, task["id"]
        steps = task["ground_truth"]["steps"] if task["template"] == "pipeline" else [task["ground_truth"]]
        assert all(s.get("template", task["template"]) in KINDS for s in steps), task["id"]
        assert task["apps"] == ["bkchem"] and task["demonstration"]["actions"], task["id"]
        assert all((ROOT / f["src"]).is_file() for f in task["start_files"]), task["id"]


def test_the_unsaved_start_file_fails_every_edit_task() -> None:
    """noop's outcome: the start file as it was (never saved) passes no task that edits it."""
    for task_id in ("chem-element-propylamine", "chem-bond-propene", "chem-extend-ether", "chem-delete-atom"):
        task = TASKS[task_id]
        start = ROOT / task["start_files"][0]["src"]
        assert failed(run(task_id, task["template"], {"molecule": start})), task_id


# --- per task ------------------------------------------------------------------------------------------------

def test_smiles_acetic_acid(tmp_path: Path) -> None:
    good = cdml(tmp_path, chain("CCO") + [("O", 4.6, 4.7)], [(0, 1, 1), (1, 2, 2), (1, 3, 1)])
    assert not failed(run("chem-smiles-acetic-acid", "chem_smiles", {"molecule": good}))
    aldehyde = cdml(tmp_path, chain("OCCO"), [(0, 1, 1), (1, 2, 1), (2, 3, 2)], "glycolaldehyde.cdml")
    assert failed(run("chem-smiles-acetic-acid", "chem_smiles", {"molecule": aldehyde})) == [
        "molecule is the structure CC(=O)O (C2H4O2)"]
    assert len(failed(run("chem-smiles-acetic-acid", "chem_smiles", {}))) == 2


def test_smiles_saved_as_molfile_under_the_cdml_name_fails(tmp_path: Path) -> None:
    wrong = molfile(tmp_path, chain("CCO") + [("O", 4.6, 4.7)], [(0, 1, 1), (1, 2, 2), (1, 3, 1)], "x.cdml")
    assert set(failed(run("chem-smiles-acetic-acid", "chem_smiles", {"molecule": wrong}))) == {
        "molecule is a cdml structure file", "molecule is the structure CC(=O)O (C2H4O2)"}


def test_element_change(tmp_path: Path) -> None:
    good = cdml(tmp_path, chain("CCCN"), single(4))
    assert not failed(run("chem-element-propylamine", "chem_element", {"molecule": good}))
    oxygen = cdml(tmp_path, chain("CCCO"), single(4), "o.cdml")  # the right atom, the wrong element
    assert failed(run("chem-element-propylamine", "chem_element", {"molecule": oxygen})) == [
        "molecule is the structure CCCN (C3H9N)"]
    inner = cdml(tmp_path, chain("CCNC"), single(4), "inner.cdml")  # the wrong atom
    assert "molecule is the structure CCCN (C3H9N)" in failed(
        run("chem-element-propylamine", "chem_element", {"molecule": inner}))


def test_element_change_on_a_redrawn_molecule_fails(tmp_path: Path) -> None:
    moved = cdml(tmp_path, [(e, x + 3, y + 2) for e, x, y in chain("CCCN")], single(4))
    assert failed(run("chem-element-propylamine", "chem_element", {"molecule": moved})) == [
        "molecule keeps the other atoms of butane.cdml in place"]


def test_bond_order(tmp_path: Path) -> None:
    good = cdml(tmp_path, chain("CC") + [("C", 5.306, 3.65)], [(0, 1, 1), (1, 2, 2)])
    assert not failed(run("chem-bond-propene", "chem_bond", {"molecule": good}))
    single_bond = cdml(tmp_path, chain("CC") + [("C", 5.306, 3.65)], [(0, 1, 1), (1, 2, 1)], "s.cdml")  # propane
    assert failed(run("chem-bond-propene", "chem_bond", {"molecule": single_bond})) == [
        "molecule is the structure CC=C (C3H6)"]
    triple = cdml(tmp_path, chain("CC") + [("C", 5.306, 3.65)], [(0, 1, 1), (1, 2, 3)], "t.cdml")
    assert failed(run("chem-bond-propene", "chem_bond", {"molecule": triple})) == [
        "molecule is the structure CC=C (C3H6)"]


def test_chloropropane_l2(tmp_path: Path) -> None:
    steps = TASKS["chem-chloropropane"]["ground_truth"]["steps"]
    atoms = chain("CCC") + [("Cl", 5.912, 4.0)]
    good = {"molecule": cdml(tmp_path, atoms, single(4)), "mol": molfile(tmp_path, atoms, single(4))}
    assert not any(failed(milestones(s["template"], s, good)) for s in steps)
    on_middle = chain("CCC") + [("Cl", 4.606, 4.35)]  # 2-chloropropane
    bad = {"molecule": cdml(tmp_path, on_middle, [(0, 1, 1), (1, 2, 1), (1, 3, 1)], "m.cdml"),
           "mol": molfile(tmp_path, on_middle, [(0, 1, 1), (1, 2, 1), (1, 3, 1)], "m.mol")}
    assert all(failed(milestones(s["template"], s, bad)) for s in steps)


def test_extend_and_delete(tmp_path: Path) -> None:
    ether = cdml(tmp_path, chain("CCOC"), single(4))
    assert not failed(run("chem-extend-ether", "chem_extend", {"molecule": ether}))
    on_carbon = cdml(tmp_path, chain("CCO") + [("C", 4.6, 4.7)], [(0, 1, 1), (1, 2, 1), (1, 3, 1)], "b.cdml")
    assert failed(run("chem-extend-ether", "chem_extend", {"molecule": on_carbon})) == [
        "molecule is the structure CCOC (C3H8O)"]
    butane = cdml(tmp_path, chain("CCCC"), single(4), "butane.cdml")
    assert not failed(run("chem-delete-atom", "chem_extend", {"molecule": butane}))
    first_gone = cdml(tmp_path, chain("CCCCC")[1:], single(4), "first.cdml")  # the other end deleted
    assert failed(run("chem-delete-atom", "chem_extend", {"molecule": first_gone})) == [
        "molecule keeps the other atoms of pentane.cdml in place"]


def test_export_molfile_and_cml(tmp_path: Path) -> None:
    atoms, bonds = FX.MOLECULES["acetic_acid"]
    assert not failed(run("chem-export-molfile", "chem_export", {"molecule": molfile(tmp_path, atoms, bonds)}))
    as_cdml = cdml(tmp_path, atoms, bonds, "acetic_acid.mol")  # saved in BKChem's format under the .mol name
    assert "molecule is a mol structure file" in failed(
        run("chem-export-molfile", "chem_export", {"molecule": as_cdml}))
    eth_atoms, eth_bonds = FX.MOLECULES["ethanol"]
    assert not failed(run("chem-export-cml", "chem_export", {"molecule": cml(tmp_path, eth_atoms, eth_bonds)}))
    wrong = cml(tmp_path, chain("COC"), single(3))  # dimethyl ether: the same formula
    assert failed(run("chem-export-cml", "chem_export", {"molecule": wrong})) == [
        "molecule is the structure ethanol.cdml (C2H6O)"]


def test_l2_needs_both_files(tmp_path: Path) -> None:
    thiol = cdml(tmp_path, chain("CCS"), single(3))
    result = milestones("chem_smiles", truth_of(TASKS, "chem-smiles-thiol-molfile", "chem_smiles") | {}, {})
    assert failed(result)
    steps = TASKS["chem-smiles-thiol-molfile"]["ground_truth"]["steps"]
    both = {"cdml": thiol, "mol": molfile(tmp_path, chain("CCS"), single(3))}
    for step in steps:
        assert not failed(milestones(step["template"], step, both))
    ethanol_mol = {"cdml": thiol, "mol": molfile(tmp_path, chain("CCO"), single(3), "e.mol")}
    assert failed(milestones(steps[1]["template"], steps[1], ethanol_mol))


def test_cml1_as_bkchem_exports_it(tmp_path: Path) -> None:
    """BKChem's File > Export > CML writes CML 1: the atom's data in <string builtin=...> children."""
    atoms = "".join(f'<atom><string builtin="atomId">a{k}</string><string builtin="elementType">{e}</string>'
                    f'<float builtin="x2">{x * 40}</float><float builtin="y2">{y * 40}</float></atom>'
                    for k, (e, x, y) in enumerate(chain("CCO")))
    bonds = "".join(f'<bond><string builtin="atomRef">a{i}</string><string builtin="atomRef">a{j}</string>'
                    f'<string builtin="order">1</string></bond>' for i, j, _ in single(3))
    path = tmp_path / "ethanol.cml"
    path.write_text(f'<?xml version="1.0"?><cml><molecule><atomArray>{atoms}</atomArray><bondArray>{bonds}'
                    f"</bondArray></molecule></cml>")
    assert not failed(run("chem-export-cml", "chem_export", {"molecule": path}))
