"""The unified action space: one typed set of actions shared by every agent and environment.

Agents return these; environments carry them out. Nothing here executes anything: an action is plain
data, built from a dict (``Action.from_dict``) or from an agent's raw output (``pytest_cua.agents.action_parser``).

A *target* is either an element id issued by the last observation (``"e12"``) or a screen point (x, y).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Union, dataclass_transform


class ActionError(ValueError):
    """An action that cannot be built: unknown type, missing or ill-typed field.

    The message names the action type and the field, so it can be shown to the agent as-is.
    """


@dataclass(frozen=True)
class Point:
    x: float
    y: float


Target = Union[str, Point]
"""An element id from the current observation, or a screen point."""


TARGET_FIELDS: tuple[str, ...] = ("target", "source", "destination")
"""The fields that hold a ``Target``; a semantic locator in one is resolved by ``pytest_cua.agents.builtin``."""

ACTION_TYPES: dict[str, type["Action"]] = {}
"""Every action type by its wire name (``kind``); an ``Action`` subclass registers itself here."""


@dataclass_transform(frozen_default=True)
@dataclass(frozen=True)
class Action:
    """Base of every action. ``kind`` is the wire name (``{"type": kind, ...}``).

    An action type declares only what is its own: its wire name (and ``terminal=True`` when it ends the
    episode) as class keywords, its fields as annotations::

        class Fill(Action, kind="fill"):
            target: Target
            text: str

    Defining the subclass makes it a frozen dataclass and registers it in ``ACTION_TYPES``. Building one
    from a dict, checking its fields, its dict form and its short description are this base class's, driven
    by the fields' annotations (``Target`` fields: ``TARGET_FIELDS``).
    """

    kind: ClassVar[str] = ""
    terminal: ClassVar[bool] = False

    def __init_subclass__(cls, *, kind: str, terminal: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind in ACTION_TYPES:
            raise TypeError(f"action kind {kind!r} is taken by {ACTION_TYPES[kind].__name__}")
        cls.kind, cls.terminal = kind, terminal
        dataclass(frozen=True)(cls)
        ACTION_TYPES[kind] = cls

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Point):
                value = {"x": value.x, "y": value.y}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> "Action":
        """Build a typed action from ``{"type": "click", "target": "e3"}``-style data."""
        if not isinstance(data, Mapping):
            raise ActionError(f"an action must be an object with a 'type', got {type(data).__name__}")
        kind = data.get("type")
        cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
        if cls is None:
            known = ", ".join(sorted(ACTION_TYPES))
            raise ActionError(f"unknown action type {kind!r}; known types: {known}")
        kwargs: dict[str, Any] = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in data.items():
            if key == "type":
                continue
            if key not in fields:
                raise ActionError(f"action {kind!r} has no field {key!r} (fields: {', '.join(fields) or 'none'})")
            kwargs[key] = value
        try:
            action = cls(**kwargs)
        except TypeError as exc:
            missing = [n for n, f in fields.items() if n not in kwargs and f.default is dataclasses.MISSING
                       and f.default_factory is dataclasses.MISSING]
            raise ActionError(f"action {kind!r} is missing field(s): {', '.join(missing)}") from exc
        action.validate()
        return action

    def validate(self) -> None:
        """Check field types; raise ActionError naming the field."""
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in TARGET_FIELDS:
                if value is None and f.default is None:
                    continue
                object.__setattr__(self, f.name, _coerce_target(self.kind, f.name, value))
            elif f.type in ("str", "str | None") and value is not None and not isinstance(value, str):
                raise ActionError(f"action {self.kind!r} field {f.name!r} must be a string, got {value!r}")
            elif f.type in ("float", "int", "float | None", "int | None") and value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ActionError(f"action {self.kind!r} field {f.name!r} must be a number, got {value!r}")
            elif f.type == "tuple[str, ...]":
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise ActionError(f"action {self.kind!r} field {f.name!r} must be a list of strings")
                object.__setattr__(self, f.name, tuple(value))
                if f.name == "modifiers":
                    object.__setattr__(self, f.name, modifier_names(self.kind, value))
        self.check()

    def check(self) -> None:
        """An action type's own rules on its field values, after their types are checked (none by default);
        raise ActionError naming the field."""

    def describe(self) -> str:
        """A short human-readable form, used in step names and logs."""
        parts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None or value == f.default and f.name not in ("text",):
                continue
            if isinstance(value, Point):
                value = f"({value.x:g}, {value.y:g})"
            elif isinstance(value, str):
                value = repr(value if len(value) <= 60 else value[:57] + "...")
            parts.append(f"{f.name}={value}")
        return f"{self.kind}({', '.join(parts)})"


MAX_HOLD_S = 30.0
"""The longest ``hold_key``: a held key blocks the environment for that long."""


def modifier_names(kind: str, names: Any) -> tuple[str, ...]:
    """Modifier key names in canonical form (``("CTRL", "Shift")`` -> ``("ctrl", "shift")``), each once; an
    unknown name is an ActionError naming it and the known ones."""
    out: list[str] = []
    for name in names:
        canonical = MODIFIERS.get(str(name).strip().lower())
        if canonical is None:
            raise ActionError(f"action {kind!r} field 'modifiers': {name!r} is not a modifier key "
                              f"(known: {', '.join(sorted(set(MODIFIERS)))})")
        if canonical not in out:
            out.append(canonical)
    return tuple(out)


def _coerce_target(kind: str, name: str, value: Any) -> Target:
    if isinstance(value, Point):
        return value
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and set(value) == {"x", "y"}:
        return _point(kind, name, value["x"], value["y"])
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return _point(kind, name, value[0], value[1])
    raise ActionError(f"action {kind!r} field {name!r} must be an element id or a point [x, y], got {value!r}")


def _point(kind: str, name: str, x: Any, y: Any) -> Point:
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ActionError(f"action {kind!r} field {name!r}: coordinates must be numbers, got {v!r}")
    return Point(float(x), float(y))


# --- pointer -------------------------------------------------------------------------------------------
# ``modifiers``: keys held down during a pointer action (``("ctrl",)``, ``("ctrl", "shift")``), pressed before
# it and released after it, in reverse order: a ctrl+click, a shift+scroll. Names as ``MODIFIERS`` lists.

MODIFIERS: dict[str, str] = {"ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt", "option": "alt",
                             "meta": "meta", "cmd": "meta", "command": "meta", "super": "meta", "win": "meta",
                             "windows": "meta"}
"""Modifier key names a pointer action may hold, each to its canonical name (ctrl, shift, alt, meta)."""


class Click(Action, kind="click"):
    target: Target
    button: str = "left"
    modifiers: tuple[str, ...] = ()


class DoubleClick(Action, kind="double_click"):
    target: Target
    modifiers: tuple[str, ...] = ()


class TripleClick(Action, kind="triple_click"):
    """Three clicks in a row (a paragraph or a line selected)."""

    target: Target
    modifiers: tuple[str, ...] = ()


class RightClick(Action, kind="right_click"):
    target: Target
    modifiers: tuple[str, ...] = ()


class Hover(Action, kind="hover"):
    target: Target


class Move(Action, kind="move"):
    """Move the pointer without clicking (a button held down by ``mouse_down`` drags)."""

    target: Target
    modifiers: tuple[str, ...] = ()


class MouseDown(Action, kind="mouse_down"):
    """Press a mouse button and keep it down (at ``target``, else where the pointer is), until ``mouse_up``."""

    target: Target | None = None
    button: str = "left"
    modifiers: tuple[str, ...] = ()

    def check(self) -> None:
        _check_button(self.kind, self.button)


class MouseUp(Action, kind="mouse_up"):
    """Release a mouse button (at ``target``, else where the pointer is)."""

    target: Target | None = None
    button: str = "left"
    modifiers: tuple[str, ...] = ()

    def check(self) -> None:
        _check_button(self.kind, self.button)


def _check_button(kind: str, button: str) -> None:
    if button not in ("left", "right", "middle"):
        raise ActionError(f"action {kind!r} field 'button' must be left, right or middle, got {button!r}")


class Drag(Action, kind="drag"):
    source: Target
    destination: Target
    modifiers: tuple[str, ...] = ()


class Scroll(Action, kind="scroll"):
    """Scroll by (dx, dy) pixels; positive dy scrolls down. At ``target`` when given."""

    dx: float = 0
    dy: float = 0
    target: Target | None = None
    modifiers: tuple[str, ...] = ()


# --- keyboard and forms --------------------------------------------------------------------------------

class Fill(Action, kind="fill"):
    """Replace the value of an input with ``text``."""

    target: Target
    text: str


class Type(Action, kind="type"):
    """Type ``text`` key by key, into ``target`` when given, else where the focus is."""

    text: str
    target: Target | None = None


class Clear(Action, kind="clear"):
    target: Target


class SelectOption(Action, kind="select_option"):
    """Choose an option of a select by its label (or value)."""

    target: Target
    option: str


class Check(Action, kind="check"):
    target: Target


class Uncheck(Action, kind="uncheck"):
    target: Target


class Press(Action, kind="press"):
    """Press one key (``Enter``, ``Tab``, ``a``)."""

    key: str


class Hotkey(Action, kind="hotkey"):
    """Press keys together (``["ctrl", "s"]``)."""

    keys: tuple[str, ...]


class HoldKey(Action, kind="hold_key"):
    """Hold keys down together for ``seconds`` (at most ``MAX_HOLD_S``), then release them."""

    keys: tuple[str, ...]
    seconds: float = 1.0

    def check(self) -> None:
        if not self.keys:
            raise ActionError("action 'hold_key' field 'keys' must name at least one key")
        if not 0 < self.seconds <= MAX_HOLD_S:
            raise ActionError(f"action 'hold_key' field 'seconds' must be more than 0 and at most {MAX_HOLD_S:g}, "
                              f"got {self.seconds!r}")


# --- navigation ----------------------------------------------------------------------------------------

class GoTo(Action, kind="goto"):
    url: str


class Back(Action, kind="back"):
    """Go back in the tab's history."""


class Forward(Action, kind="forward"):
    """Go forward in the tab's history."""


class NewTab(Action, kind="new_tab"):
    url: str | None = None


class SwitchTab(Action, kind="switch_tab"):
    index: int


class CloseTab(Action, kind="close_tab"):
    index: int | None = None


MAX_WINDOW_PATTERN = 200
MAX_PATH = 4096


class Wait(Action, kind="wait"):
    """Wait ``seconds``; on a desktop, only until a condition holds (at most ``seconds``), the first of:
    ``window`` (a regular expression for a window's title) until such a window shows (a dialog a key press
    opens); ``window_gone`` until no such window shows (a dialog closed); ``file`` (an absolute path in the
    environment) until that file was written since the task started and its size stopped changing (a save)."""

    seconds: float = 1.0
    window: str | None = None
    window_gone: str | None = None
    file: str | None = None

    CONDITIONS = ("window", "window_gone", "file")

    def check(self) -> None:
        for name in ("window", "window_gone"):
            value = getattr(self, name)
            if value is not None and not 0 < len(value) <= MAX_WINDOW_PATTERN:
                raise ActionError(f"action 'wait' field {name!r} must be a title pattern of 1 to "
                                  f"{MAX_WINDOW_PATTERN} characters, got {len(value)}")
        if self.file is not None and not (self.file.startswith("/") and 1 < len(self.file) <= MAX_PATH):
            raise ActionError(f"action 'wait' field 'file' must be an absolute path of at most {MAX_PATH} "
                              f"characters, got {self.file[:80]!r}")
        given = self._given()
        if len(given) > 1:
            raise ActionError(f"action 'wait' waits for one condition; got {' and '.join(given)}")

    def _given(self) -> list[str]:
        return [name for name in self.CONDITIONS if getattr(self, name) is not None]

    @property
    def condition(self) -> str | None:
        """The desktop condition the wait ends on (its field's name), None for a plain pause."""
        return next(iter(self._given()), None)


# --- terminal and human-in-the-loop ------------------------------------------------------------------------

class Answer(Action, kind="answer", terminal=True):
    """The agent's answer to a question task; ends the episode."""

    text: str


class Done(Action, kind="done", terminal=True):
    """The agent says the task is done; ends the episode."""


class Fail(Action, kind="fail", terminal=True):
    """The agent gives up, saying why."""

    reason: str = ""


class Ask(Action, kind="ask"):
    """Ask a human; the answer comes back in the next observation."""

    question: str


@dataclass
class ActionResult:
    """What came of one action. A failed action is data for the next observation, never a crash."""

    action: Action
    ok: bool = True
    error: str | None = None
    duration_s: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.to_dict(), "ok": self.ok, "error": self.error,
                "duration_s": round(self.duration_s, 4), "detail": self.detail}


def actions_from_dicts(items: Any, *, where: str = "actions") -> list[Action]:
    """Build a list of actions from a list of dicts; errors name the position (``where[3]``)."""
    if not isinstance(items, list):
        raise ActionError(f"{where} must be a list of action objects, got {type(items).__name__}")
    out = []
    for i, item in enumerate(items):
        try:
            out.append(Action.from_dict(item))
        except ActionError as exc:
            raise ActionError(f"{where}[{i}]: {exc}") from None
    return out
