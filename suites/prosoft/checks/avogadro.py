"""Avogadro checks: the molecule file Avogadro saved, parsed here (no chemistry library needed).

Kind ``molecule``; ground-truth keys:

- ``artifact`` (default "molecule"); ``format``: "xyz", "mol" (MDL molfile V2000 or V3000, also .sdf), "cml" or
  "cjson": the file must parse as that format (judged by content, not by the file name)
- ``formula``: Hill formula ("C2H6O": C, then H, then the others alphabetically)
- ``bonds``: number of bonds (formats that store bonds)
- ``keeps``: {"source": "imaging/ethanol_heavy.mol", "heavy_only": true, "tol": 0.05}: every atom of that
  start file (only non-hydrogens with ``heavy_only``) is still there: same element within ``tol`` Angstrom, so
  a molecule rebuilt from scratch elsewhere does not pass a task that asks to edit the given one; ``elements``
  ["C"] limits the check to those elements (an atom the task changes is not looked for)
- ``bonded``: [["C", "S"], ...]: for each pair, some bond joins atoms of those elements

Parsers return ``Molecule`` (atoms as (element, x, y, z), bonds as (i, j, order) with 0-based indexes).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import fixtures_dir

from .imaging_common import Check, artifact

SYMBOLS = ("H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr "
           "Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe").split()
MASSES = {"H": 1.008, "C": 12.011, "N": 14.007, "O": 15.999, "F": 18.998, "P": 30.974, "S": 32.06, "Cl": 35.45,
          "Br": 79.904, "I": 126.904, "Si": 28.085, "B": 10.81, "Na": 22.990}


@dataclass
class Molecule:
    atoms: list[tuple[str, float, float, float]] = field(default_factory=list)
    bonds: list[tuple[int, int, int]] | None = None  # None: the format stores no bonds


def _element(text: str) -> str:
    text = text.strip()
    if text.isdigit():
        number = int(text)
        assert 1 <= number <= len(SYMBOLS), f"atomic number {number} out of range"
        return SYMBOLS[number - 1]
    symbol = re.sub(r"[^A-Za-z]", "", text)[:2].capitalize()
    if symbol not in SYMBOLS and symbol[:1] in SYMBOLS:
        symbol = symbol[:1]  # e.g. a label "C1" read as "C"
    assert symbol in SYMBOLS, f"unknown element {text!r}"
    return symbol


def parse_xyz(text: str) -> Molecule:
    lines = text.splitlines()
    assert lines and lines[0].strip().isdigit(), "the first line is not an atom count"
    count = int(lines[0].strip())
    mol = Molecule()
    for line in lines[2:2 + count]:
        parts = line.split()
        assert len(parts) >= 4, f"atom line {line!r} is not 'element x y z'"
        mol.atoms.append((_element(parts[0]), float(parts[1]), float(parts[2]), float(parts[3])))
    assert len(mol.atoms) == count, f"{count} atoms announced, {len(mol.atoms)} found"
    return mol


def parse_mol(text: str) -> Molecule:
    lines = text.splitlines()
    assert len(lines) >= 4, "too short for a molfile (header and counts line)"
    mol = Molecule(bonds=[])
    assert mol.bonds is not None
    if "V3000" in lines[3]:
        section = ""
        for line in lines[4:]:
            body = line[7:].strip() if line.startswith("M  V30") else ""
            if body.startswith("BEGIN "):
                section = body.split()[1]
            elif body.startswith("END "):
                section = ""
            elif section == "ATOM" and body:
                parts = body.split()
                mol.atoms.append((_element(parts[1]), float(parts[2]), float(parts[3]), float(parts[4])))
            elif section == "BOND" and body:
                parts = body.split()
                mol.bonds.append((int(parts[2]) - 1, int(parts[3]) - 1, int(parts[1])))
        assert mol.atoms, "no atoms in the V3000 ATOM block"
        return mol
    counts = lines[3]
    assert "V2000" in counts or counts[:6].replace(" ", "").isdigit(), f"counts line {counts!r} is not V2000"
    n_atoms, n_bonds = int(counts[0:3]), int(counts[3:6])
    for line in lines[4:4 + n_atoms]:
        x, y, z = float(line[0:10]), float(line[10:20]), float(line[20:30])
        mol.atoms.append((_element(line[31:34]), x, y, z))
    for line in lines[4 + n_atoms:4 + n_atoms + n_bonds]:
        mol.bonds.append((int(line[0:3]) - 1, int(line[3:6]) - 1, int(line[6:9])))
    assert len(mol.atoms) == n_atoms and len(mol.bonds) == n_bonds, "atom or bond block shorter than announced"
    return mol


def parse_cml(text: str) -> Molecule:
    from lxml import etree

    root = etree.fromstring(text.encode())
    mol = Molecule(bonds=[])
    assert mol.bonds is not None
    ids: dict[str, int] = {}
    for atom in root.iter("{*}atom", "atom"):
        coords = [atom.get(k) for k in ("x3", "y3", "z3")]
        if coords[0] is None:
            coords = [atom.get("x2"), atom.get("y2"), "0"]
        ids[atom.get("id", str(len(ids)))] = len(mol.atoms)
        x, y, z = (float(c or 0) for c in coords)
        mol.atoms.append((_element(atom.get("elementType", "")), x, y, z))
    for bond in root.iter("{*}bond", "bond"):
        a, b = (bond.get("atomRefs2") or "").split()
        order = {"S": 1, "D": 2, "T": 3, "A": 4}.get(bond.get("order", "1"), None)
        mol.bonds.append((ids[a], ids[b], order if order is not None else int(float(bond.get("order", "1")))))
    assert mol.atoms, "no <atom> elements"
    return mol


def parse_cjson(text: str) -> Molecule:
    data = json.loads(text)
    atoms = data["atoms"]
    numbers = atoms["elements"]["number"]
    coords = atoms["coords"]["3d"]
    mol = Molecule(bonds=[])
    assert mol.bonds is not None
    for i, number in enumerate(numbers):
        x, y, z = (float(v) for v in coords[3 * i:3 * i + 3])
        mol.atoms.append((_element(str(number)), x, y, z))
    bonds = data.get("bonds") or {}
    index = (bonds.get("connections") or {}).get("index") or []
    orders = bonds.get("order") or [1] * (len(index) // 2)
    for k in range(len(index) // 2):
        mol.bonds.append((int(index[2 * k]), int(index[2 * k + 1]), int(orders[k])))
    return mol


PARSERS = {"xyz": parse_xyz, "mol": parse_mol, "sdf": parse_mol, "cml": parse_cml, "cjson": parse_cjson}


def read_molecule(path: Path, fmt: str) -> Molecule:
    """The molecule in ``path`` read as ``fmt``; an AssertionError naming the file when it is not one."""
    if fmt not in PARSERS:
        raise ValueError(f"molecule ground truth: format {fmt!r} unknown (known: {', '.join(PARSERS)})")
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return PARSERS[fmt](text)
    except AssertionError as exc:
        raise AssertionError(f"{path.name}: not a {fmt} molecule file: {exc}") from None
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise AssertionError(f"{path.name}: not a {fmt} molecule file ({type(exc).__name__}: {exc})") from None
    except Exception as exc:  # lxml's XMLSyntaxError and friends
        raise AssertionError(f"{path.name}: not a {fmt} molecule file ({type(exc).__name__}: {exc})") from None


def formula(mol: Molecule) -> str:
    """Hill formula: C and H first when there is carbon, then the other elements alphabetically."""
    counts: dict[str, int] = {}
    for element, *_ in mol.atoms:
        counts[element] = counts.get(element, 0) + 1
    order = (["C", "H"] if "C" in counts else []) + sorted(e for e in counts if "C" not in counts or e not in ("C", "H"))
    return "".join(f"{e}{counts[e] if counts[e] > 1 else ''}" for e in order if e in counts)


def molar_mass(mol: Molecule) -> float:
    return sum(MASSES[element] for element, *_ in mol.atoms)


def molecule_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "molecule")
    fmt = str(truth.get("format", "mol")).lower()
    checks: list[Check] = []

    def load() -> Molecule:
        return read_molecule(artifact(ctx, name, "text"), fmt)

    def check_format() -> None:
        assert load().atoms, f"{name}: no atoms"
    checks.append((f"{name} is a {fmt} molecule file", check_format))
    if "formula" in truth:
        def check_formula() -> None:
            got = formula(load())
            assert got == truth["formula"], f"{name}: formula {got}, expected {truth['formula']}"
        checks.append((f"{name} formula {truth['formula']}", check_formula))
    if "bonds" in truth:
        def check_bonds() -> None:
            mol = load()
            assert mol.bonds is not None, f"{name}: the {fmt} format stores no bonds"
            assert len(mol.bonds) == int(truth["bonds"]), f"{name}: {len(mol.bonds)} bonds, expected {truth['bonds']}"
        checks.append((f"{name} has {truth['bonds']} bonds", check_bonds))
    if truth.get("bonded"):
        def check_bonded() -> None:
            mol = load()
            assert mol.bonds is not None, f"{name}: the {fmt} format stores no bonds"
            pairs = {tuple(sorted((mol.atoms[a][0], mol.atoms[b][0]))) for a, b, _ in mol.bonds}
            missing = [f"{a}-{b}" for a, b in truth["bonded"] if tuple(sorted((a, b))) not in pairs]
            assert not missing, f"{name}: no bond {', '.join(missing)} (bonds: {sorted(pairs)})"
        checks.append((f"{name} has bonds {', '.join('-'.join(p) for p in truth['bonded'])}", check_bonded))
    if truth.get("keeps"):
        spec = truth["keeps"]

        def check_keeps() -> None:
            source = fixtures_dir("prosoft") / spec["source"]
            if not source.is_file():
                raise ValueError(f"molecule ground truth: keeps.source {spec['source']!r} not found ({source})")
            before = read_molecule(source, spec.get("format", source.suffix.lstrip(".")))
            after = load()
            tol = float(spec.get("tol", 0.05))
            lost = []
            for element, *xyz in before.atoms:
                if (spec.get("heavy_only") and element == "H") or element not in spec.get("elements", [element]):
                    continue
                if not any(e == element and math.dist(xyz, other) <= tol for e, *other in after.atoms):
                    lost.append(f"{element} at ({', '.join(f'{v:.2f}' for v in xyz)})")
            assert not lost, f"{name}: atoms of {spec['source']} missing or moved: {'; '.join(lost)}"
        which = "heavy atoms" if spec.get("heavy_only") else "atoms"
        checks.append((f"{name} keeps the {which} of {Path(spec['source']).name}", check_keeps))
    return checks


KINDS = {"molecule": molecule_checks}
