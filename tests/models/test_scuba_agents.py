"""The SCUBA bridge (``--agent scuba:NAME``): SCUBA's released agents, imported unchanged from the release
(``tests/scuba/release_root.py``: ``$PYTEST_CUA_SCUBA_ROOT``, else ``<repository>/../shared/scuba/release``), driven
as SCUBA's runner drives them.

Without a browser, against the fake vendor servers on loopback, each agent speaks its own protocol and its own
grammar: its requests validate against the vendor's schema, its answer becomes typed actions in screen pixels,
``DONE`` on a question task the answer SCUBA's runner would evaluate. OpenCUA-7B's Ray calls reach an
OpenAI-compatible server through the loopback shim; S2.5's planner and grounding model reach two servers;
OpenAI-CUA is told of each of its actions before its next call. An agent that raises in SCUBA's code is an ``agent``
error naming the agent and the frame; an action we cannot carry out fails the step naming it; a replay miss stops
an agent that would retry for long; bad options are refused before anything runs.

End to end, each agent solves a task with a scripted model (``osworld_agents/scuba_fake_plugin.py``) through its
own prompts and parsing, one inner pytest run per agent (``--agent`` names one agent a run): SCUBA's
``freeze_user_1`` on the embedded org in Chromium, and ProSoft's ``calc-set-cell`` on the docker desktop
(``cua-desktop-office``), its clicks at screen points, keys, typing and waits each in the agent's own form.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.actions import (ActionError, Answer, Click, Done, Drag, Fail, Hotkey, MouseDown, MouseUp, Move, Point,
                                Press, Type, Wait, actions_from_dicts)
from pytest_cua.agents.base import AgentContext, AgentError, Usage
from pytest_cua.agents.bridges.loading import BridgeError
from pytest_cua.agents.bridges.pyautogui_forms import code_actions
from pytest_cua.agents.bridges.scuba import RUN_ROOT
from pytest_cua.agents.bridges.scuba_release import ROOT_VARIABLE, release_args, release_root as checkout
from pytest_cua.agents.models.pricing import PriceTable
from pytest_cua.agents.models.retry import ModelRequestError
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry, UnknownAgent
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.conftest import KEY
from tests.models.test_conformance import anthropic_errors, check_traffic, openai_errors
from tests.models.osworld_agents.scuba_fake_plugin import desktop_thought
from tests.models.test_e2e import REPO, Run, select
from tests.models.test_model_agents import observation, task
from tests.scuba.release_root import release_root

ROOT = release_root()


def _missing() -> str | None:
    """Why SCUBA's agents cannot run here, or None."""
    import importlib.util

    for module in ("loguru", "backoff", "pytesseract"):
        if importlib.util.find_spec(module) is None:
            return f"SCUBA's agents need {module}, of the scuba-agents extra: pip install -e '.[scuba-agents]'"
    if not (ROOT / "agents").is_dir():
        return f"no SCUBA release at {ROOT} (set PYTEST_CUA_SCUBA_ROOT)"
    return None


needs_release = pytest.mark.skipif(_missing() is not None, reason=str(_missing()))
# SCUBA's OpenAI-CUA reads every attribute of a pydantic action (dir(action)), deprecated ones too
pytestmark = pytest.mark.filterwarnings("ignore:Accessing the .model_.* attribute on the instance is deprecated")


def bridged(name: str, server: FakeModelServer | None = None, *, url: str | None = None, replay: Path | None = None,
            **options: str) -> Any:
    base = url if url is not None else (server.openai_base_url if server else None)
    settings = ModelSettings(base_url=base, options={"scuba.root": str(ROOT), **options}, replay_dir=replay)
    registry = AgentRegistry()
    spec = registry.resolve(f"scuba:{name}", {"model_settings": settings})
    registry.validate(spec)
    return registry.create(spec)


@pytest.fixture
def claude_env(server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude-CUA's client finds the fake's Messages API as it would Anthropic's."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)


def known_deviations(protocol: str, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``body`` with what SCUBA's agents send beside today's vendor schemas put right, and what that was.

    * OpenAI-CUA: an ``input_image`` with no ``detail`` (the schema requires it), and ``computer_call_output``
      whose ``output`` is typed ``input_image`` (the schema's ``computer_screenshot``);
    * Claude-CUA: ``temperature`` at the top of the body (the 2.x SDK and its pinned schema have none);
    * S2.5's grounding model: vLLM's ``repetition_penalty`` (not OpenAI's)."""
    body = json.loads(json.dumps(body))
    found: list[str] = []
    if protocol == "messages" and "temperature" in body:
        del body["temperature"]
        found.append("temperature")
    if protocol == "chat" and "repetition_penalty" in body:
        del body["repetition_penalty"]
        found.append("repetition_penalty")
    if protocol == "responses":
        for item in body.get("input") or []:
            if not isinstance(item, dict):
                continue
            for part in item.get("content") or [] if isinstance(item.get("content"), list) else []:
                if isinstance(part, dict) and part.get("type") == "input_image" and "detail" not in part:
                    part["detail"] = "auto"
                    found.append("input_image without detail")
            if item.get("type") == "computer_call_output" and (item.get("output") or {}).get("type") == "input_image":
                item["output"]["type"] = "computer_screenshot"
                found.append("computer_call_output typed input_image")
    return body, found


def check_scuba_traffic(server: FakeModelServer, expected: set[str]) -> None:
    """The server's traffic valid for the vendor's schema once SCUBA's known deviations are put right; those
    seen are ``expected`` (a fixed release would show here)."""
    seen: set[str] = set()
    for request in server.requests:
        request.body, found = known_deviations(request.protocol, request.body)
        seen.update(found)
    assert seen == expected, seen
    check_traffic(server)


def start(agent: Any, question: bool = False) -> None:
    agent.start(task(question), AgentContext(observation_kinds=agent.observation_kinds))


# -- each agent against its vendor ---------------------------------------------------------------------------

@pytest.mark.usefixtures("keys")
@needs_release
def test_ui_tars_reads_its_grammar_in_smart_resize_space_and_its_finished_content_is_the_answer(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([FakeReply(text="Thought: The Save button is at the bottom.\n"
                                                   "Action: click(start_box='(644,420)')"),
                                    FakeReply(text="Thought: I have it.\nAction: finished(content='42')")])
    agent = bridged("UI-TARS-1.5", server, served_model_name="ui-tars-1.5-7b", viewport_width="1280",
                    viewport_height="800", history_n="2")
    agents.append(agent)
    start(agent, question=True)
    first = agent.step(observation())  # a 1920x1080 screen; the agent assumes 1280x800
    assert server.requests[0].image_size() == (1280, 800) and server.requests[0].model == "ui-tars-1.5-7b"
    # (644, 420) of smart_resize(800, 1280) = 1288x812 is (640, 413.8) of 1280x800, (960, 558.6) on the screen
    assert first.actions == [Click(Point(960.0, 558.6))], first.actions
    assert first.reasoning.startswith("Thought: The Save button") and first.extra["scuba"]["agent"] == "UI-TARS-1.5"
    assert first.usage.requests == 1 and first.usage.tokens_in > 0
    assert agent.step(observation(step=1)).actions == [Answer("42")]
    check_scuba_traffic(server, set())
    assert server.requests[1].body["frequency_penalty"] == 1  # the agent's own request


@pytest.mark.usefixtures("keys")
@needs_release
def test_opencua_asks_the_ray_service_and_the_shim_asks_the_openai_compatible_server(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([
        FakeReply(text="## Thought:\nI see the form.\n\n## Action:\nClick Save\n\n```python\n"
                       "pyautogui.click(x=966, y=546)\n```"),
        FakeReply(text="## Thought:\nIt is saved.\n\n## Action:\nThe lead is saved.\n\n```code\n"
                       "computer.terminate(status='success')\n```")])
    agent = bridged("OpenCUA-7B", server, served_model_name="opencua-7b", max_tokens="700")
    agents.append(agent)
    start(agent)
    first = agent.step(observation())
    # qwen25 coordinates: (966, 546) of smart_resize(1080, 1920) = 1932x1092 is (960, 540)
    assert first.actions == [Click(Point(960.0, 540.0))] and "## Action:\nClick Save" in first.reasoning
    request = server.requests[0]
    assert request.protocol == "chat" and request.model == "opencua-7b" and request.body["max_tokens"] == 700
    assert first.usage.requests == 1 and first.usage.tokens_in > 0  # counted at the proxy behind the shim
    assert agent.step(observation(step=1)).actions == [Done()]
    check_scuba_traffic(server, set())


@pytest.mark.usefixtures("keys")
@needs_release
def test_openai_cua_is_told_of_each_action_before_its_next_call_and_its_message_is_the_answer(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([
        FakeReply(reasoning="I fill in the name.", calls=[FakeCall("computer", {"type": "click", "button": "left",
                                                                             "x": 200, "y": 115}),
                                                        FakeCall("computer", {"type": "type", "text": "Lopez"})]),
        FakeReply(text="The answer is 42.")])
    agent = bridged("OpenAI-CUA", server)
    agents.append(agent)
    start(agent, question=True)
    first = agent.step(observation())
    assert first.actions == [Move(Point(200.0, 115.0)), Click(Point(200.0, 115.0))] and first.reasoning == \
        "I fill in the name."
    second = agent.step(observation(step=1))  # its second call of that answer, with no model call
    assert second.actions == [Type("Lopez")] and second.usage.requests == 0 and second.extra["scuba"]["queued"]
    assert len(server.requests) == 1
    third = agent.step(observation(step=2))  # both actions acknowledged with a screenshot, then asked again
    assert third.actions == [Answer("The answer is 42.")]
    outputs = [i for i in server.requests[1].body["input"] if isinstance(i, dict) and i.get("type") ==
               "computer_call_output"]
    assert len(outputs) == 2 and all(o["output"]["image_url"].startswith("data:image/png;base64,") for o in outputs)
    assert server.requests[0].body["tools"][0]["type"] == "computer_use_preview"
    check_scuba_traffic(server, {"input_image without detail", "computer_call_output typed input_image"})


@pytest.mark.usefixtures("keys", "claude_env")
@needs_release
def test_claude_cua_sends_its_own_request_and_its_keys_become_a_hotkey(server: FakeModelServer,
                                                                      agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([
        FakeReply(reasoning="The name field first.", text="Selecting the field.",
                  calls=[FakeCall("computer", {"action": "left_click", "coordinate": [640, 360]})]),
        FakeReply(reasoning="Select all.", calls=[FakeCall("computer", {"action": "key", "text": "ctrl+a"})]),
        FakeReply(text="42")])
    agent = bridged("Claude-CUA", server, url="", claude_service_provider="anthropic", history_n="3")
    agents.append(agent)
    assert agent.describe()["notes"] and agent.model == "claude-4-sonnet-20250514"
    start(agent, question=True)
    first = agent.step(observation())
    # the agent sends 1280x720 and scales to its 1920x1080 screen itself
    assert server.requests[0].image_size() == (1280, 720) and first.actions == [Click(Point(960.0, 540.0))]
    assert "The name field first." in first.reasoning and "Selecting the field." in first.reasoning
    assert agent.step(observation(step=1)).actions == [Hotkey(("ctrl", "a"))]
    assert agent.step(observation(step=2)).actions == [Answer("42")]
    body = server.requests[0].body
    assert body["tools"][0]["type"] == "computer_20250124" and body["thinking"]["type"] == "enabled"
    assert body["temperature"] == 1.0  # the runner's temperature, sent in the body as SCUBA's SDK did
    check_scuba_traffic(server, {"temperature"})


@pytest.mark.usefixtures("keys")
@needs_release
def test_s25_plans_at_openai_and_grounds_at_the_model_url(agents: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    plans = iter(['(Next Action)\nClick Save.\n(Grounded Action)\n```python\nagent.click("the Save button", 1, '
                  '"left")\n```', '(Next Action)\nDone.\n(Grounded Action)\n```python\nagent.done("42")\n```'])
    with FakeModelServer(api_key=KEY) as planner, FakeModelServer(api_key=KEY) as grounder:
        planner.policy = lambda request: FakeReply(
            text="The click worked." if "reflect" in json.dumps(request.body["messages"][0])[:400] else next(plans))
        grounder.policy = ScriptedPolicy([FakeReply(text="(960,540)")])
        monkeypatch.setenv("OPENAI_BASE_URL", planner.openai_base_url)
        agent = bridged("S2.5", grounder)
        agents.append(agent)
        monkeypatch.delenv("OPENAI_BASE_URL")
        start(agent, question=True)
        first = agent.step(observation())
        assert first.actions == [Click(Point(960.0, 540.0))] and first.usage.requests == 2
        assert "Click Save." in first.reasoning
        assert agent.step(observation(step=1)).actions == [Answer("42")]
        assert [r.model for r in planner.requests] == ["gpt-5-2025-08-07"] * 3  # plan, reflection, plan
        assert [r.model for r in grounder.requests] == ["UI-TARS-1.5-7B"]
        assert "Query:the Save button" in grounder.requests[0].last_text
        assert planner.requests[0].body["temperature"] == 1.0  # the runner's for gpt-5
        check_scuba_traffic(planner, set())
        check_scuba_traffic(grounder, {"repetition_penalty"})


# -- errors ----------------------------------------------------------------------------------------------------

@pytest.mark.usefixtures("keys")
@needs_release
def test_an_agent_that_raises_in_scubas_code_is_an_agent_error_naming_it_and_the_frame(
        server: FakeModelServer, agents: list[Any]) -> None:
    server.policy = ScriptedPolicy([FakeReply(refusal="I can't help with that.")])
    agent = bridged("OpenAI-CUA", server)
    agents.append(agent)
    start(agent)
    with pytest.raises(AgentError) as raised:
        agent.step(observation())
    message = str(raised.value)
    assert raised.value.error_kind == "agent"
    assert message.startswith("scuba agent OpenAI-CUA: predict raised AttributeError"), message
    assert "agents/openaicua_agent.py:" in message and "in _handle_item" in message  # a refusal has no text
    with pytest.raises(AgentError, match=r"its constructor raised ValueError: Invalid COT level: l9 .*"
                                         r"agents/opencua_agent.py:\d+ in __init__"):
        bridged("OpenCUA-7B", server, served_model_name="opencua-7b", opencua_cot_level="l9")


@pytest.mark.usefixtures("keys")
@needs_release
def test_an_action_we_cannot_carry_out_fails_the_step_naming_it(agents: list[Any],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(api_key=KEY) as server:
        server.policy = ScriptedPolicy([FakeReply(text='(Grounded Action)\n```python\nagent.switch_applications('
                                                       '"gedit")\n```')])
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        agent = bridged("S2.5", server)
        agents.append(agent)
        start(agent)
        turn = agent.step(observation())
    assert len(turn.actions) == 1 and isinstance(turn.actions[0], Fail), turn.actions
    reason = turn.actions[0].reason
    assert "scuba agent S2.5, step 1, action 1" in reason and "not 'subprocess'" in reason, reason


@pytest.mark.usefixtures("keys")
@needs_release
def test_a_replay_miss_stops_an_agent_that_would_retry_for_long(tmp_path: Path, agents: list[Any]) -> None:
    agent = bridged("Claude-CUA", url="", replay=tmp_path, claude_service_provider="anthropic")
    agents.append(agent)
    start(agent)
    began = time.monotonic()
    with pytest.raises(ModelRequestError, match="scuba agent Claude-CUA, task create_lead_1 step 1: .*no recording"):
        agent.step(observation())
    assert time.monotonic() - began < 30  # SCUBA's agent would retry 500 times, 5 s apart


@pytest.mark.parametrize("name, options, named", [
    ("GPT-9", {}, "not one of SCUBA's agents; choose scuba:UI-TARS-1.5"),
    ("UI-TARS-1.5", {"served_model_name": "m", "claude_model": "x"},
     "--cua-agent-option claude_model: scuba:UI-TARS-1.5 does not read it"),
    ("UI-TARS-1.5", {"served_model_name": "m", "history_n": "two"}, "history_n=two: expected a whole number"),
    ("OpenCUA-7B", {"served_model_name": "m", "opencua_history_type": "all"},
     "choose one of action_history, thought_history, observation_history"),
    ("OpenAI-CUA", {"viewport_width": "1280"}, "assumes a 1920x1080 viewport"),
    ("UI-TARS-1.5", {}, "served_model_name=NAME"),
    ("S2.5", {"s25_ground_model": "Other"}, "requires UI-TARS-1.5-7B"),
    ("UI-TARS-1.5", {"scuba.zoom": "2"}, "scuba.zoom: not an option of the scuba bridge"),
    ("UI-TARS-1.5", {"scuba.root": "/nowhere", "served_model_name": "m"}, "scuba.root=/nowhere: no args.py there"),
])
@needs_release
def test_a_bad_agent_or_option_is_refused_before_anything_runs(name: str, options: dict[str, str],
                                                              named: str) -> None:
    with pytest.raises(UnknownAgent) as refused:
        bridged(name, url="http://127.0.0.1:9/v1", **options)
    assert named in str(refused.value)


@needs_release
def test_a_local_model_needs_the_model_url() -> None:
    with pytest.raises(UnknownAgent, match="needs --cua-model-url"):
        bridged("UI-TARS-1.5", url="", served_model_name="m")


def _checkout(where: Path) -> Path:
    (where / "agents").mkdir(parents=True)
    (where / "args.py").write_text("")
    return where


def test_the_checkout_is_the_option_then_the_runs_scuba_root_then_the_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    option, run, variable = (_checkout(tmp_path / n) for n in ("option", "run", "variable"))
    monkeypatch.setenv(ROOT_VARIABLE, str(variable))
    assert checkout({"scuba.root": str(option)}, str(run)) == option.resolve()
    assert checkout({}, str(run)) == run.resolve()
    assert checkout({}, None) == variable.resolve()
    monkeypatch.delenv(ROOT_VARIABLE)
    with pytest.raises(BridgeError, match="scuba.root=PATH, --scuba-root PATH or the PYTEST_CUA_SCUBA_ROOT"):
        checkout({}, None)


@pytest.mark.parametrize("given, named", [
    ({"options": {"scuba.root": "{bad}"}, "run": "{good}"}, "--cua-agent-option scuba.root={bad}: no args.py"),
    ({"options": {}, "run": "{bad}"}, "--scuba-root={bad}: no args.py"),
    ({"options": {}, "run": None, "variable": "{bad}"}, "PYTEST_CUA_SCUBA_ROOT={bad}: no args.py"),
])
def test_a_bad_checkout_names_the_source_that_gave_it(given: dict[str, Any], named: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    paths = {"bad": str(tmp_path / "nowhere"), "good": str(_checkout(tmp_path / "good"))}
    monkeypatch.setenv(ROOT_VARIABLE, given.get("variable", "{good}").format(**paths))
    options = {k: v.format(**paths) for k, v in given["options"].items()}
    run = given["run"].format(**paths) if given["run"] else None
    with pytest.raises(BridgeError) as refused:
        checkout(options, run)
    assert named.format(**paths) in str(refused.value)


@needs_release
def test_the_runs_scuba_root_reaches_the_agent_through_the_spec(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, str(tmp_path / "not-a-checkout"))  # --scuba-root comes before it
    settings = ModelSettings(base_url="http://127.0.0.1:9/v1", options={"served_model_name": "m"})
    registry = AgentRegistry()
    spec = registry.resolve("scuba:UI-TARS-1.5", {"model_settings": settings})
    with pytest.raises(UnknownAgent, match=r"agent 'scuba:UI-TARS-1.5': PYTEST_CUA_SCUBA_ROOT=.*not-a-checkout: no "
                                           "args.py"):
        registry.validate(spec)  # the variable alone names a wrong checkout: refused at once
    run = replace(spec, options={**spec.options, RUN_ROOT: str(ROOT)})  # as resolve_settings passes --scuba-root
    registry.validate(run)
    agent = registry.create(run)
    try:
        assert agent.scuba.root == ROOT.resolve()
    finally:
        agent.close()
    with pytest.raises(UnknownAgent, match="--scuba-root=/nowhere: no args.py"):
        registry.validate(replace(spec, options={**spec.options, RUN_ROOT: "/nowhere"}))


CLAUDE_CUA_MODEL = "claude-4-sonnet-20250514"  # SCUBA's args.py: --claude_model's default


def test_claude_cuas_model_is_priced_as_claude_sonnet_4() -> None:
    if (ROOT / "args.py").is_file():  # the release's own default, when the release is here
        assert release_args(ROOT)["claude_model"].default == CLAUDE_CUA_MODEL
    table = PriceTable.load()
    price = table.price(CLAUDE_CUA_MODEL)
    assert price is not None and "Claude Sonnet 4" in price.source
    usage = Usage(tokens_in=100_000, tokens_out=10_000)  # below the 200K of long-context rates
    assert table.cost(usage, CLAUDE_CUA_MODEL) == pytest.approx(0.3 + 0.15)  # $3 / $15 per million
    assert table.cost(usage, CLAUDE_CUA_MODEL) == table.cost(usage, "claude-sonnet-4-20250514")


# -- end to end ----------------------------------------------------------------------------------------------

TASK = "freeze_user_1"
E2E = {  # agent -> its options in the inner run
    "OpenAI-CUA": [],
    "Claude-CUA": ["claude_service_provider=anthropic"],
    "UI-TARS-1.5": ["served_model_name=ui-tars-1.5-7b"],
    "OpenCUA-7B": ["served_model_name=opencua-7b"],
    "S2.5": [],
}


def agent_options(name: str) -> list[str]:
    """The inner run's ``--cua-agent-option`` arguments for agent ``name``: the checkout and ``E2E``'s."""
    return [x for o in [f"scuba.root={ROOT}", *E2E[name]] for x in ("--cua-agent-option", o)]


def check_run(run: Run, task_id: str, name: str, tmp_path: Path) -> list[dict[str, Any]]:
    """What every end-to-end run of agent ``name`` shows: ``task_id`` passed, the record names the agent and its
    usage, every request the fake was sent is valid for its vendor's schema (SCUBA's known deviations put right),
    the steps carry the agent's text and end in ``done``, Allure shows the reasoning, no file holds the key. The
    trajectory's steps."""
    assert run.passed() == [task_id], run.explain()
    record = run.tasks[task_id]
    assert record["agent"]["name"] == "scuba" and record["agent"]["agent"] == name
    assert record["tokens_in"] > 0 and record["usage"]["requests"] >= 1
    requests = [json.loads(line) for line in (tmp_path / "requests.jsonl").read_text().splitlines()]
    roots = {"chat": "CreateChatCompletionRequest", "responses": "CreateResponse"}
    for request in requests:
        body, _ = known_deviations(request["path"], request["body"])
        errors = openai_errors(roots[request["path"]], body) if request["path"] in roots else anthropic_errors(
            "BetaMessageCreateParams", body)
        assert errors == [], (request["path"], errors)
    steps: list[dict[str, Any]] = json.loads((Path(record["trajectory"]).parent / "trajectory.json").read_text())[
        "steps"]
    assert steps[0]["reasoning"] and steps[0]["extra"]["scuba"]["agent"] == name
    assert steps[-1]["actions"][-1]["type"] == "done"
    attachments = "".join(p.read_text() for p in (tmp_path / "allure").glob("*-result.json"))
    assert '"reasoning"' in attachments
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in files if b"sk-fake-e2e" in p.read_bytes()]
    return steps


def inner_run(name: str, tmp_path: Path, *args: str) -> Run:
    """One inner run of agent ``name`` with the scripted model writing as its model writes."""
    return Run(tmp_path / "reports", *args, "--agent", f"scuba:{name}", *agent_options(name), "--alluredir",
               str(tmp_path / "allure"), "-p", "tests.models.osworld_agents.scuba_fake_plugin", "--scuba-fake", name,
               "--scuba-requests", str(tmp_path / "requests.jsonl"), fake="openai-computer")


#: the agents CI runs end to end on a SCUBA task: OpenAI's Responses protocol and the OpenAI-compatible chat of the
#: local models; Claude-CUA (its requests read by the quick test_claude_cua_sends_its_own_request..., the Messages
#: protocol end to end by our own Claude agents in test_e2e), OpenCUA-7B and S2.5 (read by their own parsing in the
#: quick tests; S2.5's planner and grounding as Agent-S's, which CI runs on the desktop) are part of the full run
#: (tests/tiers.py): each such run is a minute of CI on two cores
CI_SCUBA_E2E = ("OpenAI-CUA", "UI-TARS-1.5")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("name", [n if n in CI_SCUBA_E2E else pytest.param(n, marks=pytest.mark.full) for n in E2E])
@needs_release
def test_each_agent_solves_a_scuba_task_with_its_own_prompts_and_parsing(name: str, tmp_path: Path) -> None:
    run = inner_run(name, tmp_path, "suites/scuba", *select([TASK]))
    check_run(run, TASK, name, tmp_path)


PROSOFT_TASK = "calc-set-cell"  # in suites/prosoft/tasks/calc.json: a click, keys, typing, a save and its wait
#: each agent's own text around the fake model's thought at the first step (a click at a screen point)
OWN_TEXT = {
    "OpenAI-CUA": ["{thought}"],  # its reasoning summary
    "Claude-CUA": ["{thought}", "I click now."],  # its thinking block and its text block
    "UI-TARS-1.5": ["Thought: {thought}\nAction: click(start_box='("],
    "OpenCUA-7B": ["## Thought:\n{thought}\n\n## Action:\nClick the control\n\n```python\npyautogui.click(x="],
    "S2.5": ["{thought}\n(Next Action)", '(Grounded Action)\n```python\nagent.click("the control at ('],
}


def prosoft_demonstration(task_id: str) -> list[Any]:
    data = json.loads((REPO / "suites" / "prosoft" / "tasks" / "calc.json").read_text(encoding="utf-8"))
    task = next(t for t in data["tasks"] if t["id"] == task_id)
    return actions_from_dicts(task["demonstration"]["actions"], where=f"{task_id} demonstration")


def effects(actions: list[Any]) -> list[str]:
    """What a turn's actions do, in one shape for every agent's forms: a click at its rounded point, keys pressed
    (a typed text's last newline as an Enter), text typed, a wait standing alone (a pause between an agent's own
    actions, UI-TARS's after typing, is no step of the demonstration), the end."""
    out: list[str] = []
    for action in actions:
        if isinstance(action, Click) and isinstance(action.target, Point):
            out.append(f"click {round(action.target.x)},{round(action.target.y)}")
        elif isinstance(action, (Hotkey, Press)):
            keys = action.keys if isinstance(action, Hotkey) else (action.key,)
            out.append("keys " + "+".join(k.lower() for k in keys))
        elif isinstance(action, Type):
            out.append(f"type {action.text.rstrip(chr(10))}")
            out += ["keys enter"] if action.text.endswith("\n") else []
        elif isinstance(action, Wait) and len(actions) == 1:
            out.append("wait")
        elif isinstance(action, Done):
            out.append("done")
    return out


def desktop_screenshot() -> bytes:
    """A blank 1280x800 screen, the docker desktop's size (not SCUBA's 1920x1080 viewport: the agents' coordinates
    are scaled back through a change of aspect)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1280, 800), (240, 240, 240)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.usefixtures("keys")
@pytest.mark.parametrize("name", list(E2E))
@needs_release
def test_each_agent_reads_the_fakes_desktop_moves_as_the_demonstrations_steps(
        name: str, server: FakeModelServer, agents: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a desktop: the scripted model's forms of ``calc-set-cell``'s demonstration (a click at a screen
    point, hotkeys, key presses, typing, waits), read by each agent's own parsing, are the demonstration's steps,
    one a turn, within 3 pixels, then the end."""
    from pytest_cua.observations import Observation
    from tests.models import fake_model_plugin as demo
    from tests.models.osworld_agents.scuba_fake_plugin import ScubaPolicy

    monkeypatch.setattr(demo, "STATE", demo._State(task=task(), queue=prosoft_demonstration(PROSOFT_TASK)))
    server.policy = ScubaPolicy(name, demo.DemoPolicy("openai-computer"))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)  # Claude-CUA's client
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)  # S2.5's planner
    options = dict(o.split("=", 1) for o in E2E[name])
    agent = bridged(name, server, **({"url": ""} if name == "Claude-CUA" else {}), **options)
    agents.append(agent)
    start(agent)
    shot = desktop_screenshot()
    seen: list[list[str]] = []
    for step in range(20):
        demo.STATE.observation = Observation(step=step, screenshot=shot)
        turn = agent.step(demo.STATE.observation)
        seen.append(effects(turn.actions))
        if any(a.terminal for a in turn.actions):
            break
    expected = [effects([a]) for a in prosoft_demonstration(PROSOFT_TASK)] + [["done"]]
    assert len(seen) == len(expected), seen
    for got, want in zip(seen, expected):
        if want[0].startswith("click "):
            (gx, gy), (wx, wy) = (map(int, e.split()[1].split(",")) for e in (got[0], want[0]))
            assert len(got) == 1 and abs(gx - wx) <= 3 and abs(gy - wy) <= 3, (got, want)
        else:
            assert got == want, seen
    assert not server.violations


@pytest.mark.usefixtures("docker_client")  # skipped without a dockerd, a failure under CI (tests/conftest.py)
@pytest.mark.slow
@pytest.mark.docker
# CI runs one agent on the desktop (each agent's desktop moves are read by its own parsing in the quick test
# above, and each solves a SCUBA task end to end); the other four are part of the full run (tests/tiers.py)
@pytest.mark.parametrize("name", [n if n == "UI-TARS-1.5" else pytest.param(n, marks=pytest.mark.full) for n in E2E])
@needs_release
def test_each_agent_solves_a_prosoft_task_on_the_desktop(name: str, tmp_path: Path) -> None:
    """ProSoft's ``calc-set-cell`` in LibreOffice Calc: the demonstration's click at a screen point lands there
    through the agent's own coordinates (its image size, smart_resize, qwen25, Claude's 1280x720), each wait of
    the demonstration is a step of one ``wait`` read from the agent's own wait form."""
    run = inner_run(name, tmp_path, "suites/prosoft", *select([PROSOFT_TASK]), "--cua-docker-image",
                    "cua-desktop-office", "--cua-docker-no-spare")
    steps = check_run(run, PROSOFT_TASK, name, tmp_path)
    demonstration = prosoft_demonstration(PROSOFT_TASK)
    click = demonstration[0]
    assert isinstance(click, Click) and isinstance(click.target, Point), click
    thought = desktop_thought(click)
    for text in OWN_TEXT[name]:
        assert text.format(thought=thought) in steps[0]["reasoning"], steps[0]["reasoning"][:2000]
    landed = next(a["target"] for a in steps[0]["actions"] if a["type"] == "click")
    assert abs(landed["x"] - click.target.x) <= 3 and abs(landed["y"] - click.target.y) <= 3, steps[0]["actions"]
    waits = [s["index"] for s in steps if [a["type"] for a in s["actions"]] == ["wait"]]
    assert len(waits) == sum(isinstance(a, Wait) for a in demonstration), [s["actions"] for s in steps]


# -- the forms around the pyautogui code -------------------------------------------------------------------

@pytest.mark.parametrize("code, expected", [
    ("import pyautogui\nimport time\n'''\nObservation:\n\nThought:\nSave it.\n'''\n\npyautogui.click(9.5, 8.0, "
     "button='left')", [Click(Point(9.5, 8.0))]),
    ("pyautogui.keyDown('ctrl')\npyautogui.keyDown('a')\npyautogui.keyUp('a')\npyautogui.keyUp('ctrl')\n",
     [Hotkey(("ctrl", "a"))]),
    ("import pyautogui; pyautogui.keyDown('shift'); import pyautogui; pyautogui.click(3, 4, clicks=1, "
     "button='left'); pyautogui.keyUp('shift'); ", [Click(Point(3.0, 4.0), modifiers=("shift",))]),
    ("import pyautogui; pyautogui.keyDown('ctrl'); pyautogui.press('c'); pyautogui.keyUp('ctrl'); ",
     [Hotkey(("ctrl", "c"))]),
    ("import pyautogui; pyautogui.moveTo(1, 2); pyautogui.dragTo(5, 6, duration=1., button='left'); "
     "pyautogui.mouseUp(); ", [Move(Point(1.0, 2.0)), Drag(Point(1.0, 2.0), Point(5.0, 6.0))]),
    ("pyautogui.mouseDown(5, 6)\ntime.sleep(1)\npyautogui.mouseUp(5, 6)\npyautogui.sleep(0.5)\n",
     [MouseDown(Point(5.0, 6.0)), Wait(1.0), MouseUp(Point(5.0, 6.0)), Wait(0.5)]),
])
def test_the_forms_agents_write_around_pyautogui_are_read_as_actions(code: str, expected: list[Any]) -> None:
    assert code_actions(code) == expected


@pytest.mark.parametrize("code, named", [
    ("pyautogui.keyDown('ctrl')\n", "keys ctrl pressed down and not released"),
    ("pyautogui.keyDown('a')\npyautogui.click(1, 2)\npyautogui.keyUp('a')\n", "key 'a' held around another action"),
    ("pyautogui.keyUp('a')\n", "keyUp of 'a' without its keyDown"),
    ("import subprocess;\nsubprocess.run(['wmctrl', '-ia', '1'])\n", "not 'subprocess'"),
])
def test_a_form_that_cannot_be_carried_out_is_refused_naming_it(code: str, named: str) -> None:
    with pytest.raises(ActionError, match=named):
        code_actions(code)


@pytest.mark.parametrize("root, named", [
    ("/nowhere", "--scuba-root=/nowhere: no args.py there: not a checkout of SCUBA's release"),
    (None, "name SCUBA's checkout (the release with agents/ and args.py) with --cua-agent-option scuba.root=PATH, "
           "--scuba-root PATH or the PYTEST_CUA_SCUBA_ROOT environment variable"),
])
def test_a_checkout_named_only_by_the_runs_scuba_root_is_checked_at_start(root: str | None, named: str,
                                                                           tmp_path: Path) -> None:
    """The run's ``--scuba-root`` reaches the bridge with the settings: a wrong one (or none at all) is a usage
    error before anything runs, not an agent error of every task."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != ROOT_VARIABLE}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "suites/scuba", "--co", "-q",
                           "--agent", "scuba:OpenAI-CUA", "--cua-reports", str(tmp_path),
                           *(["--scuba-root", root] if root else [])],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert named in proc.stderr, proc.stderr[-2000:]
