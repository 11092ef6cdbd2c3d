#!/usr/bin/env python3
"""Recording of human input on the X display, as pytest-cua actions (human takeover), inside the container.

Ops (loaded by the executor beside this file, ``OPS``):

    record_start {}                 start recording (again: the buffer is emptied)     -> {"started": bool}
    record_poll  {"discard": false} what was recorded since the last poll, then empty  -> {"items": [...]}
    record_stop  {}                 stop; what was left                                -> {"items": [...]}

The recorder uses the X RECORD extension (python3-xlib): every core key and button event the server
processes, whoever sent it (x11vnc on behalf of a viewer, xdotool, pyautogui). It does not know who sent an
event: the host asks for it only while the agent is paused.

``items`` are typed action dicts (``pytest_cua.actions.Action.to_dict()`` form), in order:

- a button press and release at (nearly) the same point: ``click`` (left; ``button: "middle"`` for the
  middle one), ``right_click``; two left clicks within ``DOUBLE_CLICK_MS`` at the same point: ``double_click``;
  a left press and a release ``DRAG_PX`` or more away: ``drag`` from source to destination;
- wheel buttons 4/5 (6/7): ``scroll`` with ``dy`` (``dx``) of ``SCROLL_PX`` per notch at the pointer, notches
  at one point merged;
- printable characters typed with no modifier but Shift (and Caps Lock): one ``type`` per run;
- any other key (Return, Tab, arrows, F-keys, ...): ``press``; a key with Ctrl, Alt or Super held: ``hotkey``
  with the modifiers first;
- the hand key (``HAND_KEY``, Pause): ``{"type": "toggle"}``, not an action: the human asks for control or
  gives it back. The host reads it; it is never played.

Key names are the executor's (pyautogui's): ``enter``, ``esc``, ``pageup``, ``ctrl``, ``f5``.

Standard library plus python3-xlib (imported when recording starts); it does not import pytest_cua. The
translation (``compile_events``) is pure and runs anywhere.
"""

from __future__ import annotations

import threading
from typing import Any

HAND_KEY = "Pause"  # the X keysym name of the key that asks for control and gives it back
DOUBLE_CLICK_MS = 500
DRAG_PX = 6
SCROLL_PX = 40.0  # the executor's pixels per wheel notch

MODIFIERS = {"Shift_L": "shift", "Shift_R": "shift", "Control_L": "ctrl", "Control_R": "ctrl", "Alt_L": "alt",
             "Alt_R": "alt", "Meta_L": "alt", "Meta_R": "alt", "Super_L": "win", "Super_R": "win",
             "ISO_Level3_Shift": "altgr", "Caps_Lock": "capslock", "Num_Lock": "numlock"}
MODIFIER_ORDER = ("ctrl", "alt", "shift", "win")
KEY_NAMES = {
    "Return": "enter", "KP_Enter": "enter", "BackSpace": "backspace", "Tab": "tab", "ISO_Left_Tab": "tab",
    "Escape": "esc", "Delete": "delete", "KP_Delete": "delete", "Insert": "insert", "Home": "home", "End": "end",
    "Prior": "pageup", "Next": "pagedown", "Left": "left", "Right": "right", "Up": "up", "Down": "down",
    "KP_Home": "home", "KP_End": "end", "KP_Prior": "pageup", "KP_Next": "pagedown", "KP_Left": "left",
    "KP_Right": "right", "KP_Up": "up", "KP_Down": "down", "space": "space", "Menu": "apps",
    "Print": "printscreen", "Scroll_Lock": "scrolllock", "Pause": "pause", "Page_Up": "pageup",
    "Page_Down": "pagedown", "KP_Page_Up": "pageup", "KP_Page_Down": "pagedown",
}
KEY_PRESS, KEY_RELEASE, BUTTON_PRESS, BUTTON_RELEASE = 2, 3, 4, 5


def keysym_char(keysym: int) -> str | None:
    """The character a keysym types, or None (function keys, modifiers): Latin-1 keysyms are their code
    point, Unicode keysyms 0x01000000 + code point, keypad digits and operators their character."""
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if 0x01000100 <= keysym <= 0x0110FFFF:
        return chr(keysym - 0x01000000)
    if 0xFFB0 <= keysym <= 0xFFB9:  # KP_0 .. KP_9
        return chr(keysym - 0xFFB0 + ord("0"))
    return {0xFFAA: "*", 0xFFAB: "+", 0xFFAD: "-", 0xFFAE: ".", 0xFFAF: "/"}.get(keysym)


def compile_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Typed action dicts from raw events, in order. An event: ``{"kind": "key", "down": bool, "name": keysym
    name, "char": its character or None, "base": the unshifted key's name}`` or ``{"kind": "button", "down":
    bool, "button": n, "x": .., "y": .., "time": ms}``."""
    out: list[dict[str, Any]] = []
    held: set[str] = set()
    typed: list[str] = []
    pressed: dict[int, dict[str, Any]] = {}
    last_click: dict[str, Any] | None = None  # the last left click: for a double click

    def flush() -> None:
        if typed:
            out.append({"type": "type", "text": "".join(typed)})
            typed.clear()

    for e in events:
        if e.get("kind") == "key":
            name = str(e.get("name") or "")
            modifier = MODIFIERS.get(name)
            if modifier is not None:
                (held.add if e.get("down") else held.discard)(modifier)
                continue
            if not e.get("down"):
                continue
            if name == HAND_KEY:
                flush()
                out.append({"type": "toggle"})
                last_click = None
                continue
            chord = [m for m in MODIFIER_ORDER if m in held and m != "shift"]
            char = e.get("char")
            if not chord and char and char.isprintable():
                typed.append(char)
                continue
            flush()
            last_click = None
            key = KEY_NAMES.get(name) or _key_from(e)
            if chord or ("shift" in held and not char):
                mods = [m for m in MODIFIER_ORDER if m in held]
                base = KEY_NAMES.get(str(e.get("base") or "")) or _key_from(e, base=True)
                out.append({"type": "hotkey", "keys": [*mods, base]})
            else:
                out.append({"type": "press", "key": key})
            continue
        if e.get("kind") != "button":
            continue
        button, point = int(e.get("button", 0)), {"x": int(e.get("x", 0)), "y": int(e.get("y", 0))}
        if button in (4, 5, 6, 7):
            if not e.get("down"):
                continue
            flush()
            dx = {6: -SCROLL_PX, 7: SCROLL_PX}.get(button, 0.0)
            dy = {4: -SCROLL_PX, 5: SCROLL_PX}.get(button, 0.0)
            prev = out[-1] if out else None
            if prev is not None and prev["type"] == "scroll" and _near(prev["target"], point, DRAG_PX):
                prev["dx"] += dx
                prev["dy"] += dy
            else:
                out.append({"type": "scroll", "dx": dx, "dy": dy, "target": point})
            last_click = None
            continue
        if e.get("down"):
            flush()
            pressed[button] = {"point": point, "time": int(e.get("time", 0))}
            continue
        start = pressed.pop(button, None)
        if start is None:  # released a button pressed before recording started
            continue
        if button == 1 and not _near(start["point"], point, DRAG_PX):
            out.append({"type": "drag", "source": start["point"], "destination": point})
            last_click = None
        elif button == 1:
            if last_click is not None and out and out[-1] is last_click["action"] \
                    and start["time"] - last_click["time"] <= DOUBLE_CLICK_MS \
                    and _near(last_click["action"]["target"], start["point"], DRAG_PX):
                out[-1] = {"type": "double_click", "target": last_click["action"]["target"]}
                last_click = None
            else:
                action = {"type": "click", "target": start["point"]}
                out.append(action)
                last_click = {"action": action, "time": start["time"]}
        elif button == 3:
            out.append({"type": "right_click", "target": start["point"]})
            last_click = None
        elif button == 2:
            out.append({"type": "click", "target": start["point"], "button": "middle"})
            last_click = None
    flush()
    return out


def _near(a: dict[str, Any], b: dict[str, Any], distance: float) -> bool:
    return abs(a["x"] - b["x"]) < distance and abs(a["y"] - b["y"]) < distance


def _key_from(e: dict[str, Any], base: bool = False) -> str:
    """A key's executor name from its keysym name: letters and digits lower-cased (``a``), F-keys ``f5``,
    punctuation its character (``+``)."""
    name = str(e.get("base") if base and e.get("base") else e.get("name") or "")
    if name in KEY_NAMES:
        return KEY_NAMES[name]
    if len(name) == 1:
        return name.lower()
    if name[:1] == "F" and name[1:].isdigit():
        return name.lower()
    char = e.get("base_char") if base else e.get("char")
    if isinstance(char, str) and len(char) == 1:
        return char.lower()
    return name.lower()


# --- the recorder (X RECORD) ------------------------------------------------------------------------------------

class Recorder:
    """Records core key and button events of every client on a background thread."""

    def __init__(self) -> None:
        from Xlib import X, XK, display  # type: ignore[import-untyped,import-not-found,unused-ignore]
        from Xlib.ext import record  # type: ignore[import-untyped,import-not-found,unused-ignore]

        self._X, self._XK, self._record = X, XK, record
        self.control = display.Display()  # enable/disable and keysym lookups
        self.data = display.Display()  # the recording connection (blocks in enable_context)
        if not self.data.has_extension("RECORD"):
            raise RuntimeError("the X server has no RECORD extension: human input cannot be recorded")
        self.context = self.data.record_create_context(0, [record.AllClients], [{
            "core_requests": (0, 0), "core_replies": (0, 0), "ext_requests": (0, 0, 0, 0),
            "ext_replies": (0, 0, 0, 0), "delivered_events": (0, 0),
            "device_events": (KEY_PRESS, BUTTON_RELEASE), "errors": (0, 0),
            "client_started": False, "client_died": False}])
        self.lock = threading.Lock()
        self.events: list[dict[str, Any]] = []
        self._names: dict[int, str] | None = None
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name="cua-record", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.data.record_enable_context(self.context, self._callback)
        except Exception as exc:  # noqa: BLE001 - reported by the next poll
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            try:
                self.data.record_free_context(self.context)
            except Exception:  # noqa: BLE001
                pass

    def _callback(self, reply: Any) -> None:
        from Xlib.protocol import rq  # type: ignore[import-untyped,import-not-found,unused-ignore]

        if reply.category != self._record.FromServer or reply.client_swapped or not len(reply.data):
            return
        data = reply.data
        while len(data):
            event, data = rq.EventField(None).parse_binary_value(data, self.data.display, None, None)
            item = self._event(event)
            if item is not None:
                with self.lock:
                    self.events.append(item)

    def _event(self, event: Any) -> dict[str, Any] | None:
        X = self._X
        if event.type in (X.ButtonPress, X.ButtonRelease):
            return {"kind": "button", "down": event.type == X.ButtonPress, "button": int(event.detail),
                    "x": int(event.root_x), "y": int(event.root_y), "time": int(event.time)}
        if event.type not in (X.KeyPress, X.KeyRelease):
            return None
        shift = bool(event.state & X.ShiftMask)
        caps = bool(event.state & X.LockMask)
        base = self.control.keycode_to_keysym(event.detail, 0)
        keysym = self.control.keycode_to_keysym(event.detail, 1 if shift else 0) or base
        char = keysym_char(keysym)
        if char is not None and caps and char.isalpha() and len(char) == 1:
            char = char.lower() if shift else char.upper()
        return {"kind": "key", "down": event.type == X.KeyPress, "name": self._keysym_name(keysym), "char": char,
                "base": self._keysym_name(base), "base_char": keysym_char(base)}

    def _keysym_name(self, keysym: int) -> str:
        """The keysym's X name (``Return``, ``a``, ``F5``); the first of several names of one keysym."""
        if self._names is None:
            self._names = {}
            for name in sorted(n for n in dir(self._XK) if n.startswith("XK_")):
                self._names.setdefault(getattr(self._XK, name), name[3:])
        return self._names.get(keysym, "")

    def drain(self) -> list[dict[str, Any]]:
        with self.lock:
            events, self.events = self.events, []
        if self.error:
            raise RuntimeError(f"the X RECORD recorder stopped: {self.error}")
        return events

    def stop(self) -> list[dict[str, Any]]:
        try:
            self.control.record_disable_context(self.context)
            self.control.flush()
        except Exception:  # noqa: BLE001 - the server is gone: nothing more to record
            pass
        self.thread.join(5)
        events = self.drain() if self.error is None else []
        for d in (self.control, self.data):
            try:
                d.close()
            except Exception:  # noqa: BLE001
                pass
        return events


_RECORDER: Recorder | None = None
_PENDING: list[dict[str, Any]] = []  # key and button events whose action is not complete yet (a held button)


def _compile(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Compile what came since the last poll; a press whose release has not come yet waits for it."""
    global _PENDING
    events = _PENDING + events
    held = _open_press(events)
    _PENDING = events[held:] if held is not None else []
    return compile_events(events[:held] if held is not None else events)


def _open_press(events: list[dict[str, Any]]) -> int | None:
    """Index of the earliest button press not yet released (its click or drag is not known yet)."""
    open_at: dict[int, int] = {}
    for i, e in enumerate(events):
        if e.get("kind") == "button" and int(e.get("button", 0)) in (1, 2, 3):
            if e.get("down"):
                open_at.setdefault(int(e["button"]), i)
            else:
                open_at.pop(int(e["button"]), None)
    return min(open_at.values()) if open_at else None


def record_start(request: dict[str, Any]) -> dict[str, Any]:
    global _RECORDER, _PENDING
    _PENDING = []
    if _RECORDER is not None and _RECORDER.thread.is_alive():
        _RECORDER.drain()
        return {"started": False}
    _RECORDER = Recorder()
    return {"started": True}


def record_poll(request: dict[str, Any]) -> dict[str, Any]:
    global _PENDING
    if _RECORDER is None:
        raise RuntimeError("not recording: record_start first")
    events = _RECORDER.drain()
    if request.get("discard"):
        _PENDING = []
        return {"items": [], "discarded": len(events)}
    return {"items": _compile(events)}


def record_stop(request: dict[str, Any]) -> dict[str, Any]:
    global _RECORDER, _PENDING
    recorder, _RECORDER = _RECORDER, None
    if recorder is None:
        return {"items": []}
    events = recorder.stop()
    items = compile_events(_PENDING + events)
    _PENDING = []
    return {"items": items}


OPS = {"record_start": record_start, "record_poll": record_poll, "record_stop": record_stop}
