"""The less usual replies, as the vendors shape them (the fake server renders each as its vendor does), and
what the model agent makes of them:

- a refusal (an OpenAI ``refusal`` part or chat ``refusal``, Claude's ``stop_reason: "refusal"``) ends the
  episode refused, with the model's words, never done and never an answer;
- OpenAI's ``pending_safety_checks`` stop the episode under ``--cua-safety-checks stop`` and are acknowledged
  (the fake refuses to go on otherwise) under ``acknowledge``, recorded either way;
- a reply cut off at the token limit is never carried out, not even its complete calls: it goes back to the
  model as an error, and the episode ends with the reason when that keeps happening;
- Claude's ``pause_turn`` is sent back as it came and the model goes on;
- Claude's computer toolset (``computer_toolset_20260801``): one ``tools[]`` entry, member-named tool_use
  blocks, no beta header.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cua.actions import Answer, Click, Done, Fail, Type
from pytest_cua.agents.base import Refuse, SafetyStop
from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.test_model_agents import agent, assert_on_save, center_in_image, observation, start, task

pytestmark = pytest.mark.usefixtures("keys")

WORDS = "I can't help with changing another person's account."


# --- refusals -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("alias,style", [("gpt-5.5", "browser"), ("openai:gpt-5.4", "computer"),
                                         ("openai-compatible:my-vlm", None), ("claude-sonnet-5", "browser"),
                                         ("claude-sonnet-5", "computer")])
def test_a_refusal_ends_the_episode_refused_with_the_models_words(alias: str, style: str | None,
                                                                 server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(refusal=WORDS, refusal_category="general_harms")])
    a = agent(alias, server, **({"style": style} if style else {}))
    start(a, task(question=True))  # a question task: the words must not become its answer
    turn = a.step(observation(0))
    assert len(turn.actions) == 1 and isinstance(turn.actions[0], Refuse), turn.actions
    refusal = turn.actions[0]
    assert refusal.end_state == "refused" and WORDS in refusal.reason
    assert not isinstance(refusal, (Answer, Done))
    assert f"refused: {WORDS}" in turn.reasoning
    if alias.startswith("claude"):
        assert refusal.category == "general_harms"
    assert not server.violations, server.violations


def test_claude_refusal_after_text_keeps_the_words_as_the_reason(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(text="42", refusal=WORDS)])
    a = agent("claude-sonnet-5", server, style="browser")
    start(a, task(question=True))
    (action,) = a.step(observation(0)).actions
    assert isinstance(action, Refuse) and WORDS in action.reason


# --- safety checks --------------------------------------------------------------------------------------

CHECK = {"id": "cu_sc_1", "code": "malicious_instructions",
         "message": "The page may contain instructions that conflict with the user's task."}


def _click_with_check(request: Any) -> FakeReply:
    x, y = center_in_image(request)
    return FakeReply(calls=[FakeCall("computer", {"type": "click", "button": "left", "x": x, "y": y})],
                     safety_checks=[CHECK])


def test_a_safety_check_stops_the_episode_by_default(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([_click_with_check])
    a = agent("computer-use-preview", server)
    start(a)
    turn = a.step(observation(0))
    (action,) = turn.actions
    assert isinstance(action, SafetyStop) and action.end_state == "safety_check"
    assert action.checks == ("malicious_instructions",) and CHECK["message"] in action.reason
    (recorded,) = turn.extra["model"]["safety_checks"]
    assert recorded["code"] == "malicious_instructions" and recorded["decision"] == "stopped"


def test_acknowledge_goes_on_and_sends_the_acknowledgement(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([_click_with_check, FakeReply(calls=[FakeCall("done", {})])])
    a = agent("computer-use-preview", server, safety_checks="acknowledge")
    start(a)
    turn = a.step(observation(0))
    assert_on_save(turn.actions[0])
    (recorded,) = turn.extra["model"]["safety_checks"]
    assert recorded["decision"] == "acknowledged" and recorded["id"] == "cu_sc_1"
    assert a.step(observation(1)).actions == [Done()]
    output = next(i for i in server.requests[1].body["input"] if i.get("type") == "computer_call_output")
    assert output["acknowledged_safety_checks"] == [CHECK]
    assert not server.violations, server.violations  # the fake refuses an unacknowledged check


def test_the_fake_refuses_an_unacknowledged_check(server: FakeModelServer) -> None:
    """The check above can fail: without the acknowledgement the fake server answers 400."""
    import openai

    client = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-test-model-agents-0123456789")
    history = [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
                "action": {"type": "wait"}, "pending_safety_checks": [CHECK]},
               {"type": "computer_call_output", "call_id": "call_1",
                "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,"}}]
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="computer-use-preview", input=[{"role": "user", "content": "go"}, *history],
                                truncation="auto", tools=[{"type": "computer_use_preview", "display_width": 1024,
                                                           "display_height": 768, "environment": "browser"}])
    assert any("must be acknowledged" in v for v in server.violations)


# --- truncated replies ----------------------------------------------------------------------------------

@pytest.mark.parametrize("alias", ["gpt-5.5", "claude-sonnet-5"])
def test_a_truncated_reply_is_never_carried_out(alias: str, server: FakeModelServer) -> None:
    cut = FakeReply(calls=[FakeCall("type", {"element_id": "e1", "text": "Lop"})], stop="max_tokens")
    server.policy = ScriptedPolicy([cut, FakeReply(calls=[FakeCall("click", {"element_id": "e2"})])])
    a = agent(alias, server, **({"style": "browser"} if alias.startswith("claude") else {}))
    start(a)
    turn = a.step(observation(0))
    assert turn.actions == [Click("e2")]  # the cut-off Type was not carried out
    assert "cut off" in turn.extra["model"]["format_errors"][0]
    assert "cut off" in server.requests[1].text  # the model was told
    assert not server.violations, server.violations


def test_replies_that_stay_truncated_end_the_episode_with_the_reason(server: FakeModelServer) -> None:
    cut = FakeReply(calls=[FakeCall("type", {"element_id": "e1", "text": "Lop"})], stop="max_tokens")
    server.policy = ScriptedPolicy([cut] * 3)
    a = agent("gpt-5.5", server)
    start(a)
    (action,) = a.step(observation(0)).actions
    assert isinstance(action, Fail) and not isinstance(action, Refuse)
    assert "cut off" in action.reason and "3 times in a row" in action.reason


def test_a_truncated_computer_reply_is_not_executed(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("computer", {"type": "type", "text": "Lop"})], stop="max_tokens"),
        FakeReply(calls=[FakeCall("done", {})])])
    a = agent("computer-use-preview", server)
    start(a)
    assert a.step(observation(0)).actions == [Done()]
    assert not server.violations, server.violations


# --- Claude's pause_turn ----------------------------------------------------------------------------------

def test_pause_turn_is_sent_back_and_the_model_goes_on(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([FakeReply(text="Looking at the form", stop="pause_turn"),
                                    FakeReply(calls=[FakeCall("click", {"element_id": "e2"})])])
    a = agent("claude-sonnet-5", server, style="browser")
    start(a)
    turn = a.step(observation(0))
    assert turn.actions == [Click("e2")]
    last = server.requests[1].body["messages"][-1]
    assert last["role"] == "assistant" and last["content"][0]["text"] == "Looking at the form"
    assert turn.usage.requests == 2
    assert not server.violations, server.violations


# --- Claude's computer toolset ----------------------------------------------------------------------------

def test_claude_computer_toolset_round_trip(server: FakeModelServer) -> None:
    server.policy = ScriptedPolicy([
        lambda r: FakeReply(calls=[FakeCall("computer", {"action": "left_click",
                                                         "coordinate": list(center_in_image(r))})]),
        FakeReply(calls=[FakeCall("computer", {"action": "type", "text": "Lopez"})]),
        FakeReply(text="Done."),
    ])
    a = agent("claude-sonnet-5", server)
    start(a)
    assert_on_save(a.step(observation(0)).actions[0])
    assert a.step(observation(1)).actions == [Type("Lopez")]
    assert a.step(observation(2)).actions == [Done()]
    first = server.requests[0]
    assert {"type": "computer_toolset_20260801"} in first.body["tools"]
    assert "anthropic-beta" not in first.headers or "computer-use" not in first.headers["anthropic-beta"]
    echoed = server.requests[1].body["messages"][1]["content"]
    member = next(b for b in echoed if b["type"] == "tool_use")
    assert member["name"] == "left_click" and member["toolset_name"] == "computer"
    assert "action" not in member["input"]
    assert not server.violations, server.violations


@pytest.mark.parametrize("args,where", [(["--cua-safety-checks", "maybe"], "--cua-safety-checks"),
                                        (["-o", "cua_safety_checks=maybe"], "ini key cua_safety_checks = 'maybe'")])
def test_a_bad_safety_check_policy_is_a_usage_error(args: list[str], where: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites/scuba", "-p", "no:cacheprovider", "--agent",
                           "gpt-5.5", "--collect-only", "-q", *args], cwd=Path(__file__).parents[2],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OPENAI_API_KEY": "sk-test"})
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"{where}: choose stop or acknowledge, got 'maybe'" in proc.stderr
