"""``pytest-cua report``: turn reports/allure-results into an HTML report with the Allure command line.

Uses Allure 3 from the npm package ``allure`` (``npx allure generate DIR -o OUT``): a project-local
``node_modules/.bin/allure``, else ``allure`` on PATH, else ``npx --no-install allure``. Nothing is downloaded:
when none is installed the command says how to install it (``npm install allure``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

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


def _run(args: argparse.Namespace) -> int:
    return generate(Path(args.results), Path(args.output))


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``report`` to the ``pytest-cua`` command."""
    parser = subparsers.add_parser("report", help="turn Allure results into an HTML report (Allure 3)",
                                   description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("results", nargs="?", default=DEFAULT_RESULTS,
                        help=f"folder of Allure results (default {DEFAULT_RESULTS})")
    parser.add_argument("-o", "--output", default=DEFAULT_OUTPUT,
                        help=f"folder for the HTML report (default {DEFAULT_OUTPUT})")
    parser.set_defaults(func=_run)
