"""``--cua-history N``: the observations of the N past steps stay in the prompt besides the current one (0: the
current one only). Against the fake vendor servers, which check every request against the vendor's wire
format: each adapter and style sends N + 1 screenshots and element lists after enough steps, the older ones
become notes (Responses' computer outputs a placeholder image, which the protocol requires), and a step with
two images (``som+screenshot``) keeps both or neither.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from pytest_cua.agents.models.adapters.base import OMITTED_IMAGE, OMITTED_OBSERVATION
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest, ScriptedPolicy
from tests.models.test_model_agents import agent, observation, start

pytestmark = pytest.mark.usefixtures("keys")
STEPS = 7
HISTORIES = (0, 1, 3, 5)

# alias, settings, the reply that makes one more step, whether the style sends an element list
CASES: dict[str, tuple[str, dict[str, Any], FakeReply, bool]] = {
    "responses-browser": ("gpt-5.5", {}, FakeReply(calls=[FakeCall("wait", {"seconds": 0})]), True),
    "messages-browser": ("claude-sonnet-5", {"style": "browser"}, FakeReply(calls=[FakeCall("wait", {"seconds": 0})]),
                         True),
    "chat-browser": ("openai-compatible:my-vlm", {}, FakeReply(calls=[FakeCall("wait", {"seconds": 0})]), True),
    "responses-computer": ("computer-use-preview", {}, FakeReply(calls=[FakeCall("computer", {"type": "wait"})]),
                           False),
    "messages-computer": ("anthropic:claude-sonnet-4-20250514", {},
                          FakeReply(calls=[FakeCall("computer", {"action": "mouse_move", "coordinate": [10, 10]})]), False),
    "chat-vlm": ("ui-tars-1.5-7b", {}, FakeReply(text="Thought: wait.\nAction: wait()"), False),
}


def real_images(request: FakeRequest) -> list[bytes]:
    """The request's screenshots, without the 16x9 placeholders that stand in for old computer outputs."""
    out = []
    for data in request.images:
        with Image.open(io.BytesIO(data)) as image:
            if image.size != (16, 9):
                out.append(data)
    return out


def run(case: str, history: int, server: FakeModelServer, steps: int = STEPS, **settings: Any) -> FakeRequest:
    alias, extra, reply, _ = CASES[case]
    server.policy = ScriptedPolicy([reply] * steps)
    a = agent(alias, server, history=history, **extra, **settings)
    start(a)
    for step in range(steps):
        a.step(observation(step))
    assert not server.violations, server.violations  # every request kept the vendor's format
    assert a.describe()["history"] == history
    return server.requests[-1]


@pytest.mark.parametrize("history", HISTORIES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_history_keeps_the_current_and_n_past_observations(case: str, history: int, server: FakeModelServer) -> None:
    last = run(case, history, server)
    kept = history + 1
    assert len(real_images(last)) == kept
    omitted = STEPS - kept
    placeholders = len(last.images) - len(real_images(last))
    # old computer outputs of the Responses API: a placeholder image (an image is required there); else a note
    assert placeholders == (omitted - 1 if case == "responses-computer" else 0)
    assert last.text.count(OMITTED_IMAGE) == omitted - placeholders
    if CASES[case][3]:
        assert last.text.count('[e2] button "Save"') == kept
        assert last.text.count(OMITTED_OBSERVATION) == omitted


@pytest.mark.parametrize("history", HISTORIES)
@pytest.mark.parametrize("case", ["responses-browser", "messages-browser", "chat-browser"])
def test_two_images_of_a_step_leave_together(case: str, history: int, server: FakeModelServer) -> None:
    last = run(case, history, server, observe=frozenset({"som", "screenshot"}))
    assert len(real_images(last)) == 2 * (history + 1)
    assert last.text.count(OMITTED_IMAGE) == 2 * (STEPS - history - 1)
    assert last.text.count("then the screen without them") == STEPS  # the step text stays


def test_fewer_steps_than_the_history_keeps_them_all(server: FakeModelServer) -> None:
    last = run("messages-browser", 5, server, steps=3)
    assert len(real_images(last)) == 3 and OMITTED_IMAGE not in last.text


def test_history_0_on_the_first_step_sends_the_screenshot(server: FakeModelServer) -> None:
    last = run("responses-computer", 0, server, steps=1)
    assert len(real_images(last)) == 1
