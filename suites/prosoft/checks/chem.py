"""BKChem checks (the ChemDraw stand-in): the 2D structure BKChem saved (its own CDML) or exported (MDL molfile,
CML), read as a molecular graph here (no chemistry library) and compared with the expected structure, written
as a simple SMILES in the ground truth.

Kinds, one per core function of the editor (ground-truth keys in brackets; every kind takes ``artifact``,
default "molecule", and ``format``: "cdml", "mol" or "cml", judged by content, not by the file name):

- ``chem_smiles``: a structure entered with Chemistry > Read SMILES and saved [``smiles``]
- ``chem_draw``: a structure drawn with the mouse (bonds, ring templates) [``smiles``; ``min_atoms``]
- ``chem_element``: an atom's element changed in the start file [``smiles``, ``keeps``]
- ``chem_bond``: a bond's order changed in the start file [``smiles``, ``keeps``]
- ``chem_extend``: atoms added to, or removed from, the start file [``smiles``, ``keeps``]
- ``chem_export``: the start file exported to another format unchanged [``smiles``, ``same_as``]

``smiles``: the expected structure (atoms B C N O P S F Cl Br I, bonds ``-`` ``=`` ``#``, branches, ring
digits; hydrogens implicit): the saved molecule must have the same Hill formula (implicit hydrogens from the
usual valences) and the same graph (elements, hydrogen counts and bond orders, compared by colour refinement,
exact for molecules this small). ``keeps``: {"source": "chem/butane.cdml", "atoms": [0, 1, 2], "tol": 0.05}:
the listed atoms of the start file (CDML, indexes in file order, default all) are still there, same element
and same place (cm), so a structure redrawn elsewhere, or the start file left as it was, does not pass.
``same_as``: the start file (CDML) whose structure the export must carry.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import fixtures_dir

from ..artifacts import Check, artifact
from .avogadro import parse_mol as _parse_mol_xyz

CDML_NS = "http://www.freesoftware.fsf.org/bkchem/cdml"
VALENCE = {"B": 3, "C": 4, "N": 3, "O": 2, "P": 3, "S": 2, "F": 1, "Cl": 1, "Br": 1, "I": 1, "H": 1}
FORMATS = ("cdml", "mol", "cml")


@dataclass
class Graph:
    """Atoms (element, x, y) and bonds (i, j, order) of one saved structure; hydrogens are implicit unless
    the file holds them as atoms (then they count as atoms and as neighbours)."""

    atoms: list[tuple[str, float, float]] = field(default_factory=list)
    bonds: list[tuple[int, int, int]] = field(default_factory=list)
    charges: dict[int, int] = field(default_factory=dict)

    def heavy(self) -> list[int]:
        return [i for i, (e, *_) in enumerate(self.atoms) if e != "H"]


# --- readers -------------------------------------------------------------------------------------------------

def _cm(value: str | None) -> float:
    """A CDML length ("7.250cm", "12mm", "30px" or a bare number of cm) in cm."""
    match = re.fullmatch(r"\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*([a-z]*)\s*", value or "0")
    assert match, f"length {value!r} is not a number with a unit"
    units = {"": 1.0, "cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "px": 2.54 / 72}
    assert match.group(2) in units, f"length {value!r}: unknown unit"
    return float(match.group(1)) * units[match.group(2)]


def parse_cdml(text: str) -> Graph:
    """BKChem's CDML (``.cdml``, or the CDML inside a BKChem ``.svg``): atoms with their element (``name``),
    position (cm), charge; bonds ``type`` "n1".."n3" (also wedges and hatches: their digit is the order)."""
    from lxml import etree

    root = etree.fromstring(text.encode())
    cdml = root if etree.QName(root).localname == "cdml" else next(
        (el for el in root.iter() if isinstance(el.tag, str) and etree.QName(el).localname == "cdml"), None)
    assert cdml is not None, "no <cdml> element"
    graph = Graph()
    ids: dict[str, int] = {}
    molecules = [el for el in cdml.iter() if isinstance(el.tag, str) and etree.QName(el).localname == "molecule"]

    def children(name: str) -> list[Any]:
        return [el for m in molecules for el in m if isinstance(el.tag, str) and etree.QName(el).localname == name]
    for atom in children("atom"):
        point = next((p for p in atom if isinstance(p.tag, str) and etree.QName(p).localname == "point"), None)
        assert point is not None, f"atom {atom.get('id')!r} has no <point>"
        ids[atom.get("id", str(len(ids)))] = len(graph.atoms)
        name = atom.get("name", "C")
        assert name in VALENCE, f"atom {atom.get('id')!r}: element {name!r} is not one this check knows"
        if atom.get("charge") not in (None, "0"):
            graph.charges[len(graph.atoms)] = int(atom.get("charge", "0"))
        graph.atoms.append((name, _cm(point.get("x")), _cm(point.get("y"))))
    for bond in children("bond"):
        start, end = bond.get("start"), bond.get("end")
        assert start in ids and end in ids, f"bond {bond.get('id')!r} joins unknown atoms {start!r}, {end!r}"
        digits = re.sub(r"\D", "", bond.get("type", "n1")) or "1"
        graph.bonds.append((ids[start], ids[end], int(digits[0])))
    assert graph.atoms, "no <atom> in the CDML"
    return graph


_MOL_CHARGE = {1: 3, 2: 2, 3: 1, 5: -1, 6: -2, 7: -3}


def molfile_atom_charges(text: str) -> dict[int, int]:
    """Charges a V2000 molfile gives in its atom block (BKChem writes them there, with no ``M  CHG`` line;
    V2000 defines both as the same charges)."""
    lines = text.splitlines()
    if len(lines) < 4 or not lines[3][:3].strip().isdigit():
        return {}
    out = {}
    for k, line in enumerate(lines[4:4 + int(lines[3][:3])]):
        field = line[36:39].strip()
        if field.isdigit() and int(field) in _MOL_CHARGE:
            out[k] = _MOL_CHARGE[int(field)]
    return out


def parse_mol(text: str) -> Graph:
    """A V2000 molfile: atoms, bonds, and the charges of its ``M  CHG`` lines, else of its atom block."""
    mol = _parse_mol_xyz(text)
    graph = Graph(atoms=[(e, x, y) for e, x, y, _ in mol.atoms], bonds=list(mol.bonds or []))
    for line in text.splitlines():
        if line.startswith("M  CHG"):
            parts = line.split()[3:]
            for k in range(0, len(parts) - 1, 2):
                graph.charges[int(parts[k]) - 1] = int(parts[k + 1])
    if not graph.charges:
        graph.charges.update(molfile_atom_charges(text))
    return graph


def parse_cml(text: str) -> Graph:
    """CML 2 (attributes: ``elementType``, ``x2``/``y2``, ``atomRefs2``, ``order``, as BKChem's "CML2" export
    writes) or CML 1 (``<string builtin="elementType">`` children, BKChem's "CML" export)."""
    from lxml import etree

    root = etree.fromstring(text.encode())

    def builtins(el: Any) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for child in el:
            if isinstance(child.tag, str) and child.get("builtin"):
                out.setdefault(child.get("builtin"), []).append((child.text or "").strip())
        return out
    graph = Graph()
    ids: dict[str, int] = {}
    for atom in root.iter("{*}atom", "atom"):
        old = builtins(atom)
        element = atom.get("elementType") or (old.get("elementType") or [""])[0]
        assert element in VALENCE, f"atom {atom.get('id')!r}: element {element!r} is not one this check knows"
        ident = atom.get("id") or (old.get("atomId") or [str(len(ids))])[0]
        x = atom.get("x2") or atom.get("x3") or (old.get("x2") or old.get("x3") or ["0"])[0]
        y = atom.get("y2") or atom.get("y3") or (old.get("y2") or old.get("y3") or ["0"])[0]
        ids[ident] = len(graph.atoms)
        graph.atoms.append((element, float(x), float(y)))
    for bond in root.iter("{*}bond", "bond"):
        old = builtins(bond)
        refs = (bond.get("atomRefs2") or "").split() or old.get("atomRef", [])
        assert len(refs) == 2 and all(r in ids for r in refs), f"bond joins unknown atoms {refs!r}"
        order_text = bond.get("order") or (old.get("order") or ["1"])[0]
        order = {"S": 1, "D": 2, "T": 3, "A": 1}.get(order_text.upper(), None)
        graph.bonds.append((ids[refs[0]], ids[refs[1]], order if order is not None else int(float(order_text))))
    assert graph.atoms, "no <atom> elements"
    return graph


READERS = {"cdml": parse_cdml, "mol": parse_mol, "cml": parse_cml}


def read_graph(path: Path, fmt: str) -> Graph:
    """The structure in ``path`` read as ``fmt``; an AssertionError naming the file when it is not one."""
    if fmt not in READERS:
        raise ValueError(f"chem ground truth: format {fmt!r} unknown (known: {', '.join(FORMATS)})")
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return READERS[fmt](text)
    except AssertionError as exc:
        raise AssertionError(f"{path.name}: not a {fmt} structure file: {exc}") from None
    except Exception as exc:  # lxml's syntax errors, ValueError, IndexError, KeyError of a broken file
        raise AssertionError(f"{path.name}: not a {fmt} structure file ({type(exc).__name__}: {exc})") from None


# --- SMILES (the simple subset the ground truths use) -------------------------------------------------------

_TOKEN = re.compile(r"Cl|Br|[BCNOPSFI]|[=#\-]|\(|\)|%\d\d|\d")


def parse_smiles(smiles: str) -> Graph:
    """A graph from a simple SMILES (no brackets, no aromatic lower case, no stereo); ValueError when the
    ground truth holds something else."""
    graph = Graph()
    stack: list[int] = []
    prev: int | None = None
    order = 1
    rings: dict[str, tuple[int, int]] = {}
    pos = 0
    while pos < len(smiles):
        match = _TOKEN.match(smiles, pos)
        if not match:
            raise ValueError(f"chem ground truth: SMILES {smiles!r}: cannot read {smiles[pos:]!r}")
        tok = match.group()
        pos = match.end()
        if tok in ("-", "=", "#"):
            order = {"-": 1, "=": 2, "#": 3}[tok]
        elif tok == "(":
            if prev is None:
                raise ValueError(f"chem ground truth: SMILES {smiles!r}: branch before any atom")
            stack.append(prev)
        elif tok == ")":
            if not stack:
                raise ValueError(f"chem ground truth: SMILES {smiles!r}: unbalanced ')'")
            prev = stack.pop()
        elif tok[0].isdigit() or tok[0] == "%":
            if prev is None:
                raise ValueError(f"chem ground truth: SMILES {smiles!r}: ring digit before any atom")
            if tok in rings:
                other, ring_order = rings.pop(tok)
                graph.bonds.append((other, prev, max(order, ring_order)))
            else:
                rings[tok] = (prev, order)
            order = 1
        else:
            graph.atoms.append((tok, 0.0, 0.0))
            index = len(graph.atoms) - 1
            if prev is not None:
                graph.bonds.append((prev, index, order))
            prev, order = index, 1
    if rings or stack:
        raise ValueError(f"chem ground truth: SMILES {smiles!r}: unclosed ring or branch")
    return graph


# --- comparisons ---------------------------------------------------------------------------------------------

def hydrogens(graph: Graph) -> list[int]:
    """Implicit hydrogens of each atom: its usual valence (plus the charge for N, minus it for C and O ...) less
    the orders of its bonds, never below zero; explicit H atoms get 0."""
    used = [0] * len(graph.atoms)
    for i, j, order in graph.bonds:
        used[i] += order
        used[j] += order
    out = []
    for k, (element, *_) in enumerate(graph.atoms):
        if element == "H":
            out.append(0)
            continue
        charge = graph.charges.get(k, 0)
        valence = VALENCE.get(element, 0) + (charge if element in ("N", "P", "O", "S") else -abs(charge))
        out.append(max(0, valence - used[k]))
    return out


def formula(graph: Graph) -> str:
    """Hill formula with the implicit hydrogens: C, then H, then the rest alphabetically."""
    counts: Counter[str] = Counter(e for e, *_ in graph.atoms)
    counts["H"] += sum(hydrogens(graph))
    if not counts["H"]:
        del counts["H"]
    order = (["C", "H"] if "C" in counts else []) + sorted(e for e in counts if "C" not in counts or e not in "CH")
    return "".join(f"{e}{counts[e] if counts[e] > 1 else ''}" for e in order if counts.get(e))


def signature(graph: Graph) -> list[str]:
    """The sorted atom colours after colour refinement over heavy atoms (element, implicit H, charge, then the
    multiset of (bond order, neighbour colour)); equal for isomorphic graphs, and different for the
    structures the tasks tell apart."""
    heavy = graph.heavy()
    h = hydrogens(graph)
    explicit_h = Counter()
    for i, j, _ in graph.bonds:
        if graph.atoms[i][0] == "H":
            explicit_h[j] += 1
        if graph.atoms[j][0] == "H":
            explicit_h[i] += 1
    colour = {k: f"{graph.atoms[k][0]}H{h[k] + explicit_h[k]}{graph.charges.get(k, 0):+d}" for k in heavy}
    neighbours: dict[int, list[tuple[int, int]]] = {k: [] for k in heavy}
    for i, j, order in graph.bonds:
        if i in colour and j in colour:
            neighbours[i].append((j, order))
            neighbours[j].append((i, order))
    for _ in range(len(heavy)):
        colour = {k: colour[k] + "(" + ",".join(sorted(f"{o}{colour[n]}" for n, o in neighbours[k])) + ")"
                  for k in heavy}
        # keep the strings short: a digest of the colour (the same for isomorphic graphs)
        colour = {k: f"{graph.atoms[k][0]}:{hashlib.sha1(c.encode()).hexdigest()[:12]}" for k, c in colour.items()}
    return sorted(colour.values())


def describe(graph: Graph) -> str:
    elements = Counter(e for e, *_ in graph.atoms)
    orders = Counter(o for *_, o in graph.bonds)
    return (f"{formula(graph)}: {sum(elements.values())} atoms ({dict(sorted(elements.items()))}), "
            f"{len(graph.bonds)} bonds (orders {dict(sorted(orders.items()))})")


def same_structure(got: Graph, want: Graph) -> bool:
    return formula(got) == formula(want) and signature(got) == signature(want)


# --- checks --------------------------------------------------------------------------------------------------

def _fixture(path: str) -> Path:
    source = fixtures_dir("prosoft") / path
    if not source.is_file():
        raise ValueError(f"chem ground truth: start file {path!r} not found ({source})")
    return source


def _structure_checks(ctx: Any, truth: Mapping[str, Any], kind: str) -> tuple[list[Check], Any]:
    name = truth.get("artifact", "molecule")
    fmt = str(truth.get("format", "cdml")).lower()
    if fmt not in FORMATS:
        raise ValueError(f"{kind}: format {fmt!r} unknown (known: {', '.join(FORMATS)})")

    def load() -> Graph:
        return read_graph(artifact(ctx, name), fmt)

    def check_format() -> None:
        assert load().atoms, f"{name}: no atoms"
    checks: list[Check] = [(f"{name} is a {fmt} structure file", check_format)]
    want: Graph | None = None
    label = ""
    if truth.get("smiles"):
        want, label = parse_smiles(str(truth["smiles"])), str(truth["smiles"])
    elif truth.get("same_as"):
        want, label = read_graph(_fixture(truth["same_as"]), "cdml"), Path(truth["same_as"]).name
    if want is not None:
        expected = want

        def check_structure() -> None:
            got = load()
            assert formula(got) == formula(expected), (
                f"{name}: formula {formula(got)}, expected {formula(expected)} ({describe(got)})")
            assert signature(got) == signature(expected), (
                f"{name}: {formula(got)} but not the expected structure {label} (atoms joined otherwise or other "
                f"bond orders: {describe(got)})")
        checks.append((f"{name} is the structure {label} ({formula(want)})", check_structure))
    elif kind != "chem_draw":
        raise ValueError(f"{kind}: ground truth needs 'smiles' or 'same_as'")
    return checks, load


def _keeps_check(name: str, load: Any, spec: Mapping[str, Any]) -> Check:
    before = read_graph(_fixture(spec["source"]), "cdml")
    indexes = list(spec.get("atoms", range(len(before.atoms))))
    tol = float(spec.get("tol", 0.05))

    def check_keeps() -> None:
        after = load()
        lost = []
        for k in indexes:
            element, x, y = before.atoms[k]
            if not any(e == element and math.dist((x, y), (ax, ay)) <= tol for e, ax, ay in after.atoms):
                lost.append(f"{element} at ({x:.2f}, {y:.2f}) cm")
        assert not lost, f"{name}: atoms of {spec['source']} missing or moved: {'; '.join(lost)}"
    return (f"{name} keeps the other atoms of {Path(spec['source']).name} in place", check_keeps)


def _kind(kind: str, needs_keeps: bool = False) -> Any:
    def checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
        out, load = _structure_checks(ctx, truth, kind)
        if truth.get("keeps"):
            out.append(_keeps_check(truth.get("artifact", "molecule"), load, truth["keeps"]))
        elif needs_keeps:
            raise ValueError(f"{kind}: ground truth needs 'keeps' (the start file's atoms that must stay)")
        if kind == "chem_draw" and truth.get("min_atoms"):
            minimum = int(truth["min_atoms"])

            def check_size() -> None:
                got = load()
                assert len(got.heavy()) >= minimum, f"only {len(got.heavy())} atoms, expected at least {minimum}"
            out.append((f"at least {minimum} atoms drawn", check_size))
        return out
    checks.__name__ = f"{kind}_checks"
    return checks


KINDS = {
    "chem_smiles": _kind("chem_smiles"),
    "chem_draw": _kind("chem_draw"),
    "chem_element": _kind("chem_element", needs_keeps=True),
    "chem_bond": _kind("chem_bond", needs_keeps=True),
    "chem_extend": _kind("chem_extend", needs_keeps=True),
    "chem_export": _kind("chem_export"),
}
