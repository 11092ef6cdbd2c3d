"""More R evaluators next to ``templates.py``'s ``r_output``: a whole CSV table R wrote (every row and value,
their order where the task asks for one) and an R data file (``saveRDS``), read on the host by a small reader
of R's XDR serialization (no R needed).

Ground-truth keys, by kind:

- ``r_table``: ``artifact``; ``key`` (the column naming each row, or a list of columns whose values, joined by
  ``|``, name it; absent with ``row_names`` true: the row-name
  column, R's ``""`` header); ``columns`` [every column the table must have, besides a row-name column; no
  more]; ``rows`` {key: {column: number or text}} (every row of the table, no more; numbers within
  ``tolerance``, default 0.001; text stripped); ``ordered`` true (the rows in the order of ``rows``: a sort);
  ``row_names`` false (the task says "no row names": R's row-name column fails) or true (a matrix written with
  its row names, which are the keys)
- ``r_rds``: ``artifact``; ``columns`` {column: [values]} (a data frame: exactly these columns, each with these
  values in this order; a factor is read as its labels); ``tolerance``

A file of another type under the expected name (a PNG, an empty file, CSV text where RDS is asked for) fails
its milestones with a message saying what it is.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import math
import struct
from pathlib import Path
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, artifact, identify, load

NA_INT = -(2 ** 31)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _same(actual: str, expected: Any, tolerance: float) -> bool:
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        value = _number(actual.strip())
        return value is not None and math.isclose(value, float(expected), rel_tol=0, abs_tol=tolerance)
    return actual.strip() == str(expected).strip()


def read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file; blank lines skipped."""
    table = [row for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")) if row]
    if not table:
        raise AssertionError(f"{path.name}: the CSV is empty")
    return table[0], table[1:]


def r_table_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "table")
    rows_truth: Mapping[str, Mapping[str, Any]] = truth.get("rows") or {}
    if not rows_truth:
        raise ValueError(f"r_table ground truth for {name!r}: rows are required")
    row_names = truth.get("row_names")
    key = truth.get("key")
    if key is None and row_names is not True:
        raise ValueError(f"r_table ground truth for {name!r}: key is required unless row_names is true")
    columns = [str(c) for c in truth.get("columns") or []]
    tolerance = float(truth.get("tolerance", 0.001))
    checks: list[Check] = []

    def table() -> tuple[list[str], list[dict[str, str]], list[str]]:
        """(columns besides row names, rows as dicts, each row's key)."""
        header, body = load(ctx, name, "text", read_table)
        has_row_names = bool(header) and header[0] == "" or any(len(r) == len(header) + 1 for r in body)
        if has_row_names and header[0] != "":
            header = ["", *header]
        dicts = [dict(zip(header, r)) for r in body]
        if row_names is True:
            assert has_row_names, f"{name}: no row-name column (header {header!r}); the task writes the row names"
            keys = [d.get("", "") for d in dicts]
        else:
            parts = [str(k) for k in key] if isinstance(key, list) else [str(key)]
            absent = [k for k in parts if k not in header]
            assert not absent, f"{name}: no column {', '.join(map(repr, absent))} (header {header!r})"
            keys = ["|".join(d.get(k, "").strip() for k in parts) for d in dicts]
        return [h for h in header if h != ""], dicts, keys

    if row_names is False:
        def check_no_row_names() -> None:
            header, body = load(ctx, name, "text", read_table)
            longer = [r for r in body if len(r) > len(header)]
            assert "" not in header and not longer, (
                f"{name}: the CSV has row names (header {header!r}, first row {(longer or body or [[]])[0]!r}); "
                f"the task asks for none")
        checks.append((f"{name} has no row names", check_no_row_names))
    if columns:
        def check_columns() -> None:
            found, _, _ = table()
            assert sorted(found) == sorted(columns), f"{name}: columns {found!r}, expected {columns!r}"
        checks.append((f"{name} columns {', '.join(columns)}", check_columns))

    def check_rows() -> None:
        _, dicts, keys = table()
        extra = [k for k in keys if k not in rows_truth]
        missing = [k for k in rows_truth if k not in keys]
        assert not extra and not missing, (
            f"{name}: rows {keys!r}; expected exactly {list(rows_truth)!r} (missing {missing!r}, extra {extra!r})")
        wrong = []
        for k, d in zip(keys, dicts):
            for column, expected in rows_truth[k].items():
                got = d.get(column)
                if got is None or not _same(got, expected, tolerance):
                    wrong.append(f"{k}/{column} = {got!r}, expected {expected!r}")
        assert not wrong, f"{name}: wrong values: {'; '.join(wrong[:6])}"
    checks.append((f"{name} rows and values", check_rows))
    if truth.get("ordered"):
        def check_order() -> None:
            _, _, keys = table()
            assert keys == list(rows_truth), f"{name}: rows in the order {keys!r}, expected {list(rows_truth)!r}"
        checks.append((f"{name} row order", check_order))
    return checks


# --- R's serialization (saveRDS) -----------------------------------------------------------------------------

class RObject:
    """A deserialized R value: ``value`` (a list of numbers, strings, None for NA, or of RObjects) and its
    attributes (``names``, ``class``, ``levels``, ``row.names``, ...)."""

    def __init__(self, kind: str, value: Any, attributes: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.value = value
        self.attributes = attributes or {}

    def strings(self, attribute: str) -> list[str]:
        found = self.attributes.get(attribute)
        return [str(v) for v in found.value] if isinstance(found, RObject) else []


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos, self.refs = data, 0, []  # type: tuple[bytes, int, list[Any]]

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("truncated R data")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def int(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def item(self) -> Any:
        flags = self.int()
        sexp, has_attr, has_tag = flags & 0xFF, bool(flags & 512), bool(flags & 1024)
        if sexp in (254, 242, 241, 253, 252, 251, 247):  # NULL and the special environments
            return None
        if sexp == 255:  # a reference to an earlier symbol or environment
            index = flags >> 8 or self.int()
            return self.refs[index - 1]
        if sexp == 1:  # symbol
            name = self.item()
            self.refs.append(name)
            return name
        if sexp in (2, 6):  # pairlist (attributes) or call
            attrs = self.item() if has_attr else None
            tag = self.item() if has_tag else None
            car = self.item()
            cdr = self.item()
            pairs = [(tag, car)] + (cdr.value if isinstance(cdr, RObject) and cdr.kind == "pairlist" else [])
            return RObject("pairlist", pairs, _attrs(attrs))
        if sexp == 9:  # CHARSXP
            length = self.int()
            return None if length == -1 else self.take(length).decode("utf-8", "replace")
        if sexp == 238:  # ALTREP (compact sequences, deferred strings, wrappers)
            info, state, attrs = self.item(), self.item(), self.item()
            return _altrep(info, state, _attrs(attrs))
        if sexp in (10, 13):
            n = self.int()
            value: list[Any] = [None if v == NA_INT else v for v in struct.unpack(f">{n}i", self.take(4 * n))]
            kind = "logical" if sexp == 10 else "integer"
        elif sexp == 14:
            n = self.int()
            value = [None if math.isnan(v) else v for v in struct.unpack(f">{n}d", self.take(8 * n))]
            kind = "double"
        elif sexp == 16:
            value, kind = [self.item() for _ in range(self.int())], "character"
        elif sexp in (19, 20):
            value, kind = [self.item() for _ in range(self.int())], "list"
        else:
            raise ValueError(f"R data of type {sexp} is not read here")
        return RObject(kind, value, _attrs(self.item()) if has_attr else {})


def _attrs(pairlist: Any) -> dict[str, Any]:
    return {str(tag): value for tag, value in pairlist.value} if isinstance(pairlist, RObject) else {}


def _altrep(info: Any, state: Any, attributes: dict[str, Any]) -> RObject:
    cls = info.value[0][1] if isinstance(info, RObject) and info.value else ""
    if cls in ("compact_intseq", "compact_realseq") and isinstance(state, RObject):
        n, start, step = (state.value + [0, 0, 0])[:3]
        values = [start + i * step for i in range(int(n))]
        kind = "integer" if cls == "compact_intseq" else "double"
        return RObject(kind, [int(v) if kind == "integer" else float(v) for v in values], attributes)
    if cls == "deferred_string" and isinstance(state, RObject) and state.value:
        source = state.value[0][1]
        return RObject("character", [None if v is None else _r_string(v) for v in source.value], attributes)
    if cls.startswith("wrap_") and isinstance(state, RObject) and state.value:
        inner = state.value[0]
        return RObject(inner.kind, inner.value, {**inner.attributes, **attributes})
    raise ValueError(f"R data: ALTREP class {cls!r} is not read here")


def _r_string(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_rds(path: Path) -> RObject:
    """The R value ``saveRDS`` wrote to ``path`` (gzip, bzip2, xz or uncompressed; XDR format)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    elif raw[:3] == b"BZh":
        raw = bz2.decompress(raw)
    elif raw[:6] == b"\xfd7zXZ\x00":
        raw = lzma.decompress(raw)
    if raw[:2] != b"X\n":
        raise ValueError("not R's XDR serialization (saveRDS)")
    reader = _Reader(raw[2:])
    version = reader.int()
    reader.int(), reader.int()
    if version == 3:
        reader.take(reader.int())
    value = reader.item()
    if not isinstance(value, RObject):
        raise ValueError("the R data holds no vector")
    return value


def column_values(column: RObject) -> list[Any]:
    """A data frame column's values; a factor as its labels."""
    levels = column.strings("levels")
    if levels and column.kind == "integer":
        return [None if v is None else levels[v - 1] for v in column.value]
    return list(column.value)


def r_rds_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "data")
    expected: Mapping[str, list[Any]] = truth.get("columns") or {}
    if not expected:
        raise ValueError(f"r_rds ground truth for {name!r}: columns are required")
    tolerance = float(truth.get("tolerance", 1e-6))

    def frame() -> dict[str, list[Any]]:
        path = artifact(ctx, name)
        try:
            value = read_rds(path)
        except (ValueError, OSError, EOFError, struct.error, lzma.LZMAError) as exc:
            raise AssertionError(f"artifact {name!r} ({path.name}) is not an R data file (saveRDS): it is "
                                 f"{identify(path)} ({exc})") from None
        classes = value.strings("class")
        assert value.kind == "list" and "data.frame" in classes, (
            f"{name}: holds an R {value.kind} of class {classes or 'none'}, not a data frame")
        return dict(zip(value.strings("names"), (column_values(c) for c in value.value)))

    def check_columns() -> None:
        found = list(frame())
        assert found == list(expected), f"{name}: columns {found!r}, expected {list(expected)!r}"

    def check_values() -> None:
        data = frame()
        wrong = []
        for column, want in expected.items():
            got = data.get(column)
            ok = got is not None and len(got) == len(want) and all(
                (isinstance(w, (int, float)) and isinstance(g, (int, float))
                 and math.isclose(float(g), float(w), rel_tol=0, abs_tol=tolerance)) or g == w
                for g, w in zip(got, want))
            if not ok:
                wrong.append(f"{column}: {got!r}, expected {want!r}")
        assert not wrong, f"{name}: {'; '.join(wrong)}"
    return [(f"{name} is a data frame with columns {', '.join(expected)}", check_columns),
            (f"{name} values", check_values)]


KINDS = {"r_table": r_table_checks, "r_rds": r_rds_checks}
