"""What the QGIS, FreeCAD and KiCad checks share: finding an artifact, comparing numbers, and running a
command in the container for a figure only the program itself can compute (a solid's volume).

No ``KINDS`` here: ``templates.py`` registers nothing from this module.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

from pytest_cua import EvalContext

from ..artifacts import Check, artifact, load  # noqa: F401 - the engineering checks import them from here


def container_path(ctx: EvalContext, name: str) -> str:
    """Where artifact ``name`` lives in the container (the task's ``artifacts`` field)."""
    path = (ctx.task.extra.get("artifacts") or {}).get(name)
    if not path:
        raise ValueError(f"task {ctx.task.id!r}: no artifact {name!r} in its 'artifacts' field")
    return str(path)


def close(actual: float, expected: float, tolerance: float | None = None, rel: float = 1e-6) -> bool:
    """``actual`` within ``tolerance`` (absolute) of ``expected``, else within ``rel`` of it."""
    if tolerance is not None:
        return abs(float(actual) - float(expected)) <= float(tolerance)
    return math.isclose(float(actual), float(expected), rel_tol=rel, abs_tol=1e-6)


def as_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def same_value(actual: Any, expected: Any, tolerance: float | None = None) -> bool:
    """Numbers compare as numbers (with ``tolerance``), everything else as stripped text."""
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        number = as_number(actual)
        return number is not None and close(number, expected, tolerance)
    return str(actual).strip() == str(expected).strip()


def run_json(ctx: EvalContext, argv: list[str], what: str, timeout: float = 120) -> Any:
    """Run ``argv`` in the container and parse the last line of its output that starts with ``{``: the
    evaluator's own script prints its answer as one JSON line (programs print banners around it)."""
    result: Mapping[str, Any] = ctx.env.run(argv, timeout=timeout)  # type: ignore[attr-defined]
    out = str(result.get("stdout") or "")
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("{")]
    if not lines:
        raise AssertionError(f"{what}: no answer from {argv[0]} (exit {result.get('returncode')}): "
                             f"{(out + str(result.get('stderr') or ''))[-400:]!r}")
    return json.loads(lines[-1])
