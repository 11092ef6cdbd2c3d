"""``--agent agent-s``: Agent S2.5 of ``gui-agents`` (PyPI), unchanged, through the OSWorld bridge.

Without a desktop, against two fake OpenAI-compatible servers on loopback (the planner's at ``OPENAI_BASE_URL``,
the grounding model's at ``--cua-model-url``): the planner's grounded action, located by the grounding model in its
1920x1080 output space, comes back in screen pixels; the reflection reaches the planner's server; every request
is valid for OpenAI's chat schema (vLLM's ``repetition_penalty`` aside); a question's answer is what it passes to
``agent.done``; an action we cannot carry out fails the step naming it; an agent that raises is an ``agent`` error
naming the frame in gui-agents; bad options are refused before anything runs.

End to end on the docker desktop (``cua-desktop-office``), a scripted model (``osworld_agents/scuba_fake_plugin.py
--scuba-fake agent-s``) solves ProSoft's ``calc-set-cell`` through Agent S's own prompts and parsing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.actions import Answer, Click, Fail, Hotkey, Point
from pytest_cua.agents.base import AgentContext, AgentError
from pytest_cua.agents.models.retry import ModelRequestError
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent
from pytest_cua.testing.fake_models import FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.conftest import KEY, raised_by_step
from tests.models.test_conformance import openai_errors
from tests.models.test_e2e import Run, select
from tests.models.test_model_agents import observation, task

pytest.importorskip("gui_agents.s2_5.agents.agent_s",
                    reason="Agent S comes with the scuba-agents extra: pip install -e '.[scuba-agents]'")


def planned(*calls: str) -> Any:
    """A planner answering each generation with the next grounded action, each reflection with a sentence."""
    plans = iter(calls)

    def reply(request: Any) -> FakeReply:
        if "designed to reflect on the trajectory" in json.dumps(request.body["messages"][0])[:600]:
            return FakeReply(text="The previous action worked.")
        return FakeReply(text=f"(Next Action)\nThe next step.\n(Grounded Action)\n```python\n{next(plans)}\n```")

    return reply


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The planner's server (OPENAI_BASE_URL while the agent is made) and the grounding model's."""
    for name in ("OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, KEY)
    with FakeModelServer(api_key=KEY) as planner, FakeModelServer(api_key=KEY) as grounder:
        monkeypatch.setenv("OPENAI_BASE_URL", planner.openai_base_url)
        yield planner, grounder


def agent_s(grounder: FakeModelServer | str | None, agents: list[Any], *, replay: Path | None = None,
            **options: str) -> Any:
    url = grounder.openai_base_url if isinstance(grounder, FakeModelServer) else grounder
    settings = ModelSettings(base_url=url, options=options, replay_dir=replay)
    registry = AgentRegistry()
    spec = registry.resolve("agent-s", {"model_settings": settings})
    registry.validate(spec)
    agent = registry.create(spec)
    agents.append(agent)
    return agent


def test_the_planner_plans_the_grounding_model_locates_and_the_answer_is_done_s_value(
        servers: Any, agents: list[Any]) -> None:
    planner, grounder = servers
    planner.policy = planned('agent.click("the Save button", 1, "left")', "agent.hotkey(['ctrl', 's'])",
                             'agent.done("42")')
    grounder.policy = ScriptedPolicy([FakeReply(text="(1280,720)")])
    agent = agent_s(grounder, agents, max_trajectory_length="3")
    agent.start(task(question=True), AgentContext(observation_kinds=agent.observation_kinds))
    first = agent.step(observation())  # a 1920x1080 screen: the agent sees it whole
    assert first.actions == [Click(Point(1280.0, 720.0))] and first.usage.requests == 2
    assert first.reasoning.startswith("(Next Action)\nThe next step.")
    assert agent.step(observation(step=1)).actions == [Hotkey(("ctrl", "s"))]
    assert agent.step(observation(step=2)).actions == [Answer("42")]
    assert [r.model for r in grounder.requests] == ["UI-TARS-1.5-7B"]
    assert "Query:the Save button" in grounder.requests[0].last_text
    assert [r.model for r in planner.requests] == ["gpt-5-2025-08-07"] * 5  # plan, then reflection and plan twice
    assert agent.describe()["bridge"] == "agent-s" and agent.usage.requests == 6
    for request in planner.requests:
        assert openai_errors("CreateChatCompletionRequest", request.body) == []
    body = dict(grounder.requests[0].body)
    assert body.pop("repetition_penalty") == 1.05  # vLLM's, not OpenAI's
    assert openai_errors("CreateChatCompletionRequest", body) == []
    assert not planner.violations and not grounder.violations


def test_an_action_we_cannot_carry_out_fails_the_step_naming_it(servers: Any, agents: list[Any]) -> None:
    planner, grounder = servers
    planner.policy = planned('agent.switch_applications("gedit")')
    agent = agent_s(grounder, agents)
    agent.start(task(), AgentContext(observation_kinds=agent.observation_kinds))
    turn = agent.step(observation())
    assert len(turn.actions) == 1 and isinstance(turn.actions[0], Fail)
    assert "agent-s agent, step 1, action 1" in turn.actions[0].reason
    assert "not 'subprocess'" in turn.actions[0].reason


def test_an_agent_that_raises_is_an_agent_error_naming_the_frame(servers: Any, agents: list[Any]) -> None:
    planner, grounder = servers
    with pytest.raises(AgentError) as raised:
        agent_s(grounder, agents, provider="nowhere")  # gui-agents' LMMAgent refuses an engine it does not know
    message = str(raised.value)
    assert raised.value.error_kind == "agent"
    assert message.startswith("agent-s agent: its constructor raised ValueError: engine_type is not supported"), message
    assert "core/mllm.py:" in message and "in __init__" in message, message


def test_a_replay_miss_stops_agent_s_at_once(tmp_path: Path, agents: list[Any],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"):
        monkeypatch.setenv(name, KEY)
    agent = agent_s("http://127.0.0.1:9/v1", agents, replay=tmp_path)  # nothing recorded: every call misses
    agent.start(task(), AgentContext(observation_kinds=agent.observation_kinds))
    raised = raised_by_step(agent, observation())  # gui-agents alone backs off for 60 s, three times over
    with pytest.raises(ModelRequestError, match="no recording for task create_lead_1 step 1"):
        raise raised or AssertionError("the step went on past the replay miss")


@pytest.mark.parametrize("options, url, named", [
    ({"temperature": "0"}, "http://127.0.0.1:9/v1", "--cua-agent-option temperature: not an option of agent-s"),
    ({"grounding_width": "wide"}, "http://127.0.0.1:9/v1", "grounding_width=wide: expected a whole number"),
    ({}, None, "needs --cua-model-url"),
])
def test_a_bad_option_is_refused_before_anything_runs(options: dict[str, str], url: str | None, named: str) -> None:
    settings = ModelSettings(base_url=url, options=options)
    registry = AgentRegistry()
    with pytest.raises(UnknownAgent) as refused:
        registry.validate(registry.resolve("agent-s", {"model_settings": settings}))
    assert named in str(refused.value)


@pytest.mark.usefixtures("docker_client")  # skipped without a dockerd, a failure under CI (tests/conftest.py)
@pytest.mark.slow
@pytest.mark.docker
def test_agent_s_solves_a_prosoft_task_on_the_desktop(tmp_path: Path) -> None:
    run = Run(tmp_path / "reports", "suites/prosoft", *select(["calc-set-cell"]), "--agent", "agent-s",
              "--cua-docker-image", "cua-desktop-office", "-p", "tests.models.osworld_agents.scuba_fake_plugin",
              "--scuba-fake", "agent-s", "--scuba-requests", str(tmp_path / "requests.jsonl"),
              fake="openai-computer")
    assert run.passed() == ["calc-set-cell"], run.explain()
    record = run.tasks["calc-set-cell"]
    assert record["agent"]["name"] == "agent-s" and record["tokens_in"] > 0
    requests = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert {r["model"] for r in requests} == {"gpt-5-2025-08-07", "UI-TARS-1.5-7B"}
    for request in requests:
        body = {k: v for k, v in request["body"].items() if k != "repetition_penalty"}
        assert openai_errors("CreateChatCompletionRequest", body) == []
    steps = json.loads((Path(record["trajectory"]).parent / "trajectory.json").read_text())["steps"]
    assert "(Grounded Action)" in steps[0]["reasoning"] and steps[-1]["actions"][-1]["type"] == "done"
