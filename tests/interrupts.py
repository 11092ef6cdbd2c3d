"""A run of an inner pytest interrupted as a terminal's Ctrl-C interrupts it: SIGINT to the whole process group
(pytest, its xdist workers and everything they started: Chromium, the docker client), once the run has reported a
first result. Used by the browser and desktop Ctrl-C tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
WAIT_S = 900  # a bound on the inner run reaching its first result on a busy machine (never a sleep)


@dataclass
class Interrupted:
    returncode: int
    output: str
    summary: dict[str, Any] | None


def _default_sigint() -> None:
    """Take Ctrl-C as a terminal's foreground job does (a background shell may have started us with SIGINT
    ignored, which the child would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_and_interrupt(args: list[str], reports: Path, first: str = r" (PASSED|FAILED) ") -> Interrupted:
    """Run ``pytest ARGS --cua-reports REPORTS -v`` in a new process group with a closed stdin; when its output
    shows a first result (``first``, a regular expression), send SIGINT to the group; wait for it to end."""
    log = reports.parent / "interrupted.log"
    reports.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args,
                                 "--cua-reports", str(reports)], cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + WAIT_S
        while proc.poll() is None and time.monotonic() < deadline and not re.search(first, log.read_text()):
            time.sleep(0.1)
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before it was interrupted:\n{log.read_text()[-4000:]}")
        assert re.search(first, log.read_text()), f"no result within {WAIT_S} s:\n{log.read_text()[-4000:]}"
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    summary_path = reports / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    return Interrupted(proc.returncode, log.read_text(), summary)


def assert_ended_as_an_interrupt(run: Interrupted) -> None:
    """Exit code 2 (pytest's interrupt), the table and the summary of what finished, marked incomplete, and no
    internal traceback."""
    out = run.output
    assert run.returncode == 2, f"exit code {run.returncode}:\n{out[-5000:]}"
    assert "INTERNALERROR" not in out and "EnvironmentCrash" not in out, out[-5000:]
    assert "pytest-cua summary" in out, out[-5000:]
    assert run.summary is not None, "no summary.json"
    assert run.summary["run"]["complete"] is False, run.summary["run"]
    assert run.summary["tasks"], "the summary holds no finished task"
    assert "--cua-resume" in out
