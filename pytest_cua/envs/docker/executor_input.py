"""The desktop actions the executor carries out (``act``): typed action dicts (``pytest_cua.actions.Action.
to_dict()``) checked against this module's own whitelist (types, field types, key names; nothing is ever
evaluated) and carried out with pyautogui and xdotool. Targets are screen points: the host resolves an element
id of its last observation to the centre of that element's box before it sends the action.

Copied into each container with the executor (``pytest_cua.envs.docker.client.executor_bundle``). Standard
library plus pyautogui and xdotool; it does not import pytest_cua (it runs inside the image's own Python).
"""

from __future__ import annotations

import subprocess
import threading
import time
from typing import Any, Callable

_LOCK = threading.Lock()  # one input action at a time
_pyautogui: Any = None

KEY_ALIASES = {
    "return": "enter", "control": "ctrl", "cmd": "win", "meta": "win", "super": "win", "escape": "esc",
    "arrowleft": "left", "arrowright": "right", "arrowup": "up", "arrowdown": "down", "page_up": "pageup",
    "page_down": "pagedown", "pgup": "pageup", "pgdn": "pagedown", "del": "delete", "ins": "insert",
    "spacebar": "space", " ": "space", "option": "alt", "bksp": "backspace",
}
SCROLL_PIXELS_PER_CLICK = 40.0


class ActionRefused(Exception):
    """An action outside the whitelist or with a bad field; the message names the field."""



def gui() -> Any:
    """pyautogui, imported once the display is up (it connects at import)."""
    global _pyautogui
    if _pyautogui is None:
        import pyautogui

        pyautogui.FAILSAFE = False
        pyautogui.PAUSE = 0.01
        _pyautogui = pyautogui
    return _pyautogui

_SIZE: tuple[int, int] | None = None


def screen_size() -> tuple[int, int]:
    global _SIZE
    if _SIZE is None:
        _SIZE = tuple(gui().size())  # type: ignore[assignment]
    return _SIZE  # type: ignore[return-value]

# --- actions ----------------------------------------------------------------------------------------------------

def _point(action: dict, name: str, required: bool = True) -> tuple[int, int] | None:
    value = action.get(name)
    if value is None and not required:
        return None
    if isinstance(value, dict) and set(value) == {"x", "y"}:
        x, y = value["x"], value["y"]
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        x, y = value
    elif isinstance(value, str):
        raise ActionRefused(f"field {name!r}: the executor takes screen points, not element ids ({value!r}); "
                            f"the host resolves an id of its last observation to a point")
    else:
        raise ActionRefused(f"field {name!r} must be a screen point {{'x': .., 'y': ..}}, got {value!r}")
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ActionRefused(f"field {name!r}: coordinates must be numbers, got {v!r}")
    w, h = screen_size()
    if not (0 <= x < w and 0 <= y < h):
        raise ActionRefused(f"field {name!r}: point ({x}, {y}) is outside the screen {w}x{h}")
    return int(round(x)), int(round(y))


def _text(action: dict, name: str) -> str:
    value = action.get(name)
    if not isinstance(value, str):
        raise ActionRefused(f"field {name!r} must be a string, got {value!r}")
    return value


def _number(action: dict, name: str, default: float) -> float:
    value = action.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionRefused(f"field {name!r} must be a number, got {value!r}")
    return float(value)


def key_name(raw: Any) -> str:
    """Normalise a key name (``Enter``, ``Control``, ``ArrowLeft``) and check it against pyautogui's keys."""
    if not isinstance(raw, str) or not raw:
        raise ActionRefused(f"a key must be a non-empty string, got {raw!r}")
    key = raw if len(raw) == 1 else raw.lower()
    key = KEY_ALIASES.get(key.lower() if len(key) > 1 else key, key)
    if key not in gui().KEYBOARD_KEYS:
        raise ActionRefused(f"unknown key {raw!r}")
    return key


def xdotool_type(text: str) -> None:
    """Type text with xdotool (pyautogui's typewrite turns '<' into '>' on some X11 setups)."""
    for i, chunk in enumerate(text.split("\n")):
        if i:
            gui().press("enter")
        if chunk:
            subprocess.run(["xdotool", "type", "--clearmodifiers", "--delay", "8", "--", chunk], check=True,
                           capture_output=True, timeout=60 + len(chunk) * 0.05)


MAX_HOLD_S = 30.0  # the longest hold_key (pytest_cua.actions.MAX_HOLD_S)


def _keys(action: dict, name: str, required: bool = False) -> list[str]:
    """A list of key names (``modifiers``, ``keys``), each checked."""
    value = action.get(name, [])
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value) or (required and not value):
        raise ActionRefused(f"field {name!r} must be a {'non-empty ' if required else ''}list of key names, "
                            f"got {value!r}")
    return [key_name(k) for k in value]


class _Held:
    """Keys held down around an action (a ctrl+click, a shift+scroll): pressed in order, released in reverse
    order, also when the action fails."""

    def __init__(self, keys: list[str]) -> None:
        self.keys, self.pressed = keys, []  # type: ignore[var-annotated]

    def __enter__(self) -> None:
        for key in self.keys:
            gui().keyDown(key)
            self.pressed.append(key)

    def __exit__(self, *exc: object) -> None:
        for key in reversed(self.pressed):
            gui().keyUp(key)


def _button(a: dict) -> str:
    button = a.get("button", "left")
    if button not in ("left", "right", "middle"):
        raise ActionRefused(f"field 'button' must be left, right or middle, got {button!r}")
    return button


def do_click(a: dict) -> None:
    button = _button(a)
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().click(x, y, button=button)


def do_double_click(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    # 50 ms between the clicks, as a hand leaves: with none, a loaded machine lost one of the two clicks (the
    # probe window saw a single press and release in about one double click of seven; none in 40 with 50 ms)
    gui().doubleClick(x, y, interval=0.05)


def do_triple_click(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().click(x, y, clicks=3, interval=0.05)


def do_mouse_down(a: dict) -> None:
    button, point = _button(a), _point(a, "target", required=False)
    if point is not None:
        gui().moveTo(*point)
    gui().mouseDown(button=button)


def do_mouse_up(a: dict) -> None:
    button, point = _button(a), _point(a, "target", required=False)
    if point is not None:
        gui().moveTo(*point)
    gui().mouseUp(button=button)


def do_hold_key(a: dict) -> None:
    keys = _keys(a, "keys", required=True)
    seconds = _number(a, "seconds", 1.0)
    if not 0 < seconds <= MAX_HOLD_S:
        raise ActionRefused(f"field 'seconds' must be more than 0 and at most {MAX_HOLD_S:g}, got {seconds}")
    with _Held(keys):
        time.sleep(seconds)


def do_right_click(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().rightClick(x, y)


def do_move(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().moveTo(x, y)


DRAG_STEPS = 8  # pointer motion events between press and release
DRAG_HOLD_S = 0.1  # pause after the press and before the release


def do_drag(a: dict) -> None:
    sx, sy = _point(a, "source")  # type: ignore[misc]
    dx, dy = _point(a, "destination")  # type: ignore[misc]
    g = gui()
    g.moveTo(sx, sy)
    g.mouseDown(button="left")
    # held a moment at each point: programs start a drag only after motion past a threshold with the button
    # down, and read the drop where the pointer rests when the button comes up
    time.sleep(DRAG_HOLD_S)
    for step in range(1, DRAG_STEPS + 1):
        g.moveTo(sx + (dx - sx) * step // DRAG_STEPS, sy + (dy - sy) * step // DRAG_STEPS)
        time.sleep(DRAG_HOLD_S / DRAG_STEPS)
    time.sleep(DRAG_HOLD_S)
    g.mouseUp(button="left")


def do_scroll(a: dict) -> None:
    point = _point(a, "target", required=False)
    dx, dy = _number(a, "dx", 0), _number(a, "dy", 0)
    g = gui()
    if point is not None:
        g.moveTo(*point)
    if dy:
        g.scroll(-int(round(dy / SCROLL_PIXELS_PER_CLICK)) or (-1 if dy > 0 else 1))
    if dx:
        g.hscroll(int(round(dx / SCROLL_PIXELS_PER_CLICK)) or (1 if dx > 0 else -1))


def do_type(a: dict) -> None:
    text = _text(a, "text")
    point = _point(a, "target", required=False)
    if point is not None:
        gui().click(*point)
    xdotool_type(text)


def do_fill(a: dict) -> None:
    text = _text(a, "text")
    point = _point(a, "target")
    gui().click(*point)  # type: ignore[misc]
    gui().hotkey("ctrl", "a")
    xdotool_type(text)


def do_clear(a: dict) -> None:
    point = _point(a, "target")
    gui().click(*point)  # type: ignore[misc]
    gui().hotkey("ctrl", "a")
    gui().press("delete")


def do_press(a: dict) -> None:
    gui().press(key_name(a.get("key")))


def do_hotkey(a: dict) -> None:
    keys = a.get("keys")
    if not isinstance(keys, list) or not keys:
        raise ActionRefused(f"field 'keys' must be a non-empty list of key names, got {keys!r}")
    gui().hotkey(*[key_name(k) for k in keys], interval=0.02)


def find_window(pattern: str) -> str | None:
    """The id of a shown window whose title matches ``pattern`` (xdotool's regular expression), or None."""
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", pattern], capture_output=True, text=True,
                           timeout=5)
    ids = found.stdout.split()
    return ids[0] if ids else None


# when the task started (``mark_task``, sent once its programs are up): a ``wait`` on a ``file`` ends when the
# file was written after it
_TASK = {"started": 0.0}


def mark_task(request: dict) -> dict:
    _TASK["started"] = time.time()
    return {"started": _TASK["started"]}


def _written(path: str) -> bool:
    """Was ``path`` written since the task started, and is its size the same 0.2 s later (the writer done)?"""
    import os

    try:
        first = os.stat(path)
        if first.st_mtime < _TASK["started"]:
            return False
        time.sleep(0.2)
        second = os.stat(path)
    except OSError:
        return False
    return (second.st_size, second.st_mtime_ns) == (first.st_size, first.st_mtime_ns)


def do_wait(a: dict) -> None:
    """Sleep ``seconds``; with a condition, only until it holds (polled): ``window``, a window whose title
    matches shows; ``window_gone``, none does; ``file``, that file was written since the task started."""
    seconds = _number(a, "seconds", 1.0)
    if not 0 <= seconds <= 60:
        raise ActionRefused(f"field 'seconds' must be between 0 and 60, got {seconds}")
    given = {name: a[name] for name in ("window", "window_gone", "file") if a.get(name) is not None}
    if not given:
        time.sleep(seconds)
        return
    if len(given) > 1:
        raise ActionRefused(f"a wait has one condition, got {', '.join(sorted(given))}")
    (name, value), = given.items()
    limit = 4096 if name == "file" else 200
    if not isinstance(value, str) or not 0 < len(value) <= limit or (name == "file" and not value.startswith("/")):
        raise ActionRefused(f"field {name!r} must be {'an absolute path' if name == 'file' else 'a title pattern'} "
                            f"of at most {limit} characters, got {value!r}")
    holds: Callable[[], bool] = {
        "window": lambda: find_window(value) is not None,
        "window_gone": lambda: find_window(value) is None,
        "file": lambda: _written(value),
    }[name]
    deadline, delay = time.monotonic() + seconds, 0.05
    while not holds() and time.monotonic() < deadline:
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.5)


OPS = {"mark_task": mark_task}


ACTIONS: dict[str, tuple[Callable[[dict], None], frozenset[str]]] = {
    # pointer actions may hold modifier keys (``modifiers``) for their duration: ``act`` presses them
    "click": (do_click, frozenset({"target", "button", "modifiers"})),
    "double_click": (do_double_click, frozenset({"target", "modifiers"})),
    "triple_click": (do_triple_click, frozenset({"target", "modifiers"})),
    "right_click": (do_right_click, frozenset({"target", "modifiers"})),
    "move": (do_move, frozenset({"target", "modifiers"})),
    "hover": (do_move, frozenset({"target"})),
    "mouse_down": (do_mouse_down, frozenset({"target", "button", "modifiers"})),
    "mouse_up": (do_mouse_up, frozenset({"target", "button", "modifiers"})),
    "drag": (do_drag, frozenset({"source", "destination", "modifiers"})),
    "scroll": (do_scroll, frozenset({"dx", "dy", "target", "modifiers"})),
    "hold_key": (do_hold_key, frozenset({"keys", "seconds"})),
    "type": (do_type, frozenset({"text", "target"})),
    "fill": (do_fill, frozenset({"target", "text"})),
    "clear": (do_clear, frozenset({"target"})),
    "press": (do_press, frozenset({"key"})),
    "hotkey": (do_hotkey, frozenset({"keys"})),
    "wait": (do_wait, frozenset({"seconds", "window", "window_gone", "file"})),
}


def act(action: Any) -> None:
    """Validate one action dict against the whitelist and carry it out."""
    if not isinstance(action, dict):
        raise ActionRefused(f"an action must be an object, got {type(action).__name__}")
    kind = action.get("type")
    entry = ACTIONS.get(kind) if isinstance(kind, str) else None
    if entry is None:
        raise ActionRefused(f"action type {kind!r} is not supported on the desktop "
                            f"(supported: {', '.join(sorted(ACTIONS))})")
    handler, fields = entry
    extra = sorted(set(action) - fields - {"type"})
    if extra:
        raise ActionRefused(f"action {kind!r} has no field {extra[0]!r}")
    with _LOCK:
        with _Held(_keys(action, "modifiers")):
            handler(action)
