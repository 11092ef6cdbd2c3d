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

from .conftest import read_summary, task

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


def test_a_ctrl_c_python_swallows_still_ends_the_run_as_an_interrupt(pytester, kv_suite, tmp_path: Path):
    """A KeyboardInterrupt raised inside a weakref callback or ``__del__`` is printed and lost (a CI run met it:
    the rollback then found Chromium gone, and the run went on and ended with exit code 1): the session's SIGINT
    handler notes the Ctrl-C, so the run still ends as pytest's interrupt, with its summary, and no task after."""
    kv_suite("t.json", [task(f"c{i}") for i in range(4)])
    marks = tmp_path / "marks"
    marks.mkdir()
    proc = _inner(pytester, "--agent", "oracle", "--cua-run-id", "lost", env={"KV_SWALLOW_SIGINT": str(marks)})
    try:
        deadline = time.monotonic() + WAIT_S
        while not list(marks.iterdir()) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert list(marks.iterdir()), "no rollback started"
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    out = (pytester.path / "inner.log").read_text()
    assert proc.returncode == 2, out[-4000:]
    assert "EnvironmentCrash" not in out and "INTERNALERROR" not in out, out[-4000:]
    assert len(list(marks.iterdir())) == 1, "a task ran after the Ctrl-C"
    summary = read_summary(pytester)
    assert summary["run"]["complete"] is False
    assert [t["id"] for t in summary["tasks"]] == ["c0"]
    assert "--cua-resume lost" in out


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


# --- an interrupted run says so (complete: false), the gate and compare refuse it, a resume covers it all ------

def _summary(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "reports" / "summary.json").read_text())


@pytest.mark.parametrize("how", [["-x"], ["--maxfail", "1"], ["exit"]], ids=["x", "maxfail", "pytest-exit"])
def test_a_run_stopped_early_is_marked_incomplete_and_says_how_to_finish_it(pytester, kv_suite, how):
    kv_suite("t.json", [task("p1"), task("p2", demonstration={"actions": []}), task("p3"), task("p4")])
    if how == ["exit"]:
        pytester.makeconftest("""
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    if item.name.endswith("[p2]"):
        pytest.exit("stopped by a plugin")
""")
        how = []
    proc = _inner(pytester, "--agent", "replay", "--cua-run-id", "early", *how)
    proc.wait(timeout=WAIT_S)
    out = (pytester.path / "inner.log").read_text()
    run = _summary(pytester)["run"]
    assert run["complete"] is False and run["collected"] == 4 and run["missing"] == 2, run
    assert sorted(run["missing_ids"]) == ["test_kv.py::test_task[p3]", "test_kv.py::test_task[p4]"]
    assert "run early is incomplete: it ended early; 2 of 4 collected task test(s) have no final record" in out
    assert "--cua-resume early" in out.split("finish it with:", 1)[1].splitlines()[1], out

    resumed = pytester.runpytest_subprocess("--agent", "replay", "--cua-resume", "early", "-p", "no:randomly")
    resumed.assert_outcomes(passed=2)
    run = _summary(pytester)["run"]
    assert run["complete"] is True and run["missing"] == 0 and run["sessions"] == 2


def test_the_gate_and_compare_refuse_an_incomplete_run(pytester, kv_suite):
    kv_suite("t.json", [task(f"g{i}") for i in range(4)])
    pytester.runpytest_subprocess("--agent", "oracle", "--cua-run-id", "base").assert_outcomes(passed=4)
    base = pytester.path / "base.json"
    base.write_text((pytester.path / "reports" / "summary.json").read_text())
    pytester.makeconftest("""
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    if item.name.endswith("[g1]"):
        pytest.exit("stopped by a plugin", returncode=0)
""")
    result = pytester.runpytest_subprocess("--agent", "oracle", "--cua-run-id", "cut", "--cua-baseline", str(base),
                                           "-p", "no:randomly")
    out = result.stdout.str()
    assert "gate passed" not in out
    assert "gate FAILED: the new run cut is incomplete: it ended early; 2 of 4 collected task test(s) have no " \
           "final record" in out, out
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # pytest.exit(returncode=0) does not pass the gate
    compared = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "compare", str(base),
                               str(pytester.path / "reports" / "summary.json")], capture_output=True, text=True,
                              timeout=WAIT_S)
    assert compared.returncode == 1, compared.stdout + compared.stderr
    assert "the new run cut is incomplete" in compared.stdout


def test_a_controller_killed_mid_run_leaves_a_summary_that_says_it_is_incomplete(pytester, kv_suite, tmp_path):
    kv_suite("t.json", [task(f"k{i}") for i in range(4)])
    marks = tmp_path / "marks"
    marks.mkdir()
    proc = _inner(pytester, "--agent", "oracle", "--cua-run-id", "killed", env={"KV_SLOW_RESTORE": f"4:{marks}"})
    try:
        deadline = time.monotonic() + WAIT_S
        summary = pytester.path / "reports" / "summary.json"
        while len(list(marks.iterdir())) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)  # the second rollback: the first task's record reached the controller
        assert summary.exists(), (pytester.path / "inner.log").read_text()[-3000:]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    run = json.loads(summary.read_text())["run"]
    assert run["complete"] is False and run["state"] == "running" and run["collected"] == 4, run


def test_reusing_a_run_id_without_resume_is_a_usage_error_that_keeps_the_run(pytester, kv_suite):
    kv_suite("t.json", [task("u1"), task("u2")])
    pytester.runpytest_subprocess("--agent", "oracle", "--cua-run-id", "mine").assert_outcomes(passed=2)
    again = pytester.runpytest_subprocess("--agent", "oracle", "--cua-run-id", "mine")
    assert again.ret == pytest.ExitCode.USAGE_ERROR
    err = again.stderr.str()
    assert "--cua-run-id mine: a run of that id is already in" in err and "(2 final record(s))" in err, err
    assert "--cua-resume mine" in err and "--cua-overwrite" in err
    assert set(_records(pytester, "mine")) == {"u1", "u2"}  # nothing was deleted
    over = pytester.runpytest_subprocess("--agent", "noop", "--cua-run-id", "mine", "--cua-overwrite")
    over.assert_outcomes(failed=2)
    assert {r["outcome"] for r in _records(pytester, "mine").values()} == {"failed"}


def test_quitting_pdb_keeps_the_runs_identity_and_the_junit_properties(pytester, kv_suite):
    """``q`` at the debugger's prompt (a real pipe, then closed) ends the session before the test's teardown:
    run.json is written, the JUnit case carries the ``cua_*`` properties, and a resume with another agent is
    refused as for any other run."""
    kv_suite("t.json", [task("d1", demonstration={"actions": []}), task("d2")])
    proc = _inner(pytester, "--agent", "replay", "--cua-run-id", "dbg", "--pdb", "--junitxml", "j.xml",
                  stdin=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(b"q\n")
    proc.stdin.close()
    proc.wait(timeout=WAIT_S)
    out = (pytester.path / "inner.log").read_text()
    assert "Quitting debugger" in out or "BdbQuit" in out, out[-3000:]
    assert json.loads((pytester.path / "reports" / "runs" / "dbg" / "run.json").read_text())["agent"] == "replay"
    junit = (pytester.path / "j.xml").read_text()
    assert '<property name="cua_outcome" value="failed"' in junit, junit
    other = pytester.runpytest_subprocess("--agent", "oracle", "--cua-resume", "dbg")
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    assert "the run was started with agent 'replay'" in other.stderr.str()


def test_a_tasks_time_counts_its_environments_start(pytester, kv_suite):
    """A program's start-up (``begin_task``) is part of the task's time: in the record (``start_s``, and
    ``task_s`` the sum of start, episode, evaluation and rollback) and in the table's time column."""
    kv_suite("t.json", [task("s1"), task("s2")])
    proc = _inner(pytester, "--agent", "oracle", env={"KV_SLOW_BEGIN": "0.6"})
    proc.wait(timeout=WAIT_S)
    summary = _summary(pytester)
    for record in summary["tasks"]:
        times = record["times"]
        assert times["start_s"] >= 0.6, times
        parts = sum(times[k] or 0.0 for k in ("start_s", "wall_s", "eval_s", "reset_s"))
        assert abs(times["task_s"] - parts) < 0.01, times
    assert summary["totals"]["mean_time_s"] >= 0.6 and summary["totals"]["mean_start_s"] >= 0.6
    table = [line for line in (pytester.path / "inner.log").read_text().splitlines() if line.startswith("total")]
    assert float(table[0].split()[7]) >= 0.6, table  # the "time s" column


def test_a_resume_under_another_observation_setting_is_refused(pytester, kv_suite):
    """ProSoftArena's observation settings are ablations: one run holds one setting (run.json notes it)."""
    kv_suite("t.json", [task("o1"), task("o2")])
    pytester.runpytest_subprocess("--agent", "oracle", "--cua-run-id", "obs", "--cua-observe", "screenshot",
                                  "-k", "o1").assert_outcomes(passed=1)
    other = pytester.runpytest_subprocess("--agent", "oracle", "--cua-resume", "obs", "--cua-observe",
                                          "som+screenshot")
    assert other.ret == pytest.ExitCode.USAGE_ERROR
    assert "the run was started with observe 'screenshot'" in other.stderr.str(), other.stderr.str()
    same = pytester.runpytest_subprocess("--agent", "oracle", "--cua-resume", "obs", "--cua-observe", "screenshot")
    same.assert_outcomes(passed=1)
