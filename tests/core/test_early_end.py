"""A session that ends early loses no result: every test the terminal reported has its record on disk, and the
run's summary.json holds what finished, after a real Ctrl-C (SIGINT to the process group), -x, --maxfail,
pytest.exit and --pdb with a closed stdin; --cua-resume then runs only what did not finish."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import task

WAIT_S = 120  # the inner run reaching the point where it is interrupted (a bound, never a sleep)


def _inner(pytester: pytest.Pytester, *args: str, env: dict[str, str] | None = None,
           stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen:
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]),
               **(env or {})}
    out = open(pytester.path / "inner.log", "w")
    return subprocess.Popen([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:randomly",
                             *args], cwd=pytester.path, env=environ, stdout=out, stderr=subprocess.STDOUT,
                            stdin=stdin, start_new_session=True, preexec_fn=_default_sigint)


def _default_sigint() -> None:
    """The inner run takes Ctrl-C as a terminal's foreground job does. A process started in the background by a
    shell without job control (``cmd &`` in a script, as a CI runner may start the tests) inherits SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler: the test's Ctrl-C would not arrive."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _reported(pytester: pytest.Pytester, word: str) -> set[str]:
    text = (pytester.path / "inner.log").read_text()
    return set(re.findall(rf"test_task\[([^\]]+)\] {word}", text)) | \
        set(re.findall(rf"{word} test_kv.py::test_task\[([^\]]+)\]", text))  # xdist's -v lines


def _records(pytester: pytest.Pytester, run: str) -> dict[str, dict]:
    folder = pytester.path / "reports" / "runs" / run / "records"
    found = {}
    for path in folder.glob("*.json"):
        record = json.loads(path.read_text())
        found[record["id"]] = record
    return found


def _summary_ids(pytester: pytest.Pytester) -> set[str]:
    return {r["id"] for r in json.loads((pytester.path / "reports" / "summary.json").read_text())["tasks"]}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_ctrl_c_during_a_rollback_keeps_every_reported_result(pytester, kv_suite, tmp_path: Path, workers):
    kv_suite("t.json", [task(f"c{i}") for i in range(6)])
    marks = tmp_path / "marks"
    marks.mkdir()
    proc = _inner(pytester, "--agent", "oracle", "--cua-run-id", "cut", *workers,
                  env={"KV_SLOW_RESTORE": f"30:{marks}"})
    try:
        deadline = time.monotonic() + WAIT_S
        # Ctrl-C once a rollback is under way and the terminal has reported a result: under xdist the controller
        # prints a worker's report a moment after the worker sent it, and a Ctrl-C before that leaves nothing
        # reported to check (a CI run interrupted it there once)
        while (not list(marks.iterdir()) or not _reported(pytester, "PASSED")) \
                and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert list(marks.iterdir()), "no rollback started"
        assert _reported(pytester, "PASSED"), "no result reported before the rollback"
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the controller and the workers
        try:
            proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the run did not end {WAIT_S} s after Ctrl-C; its output:\n"
                        + (pytester.path / "inner.log").read_text()[-4000:])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    passed = _reported(pytester, "PASSED")
    assert passed, (pytester.path / "inner.log").read_text()[-3000:]
    records = _records(pytester, "cut")
    assert passed <= set(records), f"reported passed without a record: {sorted(passed - set(records))}"
    assert all(records[t]["outcome"] == "passed" for t in passed)
    assert set(records) <= _summary_ids(pytester)  # the summary holds what finished

    resumed = pytester.runpytest_subprocess("--agent", "oracle", "--cua-resume", "cut", "-p", "no:randomly")
    outcomes = resumed.parseoutcomes()
    assert outcomes.get("passed", 0) == 6 - len(records)  # only what had no record runs again
    assert _summary_ids(pytester) == {f"c{i}" for i in range(6)}


@pytest.mark.parametrize("how", [["-x"], ["--maxfail", "1"], ["--pdb"]])
def test_a_session_stopped_by_a_failure_keeps_its_records(pytester, kv_suite, how):
    """-x and --maxfail stop after the first failure; --pdb with a closed stdin (no terminal) gets EOF at the
    debugger's prompt and ends the session there: the failed test and those before it keep their records."""
    kv_suite("t.json", [task("s1"), task("s2", demonstration={"actions": []}), task("s3")])
    proc = _inner(pytester, "--agent", "replay", "--cua-run-id", "stop", *how, stdin=subprocess.DEVNULL)
    proc.wait(timeout=WAIT_S)
    records = _records(pytester, "stop")
    assert {"s1", "s2"} <= set(records), (pytester.path / "inner.log").read_text()[-3000:]
    assert records["s2"]["outcome"] == "failed" and records["s1"]["outcome"] == "passed"
    assert {"s1", "s2"} <= _summary_ids(pytester)


def test_pytest_exit_in_a_task_keeps_the_records_before_it(pytester, kv_suite):
    kv_suite("t.json", [task("e1"), task("e2")])
    pytester.makeconftest("""
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    if item.name.endswith("[e1]"):
        pytest.exit("stopped by a plugin")
""")
    proc = _inner(pytester, "--agent", "oracle", "--cua-run-id", "exit")
    proc.wait(timeout=WAIT_S)
    assert "stopped by a plugin" in (pytester.path / "inner.log").read_text()
    assert set(_records(pytester, "exit")) == {"e1"}
    assert _summary_ids(pytester) == {"e1"}
