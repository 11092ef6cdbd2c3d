"""A desktop suite that cannot get a desktop on this machine is one message before any task runs, naming what to
run (issue: 42 ``FileNotFoundError: 'debootstrap'`` tracebacks, one per task, when the image could not be built).

Runs the real ProSoft suite (its ``app_calc and L1`` tasks) with two xdist workers against the real dockerd."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELECT = ["suites/prosoft", "-m", "app_calc and L1", "--agent", "replay", "-n", "2", "-p", "no:cacheprovider"]


def _run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *SELECT, "--cua-reports", str(tmp_path / "reports"),
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _one_error_and_nothing_ran(proc: subprocess.CompletedProcess[str], tmp_path: Path) -> str:
    out = proc.stdout
    assert proc.returncode not in (0, 5), out + proc.stderr
    assert out.count("ERROR collecting suites/prosoft/test_prosoft.py") == 1, out
    assert re.search(r"\(suite 'prosoft': none of its \d+ collected task\(s\) ran\)", out), out
    assert " passed" not in out and "INTERNALERROR" not in out and "Traceback" not in out
    records = tmp_path / "reports" / "runs"
    assert not list(records.glob("*/records/*.json")), "a task ran"
    return out


@pytest.mark.usefixtures("docker_client")
def test_an_image_with_no_recipe_is_one_error_naming_it(tmp_path: Path) -> None:
    out = _one_error_and_nothing_ran(_run(tmp_path, "--cua-docker-image", "cua-no-such-image"), tmp_path)
    assert "docker image 'cua-no-such-image' does not exist, and there is no image recipe 'cua-no-such-image' in " \
        in out and "(known: cua-desktop-arena, cua-desktop-base, cua-desktop-office, cua-desktop-pro)" in out


@pytest.mark.usefixtures("docker_client")
def test_an_image_that_cannot_be_built_here_names_the_missing_programs_and_what_to_run(tmp_path: Path) -> None:
    """The image is not built (pretended, by the plugin) and the image builder's programs are not on PATH (real:
    PATH without the sbin folders, where Debian keeps debootstrap and chroot)."""
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if not d.rstrip("/").endswith("sbin"))
    proc = _run(tmp_path, "-p", "tests.desktop.unbuilt_image_plugin", env={"PATH": path})
    out = _one_error_and_nothing_ran(proc, tmp_path)
    assert "docker image 'cua-desktop-arena' is not built, and building it needs debootstrap, chroot, which this " \
        "machine lacks: run `bash scripts/install.sh --docker` (as root), then `pytest-cua image build " \
        "cua-desktop-arena`; `pytest-cua doctor` lists everything this machine lacks" in out, out


@pytest.mark.parametrize("serial", [False, True], ids=["xdist", "one-process"])
def test_without_a_docker_engine_the_message_says_how_to_start_one(tmp_path: Path, serial: bool) -> None:
    """Serial and with two xdist workers alike: one message, and the exit code of a run stopped by a collection
    error (2), not 1 under xdist."""
    proc = _run(tmp_path, *(["-n", "0"] if serial else []), env={"DOCKER_HOST": f"unix://{tmp_path}/no-dockerd.sock"})
    assert proc.returncode == 2, proc.stdout[-3000:]
    out = _one_error_and_nothing_ran(proc, tmp_path)
    assert "desktop suites need the Docker engine: docker engine not reachable (" in out
    assert "run bash scripts/ensure_docker.sh (installs docker.io and starts dockerd)" in out, out


@pytest.mark.parametrize("settle, argv, expected", [
    (True, ["soffice", "--calc", "/root/work/budget.xlsx"], 16),
    (True, ["/usr/bin/soffice", "--writer"], 16),
    (True, ["xterm", "-e", "R"], 1),
    (True, None, 1),
    ({"min_shades": 40}, ["xterm"], 40),
    (False, ["soffice"], None),
])
def test_how_many_shades_a_started_window_must_show(settle: Any, argv: Any, expected: Any) -> None:
    from pytest_cua.envs.docker.startup import settle_shades

    assert settle_shades(settle, argv, "t") == expected


@pytest.mark.parametrize("settle", [{"min_shade": 3}, {"min_shades": 0}, {"min_shades": "16"}, "yes", 1])
def test_a_bad_settle_field_names_the_task_and_field(settle: Any) -> None:
    from pytest_cua.envs.base import ProvisioningError
    from pytest_cua.envs.docker.startup import settle_shades

    with pytest.raises(ProvisioningError, match=r"task 't': field 'settle' must be true, false or"):
        settle_shades(settle, ["soffice"], "t")
