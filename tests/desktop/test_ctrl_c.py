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


def test_a_container_no_environment_holds_is_swept_after_an_interrupt_in_one_process(tmp_path: Path, base_image: str,
                                                                                   docker_client: Any) -> None:
    """The interrupt may come while the daemon makes a container that no environment holds yet (a one-process
    run's restore starting a fresh one): after the teardown, the run's containers are swept all the same. Such a
    container is stood in for by one made with the run's labels before the run."""
    from pytest_cua.envs.docker.leftovers import LABEL_ROLE, LABEL_RUN, LABEL_WORKER

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    (suite / "desk_suite.py").rename(suite / "test_desk.py")
    run_id = "desk-cut-stray"
    stray = docker_client.containers.create(base_image, ["sleep", "600"], network_mode="none",
                                            labels={LABEL_RUN: run_id, LABEL_WORKER: "master", LABEL_ROLE: "env"})
    try:
        run = run_and_interrupt([str(suite), "--agent", "noop", "--cua-run-id", run_id], tmp_path / "reports",
                                first=r" FAILED ")
        assert_ended_as_an_interrupt(run)
        left = docker_client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL_RUN}={run_id}"})
        assert not left, f"containers left behind: {[c.id[:12] for c in left]}\n{run.output[-3000:]}"
    finally:
        try:
            stray.remove(force=True)
        except Exception:  # noqa: BLE001 - swept, as it should be
            pass
