"""Every script in benchmarks/ runs to its figures: a benchmark that crashes is a failing test.

Each script is run as a user runs it (``python3 benchmarks/<name>.py``), with the smallest arguments that still
go through every part of it, and must exit 0 and print its table. The figures themselves are not judged here (a
busy machine would make that a flaky test); ``benchmarks/README.md`` keeps the measured ones. Scripts whose smoke
run takes minutes (inner suite runs, a VM, two daemons) are part of the full run (``PYTEST_CUA_FULL=1``), and a
benchmark added without a smoke run here or a test of its own fails ``test_every_benchmark_has_a_smoke_run``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"


@dataclass(frozen=True)
class Smoke:
    args: tuple[str, ...]
    prints: str  # a line of the script's table
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())
    timeout_s: float = 600.0


SMOKE = {
    "gate_noise.py": Smoke(("--tasks", "30", "--pairs", "5", "--trials", "1", "--drops", "0.0", "0.1",
                            "--resamples", "100"), "paired gate fails"),
    "reset_bench.py": Smoke(("--runs", "1", "--think", "0", "--modes", "preboot"), "rollback until the page is ready", (pytest.mark.browser,)),
    "desktop_axtree.py": Smoke(("--rounds", "1", "--rows", "20", "--cols", "3"), "som (observe som: walk+shot+marks)",
                               (pytest.mark.docker,)),
}
#: the scripts a test of their own runs (their ``--quick`` form or a pytest form)
OWN_TESTS = {"browser_bench.py": "tests/browser/test_benchmark.py", "model_bench.py": "tests/models/test_model_bench.py",
             "localorg_bench.py": "tests/localorg/test_benchmark.py", "docker_bench.py": "tests/desktop/test_benchmark.py"}
#: scripts with no smoke run yet, and why (each a run of minutes: inner suite runs, several daemons, a VM)
NOT_YET = {"realorg_rollback.py": "two oracle runs over the first task of 60 release templates",
           "remote_browsers.py": "inner suite runs at 4, 8 and 16 workers against browser servers",
           "remote_docker.py": "a second dockerd and a ProSoft run on it",
           "ui_figures.py": "a worktree of the previous commit and replays on both sides",
           "vm_bench.py": "a guest boot and snapshots under KVM",
           "worker_crash.py": "a ProSoft run whose worker is killed"}


def test_every_benchmark_has_a_smoke_run() -> None:
    scripts = sorted(p.name for p in BENCHMARKS.glob("*.py"))
    unaccounted = [s for s in scripts if s not in SMOKE and s not in OWN_TESTS and s not in NOT_YET]
    assert not unaccounted, f"benchmarks with no smoke run: add them to SMOKE in {__file__}: {unaccounted}"
    assert all((REPO / t).is_file() for t in OWN_TESTS.values())
    assert not (set(SMOKE) | set(OWN_TESTS) | set(NOT_YET)) - set(scripts), "a listed script is gone"


@pytest.mark.parametrize("script", [pytest.param(name, marks=list(s.marks)) for name, s in SMOKE.items()])
def test_the_benchmark_runs_to_its_figures(script: str, request: pytest.FixtureRequest) -> None:
    smoke = SMOKE[script]
    for mark, needs in (("docker", "docker_client"), ("browser", "chromium_available")):  # tests/conftest.py
        if request.node.get_closest_marker(mark) is not None:
            request.getfixturevalue(needs)
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *smoke.args], cwd=REPO, capture_output=True,
                          text=True, timeout=smoke.timeout_s, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert smoke.prints in proc.stdout, proc.stdout[-3000:]
