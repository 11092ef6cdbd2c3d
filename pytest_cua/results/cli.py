"""``pytest-cua report``: turn reports/allure-results into an HTML report with the Allure command line, or
compare two runs (``--compare BASE NEW --html FILE [--markdown FILE]``).

Uses Allure 3 from the npm package ``allure`` (``npx allure generate DIR -o OUT``): a project-local
``node_modules/.bin/allure``, else ``allure`` on PATH, else ``npx --no-install allure``. Nothing is downloaded:
when none is installed the command says how to install it (``npm install allure``).

With ``--compare BASE NEW`` (two ``summary.json`` files of pytest-cua runs) it writes a self-contained HTML
comparison (``--html``, with plots: needs matplotlib, ``pip install 'pytest-cua[report]'``) and/or the
markdown of a CI comment (``--markdown``); the exit code is the gate's: 0 passed, 1 failed, 2 unusable input.

With ``--tables RUN`` it writes a run's paper tables (``pytest_cua.results.tables_command``).
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from pytest_cua.results import tables_command

DEFAULT_RESULTS = "reports/allure-results"
DEFAULT_OUTPUT = "reports/allure-report"
INSTALL_HINT = ("the Allure command line is not installed: install Allure 3 with 'npm install allure' "
                "(in this project, or 'npm install -g allure'), then run 'pytest-cua report' again")


def find_allure(cwd: Path | None = None) -> list[str] | None:
    """The command prefix that runs Allure, or None when it is not installed."""
    cwd = cwd or Path.cwd()
    for folder in (cwd, *cwd.parents):
        local = folder / "node_modules" / ".bin" / "allure"
        if local.exists():
            return [str(local)]
    on_path = shutil.which("allure")
    if on_path:
        return [on_path]
    npx = shutil.which("npx")
    if npx:
        try:
            probe = subprocess.run([npx, "--no-install", "allure", "--version"], capture_output=True, text=True,
                                   timeout=60, cwd=cwd)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if probe.returncode == 0:
            return [npx, "--no-install", "allure"]
    return None


def generate(results: Path, output: Path, *, allure: Sequence[str] | None = None) -> int:
    """Run ``allure generate RESULTS -o OUTPUT``; return its exit code (2 when Allure is missing)."""
    if not results.is_dir() or not any(results.glob("*-result.json")):
        print(f"pytest-cua report: no Allure results in {results} (run pytest with --alluredir {results})",
              file=sys.stderr)
        return 2
    command = list(allure) if allure is not None else find_allure()
    if command is None:
        print(f"pytest-cua report: {INSTALL_HINT}", file=sys.stderr)
        return 2
    output.parent.mkdir(parents=True, exist_ok=True)
    args = [*command, "generate", str(results), "-o", str(output)]
    print("pytest-cua report: " + " ".join(args))
    code = subprocess.call(args, env={**os.environ, "NO_UPDATE_NOTIFIER": "1"})
    if code == 0:
        print(f"pytest-cua report: HTML report in {output}/index.html")
    return code


COMPARE_ONLY = ("--html", "--markdown", "--alpha", "--max-drop", "--quarantine-flaky")


def _probability(text: str) -> float:
    """An ``--alpha``: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _fraction(text: str) -> float:
    """A ``--max-drop``: a number from 0 up to (not including) 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def _compare_options_given(args: argparse.Namespace) -> list[str]:
    """The options of --compare given without it."""
    given = [args.html is not None, args.markdown is not None, args.alpha is not None, args.max_drop is not None,
             args.quarantine_flaky]
    return [name for name, on in zip(COMPARE_ONLY, given) if on]


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.tables is not None or tables_command.given(args):
        return tables_command.run(parser, args)
    if args.compare is None:
        stray = _compare_options_given(args)
        if stray:
            parser.error(f"{', '.join(stray)}: only with --compare BASE NEW")
        return generate(Path(args.results or DEFAULT_RESULTS), Path(args.output or DEFAULT_OUTPUT))
    if args.results is not None or args.output is not None:
        parser.error("RESULTS and -o/--output are for the Allure report; with --compare use --html / --markdown")
    if args.html is None and args.markdown is None:
        parser.error("--compare needs --html FILE and/or --markdown FILE")
    from pytest_cua.results.compare.command import write_report

    base, new = args.compare
    return write_report(base, new, html=args.html, markdown=args.markdown,
                        alpha=0.05 if args.alpha is None else args.alpha,
                        max_drop=0.0 if args.max_drop is None else args.max_drop,
                        quarantine_flaky=args.quarantine_flaky)


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``report`` to the ``pytest-cua`` command."""
    parser = subparsers.add_parser("report", help="turn Allure results into an HTML report (Allure 3), "
                                                  "compare two runs (--compare BASE NEW --html FILE), or write a "
                                                  "run's paper tables (--tables RUN)",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    # results and -o default to None so that giving them with --compare is noticed (the defaults apply later)
    parser.add_argument("results", nargs="?", default=None,
                        help=f"folder of Allure results (default {DEFAULT_RESULTS})")
    parser.add_argument("-o", "--output", default=None,
                        help=f"folder for the HTML report (default {DEFAULT_OUTPUT})")
    compare = parser.add_argument_group("comparing two runs")
    compare.add_argument("--compare", nargs=2, metavar=("BASE", "NEW"),
                         help="compare two pytest-cua summary.json files (BASE the reference, NEW the candidate) "
                              "instead of running Allure; exit 0 when the gate passes, 1 when it fails")
    compare.add_argument("--html", metavar="FILE",
                         help="write the self-contained HTML comparison with plots (needs matplotlib: "
                              "pip install 'pytest-cua[report]')")
    compare.add_argument("--markdown", metavar="FILE",
                         help="write the comparison as markdown (a CI comment); with --tables, the tables")
    compare.add_argument("--alpha", type=_probability, default=None,
                         help="significance level; intervals are at 1 - alpha (default 0.05)")
    compare.add_argument("--max-drop", type=_fraction, default=None,
                         help="success-rate drop (absolute, 0..1) a significant regression may have and still "
                              "pass the gate (default 0)")
    compare.add_argument("--quarantine-flaky", action="store_true",
                         help="leave the tasks flaky in either run out of the figures and the gate")
    tables_command.add_arguments(parser)
    parser.set_defaults(func=functools.partial(_run, parser))
