"""The values inside a model's action: numbers, text, waits, screen points and key names, each checked and
turned into our form; anything else raises ``ActionError`` with a message for the model."""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from pytest_cua.actions import Action, ActionError, Hotkey, Point, Press, Wait
from pytest_cua.agents.action_parser import MAX_COORDINATE, MAX_TEXT_CHARS
from pytest_cua.agents.models.coords import CoordSpace
from pytest_cua.agents.models.vlm.grammar import MAX_WAIT_SECONDS, quoted


def read_number(value: Any, what: str) -> float:
    """A finite number within ``MAX_COORDINATE``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"{what} must be a number, got {quoted(repr(value))}")
    if not math.isfinite(value) or abs(value) > MAX_COORDINATE:
        raise ActionError(f"{what} is out of range: {quoted(repr(value))}")
    return float(value)


def read_text(value: Any, what: str) -> str:
    """A string of at most ``MAX_TEXT_CHARS`` characters."""
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string, got {quoted(repr(value))}")
    if len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"{what} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return value


def read_wait(seconds: Any, what: str) -> Wait:
    """A wait of 0 to ``MAX_WAIT_SECONDS`` seconds."""
    value = read_number(seconds, what)
    if not 0 <= value <= MAX_WAIT_SECONDS:
        raise ActionError(f"{what} must be between 0 and {MAX_WAIT_SECONDS:g} seconds, got {value:g}")
    return Wait(value)


def screen_point(space: CoordSpace, x: float, y: float) -> Point:
    """The screen point of the model's ``(x, y)`` in ``space``."""
    sx, sy = space.to_screen(x, y)
    return Point(sx, sy)


_KEY_ALIASES = {
    "return": "enter", "control": "ctrl", "escape": "esc", "arrowleft": "left", "arrowright": "right",
    "arrowup": "up", "arrowdown": "down", "page_up": "pageup", "page_down": "pagedown", "spacebar": "space",
    "del": "delete",
}


def key_name(raw: str) -> str:
    """A key in pyautogui's spelling: multi-letter names in lower case with common aliases folded
    (``Return`` -> ``enter``, ``ArrowLeft`` -> ``left``), single characters kept as they are."""
    if raw == " ":
        return "space"
    key = raw.strip()
    if not key or len(key) > 24 or re.search(r"\s", key):
        raise ActionError(f"not a key name: {quoted(raw)}")
    if len(key) == 1:
        return key
    return _KEY_ALIASES.get(key.lower(), key.lower())


def key_combo(keys: Sequence[str]) -> tuple[str, ...]:
    """Keys pressed together, letters in lower case (``ctrl C`` is ``ctrl c``)."""
    return tuple(key_name(k).lower() for k in keys)


def key_action(keys: Sequence[str]) -> Action:
    """One key pressed, or several pressed together."""
    return Press(key_name(keys[0])) if len(keys) == 1 else Hotkey(key_combo(keys))
