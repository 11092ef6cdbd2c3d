"""The grammar interface: what every model family's grammar offers (``Grammar``), what it reads from one reply
(``ParsedTurn``), and the checks and constants the families share (the reply's size, the action count, the
wait bounds, the image space a family answers in)."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Callable, Protocol, Sequence

from pytest_cua.actions import Action, ActionError, Point
from pytest_cua.agents.action_parser import MAX_ACTIONS, MAX_OUTPUT_CHARS
from pytest_cua.agents.models.coords import CoordSpace, relative1000_space, relative_space, smart_resize_space

QWEN_PROCESSOR_MIN_PIXELS = 4 * 28 * 28
"""The Qwen2.5-VL processor's own bounds (3136 to 12845056 pixels), used by Qwen2.5-VL and OpenCUA-7B."""
QWEN_PROCESSOR_MAX_PIXELS = 16384 * 28 * 28

WAIT_SECONDS = 5.0
"""How long UI-TARS' ``wait()`` and OpenCUA's ``computer.wait()`` wait (UI-TARS' prompt says 5 s)."""
MAX_WAIT_SECONDS = 300.0

ASK_DEFAULT = "The agent asks for your help (it gave no reason)."
"""The question of an ask-the-user action that gave no reason."""


@dataclass
class ParsedTurn:
    """One reply of the model: its actions (points in screen pixels), its reasoning and the text as received."""

    actions: list[Action]
    thought: str
    raw: str


class Grammar(Protocol):
    """How to prompt one family of models and read its replies."""

    @property
    def name(self) -> str: ...

    @property
    def prompt_version(self) -> str: ...

    def image_space(self, screen: tuple[int, int]) -> CoordSpace:
        """The model's coordinate space over ``screen``; its ``width`` x ``height`` is the image size to send."""
        ...

    def system_prompt(self, instruction: str, *, ask: bool, language: str = "English",
                      screen: tuple[int, int] | None = None) -> str:
        """The model's own prompt with the task; ``ask`` offers the ask-the-user action. ``screen`` is the
        screen's size, for grammars whose prompt declares the image size (Qwen2.5-VL needs it)."""
        ...

    def parse(self, text: str, space: CoordSpace, *, pointer: Point | None = None) -> ParsedTurn:
        """The reply as typed actions; ``pointer`` is where the mouse is (screen pixels), for actions at the
        pointer. Raises ``ActionError`` with a message for the model."""
        ...

    def history_entry(self, turn: ParsedTurn) -> str:
        """The text kept for an old turn in the prompt."""
        ...


_ANSWER_SPACES: dict[str, Callable[..., CoordSpace]] = {
    "relative1000": relative1000_space,
    "relative": relative_space,
}


def check_coordinates(kind: str, allowed: Sequence[str]) -> None:
    """``ValueError`` unless ``kind`` is one of the coordinate kinds a grammar allows."""
    if kind not in allowed:
        raise ValueError(f"unknown coordinates {kind!r}; known: {', '.join(allowed)}")


def answer_space(screen: tuple[int, int], coordinates: str, *, min_pixels: int, max_pixels: int) -> CoordSpace:
    """The space a Qwen2.5-VL-based model answers in over ``screen``: the image is smart-resized within
    ``min_pixels``..``max_pixels``; ``coordinates`` ``smart_resize`` answers in its pixels, ``relative`` in
    fractions and ``relative1000`` in thousandths of it."""
    space = smart_resize_space(screen, min_pixels=min_pixels, max_pixels=max_pixels)
    other = _ANSWER_SPACES.get(coordinates)
    return other(screen, image=(space.width, space.height)) if other else space


def quoted(fragment: str, limit: int = 60) -> str:
    """A short, quoted form of an offending fragment, for error messages."""
    text = fragment.strip()
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def checked_reply(text: Any) -> str:
    """The reply, if it is non-empty text of a sane length."""
    if not isinstance(text, str):
        raise ActionError(f"the reply must be text, got {type(text).__name__}")
    if len(text) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the reply is too long ({len(text)} characters; at most {MAX_OUTPUT_CHARS})")
    if not text.strip():
        raise ActionError("the reply is empty; answer with your reasoning and one action")
    return text


def parsed_turn(actions: list[Action], thought: str, raw: str, example: str) -> ParsedTurn:
    """The turn of a reply, if it holds one action at least and not too many (``example`` shows one)."""
    if not actions:
        raise ActionError(f"no action found in the reply; give one, e.g. {example}")
    if len(actions) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one reply ({len(actions)}); at most {MAX_ACTIONS}")
    return ParsedTurn(actions, thought, raw)


def strip_label(text: str, label: str) -> str:
    """``text`` without a leading ``Label:``."""
    return re.sub(rf"^\s*{label}\s*:\s*", "", text, flags=re.I).strip()


def last_point(actions: Sequence[Action]) -> Point | None:
    """Where the pointer is after ``actions``: the last point any of them names."""
    for action in reversed(actions):
        points = [v for f in fields(action) if isinstance(v := getattr(action, f.name), Point)]
        if points:
            return points[-1]
    return None
