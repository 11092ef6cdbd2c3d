"""The three outcomes, error kinds, measures, rollback residue, limits, aggregation and reruns."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET

import pytest

from .conftest import KV_SUITE, read_summary, records_by_id, task

AGENTS = '''
import time
from pytest_cua.agents.base import Agent, Turn, Usage
from pytest_cua.actions import Fill, Done, Wait, Ask, Hover

class Sleepy(Agent):
    name = "sleepy"
    def start(self, task, context): pass
    def step(self, observation):
        time.sleep(0.3)
        return Turn([Wait(seconds=0.1)], reasoning="thinking slowly", usage=Usage(100, 10, 0.002))

class Broken(Agent):
    name = "broken"
    def start(self, task, context): pass
    def step(self, observation):
        raise ConnectionError("model API unreachable")

class Clumsy(Agent):
    """Tries an action the environment rejects, then reads the error and sets the key."""
    name = "clumsy"
    def start(self, task, context): self.seen = []
    def step(self, observation):
        self.seen.append(observation.last_error)
        if observation.step == 0:
            return Turn([Hover(target="e1")])
        if observation.step == 1:
            return Turn([Fill(target="a", text="1")], reasoning=f"last error: {observation.last_error}")
        return [Done()]

class Asker(Agent):
    name = "asker"
    def start(self, task, context): pass
    def step(self, observation):
        if observation.step == 0:
            return [Ask(question="Which value?")]
        return [Fill(target="a", text=observation.human_reply or ""), Done()]
'''

# the module's name is the test's own: an in-process run would take another ``agents`` already imported (SCUBA's
# release, from the bridge's tests in this worker) for it
CONFTEST = '''
import outcome_test_agents as agents

def pytest_cua_agents(config):
    return {"sleepy": agents.Sleepy, "broken": agents.Broken, "clumsy": agents.Clumsy, "asker": agents.Asker}
'''


@pytest.fixture
def with_agents(pytester):
    pytester.makepyfile(outcome_test_agents=AGENTS, conftest=CONFTEST)


def test_pass_fail_and_partial_score_with_measures(pytester, kv_suite):
    kv_suite("t.json", [task("p1", {"a": "1", "b": "2"}, persona="sales", difficulty="easy"),
                        task("p2", {"a": "1"}, persona="admin", difficulty="hard")])
    pytester.runpytest("--agent", "oracle").assert_outcomes(passed=2)
    recs = records_by_id(pytester)
    assert recs["p1"]["outcome"] == "passed" and recs["p1"]["score"] == 1.0 and recs["p1"]["success"] is True
    assert recs["p1"]["milestones"] == [{"name": "a is 1", "weight": 0.5, "passed": True, "detail": ""},
                                        {"name": "b is 2", "weight": 0.5, "passed": True, "detail": ""}]
    assert recs["p1"]["agent"] == {"name": "oracle", "model": None}
    assert recs["p1"]["environment"]["name"] == "kv"
    assert set(recs["p1"]["times"]) == {"wall_s", "agent_s", "env_s", "reset_s", "eval_s", "start_s", "task_s"}
    assert recs["p1"]["cost_usd"] == 0.0 and recs["p1"]["steps"] == 1

    result = pytester.runpytest("--agent", "noop")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "MilestonesFailed: task p1 scored 0.00; episode ended: done" in out
    assert "a is 1     0.50    NO    a is None" in out
    summary = read_summary(pytester)
    assert summary["totals"]["success_rate"] == 0.0 and summary["totals"]["failed"] == 2
    assert summary["groups"]["persona"]["kv/sales"]["tasks"] == 1


def test_error_outcomes_are_not_failures(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("ok1"), task("crash1", template="crashing"), task("weights1", template="bad_weights")])
    result = pytester.runpytest("--agent", "replay")
    result.assert_outcomes(passed=1, errors=2)
    recs = records_by_id(pytester)
    assert recs["crash1"]["outcome"] == "error" and recs["crash1"]["error_kind"] == "evaluator"
    assert "template 'crashing', milestone 'reads a record' crashed: KeyError: 'missing'" in recs["crash1"]["error"]
    assert recs["weights1"]["error_kind"] == "evaluator"
    assert "template 'bad_weights': milestone weights sum to 0.5, not 1" in recs["weights1"]["error"]
    totals = read_summary(pytester)["totals"]
    assert totals["success_rate"] == 1.0  # errors are neither passes nor failures
    assert totals["errors_by_kind"] == {"evaluator": 2}


def test_crash_outside_any_milestone_is_still_an_evaluator_error(pytester, kv_suite):
    kv_suite("t.json", [task("o1", template="crash_outside")])
    pytester.runpytest("--agent", "replay").assert_outcomes(errors=1)
    rec = records_by_id(pytester)["o1"]
    assert rec["error_kind"] == "evaluator"
    assert "template 'crash_outside' crashed: TypeError: 'NoneType' object is not subscriptable" in rec["error"]


def test_question_without_a_template_is_scored_on_its_answer_not_skipped(pytester, kv_suite):
    kv_suite("t.json", [{"id": "q1", "instruction": "How many?", "template": "qa_count", "ground_truth": {"answer": "42"}}])
    pytester.runpytest("--agent", "oracle").assert_outcomes(passed=1)
    assert records_by_id(pytester)["q1"]["milestones"][0]["name"] == "answer"
    result = pytester.runpytest("--agent", "noop")
    result.assert_outcomes(failed=1)
    assert "the agent gave no answer" in result.stdout.str()


def test_agent_crash_is_an_agent_error(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("b1")])
    pytester.runpytest("--agent", "broken").assert_outcomes(errors=1)
    rec = records_by_id(pytester)["b1"]
    assert rec["error_kind"] == "agent" and "model API unreachable" in rec["error"]


def test_environment_crash_and_provisioning_failure(pytester, kv_suite, monkeypatch):
    kv_suite("t.json", [task("c1", {"crash": "x"})])
    pytester.runpytest("--agent", "replay").assert_outcomes(errors=1)
    rec = records_by_id(pytester)["c1"]
    assert rec["error_kind"] == "environment" and "store went away" in rec["error"]
    monkeypatch.setenv("KV_PROVISION_FAILS", "1")
    pytester.runpytest("--agent", "replay").assert_outcomes(errors=1)
    rec = records_by_id(pytester)["c1"]
    assert rec["error_kind"] == "provisioning" and "no capacity for master" in rec["error"]


def test_arranged_state_is_there_for_the_task_and_rolled_back_after_it(pytester, kv_suite):
    """A template's ``arrange`` runs after the snapshot and before the agent; what it made goes with the task's
    rollback (no residue, the next task does not see it); an arrange that fails is an environment error."""
    kv_suite("t.json", [{"id": "a1", "instruction": "x", "template": "arranged", "ground_truth": {"keys": {}}},
                        {"id": "a2", "instruction": "x", "template": "set_keys", "ground_truth": {"keys": {"given": None}}},
                        {"id": "a3", "instruction": "x", "template": "arranged",
                         "ground_truth": {"keys": {}, "arrange_fails": True}}])
    result = pytester.runpytest("--agent", "oracle", "-p", "no:randomly")
    result.assert_outcomes(passed=2, errors=1)
    recs = records_by_id(pytester)
    assert recs["a1"]["outcome"] == "passed" and recs["a2"]["outcome"] == "passed"  # a2: 'given' is gone again
    assert recs["a3"]["error_kind"] == "environment"
    assert "template 'arranged' could not arrange task 'a3': LookupError: no such fixture record" in recs["a3"]["error"]


def test_failed_action_is_reported_in_the_next_observation(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("k1")])
    pytester.runpytest("--agent", "clumsy").assert_outcomes(passed=1)
    run = read_summary(pytester)["run"]["id"]
    traj = json.loads((pytester.path / "reports" / "trajectories" / run / "k1" / "trajectory.json").read_text())
    assert traj["steps"][0]["results"][0]["ok"] is False
    assert traj["steps"][1]["observation"]["last_error"] == "hover(target='e1') failed: kv cannot hover"


def test_rollback_residue_is_an_error_naming_what_was_left(pytester, kv_suite, monkeypatch):
    log = pytester.path / "provision.log"
    monkeypatch.setenv("KV_LOG", str(log))
    kv_suite("t.json", [task("r1", {"sticky_key": "left"}), task("r2", {"a": "1"})])
    result = pytester.runpytest("--agent", "replay", "-p", "no:randomly")
    # r1 passes its evaluation, then its rollback leaves a key behind: an error in teardown
    result.assert_outcomes(passed=2, errors=1)
    assert "rollback of kv left 1 difference(s):" in result.stdout.str()
    assert "key 'sticky_key' = 'left'" in result.stdout.str()
    recs = records_by_id(pytester)
    assert recs["r1"]["outcome"] == "error" and recs["r1"]["error_kind"] == "rollback"
    assert recs["r2"]["outcome"] == "passed"
    # the dirty environment was discarded and a fresh one provisioned for the next task
    assert log.read_text().splitlines() == ["provision master", "provision master"]


def test_time_limit_is_enforced_by_the_loop_and_rollback_runs(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("s1")])
    started = time.monotonic()
    result = pytester.runpytest("--agent", "sleepy", "--cua-time-limit", "1")
    took = time.monotonic() - started
    result.assert_outcomes(failed=1)
    rec = records_by_id(pytester)["s1"]
    assert rec["end"] == "time_limit" and rec["times"]["reset_s"] is not None
    assert 1 <= rec["times"]["wall_s"] < 2.5 and took < 20
    assert rec["tokens_in"] == 100 * rec["steps"] and rec["cost_usd"] == pytest.approx(0.002 * rec["steps"])


def test_step_limit(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("s2", limits={"max_steps": 3})])
    pytester.runpytest("--agent", "sleepy").assert_outcomes(failed=1)
    rec = records_by_id(pytester)["s2"]
    assert rec["end"] == "step_limit" and rec["steps"] == 3


def test_ask_uses_scripted_human_or_says_none_is_available(pytester, kv_suite, with_agents):
    kv_suite("t.json", [task("h1")])
    answers = pytester.path / "answers.json"
    answers.write_text(json.dumps({"h1": {"Which value?": "1"}}))
    pytester.runpytest("--agent", "asker", "--cua-human", str(answers)).assert_outcomes(passed=1)
    assert records_by_id(pytester)["h1"]["asks"] == 1
    assert read_summary(pytester)["totals"]["asks"] == 1
    result = pytester.runpytest("--agent", "asker")
    result.assert_outcomes(failed=1)
    assert "a is 'No human is available to answer; continue on your own.'" in result.stdout.str()


def test_aggregation_is_the_same_with_xdist_and_junit_has_properties(pytester, kv_suite):
    tasks = [task(f"x{i}", {"a": "1"}, persona=("sales", "admin")[i % 2], difficulty="easy") for i in range(6)]
    tasks.append(task("x6", template="crashing"))
    kv_suite("t.json", tasks)
    pytester.runpytest_subprocess("--agent", "replay").assert_outcomes(passed=6, errors=1)
    serial = read_summary(pytester)
    result = pytester.runpytest_subprocess("--agent", "replay", "-n", "2", "--junitxml", "junit.xml")
    result.assert_outcomes(passed=6, errors=1)
    parallel = read_summary(pytester)
    for key in ("tasks", "passed", "failed", "error", "success_rate", "mean_score", "mean_steps"):
        assert serial["totals"][key] == parallel["totals"][key], key
    assert serial["groups"]["persona"].keys() == parallel["groups"]["persona"].keys()
    workers = {r["environment"]["worker"] for r in parallel["tasks"]}
    assert workers == {"gw0", "gw1"}
    assert "pytest-cua summary (agent replay" in result.stdout.str()
    props = {}
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        props[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["test_task[x0]"]["cua_outcome"] == "passed" and props["test_task[x0]"]["cua_score"] == "1.0"
    assert props["test_task[x6]"]["cua_outcome"] == "error" and props["test_task[x6]"]["cua_error_kind"] == "evaluator"


def test_reruns_last_attempt_counts(pytester, kv_suite):
    pytest.importorskip("pytest_rerunfailures")
    pytester.makeconftest('''
from pytest_cua.agents.builtin import OracleAgent, NoopAgent
ATTEMPTS = []
class Flaky(OracleAgent):
    name = "flaky"
    def step(self, observation):
        ATTEMPTS.append(1)
        if len(ATTEMPTS) == 1:
            return NoopAgent().step(observation)
        return super().step(observation)
def pytest_cua_agents(config):
    return {"flaky": Flaky}
''')
    kv_suite("t.json", [task("f1")])
    result = pytester.runpytest("--agent", "flaky", "--reruns", "1", "--junitxml", "j.xml")
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    rec = records_by_id(pytester)["f1"]
    assert rec["outcome"] == "passed" and rec["score"] == 1.0
    # junitxml writes one testcase per attempt; each carries only its own attempt's properties
    cases = list(ET.parse(pytester.path / "j.xml").getroot().iter("testcase"))
    outcomes = [[p.get("value") for p in c.iter("property") if p.get("name") == "cua_outcome"] for c in cases]
    assert outcomes == [["failed"], ["passed"]]


def test_pdb_stops_at_the_failing_milestone_with_the_environment_alive(pytester, kv_suite):
    pytest.importorskip("pexpect")
    kv_suite("t.json", [task("d1", {"a": "1", "b": "2"})])
    child = pytester.spawn_pytest("--agent noop --pdb -p no:cacheprovider")
    child.expect(r"MilestonesFailed: task d1 scored 0.00")
    child.expect(r"\(Pdb\)")
    child.sendline("p (self.card.score, [r.name for r in self.card.results if not r.passed], self.env.closed)")
    child.expect(r"\(0\.0, \['a is 1', 'b is 2'\], False\)")
    child.sendline("c")
    child.expect("1 failed")
    child.wait()


def test_doctor_lists_every_check_with_a_fix(capsys):
    from pytest_cua.cli import main

    rc = main(["doctor"])
    out = capsys.readouterr().out
    for name in ("playwright", "chromium", "Xvfb", "allure-pytest", "allure CLI"):
        assert name in out
    assert rc in (0, 1)
    for line in out.splitlines():
        if line.startswith("MISSING"):
            assert "fix:" in out


def test_keep_env_says_how_to_reach_each_kept_environment(pytester, kv_suite):
    kv_suite("t.json", [task("k1"), task("k2")])
    result = pytester.runpytest_subprocess("--agent", "oracle", "--keep-env", "-n", "2")
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "pytest-cua --keep-env" in out
    assert out.count("pytest-cua --keep-env: name=kv, worker=gw") == 2


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_the_same_provisioning_failure_twice_stops_the_run(pytester, kv_suite, monkeypatch, workers):
    """A cause every task would meet (here: no capacity, every time) stops the run after the second failure in a
    row on a worker, with one message saying why and what to do, instead of one error per task."""
    kv_suite("t.json", [task(f"p{i}") for i in range(8)])
    monkeypatch.setenv("KV_PROVISION_FAILS", "1")
    result = pytester.runpytest("--agent", "replay", "-p", "no:randomly", *workers)
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 2 * max(1, len(workers)), outcomes  # two per worker, then the stop
    assert "passed" not in outcomes
    out = result.stdout.str()
    assert "failed twice in a row" in out and "same cause, so every task would: suite 'kv': provisioning failed: " \
        "RuntimeError: no capacity for" in out and "pytest-cua doctor" in out
    records = read_summary(pytester)["tasks"]
    assert len(records) == outcomes["errors"] and {r["error_kind"] for r in records} == {"provisioning"}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_an_environment_known_missing_before_the_run_is_one_error_and_no_task_runs(pytester, kv_suite, workers):
    """What can be known before anything runs (here: the suite names an environment no provider offers) is one
    collection error naming it, shown once even when two workers find it, and no task starts."""
    pytester.makepyfile(test_kv=KV_SUITE.replace("environment=KV,", 'environment="no-such-desktop",'))
    kv_suite("t.json", [task(f"m{i}") for i in range(4)])
    result = pytester.runpytest("--agent", "replay", "-p", "no:randomly", *workers)
    out = result.stdout.str()
    assert result.ret not in (0, 5), out
    assert out.count("ERROR collecting test_kv.py") == 1, out
    assert out.count("suite 'kv': unknown environment 'no-such-desktop'; known: ") == 2, out  # error, summary line
    assert "none of its 4 collected task(s) ran" in out and "INTERNALERROR" not in out
    assert result.parseoutcomes().get("errors") == 1 and "passed" not in result.parseoutcomes()
    summary = pytester.path / "reports" / "summary.json"
    assert not summary.exists() or read_summary(pytester)["tasks"] == []


def test_an_environment_error_in_setup_and_teardown_is_one_error(pytester, kv_suite, monkeypatch):
    """The environment crashes during the episode (setup) and then cannot be rolled back (teardown): one error
    for the task in pytest's line and in the table, the rollback's failure kept in its record; the next task
    gets a new environment."""
    kv_suite("t.json", [task("c1", {"crash": "x"}), task("c2")])
    monkeypatch.setenv("KV_RESTORE_FAILS", "1")
    result = pytester.runpytest("--agent", "replay", "-p", "no:randomly")
    result.assert_outcomes(errors=1, passed=1)
    assert "1 passed, 1 error" in result.stdout.str()
    rec = records_by_id(pytester)["c1"]
    assert rec["outcome"] == "error" and rec["error_kind"] == "environment"
    assert "cannot be restored after the crash" in rec["environment"]["rollback_error"]
    assert records_by_id(pytester)["c2"]["outcome"] == "passed"
