"""Fake OpenAI and Anthropic model servers on loopback that speak the vendors' wire protocols.

``FakeModelServer`` serves ``POST /v1/responses`` (OpenAI Responses), ``POST /v1/chat/completions`` (OpenAI chat
completions) and ``POST /v1/messages`` (Anthropic Messages) on ``127.0.0.1``, so the official ``openai`` and
``anthropic`` SDKs talk to it through ``base_url``. A *policy* (``FakeRequest -> FakeReply``) plays the model;
the server renders its reply in the vendor's response shape with deterministic fake usage.

With ``strict=True`` the server rejects, as the real API would, requests a real vendor rejects (unanswered tool
calls, wrong computer-tool version or beta header, oversized images, bad API key, ...): each problem is
recorded in ``violations`` and answered 400 (401 for auth) in the vendor's error shape. ``fail_next`` and
``delay_next`` inject 429/5xx answers and late answers.

Usage is derived from the request size: a prompt segment (a tool, the instructions, one message or content
block) costs ``len(JSON) // 4`` tokens plus ``IMAGE_TOKENS`` per image. A request whose prompt starts with an
earlier request's whole prompt (OpenAI) or with a prefix an earlier request marked with ``cache_control``
(Anthropic) reports that prefix as cached.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import itertools
import json
import math
import re
import select
import socket
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, cast
from urllib.parse import urlsplit

from PIL import Image as PILImage

from pytest_cua.agents.models.elements import parse_elements
from pytest_cua.observations import Element

IMAGE_TOKENS = 1000
"""Fake prompt tokens charged per image."""

ANTHROPIC_MAX_IMAGE_BASE64 = 5 * 1024 * 1024
ANTHROPIC_MAX_SIDE = 8000
ANTHROPIC_MANY_IMAGES = 20
ANTHROPIC_MANY_IMAGES_MAX_SIDE = 2000
ANTHROPIC_MAX_IMAGES = 100
ANTHROPIC_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_COMPUTER_BETAS = {
    "computer_20241022": "computer-use-2024-10-22",
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}
OPENAI_COMPUTER_ENVIRONMENTS = ("windows", "mac", "linux", "ubuntu", "browser")


# --------------------------------------------------------------------------------------------- policy types


@dataclass
class FakeRequest:
    """One request as the policy sees it."""

    protocol: str
    model: str
    body: dict
    headers: dict[str, str]
    text: str = ""
    last_text: str = ""
    images: list[bytes] = field(default_factory=list)
    last_image: bytes | None = None
    tool_names: list[str] = field(default_factory=list)
    turn: int = 0

    def image_size(self) -> tuple[int, int] | None:
        """The size of the newest image, or None when the request has none."""
        if self.last_image is None:
            return None
        with PILImage.open(io.BytesIO(self.last_image)) as image:
            return image.size

    def elements(self) -> dict[str, Element]:
        """The element list in the newest user turn (or anywhere in the conversation)."""
        return parse_elements(self.last_text or self.text)


@dataclass
class FakeCall:
    """A tool call: a function tool by name, or ``"computer"`` with the vendor-native action as arguments."""

    name: str
    arguments: dict | str = field(default_factory=dict)


@dataclass
class FakeReply:
    """What the fake model answers: text, a reasoning summary (thinking) and tool calls."""

    text: str = ""
    reasoning: str = ""
    calls: list[FakeCall] = field(default_factory=list)


Policy = Callable[[FakeRequest], FakeReply]


def default_policy(request: FakeRequest) -> FakeReply:
    """Answer every request with text only."""
    return FakeReply(text="OK")


class JudgePolicy:
    """Plays a rubric judge (``pytest_cua.episode.judge``): answers with one JSON verdict per numbered rubric item
    (``1. ...`` lines) of the newest user text. ``verdict``: True (every item passes), False, or a function
    ``(item number, item text) -> bool``; ``raw`` replaces the answer with that text (a malformed judge)."""

    def __init__(self, verdict: bool | Callable[[int, str], bool] = True, *, reason: str = "fake judge",
                 raw: str | None = None):
        self.verdict = verdict
        self.reason = reason
        self.raw = raw
        self.items: list[list[str]] = []  # the rubric items of each request

    def __call__(self, request: FakeRequest) -> FakeReply:
        items = re.findall(r"^(\d+)\. (.+)$", request.last_text or request.text, re.M)
        self.items.append([text for _, text in items])
        if self.raw is not None:
            return FakeReply(text=self.raw)
        out = []
        for number, text in items:
            passed = self.verdict(int(number), text) if callable(self.verdict) else bool(self.verdict)
            out.append({"id": int(number), "pass": passed,
                        "reason": f"{self.reason}: item {number} {'met' if passed else 'not met'}"})
        return FakeReply(text=json.dumps({"items": out}))


class ScriptedPolicy:
    """Answer requests in order from a script of replies (or callables making a reply from the request)."""

    def __init__(self, replies: Iterable[FakeReply | Callable[[FakeRequest], FakeReply]]):
        self._replies = list(replies)
        self._next = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """How many scripted replies are still unused."""
        return len(self._replies) - self._next

    def __call__(self, request: FakeRequest) -> FakeReply:
        with self._lock:
            if self._next >= len(self._replies):
                raise AssertionError(
                    f"ScriptedPolicy ran out of replies: request {self._next + 1} but only "
                    f"{len(self._replies)} scripted"
                )
            reply = self._replies[self._next]
            self._next += 1
        return reply(request) if callable(reply) else reply


# ------------------------------------------------------------------------------- normalised conversation


@dataclass
class _Image:
    """A decoded image of the request."""

    data: bytes
    size: tuple[int, int]
    b64_len: int
    declared_type: str
    actual_type: str
    where: str
    zoom: bool = False


@dataclass
class _Call:
    """A tool call in the history."""

    id: str
    name: str
    kind: str  # "function" | "computer"
    screenshot: bool = False
    action: str = ""


@dataclass
class _Result:
    """A tool call's output in the history."""

    call_id: str
    kind: str  # "function" | "computer" | "" (any)
    texts: list[str] = field(default_factory=list)
    images: list[_Image] = field(default_factory=list)


@dataclass
class _Message:
    """A turn of the history: role system, user, assistant or tool."""

    role: str
    texts: list[str] = field(default_factory=list)
    images: list[_Image] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    results: list[_Result] = field(default_factory=list)


@dataclass
class _Conversation:
    """A request reduced to what the checks, the policy and the usage need."""

    items: list[Any] = field(default_factory=list)
    messages: list[_Message] = field(default_factory=list)
    images: list[_Image] = field(default_factory=list)
    tool_names: list[str] = field(default_factory=list)
    segments: list[Any] = field(default_factory=list)
    breakpoints: list[int] | None = None
    problems: list[str] = field(default_factory=list)

    def message(self, role: str) -> _Message:
        """Start a new message."""
        self.messages.append(_Message(role))
        return self.messages[-1]

    def add_image(self, target: _Message | _Result, image: _Image | None) -> None:
        """Add a decoded image to a message or a tool output (and to the request's images)."""
        if image is not None:
            target.images.append(image)
            self.images.append(image)

    def calls_by_id(self) -> dict[str, _Call]:
        """Every tool call of the history by id."""
        return {call.id: call for m in self.messages for call in m.calls}

    def screenshot(self) -> _Image | None:
        """The newest image that is a screenshot (not the answer to a zoom action)."""
        return next((image for image in reversed(self.images) if not image.zoom), None)


class _Rejected(Exception):
    """A request the server answers with an error: its message joins the problems (violations) behind it."""

    def __init__(self, status: int, *problems: str, param: str | None = None, code: str | None = None):
        super().__init__("; ".join(problems))
        self.status = status
        self.problems = list(problems)
        self.message = "; ".join(problems)
        self.param = param
        self.code = code


# ------------------------------------------------------------------------------------------------- images

_DATA_URL = re.compile(r"data:(?P<type>[\w.+/-]+);base64,(?P<data>.*)", re.S)


def _decode_image(b64: Any, declared_type: str, where: str, problems: list[str]) -> _Image | None:
    """Decode a base64 image, or record why it does not decode."""
    try:
        data = base64.b64decode(b64, validate=True)
        with PILImage.open(io.BytesIO(data)) as image:
            size, actual = image.size, PILImage.MIME.get(image.format or "", "")
    except (binascii.Error, TypeError, ValueError, OSError):
        problems.append(f"{where}: the image does not decode (expected a base64 PNG, JPEG, GIF or WebP)")
        return None
    return _Image(data, size, len(b64), declared_type, actual, where)


def _data_url_image(url: Any, where: str, problems: list[str]) -> _Image | None:
    """Decode an image given as a data URL, or record why it cannot be used."""
    match = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
    if match is None:
        problems.append(f"{where}: the image must be a base64 data URL (the fake server fetches nothing)")
        return None
    return _decode_image(match["data"], match["type"], where, problems)


# ------------------------------------------------------------------------------------------ prompt tokens


def _strip_images(value: Any) -> tuple[Any, int]:
    """``value`` with image payloads replaced by a placeholder, and how many images it held."""
    if isinstance(value, str):
        return ("<image>", 1) if _DATA_URL.match(value) else (value, 0)
    if isinstance(value, dict):
        if value.get("type") == "base64" and "data" in value:
            return {**value, "data": "<image>"}, 1
        stripped = {key: _strip_images(item) for key, item in value.items()}
        return {key: item for key, (item, _) in stripped.items()}, sum(n for _, n in stripped.values())
    if isinstance(value, list):
        stripped_items = [_strip_images(item) for item in value]
        return [item for item, _ in stripped_items], sum(n for _, n in stripped_items)
    return value, 0


def _tokens(value: Any) -> int:
    """Fake token count: a quarter of the JSON length, plus ``IMAGE_TOKENS`` per image."""
    stripped, images = _strip_images(value)
    return len(json.dumps(stripped, sort_keys=True, ensure_ascii=False)) // 4 + IMAGE_TOKENS * images


def _canonical(value: Any) -> Any:
    """``value`` without null fields and ``cache_control`` marks (neither changes the cached prompt)."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items() if v is not None and k != "cache_control"}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _cache_control(value: Any) -> dict | None:
    """The Anthropic ``cache_control`` breakpoint a segment carries, if any."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("cache_control"), dict):
        return value["cache_control"]
    return next((mark for mark in map(_cache_control, value.values()) if mark is not None), None)


@dataclass
class _PromptUsage:
    """Prompt tokens of a request: in all, read from the cache, written to it (and with which TTL)."""

    total: int
    cached: int
    written: int
    ttl: str = "5m"


class _PromptCache:
    """Prefixes of earlier prompts, by a hash chain over their segments."""

    def __init__(self) -> None:
        self._prefixes: set[str] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _chain(seed: str, segments: list[Any]) -> list[str]:
        """The hash of every prefix of ``segments``."""
        chain, digest = [], hashlib.sha256(seed.encode()).hexdigest()
        for segment in segments:
            text = json.dumps(_canonical(segment), sort_keys=True, ensure_ascii=False)
            digest = hashlib.sha256((digest + text).encode()).hexdigest()
            chain.append(digest)
        return chain

    def account(self, seed: str, conv: _Conversation) -> _PromptUsage:
        """Count the request's prompt tokens, the cached prefix, and remember its cacheable prefixes."""
        tokens = [_tokens(_canonical(segment)) for segment in conv.segments]
        chain = self._chain(seed, conv.segments)
        implicit = conv.breakpoints is None
        breakpoints = ([len(chain) - 1] if chain else []) if conv.breakpoints is None else conv.breakpoints
        limit = max(breakpoints, default=-1) + 1
        with self._lock:
            hit = next((k for k in range(limit, 0, -1) if chain[k - 1] in self._prefixes), 0)
            self._prefixes.update(chain[b] for b in breakpoints)
        written = 0 if implicit else sum(tokens[:limit]) - sum(tokens[:hit])
        mark = _cache_control(conv.segments[limit - 1]) if limit and not implicit else None
        return _PromptUsage(sum(tokens), sum(tokens[:hit]), written, (mark or {}).get("ttl", "5m"))


# ----------------------------------------------------------------------------------------------- checks


def _check_calls(conv: _Conversation, protocol: _Protocol) -> None:
    """Every tool call answered (as the protocol orders it), and a screenshot sent where one was asked for."""
    pending: dict[str, _Call] = {}
    awaiting: list[_Call] = []
    for message in conv.messages:
        for result in message.results:
            call = pending.pop(result.call_id, None)
            if call is None:
                conv.problems.append(protocol.unknown_result(result))
                continue
            if result.kind and result.kind != call.kind:
                conv.problems.append(f"{call.kind} call {call.id} is answered by a {result.kind} call output")
            if call.screenshot and not result.images:
                awaiting.append(call)
        if awaiting and message.role != "tool":
            if not message.images:
                conv.problems.extend(_no_screenshot(call) for call in awaiting)
            awaiting.clear()
        if pending and protocol.closes(message):
            conv.problems.extend(protocol.unanswered(call) for call in pending.values())
            pending.clear()
        pending.update((call.id, call) for call in message.calls)
    conv.problems.extend(protocol.unanswered(call) for call in pending.values())
    conv.problems.extend(_no_screenshot(call) for call in awaiting)


def _no_screenshot(call: _Call) -> str:
    """The problem of a screenshot call answered without an image."""
    return f"call {call.id} ({call.name}) asked for a screenshot but no image was sent in answer"


def _check_display(conv: _Conversation, tool: dict, width_key: str, height_key: str) -> None:
    """A computer tool's display size is the size of the newest screenshot."""
    screenshot = conv.screenshot()
    display = (tool.get(width_key), tool.get(height_key))
    if screenshot is not None and screenshot.size != display:
        conv.problems.append(
            f"computer tool display {display[0]}x{display[1]} does not match the screenshot "
            f"{screenshot.size[0]}x{screenshot.size[1]} ({screenshot.where})"
        )


def _gpt_version(model: str) -> tuple[int, int] | None:
    """(major, minor) of a ``gpt-N.M`` model name."""
    match = re.match(r"gpt-(\d+)(?:\.(\d+))?", model)
    return (int(match[1]), int(match[2] or 0)) if match else None


def _claude_version(model: str) -> tuple[str, tuple[int, int]] | None:
    """Family and (major, minor) of a Claude model name (``claude-sonnet-4-5-20250929``, ``claude-3-7-sonnet``)."""
    match = re.match(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?=-|$)", model)
    if match:
        return match[1], (int(match[2]), int(match[3] or 0))
    match = re.match(r"claude-(\d+)(?:-(\d))?-(opus|sonnet|haiku)(?=-|$)", model)
    if match:
        return match[3], (int(match[1]), int(match[2] or 0))
    return None


def _claude_computer_tool(family: str, version: tuple[int, int]) -> str | None:
    """The computer tool version a Claude model takes, or None when it has no computer use."""
    if version >= (4, 6) or (family == "opus" and version >= (4, 5)):
        return "computer_20251124"
    if version >= (4, 0) or (family, version) == ("sonnet", (3, 7)):
        return "computer_20250124"
    if (family, version) == ("sonnet", (3, 5)):
        return "computer_20241022"
    return None


def _text_parts(content: Any, kinds: tuple[str, ...]) -> list[str]:
    """The texts of a content string or list of parts."""
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content or [] if part.get("type") in kinds]


# ------------------------------------------------------------------------------------------------ protocols


class _Protocol:
    """A vendor endpoint: parsing, strict checks, rendering and error shape."""

    name = ""
    vendor = ""

    def __init__(self, server: FakeModelServer):
        self.server = server

    def parse(self, body: dict, headers: dict[str, str]) -> _Conversation:
        """The request's conversation (problems a real API rejects are recorded in it, not raised)."""
        raise NotImplementedError

    def check(self, body: dict, headers: dict[str, str], conv: _Conversation) -> None:
        """Record the problems a real API would reject the request for."""

    def render(self, request: FakeRequest, conv: _Conversation, reply: FakeReply) -> dict:
        """The response body of ``reply``."""
        raise NotImplementedError

    def closes(self, message: _Message) -> bool:
        """Whether ``message`` comes too late for still unanswered tool calls."""
        raise NotImplementedError

    def unanswered(self, call: _Call) -> str:
        """The vendor's complaint about a tool call left unanswered."""
        raise NotImplementedError

    def unknown_result(self, result: _Result) -> str:
        """The vendor's complaint about a tool output that answers no call."""
        raise NotImplementedError


class _OpenAIProtocol(_Protocol):
    """Shared by the OpenAI endpoints."""

    vendor = "openai"


def _responses_segment(item: dict) -> dict:
    """An input item in one form for the prompt cache: ``{"role", "content": "text"}`` as a message item."""
    if item.get("type", "message") != "message" or not isinstance(item.get("content"), str):
        return {**item, "type": item.get("type", "message")}
    kind = "output_text" if item.get("role") == "assistant" else "input_text"
    return {**item, "type": "message", "content": [{"type": kind, "text": item["content"]}]}


def _has_function(body: dict, name: str) -> bool:
    """Whether a Responses request offers a function tool called ``name``."""
    return any(tool.get("type") == "function" and tool.get("name") == name for tool in body.get("tools") or [])


def _args_json(arguments: dict | str) -> str:
    """Tool arguments as the JSON string OpenAI sends (a str is sent verbatim)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


class _ResponsesProtocol(_OpenAIProtocol):
    """``POST /v1/responses``."""

    name = "responses"

    def __init__(self, server: FakeModelServer):
        super().__init__(server)
        self._stored: dict[str, list[Any]] = {}
        self._lock = threading.Lock()

    def _history(self, body: dict) -> list[Any]:
        """The input items, after those of ``previous_response_id`` (its input and output)."""
        items = body.get("input", [])
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": items}]}]
        previous = body.get("previous_response_id")
        if not previous:
            return list(items)
        with self._lock:
            prefix = self._stored.get(previous)
        if prefix is None:
            raise _Rejected(400, f"Previous response with id '{previous}' not found.",
                            param="previous_response_id", code="previous_response_not_found")
        return prefix + list(items)

    def parse(self, body: dict, headers: dict[str, str]) -> _Conversation:
        conv = _Conversation(items=self._history(body))
        tools = body.get("tools") or []
        conv.tool_names = [tool.get("name") or tool["type"] for tool in tools]
        conv.segments = list(tools)
        if body.get("instructions"):
            system = conv.message("system")
            system.texts.append(body["instructions"])
            conv.segments.append({"instructions": body["instructions"]})
        conv.segments.extend(map(_responses_segment, conv.items))
        for index, item in enumerate(conv.items):
            self._parse_item(conv, item, f"input[{index}]")
        return conv

    def _parse_item(self, conv: _Conversation, item: dict, where: str) -> None:
        kind = item.get("type", "message")
        if kind == "message" and item["role"] != "assistant":
            self._parse_message(conv, item, where)
        elif kind in ("message", "reasoning", "function_call", "computer_call"):
            self._parse_output_item(conv, item, kind)
        elif kind in ("function_call_output", "computer_call_output"):
            self._parse_call_output(conv, item, kind, where)
        else:
            conv.problems.append(f"{where}: input item type {kind!r} is not supported by the fake server")

    def _parse_message(self, conv: _Conversation, item: dict, where: str) -> None:
        role = "user" if item["role"] == "user" else "system"
        message = conv.message(role)
        content = item["content"]
        message.texts.extend(_text_parts(content, ("input_text", "output_text", "text")))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "input_image":
                conv.add_image(message, _data_url_image(part.get("image_url"), f"{where}.content[{index}]",
                                                        conv.problems))

    def _parse_output_item(self, conv: _Conversation, item: dict, kind: str) -> None:
        """An item a response produced: it joins the assistant turn it belongs to."""
        if not conv.messages or conv.messages[-1].role != "assistant":
            conv.message("assistant")
        message = conv.messages[-1]
        if kind == "message":
            message.texts.extend(_text_parts(item["content"], ("output_text", "text")))
        elif kind == "function_call":
            message.calls.append(_Call(item["call_id"], item["name"], "function",
                                       screenshot=item["name"] == "screenshot"))
        elif kind == "computer_call":
            actions = [item["action"]] if item.get("action") else item.get("actions") or []
            types = [action.get("type") for action in actions]
            message.calls.append(_Call(item["call_id"], "computer", "computer",
                                       screenshot="screenshot" in types, action=",".join(map(str, types))))

    def _parse_call_output(self, conv: _Conversation, item: dict, kind: str, where: str) -> None:
        result = _Result(item["call_id"], kind.removesuffix("_call_output"))
        conv.message("tool").results.append(result)
        output = item.get("output")
        if kind == "computer_call_output":
            self._parse_screenshot(conv, result, output, f"{where}.output")
            return
        result.texts.extend(_text_parts(output, ("input_text", "output_text", "text")))
        for index, part in enumerate(output if isinstance(output, list) else []):
            if part.get("type") == "input_image":
                conv.add_image(result, _data_url_image(part.get("image_url"), f"{where}.output[{index}]",
                                                       conv.problems))

    @staticmethod
    def _parse_screenshot(conv: _Conversation, result: _Result, output: Any, where: str) -> None:
        """A computer_call_output's screenshot (``computer_screenshot``, or ``input_image`` as the sample app)."""
        if not isinstance(output, dict) or output.get("type") not in ("computer_screenshot", "input_image"):
            conv.problems.append(f"{where}: a computer_call_output's output must be "
                                 '{"type": "computer_screenshot", "image_url": "data:image/...;base64,..."}')
            return
        conv.add_image(result, _data_url_image(output.get("image_url"), where, conv.problems))

    def check(self, body: dict, headers: dict[str, str], conv: _Conversation) -> None:
        model = body["model"]
        for tool in body.get("tools") or []:
            if tool.get("type") == "computer_use_preview":
                self._check_preview_tool(conv, tool, model, body.get("truncation"))
            elif tool.get("type") == "computer":
                version = _gpt_version(model)
                if version is None or version < (5, 4):
                    conv.problems.append(f"the GA computer tool (type 'computer') needs gpt-5.4 or later, "
                                         f"not model {model!r}")
        _check_calls(conv, self)

    @staticmethod
    def _check_preview_tool(conv: _Conversation, tool: dict, model: str, truncation: Any) -> None:
        if not model.startswith("computer-use-preview"):
            conv.problems.append(f"the computer_use_preview tool needs model computer-use-preview, not {model!r}")
        if truncation != "auto":
            conv.problems.append(f"the computer_use_preview tool needs truncation 'auto' (got {truncation!r})")
        if tool.get("environment") not in OPENAI_COMPUTER_ENVIRONMENTS:
            conv.problems.append(f"computer_use_preview environment {tool.get('environment')!r} is not one of "
                                 f"{', '.join(OPENAI_COMPUTER_ENVIRONMENTS)}")
        _check_display(conv, tool, "display_width", "display_height")

    def closes(self, message: _Message) -> bool:
        return message.role == "user"

    def unanswered(self, call: _Call) -> str:
        output = "computer_call_output" if call.kind == "computer" else "function_call_output"
        return f"No tool output found for {call.kind} call {call.id} ({call.name}): every call needs a " \
               f"{output} with its call_id before the next user turn"

    def unknown_result(self, result: _Result) -> str:
        return f"No tool call found for {result.kind}_call_output with call_id {result.call_id}"

    def render(self, request: FakeRequest, conv: _Conversation, reply: FakeReply) -> dict:
        output = self._output_items(request, reply)
        prompt = self.server._account(request, conv)
        reasoning_tokens = len(reply.reasoning) // 4
        output_tokens = max(_tokens(output), reasoning_tokens, 1)
        response_id = self.server._new_id("resp")
        if request.body.get("store", True):
            with self._lock:
                self._stored[response_id] = conv.items + output
        body = request.body
        return {
            "id": response_id, "object": "response", "created_at": int(time.time()), "status": "completed",
            "completed_at": int(time.time()), "error": None, "incomplete_details": None,
            "instructions": body.get("instructions"), "max_output_tokens": body.get("max_output_tokens"),
            "model": request.model, "output": output, "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": body.get("previous_response_id"),
            "reasoning": {"effort": None, "summary": None, **(body.get("reasoning") or {})},
            "store": body.get("store", True), "temperature": body.get("temperature", 1.0),
            "text": body.get("text", {"format": {"type": "text"}}), "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools", []), "top_p": body.get("top_p", 1.0),
            "truncation": body.get("truncation", "disabled"), "metadata": body.get("metadata", {}),
            "service_tier": "default", "user": None, "background": False,
            "usage": {
                "input_tokens": prompt.total, "input_tokens_details": {"cached_tokens": prompt.cached},
                "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": prompt.total + output_tokens,
            },
        }

    def _output_items(self, request: FakeRequest, reply: FakeReply) -> list[dict]:
        new_id = self.server._new_id
        output: list[dict] = []
        if reply.reasoning:
            output.append({"type": "reasoning", "id": new_id("rs"),
                           "summary": [{"type": "summary_text", "text": reply.reasoning}]})
        if reply.text or not reply.calls:
            output.append({"type": "message", "id": new_id("msg"), "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
        for call in reply.calls:
            if call.name == "computer" and not _has_function(request.body, "computer"):
                output.append(self._computer_call(call.arguments))
            else:
                output.append({"type": "function_call", "id": new_id("fc"), "call_id": new_id("call"),
                               "name": call.name, "arguments": _args_json(call.arguments), "status": "completed"})
        return output

    def _computer_call(self, arguments: dict | str) -> dict:
        """A computer_call: ``{"actions": [...]}`` is a GA batch, anything else one preview action."""
        if not isinstance(arguments, dict):
            raise TypeError("a computer call's arguments must be the action dict")
        item: dict[str, Any] = {"type": "computer_call", "id": self.server._new_id("cu"),
                                "call_id": self.server._new_id("call"),
                "status": "completed", "pending_safety_checks": []}
        if "actions" in arguments:
            item["actions"] = arguments["actions"]
        else:
            item["action"] = arguments
        return item


_REASONING_MODELS = re.compile(r"(o\d+|gpt-5)(?!\d)(?!.*-chat)")


class _ChatProtocol(_OpenAIProtocol):
    """``POST /v1/chat/completions``."""

    name = "chat"

    def parse(self, body: dict, headers: dict[str, str]) -> _Conversation:
        tools = body.get("tools") or []
        conv = _Conversation(items=list(body["messages"]))
        conv.tool_names = [tool["function"]["name"] if tool.get("type") == "function" else tool["type"]
                           for tool in tools]
        conv.segments = list(tools) + conv.items
        for index, message in enumerate(conv.items):
            self._parse_message(conv, message, f"messages[{index}]")
        return conv

    def _parse_message(self, conv: _Conversation, item: dict, where: str) -> None:
        role = item["role"]
        content = item.get("content")
        if role == "tool":
            result = _Result(item.get("tool_call_id", ""), "function", _text_parts(content, ("text",)))
            conv.message("tool").results.append(result)
            if not (isinstance(content, str) or all(part.get("type") == "text" for part in content or [])):
                conv.problems.append(f"{where}: a tool message's content must be text only")
            return
        message = conv.message("system" if role in ("system", "developer") else role)
        message.texts.extend(_text_parts(content, ("text",)))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "image_url":
                url = (part.get("image_url") or {}).get("url")
                conv.add_image(message, _data_url_image(url, f"{where}.content[{index}]", conv.problems))
        for call in item.get("tool_calls") or []:
            name = call["function"]["name"]
            message.calls.append(_Call(call["id"], name, "function", screenshot=name == "screenshot"))

    def check(self, body: dict, headers: dict[str, str], conv: _Conversation) -> None:
        if "max_tokens" in body and _REASONING_MODELS.match(body["model"]):
            conv.problems.append(f"Unsupported parameter: 'max_tokens' is not supported with model "
                                 f"{body['model']!r}. Use 'max_completion_tokens' instead.")
        _check_calls(conv, self)

    def closes(self, message: _Message) -> bool:
        return message.role != "tool"

    def unanswered(self, call: _Call) -> str:
        return f"An assistant message with 'tool_calls' must be followed by tool messages responding to each " \
               f"'tool_call_id'. The following tool_call_ids did not have response messages: {call.id} ({call.name})"

    def unknown_result(self, result: _Result) -> str:
        return f"Messages with role 'tool' must be a response to a preceding message with 'tool_calls' " \
               f"(tool_call_id {result.call_id!r})"

    def render(self, request: FakeRequest, conv: _Conversation, reply: FakeReply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None,
                                   "annotations": []}
        if reply.calls:
            message["tool_calls"] = [
                {"id": self.server._new_id("call"), "type": "function",
                 "function": {"name": call.name, "arguments": _args_json(call.arguments)}}
                for call in reply.calls
            ]
        prompt = self.server._account(request, conv)
        reasoning_tokens = len(reply.reasoning) // 4
        completion_tokens = _tokens(message) + reasoning_tokens
        return {
            "id": self.server._new_id("chatcmpl", sep="-"), "object": "chat.completion",
            "created": int(time.time()), "model": request.model, "service_tier": "default",
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if reply.calls else "stop"}],
            "usage": {
                "prompt_tokens": prompt.total, "completion_tokens": completion_tokens,
                "total_tokens": prompt.total + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": prompt.cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
            },
        }


def _thinking_signature(thinking: str) -> str:
    """The signature the fake server gives a thinking block (and expects back)."""
    return base64.b64encode(hashlib.sha256(f"fake-thinking:{thinking}".encode()).digest()).decode()


class _MessagesProtocol(_Protocol):
    """``POST /v1/messages`` (Anthropic)."""

    name = "messages"
    vendor = "anthropic"

    def parse(self, body: dict, headers: dict[str, str]) -> _Conversation:
        tools = body.get("tools") or []
        conv = _Conversation(items=list(body["messages"]))
        conv.tool_names = [tool["type"] if tool.get("type", "custom") != "custom" else tool["name"]
                           for tool in tools]
        computer_names = {tool.get("name") for tool in tools if str(tool.get("type", "")).startswith("computer_")}
        conv.segments = list(tools)
        system = body.get("system")
        if system:
            conv.message("system").texts.extend(_text_parts(system, ("text",)))
            conv.segments.extend([{"type": "text", "text": system}] if isinstance(system, str) else system)
        for index, message in enumerate(conv.items):
            self._parse_message(conv, message, f"messages.{index}", computer_names)
        conv.breakpoints = [i for i, segment in enumerate(conv.segments) if _cache_control(segment) is not None]
        return conv

    def _parse_message(self, conv: _Conversation, item: dict, where: str, computer_names: set) -> None:
        role, content = item["role"], item["content"]
        if role not in ("user", "assistant"):
            conv.problems.append(f"{where}.role: Input should be 'user' or 'assistant' (got {role!r})")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        conv.segments.extend({"role": role, "block": block} for block in blocks)
        message = conv.message(role)
        calls = conv.calls_by_id()
        for index, block in enumerate(blocks):
            at, kind = f"{where}.content.{index}", block.get("type")
            if kind == "text":
                message.texts.append(block["text"])
            elif kind == "image":
                conv.add_image(message, self._image(block, at, conv.problems))
            elif kind == "tool_use":
                message.calls.append(self._tool_use_call(block, computer_names))
            elif kind == "tool_result":
                if index and blocks[index - 1].get("type") != "tool_result":
                    conv.problems.append(f"{at}: tool_result blocks must come first in the user message")
                self._parse_result(conv, message, block, at, calls.get(block.get("tool_use_id", "")))
            elif kind == "thinking" and block.get("signature") != _thinking_signature(block.get("thinking", "")):
                conv.problems.append(f"{at}: Invalid `signature` in `thinking` block")

    @staticmethod
    def _tool_use_call(block: dict, computer_names: set) -> _Call:
        """A tool_use block as a call (a computer tool's ``action`` says whether it asks for a screenshot)."""
        action = block["input"].get("action", "") if isinstance(block.get("input"), dict) else ""
        kind = "computer" if block["name"] in computer_names else "function"
        return _Call(block["id"], block["name"], kind, screenshot="screenshot" in (action, block["name"]),
                     action=action)

    def _parse_result(self, conv: _Conversation, message: _Message, block: dict, where: str,
                      call: _Call | None) -> None:
        result = _Result(block["tool_use_id"], "")
        message.results.append(result)
        content = block.get("content") or []
        if block.get("is_error") and isinstance(content, list) and any(p.get("type") != "text" for p in content):
            conv.problems.append(f"{where}: all content must be type 'text' if 'is_error' is true")
        result.texts.extend(_text_parts(content, ("text",)))
        for index, part in enumerate(content if isinstance(content, list) else []):
            if part.get("type") == "image":
                image = self._image(part, f"{where}.content.{index}", conv.problems)
                if image is not None:
                    image.zoom = call is not None and call.action == "zoom"
                conv.add_image(result, image)

    @staticmethod
    def _image(block: dict, where: str, problems: list[str]) -> _Image | None:
        """An image block's decoded image (only base64 sources: the fake server fetches nothing)."""
        source = block.get("source") or {}
        if source.get("type") != "base64":
            problems.append(f"{where}: image source type {source.get('type')!r} is not supported by the fake "
                            "server (use base64)")
            return None
        return _decode_image(source.get("data"), source.get("media_type", ""), where, problems)

    def check(self, body: dict, headers: dict[str, str], conv: _Conversation) -> None:
        if "anthropic-version" not in headers:
            conv.problems.append("anthropic-version: header is required")
        if not isinstance(body.get("max_tokens"), int):
            conv.problems.append("max_tokens: Field required")
        self._check_roles(conv)
        self._check_thinking(conv, body)
        for tool in body.get("tools") or []:
            if str(tool.get("type", "")).startswith("computer_"):
                self._check_computer_tool(conv, tool, body["model"], headers.get("anthropic-beta", ""))
        self._check_images(conv)
        _check_calls(conv, self)

    @staticmethod
    def _check_roles(conv: _Conversation) -> None:
        roles = [m.role for m in conv.messages if m.role != "system"]
        if not roles or roles[0] != "user":
            conv.problems.append("messages: the first message must use the 'user' role")
        for index, (before, after) in enumerate(zip(roles, roles[1:]), 1):
            if before == after or after not in ("user", "assistant"):
                conv.problems.append(f"messages.{index}: roles must alternate between 'user' and 'assistant' "
                                     f"(got {before!r} then {after!r})")

    @staticmethod
    def _check_thinking(conv: _Conversation, body: dict) -> None:
        thinking = body.get("thinking") or {}
        if thinking.get("type") != "enabled":
            return
        budget, max_tokens = thinking.get("budget_tokens", 0), body.get("max_tokens") or 0
        if budget < 1024:
            conv.problems.append("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if budget >= max_tokens:
            conv.problems.append(f"`max_tokens` must be greater than `thinking.budget_tokens` "
                                 f"({max_tokens} <= {budget})")

    @staticmethod
    def _check_computer_tool(conv: _Conversation, tool: dict, model: str, beta_header: str) -> None:
        version = tool["type"]
        beta = ANTHROPIC_COMPUTER_BETAS.get(version)
        betas = [b.strip() for b in beta_header.split(",") if b.strip()]
        if beta is None:
            conv.problems.append(f"tools: unknown computer tool version {version!r}")
        elif beta not in betas:
            conv.problems.append(f"tools: {version} needs the anthropic-beta header {beta!r} "
                                 f"(got {', '.join(betas) or 'none'})")
        claude = _claude_version(model)
        expected = _claude_computer_tool(*claude) if claude else version
        if expected != version:
            conv.problems.append(f"tools: model {model!r} takes " +
                                 (f"the computer tool {expected}, not {version}" if expected
                                  else f"no computer tool (got {version})"))
        _check_display(conv, tool, "display_width_px", "display_height_px")

    @staticmethod
    def _check_images(conv: _Conversation) -> None:
        many = len(conv.images) > ANTHROPIC_MANY_IMAGES
        max_side = ANTHROPIC_MANY_IMAGES_MAX_SIDE if many else ANTHROPIC_MAX_SIDE
        if len(conv.images) > ANTHROPIC_MAX_IMAGES:
            conv.problems.append(f"Too many images in the request: {len(conv.images)} > {ANTHROPIC_MAX_IMAGES}")
        for image in conv.images:
            if image.b64_len > ANTHROPIC_MAX_IMAGE_BASE64:
                conv.problems.append(f"{image.where}.source.base64: image exceeds 5 MB maximum: "
                                     f"{image.b64_len} bytes > {ANTHROPIC_MAX_IMAGE_BASE64} bytes")
            if max(image.size) > max_side:
                conv.problems.append(
                    f"{image.where}.source.base64: image dimensions exceed max allowed size"
                    f"{' for many-image requests' if many else ''}: {max_side} pixels "
                    f"(got {image.size[0]}x{image.size[1]})")
            if image.declared_type not in ANTHROPIC_MEDIA_TYPES or image.declared_type != image.actual_type:
                conv.problems.append(f"{image.where}.source: media_type {image.declared_type!r} does not match "
                                     f"the image ({image.actual_type or 'unknown'})")

    def closes(self, message: _Message) -> bool:
        return True

    def unanswered(self, call: _Call) -> str:
        return f"tool_use ids were found without tool_result blocks immediately after: {call.id} ({call.name}). " \
               "Each tool_use block must have a corresponding tool_result block in the next message."

    def unknown_result(self, result: _Result) -> str:
        return f"unexpected tool_use_id found in tool_result blocks: {result.call_id}. Each tool_result block " \
               "must have a corresponding tool_use block in the previous message."

    def render(self, request: FakeRequest, conv: _Conversation, reply: FakeReply) -> dict:
        content: list[dict] = []
        if reply.reasoning:
            content.append({"type": "thinking", "thinking": reply.reasoning,
                            "signature": _thinking_signature(reply.reasoning)})
        if reply.text or not reply.calls:
            content.append({"type": "text", "text": reply.text})
        content.extend({"type": "tool_use", "id": self.server._new_id("toolu"), "name": call.name,
                        "input": call.arguments} for call in reply.calls)
        prompt = self.server._account(request, conv)
        return {
            "id": self.server._new_id("msg"), "type": "message", "role": "assistant", "model": request.model,
            "content": content, "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
            "usage": {
                "input_tokens": prompt.total - prompt.cached - prompt.written, "output_tokens": _tokens(content),
                "cache_creation_input_tokens": prompt.written, "cache_read_input_tokens": prompt.cached,
                "cache_creation": {"ephemeral_5m_input_tokens": prompt.written if prompt.ttl == "5m" else 0,
                                   "ephemeral_1h_input_tokens": prompt.written if prompt.ttl == "1h" else 0},
                "service_tier": "standard",
            },
        }


# --------------------------------------------------------------------------------------------- error shapes

_OPENAI_ERRORS = {400: ("invalid_request_error", None), 401: ("invalid_request_error", "invalid_api_key"),
                  403: ("invalid_request_error", None), 404: ("invalid_request_error", None),
                  429: ("requests", "rate_limit_exceeded")}
_ANTHROPIC_ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                     404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}


def _error_body(vendor: str, status: int, message: str, *, param: str | None = None,
                code: str | None = None) -> dict:
    """An error body in the vendor's shape."""
    if vendor == "anthropic":
        kind = _ANTHROPIC_ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind, default_code = _OPENAI_ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error",
                                                     None))
    return {"error": {"message": message, "type": kind, "param": param, "code": code or default_code}}


def _auth_problem(vendor: str, headers: dict[str, str], api_key: str) -> str | None:
    """Why the request's credentials are refused, or None (Anthropic takes ``x-api-key`` or Bearer auth)."""
    bearer = headers.get("authorization")
    if vendor == "anthropic":
        given = headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)
        if given is None:
            return "x-api-key header is required"
        return None if given == api_key else "invalid x-api-key"
    if bearer is None:
        return "You didn't provide an API key. You need to provide your API key in an Authorization header " \
               "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
    return None if bearer == f"Bearer {api_key}" else "Incorrect API key provided."


# ------------------------------------------------------------------------------------------------ server


@dataclass
class _Answer:
    """An HTTP answer."""

    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Fault:
    """An injected failure for the next ``times`` requests."""

    times: int
    status: int
    retry_after: float | None = None
    body: dict | None = None


@dataclass
class _Delay:
    """An injected late answer for the next ``times`` requests."""

    times: int
    seconds: float


class FakeModelServer:
    """Fake OpenAI (Responses, chat completions) and Anthropic (Messages) APIs on ``127.0.0.1``."""

    def __init__(self, policy: Policy | None = None, *, api_key: str = "test-key", strict: bool = True):
        self.policy: Policy = policy or default_policy
        self.api_key = api_key
        self.strict = strict
        self.requests: list[FakeRequest] = []
        self.violations: list[str] = []
        self._protocols: dict[str, _Protocol] = {
            "/v1/responses": _ResponsesProtocol(self),
            "/v1/chat/completions": _ChatProtocol(self),
            "/v1/messages": _MessagesProtocol(self),
        }
        self._faults: list[_Fault] = []
        self._delays: list[_Delay] = []
        self._cache = _PromptCache()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle

    def start(self) -> FakeModelServer:
        """Listen on a free loopback port and serve in a background thread."""
        self._stopped.clear()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        name="fake-model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection."""
        if self._httpd is None:
            return
        self._stopped.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._httpd is None:
            raise RuntimeError("FakeModelServer is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` for ``openai.OpenAI``."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` for ``anthropic.Anthropic``."""
        return self.url

    # ---- fault injection

    def fail_next(self, status: int, *, times: int = 1, retry_after: float | None = None,
                  body: dict | None = None) -> None:
        """Answer the next ``times`` requests with ``status`` (in the vendor's error shape unless ``body``)."""
        with self._lock:
            self._faults.append(_Fault(times, status, retry_after, body))

    def delay_next(self, seconds: float, *, times: int = 1) -> None:
        """Answer the next ``times`` requests ``seconds`` late (a client gone by then gets no answer)."""
        with self._lock:
            self._delays.append(_Delay(times, seconds))

    def _take(self, queue: list[Any]) -> Any:
        """Use the first injected fault or delay of ``queue`` once (None when there is none)."""
        with self._lock:
            if not queue:
                return None
            entry = queue[0]
            entry.times -= 1
            if entry.times <= 0:
                queue.pop(0)
            return entry

    # ---- helpers for the protocols

    def _new_id(self, prefix: str, *, sep: str = "_") -> str:
        """A fresh id, deterministic in request order: ``call_fake000007``."""
        with self._lock:
            return f"{prefix}{sep}fake{next(self._ids):06d}"

    def _account(self, request: FakeRequest, conv: _Conversation) -> _PromptUsage:
        return self._cache.account(f"{request.protocol}:{request.model}", conv)

    def _violation(self, message: str) -> None:
        with self._lock:
            self.violations.append(message)

    # ---- request handling

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> _Answer | None:
        """The answer to one HTTP request (None when the client hung up before a late answer)."""
        headers = {name.lower(): value for name, value in handler.headers.items()}
        raw = handler.rfile.read(int(headers.get("content-length") or 0))
        path = urlsplit(handler.path).path
        protocol = self._protocols.get(path) if method == "POST" else None
        vendor = protocol.vendor if protocol else ("anthropic" if "x-api-key" in headers
                                                   or "anthropic-version" in headers else "openai")
        body, conv, rejected = self._parse(protocol, raw, headers)
        request = self._fake_request(protocol, body, headers, conv)
        with self._lock:
            self.requests.append(request)
        delay = self._take(self._delays)
        if delay and (self._stopped.wait(delay.seconds) or _client_gone(handler.connection)):
            return None
        fault = self._take(self._faults)
        if fault is not None:
            return _fault_answer(vendor, fault)
        if protocol is None:
            rejected = _Rejected(404, f"Invalid URL ({method} {path})")
        elif self.strict and rejected is None:
            rejected = self._strict_problems(protocol, body, headers, conv)
        if rejected is not None:
            return self._reject(vendor, rejected)
        return self._reply(cast(_Protocol, protocol), request, conv)

    def _parse(self, protocol: _Protocol | None, raw: bytes,
               headers: dict[str, str]) -> tuple[dict, _Conversation, _Rejected | None]:
        """The JSON body and its conversation, or why they cannot be read."""
        try:
            body = json.loads(raw or b"{}")
        except ValueError as exc:
            return {}, _Conversation(), _Rejected(400, f"We could not parse the JSON body of your request: {exc}")
        if not isinstance(body, dict):
            return {}, _Conversation(), _Rejected(400, "The request body must be a JSON object")
        if protocol is None:
            return body, _Conversation(), None
        if not isinstance(body.get("model"), str):
            return body, _Conversation(), _Rejected(400, "model: Field required", param="model")
        try:
            return body, protocol.parse(body, headers), None
        except _Rejected as exc:
            return body, _Conversation(), exc
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            message = f"malformed {protocol.name} request: {type(exc).__name__}: {exc}"
            return body, _Conversation(), _Rejected(400, message)

    def _strict_problems(self, protocol: _Protocol, body: dict, headers: dict[str, str],
                         conv: _Conversation) -> _Rejected | None:
        """The auth failure or the protocol problems of a request, as one rejection."""
        auth = _auth_problem(protocol.vendor, headers, self.api_key)
        if auth is not None:
            return _Rejected(401, auth)
        try:
            protocol.check(body, headers, conv)
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
            conv.problems.append(f"malformed {protocol.name} request: {type(exc).__name__}: {exc}")
        return _Rejected(400, *conv.problems) if conv.problems else None

    def _reject(self, vendor: str, rejected: _Rejected) -> _Answer:
        """Record a rejection as a violation and answer it in the vendor's error shape."""
        prefix = "auth: " if rejected.status == 401 else ""
        with self._lock:
            self.violations.extend(prefix + problem for problem in rejected.problems)
        body = _error_body(vendor, rejected.status, rejected.message, param=rejected.param, code=rejected.code)
        return _Answer(rejected.status, body, {"x-should-retry": "false"})

    def _reply(self, protocol: _Protocol, request: FakeRequest, conv: _Conversation) -> _Answer:
        """The policy's reply in the protocol's shape (a policy error is answered 500)."""
        try:
            return _Answer(200, protocol.render(request, conv, self.policy(request)))
        except Exception as exc:  # the policy is user code: report whatever it raised
            line = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self._violation(f"policy error: {line}")
            return _Answer(500, _error_body(protocol.vendor, 500, line), {"x-should-retry": "false"})

    @staticmethod
    def _fake_request(protocol: _Protocol | None, body: dict, headers: dict[str, str],
                      conv: _Conversation) -> FakeRequest:
        """What the policy (and ``requests``) sees of a request."""
        last = max((i for i, m in enumerate(conv.messages) if m.role == "assistant"), default=-1)
        newest = [m for m in conv.messages[last + 1:] if m.role != "system"]
        images = [image.data for image in conv.images]
        return FakeRequest(
            protocol=protocol.name if protocol else "", model=str(body.get("model", "")), body=body,
            headers=headers, text="\n".join(t for m in conv.messages for t in _message_texts(m)),
            last_text="\n".join(t for m in newest for t in _message_texts(m)),
            images=images, last_image=images[-1] if images else None, tool_names=conv.tool_names,
            turn=sum(m.role == "assistant" for m in conv.messages),
        )


def _message_texts(message: _Message) -> list[str]:
    """A message's texts, its tool outputs' first (they come first in the turn)."""
    return [text for result in message.results for text in result.texts] + message.texts


def _fault_answer(vendor: str, fault: _Fault) -> _Answer:
    """The answer of an injected fault, with Retry-After when asked for."""
    message = f"fake {fault.status} injected by FakeModelServer.fail_next"
    headers = {}
    if fault.retry_after is not None:
        headers = {"retry-after": str(math.ceil(fault.retry_after)),
                   "retry-after-ms": str(int(fault.retry_after * 1000))}
    return _Answer(fault.status, fault.body or _error_body(vendor, fault.status, message), headers)


def _client_gone(connection: socket.socket) -> bool:
    """Whether the client closed the connection (readable with nothing to read)."""
    readable, _, _ = select.select([connection], [], [], 0)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _make_handler(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``server``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server._connections.add(self.connection)

        def finish(self) -> None:
            with server._lock:
                server._connections.discard(self.connection)
            try:
                super().finish()
            except OSError:
                pass

        def do_POST(self) -> None:
            self._serve("POST")

        def do_GET(self) -> None:
            self._serve("GET")

        def _serve(self, method: str) -> None:
            answer = server._handle(self, method)
            if answer is None:
                self.close_connection = True
                return
            payload = json.dumps(answer.body).encode()
            request_id = server._new_id("req")
            try:
                self.send_response(answer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("x-request-id", request_id)
                self.send_header("request-id", request_id)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


__all__ = [
    "FakeCall", "FakeModelServer", "FakeReply", "FakeRequest", "IMAGE_TOKENS", "JudgePolicy", "Policy",
    "ScriptedPolicy",
    "default_policy",
]
