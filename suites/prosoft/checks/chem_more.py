"""More BKChem checks (the ChemDraw stand-in), beside ``checks/chem.py`` whose readers and graph comparison they use:
each kind is one more core function of the editor. Every kind takes ``artifact`` (default "molecule") and
``format`` ("cdml", "mol" or "cml"; judged by content) unless said otherwise:

- ``chem_charge``: charges put on atoms (BKChem's charge marks) [``smiles``: the structure without charges;
  ``charges`` {element: charge}: the atom(s) of that element carry it, every other atom none; ``keeps``]
- ``chem_transform``: the structure mirrored (Object > Vertical / Horizontal mirror) in a CDML drawing [``source``:
  the start file; ``transform``: "mirror_x" (left-right) or "mirror_y" (top-bottom); ``tol`` cm, default 0.05]:
  every atom of the start file, mirrored, has a saved atom of its element there (both taken relative to the
  centre of their bounding box, wherever the mirror put the molecule), and the structure is unchanged
- ``chem_name``: a molecule's name (Chemistry > Set molecule name) in a CDML drawing [``name``; ``smiles`` or
  ``same_as``: the structure that must be there]
- ``chem_svg``: the drawing exported as SVG (File > Export > SVG) [``bonds``: at least that many line segments
  drawn; ``labels`` [strings]: atom labels and texts shown as SVG text]
- ``chem_align``: molecules aligned (the Align menu) in a CDML drawing [``source``: the start file with several
  molecules; ``edge``: "top", "bottom", "left" or "right", or "hcenter"/"vcenter"; ``tol`` cm, default 0.05]:
  each molecule of the start file is still there, the same shape (moved, not redrawn), and their atoms'
  extremes on that edge agree within ``tol``

A missing artifact, or a file of another kind under its name, fails the milestones naming it (never an error).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping

from ..artifacts import Check, artifact, identify, load
from .chem import (FORMATS, Graph, _fixture, _keeps_check, describe, formula, parse_cdml, parse_smiles,
                   read_graph, signature)


# the charge field of a V2000 atom line (columns 37-39): 1 = +3, 2 = +2, 3 = +1, 5 = -1, 6 = -2, 7 = -3
def read_artifact(ctx: Any, name: str, fmt: str) -> Graph:
    """Artifact ``name`` read as ``fmt``; a file that is not one fails naming the artifact and what it is."""
    path = artifact(ctx, name)
    try:
        return read_graph(path, fmt)
    except AssertionError as exc:
        raise AssertionError(f"artifact {name!r}: {exc}; it is {identify(path)}") from None


def _loader(ctx: Any, truth: Mapping[str, Any], kind: str, fmt: str | None = None) -> tuple[str, Callable[[], Graph]]:
    name = truth.get("artifact", "molecule")
    fmt = fmt or str(truth.get("format", "cdml")).lower()
    if fmt not in FORMATS:
        raise ValueError(f"{kind}: format {fmt!r} unknown (known: {', '.join(FORMATS)})")
    return name, lambda: read_artifact(ctx, name, fmt)


def _structure_check(name: str, load_graph: Callable[[], Graph], want: Graph, label: str) -> Check:
    def check() -> None:
        got = load_graph()
        assert formula(got) == formula(want), f"{name}: formula {formula(got)}, expected {formula(want)} ({describe(got)})"
        assert signature(got) == signature(want), (
            f"{name}: {formula(got)} but not the expected structure {label} ({describe(got)})")
    return (f"{name} is the structure {label} ({formula(want)})", check)


def _expected(truth: Mapping[str, Any], kind: str) -> tuple[Graph, str]:
    if truth.get("smiles"):
        return parse_smiles(str(truth["smiles"])), str(truth["smiles"])
    if truth.get("same_as"):
        return read_graph(_fixture(truth["same_as"]), "cdml"), Path(truth["same_as"]).name
    raise ValueError(f"{kind}: ground truth needs 'smiles' or 'same_as'")


# --- charges ---------------------------------------------------------------------------------------------------

def charge_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name, load_graph = _loader(ctx, truth, "chem_charge")
    want, label = _expected(truth, "chem_charge")
    charges = {str(k): int(v) for k, v in (truth.get("charges") or {}).items()}
    if not charges:
        raise ValueError("chem_charge: ground truth needs 'charges' {element: charge}")
    for k, (element, *_) in enumerate(want.atoms):
        if element in charges:
            want.charges[k] = charges[element]
    label += " with " + ", ".join(f"{e}{c:+d}" for e, c in sorted(charges.items()))

    def check_charges() -> None:
        got = load_graph()
        found = {f"{got.atoms[k][0]}{c:+d}" for k, c in got.charges.items() if c}
        wanted = {f"{e}{c:+d}" for e, c in charges.items()}
        assert found == wanted, f"{name}: charged atoms {sorted(found) or 'none'}, expected {sorted(wanted)}"
    checks = [(f"{name} carries the charges {', '.join(sorted(f'{e}{c:+d}' for e, c in charges.items()))}",
               check_charges), _structure_check(name, load_graph, want, label)]
    if truth.get("keeps"):
        checks.append(_keeps_check(name, load_graph, truth["keeps"]))
    return checks


# --- transforms ---------------------------------------------------------------------------------------------

TRANSFORMS: dict[str, Callable[[float, float], tuple[float, float]]] = {
    "mirror_x": lambda x, y: (-x, y), "mirror_y": lambda x, y: (x, -y)}


def _centred(atoms: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The atoms relative to the centre of their bounding box, sorted."""
    xs, ys = [a[1] for a in atoms], [a[2] for a in atoms]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return sorted((e, x - cx, y - cy) for e, x, y in atoms)


def _same_places(got: list[tuple[str, float, float]], want: list[tuple[str, float, float]], tol: float) -> bool:
    """Each expected atom has a distinct saved atom of its element within ``tol`` cm (both centred)."""
    if len(got) != len(want):
        return False
    free = list(_centred(got))
    for e, x, y in _centred(want):
        match = next((a for a in free if a[0] == e and math.dist(a[1:], (x, y)) <= tol), None)
        if match is None:
            return False
        free.remove(match)
    return True


def transform_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name, load_graph = _loader(ctx, {**truth, "format": "cdml"}, "chem_transform")
    kind = str(truth["transform"])
    if kind not in TRANSFORMS:
        raise ValueError(f"chem_transform: transform {kind!r} unknown (known: {', '.join(TRANSFORMS)})")
    source = read_graph(_fixture(truth["source"]), "cdml")
    tol = float(truth.get("tol", 0.05))
    want = [(e, *TRANSFORMS[kind](x, y)) for e, x, y in source.atoms]

    def check_places() -> None:
        got = load_graph()
        assert _same_places(got.atoms, want, tol), (
            f"{name}: the atoms are not those of {Path(truth['source']).name} after {kind.replace('_', ' ')} "
            f"(saved, centred: {[(e, round(x, 2), round(y, 2)) for e, x, y in _centred(got.atoms)]})")
    return [(f"{name} is {Path(truth['source']).name} after {kind.replace('_', ' ')}", check_places),
            _structure_check(name, load_graph, source, Path(truth["source"]).name)]


# --- molecule names -------------------------------------------------------------------------------------------

def cdml_names(text: str) -> list[str]:
    """The ``name`` of each molecule of a CDML drawing (Chemistry > Set molecule name)."""
    from lxml import etree

    root = etree.fromstring(text.encode())
    return [m.get("name", "") for m in root.iter("{*}molecule")]


def name_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name, load_graph = _loader(ctx, {**truth, "format": "cdml"}, "chem_name")
    wanted = str(truth["name"])

    def check_name() -> None:
        read_artifact(ctx, name, "cdml")  # a CDML drawing, else the miss names the artifact and what it is
        names = load(ctx, name, "text", lambda p: cdml_names(p.read_text(encoding="utf-8", errors="replace")))
        assert wanted in names, f"{name}: no molecule named {wanted!r} (names: {names!r})"
    want, label = _expected(truth, "chem_name")
    return [(f"{name} molecule named {wanted!r}", check_name), _structure_check(name, load_graph, want, label)]


# --- SVG export ------------------------------------------------------------------------------------------------

def svg_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")

    def svg() -> Any:
        from lxml import etree

        return load(ctx, name, "svg", lambda p: etree.parse(str(p)).getroot())

    checks: list[Check] = []
    if "bonds" in truth:
        def check_bonds() -> None:
            lines = [el for el in svg().iter("{*}line", "{*}path", "{*}polygon")]
            assert len(lines) >= int(truth["bonds"]), (
                f"{name}: {len(lines)} line or path elements, expected at least {truth['bonds']} (one per bond)")
        checks.append((f"{name} draws at least {truth['bonds']} bonds", check_bonds))
    for label in truth.get("labels") or []:
        def check_label(label: str = label) -> None:
            shown = ["".join(t.itertext()).strip() for t in svg().iter("{*}text")]
            assert any(re.sub(r"\s+", "", s) == label for s in shown), f"{name}: no text {label!r} (texts: {shown!r})"
        checks.append((f"{name} shows {label!r}", check_label))
    return checks


# --- alignment -------------------------------------------------------------------------------------------------

def cdml_molecules(text: str) -> list[Graph]:
    """Each ``<molecule>`` of a CDML drawing as its own graph."""
    from lxml import etree

    root = etree.fromstring(text.encode())
    out = []
    for molecule in root.iter("{*}molecule"):
        wrapper = etree.Element("cdml")
        wrapper.append(molecule)
        out.append(parse_cdml(etree.tostring(wrapper).decode()))
    return out


EDGES: dict[str, Callable[[list[tuple[float, float]]], float]] = {
    "top": lambda pts: min(y for _, y in pts), "bottom": lambda pts: max(y for _, y in pts),
    "left": lambda pts: min(x for x, _ in pts), "right": lambda pts: max(x for x, _ in pts),
    "hcenter": lambda pts: (min(x for x, _ in pts) + max(x for x, _ in pts)) / 2,
    "vcenter": lambda pts: (min(y for _, y in pts) + max(y for _, y in pts)) / 2}


def _shape(graph: Graph) -> list[tuple[str, float, float]]:
    """The atoms relative to the first one, sorted: equal for a molecule moved without change."""
    x0, y0 = graph.atoms[0][1:]
    return sorted((e, round(x - x0, 2), round(y - y0, 2)) for e, x, y in graph.atoms)


def align_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "molecule")
    edge = str(truth["edge"])
    if edge not in EDGES:
        raise ValueError(f"chem_align: edge {edge!r} unknown (known: {', '.join(EDGES)})")
    tol = float(truth.get("tol", 0.05))
    before = cdml_molecules(_fixture(truth["source"]).read_text(encoding="utf-8"))

    def molecules() -> list[Graph]:
        read_artifact(ctx, name, "cdml")  # a CDML drawing, else the miss names the artifact and what it is
        return load(ctx, name, "text", lambda p: cdml_molecules(p.read_text(encoding="utf-8", errors="replace")))

    def check_same() -> None:
        after = molecules()
        shapes = sorted(_shape(g) for g in after)
        assert shapes == sorted(_shape(g) for g in before), (
            f"{name}: {len(after)} molecule(s) ({', '.join(describe(g) for g in after)}), expected the "
            f"{len(before)} of {Path(truth['source']).name} moved, not redrawn")

    def check_edge() -> None:
        after = molecules()
        values = [EDGES[edge]([a[1:] for a in g.atoms]) for g in after]
        assert len(values) > 1 and max(values) - min(values) <= tol, (
            f"{name}: the molecules' {edge} edges lie at {', '.join(f'{v:.2f}' for v in values)} cm, not aligned "
            f"(±{tol:g} cm)")
    start_values = [EDGES[edge]([a[1:] for a in g.atoms]) for g in before]
    if max(start_values) - min(start_values) <= tol:
        raise ValueError(f"chem_align: the start file is already aligned on {edge}")
    return [(f"{name} keeps the {len(before)} molecules of {Path(truth['source']).name}", check_same),
            (f"{name} molecules aligned {edge}", check_edge)]


KINDS = {"chem_charge": charge_checks, "chem_transform": transform_checks, "chem_name": name_checks,
         "chem_svg": svg_checks, "chem_align": align_checks}
