"""Every script in benchmarks/ runs to its figures: a benchmark that crashes is a failing test.

Each script is run as a user runs it (``python3 benchmarks/<name>.py``), with the smallest arguments that still
go through every part of it, and must exit 0 and print its table. The figures themselves are not judged here (a
busy machine would make that a flaky test); ``benchmarks/README.md`` keeps the measured ones. Scripts whose smoke
run takes more than about 20 s (inner suite runs, a VM, two daemons) are part of the full run
(``PYTEST_CUA_FULL=1``), and a benchmark added without a smoke run here or a test of its own fails
``test_every_benchmark_has_a_smoke_run``. A smoke run writes what it keeps (reports, screenshots) under the test's
temporary folder (``{tmp}`` in its arguments), never into the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.scuba.release_root import require_release
from tests.vm.conftest import guest_disk, kvm_ready, qemu_ready  # noqa: F401 - fixtures of vm_bench.py's run

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"


@dataclass(frozen=True)
class Smoke:
    args: tuple[str, ...]  # "{tmp}" stands for the test's temporary folder
    prints: str | tuple[str, ...]  # lines of the script's table (each must be in its output)
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())
    timeout_s: float = 600.0
    needs: tuple[str, ...] = ()  # fixtures beyond the marks' own (NEEDS)


#: what a mark needs of the machine: the fixture that skips without it (tests/conftest.py, tests/vm/conftest.py)
NEEDS = {"docker": "docker_client", "browser": "chromium_available", "vm": "guest_disk"}
#: two R tasks of ProSoft in the office image (the smallest desktop that runs them; the suite's own is arena)
R_TASKS = ("-k", "r-count-north or r-mean-amount", "--cua-docker-image", "cua-desktop-office")

SMOKE = {
    "gate_noise.py": Smoke(("--tasks", "30", "--pairs", "5", "--trials", "1", "--drops", "0.0", "0.1",
                            "--resamples", "100"), "paired gate fails"),
    "reset_bench.py": Smoke(("--runs", "1", "--think", "0", "--modes", "preboot"), "rollback until the page is ready", (pytest.mark.browser,)),
    "desktop_axtree.py": Smoke(("--rounds", "1", "--rows", "20", "--cols", "3"), "som (observe som: walk+shot+marks)",
                               (pytest.mark.docker,)),
    # gw1 killed in its first task (of two): the crashed task in summary.json, nothing of gw1 left in Docker
    "worker_crash.py": Smoke(("--after", "0", "--reports", "{tmp}/reports", "--", *R_TASKS),
                             "crashed test in summary.json: outcome error, error_kind worker_crash",
                             (pytest.mark.docker, pytest.mark.full)),  # CI proves a crashed worker: test_sweep.py
    # one release task on a served org and in process, one full reset
    "realorg_rollback.py": Smoke(("--limit", "1", "--resets", "1"),
                                 ("embedded, in process (store snapshot)", "full reset of the API org"),
                                 (pytest.mark.browser, pytest.mark.full), needs=("scuba_release",)),
    # one task per run, one worker, one browser server, every mode
    "remote_browsers.py": Smoke(("--workers", "1", "--per-worker", "1", "--servers", "1", "--delay", "0",
                                 "--modes", "remote,in-process,all-remote", "--keep", "{tmp}"),
                                ("done -n 1 remote:", "done -n 1 in-process:", "done -n 1 all-remote:",
                                 "browser servers at the end"), (pytest.mark.browser, pytest.mark.full)),
    # one R task with one worker on each daemon (the office image is sent to the second dockerd once)
    "remote_docker.py": Smoke(("--workers", "1", "-k", "r-mean-amount", "--image", "cua-desktop-office"),
                              ("remote (tcp+TLS)", "local (unix socket)"), (pytest.mark.docker, pytest.mark.full)),
    # two catalogue pages, one replayed task and one rollback per side; the before side is HEAD (always there),
    # its worktree removed at the end when the run made it
    "ui_figures.py": Smoke(("--before", "HEAD", "--loads", "1", "--pages", "2", "--replay", "1", "--resets", "1",
                            "--out", "{tmp}/ui-figures", "--remove-worktree"),
                           ("page load, median over every page", "replay per task (median of 1 tasks",
                            "reset (after):\nreset benchmark"), (pytest.mark.browser, pytest.mark.full)),
    # a guest boot, its snapshot and one round of task and rollback, beside the Docker desktop
    "vm_bench.py": Smoke(("--rounds", "1", "--memory", "1024"), "goal: guest restore within 2 s median",
                         (pytest.mark.vm, pytest.mark.docker, pytest.mark.full)),
}
#: the scripts a test of their own runs (their ``--quick`` form or a pytest form)
OWN_TESTS = {"browser_bench.py": "tests/browser/test_benchmark.py", "model_bench.py": "tests/models/test_model_bench.py",
             "localorg_bench.py": "tests/localorg/test_benchmark.py", "docker_bench.py": "tests/desktop/test_benchmark.py"}


@pytest.fixture
def scuba_release() -> Path:
    """SCUBA's release (tests/scuba/release_root.py): skips without it, fails under CI."""
    return require_release()


def test_every_benchmark_has_a_smoke_run() -> None:
    scripts = sorted(p.name for p in BENCHMARKS.glob("*.py"))
    unaccounted = [s for s in scripts if s not in SMOKE and s not in OWN_TESTS]
    assert not unaccounted, f"benchmarks with no smoke run: add them to SMOKE in {__file__}: {unaccounted}"
    assert all((REPO / t).is_file() for t in OWN_TESTS.values())
    assert not (set(SMOKE) | set(OWN_TESTS)) - set(scripts), "a listed script is gone"
    assert not set(SMOKE) & set(OWN_TESTS), "a script is both in SMOKE and in OWN_TESTS"


@pytest.mark.parametrize("script", [pytest.param(name, marks=list(s.marks)) for name, s in SMOKE.items()])
def test_the_benchmark_runs_to_its_figures(script: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    smoke = SMOKE[script]
    for mark, needs in NEEDS.items():
        if request.node.get_closest_marker(mark) is not None:
            request.getfixturevalue(needs)
    for needs in smoke.needs:
        request.getfixturevalue(needs)
    args = [a.replace("{tmp}", str(tmp_path)) for a in smoke.args]
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=REPO, capture_output=True,
                          text=True, timeout=smoke.timeout_s, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    for line in (smoke.prints,) if isinstance(smoke.prints, str) else smoke.prints:
        assert line in proc.stdout, f"{line!r} not printed:\n{proc.stdout[-3000:]}"
