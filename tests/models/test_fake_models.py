"""The fake vendor servers, driven through the official ``openai`` and ``anthropic`` SDKs over loopback."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable

import pytest
from PIL import Image

from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, FakeRequest, ScriptedPolicy

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

CLICK_TOOL = {"type": "function", "name": "click", "description": "Click an element",
              "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
CHAT_CLICK_TOOL = {"type": "function", "function": {k: v for k, v in CLICK_TOOL.items() if k != "type"}}
CLAUDE_CLICK_TOOL = {"name": "click", "description": "Click an element",
                     "input_schema": CLICK_TOOL["parameters"]}
PREVIEW_TOOL = {"type": "computer_use_preview", "display_width": 64, "display_height": 48, "environment": "browser"}
CLAUDE_COMPUTER = {"type": "computer_20250124", "name": "computer", "display_width_px": 64, "display_height_px": 48}
BETA = "computer-use-2025-01-24"
CLAUDE = "claude-sonnet-4-20250514"


def png_b64(width: int = 64, height: int = 48, *, compress_level: int = 9) -> str:
    """A white PNG, base64-encoded."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, "PNG", compress_level=compress_level)
    return base64.b64encode(buffer.getvalue()).decode()


def data_url(width: int = 64, height: int = 48) -> str:
    """A white PNG as a data URL."""
    return f"data:image/png;base64,{png_b64(width, height)}"


def claude_image(b64: str | None = None, media_type: str = "image/png") -> dict:
    """An Anthropic base64 image block."""
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64 or png_b64()}}


@pytest.fixture
def server():
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
def oai(server: FakeModelServer):
    return openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=0)


@pytest.fixture
def claude(server: FakeModelServer):
    return anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test-key", max_retries=0)


def post(server: FakeModelServer, path: str, payload: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    """A raw POST (for requests the SDKs would not send)."""
    request = urllib.request.Request(server.url + path, data=payload, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# ------------------------------------------------------------------------------------------ round trips


def test_responses_function_tool_round_trip(server: FakeModelServer, oai):
    server.policy = ScriptedPolicy([
        FakeReply(reasoning="The Save button is e12.", calls=[FakeCall("click", {"id": "e12"})]),
        FakeReply(text="Saved."),
    ])
    first_input = [{"role": "user", "content": [
        {"type": "input_text", "text": 'Save the record.\n[e12] button "Save"'},
        {"type": "input_image", "image_url": data_url()}]}]
    resp = oai.responses.create(model="gpt-5", instructions="You operate a browser.", input=first_input,
                                tools=[CLICK_TOOL], reasoning={"summary": "concise"})
    assert [item.type for item in resp.output] == ["reasoning", "function_call"]
    assert resp.output[0].summary[0].text == "The Save button is e12."
    call = resp.output[1]
    assert (call.name, json.loads(call.arguments)) == ("click", {"id": "e12"})
    assert resp.id.startswith("resp_") and resp.status == "completed"
    usage = resp.usage
    assert usage.input_tokens > 1000 and usage.input_tokens_details.cached_tokens == 0
    assert usage.output_tokens_details.reasoning_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens

    history = first_input + [item.model_dump(exclude_none=True) for item in resp.output]
    history.append({"type": "function_call_output", "call_id": call.call_id, "output": "clicked e12"})
    second = oai.responses.create(model="gpt-5", instructions="You operate a browser.", input=history,
                                  tools=[CLICK_TOOL])
    assert second.output_text == "Saved."
    assert 0 < second.usage.input_tokens_details.cached_tokens < second.usage.input_tokens
    first, again = server.requests
    assert (first.protocol, first.turn, first.tool_names) == ("responses", 0, ["click"])
    assert first.elements()["e12"].name == "Save" and first.image_size() == (64, 48)
    assert (again.turn, again.last_text) == (1, "clicked e12")
    assert again.text.startswith("You operate a browser.\nSave the record.")
    assert server.violations == []


def test_chat_function_tool_round_trip(server: FakeModelServer, oai):
    server.policy = ScriptedPolicy([FakeReply(reasoning="hidden", calls=[FakeCall("click", {"id": "e3"})]),
                                    FakeReply(text="Done.")])
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You operate a browser."},
        {"role": "user", "content": [{"type": "text", "text": "Open Leads"},
                                     {"type": "image_url", "image_url": {"url": data_url(), "detail": "high"}}]},
    ]
    completion = oai.chat.completions.create(model="o3", messages=messages, tools=[CHAT_CLICK_TOOL],
                                             max_completion_tokens=512)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    tool_call = choice.message.tool_calls[0]
    assert json.loads(tool_call.function.arguments) == {"id": "e3"}
    assert completion.usage.completion_tokens_details.reasoning_tokens > 0
    assert completion.usage.prompt_tokens_details.cached_tokens == 0

    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": "ok"})
    messages.append({"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url()}}]})
    second = oai.chat.completions.create(model="o3", messages=messages, tools=[CHAT_CLICK_TOOL])
    assert (second.choices[0].finish_reason, second.choices[0].message.content) == ("stop", "Done.")
    usage = second.usage
    assert 0 < usage.prompt_tokens_details.cached_tokens < usage.prompt_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert server.requests[1].last_text == "ok" and len(server.requests[1].images) == 2


def test_messages_custom_tool_round_trip_with_prompt_caching(server: FakeModelServer, claude):
    server.policy = ScriptedPolicy([FakeReply(text="Clicking Save.", calls=[FakeCall("click", {"id": "e12"})]),
                                    FakeReply(text="Saved.")])
    system = [{"type": "text", "text": "You operate a browser.", "cache_control": {"type": "ephemeral"}}]
    messages: list[dict[str, Any]] = [{"role": "user", "content": [
        {"type": "text", "text": "Save it", "cache_control": {"type": "ephemeral"}}]}]
    msg = claude.messages.create(model=CLAUDE, max_tokens=1024, system=system, tools=[CLAUDE_CLICK_TOOL],
                                 messages=messages)
    assert [block.type for block in msg.content] == ["text", "tool_use"]
    assert (msg.content[1].name, msg.content[1].input) == ("click", {"id": "e12"})
    assert msg.stop_reason == "tool_use" and msg.id.startswith("msg_") and msg.content[1].id.startswith("toolu_")
    assert msg.usage.cache_creation_input_tokens > 0 and msg.usage.cache_read_input_tokens == 0

    messages.append({"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in msg.content]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": msg.content[1].id, "content": "clicked",
         "cache_control": {"type": "ephemeral", "ttl": "1h"}}]})
    messages[0]["content"][0].pop("cache_control")
    second = claude.messages.create(model=CLAUDE, max_tokens=1024, system=system, tools=[CLAUDE_CLICK_TOOL],
                                    messages=messages)
    assert second.stop_reason == "end_turn" and second.content[0].text == "Saved."
    usage = second.usage
    assert usage.cache_read_input_tokens == msg.usage.cache_creation_input_tokens
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    assert server.requests[1].turn == 1 and server.requests[1].last_text == "clicked"
    assert server.requests[0].headers["anthropic-version"]


def test_messages_without_cache_control_report_no_cache(server: FakeModelServer, claude):
    messages = [{"role": "user", "content": "hi"}]
    for _ in range(2):
        usage = claude.messages.create(model=CLAUDE, max_tokens=64, messages=messages).usage
        assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)
        assert usage.input_tokens > 0


def test_responses_preview_computer_call_round_trip(server: FakeModelServer, oai):
    click = {"type": "click", "button": "left", "x": 10, "y": 20}
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", click)]),
                                    FakeReply(calls=[FakeCall("computer", {"type": "screenshot"})]),
                                    FakeReply(text="Done")])
    history: list[Any] = [{"role": "user", "content": [{"type": "input_text", "text": "Open Leads"},
                                                       {"type": "input_image", "image_url": data_url()}]}]
    kwargs = {"model": "computer-use-preview", "tools": [PREVIEW_TOOL], "truncation": "auto"}
    for output_type in ("computer_screenshot", "input_image"):  # the sample app sends input_image
        resp = oai.responses.create(input=history, **kwargs)
        call = resp.output[0]
        assert call.type == "computer_call" and call.pending_safety_checks == [] and call.actions is None
        history += [item.model_dump(exclude_none=True) for item in resp.output]
        history.append({"type": "computer_call_output", "call_id": call.call_id, "acknowledged_safety_checks": [],
                        "output": {"type": output_type, "image_url": data_url()}})
    assert server.requests[0].tool_names == ["computer_use_preview"]
    assert resp.output[0].action.type == "screenshot"
    final = oai.responses.create(input=history, **kwargs)
    assert final.output_text == "Done"
    assert server.requests[-1].image_size() == (64, 48) and len(server.requests[-1].images) == 3


def test_responses_ga_computer_tool_batches_actions(server: FakeModelServer, oai):
    actions = [{"type": "click", "button": "left", "x": 5, "y": 6}, {"type": "type", "text": "Lopez"}]
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("computer", {"actions": actions})]),
                                    FakeReply(text="ok")])
    resp = oai.responses.create(model="gpt-5.4", tools=[{"type": "computer"}], input="Type the name")
    call = resp.output[0]
    assert call.type == "computer_call" and call.action is None
    assert [action.type for action in call.actions] == ["click", "type"] and call.actions[1].text == "Lopez"
    resp = oai.responses.create(model="gpt-5.5", tools=[{"type": "computer"}], previous_response_id=resp.id,
                                input=[{"type": "computer_call_output", "call_id": call.call_id,
                                        "output": {"type": "computer_screenshot", "image_url": data_url()}}])
    assert resp.output_text == "ok" and server.violations == []


def test_anthropic_computer_tool_with_image_tool_result(server: FakeModelServer, claude):
    server.policy = ScriptedPolicy([
        FakeReply(reasoning="Save is top left.", calls=[FakeCall("computer", {"action": "left_click",
                                                                              "coordinate": [10, 20]})]),
        FakeReply(text="Saved."),
    ])
    kwargs = {"model": CLAUDE, "max_tokens": 2048, "betas": [BETA], "tools": [CLAUDE_COMPUTER],
              "thinking": {"type": "enabled", "budget_tokens": 1024}}
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Save"},
                                                                   claude_image()]}]
    msg = claude.beta.messages.create(messages=messages, **kwargs)
    thinking, tool_use = msg.content
    assert thinking.type == "thinking" and thinking.signature
    assert (tool_use.name, tool_use.input) == ("computer", {"action": "left_click", "coordinate": [10, 20]})
    assert server.requests[0].headers["anthropic-beta"] == BETA
    assert server.requests[0].tool_names == ["computer_20250124"]
    messages.append({"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in msg.content]})
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id,
                                                  "content": [claude_image()]}]})
    final = claude.beta.messages.create(messages=messages, **kwargs)
    assert final.content[0].text == "Saved." and server.violations == []
    assert len(server.requests[1].images) == 2


def test_previous_response_id_prepends_the_stored_conversation(server: FakeModelServer, oai):
    server.policy = ScriptedPolicy([FakeReply(calls=[FakeCall("click", {"id": "e1"})]), FakeReply(text="done")])
    first = oai.responses.create(model="gpt-5", input="Click e1", tools=[CLICK_TOOL])
    call_id = first.output[0].call_id
    second = oai.responses.create(model="gpt-5", previous_response_id=first.id, tools=[CLICK_TOOL],
                                  input=[{"type": "function_call_output", "call_id": call_id, "output": "ok"}])
    assert second.output_text == "done" and second.previous_response_id == first.id
    request = server.requests[1]
    assert (request.turn, request.text, request.last_text) == (1, "Click e1\nok", "ok")
    assert second.usage.input_tokens_details.cached_tokens > 0
    with pytest.raises(openai.BadRequestError, match="resp_missing"):
        oai.responses.create(model="gpt-5", previous_response_id="resp_missing", input="hi")


def test_a_str_argument_is_sent_verbatim(server: FakeModelServer, oai, claude):
    server.policy = lambda request: FakeReply(calls=[FakeCall("click", '{"id": "e1"')])
    resp = oai.responses.create(model="gpt-5", input="go", tools=[CLICK_TOOL])
    assert resp.output[0].arguments == '{"id": "e1"'
    chat = oai.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "go"}],
                                       tools=[CHAT_CLICK_TOOL])
    assert chat.choices[0].message.tool_calls[0].function.arguments == '{"id": "e1"'
    msg = claude.messages.create(model=CLAUDE, max_tokens=64, tools=[CLAUDE_CLICK_TOOL],
                                 messages=[{"role": "user", "content": "go"}])
    assert msg.content[0].input == '{"id": "e1"'


# ----------------------------------------------------------------------------------------- strict checks


def _responses(oai, input: Any, **kwargs: Any) -> Any:
    kwargs.setdefault("model", "gpt-5")
    return oai.responses.create(input=input, **kwargs)


def _chat(oai, messages: list[dict], **kwargs: Any) -> Any:
    kwargs.setdefault("model", "gpt-4o")
    return oai.chat.completions.create(messages=messages, **kwargs)


def _claude(claude, messages: list[dict], **kwargs: Any) -> Any:
    kwargs.setdefault("model", CLAUDE)
    kwargs.setdefault("max_tokens", 1024)
    return claude.beta.messages.create(messages=messages, **kwargs)


USER = {"role": "user", "content": "next"}
FUNCTION_CALL = {"type": "function_call", "call_id": "call_x", "name": "click", "arguments": "{}"}
COMPUTER_CALL = {"type": "computer_call", "id": "cu_1", "call_id": "call_c", "status": "completed",
                 "pending_safety_checks": [], "action": {"type": "screenshot"}}
CHAT_CALL = {"role": "assistant", "content": None,
             "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "click", "arguments": "{}"}}]}
TOOL_USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "click", "input": {}}]}
SCREENSHOT_USE = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_s", "name": "computer",
                                                    "input": {"action": "screenshot"}}]}


def _screenshot_output(url: str) -> dict:
    return {"type": "computer_call_output", "call_id": "call_c", "output": {"type": "computer_screenshot",
                                                                            "image_url": url}}


def _big_png() -> str:
    """A PNG whose base64 exceeds 5 MB (stored uncompressed)."""
    return png_b64(1300, 1300, compress_level=0)


STRICT_CASES: dict[str, tuple[str, Callable[[Any, Any], Any], str]] = {
    "responses call unanswered before the next user turn": (
        "openai", lambda o, c: _responses(o, [USER, FUNCTION_CALL, USER], tools=[CLICK_TOOL]),
        "No tool output found for function call call_x"),
    "responses call unanswered at the end": (
        "openai", lambda o, c: _responses(o, [USER, FUNCTION_CALL], tools=[CLICK_TOOL]), "call_x"),
    "responses output for an unknown call": (
        "openai", lambda o, c: _responses(o, [USER, {"type": "function_call_output", "call_id": "call_zz",
                                                     "output": "ok"}]),
        "No tool call found for function_call_output with call_id call_zz"),
    "responses computer call answered by a function output": (
        "openai", lambda o, c: _responses(o, [USER, COMPUTER_CALL, {"type": "function_call_output",
                                                                    "call_id": "call_c", "output": "ok"}]),
        "is answered by a function call output"),
    "preview tool without truncation auto": (
        "openai", lambda o, c: _responses(o, "hi", model="computer-use-preview", tools=[PREVIEW_TOOL]),
        "truncation 'auto'"),
    "preview tool with another model": (
        "openai", lambda o, c: _responses(o, "hi", model="gpt-4o", tools=[PREVIEW_TOOL], truncation="auto"),
        "needs model computer-use-preview"),
    "GA computer tool before gpt-5.4": (
        "openai", lambda o, c: _responses(o, "hi", model="gpt-5.2", tools=[{"type": "computer"}]),
        "gpt-5.4 or later"),
    "preview display size differs from the screenshot": (
        "openai", lambda o, c: _responses(o, [USER, COMPUTER_CALL, _screenshot_output(data_url(100, 50))],
                                          model="computer-use-preview", tools=[PREVIEW_TOOL], truncation="auto"),
        "display 64x48 does not match the screenshot 100x50"),
    "computer_call_output that is no image": (
        "openai", lambda o, c: _responses(o, [USER, COMPUTER_CALL, _screenshot_output("data:image/png;base64,AAAA")],
                                          model="gpt-5.4", tools=[{"type": "computer"}]),
        "does not decode"),
    "computer_call_output with a text output": (
        "openai", lambda o, c: _responses(o, [USER, COMPUTER_CALL, {"type": "computer_call_output",
                                                                    "call_id": "call_c", "output": "done"}]),
        "computer_screenshot"),
    "chat tool call unanswered": (
        "openai", lambda o, c: _chat(o, [USER, CHAT_CALL, USER], tools=[CHAT_CLICK_TOOL]),
        "did not have response messages: call_1"),
    "chat tool message with an image": (
        "openai", lambda o, c: _chat(o, [USER, CHAT_CALL, {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "image_url", "image_url": {"url": data_url()}}]}]),
        "content must be text only"),
    "chat image that is no data URL": (
        "openai", lambda o, c: _chat(o, [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}]),
        "base64 data URL"),
    "chat max_tokens with a reasoning model": (
        "openai", lambda o, c: _chat(o, [USER], model="o3", max_tokens=100), "max_completion_tokens"),
    "messages tool_use unanswered": (
        "anthropic", lambda o, c: _claude(c, [USER, TOOL_USE, USER], tools=[CLAUDE_CLICK_TOOL]),
        "without tool_result blocks immediately after: toolu_1"),
    "messages tool_result not first": (
        "anthropic", lambda o, c: _claude(c, [USER, TOOL_USE, {"role": "user", "content": [
            {"type": "text", "text": "here"}, {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}]),
        "tool_result blocks must come first"),
    "messages roles do not alternate": (
        "anthropic", lambda o, c: _claude(c, [USER, USER]), "roles must alternate"),
    "messages start with the assistant": (
        "anthropic", lambda o, c: _claude(c, [{"role": "assistant", "content": "hi"}, USER]),
        "first message must use the 'user' role"),
    "computer tool without its beta": (
        "anthropic", lambda o, c: _claude(c, [USER], tools=[CLAUDE_COMPUTER], betas=["computer-use-2024-10-22"]),
        "needs the anthropic-beta header 'computer-use-2025-01-24' (got computer-use-2024-10-22)"),
    "computer tool too old for the model": (
        "anthropic", lambda o, c: _claude(c, [USER], model="claude-sonnet-4-6", tools=[CLAUDE_COMPUTER],
                                          betas=[BETA]),
        "takes the computer tool computer_toolset_20260801 or computer_20251124, not computer_20250124"),
    "computer tool too new for the model": (
        "anthropic", lambda o, c: _claude(c, [USER], tools=[{**CLAUDE_COMPUTER, "type": "computer_20251124"}],
                                          betas=["computer-use-2025-11-24"]),
        "takes the computer tool computer_20250124, not computer_20251124"),
    "computer display size differs from the screenshot": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(png_b64(32, 32))]}],
                                          tools=[CLAUDE_COMPUTER], betas=[BETA]),
        "display 64x48 does not match the screenshot 32x32"),
    "image over 5 MB": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(_big_png())]}]),
        "image exceeds 5 MB maximum"),
    "image over 8000 px": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(png_b64(8001, 4))]}]),
        "max allowed size: 8000 pixels"),
    "image over 2000 px in a request of more than 20 images": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(png_b64(2001, 4))] * 21}]),
        "for many-image requests: 2000 pixels"),
    "more than 100 images": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(png_b64(4, 4))] * 101}]),
        "Too many images in the request: 101 > 100"),
    "image media type differs from the data": (
        "anthropic", lambda o, c: _claude(c, [{"role": "user", "content": [claude_image(media_type="image/jpeg")]}]),
        "media_type 'image/jpeg' does not match the image (image/png)"),
    "screenshot action answered without an image": (
        "anthropic", lambda o, c: _claude(c, [USER, SCREENSHOT_USE, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_s", "content": "no screen"}]}],
            tools=[CLAUDE_COMPUTER], betas=[BETA]),
        "call toolu_s (computer) asked for a screenshot but no image was sent"),
    "thinking block with a forged signature": (
        "anthropic", lambda o, c: _claude(c, [USER, {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm", "signature": "forged"}, {"type": "text", "text": "hi"}]}, USER]),
        "Invalid `signature` in `thinking` block"),
    "thinking budget under 1024": (
        "anthropic", lambda o, c: _claude(c, [USER], thinking={"type": "enabled", "budget_tokens": 512}),
        "greater than or equal to 1024"),
}


@pytest.mark.parametrize("case", list(STRICT_CASES))
def test_strict_checks_reject_what_the_vendor_rejects(server: FakeModelServer, oai, claude, case: str):
    vendor, send, problem = STRICT_CASES[case]
    sdk = openai if vendor == "openai" else anthropic
    with pytest.raises(sdk.BadRequestError) as raised:
        send(oai, claude)
    assert raised.value.status_code == 400 and problem in str(raised.value)
    body = raised.value.body if vendor == "openai" else raised.value.body["error"]
    assert body["type"] == "invalid_request_error"
    assert any(problem in violation for violation in server.violations)


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize("model, version", [
    ("claude-3-5-sonnet-20241022", "computer_20241022"), ("claude-3-7-sonnet-20250219", "computer_20250124"),
    ("claude-sonnet-4-20250514", "computer_20250124"), ("claude-opus-4-1-20250805", "computer_20250124"),
    ("claude-sonnet-4-5", "computer_20250124"), ("claude-haiku-4-5-20251001", "computer_20250124"),
    ("claude-opus-4-6", "computer_20251124"), ("claude-sonnet-4-6", "computer_20251124"),
])
def test_each_model_takes_its_computer_tool_version(server: FakeModelServer, claude, model: str, version: str):
    beta = {"computer_20241022": "computer-use-2024-10-22", "computer_20250124": BETA,
            "computer_20251124": "computer-use-2025-11-24"}[version]
    msg = _claude(claude, [USER], model=model, tools=[{**CLAUDE_COMPUTER, "type": version}], betas=[beta])
    assert msg.content[0].text == "OK" and server.violations == []


def test_a_zoomed_image_is_not_held_to_the_display_size(server: FakeModelServer, claude):
    zoom = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_z", "name": "computer",
                                              "input": {"action": "zoom", "region": [0, 0, 16, 16]}}]}
    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_z",
                                           "content": [claude_image(png_b64(16, 16))]}]}
    tool = {**CLAUDE_COMPUTER, "type": "computer_20251124", "enable_zoom": True}
    first = {"role": "user", "content": [claude_image()]}
    msg = _claude(claude, [first, zoom, answer], model="claude-opus-4-6", tools=[tool],
                  betas=["computer-use-2025-11-24"])
    assert msg.content[0].text == "OK" and server.requests[0].image_size() == (16, 16)


def test_the_screenshot_may_follow_a_text_only_tool_output(server: FakeModelServer, oai):
    screenshot_call = {**FUNCTION_CALL, "name": "screenshot"}
    with_image = {"role": "user", "content": [{"type": "input_image", "image_url": data_url()}]}
    output = {"type": "function_call_output", "call_id": "call_x", "output": "taken"}
    _responses(oai, [USER, screenshot_call, output, with_image])
    with pytest.raises(openai.BadRequestError, match="asked for a screenshot"):
        _responses(oai, [USER, screenshot_call, output, USER])


def test_wrong_api_key_is_401_in_each_vendor_shape(server: FakeModelServer):
    bad_openai = openai.OpenAI(base_url=server.openai_base_url, api_key="nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as raised:
        bad_openai.responses.create(model="gpt-5", input="hi")
    assert raised.value.status_code == 401 and raised.value.code == "invalid_api_key"
    bad_claude = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="nope", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as raised:
        bad_claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER])
    assert raised.value.body["error"]["type"] == "authentication_error"
    status, body = post(server, "/v1/messages", json.dumps({"model": CLAUDE, "max_tokens": 10, "messages": [USER]})
                        .encode(), {"anthropic-version": "2023-06-01", "x-api-key": "test-key"})
    assert status == 200 and body["type"] == "message"
    assert server.violations == ["auth: Incorrect API key provided.", "auth: invalid x-api-key"]


def test_raw_requests_missing_headers_bad_json_and_unknown_paths(server: FakeModelServer):
    payload = json.dumps({"model": CLAUDE, "max_tokens": 10, "messages": [USER]}).encode()
    status, body = post(server, "/v1/messages", payload, {"x-api-key": "test-key"})
    assert status == 400 and "anthropic-version" in body["error"]["message"]
    status, body = post(server, "/v1/chat/completions", b"{not json", {"authorization": "Bearer test-key"})
    assert status == 400 and "could not parse the JSON body" in body["error"]["message"]
    status, body = post(server, "/v1/embeddings", b"{}", {"authorization": "Bearer test-key"})
    assert status == 404 and body["error"]["message"] == "Invalid URL (POST /v1/embeddings)"
    status, body = post(server, "/v1/complete", b"{}", {"x-api-key": "test-key"})
    assert status == 404 and body["error"]["type"] == "not_found_error"
    assert len(server.requests) == 4 and len(server.violations) == 4


def test_non_strict_server_answers_what_a_strict_one_rejects():
    with FakeModelServer(strict=False, api_key="other") as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=0)
        resp = client.responses.create(model="gpt-4o", input=[USER, FUNCTION_CALL, USER], tools=[PREVIEW_TOOL])
        assert resp.output_text == "OK" and server.violations == []


# ------------------------------------------------------------------------------------------------ faults


def test_429_with_retry_after_then_normal_service(server: FakeModelServer, oai, claude):
    server.fail_next(429, retry_after=1)
    with pytest.raises(openai.RateLimitError) as raised:
        oai.responses.create(model="gpt-5", input="hi")
    headers = raised.value.response.headers
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("1", "1000")
    assert raised.value.code == "rate_limit_exceeded"
    assert oai.responses.create(model="gpt-5", input="hi").output_text == "OK"
    server.fail_next(429, retry_after=0.5)
    with pytest.raises(anthropic.RateLimitError) as raised:
        claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER])
    assert raised.value.body["error"]["type"] == "rate_limit_error"
    assert raised.value.response.headers["retry-after-ms"] == "500"


def test_the_sdk_retries_through_a_fault_honouring_retry_after(server: FakeModelServer):
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=2)
    server.fail_next(429, times=2, retry_after=0.05)
    started = time.monotonic()
    assert client.chat.completions.create(model="gpt-4o", messages=[USER]).choices[0].message.content == "OK"
    assert time.monotonic() - started >= 0.1 and len(server.requests) == 3


def test_500_times_and_custom_body(server: FakeModelServer, oai):
    server.fail_next(500, times=100)
    for _ in range(3):
        with pytest.raises(openai.InternalServerError) as raised:
            oai.chat.completions.create(model="gpt-4o", messages=[USER])
        assert raised.value.body["type"] == "server_error"
    with FakeModelServer() as other:
        other.fail_next(503, body={"error": {"message": "custom", "type": "x"}})
        client = openai.OpenAI(base_url=other.openai_base_url, api_key="test-key", max_retries=0)
        with pytest.raises(openai.InternalServerError, match="custom"):
            client.responses.create(model="gpt-5", input="hi")
        assert client.responses.create(model="gpt-5", input="hi").output_text == "OK"


def test_529_is_anthropic_overloaded(server: FakeModelServer, claude):
    server.fail_next(529)
    with pytest.raises(anthropic.APIStatusError) as raised:
        claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER])
    assert raised.value.status_code == 529 and raised.value.body["error"]["type"] == "overloaded_error"
    assert claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER]).content[0].text == "OK"


def test_a_late_answer_times_the_client_out_without_consuming_the_script(server: FakeModelServer):
    policy = ScriptedPolicy([FakeReply(text="first")])
    server.policy = policy
    server.delay_next(1.0)
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=0, timeout=0.3)
    with pytest.raises(openai.APITimeoutError):
        client.responses.create(model="gpt-5", input="hi")
    time.sleep(0.9)
    assert policy.remaining == 1
    assert client.responses.create(model="gpt-5", input="hi").output_text == "first"


# ------------------------------------------------------------------------------------ policies and server


def test_policy_errors_are_500_and_violations(server: FakeModelServer, oai, claude):
    def broken(request: FakeRequest) -> FakeReply:
        raise ValueError("no element named Save")

    server.policy = broken
    with pytest.raises(openai.InternalServerError, match="ValueError: no element named Save"):
        oai.responses.create(model="gpt-5", input="hi")
    server.policy = ScriptedPolicy([FakeReply(text="only")])
    assert claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER]).content[0].text == "only"
    with pytest.raises(anthropic.InternalServerError, match="ScriptedPolicy ran out of replies"):
        claude.messages.create(model=CLAUDE, max_tokens=10, messages=[USER])
    assert [v.split(":")[0] for v in server.violations] == ["policy error", "policy error"]


def test_scripted_policy_accepts_callables(server: FakeModelServer, oai):
    server.policy = ScriptedPolicy([lambda request: FakeReply(text=f"turn {request.turn}: {request.last_text}")])
    assert oai.responses.create(model="gpt-5", input="hello").output_text == "turn 0: hello"


def test_concurrent_requests_are_all_served_and_recorded(server: FakeModelServer, oai):
    results: list[str] = []

    def ask(index: int) -> None:
        resp = oai.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": f"q{index}"}])
        results.append(resp.id)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(results)) == 8
    assert sorted(request.last_text for request in server.requests) == [f"q{i}" for i in range(8)]


def test_stop_closes_kept_alive_connections():
    server = FakeModelServer().start()
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=0, timeout=2)
    assert client.responses.create(model="gpt-5", input="hi").output_text == "OK"
    server.stop()
    with pytest.raises(openai.APIConnectionError):
        client.responses.create(model="gpt-5", input="hi")
