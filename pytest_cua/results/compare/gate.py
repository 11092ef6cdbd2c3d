"""The gate: does the new run do worse than the base?

It fails on a significant drop of the success rate larger than ``max_drop`` (significant: the paired test's
p-value below ``alpha``), when the new run has more error episodes than the base on the tasks both ran, or
when both runs ran tasks and none scored in both (no evidence either way).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from pytest_cua.results.compare.formatting import interval, level, number, p_equals, plural, signed
from pytest_cua.results.compare.model import Gate, Group


def _errors_grew(errors: Mapping[str, int]) -> bool:
    """More errors than the base: by count when both runs ran as many episodes of the shared tasks, else by
    share of episodes (a run with 3 trials per task against one with 1 is not judged on raw counts)."""
    base_n, new_n = errors.get("base_episodes", 0), errors.get("new_episodes", 0)
    if base_n == new_n or not base_n or not new_n:
        return errors["new"] > errors["base"]
    return errors["new"] * base_n > errors["base"] * new_n


def _errors_text(errors: Mapping[str, int]) -> str:
    base_n, new_n = errors.get("base_episodes", 0), errors.get("new_episodes", 0)
    if base_n == new_n or not base_n or not new_n:
        return f"{errors['base']} -> {errors['new']}"
    return f"{errors['base']}/{base_n} -> {errors['new']}/{new_n} episodes"


def decide_gate(overall: Group, errors: Mapping[str, int], *, alpha: float, max_drop: float, quarantined: int,
          evidence: bool = True, incomplete: Sequence[str] = ()) -> Gate:
    """The verdict: fail on a significant drop larger than ``max_drop``, on more errors than the base, or when
    either run is incomplete (``incomplete``: why, one line a run; such a run is no evidence either way)."""
    failures: list[str] = list(incomplete)
    passes: list[str] = []
    test = "McNemar" if overall.test == "mcnemar" else "sign-flip"
    if overall.diff is None or overall.p_value is None:
        success = "success: no paired tasks to compare"
        if evidence:
            passes.append(success)
        else:  # both runs ran tasks, none in common that scored: nothing says the release is not worse
            success = "success: no task scored in both runs (no evidence either way)"
            failures.append(success)
    else:
        significant = overall.p_value < alpha
        comparison = "<" if significant else ">="
        success = (f"success {number(overall.base_success)} -> {number(overall.new_success)} "
                   f"({signed(overall.diff)}, {level(alpha)} CI {interval(overall)}, "
                   f"{test} {p_equals(overall.p_value)} {comparison} {alpha:g}, "
                   f"{plural(overall.flips_to_fail, 'flip')} to fail, {overall.flips_to_pass} to pass)")
        drop = -overall.diff
        if not significant:
            passes.append(f"success change not significant ({p_equals(overall.p_value)} >= {alpha:g})")
            success += " (not significant)"
        elif drop <= 0:
            passes.append(f"success did not drop ({signed(overall.diff)}, {p_equals(overall.p_value)})")
        elif drop > max_drop + 1e-9:
            failures.append(f"success dropped significantly by {drop:.3f} ({p_equals(overall.p_value)} < {alpha:g}), "
                            f"more than the allowed {max_drop:.3f}")
        else:
            passes.append(f"success dropped significantly by {drop:.3f} ({p_equals(overall.p_value)} < {alpha:g}), "
                          f"within the allowed {max_drop:.3f}")
            success += f" (within max drop {max_drop:.3f})"
    shown = _errors_text(errors)
    if _errors_grew(errors):
        failures.append(f"errors grew: {shown}")
    else:
        passes.append(f"errors did not grow: {shown}")
    ok = not failures
    note = f"; {quarantined} flaky quarantined" if quarantined else ""
    line = f"gate {'passed' if ok else 'FAILED'}: {success}; errors {shown}{note}"
    if incomplete:
        line = f"gate FAILED: {'; '.join(incomplete)}; {success}; errors {shown}{note}"
    return Gate(ok=ok, reasons=passes if ok else failures, line=line)
