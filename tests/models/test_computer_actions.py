"""Every Claude computer action (``computer_20250124``, ``computer_20251124`` and the members of
``computer_toolset_20260801``) and OpenAI's held keys, turned into typed actions as the vendors document them:
modifiers held during clicks, scrolls, moves and drags; ``hold_key`` for its duration; mouse down and up; a
click without ``coordinate`` at the cursor; ``cursor_position`` answered with the position; ``zoom`` answered
with the region; ``key`` with ``repeat``. (Carrying them out: tests/browser/test_held_actions.py and
tests/desktop/test_actions.py.)"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from pytest_cua import actions as A
from pytest_cua.actions import Point
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.test_model_agents import agent, observation, start

pytestmark = pytest.mark.usefixtures("keys")

SCALE = 1.5  # the 1920x1080 screen is sent as 1280x720


def at(x: float, y: float) -> Point:
    """A point of the 1280x720 image, on the 1920x1080 screen."""
    return Point(x * SCALE, y * SCALE)


def claude(*inputs: dict[str, Any], alias: str = "claude-sonnet-5", **settings: Any) -> list[list[A.Action]]:
    """The typed actions of each Claude computer action, one model step each (the last reply ends it)."""
    server = FakeModelServer(api_key="sk-test-model-agents-0123456789")
    with server:
        policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", i)]) for i in inputs] +
                                [FakeReply(text="done")])
        server.policy = policy
        a = agent(alias, server, **settings)
        start(a)
        steps = []
        while policy.remaining:  # until "done" (a reply that went back as an error takes no step)
            steps.append(a.step(observation(len(steps))))
        assert steps[-1].actions == [A.Done()]
        assert not server.violations, server.violations
        claude.requests = server.requests  # type: ignore[attr-defined]
    return [turn.actions for turn in steps[:-1]]


@pytest.mark.parametrize("alias,options", [("claude-sonnet-5", {}),
                                           ("claude-opus-4-6", {"computer_tool": "computer_20251124"}),
                                           ("anthropic:claude-sonnet-4-20250514", {})])
def test_modifiers_are_held_during_pointer_actions(alias: str, options: dict) -> None:
    steps = claude({"action": "left_click", "coordinate": [100, 100], "text": "ctrl"},
                   {"action": "scroll", "coordinate": [200, 200], "scroll_direction": "down", "scroll_amount": 2,
                    "text": "shift"},
                   {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [50, 60],
                    "text": "ctrl+shift"},
                   {"action": "double_click", "coordinate": [30, 30], "text": "Alt"},
                   alias=alias, options=options)
    assert steps[0] == [A.Click(at(100, 100), modifiers=("ctrl",))]
    (scroll,) = steps[1]
    assert isinstance(scroll, A.Scroll) and scroll.modifiers == ("shift",) and scroll.target == at(200, 200)
    assert steps[2] == [A.Drag(at(10, 10), at(50, 60), modifiers=("ctrl", "shift"))]
    assert steps[3] == [A.DoubleClick(at(30, 30), modifiers=("alt",))]


def test_a_click_without_coordinate_is_at_the_cursor() -> None:
    steps = claude({"action": "mouse_move", "coordinate": [40, 50]},
                   {"action": "left_click"},
                   {"action": "right_click", "text": "shift"},
                   {"action": "triple_click"})
    assert steps == [[A.Move(at(40, 50))], [A.Click(at(40, 50))], [A.RightClick(at(40, 50), modifiers=("shift",))],
                     [A.TripleClick(at(40, 50))]]


def test_a_click_without_coordinate_before_any_pointer_action_goes_back_as_an_error() -> None:
    steps = claude({"action": "left_click"}, {"action": "left_click", "coordinate": [1, 1]})
    # the first reply was answered with the error (format_retries) and the next one carried out
    assert steps[0] == [A.Click(at(1, 1))]
    sent = claude.requests[1].text  # type: ignore[attr-defined]
    assert "no 'coordinate' and the cursor position is not known yet" in sent


def test_mouse_down_move_up_press_and_release_the_button() -> None:
    steps = claude({"action": "mouse_move", "coordinate": [10, 20]},
                   {"action": "left_mouse_down"},
                   {"action": "mouse_move", "coordinate": [300, 200]},
                   {"action": "left_mouse_up"})
    assert steps == [[A.Move(at(10, 20))], [A.MouseDown(at(10, 20))], [A.Move(at(300, 200))],
                     [A.MouseUp(at(300, 200))]]


def test_hold_key_holds_for_its_duration_and_key_repeats() -> None:
    steps = claude({"action": "hold_key", "text": "shift", "duration": 2},
                   {"action": "key", "text": "Down", "repeat": 3})
    assert steps == [[A.HoldKey(("shift",), 2)], [A.Press("Down")] * 3]


@pytest.mark.parametrize("bad,message", [
    ({"action": "hold_key", "text": "shift", "duration": 600}, "at most 30 seconds"),
    ({"action": "left_click", "coordinate": [5, 5], "text": "hyper"}, "'hyper' is not a modifier key"),
    ({"action": "key", "text": "a", "repeat": 0}, "'repeat' must be a whole number from 1 to 100"),
])
def test_bad_input_goes_back_to_the_model_and_nothing_is_done(bad: dict, message: str) -> None:
    steps = claude(bad, {"action": "screenshot"})
    assert steps[0] == [A.Wait(0)]  # the retry (the next reply, a screenshot) in the same step
    assert message in claude.requests[1].text  # type: ignore[attr-defined]


def test_cursor_position_is_answered_with_the_position() -> None:
    claude({"action": "mouse_move", "coordinate": [40, 50]}, {"action": "cursor_position"})
    result = claude.requests[2].body["messages"][-1]["content"][0]  # type: ignore[attr-defined]
    assert result["type"] == "tool_result" and result["content"][0]["text"] == "X=40,Y=50"


def test_zoom_is_answered_with_the_region_scaled_up() -> None:
    claude({"action": "zoom", "region": [1000, 580, 1100, 620]})
    result = claude.requests[1].body["messages"][-1]["content"][0]  # type: ignore[attr-defined]
    image = next(p for p in result["content"] if p["type"] == "image")
    import base64

    zoomed = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"]))).convert("RGB")
    assert zoomed.width > 100 * SCALE and abs(zoomed.width / zoomed.height - 100 / 40) < 0.05
    # the region holds the Save button (1500-1620 x 900-940 on the screen): blue in the zoomed image
    assert zoomed.getpixel((zoomed.width // 2, zoomed.height // 2))[2] > 180


def openai_steps(*actions: dict[str, Any]) -> list[list[A.Action]]:
    with FakeModelServer(api_key="sk-test-model-agents-0123456789") as server:
        server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", {"actions": list(actions)})]),
                                        FakeReply(text="done")])
        a = agent("openai:gpt-5.4", server, style="computer")
        start(a)
        turn = a.step(observation(0))
        assert not server.violations, server.violations
    return [turn.actions]


def test_openai_keys_are_held_during_clicks_scrolls_moves_and_drags() -> None:
    ratio = 1920 / 1024
    (actions,) = openai_steps({"type": "click", "button": "left", "x": 100, "y": 100, "keys": ["CTRL"]},
                              {"type": "scroll", "x": 10, "y": 10, "scroll_x": 0, "scroll_y": 100, "keys": ["SHIFT"]},
                              {"type": "move", "x": 20, "y": 20, "keys": ["alt"]},
                              {"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 9, "y": 9}], "keys": ["ctrl"]},
                              {"type": "double_click", "x": 5, "y": 5, "keys": ["meta"]})
    assert actions[0] == A.Click(Point(100 * ratio, 100 * ratio), modifiers=("ctrl",))
    assert actions[1].modifiers == ("shift",) and actions[2].modifiers == ("alt",)
    assert actions[3].modifiers == ("ctrl",)
    assert actions[4] == A.DoubleClick(Point(round(5 * ratio, 1), round(5 * ratio, 1)), modifiers=("meta",))
