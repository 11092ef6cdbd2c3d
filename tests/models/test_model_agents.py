"""The model agents against fake vendor servers on loopback, without a browser: each provider and style
builds the vendor's real requests (checked strictly by the fake), turns replies into typed actions, maps
coordinates back to the screen, prices usage, and handles faults as the issue requires:

- 429 with Retry-After, then success; 500 until the retry budget runs out (an ``agent`` error);
- malformed tool arguments go back to the model, which recovers; output that stays unusable ends with fail;
- images are scaled before they are sent; old screenshots leave the prompt (``--cua-history``).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_cua.actions import Answer, Click, Done, Fail, Fill, Hotkey, Point, Scroll, Type
from pytest_cua.agents.base import AgentContext
from pytest_cua.agents.models.retry import ModelUnavailable
from pytest_cua.agents.models.settings import ModelSettings
from pytest_cua.agents.registry import AgentRegistry
from pytest_cua.observations import Element, Observation
from pytest_cua.tasks.task import Task
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest, ScriptedPolicy
from tests.models.conftest import KEY

pytestmark = pytest.mark.usefixtures("keys")
SCREEN = (1920, 1080)
SAVE_BOX = (1500.0, 900.0, 120.0, 40.0)  # the Save button, in screen pixels


def screenshot() -> bytes:
    """A 1920x1080 page with a blue Save button where SAVE_BOX says."""
    img = Image.new("RGB", SCREEN, (250, 250, 250))
    x, y, w, h = SAVE_BOX
    ImageDraw.Draw(img).rectangle([x, y, x + w, y + h], fill=(1, 118, 211))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


SHOT = screenshot()


def observation(step: int = 0, **extra: Any) -> Observation:
    elements = {"e1": Element("e1", "textbox", "Last Name", bbox=(100, 100, 300, 30)),
                "e2": Element("e2", "button", "Save", bbox=SAVE_BOX)}
    return Observation(step=step, screenshot=SHOT, som=SHOT, elements=elements, url="https://org.test/lead/new",
                       title="New Lead", **extra)


def task(question: bool = False) -> Task:
    return Task(id="qa_1" if question else "create_lead_1", instruction="Create a lead named Lopez",
                template="qa_x" if question else "create_lead", suite="scuba",
                ground_truth={"answer": "42"} if question else {})


def agent(text: str, server: FakeModelServer, **settings: Any) -> Any:
    anthropic = text.startswith("claude") or text.startswith("anthropic")
    url = server.anthropic_base_url if anthropic else server.openai_base_url
    options = {"retries": "4", "retry_base_s": "0.01", **settings.pop("options", {})}
    model_settings = ModelSettings(base_url=url, options=options, **settings)
    registry = AgentRegistry()
    spec = registry.resolve(text, {"model_settings": model_settings})
    registry.validate(spec)
    built = registry.create(spec)
    built.adapter.client_settings.sleep = lambda s: None  # retries do not wait in tests (delays are asserted)
    return built


def start(a: Any, t: Task | None = None) -> None:
    a.start(t or task(), AgentContext(observation_kinds=a.observation_kinds, options={"environment": "browser"}))


def center_in_image(request: FakeRequest) -> tuple[int, int]:
    """Where the Save button is drawn in the image the model was sent: found from the pixels."""
    img = Image.open(io.BytesIO(request.last_image)).convert("RGB")
    xs, ys = [], []
    for y in range(0, img.height, 2):
        for x in range(0, img.width, 2):
            r, g, b = img.getpixel((x, y))
            if b > 180 and r < 40 and 90 < g < 150:
                xs.append(x)
                ys.append(y)
    assert xs, "the Save button is not drawn in the screenshot the model was sent"
    return round(sum(xs) / len(xs)), round(sum(ys) / len(ys))


def assert_on_save(action: Any) -> None:
    assert isinstance(action, Click) and isinstance(action.target, Point), action
    x, y, w, h = SAVE_BOX
    assert x <= action.target.x <= x + w and y <= action.target.y <= y + h, action


# --- browser style --------------------------------------------------------------------------------------

@pytest.mark.parametrize("alias", ["gpt-5.5", "openai:gpt-4.1", "claude-sonnet-5", "gemini-2.5-pro"])
def test_browser_style_by_element_id(alias: str, server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("fill", {"element_id": _id(r, "Last Name"), "text": "Lopez"}),
                                   FakeCall("click", {"element_id": _id(r, "Save")})]),
        FakeReply(calls=[FakeCall("done", {})]),
    ])
    style = {"style": "browser"} if alias.startswith("claude") else {}
    a = agent(alias, server, **style)
    start(a)
    first = a.step(observation(0))
    assert first.actions == [Fill("e1", "Lopez"), Click("e2")]
    second = a.step(observation(1))
    assert second.actions == [Done()]
    assert not server.violations
    req = server.requests[0]
    assert "[e2] button \"Save\"" in req.text and "Create a lead named Lopez" in req.text
    assert req.image_size() == (1280, 720)  # scaled before it was sent
    assert first.usage.tokens_in > 0 and first.usage.requests == 1
    assert first.extra["model"]["image"]["width"] == 1280
    assert a.describe()["prompt"]["sha256"]


def test_chat_completions_any_model(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([lambda r: FakeReply(calls=[FakeCall("click", {"element_id": _id(r, "Save")})]),
                                    FakeReply(calls=[FakeCall("answer", {"text": "42"})])])
    a = agent("openai-compatible:my-vlm", server)
    start(a, task(question=True))
    assert a.step(observation(0)).actions == [Click("e2")]
    assert a.step(observation(1)).actions == [Answer("42")]
    assert server.requests[0].protocol == "chat"
    assert not server.violations


def _id(request: FakeRequest, name: str) -> str:
    return next(e.id for e in request.elements().values() if e.name == name)


# --- computer style: pixels, round trip -------------------------------------------------------------------

def test_openai_computer_use_preview_round_trip(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("computer", {"type": "click", "button": "left",
                                                         "x": center_in_image(r)[0], "y": center_in_image(r)[1]})]),
        FakeReply(calls=[FakeCall("computer", {"type": "keypress", "keys": ["CTRL", "A"]})]),
        FakeReply(calls=[FakeCall("computer", {"type": "scroll", "x": 10, "y": 10, "scroll_x": 0, "scroll_y": 300})]),
        FakeReply(text="The lead is saved."),
    ])
    a = agent("computer-use-preview", server)
    start(a)
    assert_on_save(a.step(observation(0)).actions[0])
    assert a.step(observation(1)).actions == [Hotkey(("CTRL", "a"))]
    scroll = a.step(observation(2)).actions[0]
    assert isinstance(scroll, Scroll) and scroll.dy == pytest.approx(300 * 1920 / 1024)
    assert a.step(observation(3)).actions == [Done()]
    tools = server.requests[0].body["tools"]
    assert tools[0] == {"type": "computer_use_preview", "display_width": 1024, "display_height": 576,
                        "environment": "browser"}
    assert {t.get("name") for t in tools} >= {"goto", "done", "answer", "fail", "ask"}
    assert not server.violations


def test_openai_ga_computer_batched(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("computer", {"actions": [
            {"type": "click", "button": "left", "x": center_in_image(r)[0], "y": center_in_image(r)[1]},
            {"type": "type", "text": "Lopez"}]})]),
        FakeReply(calls=[FakeCall("done", {})]),
    ])
    a = agent("openai:gpt-5.4", server, style="computer")
    start(a)
    actions = a.step(observation(0)).actions
    assert_on_save(actions[0])
    assert actions[1] == Type("Lopez")
    assert a.step(observation(1)).actions == [Done()]
    assert {"type": "computer"} in server.requests[0].body["tools"]
    assert not server.violations


@pytest.mark.parametrize("alias,options,tool,beta", [
    ("anthropic:claude-sonnet-4-20250514", {}, "computer_20250124", "computer-use-2025-01-24"),
    ("claude-opus-4-6", {"computer_tool": "computer_20251124"}, "computer_20251124", "computer-use-2025-11-24")])
def test_claude_computer_use_round_trip(alias: str, options: dict, tool: str, beta: str,
                                        server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("computer", {"action": "left_click",
                                                         "coordinate": list(center_in_image(r))})]),
        FakeReply(calls=[FakeCall("computer", {"action": "key", "text": "ctrl+s"})]),
        FakeReply(text="Done."),
    ])
    a = agent(alias, server, options=options)
    start(a)
    assert_on_save(a.step(observation(0)).actions[0])
    # the click failed: the error goes back with the screenshot (and without is_error, which takes text only)
    assert a.step(observation(1, last_error="click((1560, 920)) failed: covered")).actions == [Hotkey(("ctrl", "s"))]
    assert a.step(observation(2)).actions == [Done()]
    result = server.requests[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "covered" in result["content"][0]["text"]
    req = server.requests[0]
    assert req.body["tools"][0]["type"] == tool
    assert (req.body["tools"][0]["display_width_px"], req.body["tools"][0]["display_height_px"]) == (1280, 720)
    assert beta in req.headers.get("anthropic-beta", "")
    assert not server.violations


# --- faults --------------------------------------------------------------------------------------------

def test_429_with_retry_after_then_success(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("done", {})])])
    server.fail_next(429, retry_after=1.5)
    a = agent("gpt-5.5", server)
    waits: list[float] = []
    a.adapter.client_settings.sleep = waits.append
    start(a)
    turn = a.step(observation(0))
    assert turn.actions == [Done()]
    assert waits == [1.5]  # the server's Retry-After, not our own backoff
    assert turn.usage.requests == 2 and turn.extra["model"]["attempts"] == 2


@pytest.mark.parametrize("status", [500, 529])
def test_server_errors_until_the_budget_runs_out(status: int, server: FakeModelServer) -> None:
    server.fail_next(status, times=100)
    a = agent("claude-sonnet-5" if status == 529 else "gpt-5.5", server)
    start(a)
    with pytest.raises(ModelUnavailable) as info:
        a.step(observation(0))
    assert info.value.error_kind == "agent"
    assert "gave up after 4 attempt(s)" in str(info.value) and str(status) in str(info.value)


def test_malformed_arguments_then_recovery(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        FakeReply(calls=[FakeCall("click", '{"element_id": "e2"')]),  # truncated JSON
        lambda r: FakeReply(calls=[FakeCall("click", {"element_id": "e99"})]),  # no such element
        FakeReply(calls=[FakeCall("click", {"element_id": "e2"})]),
    ])
    a = agent("gpt-5.5", server)
    start(a)
    turn = a.step(observation(0))
    assert turn.actions == [Click("e2")]
    assert len(turn.extra["model"]["format_errors"]) == 2
    outputs = [i for i in server.requests[1].body["input"] if i.get("type") == "function_call_output"]
    assert "not valid JSON" in outputs[-1]["output"]
    outputs = [i for i in server.requests[2].body["input"] if i.get("type") == "function_call_output"]
    assert "'e99' is not in the current element list" in outputs[-1]["output"]
    assert not server.violations


def test_output_that_stays_unusable_ends_with_fail(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("teleport", {})])] * 3)
    a = agent("gpt-5.5", server)
    start(a)
    turn = a.step(observation(0))
    assert len(turn.actions) == 1 and isinstance(turn.actions[0], Fail)
    assert "3 times in a row" in turn.actions[0].reason and "teleport" in turn.actions[0].reason


@pytest.mark.parametrize("alias", ["gpt-5.5", "claude-sonnet-5", "openai-compatible:my-vlm"])
def test_history_keeps_the_newest_screenshots(alias: str, server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("wait", {"seconds": 0})])] * 5)
    # --cua-history 1: one past step besides the current one
    a = agent(alias, server, history=1, **({"style": "browser"} if alias.startswith("claude") else {}))
    start(a)
    for step in range(5):
        a.step(observation(step))
    assert len(server.requests[-1].images) == 2
    assert "an earlier screenshot, omitted" in server.requests[-1].text
    assert server.requests[-1].text.count('[e2] button "Save"') == 2  # old element lists leave the prompt too
    assert server.requests[-1].text.count("the element list of an earlier step, omitted") == 3


def test_usage_is_priced(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("done", {})])])
    a = agent("gpt-5.5", server)
    start(a)
    turn = a.step(observation(0))
    from pytest_cua.agents.models.pricing import PriceTable

    assert turn.usage.cost_usd == pytest.approx(PriceTable.load().cost(turn.usage, "gpt-5.5"))
    assert turn.usage.cost_usd > 0


def test_no_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    registry = AgentRegistry()
    spec = registry.resolve("claude-sonnet-5", {"model_settings": ModelSettings()})
    with pytest.raises(Exception, match="ANTHROPIC_API_KEY"):
        registry.validate(spec)


def test_the_api_key_is_in_no_trajectory_text(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("done", {})])])
    a = agent("gpt-5.5", server)
    start(a)
    turn = a.step(observation(0))
    assert KEY not in json.dumps(turn.extra) + (turn.raw or "") + turn.reasoning


@pytest.mark.parametrize("option,message", [("retries=0", "retries=0: must be at least 1"),
                                            ("image_size=big", "image_size=big: expected WIDTHxHEIGHT"),
                                            ("temprature=0.5", "temprature: unknown setting")])
def test_agent_options_are_checked_before_anything_runs(option: str, message: str) -> None:
    key, _, value = option.partition("=")
    registry = AgentRegistry()
    spec = registry.resolve("gpt-5.5", {"model_settings": ModelSettings(options={key: value})})
    with pytest.raises(Exception, match=message):
        registry.validate(spec)


def test_a_cost_cap_needs_a_priced_model(server: FakeModelServer) -> None:
    registry = AgentRegistry()
    spec = registry.resolve("openai:gpt-4o-mini", {"model_settings": ModelSettings(max_cost=5.0)})
    with pytest.raises(Exception, match="no price is known for gpt-4o-mini"):
        registry.validate(spec)
