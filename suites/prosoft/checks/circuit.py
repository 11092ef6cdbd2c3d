"""Circuit-simulation evaluators (ngspice, Multisim's stand-in): the results the simulator wrote, read on the host.

Kinds and their ground truth:

- ``spice_value``: ``outputs`` {artifact name: {"vector": "v(out)", "number": x, "tolerance": t}}: the file
  holds what ngspice's ``print`` writes (``v(out) = 3.836735e+00``, redirected with ``print v(out) > FILE``), or
  the value alone; the value of that vector (the first number when no vector is named) is x within t
  (absolute; ``rel``: relative instead); another vector's line (``v(in) = ...``) is not the value asked for
- ``spice_wave``: ``artifact``; what ``wrdata FILE vec`` writes (rows of ``x y`` pairs: the scale, e.g. time or
  frequency, then the vector; further pairs for more vectors); ``column`` (which vector, default 0);
  ``points`` [[x, y], ...] the curve must pass through (linear interpolation between rows, ``tolerance``
  absolute on y, default 0.02); ``x_range`` [lo, hi] the rows must cover (within 1 %: the analysis asked for);
  ``min_rows`` (default 10); ``log_x`` (true: an AC sweep's frequencies, interpolated on log f)

A missing file, or one without the numbers asked for, fails its milestone; it is never an evaluator error.
"""

from __future__ import annotations

import bisect
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from pytest_cua import EvalContext

from .engineering_common import Check, artifact

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def printed_value(text: str, vector: str | None = None) -> float:
    """The value ngspice's ``print`` wrote for ``vector`` (``v(out) = 3.8e+00``), else the first number."""
    if vector:
        pattern = re.compile(rf"^\s*{re.escape(vector)}\s*=\s*({NUMBER})", re.IGNORECASE | re.MULTILINE)
        found = pattern.search(text)
        if found:
            return float(found.group(1))
        if re.fullmatch(rf"\s*({NUMBER})\s*", text):  # the value alone (written another way): as good
            return float(text)
        raise AssertionError(f"no value of {vector} in {text[:160]!r}")
    found_any = re.search(NUMBER, text)
    if not found_any:
        raise AssertionError(f"no number in {text[:160]!r}")
    return float(found_any.group(0))


def wrdata_rows(path: Path) -> list[list[float]]:
    """The numeric rows of a ``wrdata`` file (a header line of vector names, when written, is skipped)."""
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        if not parts:
            continue
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            if rows:
                raise AssertionError(f"{path.name}: a line that is not numbers: {line[:80]!r}") from None
    if not rows:
        raise AssertionError(f"{path.name}: no data rows (expected what wrdata writes: x y pairs)")
    return rows


def series(rows: Sequence[Sequence[float]], column: int, name: str) -> tuple[list[float], list[float]]:
    """The (x, y) of vector ``column`` (its pair of columns), sorted by x."""
    i = 2 * column
    if any(len(r) < i + 2 for r in rows):
        raise AssertionError(f"{name}: rows of {len(rows[0])} columns, no vector number {column} (x y pairs)")
    pairs = sorted((r[i], r[i + 1]) for r in rows)
    return [p[0] for p in pairs], [p[1] for p in pairs]


def interpolate(xs: Sequence[float], ys: Sequence[float], x: float, log_x: bool = False) -> float:
    """y at ``x``, linear between the neighbouring rows (on log x for an AC sweep)."""
    if not xs[0] <= x <= xs[-1]:
        raise AssertionError(f"x = {x:g} lies outside the data ({xs[0]:g} .. {xs[-1]:g})")
    k = bisect.bisect_left(xs, x)
    if xs[k] == x or k == 0:
        return ys[k]
    x0, x1 = xs[k - 1], xs[k]
    if log_x and x0 > 0:
        x0, x1, x = math.log10(x0), math.log10(x1), math.log10(x)
    t = (x - x0) / (x1 - x0) if x1 != x0 else 0.0
    return ys[k - 1] + t * (ys[k] - ys[k - 1])


def value_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    for name, spec in sorted((truth.get("outputs") or {}).items()):
        def check(name: str = name, spec: Mapping[str, Any] = spec) -> None:
            text = artifact(ctx, name).read_text(encoding="utf-8", errors="replace")
            try:
                value = printed_value(text, spec.get("vector"))
            except AssertionError as exc:
                raise AssertionError(f"{name}: {exc}") from None
            expected = float(spec["number"])
            tol = float(spec["rel"]) * abs(expected) if "rel" in spec else float(spec.get("tolerance", 0.01))
            assert abs(value - expected) <= tol, f"{name}: {spec.get('vector', 'value')} = {value:g}, expected {expected:g} (±{tol:g})"
        checks.append((f"{name} {spec.get('vector', 'value')} = {spec['number']:g}", check))
    return checks


Curve = tuple[list[float], list[float]]


def curve_checks(name: str, curve: Callable[[], Curve], truth: Mapping[str, Any]) -> list[Check]:
    """The milestones of a simulated curve (``curve`` loads it, sorted by x, or raises AssertionError): enough
    rows, the range covered, each point passed through."""
    tol = float(truth.get("tolerance", 0.02))
    log_x = bool(truth.get("log_x"))
    min_rows = int(truth.get("min_rows", 10))
    checks: list[Check] = []

    def check_rows() -> None:
        xs, _ = curve()
        assert len(xs) >= min_rows, f"{name}: {len(xs)} rows, expected at least {min_rows} (an analysis's output)"
    checks.append((f"{name} holds simulation data", check_rows))
    if truth.get("x_range"):
        lo, hi = (float(v) for v in truth["x_range"])

        def check_range() -> None:
            xs, _ = curve()
            slack = 0.01 * (hi - lo)
            assert xs[0] <= lo + slack and xs[-1] >= hi - slack, (
                f"{name}: the data runs from {xs[0]:g} to {xs[-1]:g}, expected {lo:g} to {hi:g}")
        checks.append((f"{name} covers {lo:g} .. {hi:g}", check_range))
    for x, y in truth.get("points") or []:
        def check_point(x: float = float(x), y: float = float(y)) -> None:
            xs, ys = curve()
            try:
                actual = interpolate(xs, ys, x, log_x)
            except AssertionError as exc:
                raise AssertionError(f"{name}: {exc}") from None
            assert abs(actual - y) <= tol, f"{name}: {actual:.4g} at x = {x:g}, expected {y:.4g} (±{tol:g})"
        checks.append((f"{name} passes ({x:g}, {y:.4g})", check_point))
    return checks


def wave_checks(ctx: EvalContext, truth: Mapping[str, Any]) -> list[Check]:
    name = truth.get("artifact", "data")
    column = int(truth.get("column", 0))
    cache: dict[str, Curve] = {}

    def data() -> Curve:
        if "xy" not in cache:
            cache["xy"] = series(wrdata_rows(artifact(ctx, name)), column, name)
        return cache["xy"]

    return curve_checks(name, data, truth)


KINDS = {"spice_value": value_checks, "spice_wave": wave_checks}
