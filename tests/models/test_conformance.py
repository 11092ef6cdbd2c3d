"""Conformance with the vendors' own schemas (pinned in ``vendor_schemas/``, each file saying where it came
from): every request body the adapters send, in every style and the less usual turns, validates against
OpenAI's OpenAPI schemas (``CreateResponse``, ``CreateChatCompletionRequest``) or Anthropic's SDK parameter
types (``MessageCreateParams``), with no field either does not define; and every reply the fake server gives
validates against ``Response`` / ``CreateChatCompletionResponse`` / ``Message``, so the replies the adapters
are tested on have the vendors' shapes: refusal parts, ``pause_turn``, ``refusal``, ``max_tokens`` mid tool
use, ``pending_safety_checks``, reasoning items with encrypted content, batched GA computer actions."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest
from jsonschema.exceptions import best_match

from pytest_cua.testing.fake_models import FakeCall, FakeModelServer, FakeReply, ScriptedPolicy
from tests.models.test_model_agents import agent, center_in_image, observation, start

pytestmark = pytest.mark.usefixtures("keys")

HERE = Path(__file__).parent / "vendor_schemas"
REQUEST_ROOT = {"responses": "CreateResponse", "chat": "CreateChatCompletionRequest"}
REPLY_ROOT = {"responses": "Response", "chat": "CreateChatCompletionResponse"}


@lru_cache(maxsize=None)
def pinned(vendor: str) -> dict[str, Any]:
    """A pinned schema file; OpenAPI's ``oneOf`` read as ``anyOf``: its alternatives overlap where a
    discriminator picks one (an input message with no ``type`` is both an easy and an item message)."""
    text = (HERE / f"{vendor}.json").read_text()
    return json.loads(text.replace('"oneOf":', '"anyOf":') if vendor == "openai" else text)


def describe(error: jsonschema.ValidationError) -> str:
    """Where and why, from the deepest alternative that failed (an ``anyOf`` of items names its best match)."""
    while error.context:  # the alternative that got furthest into the value, else jsonschema's best match
        deepest = max(len(e.absolute_path) for e in error.context)
        error = best_match([e for e in error.context if len(e.absolute_path) == deepest])
    return f"{'/'.join(map(str, error.absolute_path)) or '(body)'}: {error.message[:300]}"


def openai_errors(root: str, body: dict) -> list[str]:
    doc = {"$ref": f"#/components/schemas/{root}", "components": {"schemas": pinned("openai")["schemas"]}}
    errors = [describe(e) for e in jsonschema.Draft202012Validator(doc).iter_errors(body)]
    known = openai_properties(root)
    return errors + [f"{key}: not a field of {root}" for key in body if key not in known]


def openai_properties(root: str) -> set[str]:
    """The field names of a (composed) OpenAI schema: its properties and those of its ``allOf`` parts."""
    schemas = pinned("openai")["schemas"]
    out: set[str] = set()
    stack = [schemas[root]]
    while stack:
        node = stack.pop()
        out |= set(node.get("properties") or {})
        for part in node.get("allOf") or []:
            stack.append(schemas[part["$ref"].rsplit("/", 1)[-1]] if "$ref" in part else part)
    return out


def anthropic_errors(root: str, body: dict) -> list[str]:
    return [describe(e) for e in jsonschema.Draft202012Validator(pinned("anthropic")[root]).iter_errors(body)]


def check_traffic(server: FakeModelServer) -> None:
    """Every request and every reply the server saw validates against the vendor's schema."""
    problems = []
    for i, request in enumerate(server.requests):
        body = request.body
        if request.protocol == "messages":  # a beta header: the beta parameters (the computer_2025* tools)
            beta = "anthropic-beta" in request.headers
            errors = anthropic_errors("BetaMessageCreateParams" if beta else "MessageCreateParams", body)
        else:
            errors = openai_errors(REQUEST_ROOT[request.protocol], body)
        problems += [f"request {i} ({request.protocol} {request.model}): {e}" for e in errors]
    for i, (protocol, body) in enumerate(server.responses):
        errors = anthropic_errors("Message", body) if protocol == "messages" else openai_errors(
            REPLY_ROOT[protocol], body)
        problems += [f"reply {i} ({protocol}): {e}" for e in errors]
    assert server.requests and server.responses
    assert not problems, "\n".join(problems[:20])
    assert not server.violations, server.violations


def click_save(vendor: str) -> Callable[[Any], FakeReply]:
    def reply(request: Any) -> FakeReply:
        x, y = center_in_image(request)
        action = {"action": "left_click", "coordinate": [x, y]} if vendor == "anthropic" else \
            {"type": "click", "button": "left", "x": x, "y": y}
        return FakeReply(calls=[FakeCall("computer", action)], reasoning="The Save button is bottom right.")
    return reply


CHECK = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "Instructions on the page."}

SCENARIOS: dict[str, tuple[str, dict[str, Any], list[Any], int]] = {
    # name: (alias, settings, replies, steps)
    "Responses browser style, reasoning with encrypted content": (
        "gpt-5.5", {"options": {"reasoning_effort": "xhigh"}},
        [FakeReply(calls=[FakeCall("fill", {"element_id": "e1", "text": "Lopez"})], reasoning="Fill it in.",
                   encrypted_reasoning="gAAAAB-fake-encrypted-1"),
         FakeReply(calls=[FakeCall("click", {"element_id": "e2"})], encrypted_reasoning="gAAAAB-fake-encrypted-2"),
         FakeReply(calls=[FakeCall("done", {})])], 3),
    "Responses GA computer tool, batched actions": (
        "gpt-5.4", {"style": "computer"},
        [lambda r: FakeReply(calls=[FakeCall("computer", {"actions": [
            {"type": "click", "button": "left", "x": center_in_image(r)[0], "y": center_in_image(r)[1]},
            {"type": "type", "text": "Lopez"}, {"type": "keypress", "keys": ["ENTER"]}]})]),
         FakeReply(calls=[FakeCall("done", {})])], 2),
    "computer-use-preview, a safety check acknowledged": (
        "computer-use-preview", {"safety_checks": "acknowledge"},
        [lambda r: FakeReply(calls=[FakeCall("computer", {"type": "click", "button": "left", "x": 5, "y": 5})],
                             safety_checks=[CHECK]),
         FakeReply(text="Saved.")], 2),
    "Responses refusal part": ("gpt-5.5", {}, [FakeReply(refusal="I can't help with that.")], 1),
    "Responses cut off at max_output_tokens mid call": (
        "gpt-5.5", {}, [FakeReply(calls=[FakeCall("click", {"element_id": "e2"})], stop="max_tokens"),
                        FakeReply(calls=[FakeCall("done", {})])], 1),
    "chat completions (any model), refusal and length": (
        "openai-compatible:my-vlm", {},
        [FakeReply(calls=[FakeCall("click", {"element_id": "e2"})], stop="max_tokens"),
         FakeReply(calls=[FakeCall("click", {"element_id": "e2"})]),
         FakeReply(refusal="No.")], 2),
    "chat completions, a reasoning model": (
        "openai-compatible:gpt-5.5", {"temperature": 0.3},
        [FakeReply(calls=[FakeCall("done", {})])], 1),
    "Claude computer toolset, adaptive thinking": (
        "claude-sonnet-5", {"options": {"thinking": "adaptive"}},
        [click_save("anthropic"), FakeReply(calls=[FakeCall("computer", {"action": "key", "text": "ctrl+s"})]),
         FakeReply(text="Done.")], 3),
    "Claude computer_20250124 beta, thinking with a budget": (
        "anthropic:claude-sonnet-4-20250514", {"options": {"thinking_budget": "2048"}},
        [click_save("anthropic"), FakeReply(text="Done.")], 2),
    "Claude browser style, pause_turn then max_tokens mid tool use then refusal": (
        "claude-opus-4-8", {"style": "browser"},
        [FakeReply(text="Reading the page", stop="pause_turn"),
         FakeReply(calls=[FakeCall("click", {"element_id": "e2"})], stop="max_tokens"),
         FakeReply(calls=[FakeCall("click", {"element_id": "e2"})]),
         FakeReply(text="Stop.", refusal="I won't continue.", refusal_category="cyber")], 2),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_traffic_conforms_to_the_vendor_schemas(name: str, server: FakeModelServer) -> None:
    alias, settings, replies, steps = SCENARIOS[name]
    server.policy = ScriptedPolicy(replies)
    a = agent(alias, server, **settings)
    start(a)
    for step in range(steps):
        a.step(observation(step))
    check_traffic(server)


@pytest.mark.parametrize("vendor,root,body,problem", [
    ("openai", "CreateResponse", {"model": "gpt-5.5", "input": "hi", "temprature": 1}, "temprature: not a field"),
    ("openai", "CreateResponse", {"model": "gpt-5.5", "input": "hi", "truncation": "sometimes"}, "truncation"),
    ("openai", "CreateResponse", {"model": "gpt-5.5", "input": "hi", "reasoning": {"effort": "huge"}},
     "reasoning/effort"),
    ("openai", "CreateChatCompletionRequest", {"model": "m", "messages": [{"role": "robot", "content": "x"}]},
     "messages/0"),
    ("anthropic", "MessageCreateParams", {"model": "claude-sonnet-5", "max_tokens": 10,
                                          "messages": [{"role": "user", "content": "hi"}], "temperatur": 1},
     "temperatur"),
    ("anthropic", "MessageCreateParams", {"model": "claude-sonnet-5", "max_tokens": 10,
                                          "messages": [{"role": "user", "content": "hi"}],
                                          "tools": [{"type": "computer_toolset_20260801", "name": "computer"}]},
     "tools/0"),
    ("anthropic", "MessageCreateParams", {"model": "claude-sonnet-5", "max_tokens": 10,
                                          "messages": [{"role": "user", "content": "hi"}],
                                          "thinking": {"type": "sometimes"}}, "thinking"),
])
def test_the_schemas_refuse_what_the_vendors_refuse(vendor: str, root: str, body: dict, problem: str) -> None:
    """The checks above can fail: a misspelt field, a wrong enum value, a toolset entry with a name."""
    errors = openai_errors(root, body) if vendor == "openai" else anthropic_errors(root, body)
    assert any(problem in e for e in errors), errors


def test_the_pinned_schemas_say_where_they_came_from() -> None:
    openai, anthropic = pinned("openai")["_source"], pinned("anthropic")["_source"]
    assert openai["repository"] == "https://github.com/openai/openai-openapi" and len(openai["commit"]) == 40
    assert anthropic["package"] == "anthropic" and anthropic["version"]


def test_the_anthropic_pin_matches_the_installed_sdk() -> None:
    """When the installed SDK is the one pinned, its schema is the pinned one (re-pin with
    ``python -m tests.models.vendor_schemas.pin`` when the SDK moves)."""
    import subprocess
    import sys

    import anthropic

    pinned_version = pinned("anthropic")["_source"]["version"]
    if anthropic.__version__ != pinned_version:
        pytest.skip(f"anthropic {anthropic.__version__} is installed, the schemas were pinned from {pinned_version}")
    # in a fresh interpreter: the SDK's types, once used by a client, give pydantic a different schema shape
    code = "import json; from tests.models.vendor_schemas.pin import anthropic_schemas; " \
           "print(json.dumps(anthropic_schemas()))"
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[2], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    fresh = json.loads(out)
    for root in ("MessageCreateParams", "BetaMessageCreateParams", "Message"):
        assert fresh[root] == pinned("anthropic")[root], root
