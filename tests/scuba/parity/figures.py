"""The parity figure the READMEs quote, computed from a run of the current code, never typed in.

``python3 -m tests.scuba.parity.figures`` runs the full parity run (``test_parity.py`` with
``PYTEST_CUA_PARITY_TASKS=templates`` and ``PYTEST_CUA_PARITY_CASE=all``: the noop, oracle and partial end states
of the first task of each of the release's 60 templates and every ``case`` state; ``test_near_misses.py`` with
``PYTEST_CUA_PARITY_NEAR=all``: every near miss of those tasks) into a new reports folder, then counts the end
states its reports hold and prints one line::

    1,093 end states (180 noop/oracle/partial of 60 tasks, 16 case, 897 near misses; 88 near misses not made):
    score_scuba agrees with SCUBA's evaluator on 1,093, score on 1,091 (2 listed deviations, 0 others);
    pytest: 1113 passed, 88 skipped in ...; 19 min 12 s

``--sample`` runs the CI sample instead (the modules' defaults); ``--count DIR`` only counts the reports of an
earlier run (``$PYTEST_CUA_PARITY_REPORTS``, ``reports/parity``). The exit status is pytest's (2 when the
reports hold no end state), so a failing run never prints a figure unseen.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .known import KNOWN, STATES

REPO = Path(__file__).resolve().parents[3]
MODULES = ("tests/scuba/parity/test_parity.py", "tests/scuba/parity/test_near_misses.py")
FULL = {"PYTEST_CUA_PARITY_TASKS": "templates", "PYTEST_CUA_PARITY_CASE": "all", "PYTEST_CUA_PARITY_NEAR": "all"}
SAMPLE = {"PYTEST_CUA_PARITY_TASKS": "sample", "PYTEST_CUA_PARITY_CASE": "", "PYTEST_CUA_PARITY_NEAR": "sample"}


class NoReports(ValueError):
    """The folder holds no compared end state."""


@dataclass
class Figures:
    tasks: int = 0        # release tasks with noop/oracle/partial reports
    states: int = 0       # noop, oracle, partial end states compared
    case: int = 0         # names in another letter case compared
    near: int = 0         # near misses compared
    not_made: int = 0     # near misses the solver or the org refused
    no_partial: int = 0   # tasks whose partial state could not be made (no changed ground truth solved)
    exact_agree: int = 0  # score_scuba agrees with SCUBA's evaluator
    agree: int = 0        # score agrees
    listed: int = 0       # score disagrees where DEVIATIONS.md's parity table lists the state
    other: int = 0        # score disagrees and nothing lists it

    @property
    def total(self) -> int:
        return self.states + self.case + self.near

    def add(self, task_id: str, state: str, row: dict[str, Any]) -> None:
        if "agree" not in row or "exact_agree" not in row:
            raise ValueError(f"{task_id} [{state}]: a report row without 'agree'/'exact_agree' (not judged)")
        self.exact_agree += bool(row["exact_agree"])
        if row["agree"]:
            self.agree += 1
        elif (task_id, state) in KNOWN:
            self.listed += 1
        else:
            self.other += 1

    def line(self) -> str:
        return (f"{self.total:,} end states ({self.states:,} noop/oracle/partial of {self.tasks} tasks, "
                f"{self.case} case, {self.near:,} near misses; {self.not_made} near misses and {self.no_partial} "
                f"partial states not made): "
                f"score_scuba agrees with SCUBA's evaluator on {self.exact_agree:,}, score on {self.agree:,} "
                f"({self.listed} listed deviations, {self.other} others)")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a parity report ({exc})") from exc


def count(folder: Path) -> Figures:
    """The figures of the reports in ``folder``: ``<task>.json`` (noop, oracle, partial), ``<task>-case.json``
    and ``near/<task>-<state>.json``, as ``test_parity.py`` and ``test_near_misses.py`` write them."""
    figures = Figures()
    for path in sorted(folder.glob("*.json")):
        data = _json(path)
        if not isinstance(data, dict) or "task_id" not in data:
            continue
        if "case" in data:
            figures.case += 1
            figures.add(data["task_id"], "case", data["case"])
        elif "noop" in data:
            figures.tasks += 1
            for state in STATES:
                cell = data.get(state)
                if cell is None or "skipped" in cell:
                    figures.no_partial += cell is not None
                    continue
                figures.states += 1
                figures.add(data["task_id"], state, cell)
    for path in sorted((folder / "near").glob("*.json")):
        row = _json(path)
        if "skipped" in row:
            figures.not_made += 1
            continue
        figures.near += 1
        figures.add(row["task_id"], row["state"], row)
    if not figures.total:
        raise NoReports(f"{folder}: no compared end state (no parity reports there)")
    return figures


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


def pytest_outcome(output: str) -> str:
    """pytest's closing counts (``1113 passed, 88 skipped in 1150.2s``), or the last line of its output."""
    lines = [ln.strip("= ").strip() for ln in output.splitlines() if ln.strip()]
    done = [ln for ln in lines if re.search(r"\b(passed|failed|skipped|errors?|no tests ran)\b", ln)
            and re.search(r"\bin [\d.]+s\b", ln)]
    return (done or lines or ["no output"])[-1]


def run(reports: Path, workers: str, settings: dict[str, str], extra: Iterable[str]) -> tuple[int, str, float]:
    """One parity run into ``reports``: pytest's exit status, closing counts and wall seconds."""
    env = {**os.environ, **settings, "PYTEST_CUA_PARITY_REPORTS": str(reports)}
    cmd = [sys.executable, "-m", "pytest", *MODULES, "-p", "no:cacheprovider", "-q", "-rfE"]
    if workers not in ("", "0"):
        cmd += ["-n", workers]
    cmd += list(extra)
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=REPO, env=env, text=True, capture_output=True)
    seconds = time.monotonic() - started
    (reports / "pytest.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    return proc.returncode, pytest_outcome(proc.stdout), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tests.scuba.parity.figures",
                                     description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-n", dest="workers", default="2", help="xdist workers (default 2; 0 for none)")
    parser.add_argument("--sample", action="store_true", help="the CI sample, not the full run")
    parser.add_argument("--reports", type=Path, help="the reports folder of the run (default: a new one under /tmp)")
    parser.add_argument("--count", type=Path, metavar="DIR", help="only count the reports of an earlier run")
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.count is not None:
        try:
            print(count(args.count).line())
        except (NoReports, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 2
        return 0
    reports = args.reports or Path(tempfile.mkdtemp(prefix="pytest-cua-parity-"))
    reports.mkdir(parents=True, exist_ok=True)
    code, outcome, seconds = run(reports, args.workers, SAMPLE if args.sample else FULL, args.pytest_args)
    try:
        figures = count(reports)
    except (NoReports, ValueError) as exc:
        print(f"{exc}; pytest: {outcome} (exit {code}); log: {reports / 'pytest.log'}", file=sys.stderr)
        return code or 2
    print(f"{figures.line()}; pytest: {outcome} (exit {code}); {_minutes(seconds)}; reports: {reports}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
