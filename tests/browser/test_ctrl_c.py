"""Ctrl-C at a terminal (SIGINT to the whole process group, so Chromium dies with pytest) ends a SCUBA run on the
embedded org as pytest's interrupt does: exit code 2, the table and a summary of what finished, marked incomplete
with the --cua-resume line; no internal traceback from the rollback that met the dead browser. Serial and with
two xdist workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interrupts import assert_ended_as_an_interrupt, run_and_interrupt

pytestmark = pytest.mark.browser


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_ctrl_c_ends_a_scuba_run_as_an_interrupt_with_its_summary(tmp_path: Path, workers: list[str]) -> None:
    run = run_and_interrupt(["suites/scuba", "--agent", "replay", "-k", "create_lead", *workers],
                            tmp_path / "reports")
    assert_ended_as_an_interrupt(run)
    assert all(t["outcome"] == "passed" for t in run.summary["tasks"])  # type: ignore[index]
