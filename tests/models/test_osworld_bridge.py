"""The OSWorld bridge (``--agent osworld:package.module:Class``): agents of OSWorld's ``predict(instruction, obs)``
convention run unchanged (``tests/models/osworld_agents/``: an agent over the ``openai`` SDK, and agents that go
wrong).

Without a browser, against the fake OpenAI server on loopback:

- an agent assuming another screen (``osworld.screen``) is sent the screenshot at that size and its points
  (a drag from its pointer, a click at the pointer on the next step, a scroll's place) come back in screen
  pixels; a wheel's clicks are not scaled;
- its calls pass the bridge's proxy: tokens and cost per step, the request valid for OpenAI's schema, the
  accessibility tree sent when its ``observation_type`` asks; nothing of the redirection outlives the call;
- ``WAIT`` / ``DONE`` / ``FAIL``; an action we cannot carry out (a call outside the whitelist, a statement, a
  ``computer_13`` dict) is a ``fail`` naming it, none of the step done; an agent that raises (constructor or
  ``predict``) is an ``agent`` error naming its class and frame; a replay miss names task and step;
- a bad ``--agent`` or option is refused before anything runs, naming it.

End to end (inner pytest runs of SCUBA's ``freeze_user_1`` on the embedded org in Chromium): the example agent,
assuming a 1280x800 screen, solves it with a scripted model (``osworld_agents/fake_plugin.py``) whose requests
validate against OpenAI's schema; the record carries tokens and cost; trajectory and Allure show the agent's own
text; the recorded traffic replays with no model server to the same verdict; a raising agent is an ``agent``
error and an unsupported action a failed task, each naming what went wrong. On the docker desktop, assuming
OSWorld's 1920x1080 screen, it solves ProSoft's ``calc-set-cell``.
"""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pytest_cua.actions import Click, Done, Drag, Fail, Move, Point, Scroll, Wait
from pytest_cua.agents.base import AgentContext, AgentError
from pytest_cua.agents.models.pricing import PriceTable
from pytest_cua.agents.models.retry import ModelRequestError
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent
from pytest_cua.tasks.task import Task
from pytest_cua.testing.fake_models import FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.conftest import KEY, raised_by_step
from tests.models.osworld_agents.example import CodeAgent
from tests.models.test_conformance import openai_errors
from tests.models.test_e2e import Run, select
from tests.models.test_model_agents import observation, task

EXAMPLE = "osworld:tests.models.osworld_agents.example:CodeAgent"
MISBEHAVING = "osworld:tests.models.osworld_agents.misbehaving:Misbehaving"
FIXED = "osworld:tests.models.test_osworld_bridge:Fixed"


class Fixed:
    """Answers every step with the same ``actions`` (an option: ``actions="['WAIT']"``)."""

    def __init__(self, actions: list[Any]) -> None:
        self.actions = actions

    def predict(self, instruction: str, obs: dict[str, Any]) -> tuple[str, list[Any]]:
        return "fixed", list(self.actions)


class Retrying(CodeAgent):
    """``CodeAgent`` retrying a failed model call 300 times, a second apart (as published agents retry)."""

    def predict(self, instruction: str, obs: dict[str, Any]) -> tuple[str, list[str]]:
        for _ in range(300):
            try:
                return super().predict(instruction, obs)
            except Exception:
                time.sleep(1.0)
        return "gave up", ["FAIL"]


class NoPredict:
    def act(self, obs: dict[str, Any]) -> None: ...


def bridged(text: str, server: FakeModelServer | None = None, *, replay: Path | None = None, **options: str) -> Any:
    settings = ModelSettings(base_url=server.openai_base_url if server else None, options=options, replay_dir=replay)
    registry = AgentRegistry()
    spec = registry.resolve(text, {"model_settings": settings})
    registry.validate(spec)
    return registry.create(spec)


def start(agent: Any, question: bool = False) -> None:
    agent.start(task(question), AgentContext(observation_kinds=agent.observation_kinds))


def code(text: str) -> FakeReply:
    return FakeReply(text=f"I act.\n```python\n{text}\n```")


@pytest.mark.usefixtures("keys")
def test_an_agent_assuming_another_screen_is_shown_it_and_its_points_come_back_in_screen_pixels(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([code("pyautogui.moveTo(640, 400)\npyautogui.dragTo(1000, 600)"),
                                    code("pyautogui.click()\npyautogui.scroll(-3, x=320, y=200)")])
    agent = bridged(EXAMPLE, server, **{"osworld.screen": "1280x800"})
    agents.append(agent)
    start(agent)
    first = agent.step(observation())  # a 1920x1080 screen
    assert server.requests[0].image_size() == (1280, 800)
    assert first.actions == [Move(Point(960.0, 540.0)), Drag(Point(960.0, 540.0), Point(1500.0, 810.0))]
    assert Image.open(io.BytesIO(first.images["model"])).size == (1280, 800)  # what the agent saw, for Allure
    assert first.extra["model"]["coords"] == {"kind": "pixels", "image": [1280, 800], "screen": [1920, 1080]}
    second = agent.step(observation(step=1))
    assert second.actions == [Click(Point(1500.0, 810.0)), Scroll(dy=300, target=Point(480.0, 270.0))]


@pytest.mark.usefixtures("keys")
def test_its_calls_are_counted_priced_and_valid_and_the_tree_is_sent_when_asked(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([code("pyautogui.click(1560, 920)")])
    agent = bridged(EXAMPLE, server, observation_type="screenshot_a11y_tree", max_tokens="300")
    agents.append(agent)
    assert agent.observation_kinds == {"screenshot", "axtree"} and agent.model == "gpt-4.1"
    start(agent)
    turn = agent.step(observation(axtree='[e2] button "Save"'))
    assert turn.actions == [Click(Point(1560.0, 920.0))]  # the agent's own screen: nothing mapped
    reported = server.responses[0][1]["usage"]
    assert (turn.usage.tokens_in, turn.usage.tokens_out, turn.usage.requests) == (
        reported["prompt_tokens"], reported["completion_tokens"], 1)
    assert turn.usage.cost_usd == pytest.approx(PriceTable.load().cost(turn.usage, "gpt-4.1")) and turn.usage.cost_usd > 0
    assert agent.usage.tokens_in == turn.usage.tokens_in and turn.extra["model"]["model"] == "gpt-4.1"
    assert openai_errors("CreateChatCompletionRequest", server.requests[0].body) == []
    assert '[e2] button "Save"' in server.requests[0].last_text and server.requests[0].body["max_tokens"] == 300
    assert turn.reasoning.startswith("I act.") and "pyautogui.click(1560, 920)" in json.loads(turn.raw)["actions"]
    assert "OPENAI_BASE_URL" not in os.environ  # pointed at the proxy only while the agent ran
    assert agent.describe()["options"] == {"observation_type": "screenshot_a11y_tree", "max_tokens": "300"}


def test_wait_done_and_fail_are_read_as_the_convention_says(agents: list[Any]) -> None:
    answers = {"WAIT": Wait(1.0), "DONE": Done(), "FAIL": Fail(f"osworld agent {FIXED[8:]} answered FAIL")}
    for word, expected in answers.items():
        agent = bridged(FIXED, actions=f"['{word}']")
        agents.append(agent)
        start(agent)
        assert agent.step(observation()).actions == [expected]


@pytest.mark.parametrize("actions, named", [
    ("['pyautogui.click(10, 10)', \"pyautogui.locateOnScreen('save.png')\"]", "'pyautogui.locateOnScreen' is not allowed"),
    ("[\"import os\\nos.system('touch /tmp/x')\"]", "only 'import pyautogui' is allowed, not 'os'"),
    ("['for i in range(3): pyautogui.press(\"tab\")']", "not a For statement"),
    ("[{'action_type': 'CLICK', 'x': 10, 'y': 20}]", "computer_13 actions are not supported"),
])
def test_an_action_we_cannot_carry_out_fails_the_step_naming_it(actions: str, named: str, agents: list[Any]) -> None:
    agent = bridged(FIXED, actions=actions)
    agents.append(agent)
    start(agent)
    turn = agent.step(observation())
    assert len(turn.actions) == 1 and isinstance(turn.actions[0], Fail), turn.actions  # none of the step is done
    assert named in turn.actions[0].reason and "step 1, action" in turn.actions[0].reason


def test_an_agent_that_raises_is_an_agent_error_naming_its_class_and_frame(agents: list[Any]) -> None:
    agent = bridged(MISBEHAVING)
    agents.append(agent)
    freeze = Task(id="freeze_user_1", instruction="Freeze the user Tobias Lindqvist.", template="freeze_user",
                  suite="scuba")
    agent.start(freeze, AgentContext(observation_kinds=agent.observation_kinds))
    assert agent.inner.resets[0].name == "pytest_cua.osworld.freeze_user_1"  # reset(logger), as OSWorld's runner
    with pytest.raises(AgentError) as raised:
        agent.step(observation())
    message = str(raised.value)
    assert raised.value.error_kind == "agent"
    assert "tests.models.osworld_agents.misbehaving:Misbehaving: predict raised KeyError" in message
    assert "osworld_agents/misbehaving.py:" in message and "in _plan" in message
    with pytest.raises(AgentError, match=r"its constructor raised ValueError.*osworld_agents/example.py:\d+ in __init__"):
        bridged(EXAMPLE, observation_type="som")


def test_a_replay_miss_is_an_agent_error_naming_task_and_step(tmp_path: Path, agents: list[Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a replay needs no key: the bridge gives the SDK one
    agent = bridged(EXAMPLE, replay=tmp_path)
    agents.append(agent)
    start(agent)
    with pytest.raises(ModelRequestError, match="no recording for task create_lead_1 step 1"):
        agent.step(observation())
    assert "OPENAI_API_KEY" not in os.environ


def test_a_replay_miss_stops_an_agent_that_would_retry_for_long(tmp_path: Path, agents: list[Any]) -> None:
    agent = bridged("osworld:tests.models.test_osworld_bridge:Retrying", replay=tmp_path)
    agents.append(agent)
    start(agent)
    raised = raised_by_step(agent, observation())  # the agent alone would retry for 300 s and more
    with pytest.raises(ModelRequestError, match="no recording for task create_lead_1 step 1"):
        raise raised or AssertionError("the step went on past the replay miss")


@pytest.mark.parametrize("text, options, named", [
    ("osworld", {}, "name the agent class as osworld:package.module:Class"),
    ("osworld:tests.models.osworld_agents.example", {}, "name the agent class as osworld:package.module:Class"),
    ("osworld:tests.models.osworld_agents.nowhere:Agent", {}, "cannot import tests.models.osworld_agents.nowhere"),
    ("osworld:tests.models.osworld_agents.example:parse_code", {}, "parse_code is a function, not a class"),
    ("osworld:tests.models.test_osworld_bridge:NoPredict", {}, "NoPredict has no predict(instruction, obs) method"),
    (EXAMPLE, {"temperatur": "0"}, "--cua-agent-option temperatur: CodeAgent() takes no such argument; it takes: "
                                   "model, max_tokens, temperature"),
    (FIXED, {}, "missing a required argument: 'actions'"),
    (EXAMPLE, {"osworld.screen": "big"}, "osworld.screen=big: expected WIDTHxHEIGHT"),
    (EXAMPLE, {"osworld.zoom": "2"}, "osworld.zoom: not an option of the osworld bridge"),
])
def test_a_bad_agent_or_option_is_refused_before_anything_runs(text: str, options: dict[str, str], named: str) -> None:
    with pytest.raises(UnknownAgent) as refused:
        bridged(text, **options)
    assert named in str(refused.value)


# -- end to end ---------------------------------------------------------------------------------------------

TASK = "freeze_user_1"


def bridge_run(reports: Path, agent: str, *args: str, fake: bool = False, suite: str = "suites/scuba") -> Run:
    """An inner run of a suite with the bridged ``agent``; ``fake``: the scripted model answers its calls."""
    model = ["-p", "tests.models.fake_model_plugin", "--fake-model", "openai-computer",
             "-p", "tests.models.osworld_agents.fake_plugin"] if fake else []
    return Run(reports, suite, "--agent", agent, *args, *model)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    base = tmp_path_factory.mktemp("osworld")
    run = bridge_run(base / "reports", EXAMPLE, *select([TASK]), "--cua-agent-option", "osworld.screen=1280x800",
                     "--cua-model-record", str(base / "recordings"), "--alluredir", str(base / "allure"),
                     "--osworld-requests", str(base / "requests.jsonl"), fake=True)
    return run, base


@pytest.mark.browser
def test_the_bridged_agent_solves_a_scuba_task_counted_like_ours(recorded: tuple[Run, Path]) -> None:
    run, base = recorded
    assert run.passed() == [TASK], run.explain()
    record = run.tasks[TASK]
    assert record["agent"]["name"] == "osworld" and record["agent"]["model"] == "gpt-4.1"
    assert record["agent"]["agent"] == EXAMPLE[8:] and record["agent"]["screen"] == "1280x800"
    assert record["tokens_in"] > 0 and record["cost_usd"] > 0 and record["usage"]["requests"] == record["steps"]
    requests = [json.loads(line) for line in (base / "requests.jsonl").read_text().splitlines()]
    assert len(requests) == record["steps"] and {r["path"] for r in requests} == {"chat"}
    assert [e for r in requests for e in openai_errors("CreateChatCompletionRequest", r["body"])] == []
    files = [p for p in base.rglob("*") if p.is_file()]
    assert not [p for p in files if KEY.encode() in p.read_bytes() or b"sk-fake-e2e" in p.read_bytes()]


@pytest.mark.browser
def test_trajectory_and_allure_show_the_agents_own_text_and_what_it_saw(recorded: tuple[Run, Path]) -> None:
    run, base = recorded
    folder = Path(run.tasks[TASK]["trajectory"]).parent
    steps = json.loads((folder / "trajectory.json").read_text())["steps"]
    first = steps[0]
    assert "```python\npyautogui.click(" in first["reasoning"] and first["actions"][0]["type"] == "click"
    assert first["extra"]["model"]["coords"]["image"] == [1280, 800] and first["extra"]["osworld"]["actions"]
    assert Image.open(folder / first["images"]["model"]).size == (1280, 800)
    assert steps[-1]["actions"] == [{"type": "done"}] and "```DONE```" in steps[-1]["reasoning"]
    attachments = "".join(p.read_text() for p in (base / "allure").glob("*-result.json"))
    assert '"reasoning"' in attachments and "image sent to the model" in attachments


@pytest.mark.browser
def test_the_recorded_traffic_replays_to_the_same_verdict_with_no_model(recorded: tuple[Run, Path],
                                                                      tmp_path: Path) -> None:
    run, base = recorded
    replay = bridge_run(tmp_path / "reports", EXAMPLE, *select([TASK]), "--cua-agent-option",
                        "osworld.screen=1280x800", "--cua-model-replay", str(base / "recordings"))
    assert replay.passed() == [TASK], replay.explain()
    again, before = replay.tasks[TASK], run.tasks[TASK]
    assert again["agent"]["traffic"] == "replay"
    assert (again["steps"], again["tokens_in"], again["cost_usd"]) == (before["steps"], before["tokens_in"],
                                                                      before["cost_usd"])


@pytest.mark.browser
def test_a_raising_agent_is_an_agent_error_and_an_unsupported_action_a_failure(tmp_path: Path) -> None:
    run = bridge_run(tmp_path / "reports", MISBEHAVING, *select(["freeze_user_1", "freeze_user_2"]))
    raised, unsupported = run.tasks["freeze_user_1"], run.tasks["freeze_user_2"]
    assert raised["outcome"] == "error" and raised["error_kind"] == "agent", run.explain()
    assert "misbehaving:Misbehaving: predict raised KeyError" in raised["error"] and "in _plan" in raised["error"]
    assert unsupported["outcome"] == "failed", run.explain()
    steps = json.loads((Path(unsupported["trajectory"]).parent / "trajectory.json").read_text())["steps"]
    assert [a["type"] for a in steps[0]["actions"]] == ["fail"]  # not even the click before it
    assert "'pyautogui.locateOnScreen' is not allowed" in steps[0]["actions"][0]["reason"]


@pytest.mark.usefixtures("docker_client")  # skipped without a dockerd, a failure under CI (tests/conftest.py)
@pytest.mark.docker
@pytest.mark.full  # the bridge on the desktop in CI: tests/models/test_agent_s.py (Agent-S is an OSWorld agent)
def test_the_bridged_agent_solves_a_prosoft_task_on_the_desktop(tmp_path: Path) -> None:
    run = bridge_run(tmp_path / "reports", EXAMPLE, *select(["calc-set-cell"]), "--cua-docker-image",
                     "cua-desktop-office", "--cua-agent-option", "osworld.screen=1920x1080", fake=True,
                     suite="suites/prosoft")  # the agent assumes OSWorld's screen; the desktop's is smaller
    assert run.passed() == ["calc-set-cell"], run.explain()
    record = run.tasks["calc-set-cell"]
    assert record["tokens_in"] > 0 and record["cost_usd"] > 0
    first = json.loads((Path(record["trajectory"]).parent / "trajectory.json").read_text())["steps"][0]
    coords = first["extra"]["model"]["coords"]
    assert coords["image"] == [1920, 1080] and coords["screen"] != [1920, 1080]
    assert "pyautogui.click(" in first["reasoning"] and first["actions"][0]["type"] == "click"
