"""KiCad 6 evaluators: read the saved schematic (``.kicad_sch``), board (``.kicad_pcb``) or exported netlist
(``.net``), all s-expressions, with a small parser of their own.

Ground truth, by kind:

- ``kicad_sch``: ``artifact`` (default ``schematic``); ``values`` {ref: value} (one milestone each);
  ``keep_values`` {ref: value} (one milestone: parts the task did not touch); ``annotated`` {prefix: count}
  (every reference is a prefix and a number, unique, none left with ``?``); ``texts`` [strings placed as
  schematic text]; ``symbols`` (how many placed symbols)
- ``kicad_pcb``: ``artifact`` (default ``board``); ``footprints`` {ref: {"at": [x, y], "rotation": deg,
  "layer": "F.Cu" | "B.Cu", "value": v}} (one milestone each, positions within 0.01 mm); ``keep_at``
  {ref: [x, y]} (one milestone); ``texts`` [{"text": .., "layer": ..}]; ``tracks`` [{"net": name,
  "from": "R1.2", "to": "R3.1"}] (a chain of segments of that net joins the two pads); ``thickness`` (mm)
- ``kicad_netlist``: ``artifact`` (default ``netlist``); ``components`` {ref: value}; ``nets``
  {name: ["R1.2", ...]} (net names without the sheet's leading ``/``)
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from pytest_cua import EvalContext

from .engineering_common import Check, load

Sexp = list[Any]


class Atom(str):
    """An unquoted token (a keyword or a number); quoted strings stay plain ``str``."""


_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.S)


def parse(text: str) -> Sexp:
    """The first s-expression of ``text`` as nested lists of :class:`Atom` and ``str``."""
    stack: list[Sexp] = [[]]
    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos:].strip():
                raise ValueError(f"not an s-expression at offset {pos}: {text[pos:pos + 40]!r}")
            break
        pos = match.end()
        opened, closed, quoted, atom = match.groups()
        if opened:
            stack.append([])
        elif closed:
            if len(stack) < 2:
                raise ValueError(f"unbalanced ')' at offset {pos}")
            done = stack.pop()
            stack[-1].append(done)
            if len(stack) == 1:
                break
        elif quoted is not None:
            stack[-1].append(re.sub(r"\\(.)", r"\1", quoted))
        else:
            stack[-1].append(Atom(atom))
    if len(stack) != 1 or not stack[0] or not isinstance(stack[0][0], list):
        raise ValueError("unbalanced s-expression (a '(' is never closed)")
    return stack[0][0]


def read(path: Path, head: str) -> Sexp:
    """Parse ``path``; its top element must be ``(head ...)``."""
    try:
        tree = parse(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError as exc:
        raise AssertionError(f"{path.name}: not a KiCad file ({exc})") from None
    assert tree and tree[0] == head, f"{path.name}: expected a ({head} ...) file, found ({tree[0] if tree else ''} ...)"
    return tree


def children(node: Sexp, head: str) -> Iterator[Sexp]:
    return (c for c in node[1:] if isinstance(c, list) and c and c[0] == head)


def child(node: Sexp, head: str) -> Sexp | None:
    return next(children(node, head), None)


def walk(node: Sexp, head: str) -> Iterator[Sexp]:
    """Every element ``(head ...)`` at any depth."""
    for c in node[1:]:
        if isinstance(c, list) and c:
            if c[0] == head:
                yield c
            yield from walk(c, head)


def _property(node: Sexp, name: str) -> str | None:
    for prop in children(node, "property"):
        if len(prop) > 2 and prop[1] == name:
            return str(prop[2])
    return None


def _xy(node: Sexp | None) -> tuple[float, float, float]:
    """(x, y, rotation) of an ``(at x y [rot])`` element."""
    if node is None or len(node) < 3:
        return (math.nan, math.nan, 0.0)
    return (float(node[1]), float(node[2]), float(node[3]) if len(node) > 3 else 0.0)


# --- schematic -------------------------------------------------------------------------------------------------

def schematic_parts(tree: Sexp) -> dict[str, dict[str, Any]]:
    """reference -> {value, footprint, at, lib_id} of every placed symbol. The root sheet's reference comes from
    ``symbol_instances`` when the file has it (KiCad 6 shows that one), else from the Reference property; a
    reference placed twice keeps a list under ``duplicates``."""
    instances: dict[str, str] = {}
    block = child(tree, "symbol_instances")
    for path in children(block, "path") if block else ():
        ref_node = child(path, "reference")
        if ref_node is not None and len(ref_node) > 1:
            instances[str(path[1]).rsplit("/", 1)[-1]] = str(ref_node[1])
    parts: dict[str, dict[str, Any]] = {}
    for sym in children(tree, "symbol"):
        uuid = child(sym, "uuid")
        ref = instances.get(str(uuid[1]) if uuid else "") or _property(sym, "Reference") or "?"
        lib = child(sym, "lib_id")
        entry = {"value": _property(sym, "Value"), "footprint": _property(sym, "Footprint"),
                 "at": _xy(child(sym, "at")), "lib_id": str(lib[1]) if lib else ""}
        if ref in parts:
            parts[ref].setdefault("duplicates", []).append(entry)
        else:
            parts[ref] = entry
    return parts


def _power(parts: Mapping[str, Any]) -> set[str]:
    return {ref for ref, part in parts.items() if ref.startswith("#")}


def sch_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "schematic")
    checks: list[Check] = []

    def load_parts() -> dict[str, dict[str, Any]]:
        return load(ctx, name, "text", lambda p: schematic_parts(read(p, "kicad_sch")))

    for ref, value in sorted((truth.get("values") or {}).items()):
        def check(ref: str = ref, value: str = value) -> None:
            parts = load_parts()
            assert ref in parts, f"{name}: no symbol {ref} (found {', '.join(sorted(parts))})"
            assert parts[ref]["value"] == value, f"{name}: {ref} has the value {parts[ref]['value']!r}, expected {value!r}"
        checks.append((f"{name} {ref} = {value}", check))
    if truth.get("keep_values"):
        def check_keep() -> None:
            parts = load_parts()
            wrong = [f"{ref}: {parts.get(ref, {}).get('value')!r} (expected {value!r})"
                     for ref, value in sorted(truth["keep_values"].items()) if parts.get(ref, {}).get("value") != value]
            assert not wrong, f"{name}: parts the task did not ask to change were changed or lost: {'; '.join(wrong)}"
        checks.append((f"{name} other parts unchanged", check_keep))
    if truth.get("annotated"):
        def check_annotated() -> None:
            parts = load_parts()
            refs = sorted(set(parts) - _power(parts))
            dups = sorted(ref for ref, part in parts.items() if part.get("duplicates"))
            bad = [ref for ref in refs if not re.fullmatch(r"[A-Z]+[0-9]+", ref)]
            assert not bad, f"{name}: not annotated: {', '.join(bad)}"
            assert not dups, f"{name}: references used twice: {', '.join(dups)}"
            counts = {prefix: sum(1 for r in refs if re.fullmatch(prefix + r"[0-9]+", r))
                      for prefix in truth["annotated"]}
            assert counts == dict(truth["annotated"]), f"{name}: parts per prefix {counts}, expected {truth['annotated']}"
        checks.append((f"{name} every part annotated, references unique", check_annotated))
    if "symbols" in truth:
        def check_count() -> None:
            parts = load_parts()
            n = sum(1 + len(p.get("duplicates", [])) for ref, p in parts.items() if not ref.startswith("#"))
            assert n == truth["symbols"], f"{name}: {n} placed symbols, expected {truth['symbols']}"
        checks.append((f"{name} has {truth['symbols']} symbols", check_count))
    for text in truth.get("texts") or []:
        def check_text(text: str = text) -> None:
            tree = load(ctx, name, "text", lambda p: read(p, "kicad_sch"))
            found = [str(t[1]) for t in children(tree, "text") if len(t) > 1]
            assert any(f.strip() == text for f in found), f"{name}: no schematic text {text!r} (texts: {found!r})"
        checks.append((f"{name} text {text!r}", check_text))
    return checks


# --- board -----------------------------------------------------------------------------------------------------

def board_footprints(tree: Sexp) -> dict[str, dict[str, Any]]:
    """reference -> {at (x, y, rot), layer, value, pads {number: (x, y, net name)}} of every footprint."""
    out: dict[str, dict[str, Any]] = {}
    for fp in children(tree, "footprint"):
        texts = {str(t[1]): str(t[2]) for t in children(fp, "fp_text") if len(t) > 2}
        ref = texts.get("reference") or _property(fp, "Reference") or "?"
        value = texts.get("value") or _property(fp, "Value")
        x, y, rot = _xy(child(fp, "at"))
        layer = child(fp, "layer")
        pads = {}
        for pad in children(fp, "pad"):
            px, py, _ = _xy(child(pad, "at"))
            a = math.radians(rot)
            # KiCad's y axis points down; a footprint rotated by +rot turns its pads counter-clockwise on screen
            ax, ay = x + px * math.cos(a) + py * math.sin(a), y - px * math.sin(a) + py * math.cos(a)
            net = child(pad, "net")
            pads[str(pad[1])] = (ax, ay, str(net[2]) if net is not None and len(net) > 2 else "")
        out[ref] = {"at": (x, y, rot), "layer": str(layer[1]) if layer else "", "value": value, "pads": pads}
    return out


def _nets(tree: Sexp) -> dict[str, str]:
    return {str(n[1]): str(n[2]) for n in children(tree, "net") if len(n) > 2}


def _joined(segments: list[tuple[tuple[float, float], tuple[float, float]]], a: tuple[float, float],
            b: tuple[float, float], reach: float = 0.6) -> bool:
    """Whether a chain of segments runs from within ``reach`` mm of point ``a`` to within ``reach`` of ``b``."""
    def near(p: tuple[float, float], q: tuple[float, float], r: float = 0.01) -> bool:
        return math.dist(p, q) <= r

    frontier = [p for s in segments for p in s if near(p, a, reach)]
    seen: set[tuple[float, float]] = set()
    while frontier:
        p = frontier.pop()
        if p in seen:
            continue
        seen.add(p)
        if near(p, b, reach):
            return True
        for s in segments:
            if near(s[0], p):
                frontier.append(s[1])
            elif near(s[1], p):
                frontier.append(s[0])
    return False


def pcb_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "board")
    checks: list[Check] = []

    def load_board() -> Sexp:
        return load(ctx, name, "text", lambda p: read(p, "kicad_pcb"))

    for ref, want in sorted((truth.get("footprints") or {}).items()):
        def check(ref: str = ref, want: Mapping[str, Any] = want) -> None:
            fps = board_footprints(load_board())
            assert ref in fps, f"{name}: no footprint {ref} (found {', '.join(sorted(fps))})"
            fp = fps[ref]
            if "at" in want:
                x, y = want["at"]
                assert math.dist(fp["at"][:2], (x, y)) <= 0.01, (
                    f"{name}: {ref} is at ({fp['at'][0]:g}, {fp['at'][1]:g}), expected ({x:g}, {y:g})")
            if "rotation" in want:
                assert (fp["at"][2] - want["rotation"]) % 360 < 0.01 or (want["rotation"] - fp["at"][2]) % 360 < 0.01, (
                    f"{name}: {ref} is rotated {fp['at'][2]:g}°, expected {want['rotation']:g}°")
            if "layer" in want:
                assert fp["layer"] == want["layer"], f"{name}: {ref} is on {fp['layer']}, expected {want['layer']}"
            if "value" in want:
                assert fp["value"] == want["value"], f"{name}: {ref} has the value {fp['value']!r}, expected {want['value']!r}"
        checks.append((f"{name} footprint {ref} {', '.join(f'{k} {v}' for k, v in sorted(want.items()))}", check))
    if truth.get("keep_at"):
        def check_keep() -> None:
            fps = board_footprints(load_board())
            moved = [f"{ref}: {fps[ref]['at'][:2] if ref in fps else 'missing'}" for ref, (x, y) in
                     sorted(truth["keep_at"].items()) if ref not in fps or math.dist(fps[ref]["at"][:2], (x, y)) > 0.01]
            assert not moved, f"{name}: footprints the task did not ask to move were moved or removed: {'; '.join(moved)}"
        checks.append((f"{name} other footprints in place", check_keep))
    for spec in truth.get("texts") or []:
        def check_text(spec: Mapping[str, Any] = spec) -> None:
            texts = [(str(t[1]), str((child(t, "layer") or ["", ""])[1])) for t in children(load_board(), "gr_text")]
            assert any(t.strip() == spec["text"] and (not spec.get("layer") or layer == spec["layer"])
                       for t, layer in texts), f"{name}: no board text {spec['text']!r} on {spec.get('layer', 'any layer')} (texts: {texts!r})"
        checks.append((f"{name} text {spec['text']!r}", check_text))
    for spec in truth.get("tracks") or []:
        def check_track(spec: Mapping[str, Any] = spec) -> None:
            tree = load_board()
            nets, fps = _nets(tree), board_footprints(tree)
            segments = []
            for seg in children(tree, "segment"):
                net = child(seg, "net")
                if net is not None and nets.get(str(net[1])) == spec["net"]:
                    s, e = child(seg, "start"), child(seg, "end")
                    if s is not None and e is not None and len(s) > 2 and len(e) > 2:
                        segments.append(((float(s[1]), float(s[2])), (float(e[1]), float(e[2]))))
            assert segments, f"{name}: no track on net {spec['net']}"
            ends = []
            for pad in (spec["from"], spec["to"]):
                ref, num = pad.split(".")
                assert ref in fps and num in fps[ref]["pads"], f"{name}: no pad {pad}"
                ends.append(fps[ref]["pads"][num][:2])
            assert _joined(segments, ends[0], ends[1]), (
                f"{name}: the {len(segments)} track segment(s) of net {spec['net']} do not join {spec['from']} "
                f"and {spec['to']}")
        checks.append((f"{name} track {spec['from']}-{spec['to']} on {spec['net']}", check_track))
    if "thickness" in truth:
        def check_thickness() -> None:
            general = child(load_board(), "general")
            value = child(general, "thickness") if general else None
            got = float(value[1]) if value else math.nan
            assert abs(got - float(truth["thickness"])) < 1e-6, f"{name}: board thickness {got} mm, expected {truth['thickness']}"
        checks.append((f"{name} thickness {truth['thickness']} mm", check_thickness))
    return checks


# --- netlist ---------------------------------------------------------------------------------------------------

def netlist(tree: Sexp) -> tuple[dict[str, str], dict[str, set[str]]]:
    """({ref: value}, {net name without the leading '/': {"R1.2", ...}}) of a KiCad netlist."""
    comps = {}
    block = child(tree, "components")
    for comp in children(block, "comp") if block else ():
        ref, value = child(comp, "ref"), child(comp, "value")
        if ref is not None:
            comps[str(ref[1])] = str(value[1]) if value is not None else ""
    nets: dict[str, set[str]] = {}
    block = child(tree, "nets")
    for net in children(block, "net") if block else ():
        label = child(net, "name")
        key = str(label[1]).lstrip("/") if label is not None else ""
        nodes = {f"{child(n, 'ref')[1]}.{child(n, 'pin')[1]}" for n in children(net, "node")  # type: ignore[index]
                 if child(n, "ref") is not None and child(n, "pin") is not None}
        nets[key] = nets.get(key, set()) | nodes
    return comps, nets


def net_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "netlist")
    checks: list[Check] = []

    def load_netlist() -> tuple[dict[str, str], dict[str, set[str]]]:
        return load(ctx, name, "text", lambda p: netlist(read(p, "export")))

    if truth.get("components"):
        def check_components() -> None:
            comps, _ = load_netlist()
            assert comps == dict(truth["components"]), f"{name}: components {comps}, expected {truth['components']}"
        checks.append((f"{name} lists the {len(truth['components'])} components", check_components))
    for net, nodes in sorted((truth.get("nets") or {}).items()):
        def check_net(net: str = net, nodes: list[str] = nodes) -> None:
            _, nets = load_netlist()
            assert net in nets, f"{name}: no net {net!r} (nets: {', '.join(sorted(nets))})"
            assert nets[net] == set(nodes), f"{name}: net {net} joins {sorted(nets[net])}, expected {sorted(nodes)}"
        checks.append((f"{name} net {net}", check_net))
    return checks


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "kicad_sch": sch_checks, "kicad_pcb": pcb_checks, "kicad_netlist": net_checks}
