"""Gating agent releases: trials, the paired gate at the end of a run, retries of errors only, resume after a
kill, and a worker that dies under a task (inner pytest runs on the KV suite of conftest.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import read_summary, task

AGENTS = '''
import os, random
from pathlib import Path
from pytest_cua.agents.base import Agent, AgentError, Turn
from pytest_cua.agents.builtin import OracleAgent, ReplayAgent
from pytest_cua.actions import Done, Fill, Wait

RNG = random.Random(int(os.environ.get("COIN_SEED", "7")))
SEEN = {}  # agent name -> the tasks it has started in this process

class Coin(OracleAgent):
    """Solves the task or gives up, on a seeded coin toss per episode: passes about half the time."""
    name = "coin"
    def start(self, task, context):
        super().start(task, context)
        self.heads = RNG.random() < 0.5
    def step(self, observation):
        return super().step(observation) if self.heads else [Done()]

class FirstEpisode(ReplayAgent):
    """Replays the demonstration; ``self.first`` tells whether this is its first episode of the task in this
    process (each subclass keeps its own count)."""
    def start(self, task, context):
        super().start(task, context)
        seen = SEEN.setdefault(self.name, set())
        self.first = task.id not in seen
        seen.add(task.id)

class Outage(FirstEpisode):
    """The model API is down for the first episode of each task in this process, then works."""
    name = "outage"
    def step(self, observation):
        if self.first:
            raise AgentError("model API: 503 Service Unavailable (retry budget spent)")
        return super().step(observation)

class Slow(ReplayAgent):
    """Replays the demonstration after a short wait per task: a run that takes a few seconds."""
    name = "slow"
    def step(self, observation):
        if observation.step == 0:
            return [Wait(seconds=0.4)]
        return super().step(observation)

class Killer(ReplayAgent):
    """Kills its own worker process on the task whose id is in $KILL_TASK, the first time only."""
    name = "killer"
    def start(self, task, context):
        super().start(task, context)
        flag = Path(os.environ["KILL_FLAG"])
        if task.id == os.environ.get("KILL_TASK") and not flag.exists():
            flag.write_text(str(os.getpid()))
            os.kill(os.getpid(), 9)


class StickyOnce(FirstEpisode):
    """Leaves a key the rollback cannot remove in its first episode of each task (a rollback error), then
    replays the demonstration."""
    name = "stickyonce"
    def step(self, observation):
        if self.first and observation.step == 0:
            return [Fill(target="sticky_note", text="left behind")]
        return super().step(observation)
'''

CONFTEST = '''
import gating_test_agents as agents  # the test's own name: another ``agents`` may be imported in this worker
def pytest_cua_agents(config):
    return {"coin": agents.Coin, "outage": agents.Outage, "slow": agents.Slow, "killer": agents.Killer,
            "stickyonce": agents.StickyOnce}
'''


@pytest.fixture
def gating(pytester: pytest.Pytester, kv_suite):
    pytester.makepyfile(gating_test_agents=AGENTS, conftest=CONFTEST)
    return kv_suite


def test_trials_give_stable_ids_and_pass_at_k(pytester, gating):
    gating("t.json", [task("a1"), task("a2")])
    result = pytester.runpytest("--agent", "coin", "--cua-trials", "4", "-v")
    ids = [line.split("::")[1].split()[0] for line in result.outlines if "test_kv.py::test_task[" in line]
    assert ids[:4] == [f"test_task[a1-trial{n}]" for n in range(1, 5)]
    summary = read_summary(pytester)
    assert summary["run"]["trials"] == 4
    assert len(summary["tasks"]) == 8 and summary["totals"]["tasks"] == 2 and summary["totals"]["episodes"] == 8
    by_task: dict[str, list[dict]] = {}
    for r in summary["tasks"]:
        by_task.setdefault(r["id"], []).append(r)
    per_task = {t["id"]: t for t in summary["per_task"]}
    for tid, trials in by_task.items():
        assert sorted(r["trial"] for r in trials) == [1, 2, 3, 4]
        passed = sum(r["outcome"] == "passed" for r in trials)
        assert per_task[tid]["passed"] == passed
        assert per_task[tid]["pass_at_k"] == (passed > 0) and per_task[tid]["pass_hat_k"] == (passed == 4)
        assert per_task[tid]["mean_score"] == pytest.approx(passed / 4)
    # every trial has its own trajectory folder
    folders = sorted(p.name for p in (pytester.path / "reports" / "trajectories").glob("*/*"))
    assert folders == [f"{t}-trial{n}" for t in ("a1", "a2") for n in range(1, 5)]
    # -k selects one trial; --lf understands the ids
    one = pytester.runpytest("--agent", "oracle", "--cua-trials", "4", "-k", "a2-trial3")
    one.assert_outcomes(passed=1)
    assert "trials: 4 per task" in one.stdout.str()


def test_flaky_tasks_are_found_and_quarantined_from_the_gate(pytester, gating):
    """A seeded agent that passes half the time: its tasks are flaky across 6 trials; the gate against an
    all-passing baseline leaves them out with --cua-quarantine-flaky."""
    gating("t.json", [task(f"c{i}") for i in range(3)])
    pytester.runpytest("--agent", "oracle", "--cua-trials", "6")
    baseline = pytester.path / "base.json"
    baseline.write_text((pytester.path / "reports" / "summary.json").read_text())
    flaky = pytester.runpytest("--agent", "coin", "--cua-trials", "6", "--cua-baseline", str(baseline))
    comparison = json.loads((pytester.path / "reports" / "comparison.json").read_text())
    passes = {t["key"]: t["new"]["passed"] for t in comparison["tasks"]}
    mixed = sorted(k for k, n in passes.items() if 0 < n < 6)
    assert mixed, f"seed 7 should give mixed results: {passes}"
    assert comparison["flaky"] == mixed
    assert "flaky" in flaky.stdout.str()
    quarantined = pytester.runpytest("--agent", "coin", "--cua-trials", "6", "--cua-baseline", str(baseline),
                                     "--cua-quarantine-flaky")
    comparison = json.loads((pytester.path / "reports" / "comparison.json").read_text())
    assert comparison["quarantine_flaky"] is True
    assert comparison["overall"]["tasks"] == 3 - len(comparison["flaky"])
    assert quarantined.ret in (0, 1)


def test_gate_fails_on_a_significant_drop_and_says_why_in_one_line(pytester, gating):
    gating("t.json", [task(f"g{i}") for i in range(8)])
    pytester.runpytest("--agent", "oracle").assert_outcomes(passed=8)
    baseline = pytester.path / "baseline.json"
    baseline.write_text((pytester.path / "reports" / "summary.json").read_text())
    same = pytester.runpytest("--agent", "oracle", "--cua-baseline", str(baseline))
    assert same.ret == 0
    assert any(line.startswith("gate passed") for line in same.outlines)
    worse = pytester.runpytest("--agent", "noop", "--cua-baseline", str(baseline))
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    line = next(line for line in worse.outlines if line.startswith("gate FAILED"))
    assert "McNemar p=0.008" in line and "8 flips to fail" in line  # 2 * (1/2)^8 = 0.0078
    # a drop within --cua-max-drop passes even when significant
    tolerant = pytester.runpytest("--agent", "noop", "--cua-baseline", str(baseline), "--cua-max-drop", "1")
    assert any(line.startswith("gate passed") for line in tolerant.outlines)
    # with a baseline the exit status is the gate's: the 8 failed tasks are the measurement
    assert tolerant.ret == pytest.ExitCode.OK and tolerant.parseoutcomes()["failed"] == 8
    # two tasks lost of two: not significant (p = 0.5), so a small suite does not block on its own
    two = pytester.path / "two.json"
    data = json.loads(baseline.read_text())
    data["tasks"] = [r for r in data["tasks"] if r["id"] in ("g0", "g1")]
    two.write_text(json.dumps(data))
    small = pytester.runpytest("--agent", "noop", "-k", "g0 or g1", "--cua-baseline", str(two))
    assert any(line.startswith("gate passed") and "p=0.500" in line for line in small.outlines), small.outlines[-8:]
    assert small.ret == pytest.ExitCode.OK


def test_gate_fails_when_errors_grew(pytester, gating):
    gating("t.json", [task("e1"), task("e2", template="crashing")])
    pytester.runpytest("--agent", "oracle", "-k", "e1")
    baseline = pytester.path / "baseline.json"
    data = json.loads((pytester.path / "reports" / "summary.json").read_text())
    data["tasks"].append({**data["tasks"][0], "id": "e2", "nodeid": "test_kv.py::test_task[e2]"})  # passed then
    baseline.write_text(json.dumps(data))
    result = pytester.runpytest("--agent", "oracle", "--cua-baseline", str(baseline))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "errors 0 -> 1" in next(line for line in result.outlines if line.startswith("gate FAILED"))


def test_bad_baseline_is_a_usage_error_naming_the_file(pytester, gating):
    gating("t.json", [task("b1")])
    (pytester.path / "bad.json").write_text('{"not": "a summary"}')
    result = pytester.runpytest("--agent", "oracle", "--cua-baseline", "bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "bad.json" in result.stderr.str()


def test_errors_are_retried_failures_are_not(pytester, gating):
    gating("t.json", [task("r1"), task("r2", {"a": "1", "b": "2"})])
    result = pytester.runpytest("--agent", "outage", "--cua-retry-errors", "2", "--junitxml", "j.xml", "-rR")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 2}
    summary = read_summary(pytester)
    assert summary["totals"]["retries"] == 2 and summary["totals"]["error"] == 0
    for record in summary["tasks"]:
        assert record["attempt"] == 2 and record["retries"] == 1
        (earlier,) = record["earlier_attempts"]
        assert earlier["error_kind"] == "agent" and "503" in earlier["error"]
        assert Path(earlier["trajectory"]).parent.name == f"{record['id']}.attempt1"
        assert Path(earlier["trajectory"]).exists() and Path(record["trajectory"]).exists()
    assert "retries: 2 attempt(s)" in result.stdout.str()
    cases = list(ET.parse(pytester.path / "j.xml").getroot().iter("testcase"))
    assert sorted(c.get("name") for c in cases) == ["test_task[r1]", "test_task[r2]"]
    assert all(not list(c) or all(e.tag == "properties" for e in c) for c in cases)  # passed, one case each

    # a failure is never run again: noop falls short once and stays failed
    failing = pytester.runpytest("--agent", "noop", "--cua-retry-errors", "2")
    assert failing.parseoutcomes() == {"failed": 2}
    assert read_summary(pytester)["totals"]["retries"] == 0


def test_a_retry_keeps_the_session_environment(pytester, gating, tmp_path, monkeypatch):
    """The last test of the session is retried: only its own fixtures are torn down between attempts, the
    worker's environment stays (provisioned once), and the session still ends with everything closed."""
    log = tmp_path / "kv.log"
    monkeypatch.setenv("KV_LOG", str(log))
    gating("t.json", [task("s1"), task("s2")])
    result = pytester.runpytest_subprocess("--agent", "outage", "--cua-retry-errors", "1")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 2}
    assert log.read_text().splitlines() == ["provision master"]


def test_a_rollback_error_is_retried_and_shown_as_a_rerun(pytester, gating):
    gating("t.json", [task("t1")])
    result = pytester.runpytest("--agent", "stickyonce", "--cua-retry-errors", "1", "--junitxml", "j.xml", "-v")
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    assert "RERUN" in result.stdout.str()
    (record,) = read_summary(pytester)["tasks"]
    assert record["earlier_attempts"][0]["error_kind"] == "rollback" and record["outcome"] == "passed"
    root = ET.parse(pytester.path / "j.xml").getroot()
    assert [c.get("name") for c in root.iter("testcase")] == ["test_task[t1]"]


def test_retries_run_out_and_the_last_error_is_kept(pytester, gating):
    gating("t.json", [task("x1", template="crashing")])
    result = pytester.runpytest("--agent", "replay", "--cua-retry-errors", "1")
    assert result.parseoutcomes() == {"errors": 1, "rerun": 1}
    (record,) = read_summary(pytester)["tasks"]
    assert record["outcome"] == "error" and record["error_kind"] == "evaluator" and record["retries"] == 1


def test_retry_errors_and_reruns_together_is_a_usage_error(pytester, gating):
    pytest.importorskip("pytest_rerunfailures")
    gating("t.json", [task("u1")])
    result = pytester.runpytest("--cua-retry-errors", "1", "--reruns", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "choose one" in result.stderr.str()


def _comparable(summary: dict) -> dict:
    """What must not depend on an interruption: each task's outcome, score and milestones, and the totals."""
    tasks = {r["nodeid"]: (r["outcome"], r["error_kind"], r["score"], json.dumps(r["milestones"]), r["steps"],
                           r["trial"]) for r in summary["tasks"]}
    totals = {k: summary["totals"][k] for k in ("tasks", "episodes", "passed", "failed", "error", "skipped",
                                                "success_rate", "mean_score", "pass_at_k", "pass_hat_k")}
    return {"tasks": tasks, "totals": totals, "groups": sorted(summary["groups"]["persona"])}


@pytest.mark.slow
def test_resume_after_sigkill_gives_the_summary_of_an_uninterrupted_run(pytester, gating):
    tasks = [task(f"k{i:02d}", persona=("sales", "admin")[i % 2]) for i in range(8)]
    tasks.append(task("k99", {"a": "1", "b": "2"}, demonstration={"actions": [{"type": "fill", "target": "a",
                                                                               "text": "1"}]}))
    gating("t.json", tasks)
    args = ["--agent", "slow", "-n", "2", "--cua-trials", "2", "-p", "no:cacheprovider"]
    pytester.runpytest_subprocess(*args, "--cua-run-id", "whole").assert_outcomes(passed=16, failed=2)
    whole = _comparable(read_summary(pytester))

    env = {**os.environ, "PYTHONPATH": f"{pytester.path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    records = pytester.path / "reports" / "runs" / "cut" / "records"
    proc = subprocess.Popen([sys.executable, "-m", "pytest", *args, "--cua-run-id", "cut"], cwd=pytester.path,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(records.glob("*.json"))) < 7:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the controller and both workers, mid-run
        proc.wait()
    done = len(list(records.glob("*.json")))
    assert 7 <= done < 18, f"the kill should land halfway, {done} of 18 records were written"
    (pytester.path / "reports" / "summary.json").unlink(missing_ok=True)

    resumed = pytester.runpytest_subprocess(*args, "--cua-resume", "cut")
    outcomes = resumed.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 18 - done  # only what had no final record
    assert f"resumed run cut: {done} test(s) had a final record" in resumed.stdout.str()
    summary = read_summary(pytester)
    assert summary["run"]["id"] == "cut" and summary["run"]["resumed"] == done
    assert _comparable(summary) == whole


def test_resume_of_an_unknown_run_is_a_usage_error(pytester, gating):
    gating("t.json", [task("n1")])
    result = pytester.runpytest("--cua-resume", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--cua-resume nope: no such run" in result.stderr.str()


def test_a_dead_worker_is_a_worker_crash_error_counted_everywhere(pytester, gating, tmp_path):
    gating("t.json", [task(f"w{i}") for i in range(6)])
    env = {"KILL_TASK": "w3", "KILL_FLAG": str(tmp_path / "killed")}
    for key, value in env.items():
        os.environ[key] = value  # read by the inner run's workers (the subprocess inherits them)
    try:
        result = pytester.runpytest_subprocess("--agent", "killer", "-n", "2", "--junitxml", "j.xml",
                                               "--alluredir", "allure")
        assert result.parseoutcomes() == {"passed": 5, "errors": 1}, result.outlines[-15:]
        summary = read_summary(pytester)
        assert summary["totals"]["tasks"] == 6 and summary["totals"]["error"] == 1
        assert summary["totals"]["errors_by_kind"] == {"worker_crash": 1}
        crashed = next(r for r in summary["tasks"] if r["id"] == "w3")
        assert crashed["outcome"] == "error" and crashed["error_kind"] == "worker_crash"
        assert "crashed while running" in crashed["error"] and crashed["suite"] == "kv"
        out = result.stdout.str()
        assert "errors by kind: worker_crash 1" in out
        cases = {c.get("name"): c for c in ET.parse(pytester.path / "j.xml").getroot().iter("testcase")}
        assert cases["test_task[w3]"].find("error") is not None
        if importlib.util.find_spec("allure_commons") is not None:
            results = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")]
            (broken,) = [r for r in results if r["name"] == "test_task[w3]"]
            assert broken["status"] == "broken" and "crashed while running" in broken["statusDetails"]["message"]
            assert {"name": "error_kind", "value": "worker_crash"} in broken["labels"]
            assert len(results) == 6

        # with a retry the test goes to the replacement worker and passes there
        (tmp_path / "killed").unlink()
        again = pytester.runpytest_subprocess("--agent", "killer", "-n", "2", "--cua-retry-errors", "1")
        assert again.parseoutcomes() == {"passed": 6, "rerun": 1}, again.outlines[-15:]
        record = next(r for r in read_summary(pytester)["tasks"] if r["id"] == "w3")
        assert record["outcome"] == "passed" and record["retries"] == 1
        assert record["earlier_attempts"][0]["error_kind"] == "worker_crash"
    finally:
        for key in env:
            os.environ.pop(key, None)


def test_replay_from_a_run_with_trials(pytester, gating):
    """--cua-replay-from reads <task id>-trial<n>/ when the recorded run had trials, the same trial first."""
    gating("t.json", [task("p1", {"a": "1", "b": "2"})])
    pytester.runpytest("--agent", "replay", "--cua-trials", "2", "--cua-run-id", "rec").assert_outcomes(passed=2)
    recorded = pytester.path / "reports" / "trajectories" / "rec"
    assert sorted(p.name for p in recorded.iterdir()) == ["p1-trial1", "p1-trial2"]
    again = pytester.runpytest("--agent", "replay", "--cua-replay-from", str(recorded), "--cua-trials", "2")
    again.assert_outcomes(passed=2)
    once = pytester.runpytest("--agent", "replay", "--cua-replay-from", str(recorded))  # no trials now: trial 1
    once.assert_outcomes(passed=1)


def test_the_gate_never_hides_a_failure_that_is_not_a_task_outcome(pytester, gating):
    gating("t.json", [task(f"h{i}") for i in range(4)])
    pytester.runpytest("--agent", "oracle").assert_outcomes(passed=4)
    baseline = pytester.path / "baseline.json"
    baseline.write_text((pytester.path / "reports" / "summary.json").read_text())
    # tasks failing with a gate that passes (within --cua-max-drop): exit 0, the measurement
    assert pytester.runpytest("--agent", "noop", "--cua-baseline", str(baseline), "--cua-max-drop", "1").ret == 0
    # -x stopped the run after the first failure: the gate saw one task, the exit status stays a failure
    stopped = pytester.runpytest("--agent", "noop", "-x", "--cua-baseline", str(baseline), "--cua-max-drop", "1")
    assert stopped.ret == pytest.ExitCode.TESTS_FAILED
    # an ordinary test failing next to the tasks
    pytester.makepyfile(test_unit="def test_unit():\n    assert 1 == 2\n")
    mixed = pytester.runpytest("--agent", "oracle", "--cua-baseline", str(baseline))
    assert any(line.startswith("gate passed") for line in mixed.outlines)
    assert mixed.ret == pytest.ExitCode.TESTS_FAILED


def test_a_crash_given_back_that_never_runs_again_is_still_an_error(pytester, gating, tmp_path):
    """--max-worker-restart 0: xdist stops after the crash, so the test given back never runs: it keeps its
    worker_crash record and the run fails."""
    gating("t.json", [task(f"v{i}") for i in range(6)])
    os.environ.update({"KILL_TASK": "v3", "KILL_FLAG": str(tmp_path / "killed")})
    try:
        result = pytester.runpytest_subprocess("--agent", "killer", "-n", "2", "--max-worker-restart", "0",
                                               "--cua-retry-errors", "1", "--junitxml", "j.xml")
    finally:
        for key in ("KILL_TASK", "KILL_FLAG"):
            os.environ.pop(key, None)
    assert result.ret != 0
    record = next(r for r in read_summary(pytester)["tasks"] if r["id"] == "v3")
    assert record["outcome"] == "error" and record["error_kind"] == "worker_crash"
    assert "never ran again" in result.stdout.str()
    names = [c.get("name") for c in ET.parse(pytester.path / "j.xml").getroot().iter("testcase")]
    assert None not in names


def test_resume_with_a_worker_replaced_mid_run(pytester, gating, tmp_path):
    """The resumed session's workers all deselect what was done when it started, also the worker xdist starts
    after a crash (records written meanwhile do not change its collection)."""
    gating("t.json", [task(f"m{i}") for i in range(6)])
    os.environ.update({"KILL_TASK": "m4", "KILL_FLAG": str(tmp_path / "killed")})
    try:
        pytester.runpytest_subprocess("--agent", "killer", "--cua-run-id", "R", "-k", "m0 or m1")
        result = pytester.runpytest_subprocess("--agent", "killer", "-n", "1", "--cua-resume", "R",
                                               "--cua-retry-errors", "1")
    finally:
        for key in ("KILL_TASK", "KILL_FLAG"):
            os.environ.pop(key, None)
    assert result.parseoutcomes() == {"passed": 4, "rerun": 1}, result.outlines[-20:]
    summary = read_summary(pytester)
    assert sorted(r["id"] for r in summary["tasks"]) == [f"m{i}" for i in range(6)]
    assert all(r["outcome"] == "passed" for r in summary["tasks"])


def test_resume_with_other_settings_is_a_usage_error(pytester, gating):
    gating("t.json", [task("q1")])
    pytester.runpytest("--agent", "replay", "--cua-run-id", "S")
    result = pytester.runpytest("--agent", "replay", "--cua-resume", "S", "--cua-trials", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "the run was started with trials 1" in result.stderr.str()
