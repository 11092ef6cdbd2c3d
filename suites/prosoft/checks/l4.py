"""L4 open creation: checkable constraints on the file the agent made, plus a rubric judged by a model.

Kind ``creation``. Ground truth::

    {"artifact": "logo", "format": "svg",            # svg, odt, odp, xlsx, png
     "constraints": {...},                            # each key below is one milestone (or one per entry)
     "rubric": ["The logo reads NORTHWIND", ...],     # one milestone per item, judged by --cua-judge
     "render": "inkscape"}                            # how the judge sees the file: inkscape, soffice, png

Constraints (the file must exist for any of them to hold):

- ``texts`` [strings]: each occurs in the document's text (SVG text, ODF paragraphs, cells), one milestone each
- ``shapes`` {"circle|ellipse": n}: an SVG holds at least n elements of those tags (alternatives by ``|``)
- ``page`` {"width_mm", "height_mm", "tolerance_mm"}: the ODF page (or the SVG's width/height in px when
  ``px`` is given instead)
- ``heading`` text: the paragraph holding it is a level-1 heading (ODF ``text:h`` level 1 or style Heading 1)
- ``centred`` text: the paragraph holding it is centred
- ``list_items`` n: a list with at least n items
- ``chart`` {"series_range": "B2:B5"}: the workbook has a chart whose series values come from that range
- ``image`` {"width", "height"}: a PNG of that size
- ``ink`` fraction: at least that share of the image differs from white
- ``grayscale`` true: every pixel is grey (R, G and B within 8 of each other)

The rubric goes to ``pytest_cua.episode.judge.rubric_checks`` with a rendering of the artifact made in the container
(``inkscape --export-type=png``, ``soffice --headless --convert-to png``) or the PNG itself. Without a judge the
rubric milestones are skipped: the task is partially scored, never passed.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

from pytest_cua import EvalContext
from pytest_cua.episode.judge import rubric_checks

from ..artifacts import Check, load
from ..artifacts import artifact as _artifact, squash as _squash
from ..namespaces import CHART, DRAW, FO, STYLE, SVG_NS, TEXT

T = TypeVar("T")
C_NS = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
RENDER_DIR = "/tmp/cua-render"
_UNITS_MM = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96}


# --- reading the formats --------------------------------------------------------------------------------------

def _xml(path: Path, member: str | None = None) -> Any:
    from lxml import etree

    if member is None:
        return etree.parse(str(path)).getroot()
    with zipfile.ZipFile(path) as z:
        return etree.fromstring(z.read(member))


def document_text(path: Path, fmt: str) -> str:
    """All the text of a document, paragraphs joined by newlines."""
    if fmt == "svg":
        root = _xml(path)
        return "\n".join(_squash("".join(t.itertext())) for t in root.iter(f"{SVG_NS}text"))
    if fmt in ("odt", "odp", "ods"):
        root = _xml(path, "content.xml")
        return "\n".join(_squash("".join(p.itertext())) for p in root.iter(f"{TEXT}p", f"{TEXT}h"))
    if fmt == "xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path, data_only=True)
        return "\n".join(str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row
                         if c.value is not None)
    raise ValueError(f"creation: no text in a {fmt!r} file")


def _length_mm(value: str | None) -> float | None:
    match = re.fullmatch(r"\s*([0-9.]+)\s*([a-z]*)\s*", value or "")
    if not match:
        return None
    unit = match.group(2) or "px"
    return float(match.group(1)) * _UNITS_MM[unit] if unit in _UNITS_MM else None


def odf_page_mm(path: Path) -> tuple[float, float]:
    """The page size in mm of the document's pages: the page layout of the master page the first slide uses
    (a presentation), else of the master page ``Standard`` (a text), else of the first master page. Handout and
    notes layouts, which LibreOffice writes too, are not the page."""
    styles, content = _xml(path, "styles.xml"), _xml(path, "content.xml")
    layouts = {el.get(f"{STYLE}name"): el for el in styles.iter(f"{STYLE}page-layout")}
    masters = {el.get(f"{STYLE}name"): el.get(f"{STYLE}page-layout-name") for el in styles.iter(f"{STYLE}master-page")}
    used = [p.get(f"{DRAW}master-page-name") for p in content.iter(f"{DRAW}page")] + ["Standard", *masters]
    for master in used:
        layout = layouts.get(masters.get(master))
        props = layout.find(f"{STYLE}page-layout-properties") if layout is not None else None
        if props is not None:
            width, height = _length_mm(props.get(f"{FO}page-width")), _length_mm(props.get(f"{FO}page-height"))
            if width and height:
                return width, height
    raise AssertionError(f"{path.name}: no page size in styles.xml")


def _paragraph_style(path: Path, needle: str) -> tuple[Any, dict[str, Any]]:
    """The ODF paragraph (or heading) holding ``needle`` and the styles by name (automatic and common)."""
    content = _xml(path, "content.xml")
    styles_root = _xml(path, "styles.xml")
    styles = {s.get(f"{STYLE}name"): s for root in (content, styles_root) for s in root.iter(f"{STYLE}style")}
    for p in content.iter(f"{TEXT}p", f"{TEXT}h"):
        if needle in _squash("".join(p.itertext())):
            return p, styles
    raise AssertionError(f"{path.name}: no paragraph holds {needle!r}")


def _style_chain(name: str | None, styles: Mapping[str, Any]) -> list[Any]:
    chain, seen = [], set()
    while name and name in styles and name not in seen:
        seen.add(name)
        chain.append(styles[name])
        name = styles[name].get(f"{STYLE}parent-style-name")
    return chain


def _chart_ranges(path: Path, fmt: str) -> list[str]:
    """The cell ranges the workbook's charts take their series values from ('' for a chart with none)."""
    ranges: list[str] = []
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if fmt == "xlsx":
            for name in names:
                if re.fullmatch(r"xl/charts/chart\d+\.xml", name):
                    root = _xml(path, name)
                    found = [f.text or "" for ser in root.iter(f"{C_NS}ser") for val in ser.iter(f"{C_NS}val")
                             for f in val.iter(f"{C_NS}f")]
                    ranges += found or [""]
        else:
            for name in names:
                if name.endswith("content.xml") and name != "content.xml":
                    root = _xml(path, name)
                    if root.find(f".//{CHART}chart") is not None:
                        found = [s.get(f"{CHART}values-cell-range-address") or "" for s in root.iter(f"{CHART}series")]
                        ranges += found or [""]
    return ranges


def cell_range(address: str) -> str:
    """``Revenue!$B$2:$B$5`` or ``Revenue.B2:Revenue.B5`` (ODF) as ``B2:B5``."""
    return re.sub(r"[^.!:]*[.!]", "", address.replace("$", "")).upper()


# --- constraint milestones ----------------------------------------------------------------------------------------

def constraint_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, fmt = truth.get("artifact", "result"), truth["format"]
    cons: Mapping[str, Any] = truth.get("constraints") or {}
    checks: list[Check] = []

    def read(reader: Callable[[Path], T]) -> T:
        """``reader`` of the artifact, once it is there and a ``fmt`` file (by content)."""
        return load(ctx, name, fmt, reader)

    def exists() -> None:
        _artifact(ctx, name, fmt)
    checks.append((f"{name} saved as {fmt}", exists))

    for text in cons.get("texts") or []:
        def has_text(text: str = text) -> None:
            found = read(lambda p: document_text(p, fmt))
            assert text in found, f"{name}: the text {text!r} is missing (found {_squash(found)[:200]!r})"
        checks.append((f"{name} has text {text!r}", has_text))

    for tags, least in sorted((cons.get("shapes") or {}).items()):
        def has_shapes(tags: str = tags, least: int = least) -> None:
            wanted = {f"{SVG_NS}{t}" for t in tags.split("|")}
            found = [el for el in read(_xml).iter() if el.tag in wanted]
            assert len(found) >= least, f"{name}: {len(found)} <{tags}> element(s), expected at least {least}"
        checks.append((f"{name} has at least {least} {tags}", has_shapes))

    if "page" in cons:
        page = cons["page"]

        def page_size() -> None:
            if "px" in page:
                root = read(_xml)
                got = (root.get("width"), root.get("height"))
                want = tuple(str(v) for v in page["px"])
                assert tuple(re.sub(r"px$", "", g or "") for g in got) == want, (
                    f"{name}: the drawing is {got[0]} x {got[1]}, expected {want[0]} x {want[1]} px")
                return
            width, height = read(odf_page_mm)
            tol = float(page.get("tolerance_mm", 2))
            assert abs(width - page["width_mm"]) <= tol and abs(height - page["height_mm"]) <= tol, (
                f"{name}: the page is {width:.0f} x {height:.0f} mm, expected {page['width_mm']} x "
                f"{page['height_mm']} mm")
        checks.append((f"{name} page size", page_size))

    if "heading" in cons:
        def heading() -> None:
            p, styles = read(lambda path: _paragraph_style(path, cons["heading"]))
            level = p.get(f"{TEXT}outline-level") if p.tag == f"{TEXT}h" else None
            names = [s.get(f"{STYLE}name") or "" for s in _style_chain(p.get(f"{TEXT}style-name"), styles)]
            assert level == "1" or any(n in ("Heading_20_1", "Heading 1") for n in names), (
                f"{name}: {cons['heading']!r} is not a level-1 heading (styles {names or 'none'})")
        checks.append((f"{name} {cons['heading']!r} is a heading", heading))

    if "centred" in cons:
        def centred() -> None:
            p, styles = read(lambda path: _paragraph_style(path, cons["centred"]))
            aligns = [props.get(f"{FO}text-align") for s in _style_chain(p.get(f"{TEXT}style-name"), styles)
                      for props in s.iter(f"{STYLE}paragraph-properties") if props.get(f"{FO}text-align")]
            assert aligns and aligns[0] == "center", (
                f"{name}: {cons['centred']!r} is aligned {aligns[0] if aligns else 'by default (start)'}, not centred")
        checks.append((f"{name} {cons['centred']!r} centred", centred))

    if "list_items" in cons:
        def list_items() -> None:
            root = read(lambda path: _xml(path, "content.xml"))
            counts = [len(lst.findall(f"{TEXT}list-item")) for lst in root.iter(f"{TEXT}list")]
            assert counts and max(counts) >= cons["list_items"], (
                f"{name}: the longest list has {max(counts) if counts else 0} item(s), expected at least "
                f"{cons['list_items']}")
        checks.append((f"{name} list of {cons['list_items']} items", list_items))

    if "chart" in cons:
        want = str(cons["chart"].get("series_range", "")).replace("$", "").upper()

        def chart() -> None:
            ranges = read(lambda path: _chart_ranges(path, fmt))
            assert ranges, f"{name}: the workbook has no chart"
            assert not want or want in {cell_range(r) for r in ranges}, (
                f"{name}: the chart's series come from {ranges}, expected {want}")
        checks.append((f"{name} has a chart of {want or 'the data'}", chart))

    if "image" in cons:
        def image_size() -> None:
            from PIL import Image

            got = read(lambda path: Image.open(path).size)
            want = (int(cons["image"]["width"]), int(cons["image"]["height"]))
            assert got == want, f"{name}: {got[0]} x {got[1]} px, expected {want[0]} x {want[1]}"
        checks.append((f"{name} is {cons['image']['width']} x {cons['image']['height']} px", image_size))

    if "ink" in cons:
        def ink() -> None:
            from PIL import Image, ImageChops

            image = read(lambda path: Image.open(path).convert("RGB"))
            diff = ImageChops.difference(image, Image.new("RGB", image.size, (255, 255, 255)))
            share = sum(diff.convert("L").point(lambda v: 255 if v > 32 else 0).histogram()[255:]) / (
                image.width * image.height)
            assert share >= float(cons["ink"]), f"{name}: only {share:.1%} of the image differs from white"
        checks.append((f"{name} is not blank", ink))

    if cons.get("grayscale"):
        def grayscale() -> None:
            from PIL import Image

            image = read(lambda path: Image.open(path).convert("RGB"))
            r, g, b = image.split()
            from PIL import ImageChops

            spread = max(ImageChops.difference(r, g).getextrema()[1], ImageChops.difference(g, b).getextrema()[1],
                         ImageChops.difference(r, b).getextrema()[1])
            assert spread <= 8, f"{name}: has colour (channels differ by up to {spread}), not greys only"
        checks.append((f"{name} is greyscale", grayscale))
    return checks


# --- the rendering the judge sees -----------------------------------------------------------------------------------

def _fetch(ctx: EvalContext, src: str, dest: Path) -> Path:
    """Copy ``src`` out of the container (the environment's executor client)."""
    get_file = getattr(ctx.env, "get_file", None)
    if callable(get_file):
        return Path(get_file(src, dest))
    box = getattr(ctx.env, "box", None)
    client = getattr(box, "client", None)
    if client is None:
        raise RuntimeError(f"environment {type(ctx.env).__name__} cannot hand out files for rendering")
    return Path(client.get_file(src, dest))


def render(ctx: EvalContext, truth: Mapping[str, Any]) -> bytes:
    """PNG bytes of the artifact as the judge sees it: converted in the container (before the rollback)."""
    name, how = truth.get("artifact", "result"), truth.get("render", "png")
    host = _artifact(ctx, name)
    if how == "png":
        return host.read_bytes()
    source = str((ctx.task.extra.get("artifacts") or {})[name])
    stem = Path(source).stem
    out = f"{RENDER_DIR}/{stem}.png"
    if how == "inkscape":
        argv = ["inkscape", "--export-type=png", f"--export-filename={out}", "--export-background=white",
                "--export-background-opacity=1", "--export-width=1200", source]
    elif how == "soffice":
        argv = ["soffice", "-env:UserInstallation=file:///tmp/cua-render-profile", "--headless", "--norestore",
                "--convert-to", "png", "--outdir", RENDER_DIR, source]
    else:
        raise ValueError(f"creation: unknown render {how!r} (inkscape, soffice, png)")
    ctx.env.run(["mkdir", "-p", RENDER_DIR])
    result = ctx.env.run(argv, timeout=180)
    if result.get("returncode") != 0:
        raise RuntimeError(f"rendering {source} for the judge failed ({' '.join(argv[:2])}...): "
                           f"{(result.get('stderr') or '')[-500:]}")
    return _fetch(ctx, out, host.parent / f"{name}-render.png").read_bytes()


def creation_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    """The constraints' milestones, then one per rubric item (judged on the rendering)."""
    if truth.get("format") not in ("svg", "odt", "odp", "ods", "xlsx", "png"):
        raise ValueError(f"creation: format must be svg, odt, odp, ods, xlsx or png, got {truth.get('format')!r}")
    checks = constraint_checks(ctx, truth)
    rubric = list(truth.get("rubric") or [])
    if rubric:
        what = f"a rendering of the saved {truth['format']} file ({truth.get('artifact', 'result')})"
        checks += rubric_checks(ctx, rubric, lambda: render(ctx, truth), context=what)
    return checks


KINDS = {"creation": creation_checks}
