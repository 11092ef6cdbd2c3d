"""ImageJ checks: the picture ImageJ saved, and the measurements table it saved.

Kinds:

- ``imagej_image``: see :func:`imaging_common.image_checks` (format, size, grayscale, content against the start
  picture put through the expected operations, blurred).
- ``imagej_results``: a table ImageJ saved from its Results window (File > Save As, or ``saveAs("Results",
  ...)``): comma- or tab-separated, with or without ImageJ's unnamed row-number column. Ground-truth keys:
  ``artifact`` (default "results"); ``columns`` [names that must be there]; ``rows`` n (exact count, e.g. one
  row per particle); ``sum`` {column: {"value": x, "rel": r}} (the column's total within a relative
  tolerance); ``values`` {column: {"values": [..], "tol": t}} (the column's values, in any order, each within
  ``t``); ``row`` {column: {"value": x, "tol": t}} (the value in the first data row).
"""

from __future__ import annotations

import csv
import math
from typing import Any, Mapping

from .imaging_common import Check, image_checks, load


def imagej_image_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    return image_checks(ctx, truth, "imagej_image")


def read_table(path: Any) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results table; ImageJ's unnamed row-number column (" ") is dropped."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert lines, f"{path.name}: the results file is empty"
    delimiter = "\t" if lines[0].count("\t") > lines[0].count(",") else ","
    rows = list(csv.reader(lines, delimiter=delimiter))
    header = [h.strip() for h in rows[0]]
    out = []
    for row in rows[1:]:
        out.append({h: v.strip() for h, v in zip(header, row) if h})
    return [h for h in header if h], out


def _number(name: str, column: str, row: Mapping[str, str], index: int) -> float:
    try:
        return float(row[column])
    except (KeyError, ValueError):
        raise AssertionError(f"{name}: row {index + 1} has no number in column {column!r} "
                             f"({row.get(column)!r})") from None


def results_checks(ctx: Any, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "results")
    checks: list[Check] = []

    def table() -> tuple[list[str], list[dict[str, str]]]:
        return load(ctx, name, "text", read_table)

    def column(col: str) -> list[float]:
        header, rows = table()
        assert col in header, f"{name}: no column {col!r} (columns: {', '.join(header) or 'none'})"
        return [_number(name, col, row, i) for i, row in enumerate(rows)]

    if truth.get("columns"):
        def check_columns() -> None:
            header, _ = table()
            missing = [c for c in truth["columns"] if c not in header]
            assert not missing, f"{name}: columns {missing} missing (columns: {', '.join(header) or 'none'})"
        checks.append((f"{name} has columns {', '.join(truth['columns'])}", check_columns))
    if "rows" in truth:
        def check_rows() -> None:
            _, rows = table()
            assert len(rows) == int(truth["rows"]), f"{name}: {len(rows)} data rows, expected {truth['rows']}"
        checks.append((f"{name} has {truth['rows']} rows", check_rows))
    for col, spec in sorted((truth.get("sum") or {}).items()):
        def check_sum(col: str = col, spec: Mapping[str, Any] = spec) -> None:
            total = sum(column(col))
            rel = float(spec.get("rel", 0.02))
            assert math.isclose(total, float(spec["value"]), rel_tol=rel), (
                f"{name}: the {col} column sums to {total:g}, expected {spec['value']} (±{rel:.0%})")
        checks.append((f"{name} total {col} ≈ {spec['value']}", check_sum))
    for col, spec in sorted((truth.get("values") or {}).items()):
        def check_values(col: str = col, spec: Mapping[str, Any] = spec) -> None:
            got = sorted(column(col))
            want = sorted(float(v) for v in spec["values"])
            tol = float(spec.get("tol", 0.5))
            assert len(got) == len(want) and all(abs(a - b) <= tol for a, b in zip(got, want)), (
                f"{name}: {col} values {got}, expected {want} (±{tol}, any order)")
        checks.append((f"{name} {col} values", check_values))
    for col, spec in sorted((truth.get("row") or {}).items()):
        def check_row(col: str = col, spec: Mapping[str, Any] = spec) -> None:
            values = column(col)
            assert values, f"{name}: no data rows"
            tol = float(spec.get("tol", 0.01))
            assert abs(values[0] - float(spec["value"])) <= tol, (
                f"{name}: {col} is {values[0]:g}, expected {spec['value']} (±{tol})")
        checks.append((f"{name} {col} = {spec['value']}", check_row))
    if not checks:
        raise ValueError(f"imagej_results ground truth for {name!r} asks for no checks (columns, rows, sum, values, "
                         f"row)")
    return checks


KINDS = {"imagej_image": imagej_image_checks, "imagej_results": results_checks}
