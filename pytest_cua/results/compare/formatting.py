"""How the comparison's figures are written, alike in the terminal, the markdown and the HTML: rates, signed
differences, p-values, intervals and counts (``dash`` stands for a figure that is unknown)."""

from __future__ import annotations

from pytest_cua.results.compare.model import Group


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def number(value: float | None, digits: int = 3, dash: str = "-") -> str:
    """``0.667``; a rate or a mean score."""
    return dash if value is None else f"{value:.{digits}f}"


def signed(value: float | None, digits: int = 3, dash: str = "-") -> str:
    """``+0.125``, ``-0.250``: a difference."""
    return dash if value is None else f"{value:+.{digits}f}"


def p_value(value: float | None, dash: str = "-") -> str:
    """``0.039``; below 0.001 (a bootstrap p of 0 included) ``<0.001``."""
    if value is None:
        return dash
    return f"{value:.3f}" if value >= 0.001 else "<0.001"


def p_equals(value: float | None) -> str:
    """``p=0.039``, ``p<0.001``."""
    text = p_value(value)
    return f"p{text}" if text.startswith("<") else f"p={text}"


def interval(group: Group) -> str:
    """The confidence interval of a group's success difference, ``-0.300..+0.050``."""
    if group.ci_low is None or group.ci_high is None:
        return "-"
    return f"{group.ci_low:+.3f}..{group.ci_high:+.3f}"


def level(alpha: float) -> str:
    """The confidence level of the intervals, ``95%``."""
    return f"{100 * (1 - alpha):g}%"
