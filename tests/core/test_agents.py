"""The agent registry (names, PROVIDER:MODEL, model aliases) and the built-in agents."""

from __future__ import annotations

import pytest

from pytest_cua.actions import Answer, Done, Fill
from pytest_cua.agents.base import Agent, AgentContext, AgentError
from pytest_cua.agents.builtin import NoopAgent, OracleAgent, ReplayAgent
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent
from pytest_cua.observations import Observation
from pytest_cua.tasks.task import Task


class FakeProvider(Agent):
    """A provider with a model table, as a model-backed agent package would register."""

    name = "vendor"
    models = {"o3": "o3-2025-04-16", "mini": "vendor-mini"}

    def __init__(self, model=None):
        super().__init__()
        self.model = model

    @classmethod
    def from_spec(cls, spec):
        return cls(spec.model)

    def start(self, task, context):
        pass

    def step(self, observation):
        return [Done()]


def test_builtin_names_resolve_from_entry_points():
    registry = AgentRegistry()
    assert {"noop", "replay", "oracle"} <= set(registry.names())
    assert isinstance(registry.create(registry.resolve("noop")), NoopAgent)


def test_model_alias_and_provider_model_resolve_to_provider_and_model():
    registry = AgentRegistry({"vendor": FakeProvider})
    spec = registry.resolve("o3")
    assert (spec.provider, spec.model) == ("vendor", "o3-2025-04-16")
    assert registry.create(spec).model == "o3-2025-04-16"
    spec = registry.resolve("vendor:custom-model")
    assert (spec.provider, spec.model) == ("vendor", "custom-model")


def test_unknown_agent_lists_the_known_ones():
    with pytest.raises(UnknownAgent, match=r"unknown agent 'nope'; known agents: agent-s, anthropic, gemini, noop, openai, openai-compatible, oracle, osworld, replay, scuba, vendor"):
        AgentRegistry({"vendor": FakeProvider}).resolve("nope")


def _task(**kw):
    return Task(id="t", suite="s", instruction="i", **kw)


def test_replay_plays_one_action_per_step_then_done_and_stops_after_a_failure():
    agent = ReplayAgent()
    agent.start(_task(), AgentContext(demonstration=lambda: [Fill("a", "1"), Fill("b", "2")]))
    assert agent.step(Observation()).actions == [Fill("a", "1")]
    assert agent.step(Observation(last_error="no element a")).actions == [Done()]
    with pytest.raises(AgentError, match="has no demonstration"):
        ReplayAgent().start(_task(), AgentContext())


def test_oracle_solves_then_answers_question_tasks():
    solved = []
    agent = OracleAgent()
    task = _task(template="qa_x", ground_truth={"answer": "Acme"})
    agent.start(task, AgentContext(solve=lambda: solved.append(1)))
    turn = agent.step(Observation())
    assert solved == [1] and turn.actions == [Answer("Acme")]
    with pytest.raises(AgentError, match="no oracle solver"):
        OracleAgent().start(_task(), AgentContext())


def test_replay_resolves_semantic_targets_against_the_observation():
    from pytest_cua.actions import Click
    from pytest_cua.observations import Element

    elements = {"e1": Element("e1", "link", "Accounts"), "e2": Element("e2", "button", "Save"),
                "e3": Element("e3", "textbox", "Account Name"), "e4": Element("e4", "button", "Save")}
    agent = ReplayAgent()
    agent.start(_task(), AgentContext(demonstration=lambda: [
        Fill('label=Account Name', "Acme"), Click('role=button[name="Save"] >> nth=1'), Click("role=link[name*='count']"),
        Click('role=button[name="Delete"]')]))
    obs = Observation(elements=elements)
    assert agent.step(obs).actions == [Fill("e3", "Acme")]
    assert agent.step(obs).actions == [Click("e4")]
    assert agent.step(obs).actions == [Click("e1")]
    turn = agent.step(obs)
    assert turn.actions[0].kind == "fail" and "no element matches 'role=button[name=\"Delete\"]'" in turn.actions[0].reason
