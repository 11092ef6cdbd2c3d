"""The policy side of the fake server: what a policy sees of a request (``FakeRequest``), what it answers
(``FakeReply`` with ``FakeCall`` tool calls), and the ready-made policies (``default_policy``, ``JudgePolicy``,
``ScriptedPolicy``)."""

from __future__ import annotations

import io
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, Iterable

from PIL import Image as PILImage

from pytest_cua.agents.models.elements import parse_elements
from pytest_cua.observations import Element


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
    """What the fake model answers: text, a reasoning summary (thinking) and tool calls, in the shapes the
    vendor gives them.

    The less usual ends of a turn, each rendered as its vendor does: ``refusal`` (OpenAI: a ``refusal``
    content part, or the chat message's ``refusal``; Claude: ``stop_reason: "refusal"`` with ``stop_details``
    of ``refusal_category``); ``stop="max_tokens"`` (cut off at the token limit: Claude's
    ``stop_reason: "max_tokens"``, Responses ``status: "incomplete"``, chat ``finish_reason: "length"``);
    ``stop="pause_turn"`` (Claude); ``safety_checks`` (OpenAI's ``pending_safety_checks`` on every computer
    call: ``{"id", "code", "message"}``); ``encrypted_reasoning`` (a Responses reasoning item's
    ``encrypted_content``)."""

    text: str = ""
    reasoning: str = ""
    calls: list[FakeCall] = field(default_factory=list)
    refusal: str = ""
    refusal_category: str | None = None
    stop: str | None = None  # "max_tokens" or "pause_turn"
    safety_checks: list[dict] = field(default_factory=list)
    encrypted_reasoning: str = ""


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
