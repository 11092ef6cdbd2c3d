"""ProSoft templates: evaluators that read the artifacts a task copies out of the desktop container.

Every check is a milestone; a task's weights are split evenly over the checks its ground truth asks for, so
they always sum to 1. Artifacts arrive as host paths (``ctx.artifacts[name]``); a missing artifact fails the
milestones that need it (the agent did not save), it is not an error.

Ground-truth keys, by template:

- ``calc``: ``artifact``; ``values`` {cell: number or text} (a number must be stored as a number: the text
  "950" is not 950); ``formulas`` {cell: "SUM(B2:B7)"}; ``formula_match`` "exact" (default: the same formula,
  spaces and case aside; for a task whose instruction names the function) or "equivalent" (a formula referring
  to exactly the cells the expected one does, whose value, computed by ``formulas.py`` over the saved cells, is
  the expected formula's: ``=B2+B3+B4+B5+B6+B7`` for "a formula that sums B2:B7"); ``bold`` [cells];
  ``unchanged_from`` (a fixture workbook: every other cell must keep its value)
- ``writer``: ``artifact``; ``last_paragraphs`` [texts]; ``bold_paragraphs`` [indexes]; ``keeps`` [texts]
- ``r_output``: ``outputs`` {artifact name: ``{"number": x, "tolerance": t}`` or ``{"lines": [..]}`` or
  ``{"csv": {key: number}, "key": column, "value": column, "row_names": false}`` (``row_names`` false: the task
  says "no row names", so a CSV with R's row-name column fails), or ``{"png": {"min_width": .., "size": [w, h],
  "min_ink": ..}}`` (``size``: exactly that many pixels, where the instruction gives them)}
- ``svg``: ``artifact``; ``count`` {tag: n}; ``ids_absent``

These keys are declared (``TRUTH_KEYS``): a task whose ground truth holds another is a collection error.

Every artifact is judged by its content (``artifacts.py``): a file of another type under the expected name (ODF
content as ``.docx``, CSV text as ``.xlsx``, an empty file) fails its milestones with a message saying what it
is; it never crashes the evaluator.

A pipeline task (L3) lists several of these under ``steps``: ``{"steps": [{"template": "r_output", ...},
{"template": "calc", ...}]}``; the weights are split over all steps' checks.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_cua import EvalContext, Template, fixtures_dir, milestone

from . import formulas
from .artifacts import Check, load
from .namespaces import SVG_NS, W_NS

FIXTURES = fixtures_dir("prosoft")  # the start files: package data (the repository's fixtures/prosoft)



def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(actual: Any, expected: Any) -> bool:
    """A cell's value against the expected one: a number only equals a number (a cell holding the text "950" is
    not 950), within 1e-6; anything else compares as stripped text."""
    if _is_number(expected):
        return _is_number(actual) and math.isclose(float(actual), float(expected), rel_tol=1e-6, abs_tol=1e-6)
    return str(actual).strip() == str(expected).strip()


def _shown(value: Any) -> str:
    return f"the text {value!r}" if isinstance(value, str) else repr(value)


def _formula(text: Any) -> str:
    return re.sub(r"\s+", "", str(text or "")).lstrip("=").upper()


# --- checks per kind -----------------------------------------------------------------------------------------

FORMULA_MATCH = ("exact", "equivalent")


def calc_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workbook")
    match = truth.get("formula_match", "exact")
    if match not in FORMULA_MATCH:
        raise ValueError(f"calc ground truth: formula_match must be one of {FORMULA_MATCH}, got {match!r}")
    checks: list[Check] = []

    def load_sheet(formulas: bool) -> Any:
        from openpyxl import load_workbook

        def read(path: Path) -> Any:
            wb = load_workbook(path, data_only=not formulas)
            return wb[truth["sheet"]] if "sheet" in truth else wb.worksheets[0]
        return load(ctx, name, "xlsx", read)

    for cell, expected in sorted((truth.get("values") or {}).items()):
        def check(cell: str = cell, expected: Any = expected) -> None:
            actual = load_sheet(False)[cell].value
            kind = " (a number is asked for)" if _is_number(expected) and isinstance(actual, str) else ""
            assert _same(actual, expected), f"{name}: cell {cell} is {_shown(actual)}, expected {expected!r}{kind}"
        checks.append((f"{name} {cell} = {expected}", check))
    for cell, expected in sorted((truth.get("formulas") or {}).items()):
        def check(cell: str = cell, expected: str = expected) -> None:
            actual = load_sheet(True)[cell].value
            actual = getattr(actual, "text", actual)  # an array formula
            if match == "exact":
                assert _formula(actual) == _formula(expected), (
                    f"{name}: cell {cell} holds {actual!r}, expected the formula ={_formula(expected)}")
            else:
                _check_equivalent(name, cell, actual, expected, load_sheet)
        checks.append((f"{name} {cell} formula", check))
    if truth.get("bold"):
        def check_bold() -> None:
            sheet = load_sheet(True)
            plain = [c for c in truth["bold"] if not sheet[c].font or not sheet[c].font.b]
            assert not plain, f"{name}: not bold: {', '.join(plain)}"
        checks.append((f"{name} bold cells", check_bold))
    if truth.get("unchanged_from"):
        def check_rest() -> None:
            from openpyxl import load_workbook

            before = load_workbook(FIXTURES / truth["unchanged_from"]).worksheets[0]
            after = load_sheet(True)
            touched = set(truth.get("values") or {}) | set(truth.get("formulas") or {})
            changed = [f"{c.coordinate}: {c.value!r} -> {after[c.coordinate].value!r}"
                       for row in before.iter_rows() for c in row
                       if c.coordinate not in touched and not _same(after[c.coordinate].value, c.value)]
            assert not changed, f"{name}: cells the task did not ask to change were changed: {'; '.join(changed)}"
        checks.append((f"{name} other cells unchanged", check_rest))
    return checks


def _check_equivalent(name: str, cell: str, actual: Any, expected: str, load_sheet: Callable[[bool], Any]) -> None:
    """``actual`` (the cell's content) is a formula that refers to exactly the cells ``expected`` refers to and
    has its value, both computed over the saved workbook's cells (a formula Calc cached but this reader cannot
    compute, e.g. an unsupported function, is taken at the value Calc saved for it)."""
    assert isinstance(actual, str) and actual.startswith("="), (
        f"{name}: cell {cell} holds {_shown(actual)}, not a formula (expected a formula like ={_formula(expected)})")
    sheet = load_sheet(True)
    want = formulas.parse(expected, sheet.title)
    try:
        got = formulas.parse(actual, sheet.title)
    except formulas.FormulaError as exc:
        raise AssertionError(f"{name}: cell {cell} holds {actual!r}, which cannot be read as a formula ({exc})") from None
    refs, want_refs = formulas.references(got), formulas.references(want)
    assert refs == want_refs, (
        f"{name}: cell {cell} holds {actual!r}, which refers to {_cells(refs)}; expected a formula of exactly "
        f"{_cells(want_refs)} (like ={_formula(expected)})")
    cached_sheet = load_sheet(False)
    cached = {c: cached_sheet[c].value for c in refs | {cell}}
    cells = formulas.sheet_cells(sheet, cached)
    try:
        want_value = formulas.evaluate(want, cells)
    except formulas.FormulaError as exc:
        raise AssertionError(f"{name}: the expected ={_formula(expected)} cannot be computed over the saved "
                             f"cells ({exc})") from None
    try:
        value = formulas.evaluate(got, cells)
    except formulas.FormulaError as exc:
        saved = cached.get(cell)
        assert isinstance(saved, (int, float)) and not isinstance(saved, bool), (
            f"{name}: cell {cell} holds {actual!r}, which cannot be computed ({exc})")
        value = float(saved)
    assert math.isclose(float(value), want_value, rel_tol=1e-9, abs_tol=1e-9), (
        f"{name}: cell {cell} holds {actual!r} = {value:g}; ={_formula(expected)} is {want_value:g}")


def _cells(refs: set[str]) -> str:
    return ", ".join(sorted(refs, key=lambda c: (re.sub(r"\d", "", c), int(re.sub(r"\D", "", c))))) or "no cells"


def _docx_paragraphs(path: Path) -> list[tuple[str, bool]]:
    """(text, every run bold) of each non-empty paragraph of a .docx."""
    from lxml import etree

    with zipfile.ZipFile(path) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    out = []
    for p in root.iter(f"{W_NS}p"):
        runs = [r for r in p.iter(f"{W_NS}r") if "".join(t.text or "" for t in r.iter(f"{W_NS}t")).strip()]
        text = "".join(t.text or "" for t in p.iter(f"{W_NS}t"))
        if not text.strip():
            continue

        def bold(run: Any) -> bool:
            b = run.find(f"{W_NS}rPr/{W_NS}b")
            return b is not None and b.get(f"{W_NS}val", "true") not in ("false", "0")
        out.append((text.strip(), bool(runs) and all(bold(r) for r in runs)))
    return out


def writer_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "document")
    checks: list[Check] = []
    expected_last = list(truth.get("last_paragraphs") or [])
    if expected_last:
        def check_last() -> None:
            texts = [t for t, _ in load(ctx, name, "docx", _docx_paragraphs)]
            assert texts[-len(expected_last):] == expected_last, (
                f"{name}: the last paragraphs are {texts[-len(expected_last):]!r}, expected {expected_last!r}")
        checks.append((f"{name} ends with the new paragraphs", check_last))
    for index in truth.get("bold_paragraphs") or []:
        def check_bold(index: int = index) -> None:
            paragraphs = load(ctx, name, "docx", _docx_paragraphs)
            assert index < len(paragraphs), f"{name}: no paragraph {index}"
            assert paragraphs[index][1], f"{name}: paragraph {index} {paragraphs[index][0]!r} is not bold"
        checks.append((f"{name} paragraph {index} bold", check_bold))
    if truth.get("keeps"):
        def check_keeps() -> None:
            texts = [t for t, _ in load(ctx, name, "docx", _docx_paragraphs)]
            missing = [k for k in truth["keeps"] if k not in texts]
            assert not missing, f"{name}: original paragraphs lost: {missing!r}"
        checks.append((f"{name} keeps the original text", check_keeps))
    return checks


def r_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    for name, spec in sorted((truth.get("outputs") or {}).items()):
        if "number" in spec:
            def check(name: str = name, spec: Mapping[str, Any] = spec) -> None:
                text = _text(ctx, name).strip()
                try:
                    value = float(text.split()[0])
                except (ValueError, IndexError):
                    raise AssertionError(f"{name}: expected a number, found {text[:80]!r}") from None
                tol = float(spec.get("tolerance", 0.01))
                assert abs(value - float(spec["number"])) <= tol, f"{name}: {value} is not {spec['number']} (±{tol})"
        elif "lines" in spec:
            def check(name: str = name, spec: Mapping[str, Any] = spec) -> None:
                lines = [ln.strip() for ln in _text(ctx, name).splitlines() if ln.strip()]
                expected = [str(x) for x in spec["lines"]]
                assert len(lines) == len(expected) and all(_same(a, e) or _num_same(a, e) for a, e in
                                                           zip(lines, expected)), (
                    f"{name}: lines {lines!r}, expected {expected!r}")
        elif "csv" in spec:
            def check(name: str = name, spec: Mapping[str, Any] = spec) -> None:
                table = list(csv.reader(io.StringIO(_text(ctx, name), newline="")))
                header = table[0] if table else []
                rows = [dict(zip(header, row)) for row in table[1:] if row]
                key, value = spec.get("key", "key"), spec.get("value", "value")
                if spec.get("row_names") is False:
                    longer = [row for row in table[1:] if len(row) > len(header)]
                    first = (longer or table[1:2] or [[]])[0]
                    assert "" not in header and not longer, (
                        f"{name}: the CSV has row names (header {header!r}, first row {first!r}); the task asks "
                        f"for none")
                try:
                    got = {r[key].strip('"'): float(r[value]) for r in rows}
                except (KeyError, ValueError) as exc:
                    raise AssertionError(f"{name}: columns {key!r} and {value!r} expected, got "
                                         f"{list(rows[0]) if rows else 'no rows'} ({exc})") from None
                want = {k: float(v) for k, v in spec["csv"].items()}
                assert set(got) == set(want) and all(math.isclose(got[k], want[k], abs_tol=0.01) for k in want), (
                    f"{name}: {got}, expected {want}")
        elif "png" in spec:
            def check(name: str = name, spec: Mapping[str, Any] = spec) -> None:
                from PIL import Image, ImageChops

                image = load(ctx, name, "png", lambda p: Image.open(p).convert("RGB"))
                min_w = int(spec["png"].get("min_width", 100))
                assert image.width >= min_w, f"{name}: {image.width} px wide, expected at least {min_w}"
                if "size" in spec["png"]:
                    w, h = (int(v) for v in spec["png"]["size"])
                    assert image.size == (w, h), f"{name}: {image.width}x{image.height} px, expected {w}x{h}"
                blank = Image.new("RGB", image.size, (255, 255, 255))
                diff = ImageChops.difference(image, blank).convert("L").point(lambda v: 255 if v > 32 else 0)
                ink = sum(diff.histogram()[255:]) / (image.width * image.height)
                assert ink >= float(spec["png"].get("min_ink", 0.02)), (
                    f"{name}: only {ink:.1%} of the image differs from blank white")
        else:
            raise ValueError(f"r_output: output {name!r} needs number, lines, csv or png")
        checks.append((f"{name} output", check))
    return checks


def _text(ctx: EvalContext, name: str) -> str:
    """The text of artifact ``name`` (a text file: not empty, no binary data)."""
    return load(ctx, name, "text", lambda p: p.read_text(encoding="utf-8-sig", errors="replace"))


def _num_same(a: str, e: str) -> bool:
    try:
        return math.isclose(float(a), float(e), abs_tol=0.01)
    except ValueError:
        return False


def svg_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "drawing")
    checks: list[Check] = []

    def shapes() -> list[Any]:
        from lxml import etree

        root = load(ctx, name, "svg", lambda p: etree.parse(str(p)).getroot())
        return [el for el in root.iter() if isinstance(el.tag, str) and el.tag.startswith(SVG_NS)]

    for tag, count in sorted((truth.get("count") or {}).items()):
        def check(tag: str = tag, count: int = count) -> None:
            found = [el for el in shapes() if el.tag == SVG_NS + tag]
            assert len(found) == count, f"{name}: {len(found)} <{tag}> element(s), expected {count}"
        checks.append((f"{name} {count} {tag}", check))
    if truth.get("ids_absent"):
        def check_absent() -> None:
            ids = {el.get("id") for el in shapes()}
            left = [i for i in truth["ids_absent"] if i in ids]
            assert not left, f"{name}: still present: {left}"
        checks.append((f"{name} removed shapes", check_absent))
    return checks


KINDS: dict[str, Callable[[EvalContext, Mapping[str, Any]], list[Check]]] = {
    "calc": calc_checks, "writer": writer_checks, "r_output": r_checks, "svg": svg_checks}


def _register_check_modules() -> None:
    """Add the kinds of every module in ``checks/`` (a dict ``KINDS`` each); a name defined twice is an error."""
    import importlib
    import pkgutil

    from . import checks

    for info in sorted(pkgutil.iter_modules(checks.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{checks.__name__}.{info.name}")
        for kind, fn in getattr(module, "KINDS", {}).items():
            if kind in KINDS:
                raise ValueError(f"suites/prosoft/checks/{info.name}.py: kind {kind!r} is already defined")
            KINDS[kind] = fn


_register_check_modules()


# the ground-truth keys each built-in kind reads (the kinds of checks/ modules declare none: any key)
TRUTH_KEYS: dict[str, tuple[str, ...]] = {
    "calc": ("artifact", "sheet", "values", "formulas", "formula_match", "bold", "unchanged_from"),
    "writer": ("artifact", "last_paragraphs", "bold_paragraphs", "keeps"),
    "r_output": ("outputs",),
    "svg": ("artifact", "count", "ids_absent"),
    "pipeline": ("steps",),
}


class ProSoftTemplate(Template):
    """One evaluator per kind; ``pipeline`` evaluates each step's checks with one shared weight split."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ground_truth_keys = TRUTH_KEYS.get(name)

    def evaluate(self, ctx: EvalContext) -> None:
        truth = ctx.truth
        steps = truth.get("steps") if self.name == "pipeline" else [dict(truth, template=self.name)]
        checks: list[Check] = []
        for step in steps or []:
            checks.extend(KINDS[step["template"]](ctx, step))
        if not checks:
            raise ValueError(f"task {ctx.task.id!r}: ground truth asks for no checks")
        weight = 1.0 / len(checks)
        for label, check in checks:
            with milestone(label, weight):
                check()


TEMPLATES: dict[str, Template] = {name: ProSoftTemplate(name) for name in (*KINDS, "pipeline")}
