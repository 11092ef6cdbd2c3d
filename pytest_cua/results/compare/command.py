"""``pytest-cua compare BASE NEW``: compare two runs' ``reports/summary.json`` task by task, with significance.

Prints the verdict and the figures (``render_text``) and can also write the markdown of a CI comment and the
comparison as JSON; the exit code is the gate's: 0 passed, 1 failed, 2 unusable input. ``write_report`` is the
same comparison for ``pytest-cua report --compare BASE NEW`` (``pytest_cua.results.cli``), which writes the
HTML report (``pytest_cua.results.compare.html``) and/or the markdown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_cua.results.compare.comparison import compare
from pytest_cua.results.compare.html import render_html
from pytest_cua.results.compare.model import Comparison
from pytest_cua.results.compare.plots import ReportDependencyError, require_matplotlib
from pytest_cua.results.compare.summaries import load_summary
from pytest_cua.results.compare.text import render_markdown, render_text


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``compare`` to the ``pytest-cua`` command."""
    parser = subparsers.add_parser("compare", help="compare two runs' summary.json with significance tests",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("base", help="the reference run's summary.json (or its reports folder)")
    parser.add_argument("new", help="the candidate run's summary.json (or its reports folder)")
    parser.add_argument("--alpha", type=_alpha, default=0.05,
                        help="significance level; intervals are at 1 - alpha (default 0.05)")
    parser.add_argument("--max-drop", type=_drop, default=0.0,
                        help="success-rate drop (absolute, 0..1) a significant regression may have and "
                             "still pass (default 0)")
    parser.add_argument("--quarantine-flaky", action="store_true",
                        help="leave tasks flaky in either run out of the figures and the gate")
    parser.add_argument("--resamples", type=_positive, default=10000,
                        help="bootstrap resamples of the overall figures (default 10000)")
    parser.add_argument("--markdown", metavar="FILE", help="also write a GitHub-comment markdown report")
    parser.add_argument("--json", metavar="FILE", help="also write the comparison as JSON")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    compared = _compared(args.base, args.new, "pytest-cua compare:", alpha=args.alpha, max_drop=args.max_drop,
                         quarantine_flaky=args.quarantine_flaky, resamples=args.resamples)
    if compared is None:
        return 2
    comparison = compared[2]
    for line in render_text(comparison):
        print(line)
    if args.markdown:
        print(f"pytest-cua compare: wrote {_write(args.markdown, render_markdown(comparison))}")
    if args.json:
        text = json.dumps(comparison.to_dict(), indent=2) + "\n"
        print(f"pytest-cua compare: wrote {_write(args.json, text)}")
    return 0 if comparison.gate.ok else 1


def write_report(base_path: str | Path, new_path: str | Path, *, html: str | Path | None = None,
                 markdown: str | Path | None = None, alpha: float = 0.05, max_drop: float = 0.0,
                 quarantine_flaky: bool = False) -> int:
    """Compare two summary.json files and write the HTML and/or markdown report.

    Returns 0 when the gate passes, 1 when it fails, and 2 when the inputs are not usable (the message on
    stderr), a file cannot be written, or the HTML was asked for without matplotlib installed.
    """
    prefix = "pytest-cua report:"
    if html is not None:
        try:
            require_matplotlib()
        except ReportDependencyError as exc:
            print(f"{prefix} {exc}", file=sys.stderr)
            return 2
    compared = _compared(base_path, new_path, prefix, alpha=alpha, max_drop=max_drop,
                         quarantine_flaky=quarantine_flaky)
    if compared is None:
        return 2
    base, new, result = compared
    comparison = result.to_dict()
    try:
        if html is not None:
            written = _write(html, render_html(comparison, base, new))
            print(f"{prefix} HTML comparison in {written}")
        if markdown is not None:
            written = _write(markdown, render_markdown(result))
            print(f"{prefix} markdown comparison in {written}")
    except OSError as exc:
        print(f"{prefix} cannot write the report: {exc}", file=sys.stderr)
        return 2
    gate = comparison.get("gate") or {}
    if gate.get("line"):
        print(f"{prefix} {gate['line']}")
    return 0 if gate.get("ok") else 1


def _compared(base_path: str | Path, new_path: str | Path, prefix: str,
              **options: Any) -> tuple[dict[str, Any], dict[str, Any], Comparison] | None:
    """The two summaries and their comparison; None when they cannot be compared (the message on stderr)."""
    try:
        base, new = load_summary(base_path), load_summary(new_path)
        return base, new, compare(base, new, **options)
    except ValueError as exc:  # CompareError (a ValueError naming the file), or a bad alpha / max_drop
        print(f"{prefix} {exc}", file=sys.stderr)
        return None


def _write(path: str | Path, text: str) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def _alpha(text: str) -> float:
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not strictly between 0 and 1")
    return value


def _drop(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value
