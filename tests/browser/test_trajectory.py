"""Trajectories of a real episode in Chromium: written, read back, replayed, and free of secrets."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from pytest_cua import actions as A
from pytest_cua.agents.base import Agent, AgentContext, Turn, Usage
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.episode.loop import Episode
from pytest_cua.redaction import REDACTED, Redactor, register_secret
from pytest_cua.tasks.task import Task
from pytest_cua.episode.trajectory import (TrajectoryRecorder, actions_from_trajectory, load_trajectory,
                                   turns_from_trajectory)

pytestmark = pytest.mark.browser

PASSWORD = "Tr0ub4dor&3-horse"
SESSION = "00D5g000001XyZa!AR8AQPzQuLmK3vB9sEcReTtOkEn.Value_42"
BEARER = "ya29.A0ARrdaM-bearer-secret-9f8e7d"
ACCESS = "at-secret-77c1d9e0"
COOKIE = "cookie-secret-4b1f0a"
SECRETS = (PASSWORD, SESSION, BEARER, ACCESS, COOKIE)


class ScriptedAgent(Agent):
    """Plays fixed turns; leaks secrets into its reasoning and raw output on purpose."""

    name = "scripted"

    def __init__(self, turns: list[list[A.Action]]) -> None:
        super().__init__()
        self.turns = turns
        self.seen: list = []

    def start(self, task: Task, context: AgentContext) -> None:
        self.queue = list(self.turns)

    def step(self, observation):  # type: ignore[no-untyped-def]
        self.seen.append(observation)
        actions = self.queue.pop(0) if self.queue else [A.Done()]
        return Turn(actions, reasoning=f"using password {PASSWORD} and Authorization: Bearer {BEARER}",
                    raw=json.dumps({"access_token": ACCESS, "actions": [a.to_dict() for a in actions]}),
                    usage=Usage(tokens_in=100, tokens_out=20, cost_usd=0.001))


def name_ids(env: BrowserEnvironment) -> dict[str, str]:
    return {el.name: el.id for el in env.observe(frozenset({"axtree"})).elements.values()}


@pytest.fixture(scope="module")
def secret_env(pages_url: str, chromium_available: None, tmp_path_factory: pytest.TempPathFactory):
    for secret in SECRETS:
        register_secret(secret)
    env = BrowserEnvironment(BrowserOptions(viewport=(1024, 700), trace="on"),
                             login_url=lambda: pages_url + "actions.html?sid=" + SESSION,
                             artifacts_dir=tmp_path_factory.mktemp("artifacts"))
    env.start()
    yield env
    env.close()


def run_episode(env: BrowserEnvironment, directory: Path, turns: list[list[A.Action]], task_id: str = "t-secret"):
    task = Task(id=task_id, suite="web", instruction=f"log in with {PASSWORD}")
    env.restore(env.snapshot())
    env.begin_task(task)
    env.page.evaluate(f"document.cookie = 'sid={COOKIE}'; 0")
    recorder = TrajectoryRecorder(directory)
    agent = ScriptedAgent(turns)
    context = AgentContext(env=env, observation_kinds=frozenset({"screenshot", "axtree", "dom", "som"}))
    result = Episode(task, env, agent, context=context, recorder=recorder, max_steps=10).run()
    artifacts = env.end_task(task, failed=True)
    recorder.finish({"task": task.summary_fields(), "instruction": task.instruction,
                     "episode": result.to_dict(), "agent": agent.describe(), "environment": env.describe(),
                     "cookie_header": f"Cookie: sid={COOKIE}"})
    return result, recorder, artifacts, agent


def turns_for(env: BrowserEnvironment) -> list[list[A.Action]]:
    e = name_ids(env)
    return [[A.Fill(e["Password"], PASSWORD), A.Fill(e["Account Name"], "Acme " + SESSION)],
            [A.Click("e999")],  # fails: the error is recorded
            [A.Click(e["Go to other page"])],
            [A.Answer("done")]]


def test_trajectory_written_and_read_back(secret_env: BrowserEnvironment, tmp_path: Path) -> None:
    secret_env.restore(secret_env.snapshot())
    turns = turns_for(secret_env)
    result, recorder, artifacts, agent = run_episode(secret_env, tmp_path / "t-secret", turns)
    assert result.end == "answer" and result.steps == 4
    files = sorted(p.name for p in (tmp_path / "t-secret").iterdir())
    assert {"trajectory.json", "steps.jsonl", "step_000.png", "step_000_som.png", "step_003.png"} <= set(files)
    traj = load_trajectory(tmp_path / "t-secret")
    assert [s.index for s in traj.steps] == [0, 1, 2, 3]
    first = traj.steps[0]
    assert first.screenshot is not None and first.screenshot_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert first.som is not None and first.som.exists()
    assert "[e" in first.observation["axtree"] and "[e" in first.observation["dom"]
    assert first.tokens_in == 100 and first.tokens_out == 20 and first.env_s > 0
    assert traj.steps[1].results[0]["ok"] is False and "e999" in traj.steps[1].results[0]["error"]
    assert traj.steps[2].observation["last_error"].startswith("click(target='e999') failed")
    assert traj.summary["episode"]["end"] == "answer"
    # the actions come back typed (with the recorded texts redacted), grouped per step or flat
    assert [len(t) for t in turns_from_trajectory(tmp_path / "t-secret")] == [2, 1, 1, 1]
    flat = actions_from_trajectory(tmp_path / "t-secret" / "trajectory.json")
    assert flat[0] == A.Fill(turns[0][0].target, REDACTED) and flat[-1] == A.Answer("done")
    # steps.jsonl alone (a crashed run) is readable too
    (tmp_path / "t-secret" / "trajectory.json").unlink()
    assert len(load_trajectory(tmp_path / "t-secret").steps) == 4
    # the agent never saw the session id either (the URL after the login carried it)
    assert all(SESSION not in (o.url + (o.axtree or "") + json.dumps(o.tabs)) for o in agent.seen)
    assert artifacts["trace"]


def test_replay_of_a_recorded_trajectory(secret_env: BrowserEnvironment, tmp_path: Path) -> None:
    secret_env.restore(secret_env.snapshot())
    e = name_ids(secret_env)
    turns = [[A.Fill(e["Account Name"], "Replayed")], [A.Check(e["I agree"])], [A.Click(e["Go to other page"])],
             [A.Done()]]
    run_episode(secret_env, tmp_path / "orig", turns, task_id="orig")
    replay = [[a] for a in actions_from_trajectory(tmp_path / "orig")]
    result, *_ = run_episode(secret_env, tmp_path / "again", replay, task_id="again")
    assert result.end == "done" and result.failed_actions == 0
    again = load_trajectory(tmp_path / "again")
    assert [a.to_dict() for a in again.actions] == [a.to_dict() for a in load_trajectory(tmp_path / "orig").actions]
    assert secret_env.page.url.endswith("other.html")


def test_no_secret_in_any_produced_file(secret_env: BrowserEnvironment, tmp_path: Path) -> None:
    secret_env.restore(secret_env.snapshot())
    run_episode(secret_env, tmp_path / "traj", turns_for(secret_env))
    roots = [tmp_path, Path(secret_env.artifacts_dir)]
    checked = 0
    for root in roots:
        for path in root.rglob("*"):
            if not path.is_file():
                continue
            blobs = [path.read_bytes()]
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as zf:
                    blobs = [zf.read(n) for n in zf.namelist()]
            for blob in blobs:
                for secret in SECRETS:
                    assert secret.encode() not in blob, f"{secret!r} found in {path}"
            checked += 1
    assert checked >= 8
    text = (tmp_path / "traj" / "trajectory.json").read_text()
    assert REDACTED in text and "sid=[REDACTED]" in text


def test_redactor_patterns() -> None:
    r = Redactor()
    r.register("hunter2-long")
    r.register("ab")  # too short to register: would redact ordinary words
    text = ("GET /secur/frontdoor.jsp?sid=00D000000000001!AQ0abcdefghij&retURL=/home "
            "Authorization: Bearer abc.def.ghi-123 {\"access_token\": \"tok-123\"} password=hunter2-long "
            "plain 00Dxx0000001gPL!ARsAQ.secretpart ab cab")
    out = r.redact(text)
    for leaked in ("00D000000000001!AQ0abcdefghij", "abc.def.ghi-123", "tok-123", "hunter2-long", "secretpart"):
        assert leaked not in out
    assert out.endswith("ab cab") and "retURL=/home" in out
    assert r.redact_data({"k": ["sid=xyz123", ("hunter2-long",)]}) == {"k": ["sid=[REDACTED]", ("[REDACTED]",)]}
    assert r.redact("q=hunter2%2Dlong") == "q=hunter2%2Dlong"  # only exact or fully quoted forms
    r.register("a b&c=d")
    assert r.redact("x=a%20b%26c%3Dd") == "x=[REDACTED]"


def test_log_records_and_reports_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from pytest_cua.redaction import install_log_redaction, redact_report

    for secret in SECRETS:
        register_secret(secret)
    install_log_redaction()
    install_log_redaction()  # idempotent
    with caplog.at_level(logging.INFO):
        logging.getLogger("pytest_cua.test").info("opening %s/secur/frontdoor.jsp?sid=%s", "https://org", SESSION)
    assert SESSION not in caplog.text and "sid=[REDACTED]" in caplog.text

    class Report:
        longrepr = f"AssertionError: <Page url='https://org/?sid={SESSION}'>"
        sections = [("Captured stdout call", f"password {PASSWORD}")]
        user_properties = [("cua", {"url": f"https://org/?sid={SESSION}"})]

    report = Report()
    redact_report(report)
    assert SESSION not in report.longrepr and PASSWORD not in report.sections[0][1]
    assert SESSION not in str(report.user_properties)
