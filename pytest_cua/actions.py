"""The unified action space: one typed set of actions shared by every agent and environment.

Agents return these; environments carry them out. Nothing here executes anything: an action is plain
data, built from a dict (``Action.from_dict``) or from an agent's raw output (``pytest_cua.agents.action_parser``).

A *target* is either an element id issued by the last observation (``"e12"``) or a screen point (x, y).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Union


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


@dataclass(frozen=True)
class Action:
    """Base of every action. ``kind`` is the wire name (``{"type": kind, ...}``)."""

    kind: ClassVar[str] = ""
    terminal: ClassVar[bool] = False

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
            if f.name in ("target", "source", "destination"):
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


ACTION_TYPES: dict[str, type[Action]] = {}


def _register(cls: type[Action]) -> type[Action]:
    ACTION_TYPES[cls.kind] = cls
    return cls


# --- pointer -------------------------------------------------------------------------------------------

@_register
@dataclass(frozen=True)
class Click(Action):
    kind: ClassVar[str] = "click"
    target: Target
    button: str = "left"


@_register
@dataclass(frozen=True)
class DoubleClick(Action):
    kind: ClassVar[str] = "double_click"
    target: Target


@_register
@dataclass(frozen=True)
class RightClick(Action):
    kind: ClassVar[str] = "right_click"
    target: Target


@_register
@dataclass(frozen=True)
class Hover(Action):
    kind: ClassVar[str] = "hover"
    target: Target


@_register
@dataclass(frozen=True)
class Move(Action):
    """Move the pointer without clicking (desktop environments)."""

    kind: ClassVar[str] = "move"
    target: Target


@_register
@dataclass(frozen=True)
class Drag(Action):
    kind: ClassVar[str] = "drag"
    source: Target
    destination: Target


@_register
@dataclass(frozen=True)
class Scroll(Action):
    """Scroll by (dx, dy) pixels; positive dy scrolls down. At ``target`` when given."""

    kind: ClassVar[str] = "scroll"
    dx: float = 0
    dy: float = 0
    target: Target | None = None


# --- keyboard and forms --------------------------------------------------------------------------------

@_register
@dataclass(frozen=True)
class Fill(Action):
    """Replace the value of an input with ``text``."""

    kind: ClassVar[str] = "fill"
    target: Target
    text: str


@_register
@dataclass(frozen=True)
class Type(Action):
    """Type ``text`` key by key, into ``target`` when given, else where the focus is."""

    kind: ClassVar[str] = "type"
    text: str
    target: Target | None = None


@_register
@dataclass(frozen=True)
class Clear(Action):
    kind: ClassVar[str] = "clear"
    target: Target


@_register
@dataclass(frozen=True)
class SelectOption(Action):
    """Choose an option of a select by its label (or value)."""

    kind: ClassVar[str] = "select_option"
    target: Target
    option: str


@_register
@dataclass(frozen=True)
class Check(Action):
    kind: ClassVar[str] = "check"
    target: Target


@_register
@dataclass(frozen=True)
class Uncheck(Action):
    kind: ClassVar[str] = "uncheck"
    target: Target


@_register
@dataclass(frozen=True)
class Press(Action):
    """Press one key (``Enter``, ``Tab``, ``a``)."""

    kind: ClassVar[str] = "press"
    key: str


@_register
@dataclass(frozen=True)
class Hotkey(Action):
    """Press keys together (``["ctrl", "s"]``)."""

    kind: ClassVar[str] = "hotkey"
    keys: tuple[str, ...]


# --- navigation ----------------------------------------------------------------------------------------

@_register
@dataclass(frozen=True)
class GoTo(Action):
    kind: ClassVar[str] = "goto"
    url: str


@_register
@dataclass(frozen=True)
class Back(Action):
    kind: ClassVar[str] = "back"


@_register
@dataclass(frozen=True)
class Forward(Action):
    kind: ClassVar[str] = "forward"


@_register
@dataclass(frozen=True)
class NewTab(Action):
    kind: ClassVar[str] = "new_tab"
    url: str | None = None


@_register
@dataclass(frozen=True)
class SwitchTab(Action):
    kind: ClassVar[str] = "switch_tab"
    index: int


@_register
@dataclass(frozen=True)
class CloseTab(Action):
    kind: ClassVar[str] = "close_tab"
    index: int | None = None


@_register
@dataclass(frozen=True)
class Wait(Action):
    kind: ClassVar[str] = "wait"
    seconds: float = 1.0


# --- terminal and human-in-the-loop ------------------------------------------------------------------------

@_register
@dataclass(frozen=True)
class Answer(Action):
    """The agent's answer to a question task; ends the episode."""

    kind: ClassVar[str] = "answer"
    terminal: ClassVar[bool] = True
    text: str


@_register
@dataclass(frozen=True)
class Done(Action):
    kind: ClassVar[str] = "done"
    terminal: ClassVar[bool] = True


@_register
@dataclass(frozen=True)
class Fail(Action):
    """The agent gives up, saying why."""

    kind: ClassVar[str] = "fail"
    terminal: ClassVar[bool] = True
    reason: str = ""


@_register
@dataclass(frozen=True)
class Ask(Action):
    """Ask a human; the answer comes back in the next observation."""

    kind: ClassVar[str] = "ask"
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
