"""Calc evaluators beyond ``templates.py``'s ``calc`` kind: one kind per core function of the spreadsheet, each
read from the saved .xlsx (openpyxl for cells and sheet settings, the package's XML for charts).

Every kind takes ``artifact`` (default ``workbook``), ``sheet`` (default: the first) and ``from`` (the start
workbook under fixtures/prosoft/, e.g. ``office/sales.xlsx``): cells are compared with the start file's so that
an operation that also changed what it should not (a number turned into text, a row dropped) misses
(``keep_cells`` false drops that milestone, for a step of a task that changes cells on purpose). Numbers must
stay numbers: the text "1200" is not 1200. Ground-truth keys, by kind:

- ``calc_sort``: ``range`` (the data rows, header excluded, e.g. ``A2:C7``), ``by`` (the key column letter),
  ``descending`` (bool). Milestones: the rows are the start file's rows, each kept whole (a sort of one
  column alone breaks them); they are in that order (ties keep no particular order).
- ``calc_rows``: ``range`` and ``rows`` (the values every row of the range must hold, exactly, e.g. after a
  row was deleted or inserted); ``blank`` (a range that must be empty, e.g. the row freed by a deletion).
- ``calc_autofilter``: ``ref`` (the AutoFilter's range, e.g. ``A1:C7``); cells unchanged.
- ``calc_freeze``: ``top_left`` (the first unfrozen cell: ``A2`` freezes row 1, ``B1`` column A); the pane must
  be frozen, not merely split; cells unchanged.
- ``calc_number_format``: ``range``, ``format`` (``currency``: a currency symbol in the code; ``percent``: a
  ``%``; ``decimals``: with ``places`` digits after the point, e.g. ``0.00``); the values unchanged.
- ``calc_merge``: ``merged`` [ranges that must each be one merged cell]; ``centered`` [cells aligned centre];
  cells unchanged.
- ``calc_chart``: ``chart`` (``pie``, ``column``, ``bar``, ``line``, ``area``, ``scatter``), ``values`` [the
  ranges of the series' values, e.g. ``B2:B7``, sheet names and ``$`` aside], ``categories`` (a range);
  cells unchanged.
- ``calc_replace``: ``find``, ``replace``: every text cell of the start file with ``find`` in it holds the
  text with each occurrence replaced; no cell still shows ``find``; every other cell unchanged.
"""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_cua import EvalContext, fixtures_dir

from ..artifacts import Check, load

C_NS = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
CHART_TAGS = {"pie": ("pieChart", "pie3DChart", "doughnutChart"), "line": ("lineChart", "line3DChart"),
              "area": ("areaChart", "area3DChart"), "scatter": ("scatterChart",),
              "column": ("barChart", "bar3DChart"), "bar": ("barChart", "bar3DChart")}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same(actual: Any, expected: Any) -> bool:
    """A cell's value against the expected one: a number only equals a number (within 1e-6), empty equals
    empty or None, anything else compares as stripped text."""
    if _number(expected):
        return _number(actual) and math.isclose(float(actual), float(expected), rel_tol=1e-6, abs_tol=1e-6)
    if expected is None or expected == "":
        return actual is None or actual == ""
    return str(actual).strip() == str(expected).strip()


def _grid(sheet: Any, ref: str) -> list[list[Any]]:
    return [[c.value for c in row] for row in sheet[ref]]


def _start_sheet(truth: Mapping[str, Any]) -> Any:
    from openpyxl import load_workbook

    source = truth.get("from")
    if not source:
        raise ValueError("calc_more ground truth: 'from' (the start workbook under fixtures/prosoft/) is required")
    path = fixtures_dir("prosoft", *Path(source).parts)
    if not path.is_file():
        raise ValueError(f"calc_more ground truth: 'from' names {source!r}, which is not a file ({path})")
    wb = load_workbook(path)
    return wb[truth["sheet"]] if "sheet" in truth else wb.worksheets[0]


def _sheet_loader(ctx: EvalContext, truth: Mapping[str, Any]) -> Callable[[], Any]:
    name = truth.get("artifact", "workbook")

    def sheet() -> Any:
        from openpyxl import load_workbook

        def read(path: Path) -> Any:
            wb = load_workbook(path)
            if "sheet" in truth:
                assert truth["sheet"] in wb.sheetnames, f"{name}: no sheet {truth['sheet']!r} ({wb.sheetnames})"
                return wb[truth["sheet"]]
            return wb.worksheets[0]
        return load(ctx, name, "xlsx", read)
    return sheet


def _shown(value: Any) -> str:
    return f"the text {value!r}" if isinstance(value, str) else repr(value)


def _kept(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    """The "cells kept" milestone, unless ``keep_cells`` is false (a step of a task that also changes cells)."""
    return [_unchanged(ctx, truth)] if truth.get("keep_cells", True) else []


def _unchanged(ctx: EvalContext, truth: Mapping[str, Any], expected: Callable[[Any], Any] | None = None) -> Check:
    """Every cell of the start sheet keeps its value (``expected(cell)`` gives another expected value)."""
    name = truth.get("artifact", "workbook")
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        before, after = _start_sheet(truth), sheet()
        changed = []
        for row in before.iter_rows():
            for c in row:
                want = expected(c) if expected else c.value
                got = after[c.coordinate].value
                if not same(got, want):
                    changed.append(f"{c.coordinate}: {_shown(got)}, expected {_shown(want)}")
        assert not changed, f"{name}: cells differ from what the task leaves: {'; '.join(changed[:8])}"
    return (f"{name} cells kept", check)


# --- kinds ---------------------------------------------------------------------------------------------------

def sort_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref, by = truth.get("artifact", "workbook"), truth["range"], str(truth["by"]).upper()
    descending = bool(truth.get("descending", False))
    sheet = _sheet_loader(ctx, truth)
    first_col = re.match(r"[A-Z]+", ref.upper())
    assert first_col is not None
    from openpyxl.utils import column_index_from_string
    key = column_index_from_string(by) - column_index_from_string(first_col.group())

    def rows_kept() -> None:
        before = sorted(map(repr, _grid(_start_sheet(truth), ref)))
        after = _grid(sheet(), ref)
        assert sorted(map(repr, after)) == before, (
            f"{name}: the rows of {ref} are not the original rows kept whole (found {after!r})")

    def ordered() -> None:
        after = _grid(sheet(), ref)
        keys = [row[key] for row in after]
        assert all(_number(k) or isinstance(k, str) for k in keys), f"{name}: column {by} holds {keys!r}"
        want = sorted(keys, key=lambda v: (isinstance(v, str), v if _number(v) else str(v).lower()),
                      reverse=descending)
        assert keys == want, (f"{name}: column {by} of {ref} is {keys!r}, not sorted "
                              f"{'descending' if descending else 'ascending'}")
    header = truth.get("header_row")
    checks: list[Check] = [(f"{name} rows of {ref} kept whole", rows_kept),
                           (f"{name} {ref} sorted by {by} {'descending' if descending else 'ascending'}", ordered)]
    if header:
        def header_kept() -> None:
            got, want = _grid(sheet(), header), _grid(_start_sheet(truth), header)
            assert got == want, f"{name}: the header {header} is {got!r}, expected {want!r} (left in place)"
        checks.append((f"{name} header {header} in place", header_kept))
    return checks


def rows_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref, rows = truth.get("artifact", "workbook"), truth["range"], truth["rows"]
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        got = _grid(sheet(), ref)
        bad = [f"row {i + 1} {g!r}" for i, (g, w) in enumerate(zip(got, rows))
               if len(g) != len(w) or not all(same(a, e) for a, e in zip(g, w))]
        assert len(got) == len(rows) and not bad, f"{name}: {ref} differs: {'; '.join(bad)}; expected {rows!r}"
    checks: list[Check] = [(f"{name} {ref} holds the expected rows", check)]
    if truth.get("blank"):
        def blank() -> None:
            filled = [v for row in _grid(sheet(), truth["blank"]) for v in row if v not in (None, "")]
            assert not filled, f"{name}: {truth['blank']} should be empty, holds {filled!r}"
        checks.append((f"{name} {truth['blank']} empty", blank))
    return checks


def autofilter_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref = truth.get("artifact", "workbook"), str(truth["ref"]).upper()
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        found = sheet().auto_filter.ref
        assert found, f"{name}: no AutoFilter on the sheet"
        assert found.replace("$", "").upper() == ref, f"{name}: the AutoFilter covers {found}, expected {ref}"
    return [(f"{name} AutoFilter on {ref}", check), *_kept(ctx, truth)]


def freeze_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, cell = truth.get("artifact", "workbook"), str(truth["top_left"]).upper()
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        pane = sheet().sheet_view.pane
        assert pane is not None, f"{name}: nothing is frozen"
        assert pane.state in ("frozen", "frozenSplit"), f"{name}: the window is split ({pane.state}), not frozen"
        assert (pane.topLeftCell or "").upper() == cell, (
            f"{name}: frozen above/left of {pane.topLeftCell}, expected {cell}")
    return [(f"{name} frozen at {cell}", check), *_kept(ctx, truth)]


def _format_ok(code: str, kind: str, places: int) -> bool:
    plain = re.sub(r'"[^"]*"|\\.', "", code)  # quoted text and escaped characters are not format symbols
    if kind == "currency":
        return bool(re.search(r"[$€£¥]|\[\$[^\]]*\]", code)) and "%" not in plain
    if kind == "percent":
        return "%" in plain
    if kind == "decimals":
        match = re.search(r"0\.(0+)(?![0#])", plain.split(";")[0])
        return match is not None and len(match.group(1)) == places and "%" not in plain
    raise ValueError(f"calc_number_format: format must be currency, percent or decimals, got {kind!r}")


def number_format_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, ref, kind = truth.get("artifact", "workbook"), truth["range"], truth["format"]
    places = int(truth.get("places", 2))
    _format_ok("", kind, places)  # a bad kind is an error of the task, at collection of its checks
    sheet = _sheet_loader(ctx, truth)

    def check() -> None:
        wrong = [f"{c.coordinate} ({c.number_format})" for row in sheet()[ref] for c in row
                 if not _format_ok(c.number_format or "", kind, places)]
        assert not wrong, f"{name}: not formatted as {kind}: {', '.join(wrong)}"
    return [(f"{name} {ref} formatted as {kind}", check), *_kept(ctx, truth)]


def merge_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "workbook")
    sheet = _sheet_loader(ctx, truth)
    checks: list[Check] = []
    for ref in truth.get("merged") or []:
        def check(ref: str = str(ref).upper()) -> None:
            merged = sorted(str(r) for r in sheet().merged_cells.ranges)
            assert ref in merged, f"{name}: {ref} is not merged (merged ranges: {merged or 'none'})"
        checks.append((f"{name} {ref} merged", check))
    for cell in truth.get("centered") or []:
        def centred(cell: str = cell) -> None:
            align = sheet()[cell].alignment
            assert align is not None and align.horizontal in ("center", "centerContinuous"), (
                f"{name}: {cell} is aligned {getattr(align, 'horizontal', None) or 'by default'}, not centred")
        checks.append((f"{name} {cell} centred", centred))
    return [*checks, *_kept(ctx, truth)]


def _plain_ref(ref: str) -> str:
    return re.sub(r"^.*[!.]", "", ref.replace("$", "").replace("'", "")).upper()


def read_charts(path: Path) -> list[dict[str, Any]]:
    """Each chart of an .xlsx: its plot types (``barChart`` with its ``barDir``), series value and category
    ranges."""
    from lxml import etree

    out = []
    with zipfile.ZipFile(path) as z:
        for member in sorted(n for n in z.namelist() if re.fullmatch(r"xl/charts/chart\d+\.xml", n)):
            root = etree.fromstring(z.read(member))
            types, values, cats = [], [], []
            plot = root.find(f"{C_NS}chart/{C_NS}plotArea")
            for el in (plot if plot is not None else []):
                tag = etree.QName(el).localname if isinstance(el.tag, str) else ""
                if not tag.endswith("Chart"):
                    continue
                direction = el.find(f"{C_NS}barDir")
                types.append((tag, direction.get("val") if direction is not None else ""))
                for ser in el.iter(f"{C_NS}ser"):
                    for f in ser.iterfind(f"{C_NS}val//{C_NS}f"):
                        values.append(_plain_ref(f.text or ""))
                    for f in ser.iterfind(f"{C_NS}yVal//{C_NS}f"):
                        values.append(_plain_ref(f.text or ""))
                    for f in ser.iterfind(f"{C_NS}cat//{C_NS}f"):
                        cats.append(_plain_ref(f.text or ""))
            out.append({"member": member, "types": types, "values": values, "categories": cats})
    return out


def _type_ok(types: list[tuple[str, str]], kind: str) -> bool:
    for tag, direction in types:
        if tag in CHART_TAGS[kind] and (kind not in ("column", "bar") or direction == ("col" if kind == "column"
                                                                                         else "bar")):
            return True
    return False


def chart_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, kind = truth.get("artifact", "workbook"), truth["chart"]
    if kind not in CHART_TAGS:
        raise ValueError(f"calc_chart: chart must be one of {sorted(CHART_TAGS)}, got {kind!r}")
    values = [_plain_ref(v) for v in truth.get("values") or []]

    def charts() -> list[dict[str, Any]]:
        found = load(ctx, name, "xlsx", read_charts)
        assert found, f"{name}: the workbook has no chart"
        return found

    def type_check() -> None:
        found = charts()
        assert any(_type_ok(c["types"], kind) for c in found), (
            f"{name}: no {kind} chart (charts: {[c['types'] for c in found]})")

    def data_check() -> None:
        found = [c for c in charts() if _type_ok(c["types"], kind)] or charts()
        ok = [c for c in found if sorted(c["values"]) == sorted(values) and (
            not truth.get("categories") or set(c["categories"]) == {_plain_ref(truth["categories"])})]
        assert ok, (f"{name}: no chart plots {values} (by {truth.get('categories', 'any categories')}); charts plot "
                    f"{[(c['values'], sorted(set(c['categories']))) for c in found]}")
    return [(f"{name} a {kind} chart", type_check), (f"{name} chart of {', '.join(values)}", data_check),
            *_kept(ctx, truth)]


def replace_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name, find, repl = truth.get("artifact", "workbook"), str(truth["find"]), str(truth["replace"])
    sheet = _sheet_loader(ctx, truth)

    def none_left() -> None:
        left = [c.coordinate for row in sheet().iter_rows() for c in row
                if isinstance(c.value, str) and find in c.value]
        assert not left, f"{name}: {find!r} is still in {', '.join(left)}"

    def expected(cell: Any) -> Any:
        return cell.value.replace(find, repl) if isinstance(cell.value, str) else cell.value
    label, kept = _unchanged(ctx, truth, expected)
    return [(f"{name} no {find!r} left", none_left), (f"{name} {find!r} replaced by {repl!r}", kept)]


KINDS = {"calc_sort": sort_checks, "calc_rows": rows_checks, "calc_autofilter": autofilter_checks,
         "calc_freeze": freeze_checks, "calc_number_format": number_format_checks, "calc_merge": merge_checks,
         "calc_chart": chart_checks, "calc_replace": replace_checks}
