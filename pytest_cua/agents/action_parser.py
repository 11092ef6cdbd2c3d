"""Turn an agent's raw output into typed actions (``pytest_cua.actions``). Nothing here executes anything.

Accepted formats (``parse_actions`` picks the right one):

* typed actions and our own wire form: ``{"type": "click", "target": "e3"}``;
* function calls, OpenAI / Anthropic tool-call style: ``{"name": "click", "arguments": {"element_id": "e3"}}``
  (``arguments`` may be a JSON string; ``input``/``args``/``parameters`` are accepted too), OpenAI's
  ``{"type": "function", "function": {...}}`` wrapper, Anthropic's ``{"type": "tool_use", ...}`` blocks and the
  computer-use tool (``{"name": "computer", "input": {"action": "left_click", "coordinate": [x, y]}}``);
  a list of any of these;
* browser-use style action dicts: ``{"click_element": {"index": 5}}``, ``{"input_text": {"index": 3,
  "text": "x"}}``, ``{"go_to_url": {"url": ...}}``, ``{"done": {"text": ...}}``; also wrapped as
  ``{"action": [...]}``;
* pyautogui-style call strings (``pyautogui.click(100, 200)``, ``pyautogui.write('abc')``,
  ``pyautogui.hotkey('ctrl', 's')`` ...) and the pseudo-calls ``DONE``, ``FAIL``, ``WAIT`` (bare or called).
  Strings are parsed with ``ast.parse``; only whitelisted calls with literal arguments
  (``ast.literal_eval`` on each argument node) are accepted. Anything else is an ``ActionError``.

JSON text (optionally inside a Markdown code fence) is decoded first. Every error is an ``ActionError`` whose
message can be shown to the agent as-is.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, Callable, Mapping, Sequence

from pytest_cua.actions import (
    ACTION_TYPES,
    Action,
    ActionError,
    Answer,
    Back,
    Check,
    Clear,
    Click,
    CloseTab,
    Done,
    DoubleClick,
    Drag,
    Fail,
    Fill,
    Forward,
    GoTo,
    Hotkey,
    Hover,
    Move,
    NewTab,
    Point,
    Press,
    RightClick,
    Scroll,
    SelectOption,
    SwitchTab,
    Type,
    Uncheck,
    Wait,
)

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

__all__ = ["parse_actions", "parse_function_call", "parse_browser_use", "parse_pyautogui", "normalize_element_id",
           "MAX_OUTPUT_CHARS", "MAX_TEXT_CHARS", "MAX_ACTIONS"]


# --- entry point ---------------------------------------------------------------------------------------

def parse_actions(output: Any, *, pointer: Point | None = None) -> list[Action]:
    """Parse one agent output into a list of actions.

    ``pointer`` is where the mouse is (for ``pyautogui.dragTo`` without a preceding ``moveTo``).
    Raises ``ActionError`` with a message fit to show to the agent.
    """
    actions = _parse_any(output, pointer, depth=0)
    if not actions:
        raise ActionError("no action found in the output; reply with at least one action")
    if len(actions) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one output ({len(actions)}); at most {MAX_ACTIONS}")
    return actions


def _parse_any(output: Any, pointer: Point | None, depth: int) -> list[Action]:
    if depth > 4:
        raise ActionError("actions are nested too deeply")
    if isinstance(output, Action):
        return [output]
    if isinstance(output, str):
        return _parse_text(output, pointer, depth)
    if isinstance(output, Mapping):
        return _parse_mapping(output, pointer, depth)
    if isinstance(output, (list, tuple)):
        if len(output) > MAX_ACTIONS:
            raise ActionError(f"too many actions in one output ({len(output)}); at most {MAX_ACTIONS}")
        out: list[Action] = []
        for i, item in enumerate(output):
            try:
                out.extend(_parse_any(item, pointer, depth + 1))
            except ActionError as exc:
                raise ActionError(f"action #{i + 1}: {exc}") from None
        return out
    raise ActionError(f"cannot read an action from a {type(output).__name__}")


_FENCE = re.compile(r"```[A-Za-z0-9_+-]*\s*\n?(.*?)```", re.S)


def _parse_text(text: str, pointer: Point | None, depth: int) -> list[Action]:
    if len(text) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the output is too long ({len(text)} characters; at most {MAX_OUTPUT_CHARS})")
    fenced = _FENCE.findall(text)
    if fenced:
        text = "\n".join(fenced)
    stripped = text.strip()
    if not stripped:
        raise ActionError("the output is empty; reply with at least one action")
    if stripped[0] in "{[":
        try:
            data = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as exc:
            msg = getattr(exc, "msg", "too deeply nested")
            raise ActionError(f"the output looks like JSON but is not valid JSON: {msg}") from None
        return _parse_any(data, pointer, depth + 1)
    return parse_pyautogui(stripped, pointer=pointer)


def _parse_mapping(data: Mapping[str, Any], pointer: Point | None, depth: int) -> list[Action]:
    kind = data.get("type")
    if "function" in data and isinstance(data.get("function"), Mapping):  # OpenAI tool_calls entry
        return [parse_function_call(data["function"])]
    if kind == "tool_use" or ("name" in data and ("arguments" in data or "input" in data or "args" in data
                                                  or "parameters" in data or set(data) == {"name"})):
        return [parse_function_call(data)]
    if isinstance(kind, str) and kind in ACTION_TYPES:
        return [Action.from_dict(_check_sizes(data))]
    for key in ("action", "actions", "tool_calls"):
        if key in data and isinstance(data[key], (list, Mapping)):
            return _parse_any(data[key], pointer, depth + 1)
    if len(data) == 1:
        return [parse_browser_use(data)]
    if kind is not None:
        raise ActionError(f"unknown action type {kind!r}; known types: {', '.join(sorted(ACTION_TYPES))}")
    raise ActionError("cannot read an action from this object: expected {\"type\": ...}, "
                      "{\"name\": ..., \"arguments\": {...}} or a single-key browser action like "
                      "{\"click_element\": {\"index\": 3}}")


# --- common argument helpers ---------------------------------------------------------------------------

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
    raise ActionError(f"element id must be like 'e12', got {_short(value)}")


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"{what} must be a number, got {_short(value)}")
    if not math.isfinite(value) or abs(value) > MAX_COORDINATE:
        raise ActionError(f"{what} is out of range: {_short(value)}")
    return float(value)


def _point(x: Any, y: Any, what: str = "coordinates") -> Point:
    return Point(_number(x, f"{what} x"), _number(y, f"{what} y"))


def _text(value: Any, what: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        value = str(value)
    if not isinstance(value, str):
        raise ActionError(f"{what} must be a string, got {_short(value)}")
    if len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"{what} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_sizes(data: Mapping[str, Any]) -> Mapping[str, Any]:
    for key, value in data.items():
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            raise ActionError(f"field {key!r} is too long ({len(value)} characters; at most {MAX_TEXT_CHARS})")
    return data


_ID_KEYS = ("target", "element_id", "element", "id", "ref", "index", "element_index", "mark")
_POINT_KEYS = ("coordinate", "coordinates", "point", "position")


def _target(args: Mapping[str, Any], kind: str, *, required: bool = True,
            id_keys: Sequence[str] = _ID_KEYS, point_keys: Sequence[str] = _POINT_KEYS,
            x_key: str = "x", y_key: str = "y") -> Any:
    for key in id_keys:
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, (list, tuple)) and len(value) == 2:
                return _point(value[0], value[1], f"{kind} {key}")
            if isinstance(value, Mapping) and set(value) == {"x", "y"}:
                return _point(value["x"], value["y"], f"{kind} {key}")
            return normalize_element_id(value)
    for key in point_keys:
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, Mapping) and set(value) >= {"x", "y"}:
                return _point(value["x"], value["y"], f"{kind} {key}")
            if not isinstance(value, (list, tuple)) or len(value) != 2:
                raise ActionError(f"{kind}: {key!r} must be [x, y], got {_short(value)}")
            return _point(value[0], value[1], f"{kind} {key}")
    if x_key in args or y_key in args:
        if x_key not in args or y_key not in args:
            raise ActionError(f"{kind}: give both {x_key!r} and {y_key!r}")
        return _point(args[x_key], args[y_key], kind)
    if required:
        raise ActionError(f"{kind}: missing target: give 'element_id' (like 'e12') or 'x' and 'y'")
    return None


def _keys(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        parts = [p for p in re.split(r"\s*\+\s*", value.strip()) if p] if len(value) > 1 else [value]
        return tuple(_text(p, what) for p in parts)
    if isinstance(value, (list, tuple)) and value:
        return tuple(_text(v, what) for v in value)
    raise ActionError(f"{what} must be a key name or a list of key names, got {_short(value)}")


def _key_action(value: Any, what: str) -> Action:
    keys = _keys(value, what)
    return Press(keys[0]) if len(keys) == 1 else Hotkey(keys)


# --- function calls ------------------------------------------------------------------------------------

def parse_function_call(call: Mapping[str, Any]) -> Action:
    """``{"name": "click", "arguments": {...}}`` (arguments may be a JSON string) to an action."""
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise ActionError(f"a function call needs a 'name', got {_short(name)}")
    args: Any = {}
    for key in ("arguments", "input", "args", "parameters"):
        if key in call and call[key] is not None:
            args = call[key]
            break
    if isinstance(args, str):
        if len(args) > MAX_OUTPUT_CHARS:
            raise ActionError(f"arguments of {name!r} are too long")
        try:
            args = json.loads(args) if args.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            raise ActionError(f"arguments of {name!r} are not valid JSON") from None
    if not isinstance(args, Mapping):
        raise ActionError(f"arguments of {name!r} must be an object, got {type(args).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key == "computer":
        return _computer_tool(args)
    builder = _FUNCTIONS.get(key)
    if builder is None:
        if key in _BROWSER_USE:
            return _BROWSER_USE[key](args)
        known = ", ".join(sorted(_FUNCTIONS))
        raise ActionError(f"unknown function {name!r}; known: {known}")
    try:
        return builder(args)
    except ActionError as exc:
        message = str(exc)
        raise ActionError(message if message.startswith(key) else f"{key}: {message}") from None


def _arg(args: Mapping[str, Any], kind: str, *names: str, default: Any = ..., as_text: bool = True) -> Any:
    for n in names:
        if n in args and args[n] is not None:
            return _text(args[n], f"{kind} {n!r}") if as_text else args[n]
    if default is ...:
        raise ActionError(f"{kind}: missing {names[0]!r}")
    return default


def _fn_click(args: Mapping[str, Any]) -> Action:
    button = _arg(args, "click", "button", default="left")
    if button not in ("left", "right", "middle"):
        raise ActionError(f"click: 'button' must be left, right or middle, got {button!r}")
    target = _target(args, "click")
    if button == "right":
        return RightClick(target)
    clicks = args.get("clicks", 1)
    if clicks == 2:
        return DoubleClick(target)
    return Click(target, button=button)


def _fn_scroll(args: Mapping[str, Any]) -> Action:
    direction = args.get("direction")
    amount = args.get("amount", args.get("pixels"))
    dx = _number(args.get("dx", 0), "scroll dx")
    dy = _number(args.get("dy", 0), "scroll dy")
    if direction is not None:
        amt = _number(amount if amount is not None else DEFAULT_SCROLL_PX, "scroll amount")
        vectors = {"down": (0, amt), "up": (0, -amt), "right": (amt, 0), "left": (-amt, 0)}
        if direction not in vectors:
            raise ActionError(f"scroll: 'direction' must be up, down, left or right, got {_short(direction)}")
        dx, dy = vectors[direction]
    elif dx == 0 and dy == 0:
        dy = DEFAULT_SCROLL_PX
    return Scroll(dx=dx, dy=dy, target=_target(args, "scroll", required=False))


def _fn_drag(args: Mapping[str, Any]) -> Action:
    source = _target(args, "drag", id_keys=("source", "from", "source_id", "start"),
                     point_keys=("start_coordinate", "from_point"), x_key="x1", y_key="y1")
    dest = _target(args, "drag", id_keys=("destination", "to", "target", "target_id", "end"),
                   point_keys=("coordinate", "end_coordinate", "to_point"), x_key="x2", y_key="y2")
    return Drag(source, dest)


def _fn_tab_index(args: Mapping[str, Any], kind: str, required: bool) -> int | None:
    for key in ("index", "tab", "tab_index", "page_id"):
        if key in args and args[key] is not None:
            value = args[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ActionError(f"{kind}: {key!r} must be a tab number >= 0, got {_short(value)}")
            return value
    if required:
        raise ActionError(f"{kind}: missing 'index' (the tab number)")
    return None


def _fn_wait(args: Mapping[str, Any]) -> Action:
    seconds = _number(args.get("seconds", args.get("duration", args.get("time", 1.0))), "wait seconds")
    if seconds < 0 or seconds > 300:
        raise ActionError(f"wait: 'seconds' must be between 0 and 300, got {seconds:g}")
    return Wait(seconds)


def _fn_done(args: Mapping[str, Any]) -> Action:
    text = args.get("text", args.get("answer", args.get("message")))
    success = args.get("success", True)
    if success is False:
        return Fail(_text(text or "", "done text"))
    if text:
        return Answer(_text(text, "done text"))
    return Done()


_FUNCTIONS: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "click": _fn_click,
    "left_click": _fn_click,
    "double_click": lambda a: DoubleClick(_target(a, "double_click")),
    "right_click": lambda a: RightClick(_target(a, "right_click")),
    "hover": lambda a: Hover(_target(a, "hover")),
    "move": lambda a: Move(_target(a, "move")),
    "mouse_move": lambda a: Move(_target(a, "move")),
    "drag": _fn_drag,
    "scroll": _fn_scroll,
    "fill": lambda a: Fill(_target(a, "fill"), _arg(a, "fill", "text", "value")),
    "input_text": lambda a: Fill(_target(a, "fill"), _arg(a, "fill", "text", "value")),
    "type": lambda a: Type(_arg(a, "type", "text", "value"), target=_target(a, "type", required=False)),
    "type_text": lambda a: Type(_arg(a, "type", "text", "value"), target=_target(a, "type", required=False)),
    "clear": lambda a: Clear(_target(a, "clear")),
    "select_option": lambda a: SelectOption(_target(a, "select_option"),
                                            _arg(a, "select_option", "option", "label", "value", "text")),
    "select": lambda a: SelectOption(_target(a, "select"), _arg(a, "select", "option", "label", "value", "text")),
    "check": lambda a: Check(_target(a, "check")),
    "uncheck": lambda a: Uncheck(_target(a, "uncheck")),
    "press": lambda a: _key_action(_arg(a, "press", "key", "keys", as_text=False), "press key"),
    "key": lambda a: _key_action(_arg(a, "key", "key", "keys", "text", as_text=False), "key"),
    "press_key": lambda a: _key_action(_arg(a, "press_key", "key", "keys", as_text=False), "press key"),
    "hotkey": lambda a: Hotkey(_keys(_arg(a, "hotkey", "keys", "key", as_text=False), "hotkey keys")),
    "goto": lambda a: GoTo(_arg(a, "goto", "url")),
    "navigate": lambda a: GoTo(_arg(a, "navigate", "url")),
    "go_to_url": lambda a: GoTo(_arg(a, "go_to_url", "url")),
    "back": lambda a: Back(),
    "go_back": lambda a: Back(),
    "forward": lambda a: Forward(),
    "go_forward": lambda a: Forward(),
    "new_tab": lambda a: NewTab(_arg(a, "new_tab", "url", default=None)),
    "switch_tab": lambda a: SwitchTab(_fn_tab_index(a, "switch_tab", True)),  # type: ignore[arg-type]
    "close_tab": lambda a: CloseTab(_fn_tab_index(a, "close_tab", False)),
    "wait": _fn_wait,
    "answer": lambda a: Answer(_arg(a, "answer", "text", "answer")),
    "done": _fn_done,
    "finish": _fn_done,
    "fail": lambda a: Fail(_arg(a, "fail", "reason", "text", "message", default="")),
    "ask": lambda a: _ask(a),
}


def _ask(args: Mapping[str, Any]) -> Action:
    from pytest_cua.actions import Ask

    return Ask(_arg(args, "ask", "question", "text"))


def _computer_tool(args: Mapping[str, Any]) -> Action:
    """Anthropic's computer-use tool: ``{"action": "left_click", "coordinate": [x, y]}``."""
    action = args.get("action")
    coord = args.get("coordinate")

    def at() -> Point:
        if not isinstance(coord, (list, tuple)) or len(coord) != 2:
            raise ActionError(f"computer {action}: 'coordinate' must be [x, y], got {_short(coord)}")
        return _point(coord[0], coord[1], f"computer {action}")

    if action in ("left_click", "click"):
        return Click(at())
    if action == "right_click":
        return RightClick(at())
    if action == "middle_click":
        return Click(at(), button="middle")
    if action == "double_click":
        return DoubleClick(at())
    if action == "mouse_move":
        return Move(at())
    if action == "left_click_drag":
        start = args.get("start_coordinate")
        if not isinstance(start, (list, tuple)) or len(start) != 2:
            raise ActionError("computer left_click_drag: 'start_coordinate' must be [x, y]")
        return Drag(_point(start[0], start[1], "drag start"), at())
    if action == "type":
        return Type(_text(args.get("text"), "computer type 'text'"))
    if action == "key":
        return _key_action(args.get("text"), "computer key 'text'")
    if action == "scroll":
        amount = _number(args.get("scroll_amount", 3), "scroll_amount") * SCROLL_CLICK_PX
        direction = args.get("scroll_direction", "down")
        vectors = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}
        if direction not in vectors:
            raise ActionError(f"computer scroll: 'scroll_direction' must be up/down/left/right, got {direction!r}")
        return Scroll(dx=vectors[direction][0], dy=vectors[direction][1], target=at() if coord else None)
    if action == "wait":
        return _fn_wait({"seconds": args.get("duration", 1)})
    if action in ("screenshot", "cursor_position"):
        return Wait(0)
    raise ActionError(f"computer: unsupported action {action!r}")


# --- browser-use ---------------------------------------------------------------------------------------

def _bu_index(args: Mapping[str, Any], kind: str) -> str:
    if "index" not in args:
        raise ActionError(f"{kind}: missing 'index' (the element number)")
    return normalize_element_id(args["index"])


def _bu_scroll(sign: int) -> Callable[[Mapping[str, Any]], Action]:
    def build(args: Mapping[str, Any]) -> Action:
        amount = args.get("amount")
        px = DEFAULT_SCROLL_PX if amount is None else _number(amount, "scroll amount")
        return Scroll(dy=sign * px)
    return build


_BROWSER_USE: dict[str, Callable[[Mapping[str, Any]], Action]] = {
    "click_element": lambda a: Click(_bu_index(a, "click_element")),
    "click_element_by_index": lambda a: Click(_bu_index(a, "click_element_by_index")),
    "input_text": lambda a: Fill(_bu_index(a, "input_text"), _arg(a, "input_text", "text")),
    "go_to_url": lambda a: GoTo(_arg(a, "go_to_url", "url")),
    "go_back": lambda a: Back(),
    "open_tab": lambda a: NewTab(_arg(a, "open_tab", "url", default=None)),
    "switch_tab": lambda a: SwitchTab(_fn_tab_index(a, "switch_tab", True)),  # type: ignore[arg-type]
    "close_tab": lambda a: CloseTab(_fn_tab_index(a, "close_tab", False)),
    "scroll_down": _bu_scroll(1),
    "scroll_up": _bu_scroll(-1),
    "send_keys": lambda a: _key_action(_arg(a, "send_keys", "keys", as_text=False), "send_keys keys"),
    "select_dropdown_option": lambda a: SelectOption(_bu_index(a, "select_dropdown_option"),
                                                     _arg(a, "select_dropdown_option", "text", "option")),
    "wait": _fn_wait,
    "done": _fn_done,
    "hover_element": lambda a: Hover(_bu_index(a, "hover_element")),
    "drag_drop": _fn_drag,
}


def parse_browser_use(data: Mapping[str, Any]) -> Action:
    """A browser-use style ``{"click_element": {"index": 5}}`` to an action."""
    if len(data) != 1:
        raise ActionError(f"a browser action must have exactly one key, got {sorted(map(str, data))}")
    (name, args), = data.items()
    builder = _BROWSER_USE.get(str(name))
    if builder is None:
        if str(name) in _FUNCTIONS:
            builder = _FUNCTIONS[str(name)]
        else:
            known = ", ".join(sorted(_BROWSER_USE))
            raise ActionError(f"unknown browser action {str(name)[:60]!r}; known: {known}")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ActionError(f"{name}: parameters must be an object, got {type(args).__name__}")
    return builder(args)


# --- pyautogui-style strings ---------------------------------------------------------------------------

_PSEUDO = {"DONE", "FAIL", "WAIT", "ANSWER"}
_ALLOWED_IMPORTS = {"pyautogui", "time"}


class _Call:
    """A whitelisted call with its literal arguments."""

    def __init__(self, name: str, args: list[Any], kwargs: dict[str, Any], line: int) -> None:
        self.name, self.args, self.kwargs, self.line = name, args, kwargs, line

    def get(self, pos: int, key: str, default: Any = ...) -> Any:
        if len(self.args) > pos:
            return self.args[pos]
        if key in self.kwargs:
            return self.kwargs[key]
        if default is ...:
            raise ActionError(f"{self.name}: missing argument {key!r}")
        return default


def parse_pyautogui(code: str, *, pointer: Point | None = None) -> list[Action]:
    """Parse pyautogui-style calls and DONE / FAIL / WAIT into actions, without executing anything."""
    if len(code) > MAX_OUTPUT_CHARS:
        raise ActionError(f"the output is too long ({len(code)} characters; at most {MAX_OUTPUT_CHARS})")
    try:
        tree = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise ActionError(f"could not read the actions{where}: expected calls like pyautogui.click(100, 200), "
                          "DONE, FAIL or WAIT, or a JSON action") from None
    calls: list[_Call] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            bad = [a.name for a in stmt.names if a.name not in _ALLOWED_IMPORTS or a.asname]
            if bad:
                raise ActionError(f"line {stmt.lineno}: only 'import pyautogui' is allowed, not {bad[0]!r}")
            continue
        if not isinstance(stmt, ast.Expr):
            raise ActionError(f"line {stmt.lineno}: only calls like pyautogui.click(100, 200) are allowed, "
                              f"not a {type(stmt).__name__} statement")
        calls.append(_read_call(stmt.value, stmt.lineno))
    if len(calls) > MAX_ACTIONS:
        raise ActionError(f"too many actions in one output ({len(calls)}); at most {MAX_ACTIONS}")
    actions: list[Action] = []
    state = {"pointer": pointer}
    for call in calls:
        try:
            actions.extend(_pyautogui_action(call, state))
        except ActionError as exc:
            raise ActionError(f"line {call.line}: {exc}") from None
    return actions


def _read_call(node: ast.expr, line: int) -> _Call:
    if isinstance(node, ast.Name):
        if node.id in _PSEUDO:
            return _Call(node.id, [], {}, line)
        raise ActionError(f"line {line}: unknown name {node.id[:40]!r}; use DONE, FAIL, WAIT or pyautogui calls")
    if not isinstance(node, ast.Call):
        raise ActionError(f"line {line}: only calls like pyautogui.click(100, 200) are allowed")
    func = node.func
    if isinstance(func, ast.Name) and func.id in _PSEUDO:
        name = func.id
    elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
          and func.value.id == "pyautogui" and func.attr in _PYAUTOGUI):
        name = f"pyautogui.{func.attr}"
    elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
          and func.value.id == "time" and func.attr == "sleep"):
        name = "time.sleep"
    else:
        shown = ast.unparse(func)[:60] if hasattr(ast, "unparse") else "?"
        raise ActionError(f"line {line}: call of {shown!r} is not allowed; allowed: "
                          f"{', '.join('pyautogui.' + n for n in sorted(_PYAUTOGUI))}, DONE, FAIL, WAIT")
    args = [_literal(a, name, line) for a in node.args]
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise ActionError(f"line {line}: {name}: '**' arguments are not allowed")
        kwargs[kw.arg] = _literal(kw.value, name, line)
    return _Call(name, args, kwargs, line)


def _literal(node: ast.expr, name: str, line: int) -> Any:
    if isinstance(node, ast.Starred):
        raise ActionError(f"line {line}: {name}: '*' arguments are not allowed")
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ActionError(f"line {line}: {name}: arguments must be plain literals (numbers, strings, lists), "
                          "not expressions or calls") from None
    _check_literal_size(value, name, line)
    return value


def _check_literal_size(value: Any, name: str, line: int, depth: int = 0) -> None:
    if depth > 3:
        raise ActionError(f"line {line}: {name}: arguments are nested too deeply")
    if isinstance(value, (str, bytes)) and len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"line {line}: {name}: a string argument is too long ({len(value)} characters; "
                          f"at most {MAX_TEXT_CHARS})")
    if isinstance(value, (list, tuple, set)):
        if len(value) > 100:
            raise ActionError(f"line {line}: {name}: a list argument is too long")
        for v in value:
            _check_literal_size(v, name, line, depth + 1)
    if isinstance(value, dict):
        raise ActionError(f"line {line}: {name}: dict arguments are not allowed")


def _xy(call: _Call, required: bool = True) -> Point | None:
    first = call.get(0, "x", None)
    if isinstance(first, (list, tuple)):
        if len(first) != 2:
            raise ActionError(f"{call.name}: a position must be (x, y)")
        return _point(first[0], first[1], call.name)
    if first is None:
        if required:
            raise ActionError(f"{call.name}: give the position, e.g. {call.name}(100, 200)")
        return None
    y = call.get(1, "y", None)
    if y is None:
        raise ActionError(f"{call.name}: missing 'y'")
    return _point(first, y, call.name)


def _pa_click(call: _Call, state: dict[str, Any]) -> list[Action]:
    point = _xy(call, required=False) or state["pointer"]
    if point is None:
        raise ActionError(f"{call.name}: give the position, e.g. {call.name}(100, 200)")
    state["pointer"] = point
    button = call.kwargs.get("button", "left")
    if button not in ("left", "right", "middle", "primary", "secondary"):
        raise ActionError(f"{call.name}: 'button' must be left, right or middle, got {_short(button)}")
    button = {"primary": "left", "secondary": "right"}.get(button, button)
    clicks = call.kwargs.get("clicks", 1)
    if isinstance(clicks, bool) or not isinstance(clicks, int) or not 1 <= clicks <= 3:
        raise ActionError(f"{call.name}: 'clicks' must be 1, 2 or 3, got {_short(clicks)}")
    attr = call.name.split(".")[-1]
    if attr == "rightClick" or button == "right":
        return [RightClick(point)]
    if attr == "doubleClick" or clicks == 2:
        return [DoubleClick(point)]
    if attr == "tripleClick" or clicks == 3:
        return [DoubleClick(point), Click(point)]
    if attr == "middleClick":
        return [Click(point, button="middle")]
    return [Click(point, button=button)]


def _pa_move(call: _Call, state: dict[str, Any]) -> list[Action]:
    point = _xy(call)
    state["pointer"] = point
    return [Move(point)]  # type: ignore[arg-type]


def _pa_drag(call: _Call, state: dict[str, Any]) -> list[Action]:
    start = state["pointer"]
    if start is None:
        raise ActionError(f"{call.name}: the start point is unknown; call pyautogui.moveTo(x, y) first")
    end = _xy(call)
    state["pointer"] = end
    return [Drag(start, end)]  # type: ignore[arg-type]


def _pa_write(call: _Call, state: dict[str, Any]) -> list[Action]:
    text = call.get(0, "message")
    if isinstance(text, (list, tuple)):  # typewrite(['a', 'enter'])
        return [Press(_text(k, f"{call.name} key")) for k in text]
    return [Type(_text(text, f"{call.name} text"))]


def _pa_press(call: _Call, state: dict[str, Any]) -> list[Action]:
    keys = call.get(0, "keys")
    presses = call.kwargs.get("presses", 1)
    if isinstance(presses, bool) or not isinstance(presses, int) or not 1 <= presses <= 50:
        raise ActionError(f"{call.name}: 'presses' must be a whole number from 1 to 50, got {_short(presses)}")
    names = list(keys) if isinstance(keys, (list, tuple)) else [keys]
    if not names:
        raise ActionError(f"{call.name}: no key given")
    pressed: list[Action] = [Press(_text(k, f"{call.name} key")) for k in names]
    return pressed * presses


def _pa_hotkey(call: _Call, state: dict[str, Any]) -> list[Action]:
    if not call.args:
        raise ActionError(f"{call.name}: give the keys, e.g. pyautogui.hotkey('ctrl', 's')")
    keys = tuple(_text(k, f"{call.name} key") for k in call.args)
    return [Hotkey(keys)] if len(keys) > 1 else [Press(keys[0])]


def _pa_scroll(call: _Call, state: dict[str, Any], horizontal: bool = False) -> list[Action]:
    clicks = _number(call.get(0, "clicks"), f"{call.name} clicks")
    x, y = call.get(1, "x", None), call.get(2, "y", None)
    target = _point(x, y, call.name) if x is not None and y is not None else None
    px = -clicks * SCROLL_CLICK_PX  # pyautogui: positive scrolls up (or right for hscroll)
    if horizontal:
        return [Scroll(dx=-px, target=target)]
    return [Scroll(dy=px, target=target)]


def _pa_sleep(call: _Call, state: dict[str, Any]) -> list[Action]:
    return [_fn_wait({"seconds": call.get(0, "seconds", 1.0)})]


def _pa_pseudo(call: _Call, state: dict[str, Any]) -> list[Action]:
    if call.name == "DONE":
        return [Done()]
    if call.name == "FAIL":
        return [Fail(_text(call.get(0, "reason", ""), "FAIL reason"))]
    if call.name == "ANSWER":
        return [Answer(_text(call.get(0, "text"), "ANSWER text"))]
    return [_fn_wait({"seconds": call.get(0, "seconds", 1.0)})]


_PYAUTOGUI: dict[str, Callable[[_Call, dict[str, Any]], list[Action]]] = {
    "click": _pa_click,
    "leftClick": _pa_click,
    "doubleClick": _pa_click,
    "tripleClick": _pa_click,
    "rightClick": _pa_click,
    "middleClick": _pa_click,
    "moveTo": _pa_move,
    "dragTo": _pa_drag,
    "write": _pa_write,
    "typewrite": _pa_write,
    "press": _pa_press,
    "hotkey": _pa_hotkey,
    "scroll": _pa_scroll,
    "vscroll": _pa_scroll,
    "hscroll": lambda c, s: _pa_scroll(c, s, horizontal=True),
}


def _pyautogui_action(call: _Call, state: dict[str, Any]) -> list[Action]:
    if call.name in _PSEUDO:
        return _pa_pseudo(call, state)
    if call.name == "time.sleep":
        return _pa_sleep(call, state)
    return _PYAUTOGUI[call.name.split(".", 1)[1]](call, state)
