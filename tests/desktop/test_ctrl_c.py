"""Ctrl-C at a terminal (SIGINT to the whole process group) ends a desktop run as pytest's interrupt does: exit
code 2, the table and the summary of what finished, marked incomplete, no internal traceback; no container of the
run is left behind. A small suite on cua-desktop-base (files/ctrl_c), serial and with two xdist workers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.interrupts import assert_ended_as_an_interrupt, run_and_interrupt

pytestmark = pytest.mark.docker

SUITE = Path(__file__).with_name("files") / "ctrl_c"


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_ctrl_c_ends_a_desktop_run_as_an_interrupt(tmp_path: Path, workers: list[str], base_image: str,
                                                    docker_client: Any) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    (suite / "desk_suite.py").rename(suite / "test_desk.py")  # kept under another name: the project's own run
    run_id = f"desk-cut-{len(workers)}"  # one per parametrization: the two may run at once on two outer workers
    run = run_and_interrupt([str(suite), "--agent", "noop", "--cua-run-id", run_id, *workers],
                            tmp_path / "reports", first=r" FAILED ")
    assert_ended_as_an_interrupt(run)
    assert all(t["outcome"] == "failed" for t in run.summary["tasks"])  # type: ignore[index]
    left = docker_client.containers.list(all=True, sparse=True, filters={"label": f"pytest-cua.run={run_id}"})
    assert not left, f"containers left behind: {[c.name for c in left]}"
