"""L4 open creation on the programs ``l4.py``'s ``creation`` does not read: a LibreCAD drawing (DXF), a script
written in VS Code (Python), a FreeCAD part (FCStd), a BKChem structure (CDML) and a map QGIS exported (PNG with
colour constraints). Checkable constraints on the saved file, then the rubric, judged by ``--cua-judge`` on a
rendering (as in ``l4.py``: without a judge the rubric is skipped and the task is partially scored).

Kind ``creation_more``. Ground truth: ``artifact``, ``format`` (``dxf``, ``py``, ``fcstd``, ``cdml``, ``png``),
``constraints`` (each key one milestone, or one per entry), ``rubric`` [items]. Constraints by format:

- ``dxf`` (ezdxf): ``texts`` [strings each some TEXT/MTEXT holds]; ``entities`` {DXF type: n} (at least n in
  model space); ``layers`` n (at least n layers besides ``0`` and ``Defpoints`` that hold entities);
  ``outline`` {"size": [w, h], "tolerance": t}: an axis-parallel rectangle of that size anywhere (a closed
  polyline of four corners, or four lines); ``extents`` {"max": [w, h]}: everything fits in that size
- ``py``: ``functions`` n (at least n ``def``s, parsed with ``ast``: the file must be Python); ``docstring``
  (the module has one); ``output`` {"args": [...], "stdout": "..."}: ``python3 FILE ARGS`` run in the container
  prints exactly that (trailing white space aside)
- ``fcstd``: ``types`` {type: n} (at least n objects of the type in Document.xml); ``solid`` {"object": types or
  names separated by ``|``, "size": [x, y, z], "tolerance": mm, "volume_below": fraction}: the last object of the
  document that is one of them (the final feature) has a shape (measured by ``freecadcmd`` in the container) that
  is a valid solid whose bounding box has that size in any orientation, and whose volume is below that fraction of
  the box's (material was taken away)
- ``cdml`` (``chem.py``'s reader): ``atoms`` {element: n} (at least n heavy atoms of each); ``groups`` [names]
  the structure contains: ``ester`` (C(=O)-O-C), ``carboxylic_acid`` (C(=O)-O-H), ``ketone`` (C-C(=O)-C),
  ``aromatic_ring`` (a six-ring of alternating single and double bonds)
- ``kicad_sch`` (``kicad.py``'s reader): ``title_block`` [fields: ``title``, ``rev``, ``date``, ``company``]:
  each filled in; ``note_words`` n: a text placed on the sheet has at least n words; ``keep_values`` {ref:
  value}: the circuit's parts keep their values (documenting is not redesigning)
- ``taguette`` (the project database, ``taguette.py``'s reader): ``new_tags`` {"count": n, "description_words":
  w}: at least n tags beyond the start codebook, each described in at least w words; ``coded`` n: at least n
  highlights carry one of the new tags; ``keeps_documents``: the start project keeps its documents
- ``wrdata`` (what ngspice's ``wrdata FILE vdb(out)`` writes after an AC sweep, ``circuit.py``'s reader):
  ``x_range`` [lo, hi]: the sweep covers it (within 1 %); ``crossing`` {"level": dB, "between": [f1, f2]}: the
  curve first falls through that level (relative to its value at the lowest frequency) between f1 and f2, log-
  interpolated (a low-pass's corner); ``rolloff`` {"from": f1, "to": f2, "at_least": dB}: it falls by at least
  that much between f1 and f2
- ``png``: ``image`` {"width", "height"}; ``ink``; ``colours`` n: at least n distinct colours (quantised to 4
  levels per channel, so that a gradient counts by the colours it spans; every grey, white and black count as
  one) each covering at least 1 % of the picture

Renderings for the judge: a DXF drawn on the host with ezdxf's drawing add-on (matplotlib, the ``report``
extra); a Python file as a picture of its text; a schematic as a page listing its title block, its notes and its
parts (KiCad 6 has no command line to plot one); a Taguette project as a page of its new tags, their descriptions and the
passages coded with them; an ngspice sweep drawn as a Bode plot; a FreeCAD document's own thumbnail, else its solid's triangles
(``freecadcmd`` tessellates it in the container) drawn in an isometric view; a CDML structure drawn as atoms and
bonds; a PNG as it is.
"""

from __future__ import annotations

import ast
import io
import math
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

from pytest_cua import EvalContext
from pytest_cua.episode.judge import rubric_checks

from ..artifacts import Check, load
from ..artifacts import artifact as _artifact
from ..artifacts import reading
from .chem import Graph, hydrogens, parse_cdml
from .engineering_common import container_path, run_json
from .freecad import SHAPE_SCRIPT, document
from .librecad import _entities, _text_value, read_dxf
from .l4 import constraint_checks
from .librecad_more import polyline_points

T = TypeVar("T")
FORMATS: dict[str, str | None] = {"dxf": "text", "py": "text", "fcstd": "fcstd", "cdml": "text", "png": "png", "kicad_sch": "text",
           "taguette": None, "wrdata": "text"}  # no file type of artifacts.py: the database reader says what else it is


# --- DXF ------------------------------------------------------------------------------------------------------------

def _rectangles(doc: Any) -> list[tuple[float, float]]:
    """(width, height) of every axis-parallel rectangle drawn as one closed polyline or as four lines."""
    sizes = []
    for e in _entities(doc, "LWPOLYLINE", "POLYLINE"):
        points, closed, bulged = polyline_points(e)
        if closed and not bulged and len(points) == 4:
            xs, ys = sorted({round(p[0], 6) for p in points}), sorted({round(p[1], 6) for p in points})
            if len(xs) == 2 and len(ys) == 2:
                sizes.append((xs[1] - xs[0], ys[1] - ys[0]))
    ends: Counter[tuple[float, float]] = Counter()
    segments = set()
    for e in _entities(doc, "LINE"):
        a, b = (round(float(e.dxf.start[0]), 6), round(float(e.dxf.start[1]), 6)), (
            round(float(e.dxf.end[0]), 6), round(float(e.dxf.end[1]), 6))
        segments.add(frozenset((a, b)))
        ends.update((a, b))
    corners = [p for p in ends]
    for p in corners:
        for q in corners:
            if q[0] > p[0] and q[1] > p[1]:
                r, s = (q[0], p[1]), (p[0], q[1])
                if {frozenset((p, r)), frozenset((r, q)), frozenset((q, s)), frozenset((s, p))} <= segments:
                    sizes.append((q[0] - p[0], q[1] - p[1]))
    return sizes


def _extents(doc: Any) -> tuple[float, float]:
    from ezdxf import bbox

    box = bbox.extents(doc.modelspace())
    if not box.has_data:
        return 0.0, 0.0
    return float(box.size.x), float(box.size.y)


def dxf_constraints(name: str, cons: Mapping[str, Any], read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    checks: list[Check] = []

    def doc() -> Any:
        return read(read_dxf)

    for text in cons.get("texts") or []:
        def has_text(text: str = text) -> None:
            found = [_text_value(e) for e in _entities(doc(), "TEXT", "MTEXT")]
            assert any(text.lower() in f.lower() for f in found), f"{name}: no text {text!r} (texts: {found[:12]})"
        checks.append((f"{name} has text {text!r}", has_text))
    for dxftype, least in sorted((cons.get("entities") or {}).items()):
        def has_entities(dxftype: str = dxftype, least: int = least) -> None:
            n = len(_entities(doc(), dxftype))
            assert n >= int(least), f"{name}: {n} {dxftype} entities, expected at least {least}"
        checks.append((f"{name} has at least {least} {dxftype}", has_entities))
    if "layers" in cons:
        def layers() -> None:
            used = sorted({str(e.dxf.layer) for e in doc().modelspace()} - {"0", "Defpoints", "DEFPOINTS"})
            assert len(used) >= int(cons["layers"]), (
                f"{name}: entities on {len(used)} layer(s) besides 0 ({', '.join(used) or 'none'}), expected at "
                f"least {cons['layers']}")
        checks.append((f"{name} uses at least {cons['layers']} layers", layers))
    if "outline" in cons:
        w, h = (float(v) for v in cons["outline"]["size"])
        tol = float(cons["outline"].get("tolerance", 0.01))

        def outline() -> None:
            sizes = _rectangles(doc())
            assert any(abs(a - w) <= tol and abs(b - h) <= tol for a, b in sizes), (
                f"{name}: no rectangle of {w:g} x {h:g} (rectangles: {[(round(a, 2), round(b, 2)) for a, b in sizes]})")
        checks.append((f"{name} has a {w:g} x {h:g} outline", outline))
    if "extents" in cons:
        mw, mh = (float(v) for v in cons["extents"]["max"])

        def extents() -> None:
            w, h = _extents(doc())
            assert w <= mw + 1e-6 and h <= mh + 1e-6, f"{name}: the drawing spans {w:.1f} x {h:.1f}, more than {mw:g} x {mh:g}"
        checks.append((f"{name} fits in {mw:g} x {mh:g}", extents))
    return checks


def render_dxf(path: Path) -> bytes:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from ezdxf.addons.drawing import Frontend, RenderContext
        from ezdxf.addons.drawing.config import BackgroundPolicy, ColorPolicy, Configuration
        from ezdxf.addons.drawing.matplotlib import MatplotlibBackend
    except ImportError as exc:  # the judge needs a picture: matplotlib comes with the report extra
        raise RuntimeError(f"rendering a DXF for the judge needs matplotlib (pip install pytest-cua[report]): {exc}")
    doc = read_dxf(path)
    fig = plt.figure(figsize=(8, 6), dpi=150)
    ax = fig.add_axes((0, 0, 1, 1))
    paper = Configuration(background_policy=BackgroundPolicy.WHITE, color_policy=ColorPolicy.BLACK)  # as printed
    Frontend(RenderContext(doc), MatplotlibBackend(ax), config=paper).draw_layout(doc.modelspace(), finalize=True)
    out = io.BytesIO()
    fig.savefig(out, format="png", facecolor="white")
    plt.close(fig)
    return out.getvalue()


# --- Python ---------------------------------------------------------------------------------------------------------

def py_constraints(ctx: EvalContext, name: str, cons: Mapping[str, Any],
                   read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    checks: list[Check] = []

    def tree() -> ast.Module:
        source = read(lambda p: p.read_text(encoding="utf-8"))
        try:
            return ast.parse(source)
        except SyntaxError as exc:
            raise AssertionError(f"{name}: not valid Python ({exc.msg}, line {exc.lineno})") from None

    if "functions" in cons:
        def functions() -> None:
            defs = [n.name for n in ast.walk(tree()) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            assert len(defs) >= int(cons["functions"]), (
                f"{name}: {len(defs)} function(s) ({', '.join(defs) or 'none'}), expected at least {cons['functions']}")
        checks.append((f"{name} defines at least {cons['functions']} function(s)", functions))
    if cons.get("docstring"):
        def docstring() -> None:
            assert ast.get_docstring(tree()), f"{name}: the module has no docstring"
        checks.append((f"{name} has a module docstring", docstring))
    if "output" in cons:
        spec = cons["output"]

        def output() -> None:
            tree()  # present and Python, before anything runs in the container
            argv = ["python3", container_path(ctx, name), *[str(a) for a in spec.get("args", [])]]
            result = ctx.env.run(argv, timeout=60)  # type: ignore[attr-defined]
            got = str(result.get("stdout") or "").rstrip()
            want = str(spec["stdout"]).rstrip()
            assert result.get("returncode") == 0, (
                f"{name}: python3 exited {result.get('returncode')}: {str(result.get('stderr') or '')[-300:]!r}")
            assert got == want, f"{name}: printed {got[:300]!r}, expected {want[:300]!r}"
        args = " ".join(str(a) for a in spec.get("args", []))
        checks.append((f"{name} prints the expected output" + (f" for {args}" if args else ""), output))
    return checks


def render_text(path: Path) -> bytes:
    """A picture of a text file (the judge reads code as a page of text)."""
    from PIL import Image, ImageDraw

    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[:80]
    image = Image.new("RGB", (1000, 16 * max(len(lines), 1) + 20), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((10, 10 + 16 * i), line.expandtabs(4)[:140], fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- FreeCAD --------------------------------------------------------------------------------------------------------

def fcstd_constraints(ctx: EvalContext, name: str, cons: Mapping[str, Any],
                      read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    checks: list[Check] = []
    for type_, least in sorted((cons.get("types") or {}).items()):
        def has_type(type_: str = type_, least: int = least) -> None:
            objects = read(document)
            n = sum(1 for o in objects.values() if o["type"] == type_)
            assert n >= int(least), (f"{name}: {n} {type_} object(s), expected at least {least} "
                                     f"(types: {sorted({o['type'] for o in objects.values()})})")
        checks.append((f"{name} has at least {least} {type_}", has_type))
    if "solid" in cons:
        spec = cons["solid"]

        def solid() -> None:
            objects = read(document)
            keys = str(spec["object"]).split("|")
            found = [n for n, o in objects.items() if {n, o["type"], o["props"].get("Label")} & set(keys)]
            assert found, f"{name}: no object {' or '.join(keys)} (objects: {sorted(objects)})"
            code = SHAPE_SCRIPT.replace("PATH", repr(container_path(ctx, name))).replace("KEY", repr(found[-1]))
            got = run_json(ctx, ["freecadcmd", "-c", code], f"{name}: measuring {found[-1]}")
            assert "error" not in got, f"{name}: {got['error']}"
            assert got["valid"] and got["solids"] >= 1, f"{name}: {found[-1]} is not a valid solid ({got})"
            b = got["bbox"]
            size = sorted((b[3] - b[0], b[4] - b[1], b[5] - b[2]))
            want = sorted(float(v) for v in spec["size"])
            tol = float(spec.get("tolerance", 0.01))
            assert all(abs(g - w) <= tol for g, w in zip(size, want)), (
                f"{name}: {found[-1]} measures {' x '.join(f'{v:g}' for v in size)} mm, expected "
                f"{' x '.join(f'{v:g}' for v in want)}")
            if "volume_below" in spec:
                box = size[0] * size[1] * size[2]
                assert got["volume"] < float(spec["volume_below"]) * box, (
                    f"{name}: {found[-1]} fills {got['volume'] / box:.1%} of its box: nothing was cut away")
        checks.append((f"{name} {spec['object']} is a solid of {' x '.join(str(v) for v in spec['size'])} mm",
                       solid))
    return checks


MESH_SCRIPT = """
import json
import FreeCAD as App
doc = App.openDocument(PATH)
solids = [o for o in doc.Objects if hasattr(o, "Shape") and o.Shape.Solids and all(
    not p.hasExtension("App::GroupExtension") and p.TypeId not in ("Part::Cut", "Part::MultiFuse", "Part::Fuse",
    "Part::Common") for p in o.InList)]
points, triangles = [], []
for o in solids:
    pts, tris = o.Shape.tessellate(0.5)
    base = len(points)
    points += [[p.x, p.y, p.z] for p in pts]
    triangles += [[a + base, b + base, c + base] for a, b, c in tris]
print(json.dumps({"points": points, "triangles": triangles}))
"""


def render_fcstd(ctx: EvalContext, name: str, path: Path) -> bytes:
    """The document's thumbnail; else its top-level solids, tessellated by freecadcmd in the container and drawn
    here in an isometric view, shaded by each triangle's slope."""
    from PIL import Image, ImageDraw

    with zipfile.ZipFile(path) as z:
        thumbnails = [n for n in z.namelist() if n.lower().endswith("thumbnail.png")]
        if thumbnails:
            return z.read(thumbnails[0])
    code = MESH_SCRIPT.replace("PATH", repr(container_path(ctx, name)))
    mesh = run_json(ctx, ["freecadcmd", "-c", code], f"{name}: tessellating for the judge", timeout=180)
    points, triangles = mesh["points"], mesh["triangles"]
    assert triangles, f"{name}: no solid to show the judge"
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    flat = [((x - y) * c, (x + y) * s - z) for x, y, z in points]
    xs, ys = [p[0] for p in flat], [p[1] for p in flat]
    scale = 700 / max(max(xs) - min(xs), max(ys) - min(ys), 1e-6)
    image = Image.new("RGB", (800, 800), "white")
    draw = ImageDraw.Draw(image)

    def depth(t: list[int]) -> float:
        return sum(points[i][0] + points[i][1] + points[i][2] for i in t)

    for t in sorted(triangles, key=depth):
        a, b, d = (points[i] for i in t)
        u, v = [b[k] - a[k] for k in range(3)], [d[k] - a[k] for k in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        light = abs(n[0] * 0.3 + n[1] * 0.5 + n[2] * 0.8) / (math.hypot(*n) or 1)
        grey = int(90 + 140 * light)
        draw.polygon([(50 + (flat[i][0] - min(xs)) * scale, 50 + (flat[i][1] - min(ys)) * scale) for i in t],
                     fill=(grey, grey, grey))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- BKChem ---------------------------------------------------------------------------------------------------------

def _neighbours(graph: Graph) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(graph.atoms))}
    for i, j, order in graph.bonds:
        out[i].append((j, order))
        out[j].append((i, order))
    return out


def has_group(graph: Graph, group: str) -> bool:
    """The structure holds the functional group (hydrogens implicit, as BKChem saves them)."""
    el = [a[0] for a in graph.atoms]
    nb = _neighbours(graph)
    h = hydrogens(graph)

    def carbonyl(c: int) -> bool:
        return el[c] == "C" and any(el[o] == "O" and order == 2 for o, order in nb[c])

    if group in ("ester", "carboxylic_acid"):
        for c in range(len(el)):
            if not carbonyl(c):
                continue
            for o, order in nb[c]:
                if el[o] != "O" or order != 1:
                    continue
                others = [x for x, _ in nb[o] if x != c]
                if group == "ester" and any(el[x] == "C" for x in others):
                    return True
                if group == "carboxylic_acid" and h[o] >= 1:
                    return True
        return False
    if group == "ketone":
        return any(carbonyl(c) and sum(1 for x, order in nb[c] if el[x] == "C" and order == 1) == 2
                   for c in range(len(el)))
    if group == "aromatic_ring":
        return any(_alternating_six_ring(graph, nb, start) for start in range(len(el)))
    raise ValueError(f"creation_more: unknown group {group!r} (ester, carboxylic_acid, ketone, aromatic_ring)")


def _alternating_six_ring(graph: Graph, nb: Mapping[int, list[tuple[int, int]]], start: int) -> bool:
    def walk(path: list[int], orders: list[int]) -> bool:
        if len(path) == 6:
            closing = [order for x, order in nb[path[-1]] if x == start]
            return bool(closing) and sorted([*orders, closing[0]]) == [1, 1, 1, 2, 2, 2] and all(
                a != b for a, b in zip([*orders, closing[0]], [*orders[1:], closing[0], orders[0]]))
        return any(walk([*path, x], [*orders, order]) for x, order in nb[path[-1]] if x not in path)
    return walk([start], [])


def cdml_constraints(name: str, cons: Mapping[str, Any], read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    checks: list[Check] = []

    def graph() -> Graph:
        return read(lambda p: parse_cdml(p.read_text(encoding="utf-8")))

    for element, least in sorted((cons.get("atoms") or {}).items()):
        def atoms(element: str = element, least: int = least) -> None:
            n = sum(1 for a in graph().atoms if a[0] == element)
            assert n >= int(least), f"{name}: {n} {element} atom(s), expected at least {least}"
        checks.append((f"{name} has at least {least} {element}", atoms))
    for group in cons.get("groups") or []:
        def holds(group: str = group) -> None:
            assert has_group(graph(), group), f"{name}: the structure has no {group.replace('_', ' ')} group"
        checks.append((f"{name} has a {group.replace('_', ' ')} group", holds))
    return checks


def render_cdml(path: Path) -> bytes:
    from PIL import Image, ImageDraw

    graph = parse_cdml(path.read_text(encoding="utf-8"))
    assert graph.atoms, f"{path.name}: no atoms to draw"
    xs, ys = [a[1] for a in graph.atoms], [a[2] for a in graph.atoms]
    scale = 600 / max(max(xs) - min(xs), max(ys) - min(ys), 1e-6)

    def at(i: int) -> tuple[float, float]:
        return 100 + (graph.atoms[i][1] - min(xs)) * scale, 100 + (graph.atoms[i][2] - min(ys)) * scale

    image = Image.new("RGB", (800, 800), "white")
    draw = ImageDraw.Draw(image)
    for i, j, order in graph.bonds:
        (x1, y1), (x2, y2) = at(i), at(j)
        dx, dy = y2 - y1, x1 - x2
        length = math.hypot(dx, dy) or 1
        for k in range(order):
            off = (k - (order - 1) / 2) * 8 / length
            draw.line((x1 + dx * off, y1 + dy * off, x2 + dx * off, y2 + dy * off), fill="black", width=3)
    for i, (element, *_) in enumerate(graph.atoms):
        if element != "C":
            x, y = at(i)
            draw.rectangle((x - 10, y - 10, x + 10, y + 10), fill="white")
            draw.text((x - 5, y - 6), element, fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- KiCad ----------------------------------------------------------------------------------------------------------

def _title_block(tree: Any) -> dict[str, str]:
    from .kicad import child

    block = child(tree, "title_block") or []
    fields: dict[str, str] = {}
    for item in block[1:]:
        if isinstance(item, list) and len(item) >= 2:
            key = str(item[0]) if item[0] != "comment" else f"comment {item[1]}"
            fields[key] = str(item[-1])
    return fields


def _notes(tree: Any) -> list[str]:
    from .kicad import children

    return [str(t[1]) for t in children(tree, "text") if len(t) > 1]


def kicad_constraints(name: str, cons: Mapping[str, Any], read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    from .kicad import read as read_sexp
    from .kicad import schematic_parts

    checks: list[Check] = []

    def tree() -> Any:
        return read(lambda p: read_sexp(p, "kicad_sch"))

    if cons.get("title_block"):
        def title_block() -> None:
            fields = _title_block(tree())
            empty = [f for f in cons["title_block"] if not fields.get(f, "").strip()]
            assert not empty, f"{name}: title block fields left empty: {', '.join(empty)} (block: {fields})"
        checks.append((f"{name} title block filled ({', '.join(cons['title_block'])})", title_block))
    if "note_words" in cons:
        def note() -> None:
            notes = _notes(tree())
            assert any(len(n.split()) >= int(cons["note_words"]) for n in notes), (
                f"{name}: no note of {cons['note_words']} words or more on the sheet (texts: {notes or 'none'})")
        checks.append((f"{name} has a note of at least {cons['note_words']} words", note))
    if cons.get("keep_values"):
        def keep_values() -> None:
            parts = schematic_parts(tree())
            changed = [f"{ref} {parts.get(ref, {}).get('value')!r} (was {value!r})"
                       for ref, value in sorted(cons["keep_values"].items()) if parts.get(ref, {}).get("value") != value]
            assert not changed, f"{name}: the circuit changed: {'; '.join(changed)}"
        checks.append((f"{name} keeps the circuit's values", keep_values))
    return checks


def render_kicad(path: Path) -> bytes:
    """A page of text: the title block, the notes and the parts (what the judge needs to grade the wording)."""
    import tempfile

    from .kicad import read as read_sexp
    from .kicad import schematic_parts

    tree = read_sexp(path, "kicad_sch")
    lines = ["Title block:", *(f"  {k}: {v}" for k, v in _title_block(tree).items()), "", "Notes on the sheet:",
             *(f"  {n}" for n in _notes(tree)), "", "Parts:",
             *(f"  {ref}: {part.get('value')}" for ref, part in sorted(schematic_parts(tree).items()))]
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "sheet.txt"
        page.write_text("\n".join(lines), encoding="utf-8")
        return render_text(page)


# --- Taguette -------------------------------------------------------------------------------------------------------

def _codebook(path: Path) -> tuple[Any, int, dict[str, tuple[int, str]]]:
    """(database, project id, tags beyond the start codebook) of a saved Taguette database."""
    from .taguette import PROJECT, Db, start_db

    db = Db(path)
    project = db.project_id(PROJECT)
    before = set(start_db().tags(1))
    return db, project, {t: v for t, v in db.tags(project).items() if t not in before}


def taguette_constraints(name: str, cons: Mapping[str, Any],
                         read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    checks: list[Check] = []
    if "new_tags" in cons:
        want, words = int(cons["new_tags"]["count"]), int(cons["new_tags"].get("description_words", 0))

        def new_tags() -> None:
            _, _, tags = read(_codebook)
            described = [t for t, (_, text) in tags.items() if len((text or "").split()) >= words]
            assert len(described) >= want, (
                f"{name}: {len(described)} new tag(s) described in {words}+ words, expected {want} "
                f"(new tags: {[(t, d) for t, (_, d) in tags.items()] or 'none'})")
        checks.append((f"{name} has {want} new tags described in {words}+ words", new_tags))
    if "coded" in cons:
        def coded() -> None:
            db, _, tags = read(_codebook)
            passages = {h for tag_id, _ in tags.values() for h in db.highlights_of(tag_id)}
            assert len(passages) >= int(cons["coded"]), (
                f"{name}: {len(passages)} passage(s) coded with the new tags, expected {cons['coded']}")
        checks.append((f"{name} codes {cons['coded']} passages with the new tags", coded))
    if cons.get("keeps_documents"):
        def keeps() -> None:
            from .taguette import PROJECT, Db, start_db

            db = read(Db)
            lost = sorted(set(start_db().documents(1)) - set(db.documents(db.project_id(PROJECT))))
            assert not lost, f"{name}: documents of {PROJECT!r} lost: {lost}"
        checks.append((f"{name} keeps the project's documents", keeps))
    return checks


def render_taguette(path: Path) -> bytes:
    import tempfile

    db, project, tags = _codebook(path)
    texts = {(h["document"], h["start"], h["end"]): h["text"] for h in db.highlights(project)}
    lines = ["New tags of the codebook:"]
    for tag, (tag_id, description) in sorted(tags.items()):
        lines += [f"  {tag}: {description}"]
        lines += [f"      - {doc}: {texts.get((doc, a, b), '')}" for doc, a, b in sorted(db.highlights_of(tag_id))]
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "codebook.txt"
        page.write_text("\n".join(lines), encoding="utf-8")
        return render_text(page)


# --- ngspice ------------------------------------------------------------------------------------------------------

def _bode(path: Path) -> tuple[list[float], list[float]]:
    from .circuit import series, wrdata_rows

    xs, ys = series(wrdata_rows(path), 0, path.name)
    assert all(x > 0 for x in xs), f"{path.name}: frequencies must be positive (an AC sweep), got {xs[0]:g}"
    return xs, ys


def spice_constraints(name: str, cons: Mapping[str, Any], read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    from .circuit import interpolate

    checks: list[Check] = []
    if "x_range" in cons:
        lo, hi = (float(v) for v in cons["x_range"])

        def covers() -> None:
            xs, _ = read(_bode)
            assert xs[0] <= lo * 1.01 and xs[-1] >= hi * 0.99, (
                f"{name}: the sweep runs {xs[0]:g} .. {xs[-1]:g} Hz, expected {lo:g} .. {hi:g}")
        checks.append((f"{name} sweeps {lo:g} .. {hi:g} Hz", covers))
    if "crossing" in cons:
        level = float(cons["crossing"]["level"])
        f1, f2 = (float(v) for v in cons["crossing"]["between"])

        def crossing() -> None:
            xs, ys = read(_bode)
            target = ys[0] + level
            k = next((i for i in range(1, len(ys)) if ys[i] <= target), None)
            assert k is not None, f"{name}: the curve never falls {abs(level):g} dB below its start"
            t = (ys[k - 1] - target) / (ys[k - 1] - ys[k]) if ys[k - 1] != ys[k] else 0.0
            f = math.exp(math.log(xs[k - 1]) + t * (math.log(xs[k]) - math.log(xs[k - 1])))
            assert f1 <= f <= f2, f"{name}: it falls {abs(level):g} dB at {f:.1f} Hz, expected {f1:g} .. {f2:g} Hz"
        checks.append((f"{name} falls {abs(level):g} dB between {f1:g} and {f2:g} Hz", crossing))
    if "rolloff" in cons:
        spec = cons["rolloff"]

        def rolloff() -> None:
            xs, ys = read(_bode)
            drop = interpolate(xs, ys, float(spec["from"]), log_x=True) - interpolate(xs, ys, float(spec["to"]),
                                                                                      log_x=True)
            assert drop >= float(spec["at_least"]), (
                f"{name}: it falls {drop:.1f} dB from {spec['from']:g} to {spec['to']:g} Hz, expected at least "
                f"{spec['at_least']:g}")
        checks.append((f"{name} rolls off {spec['at_least']:g} dB from {spec['from']:g} to {spec['to']:g} Hz",
                       rolloff))
    return checks


def render_bode(path: Path) -> bytes:
    """The sweep as a Bode plot (gain in dB over log frequency), with a grid per decade and 10 dB."""
    from PIL import Image, ImageDraw

    xs, ys = _bode(path)
    lx = [math.log10(x) for x in xs]
    top, bottom = math.ceil(max(ys) / 10) * 10, math.floor(min(ys) / 10) * 10
    image = Image.new("RGB", (900, 600), "white")
    draw = ImageDraw.Draw(image)

    def at(x: float, y: float) -> tuple[float, float]:
        return (60 + 800 * (x - lx[0]) / ((lx[-1] - lx[0]) or 1), 40 + 500 * (top - y) / ((top - bottom) or 1))

    for decade in range(math.ceil(lx[0]), math.floor(lx[-1]) + 1):
        draw.line((*at(decade, top), *at(decade, bottom)), fill=(220, 220, 220))
        draw.text((at(decade, bottom)[0] - 10, 545), f"1e{decade}", fill="black")
    for level in range(int(bottom), int(top) + 1, 10):
        draw.line((*at(lx[0], level), *at(lx[-1], level)), fill=(220, 220, 220))
        draw.text((10, at(lx[0], level)[1] - 6), f"{level} dB", fill="black")
    draw.line([at(x, y) for x, y in zip(lx, ys)], fill=(30, 80, 200), width=3)
    draw.text((400, 575), "frequency (Hz)", fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


# --- PNG ------------------------------------------------------------------------------------------------------------

def png_constraints(name: str, cons: Mapping[str, Any], read: Callable[[Callable[[Path], Any]], Any]) -> list[Check]:
    """``colours`` (``l4.py``'s ``constraint_checks`` does ``image``, ``ink`` and ``grayscale``)."""
    checks: list[Check] = []
    if "colours" in cons:
        def colours() -> None:
            from PIL import Image

            image = read(lambda p: Image.open(p).convert("RGB"))
            small = image.resize((200, max(1, round(200 * image.height / image.width))))
            data = small.tobytes()
            counts = Counter("grey" if max(p) - min(p) < 24 else (p[0] // 64, p[1] // 64, p[2] // 64)
                             for p in zip(data[0::3], data[1::3], data[2::3]))
            total = sum(counts.values())
            big = [c for c, n in counts.items() if n / total >= 0.01]
            assert len(big) >= int(cons["colours"]), (
                f"{name}: {len(big)} colour(s) cover at least 1 % of the picture, expected {cons['colours']}")
        checks.append((f"{name} shows at least {cons['colours']} colours", colours))
    return checks


RENDERERS: dict[str, Callable[[Path], bytes]] = {"dxf": render_dxf, "py": render_text, "cdml": render_cdml,
                                                 "kicad_sch": render_kicad, "taguette": render_taguette, "wrdata": render_bode,
                                                 "png": lambda p: p.read_bytes()}


def creation_more_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    fmt = truth.get("format")
    if fmt not in FORMATS:
        raise ValueError(f"creation_more: format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    name = truth.get("artifact", "result")
    cons: Mapping[str, Any] = truth.get("constraints") or {}

    def read(reader: Callable[[Path], T]) -> T:
        kind = FORMATS[fmt]
        if kind is not None:
            return load(ctx, name, kind, reader)
        path = _artifact(ctx, name)
        with reading(name, path, "a Taguette database"):
            return reader(path)

    def exists() -> None:
        _artifact(ctx, name, FORMATS[fmt])
        if fmt == "taguette":
            from .taguette import Db

            read(Db)
        if fmt in ("dxf", "cdml", "py", "kicad_sch"):
            from .kicad import read as read_sexp

            read({"dxf": read_dxf, "cdml": lambda p: parse_cdml(p.read_text(encoding="utf-8")),
                  "py": lambda p: p.read_text(encoding="utf-8"), "kicad_sch": lambda p: read_sexp(p, "kicad_sch")}[fmt])
    checks: list[Check] = [(f"{name} saved as {fmt}", exists)]
    if fmt == "dxf":
        checks += dxf_constraints(name, cons, read)
    elif fmt == "py":
        checks += py_constraints(ctx, name, cons, read)
    elif fmt == "fcstd":
        checks += fcstd_constraints(ctx, name, cons, read)
    elif fmt == "cdml":
        checks += cdml_constraints(name, cons, read)
    elif fmt == "kicad_sch":
        checks += kicad_constraints(name, cons, read)
    elif fmt == "taguette":
        checks += taguette_constraints(name, cons, read)
    elif fmt == "wrdata":
        checks += spice_constraints(name, cons, read)
    else:  # the PNG's file, size, ink and greys as l4.py checks them (its first milestone: saved as png)
        checks = [*constraint_checks(ctx, {"artifact": name, "format": "png", "constraints": cons}),
                  *png_constraints(name, cons, read)]
    rubric = list(truth.get("rubric") or [])
    if rubric:
        what = f"a rendering of the saved {fmt} file ({name})"
        if fmt == "fcstd":
            def picture() -> bytes:
                return render_fcstd(ctx, name, read(lambda p: p))
        else:
            def picture() -> bytes:
                return read(RENDERERS[fmt])
        checks += rubric_checks(ctx, rubric, picture, context=what)
    return checks


KINDS = {"creation_more": creation_more_checks}
