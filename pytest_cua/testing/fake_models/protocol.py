"""The vendor protocol interface (``VendorProtocol``: parse, check, render a request of one endpoint), the id
sequence the protocols share, and the checks common to every protocol (every tool call answered, a screenshot
where one was asked for, a computer tool's display size)."""

from __future__ import annotations

import itertools
import json
import threading

from pytest_cua.testing.fake_models.conversation import Conversation, HistoryCall, HistoryMessage, HistoryResult
from pytest_cua.testing.fake_models.policy import FakeReply, FakeRequest
from pytest_cua.testing.fake_models.usage import PromptCache, PromptUsage


class FakeIds:
    """Fresh ids, deterministic in request order: ``call_fake000007``."""

    def __init__(self) -> None:
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def new(self, prefix: str, *, sep: str = "_") -> str:
        """The next id, after ``prefix`` and ``sep``."""
        with self._lock:
            return f"{prefix}{sep}fake{next(self._count):06d}"


class VendorProtocol:
    """A vendor endpoint: parsing, strict checks, rendering and error shape."""

    name = ""
    vendor = ""

    def __init__(self, ids: FakeIds, cache: PromptCache):
        self.ids = ids
        self.cache = cache

    def new_id(self, prefix: str, *, sep: str = "_") -> str:
        """A fresh id of the server's sequence."""
        return self.ids.new(prefix, sep=sep)

    def account(self, request: FakeRequest, conv: Conversation) -> PromptUsage:
        """The prompt tokens of ``request``, cached ones included (the cache is per protocol and model)."""
        return self.cache.account(f"{request.protocol}:{request.model}", conv)

    def parse(self, body: dict, headers: dict[str, str]) -> Conversation:
        """The request's conversation (problems a real API rejects are recorded in it, not raised)."""
        raise NotImplementedError

    def check(self, body: dict, headers: dict[str, str], conv: Conversation) -> None:
        """Record the problems a real API would reject the request for."""

    def render(self, request: FakeRequest, conv: Conversation, reply: FakeReply) -> dict:
        """The response body of ``reply``."""
        raise NotImplementedError

    def closes(self, message: HistoryMessage) -> bool:
        """Whether ``message`` comes too late for still unanswered tool calls."""
        raise NotImplementedError

    def unanswered(self, call: HistoryCall) -> str:
        """The vendor's complaint about a tool call left unanswered."""
        raise NotImplementedError

    def unknown_result(self, result: HistoryResult) -> str:
        """The vendor's complaint about a tool output that answers no call."""
        raise NotImplementedError


class OpenAIProtocol(VendorProtocol):
    """Shared by the OpenAI endpoints."""

    vendor = "openai"


def args_json(arguments: dict | str) -> str:
    """Tool arguments as the JSON string OpenAI sends (a str is sent verbatim)."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def check_calls(conv: Conversation, protocol: VendorProtocol) -> None:
    """Every tool call answered (as the protocol orders it), and a screenshot sent where one was asked for."""
    pending: dict[str, HistoryCall] = {}
    awaiting: list[HistoryCall] = []
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
                conv.problems.extend(no_screenshot(call) for call in awaiting)
            awaiting.clear()
        if pending and protocol.closes(message):
            conv.problems.extend(protocol.unanswered(call) for call in pending.values())
            pending.clear()
        pending.update((call.id, call) for call in message.calls)
    conv.problems.extend(protocol.unanswered(call) for call in pending.values())
    conv.problems.extend(no_screenshot(call) for call in awaiting)


def no_screenshot(call: HistoryCall) -> str:
    """The problem of a screenshot call answered without an image."""
    return f"call {call.id} ({call.name}) asked for a screenshot but no image was sent in answer"


def check_display(conv: Conversation, tool: dict, width_key: str, height_key: str) -> None:
    """A computer tool's display size is the size of the newest screenshot."""
    screenshot = conv.screenshot()
    display = (tool.get(width_key), tool.get(height_key))
    if screenshot is not None and screenshot.size != display:
        conv.problems.append(
            f"computer tool display {display[0]}x{display[1]} does not match the screenshot "
            f"{screenshot.size[0]}x{screenshot.size[1]} ({screenshot.where})"
        )
