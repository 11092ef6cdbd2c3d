"""The limits on an agent's output and the readers of the values inside an action (element ids, numbers,
points, text, targets, keys, a wait), shared by every output format; each raises ``ActionError`` with a message
fit to show to the agent."""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

from pytest_cua.actions import Action, ActionError, Hotkey, Point, Press, Wait

MAX_OUTPUT_CHARS = 50_000
"""Longer agent output is rejected outright."""
MAX_TEXT_CHARS = 10_000
"""Longest string accepted as one argument (text to type, a URL)."""
MAX_ACTIONS = 50
"""Most actions accepted from one output."""
MAX_COORDINATE = 100_000
SCROLL_CLICK_PX = 100
"""Pixels per pyautogui scroll 'click' and the default browser-use scroll amount unit."""
DEFAULT_SCROLL_PX = 500


def normalize_element_id(value: Any) -> str:
    """``"e12"``, ``"[e12]"``, ``"12"`` and ``12`` all name element ``e12``."""
    if isinstance(value, bool):
        raise ActionError(f"element id must be like 'e12', got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ActionError(f"element id must not be negative, got {value!r}")
        return f"e{value}"
    if isinstance(value, str):
        text = value.strip().strip("[]").strip()
        if re.fullmatch(r"\d{1,9}", text):
            return f"e{int(text)}"
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9_\-]{0,63}", text):
            return text
    raise ActionError(f"element id must be like 'e12', got {shown(value)}")


def read_number(value: Any, what: str) -> float:
    """A finite number within ``MAX_COORDINATE``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"{what} must be a number, got {shown(value)}")
    if not math.isfinite(value) or abs(value) > MAX_COORDINATE:
        raise ActionError(f"{what} is out of range: {shown(value)}")
    return float(value)


def read_point(x: Any, y: Any, what: str = "coordinates") -> Point:
    """The point ``(x, y)``."""
    return Point(read_number(x, f"{what} x"), read_number(y, f"{what} y"))


def read_text(value: Any, what: str) -> str:
    """A string (a number is taken as its text) of at most ``MAX_TEXT_CHARS`` characters."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        value = str(value)
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string, got {shown(value)}")
    if len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"{what} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return value


def shown(value: Any) -> str:
    """A value as an error message shows it: its repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def checked_sizes(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data``, if none of its strings is longer than ``MAX_TEXT_CHARS``."""
    for key, value in data.items():
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            raise ActionError(f"field {key!r} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return data


_ID_KEYS = ("target", "element_id", "element", "id", "ref", "index", "element_index", "mark")
_POINT_KEYS = ("coordinate", "coordinates", "point", "position")


def read_target(args: Mapping[str, Any], kind: str, *, required: bool = True,
                id_keys: Sequence[str] = _ID_KEYS, point_keys: Sequence[str] = _POINT_KEYS,
                x_key: str = "x", y_key: str = "y") -> Any:
    """The target of an action: an element id or a point, under one of ``id_keys`` or ``point_keys`` or as
    ``x_key`` and ``y_key``."""
    for key in id_keys:
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, (list, tuple)) and len(value) == 2:
                return read_point(value[0], value[1], f"{kind} {key}")
            if isinstance(value, Mapping) and set(value) == {"x", "y"}:
                return read_point(value["x"], value["y"], f"{kind} {key}")
            return normalize_element_id(value)
    for key in point_keys:
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, Mapping) and set(value) >= {"x", "y"}:
                return read_point(value["x"], value["y"], f"{kind} {key}")
            if not isinstance(value, (list, tuple)) or len(value) != 2:
                raise ActionError(f"{kind}: {key!r} must be [x, y], got {shown(value)}")
            return read_point(value[0], value[1], f"{kind} {key}")
    if x_key in args or y_key in args:
        if x_key not in args or y_key not in args:
            raise ActionError(f"{kind}: give both {x_key!r} and {y_key!r}")
        return read_point(args[x_key], args[y_key], kind)
    if required:
        raise ActionError(f"{kind}: missing target: give 'element_id' (like 'e12') or 'x' and 'y'")
    return None


def read_keys(value: Any, what: str) -> tuple[str, ...]:
    """Key names: a list, or one string (``ctrl+s`` is two keys)."""
    if isinstance(value, str):
        parts = [p for p in re.split(r"\s*\+\s*", value.strip()) if p] if len(value) > 1 else [value]
        return tuple(read_text(p, what) for p in parts)
    if isinstance(value, (list, tuple)) and value:
        return tuple(read_text(v, what) for v in value)
    raise ActionError(f"{what} must be a key name or a list of key names, got {shown(value)}")


def key_action(value: Any, what: str) -> Action:
    """One key pressed, or several pressed together."""
    keys = read_keys(value, what)
    return Press(keys[0]) if len(keys) == 1 else Hotkey(keys)


def read_arg(args: Mapping[str, Any], kind: str, *names: str, default: Any = ..., as_text: bool = True) -> Any:
    """The first of ``names`` given in ``args`` (as text unless ``as_text`` is false), else ``default``."""
    for n in names:
        if n in args and args[n] is not None:
            return read_text(args[n], f"{kind} {n!r}") if as_text else args[n]
    if default is ...:
        raise ActionError(f"{kind}: missing {names[0]!r}")
    return default


def tab_index(args: Mapping[str, Any], kind: str, required: bool) -> int | None:
    """The tab number of a tab action (None when not given and not ``required``)."""
    for key in ("index", "tab", "tab_index", "page_id"):
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ActionError(f"{kind}: {key!r} must be a tab number >= 0, got {shown(value)}")
            return value
    if required:
        raise ActionError(f"{kind}: missing 'index' (the tab number)")
    return None


def wait_action(args: Mapping[str, Any]) -> Action:
    """A wait of ``seconds`` (or ``duration``, ``time``; 1 by default), 0 to 300 seconds."""
    seconds = read_number(args.get("seconds", args.get("duration", args.get("time", 1.0))), "wait seconds")
    if seconds < 0 or seconds > 300:
        raise ActionError(f"wait: 'seconds' must be between 0 and 300, got {seconds:g}")
    return Wait(seconds)
